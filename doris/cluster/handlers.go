package cluster

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

const clusterPrefix = "CLUSTER"

// ListClusterNodes runs doris_cluster list_cluster_nodes.
func ListClusterNodes(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		NodeTypes      []string `json:"node_types"`
		IncludeMetrics bool     `json:"include_metrics"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if len(a.NodeTypes) == 0 {
		a.NodeTypes = []string{"fe", "be", "broker"}
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	items, read, warnings, err := r.nodeList(ctx, rt, a.NodeTypes)
	if err != nil {
		return nil, err
	}
	status := "success"
	if len(read) < len(a.NodeTypes) {
		status = "partial"
	}
	if a.IncludeMetrics {
		w, failed := r.nodeMetricsFor(ctx, rt, items)
		warnings = append(warnings, w...)
		if failed {
			status = "partial"
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i]["node_type"] != items[j]["node_type"] {
			return items[i]["node_type"].(string) < items[j]["node_type"].(string)
		}
		return items[i]["host"].(string) < items[j]["host"].(string)
	})
	return &doris.Result{Status: status, Warnings: warnings, Data: doris.Collection{Items: items}}, nil
}

// nodeList reads the node lists of the given types. A list this account
// may not read is a warning; none readable is the error of the first.
func (r kit) nodeList(ctx context.Context, rt *doris.Route, types []string) (items []map[string]any, read, warnings []string, err error) {
	items = []map[string]any{}
	sources := map[string]string{"fe": "SHOW FRONTENDS", "be": "SHOW BACKENDS", "broker": "SHOW BROKER"}
	var first *doris.Error
	for _, typ := range []string{"fe", "be", "broker"} {
		if !slices.Contains(types, typ) {
			continue
		}
		t, err := r.Text(ctx, rt, sources[typ], 1024, clusterPrefix)
		if err != nil {
			de := doris.Classify(clusterPrefix, err, ctx)
			if first == nil {
				first = de
			}
			warnings = append(warnings, sources[typ]+" could not be read ("+de.Reason+").")
			continue
		}
		read = append(read, typ)
		for _, row := range t.Rows {
			items = append(items, nodeItem(typ, t, row))
		}
	}
	if len(read) == 0 {
		return nil, nil, nil, first
	}
	return items, read, warnings, nil
}

// nodeItem reads one SHOW FRONTENDS / BACKENDS / BROKER row by name.
func nodeItem(typ string, t *doris.TextRows, row []doris.NullString) map[string]any {
	host := t.Get(row, "Host")
	if host == "" {
		host = t.Get(row, "IP")
	}
	item := map[string]any{"node_type": typ, "host": host, "alive": doris.Boolish(t.Get(row, "Alive"))}
	switch typ {
	case "fe":
		item["node_id"] = doris.Nullable(t, row, "Name")
		item["role"] = doris.Nullable(t, row, "Role")
		item["is_master"] = doris.Boolish(t.Get(row, "IsMaster"))
		item["ports"] = pick(t, row, "EditLogPort", "HttpPort", "QueryPort", "RpcPort", "ArrowFlightSqlPort")
	case "be":
		item["node_id"] = doris.Nullable(t, row, "BackendId")
		item["role"] = doris.Nullable(t, row, "NodeRole")
		item["ports"] = pick(t, row, "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "ArrowFlightSqlPort")
		item["resources"] = pick(t, row, "TabletNum", "DataUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct",
			"MaxDiskUsedPct", "CpuCores", "Memory", "RunningTasks")
	case "broker":
		item["node_id"] = doris.Nullable(t, row, "Name")
		item["ports"] = pick(t, row, "Port")
	}
	item["version"] = nil
	if b, ok := doris.ParseBuild(t.Get(row, "Version")); ok {
		item["version"] = b.Version.String()
	}
	return item
}

// pick copies the named columns that exist into a map.
func pick(t *doris.TextRows, row []doris.NullString, cols ...string) map[string]any {
	m := map[string]any{}
	for _, c := range cols {
		if t.Has(c) {
			m[c] = doris.Nullable(t, row, c)
		}
	}
	return m
}

// GetRuntimeCapabilities runs doris_cluster get_runtime_capabilities.
func GetRuntimeCapabilities(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Detail string `json:"detail"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	// The route's current generation, with every probe run in it so far
	// (the call's own snapshot holds only those run before its domain's
	// manifest was built); the call's snapshot if Doris stopped answering.
	s := r.Snapshot(ctx, c.Identity, nil)
	if s.Unavailable != "" && c.Snapshot != nil {
		s = c.Snapshot
	}
	counts := map[string]int{}
	var domains []string
	var probes []map[string]any
	ids := make([]string, 0, len(s.Probes))
	for id := range s.Probes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		outcome := s.Probes[id]
		counts[outcome]++
		d, _, _ := strings.Cut(id, ".")
		if !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
		if a.Detail == "full" {
			p := map[string]any{"id": id, "status": outcome, "reason_code": nil}
			if outcome != doris.ProbeOK {
				p["reason_code"] = outcome
			}
			probes = append(probes, p)
		}
	}
	data := map[string]any{
		"versions": map[string]any{
			"master_fe": doris.StrOrNil(s.Master.String(), !s.Master.IsZero()),
			"frontends": doris.OrEmpty(s.Versions("fe")),
			"backends":  doris.OrEmpty(s.Versions("be")),
		},
		"deployment_mode": doris.StrOrNil(s.Mode, s.Mode != ""),
		"mixed_versions":  s.Mixed,
		"stale":           s.Stale,
		// No Doris release is certified by this build: it has been tested
		// against the simulator's 2.1, 3.0 and 4.0 profiles only.
		"patch_certification": map[string]any{"certified": false, "status": "target_uncertified"},
		"probe_counts":        counts,
		"probed_domains":      doris.OrEmpty(domains),
		"frontends_visible":   s.FEVisible,
		"backends_visible":    s.BEVisible,
	}
	if a.Detail == "full" {
		data["probes"] = doris.OrEmpty(probes)
		data["build"] = s.Brand
	}
	res := &doris.Result{Status: "success", Data: data, Source: "capability_snapshot"}
	if !s.BEVisible {
		res.Warnings = append(res.Warnings, "Backend versions are not visible to this account (SHOW BACKENDS needs ADMIN).")
	}
	return res, nil
}

// Probes are the capability probes of this domain's children.
var Probes = map[string]doris.Probe{
	"cluster.current_queries":       {SQL: `SHOW PROC "/current_queries"`},
	"cluster.active_queries":        {SQL: activeQueriesSQL + " LIMIT 1"},
	"cluster.processlist":           {SQL: "SHOW FULL PROCESSLIST"},
	"cluster.file_cache_statistics": {SQL: "SELECT * FROM information_schema.file_cache_statistics LIMIT 1"},
	"cluster.compaction_tasks":      {SQL: "SELECT * FROM information_schema.be_compaction_tasks LIMIT 1"},
	"cluster.workload_groups":       {SQL: "SHOW WORKLOAD GROUPS"},
	"cluster.compute_groups":        {SQL: "SHOW COMPUTE GROUPS"},
	"cluster.history_buckets": {Run: func(ctx context.Context, r *doris.Runtime, rt *doris.Route) (string, time.Duration) {
		err := kit{r}.probeHistoryBuckets(ctx, rt)
		if errors.Is(err, errNoHistory) {
			// Readable, with under two hours of records yet: nothing is
			// missing in Doris, so the child runs, and its answer says how
			// much history there is (RESOURCE_HISTORY_INSUFFICIENT).
			return doris.ProbeOK, 0
		}
		return r.ProbeOutcome(ctx, err)
	}},
}
