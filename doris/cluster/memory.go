package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// scrapeBEs reads /metrics of the configured BEs named by ids, keeping
// the series keep accepts. It fails only when no BE is configured or
// none matches ids; per-node failures are in the answer.
func (r kit) scrapeBEs(ctx context.Context, c *doris.Call, ids []string, keep func(name string) bool) ([]nodeMetrics, []string, error) {
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, nil, err
	}
	all := r.metricsNodes()
	nodes, unknown := selectNodes(all, "be", ids)
	var warnings []string
	if len(unknown) > 0 {
		warnings = append(warnings, doris.Plural(len(unknown), "node id names", "node ids name")+
			" no configured BE (node ids are the host:port entries of DORIS_BE_HOSTS).")
	}
	if len(nodes) == 0 {
		if len(ids) > 0 {
			return nil, nil, doris.ArgError(clusterPrefix, "NODE_NOT_FOUND", "node_ids names no BE listed in DORIS_BE_HOSTS")
		}
		return nil, nil, &doris.Error{Kind: doris.KindFailed, Reason: "CLUSTER_BE_METRICS_NOT_CONFIGURED", Status: 501,
			Message: "no BE web servers are configured (DORIS_BE_HOSTS)"}
	}
	got := r.scrape(ctx, rt, nodes, func(typ, name string) bool { return allowed(typ, name) && keep(name) })
	for _, n := range got {
		if n.Reason != "" {
			warnings = append(warnings, fmt.Sprintf("BE %s is unavailable (%s).", n.ID, n.Reason))
		}
	}
	return got, warnings, nil
}

// failedAll reports that no node answered, as the child's error.
func failedAll(nodes []nodeMetrics, reason string) error {
	for _, n := range nodes {
		if n.Reason == "" {
			return nil
		}
	}
	return &doris.Error{Kind: doris.KindFailed, Reason: reason, Status: 503, Retryable: true,
		Message: fmt.Sprintf("no BE metrics endpoint answered (%s)", reasonCounts(nodes))}
}

// memoryTracker is one consumer of BE memory.
type memoryTracker struct {
	name  string
	bytes int64
}

// GetMemoryStats runs doris_cluster get_memory_stats.
func GetMemoryStats(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		NodeIDs []string `json:"node_ids"`
		Detail  string   `json:"detail"`
	}{Detail: "summary"}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	got, warnings, err := r.scrapeBEs(ctx, c, a.NodeIDs, func(name string) bool {
		return strings.HasPrefix(name, "doris_be_mem") || strings.HasPrefix(name, "doris_be_cache_")
	})
	if err != nil {
		return nil, err
	}
	if err := failedAll(got, "MEMORY_METRICS_UNAVAILABLE"); err != nil {
		return nil, err
	}
	status := "success"
	nodes := make([]map[string]any, 0, len(got))
	for _, n := range got {
		item := map[string]any{"node_id": n.ID, "host": n.Host}
		if n.Reason != "" {
			item["status"], item["reason_code"] = "unavailable", n.Reason
			status = "partial"
			nodes = append(nodes, item)
			continue
		}
		m := memoryOf(n.Samples)
		item["status"] = "success"
		item["used_bytes"] = m.used
		// Doris's /metrics has no process memory limit (mem_limit is a BE
		// setting), so none is reported rather than one guessed.
		item["limit_bytes"] = nil
		item["jemalloc"] = m.jemalloc
		item["by_type"] = m.byType()
		switch a.Detail {
		case "trackers":
			item["trackers"] = trackerItems(m.types)
		case "top_consumers":
			all := append(append([]memoryTracker{}, m.types...), m.caches...)
			sort.SliceStable(all, func(i, j int) bool { return all[i].bytes > all[j].bytes })
			item["trackers"] = trackerItems(all[:min(len(all), 20)])
		default:
			item["trackers"] = nil
		}
		nodes = append(nodes, item)
	}
	return &doris.Result{Status: status, Warnings: warnings, Source: "doris_be_metrics",
		Data: map[string]any{"detail": a.Detail, "nodes": nodes}}, nil
}

// beMemory is one BE's memory figures from /metrics.
type beMemory struct {
	used     any // bytes, or nil when the BE did not say
	jemalloc map[string]any
	types    []memoryTracker // doris_be_mem_consumption by type
	caches   []memoryTracker // LRU cache usage by name
}

func memoryOf(samples []promSample) beMemory {
	m := beMemory{jemalloc: map[string]any{}}
	for _, s := range samples {
		switch {
		case s.Name == "doris_be_memory_allocated_bytes":
			m.used = jsonNumber(s.Value)
		case strings.HasPrefix(s.Name, "doris_be_memory_jemalloc_"):
			m.jemalloc[strings.TrimPrefix(s.Name, "doris_be_memory_jemalloc_")] = jsonNumber(s.Value)
		case s.Name == "doris_be_mem_consumption" && s.label("type") != "":
			m.types = append(m.types, memoryTracker{s.label("type"), int64(s.Value)})
		case s.Name == "doris_be_cache_usage" && s.label("name") != "":
			m.caches = append(m.caches, memoryTracker{"cache:" + s.label("name"), int64(s.Value)})
		}
	}
	return m
}

func (m beMemory) byType() map[string]any {
	out := map[string]any{}
	for _, t := range m.types {
		out[t.name] = t.bytes
	}
	return out
}

func trackerItems(ts []memoryTracker) []map[string]any {
	out := make([]map[string]any, 0, len(ts))
	for _, t := range ts {
		out = append(out, map[string]any{"name": t.name, "bytes": t.bytes, "peak_bytes": nil})
	}
	return out
}

// nodeMetricsFor attaches a small /metrics snapshot to list_cluster_nodes
// items, matched by host and HTTP port; it returns warnings for what
// could not be attached, and whether a listed node's metrics failed.
func (r kit) nodeMetricsFor(ctx context.Context, rt *doris.Route, items []map[string]any) (warnings []string, failed bool) {
	nodes := r.metricsNodes()
	if len(nodes) == 0 {
		return []string{"No FE or BE web server is configured, so no node metrics are attached."}, false
	}
	got := r.scrape(ctx, rt, nodes, func(typ, name string) bool { return allowed(typ, name) && wanted(coreMetrics, name) })
	byAddr := map[string]nodeMetrics{}
	for _, n := range got {
		byAddr[strings.ToLower(n.ID)] = n
	}
	attached := map[string]bool{}
	for _, it := range items {
		ports, _ := it["ports"].(map[string]any)
		port, _ := ports["HttpPort"].(string)
		host, _ := it["host"].(string)
		if port == "" {
			continue
		}
		key := strings.ToLower(host + ":" + port)
		n, ok := byAddr[key]
		if !ok {
			continue
		}
		attached[key] = true
		if n.Reason != "" {
			it["metrics"] = map[string]any{"status": "unavailable", "reason_code": n.Reason}
			warnings = append(warnings, fmt.Sprintf("%s %s metrics are unavailable (%s).", strings.ToUpper(n.Type), n.ID, n.Reason))
			failed = true
			continue
		}
		series := map[string]any{}
		for _, s := range n.Samples {
			series[seriesKey(s)] = jsonNumber(s.Value)
		}
		it["metrics"] = map[string]any{"status": "success", "series": series}
	}
	missing := 0
	for _, n := range got {
		if !attached[strings.ToLower(n.ID)] {
			missing++
		}
	}
	if missing > 0 {
		warnings = append(warnings, doris.Plural(missing, "configured metrics endpoint matches", "configured metrics endpoints match")+
			" no listed node by host and HTTP port; its metrics are not attached.")
	}
	return warnings, failed
}
