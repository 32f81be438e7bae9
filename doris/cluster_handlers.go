package doris

import (
	"context"
	"slices"
	"sort"
	"strings"
)

const clusterPrefix = "CLUSTER"

func (r *Runtime) listClusterNodes(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		NodeTypes      []string `json:"node_types"`
		IncludeMetrics bool     `json:"include_metrics"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if len(a.NodeTypes) == 0 {
		a.NodeTypes = []string{"fe", "be", "broker"}
	}
	rt, err := r.route(c.Identity)
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
	return &Result{Status: status, Warnings: warnings, Data: collection{Items: items}}, nil
}

// nodeList reads the node lists of the given types. A list this account
// may not read is a warning; none readable is the error of the first.
func (r *Runtime) nodeList(ctx context.Context, rt *route, types []string) (items []map[string]any, read, warnings []string, err error) {
	items = []map[string]any{}
	sources := map[string]string{"fe": "SHOW FRONTENDS", "be": "SHOW BACKENDS", "broker": "SHOW BROKER"}
	var first *Error
	for _, typ := range []string{"fe", "be", "broker"} {
		if !slices.Contains(types, typ) {
			continue
		}
		t, err := r.text(ctx, rt, sources[typ], 1024, clusterPrefix)
		if err != nil {
			de := classify(clusterPrefix, err, ctx)
			if first == nil {
				first = de
			}
			warnings = append(warnings, sources[typ]+" could not be read ("+de.Reason+").")
			continue
		}
		read = append(read, typ)
		for _, row := range t.rows {
			items = append(items, nodeItem(typ, t, row))
		}
	}
	if len(read) == 0 {
		return nil, nil, nil, first
	}
	return items, read, warnings, nil
}

// nodeItem reads one SHOW FRONTENDS / BACKENDS / BROKER row by name.
func nodeItem(typ string, t *textRows, row []sqlNullString) map[string]any {
	host := t.get(row, "Host")
	if host == "" {
		host = t.get(row, "IP")
	}
	item := map[string]any{"node_type": typ, "host": host, "alive": boolish(t.get(row, "Alive"))}
	switch typ {
	case "fe":
		item["node_id"] = nullable(t, row, "Name")
		item["role"] = nullable(t, row, "Role")
		item["is_master"] = boolish(t.get(row, "IsMaster"))
		item["ports"] = pick(t, row, "EditLogPort", "HttpPort", "QueryPort", "RpcPort", "ArrowFlightSqlPort")
	case "be":
		item["node_id"] = nullable(t, row, "BackendId")
		item["role"] = nullable(t, row, "NodeRole")
		item["ports"] = pick(t, row, "HeartbeatPort", "BePort", "HttpPort", "BrpcPort", "ArrowFlightSqlPort")
		item["resources"] = pick(t, row, "TabletNum", "DataUsedCapacity", "AvailCapacity", "TotalCapacity", "UsedPct",
			"MaxDiskUsedPct", "CpuCores", "Memory", "RunningTasks")
	case "broker":
		item["node_id"] = nullable(t, row, "Name")
		item["ports"] = pick(t, row, "Port")
	}
	item["version"] = nil
	if b, ok := ParseBuild(t.get(row, "Version")); ok {
		item["version"] = b.Version.String()
	}
	return item
}

// boolish reads Doris's true/false and Yes/No cells.
func boolish(s string) any {
	switch strings.ToLower(s) {
	case "true", "yes":
		return true
	case "false", "no":
		return false
	case "":
		return nil
	}
	return s
}

// pick copies the named columns that exist into a map.
func pick(t *textRows, row []sqlNullString, cols ...string) map[string]any {
	m := map[string]any{}
	for _, c := range cols {
		if t.has(c) {
			m[c] = nullable(t, row, c)
		}
	}
	return m
}

func (r *Runtime) getRuntimeCapabilities(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		Detail string `json:"detail"`
	}
	if err := decodeArgs(c, &a); err != nil {
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
			if outcome != ProbeOK {
				p["reason_code"] = outcome
			}
			probes = append(probes, p)
		}
	}
	data := map[string]any{
		"versions": map[string]any{
			"master_fe": strOrNil(s.Master.String(), !s.Master.IsZero()),
			"frontends": orEmpty(s.Versions("fe")),
			"backends":  orEmpty(s.Versions("be")),
		},
		"deployment_mode": strOrNil(s.Mode, s.Mode != ""),
		"mixed_versions":  s.Mixed,
		"stale":           s.Stale,
		// No Doris release is certified by this build: it has been tested
		// against the simulator's 2.1, 3.0 and 4.0 profiles only.
		"patch_certification": map[string]any{"certified": false, "status": "target_uncertified"},
		"probe_counts":        counts,
		"probed_domains":      orEmpty(domains),
		"frontends_visible":   s.FEVisible,
		"backends_visible":    s.BEVisible,
	}
	if a.Detail == "full" {
		data["probes"] = orEmpty(probes)
		data["build"] = s.Brand
	}
	res := &Result{Status: "success", Data: data, Source: "capability_snapshot"}
	if !s.BEVisible {
		res.Warnings = append(res.Warnings, "Backend versions are not visible to this account (SHOW BACKENDS needs ADMIN).")
	}
	return res, nil
}

func (r *Runtime) clusterHandlers() map[string]Handler {
	return map[string]Handler{
		"doris_cluster.get_cluster_overview":      r.getClusterOverview,
		"doris_cluster.list_cluster_nodes":        r.listClusterNodes,
		"doris_cluster.list_active_tasks":         r.listActiveTasks,
		"doris_cluster.get_monitoring_metrics":    r.getMonitoringMetrics,
		"doris_cluster.get_memory_stats":          r.getMemoryStats,
		"doris_cluster.get_cache_status":          r.getCacheStatus,
		"doris_cluster.get_compaction_status":     r.getCompactionStatus,
		"doris_cluster.get_workload_group_status": r.getWorkloadGroupStatus,
		"doris_cluster.get_compute_group_status":  r.getComputeGroupStatus,
		"doris_cluster.analyze_resource_growth":   r.analyzeResourceGrowth,
		"doris_cluster.get_runtime_capabilities":  r.getRuntimeCapabilities,
	}
}

// clusterProbeSQL are the SQL capability probes of doris_cluster.
var clusterProbeSQL = map[string]string{
	"cluster.current_queries":       `SHOW PROC "/current_queries"`,
	"cluster.active_queries":        activeQueriesSQL + " LIMIT 1",
	"cluster.processlist":           "SHOW FULL PROCESSLIST",
	"cluster.file_cache_statistics": "SELECT * FROM information_schema.file_cache_statistics LIMIT 1",
	"cluster.compaction_tasks":      "SELECT * FROM information_schema.be_compaction_tasks LIMIT 1",
	"cluster.workload_groups":       "SHOW WORKLOAD GROUPS",
	"cluster.compute_groups":        "SHOW COMPUTE GROUPS",
}
