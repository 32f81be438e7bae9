package doris

import (
	"context"
	"encoding/json"
	"slices"
	"time"
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

func (r *Runtime) getClusterOverview(ctx context.Context, c *Call) (*Result, error) {
	a := struct {
		Include []string `json:"include"`
	}{Include: []string{"nodes", "tasks", "metrics", "memory", "cache", "compaction"}}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	httpTimeout := min(r.cfg.HTTPTotalTimeout+overviewHTTPMargin, DefaultCallTimeout)
	// sub runs a sibling child with the given arguments as this caller.
	sub := func(h Handler, variant string, args map[string]any) func(context.Context) (section, error) {
		return func(ctx context.Context) (section, error) {
			raw, _ := json.Marshal(args)
			call := *c
			call.Args, call.Variant = raw, variant
			res, err := h(ctx, &call)
			if err != nil {
				return section{}, err
			}
			return section{Status: res.Status, Data: res.Data, Warnings: res.Warnings, Source: res.Source}, nil
		}
	}
	var summary map[string]any
	steps := []step{{Name: "nodes", Required: true, Timeout: overviewNodesTimeout, Run: func(ctx context.Context) (section, error) {
		items, read, warnings, err := r.nodeList(ctx, rt, []string{"fe", "be", "broker"})
		if err != nil {
			return section{}, err
		}
		var down []map[string]any
		summary = nodeSummary(items, read)
		for _, it := range items {
			if it["alive"] == false {
				down = append(down, map[string]any{"node_type": it["node_type"], "node_id": it["node_id"], "host": it["host"]})
			}
		}
		sec := section{Status: "success", Source: "SHOW FRONTENDS, SHOW BACKENDS, SHOW BROKER", Warnings: warnings,
			Data: map[string]any{"not_alive": orEmpty(down)}}
		if len(read) < 3 {
			sec.Status = "partial"
		}
		return sec, nil
	}}}
	compactionVariant := "legacy_summary"
	if c.Snapshot != nil && c.Snapshot.Probes["cluster.compaction_tasks"] == ProbeOK {
		compactionVariant = "compaction_task_tracker"
	}
	optional := []step{
		{Name: "tasks", Timeout: overviewSQLTimeout, Run: sub(r.listActiveTasks, "", map[string]any{"limit": overviewTaskLimit})},
		{Name: "metrics", Timeout: httpTimeout, Run: sub(r.getMonitoringMetrics, "", map[string]any{})},
		{Name: "memory", Timeout: httpTimeout, Run: sub(r.getMemoryStats, "", map[string]any{})},
		{Name: "cache", Timeout: httpTimeout, Run: sub(r.getCacheStatus, "", map[string]any{})},
		{Name: "compaction", Timeout: httpTimeout, Run: sub(r.getCompactionStatus, compactionVariant, map[string]any{"limit": overviewTaskLimit})},
	}
	for _, s := range optional {
		if slices.Contains(a.Include, s.Name) {
			steps = append(steps, s)
		}
	}
	p, err := r.runPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	res := &Result{Status: "success", Source: "cluster_overview", Warnings: p.warnings(steps),
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
