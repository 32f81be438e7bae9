package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// File cache, compaction, workload groups and compute groups.

// numberOrString is a metric value as a number when it reads as one.
func numberOrString(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return jsonNumber(f)
	}
	return s
}

// GetCacheStatus runs doris_cluster get_cache_status.
func GetCacheStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Scope         string   `json:"scope"`
		NodeIDs       []string `json:"node_ids"`
		IncludeQueues bool     `json:"include_queues"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	caches, queues, sqlErr := r.fileCacheTable(ctx, rt, a.NodeIDs)
	var warnings []string
	source := "information_schema"
	if sqlErr != nil || len(caches) == 0 {
		if len(r.BEBases()) == 0 {
			if sqlErr != nil {
				return nil, sqlErr
			}
			warnings = append(warnings, "information_schema.file_cache_statistics reports no file cache, and no BE "+
				"web server is configured (DORIS_BE_HOSTS) to read the other caches from.")
		} else {
			if sqlErr != nil {
				warnings = append(warnings, "information_schema.file_cache_statistics could not be read ("+
					doris.Classify(clusterPrefix, sqlErr, ctx).Reason+"); the BE /metrics cache families are used instead.")
			}
			got, w, err := r.scrapeBEs(ctx, c, a.NodeIDs, func(name string) bool {
				return strings.HasPrefix(name, "doris_be_file_cache_") || strings.HasPrefix(name, "doris_be_cache_")
			})
			if err != nil {
				return nil, err
			}
			if err := failedAll(got, "CACHE_METRICS_UNAVAILABLE"); err != nil {
				return nil, err
			}
			warnings = append(warnings, w...)
			caches, queues = cachesFromMetrics(got)
			source = "be_metrics"
		}
	}
	if a.Scope != "" {
		var keep []map[string]any
		for _, it := range caches {
			if strings.Contains(strings.ToLower(it["cache_type"].(string)), strings.ToLower(a.Scope)) {
				keep = append(keep, it)
			}
		}
		caches = keep
	}
	data := map[string]any{"source": source, "caches": doris.OrEmpty(caches), "queues": nil}
	if a.IncludeQueues {
		data["queues"] = doris.OrEmpty(queues)
	}
	status := "success"
	if len(warnings) > 0 && source == "be_metrics" {
		status = "partial"
	}
	return &doris.Result{Status: status, Warnings: warnings, Source: source, Data: data}, nil
}

// fileCacheTable reads information_schema.file_cache_statistics: one cache
// per backend and path, its queue figures apart.
func (r kit) fileCacheTable(ctx context.Context, rt *doris.Route, ids []string) (caches, queues []map[string]any, err error) {
	t, err := r.Text(ctx, rt, "SELECT BE_ID, BE_IP, CACHE_PATH, METRIC_NAME, METRIC_VALUE FROM information_schema.file_cache_statistics",
		doris.MaxCatalogRows, clusterPrefix)
	if err != nil {
		return nil, nil, err
	}
	type key struct{ be, ip, path string }
	stats := map[key]map[string]any{}
	qs := map[key]map[string]map[string]any{}
	var order []key
	for _, row := range t.Rows {
		k := key{t.Get(row, "BE_ID"), t.Get(row, "BE_IP"), t.Get(row, "CACHE_PATH")}
		if len(ids) > 0 && !nodeNamed(ids, k.be, k.ip) {
			continue
		}
		if stats[k] == nil {
			stats[k], qs[k] = map[string]any{}, map[string]map[string]any{}
			order = append(order, k)
		}
		name, value := t.Get(row, "METRIC_NAME"), numberOrString(t.Get(row, "METRIC_VALUE"))
		if q, field, ok := strings.Cut(name, "_queue_"); ok {
			if qs[k][q] == nil {
				qs[k][q] = map[string]any{"node_id": k.be, "host": k.ip, "path": k.path, "queue": q}
			}
			qs[k][q][field] = value
			continue
		}
		stats[k][name] = value
	}
	for _, k := range order {
		caches = append(caches, map[string]any{"node_id": k.be, "host": k.ip, "cache_type": "file_cache", "path": k.path, "stats": stats[k]})
		names := make([]string, 0, len(qs[k]))
		for q := range qs[k] {
			names = append(names, q)
		}
		sort.Strings(names)
		for _, q := range names {
			queues = append(queues, qs[k][q])
		}
	}
	return caches, queues, nil
}

func nodeNamed(ids []string, names ...string) bool {
	for _, id := range ids {
		for _, n := range names {
			if n != "" && strings.EqualFold(id, n) {
				return true
			}
		}
	}
	return false
}

// cachesFromMetrics builds caches from BE /metrics: the file cache per
// path and the LRU caches per name.
func cachesFromMetrics(nodes []nodeMetrics) (caches, queues []map[string]any) {
	for _, n := range nodes {
		if n.Reason != "" {
			continue
		}
		files := map[string]map[string]any{}
		fq := map[string]map[string]map[string]any{}
		lru := map[string]map[string]any{}
		for _, s := range n.Samples {
			if name, ok := strings.CutPrefix(s.Name, "doris_be_file_cache_"); ok {
				path := s.label("path")
				if files[path] == nil {
					files[path], fq[path] = map[string]any{}, map[string]map[string]any{}
				}
				if q, field, ok := strings.Cut(name, "_queue_"); ok {
					if fq[path][q] == nil {
						fq[path][q] = map[string]any{"node_id": n.ID, "host": n.Host, "path": path, "queue": q}
					}
					fq[path][q][field] = jsonNumber(s.Value)
					continue
				}
				files[path][name] = jsonNumber(s.Value)
			} else if name, ok := strings.CutPrefix(s.Name, "doris_be_cache_"); ok && s.label("name") != "" {
				if lru[s.label("name")] == nil {
					lru[s.label("name")] = map[string]any{}
				}
				lru[s.label("name")][name] = jsonNumber(s.Value)
			}
		}
		for _, path := range sortedKeys(files) {
			caches = append(caches, map[string]any{"node_id": n.ID, "host": n.Host, "cache_type": "file_cache", "path": path, "stats": files[path]})
			for _, q := range sortedKeys(fq[path]) {
				queues = append(queues, fq[path][q])
			}
		}
		for _, name := range sortedKeys(lru) {
			caches = append(caches, map[string]any{"node_id": n.ID, "host": n.Host, "cache_type": name, "path": nil, "stats": lru[name]})
		}
	}
	return caches, queues
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compactionColumns are read from be_compaction_tasks; STATUS_MSG is not:
// it is backend error text.
const compactionColumns = "t.BACKEND_ID, t.COMPACTION_ID, t.TABLE_ID, t.PARTITION_ID, t.TABLET_ID, t.COMPACTION_TYPE, t.STATUS, " +
	"t.TRIGGER_METHOD, t.COMPACTION_SCORE, t.SCHEDULED_TIME, t.START_TIME, t.END_TIME, t.ELAPSED_TIME_MS, " +
	"t.INPUT_ROWSETS_COUNT, t.INPUT_ROW_NUM, t.INPUT_TOTAL_SIZE, t.OUTPUT_ROW_NUM, t.OUTPUT_TOTAL_SIZE, t.MERGE_LATENCY_MS"

// GetCompactionStatus runs doris_cluster get_compaction_status.
func GetCompactionStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		Database string `json:"database"`
		Table    string `json:"table"`
		State    string `json:"state"`
		Limit    int    `json:"limit"`
	}{Limit: 100}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	var warnings []string
	if c.Variant == "compaction_task_tracker" {
		from := " FROM information_schema.be_compaction_tasks t LEFT JOIN information_schema.metadata_name_ids n" +
			" ON n.TABLE_ID = t.TABLE_ID AND n.CATALOG_NAME = 'internal' WHERE 1 = 1"
		params := map[string]any{"limit": json.Number(strconv.Itoa(a.Limit + 1))}
		if a.Database != "" {
			from += " AND n.DATABASE_NAME = %(db)s"
			params["db"] = a.Database
		}
		if a.Table != "" {
			from += " AND n.TABLE_NAME = %(tbl)s"
			params["tbl"] = a.Table
		}
		if a.State != "" {
			from += " AND UPPER(t.STATUS) = UPPER(%(state)s)"
			params["state"] = a.State
		}
		q, err := doris.Bind("SELECT "+compactionColumns+", n.DATABASE_NAME, n.TABLE_NAME"+from+
			" ORDER BY t.SCHEDULED_TIME DESC LIMIT %(limit)s", params)
		if err != nil {
			return nil, err
		}
		t, err := r.Text(ctx, rt, q, a.Limit+1, clusterPrefix)
		if err == nil {
			return r.compactionTracker(ctx, rt, t, from, params, a.Limit)
		}
		de := doris.Classify(clusterPrefix, err, ctx)
		if len(r.BEBases()) == 0 {
			return nil, de
		}
		warnings = append(warnings, "information_schema.be_compaction_tasks could not be read ("+de.Reason+
			"); the BE /metrics compaction summary is shown instead.")
	}
	if a.Database != "" || a.Table != "" || a.State != "" {
		warnings = append(warnings, "database, table and state filters need the per-task tracker "+
			"(information_schema.be_compaction_tasks, Doris 4.0.6+); the summary covers every tablet.")
	}
	got, w, err := r.scrapeBEs(ctx, c, nil, func(name string) bool { return strings.Contains(name, "compaction") })
	if err != nil {
		return nil, err
	}
	if err := failedAll(got, "CLUSTER_METRICS_UNAVAILABLE"); err != nil {
		return nil, err
	}
	warnings = append(warnings, w...)
	var nodes []map[string]any
	status := "success"
	for _, n := range got {
		item := map[string]any{"node_id": n.ID, "host": n.Host}
		if n.Reason != "" {
			item["status"], item["reason_code"] = "unavailable", n.Reason
			status = "partial"
			nodes = append(nodes, item)
			continue
		}
		item["status"] = "success"
		for _, s := range n.Samples {
			key := strings.TrimPrefix(s.Name, "doris_be_")
			if typ := s.label("type"); typ != "" {
				m, _ := item[key].(map[string]any)
				if m == nil {
					m = map[string]any{}
					item[key] = m
				}
				m[typ] = jsonNumber(s.Value)
				continue
			}
			if p := s.label("path"); p != "" {
				key += "{" + p + "}"
			}
			item[key] = jsonNumber(s.Value)
		}
		nodes = append(nodes, item)
	}
	if len(warnings) > 0 && c.Variant == "compaction_task_tracker" {
		status = "partial"
	}
	return &doris.Result{Status: status, Warnings: warnings, Source: "doris_be_metrics", Data: map[string]any{
		"source": "metrics_summary", "tasks": nil, "summary": map[string]any{"nodes": nodes}, "truncated": false,
	}}, nil
}

// compactionTracker shapes be_compaction_tasks rows and adds counts by
// status and type over everything the filters match.
func (r kit) compactionTracker(ctx context.Context, rt *doris.Route, t *doris.TextRows, from string, params map[string]any, limit int) (*doris.Result, error) {
	tasks := []map[string]any{}
	for _, row := range t.Rows {
		if len(tasks) == limit {
			break
		}
		tasks = append(tasks, map[string]any{
			"backend_id": doris.Nullable(t, row, "BACKEND_ID"), "compaction_id": doris.Nullable(t, row, "COMPACTION_ID"),
			"database": doris.Nullable(t, row, "DATABASE_NAME"), "table": doris.Nullable(t, row, "TABLE_NAME"),
			"table_id": doris.Nullable(t, row, "TABLE_ID"), "partition_id": doris.Nullable(t, row, "PARTITION_ID"),
			"tablet_id": doris.Nullable(t, row, "TABLET_ID"), "compaction_type": doris.Nullable(t, row, "COMPACTION_TYPE"),
			"status": doris.Nullable(t, row, "STATUS"), "trigger_method": doris.Nullable(t, row, "TRIGGER_METHOD"),
			"compaction_score": doris.AtoiOrNil(t.Get(row, "COMPACTION_SCORE")), "scheduled_time": doris.Nullable(t, row, "SCHEDULED_TIME"),
			"start_time": doris.Nullable(t, row, "START_TIME"), "end_time": doris.Nullable(t, row, "END_TIME"),
			"elapsed_time_ms": doris.AtoiOrNil(t.Get(row, "ELAPSED_TIME_MS")), "input_rowsets": doris.AtoiOrNil(t.Get(row, "INPUT_ROWSETS_COUNT")),
			"input_rows": doris.AtoiOrNil(t.Get(row, "INPUT_ROW_NUM")), "input_bytes": doris.AtoiOrNil(t.Get(row, "INPUT_TOTAL_SIZE")),
			"output_rows": doris.AtoiOrNil(t.Get(row, "OUTPUT_ROW_NUM")), "output_bytes": doris.AtoiOrNil(t.Get(row, "OUTPUT_TOTAL_SIZE")),
			"merge_latency_ms": doris.AtoiOrNil(t.Get(row, "MERGE_LATENCY_MS")),
		})
	}
	truncated := len(t.Rows) > limit || t.Truncated
	res := &doris.Result{Status: "success", Source: "information_schema.be_compaction_tasks", Truncated: truncated}
	summary := map[string]any{}
	params = maps.Clone(params)
	delete(params, "limit")
	q, err := doris.Bind("SELECT UPPER(t.STATUS) AS status, t.COMPACTION_TYPE AS kind, COUNT(*) AS n"+from+
		" GROUP BY UPPER(t.STATUS), t.COMPACTION_TYPE", params)
	if err == nil {
		var agg *doris.TextRows
		if agg, err = r.Text(ctx, rt, q, 1000, clusterPrefix); err == nil {
			byStatus, byType, total := map[string]int64{}, map[string]int64{}, int64(0)
			for _, row := range agg.Rows {
				n, _ := strconv.ParseInt(agg.Get(row, "n"), 10, 64)
				byStatus[agg.Get(row, "status")] += n
				byType[agg.Get(row, "kind")] += n
				total += n
			}
			summary = map[string]any{"total": total, "by_status": byStatus, "by_type": byType}
		}
	}
	if err != nil {
		res.Status = "partial"
		res.Warnings = append(res.Warnings, "The task counts could not be read ("+doris.Classify(clusterPrefix, err, ctx).Reason+").")
	}
	if truncated {
		res.Warnings = append(res.Warnings, fmt.Sprintf("More than %d tasks match; the most recently scheduled are shown.", limit))
	}
	res.Data = map[string]any{"source": "task_tracker", "tasks": tasks, "summary": summary, "truncated": truncated}
	return res, nil
}
