package cluster

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// get_cluster_overview: one health summary from the sibling children,
// run concurrently, each section under its own time bound. Node liveness
// is required; every other section that fails is unavailable with its
// reason and the rest still arrives.

// Section time bounds. SQL sections get a few seconds; web server
// sections get the per-node HTTP bound plus a margin, so one slow node
// makes its node unavailable inside the section rather than the section.
const (
	overviewNodesTimeout = 15 * time.Second
	overviewSQLTimeout   = 10 * time.Second
	overviewHTTPMargin   = 2 * time.Second
	overviewTaskLimit    = 10
)

// GetClusterOverview runs doris_cluster get_cluster_overview.
func GetClusterOverview(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		Include []string `json:"include"`
	}{Include: []string{"nodes", "tasks", "metrics", "memory", "cache", "compaction"}}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	httpTimeout := min(r.Settings().HTTPTotalTimeout+overviewHTTPMargin, doris.DefaultCallTimeout)
	// sub runs a sibling child with the given arguments as this caller.
	sub := func(h doris.Handler, variant string, args map[string]any) func(context.Context) (doris.Section, error) {
		return func(ctx context.Context) (doris.Section, error) {
			raw, _ := json.Marshal(args)
			call := *c
			call.Args, call.Variant = raw, variant
			res, err := h(ctx, &call)
			if err != nil {
				return doris.Section{}, err
			}
			return doris.Section{Status: res.Status, Data: res.Data, Warnings: res.Warnings, Source: res.Source}, nil
		}
	}
	var summary map[string]any
	steps := []doris.Step{{Name: "nodes", Required: true, Timeout: overviewNodesTimeout, Run: func(ctx context.Context) (doris.Section, error) {
		items, read, warnings, err := r.nodeList(ctx, rt, []string{"fe", "be", "broker"})
		if err != nil {
			return doris.Section{}, err
		}
		var down []map[string]any
		summary = nodeSummary(items, read)
		for _, it := range items {
			if it["alive"] == false {
				down = append(down, map[string]any{"node_type": it["node_type"], "node_id": it["node_id"], "host": it["host"]})
			}
		}
		sec := doris.Section{Status: "success", Source: "SHOW FRONTENDS, SHOW BACKENDS, SHOW BROKER", Warnings: warnings,
			Data: map[string]any{"not_alive": doris.OrEmpty(down)}}
		if len(read) < 3 {
			sec.Status = "partial"
		}
		return sec, nil
	}}}
	compactionVariant := "legacy_summary"
	if c.Snapshot != nil && c.Snapshot.Probes["cluster.compaction_tasks"] == doris.ProbeOK {
		compactionVariant = "compaction_task_tracker"
	}
	optional := []doris.Step{
		{Name: "tasks", Timeout: overviewSQLTimeout, Run: sub(ListActiveTasks, "", map[string]any{"limit": overviewTaskLimit})},
		{Name: "metrics", Timeout: httpTimeout, Run: sub(GetMonitoringMetrics, "", map[string]any{})},
		{Name: "memory", Timeout: httpTimeout, Run: sub(GetMemoryStats, "", map[string]any{})},
		{Name: "cache", Timeout: httpTimeout, Run: sub(GetCacheStatus, "", map[string]any{})},
		{Name: "compaction", Timeout: httpTimeout, Run: sub(GetCompactionStatus, compactionVariant, map[string]any{"limit": overviewTaskLimit})},
	}
	for _, s := range optional {
		if slices.Contains(a.Include, s.Name) {
			steps = append(steps, s)
		}
	}
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	res := &doris.Result{Status: "success", Source: "cluster_overview", Warnings: p.Warnings(steps),
		Data: map[string]any{"summary": summary, "sections": p.Sections}}
	if p.Partial {
		res.Status = "partial"
	}
	return res, nil
}

// nodeSummary counts nodes by type and liveness, for the types that
// could be read (a count of an unreadable list would be a guess).
func nodeSummary(items []map[string]any, read []string) map[string]any {
	s := map[string]any{}
	for _, typ := range read {
		total, alive := 0, 0
		for _, it := range items {
			if it["node_type"] == typ {
				total++
				if it["alive"] == true {
					alive++
				}
			}
		}
		s[typ+"_total"] = total
		if typ != "broker" {
			s[typ+"_alive"] = alive
		}
	}
	return s
}
