package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// FE and BE /metrics: the nodes come only from configuration
// (DORIS_FE_HTTP_HOST/PORT and DORIS_BE_HOSTS), are fetched concurrently,
// each under its own time bound, and parsed with the bounded Prometheus
// reader keeping only allowlisted families. A node that is down, slow,
// refuses access or answers too much is unavailable with a reason; the
// other nodes' answers still arrive.

// maxMetricsPerNode caps the series one node contributes to an answer.
const maxMetricsPerNode = 256

// metricsNode is one configured web server.
type metricsNode struct {
	ID   string // host:port as configured
	Host string
	Type string // "fe" or "be"
	base string
}

// nodeMetrics is what one node's /metrics gave.
type nodeMetrics struct {
	metricsNode
	Samples   []promSample
	Truncated bool   // the parser's series cap was reached
	Reason    string // "" when the node answered
}

// metricsNodes lists the configured FE and BE web servers.
func (r kit) metricsNodes() []metricsNode {
	var out []metricsNode
	add := func(typ, base string) {
		u, err := url.Parse(base)
		if err != nil {
			return
		}
		out = append(out, metricsNode{ID: u.Host, Host: u.Hostname(), Type: typ, base: base})
	}
	if r.FEBase() != "" {
		add("fe", r.FEBase())
	}
	for _, b := range r.BEBases() {
		add("be", b)
	}
	return out
}

// selectNodes keeps the nodes of the given type named by ids (by id or
// host; all when ids is empty) and reports the ids that named none.
func selectNodes(nodes []metricsNode, typ string, ids []string) (keep []metricsNode, unknown []string) {
	matched := map[string]bool{}
	for _, n := range nodes {
		if typ != "" && n.Type != typ {
			continue
		}
		if len(ids) == 0 {
			keep = append(keep, n)
			continue
		}
		for _, id := range ids {
			if strings.EqualFold(id, n.ID) || strings.EqualFold(id, n.Host) {
				keep = append(keep, n)
				matched[id] = true
				break
			}
		}
	}
	for _, id := range ids {
		if !matched[id] {
			unknown = append(unknown, id)
		}
	}
	return keep, unknown
}

// scrape fetches /metrics of every node concurrently. Each node has its
// own time bound (DORIS_HTTP_TOTAL_TIMEOUT_SECONDS, or less when the call
// has less left); keep selects the series kept.
func (r kit) scrape(ctx context.Context, rt *doris.Route, nodes []metricsNode, keep func(typ, name string) bool) []nodeMetrics {
	out := make([]nodeMetrics, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = r.scrapeNode(ctx, rt, n, keep)
		}()
	}
	wg.Wait()
	return out
}

func (r kit) scrapeNode(ctx context.Context, rt *doris.Route, n metricsNode, keep func(typ, name string) bool) (res nodeMetrics) {
	res.metricsNode = n
	nctx, cancel := context.WithTimeout(ctx, r.Settings().HTTPTotalTimeout)
	defer cancel()
	body, err := r.NodeGet(nctx, rt, n.Type, n.base, "/metrics")
	if err != nil {
		res.Reason = metricsReason(nctx, err)
		return res
	}
	samples, st, err := parsePrometheus(body, metricsLimits(int(r.HTTPMaxBytes())), func(name string) bool { return keep(n.Type, name) })
	if err != nil {
		res.Reason = metricsReason(nctx, err)
		return res
	}
	res.Samples, res.Truncated = samples, st.Truncated
	return res
}

// metricsReason names why a node's /metrics could not be read.
func metricsReason(ctx context.Context, err error) string {
	var se *doris.HTTPStatusError
	var ne net.Error
	switch {
	case errors.Is(err, doris.ErrTooLarge) || errors.Is(err, errPromTooLarge):
		return "CLUSTER_METRICS_TOO_LARGE"
	case errors.Is(err, errPromNotText):
		return "CLUSTER_METRICS_INVALID"
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &ne) && ne.Timeout():
		return "CLUSTER_METRICS_TIMEOUT"
	case errors.Is(ctx.Err(), context.Canceled):
		return "CLUSTER_CANCELLED"
	case errors.As(err, &se) && (se.Status == 401 || se.Status == 403):
		return "CLUSTER_METRICS_PERMISSION_DENIED"
	case errors.As(err, &se):
		return "CLUSTER_METRICS_HTTP_ERROR"
	}
	return "CLUSTER_NODE_UNREACHABLE"
}

// Metric families this server reads. Names ending in "_" are prefixes.
// A summary's _sum and _count series belong to their family.
var (
	feFamilies = []string{"doris_fe_query_total", "doris_fe_query_err", "doris_fe_query_err_rate", "doris_fe_qps",
		"doris_fe_rps", "doris_fe_request_total", "doris_fe_query_olap_table", "doris_fe_query_latency_ms",
		"doris_fe_query_instance_num", "doris_fe_connection_total", "doris_fe_cache_hit", "doris_fe_cache_added",
		"doris_fe_max_journal_id", "doris_fe_max_tablet_compaction_score", "doris_fe_tablet_max_compaction_score",
		"doris_fe_txn_counter", "doris_fe_txn_status", "doris_fe_job", "doris_fe_edit_log", "doris_fe_report_queue_size",
		"doris_fe_scheduled_tablet_num", "doris_fe_tablet_num", "doris_fe_routine_load_rows",
		"doris_fe_routine_load_error_rows", "doris_fe_routine_load_receive_bytes", "doris_fe_stream_load",
		"doris_fe_meta_log_count", "jvm_heap_size_bytes", "jvm_non_heap_size_bytes", "jvm_young_size_bytes",
		"jvm_old_size_bytes", "jvm_young_gc", "jvm_old_gc", "jvm_thread", "node_info"}
	beFamilies = []string{"doris_be_memory_allocated_bytes", "doris_be_memory_jemalloc_", "doris_be_memory_pgpgin",
		"doris_be_memory_pgpgout", "doris_be_memory_pswpin", "doris_be_memory_pswpout", "doris_be_mem_consumption",
		"doris_be_memory_pool_bytes_total", "doris_be_file_cache_", "doris_be_cache_capacity", "doris_be_cache_usage",
		"doris_be_cache_usage_ratio", "doris_be_cache_lookup_count", "doris_be_cache_hit_count",
		"doris_be_cache_hit_ratio", "doris_be_compaction_", "doris_be_tablet_base_max_compaction_score",
		"doris_be_tablet_cumulative_max_compaction_score", "doris_be_disks_compaction_num",
		"doris_be_disks_compaction_score", "doris_be_query_scan_bytes", "doris_be_query_scan_rows",
		"doris_be_query_scan_bytes_per_second", "doris_be_fragment_instance_count",
		"doris_be_timeout_canceled_fragment_count", "doris_be_cpu", "doris_be_process_thread_num",
		"doris_be_process_fd_num_used", "doris_be_process_fd_num_limit_soft", "doris_be_disks_avail_capacity",
		"doris_be_disks_total_capacity", "doris_be_disks_local_used_capacity", "doris_be_stream_load",
		"doris_be_load_rows", "doris_be_load_bytes", "doris_be_thrift_current_connections",
		"doris_be_memtable_flush_total", "doris_be_memtable_flush_duration_us", "doris_be_load_channel_count",
		"doris_be_scanner_thread_pool_queue_size", "doris_be_result_buffer_block_count",
		"doris_be_engine_requests_total", "doris_be_segment_read"}
	// coreMetrics are shown when no metric_names are asked for.
	coreMetrics = []string{"doris_fe_query_total", "doris_fe_query_err", "doris_fe_qps", "doris_fe_query_latency_ms",
		"doris_fe_connection_total", "doris_fe_max_tablet_compaction_score", "jvm_heap_size_bytes", "jvm_old_gc",
		"node_info", "doris_be_memory_allocated_bytes", "doris_be_mem_consumption", "doris_be_file_cache_hits_ratio",
		"doris_be_file_cache_normal_queue_curr_size", "doris_be_query_scan_rows", "doris_be_query_scan_bytes",
		"doris_be_fragment_instance_count", "doris_be_tablet_base_max_compaction_score",
		"doris_be_tablet_cumulative_max_compaction_score", "doris_be_compaction_used_permits",
		"doris_be_process_thread_num", "doris_be_disks_avail_capacity"}
)

// familyOf is a series name without a summary's or histogram's suffix.
func familyOf(name string) string {
	for _, suf := range []string{"_sum", "_count", "_bucket"} {
		if base, ok := strings.CutSuffix(name, suf); ok {
			return base
		}
	}
	return name
}

// allowed reports whether a node of the type may contribute the series.
func allowed(typ, name string) bool {
	fams := feFamilies
	if typ == "be" {
		fams = beFamilies
	}
	fam := familyOf(name)
	for _, f := range fams {
		if f == name || f == fam || f[len(f)-1] == '_' && strings.HasPrefix(name, f) {
			return true
		}
	}
	return false
}

// wanted matches a series against requested names (exact or family).
func wanted(names []string, name string) bool {
	return slices.Contains(names, name) || slices.Contains(names, familyOf(name))
}

// metricItems renders samples, sorted, at most maxMetricsPerNode.
func metricItems(samples []promSample) (items []map[string]any, truncated bool) {
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].Name < samples[j].Name })
	items = []map[string]any{}
	for _, s := range samples {
		if len(items) == maxMetricsPerNode {
			return items, true
		}
		labels := map[string]string{}
		for _, l := range s.Labels {
			labels[l.Name] = l.Value
		}
		items = append(items, map[string]any{"name": s.Name, "labels": labels, "value": jsonNumber(s.Value)})
	}
	return items, false
}

// seriesKey is a compact name{label="v",...} for a sample.
func seriesKey(s promSample) string {
	if len(s.Labels) == 0 {
		return s.Name
	}
	parts := make([]string, len(s.Labels))
	for i, l := range s.Labels {
		parts[i] = fmt.Sprintf("%s=%q", l.Name, l.Value)
	}
	return s.Name + "{" + strings.Join(parts, ",") + "}"
}

// GetMonitoringMetrics runs doris_cluster get_monitoring_metrics.
func GetMonitoringMetrics(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		MetricNames []string `json:"metric_names"`
		NodeIDs     []string `json:"node_ids"`
		Window      string   `json:"window"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	var warnings []string
	if a.Window != "" {
		warnings = append(warnings, "window was not applied: /metrics holds current values only and no history is "+
			"synthesised; use analyze_resource_growth for recorded history.")
	}
	names := a.MetricNames
	if len(names) == 0 {
		names = coreMetrics
	} else {
		var refused int
		for _, n := range names {
			if !allowed("fe", n) && !allowed("be", n) {
				refused++
			}
		}
		if refused > 0 {
			warnings = append(warnings, doris.Plural(refused, "requested metric is", "requested metrics are")+
				" not on this server's allowlist and not read.")
		}
	}
	nodes, unknown := selectNodes(r.metricsNodes(), "", a.NodeIDs)
	if len(unknown) > 0 {
		warnings = append(warnings, doris.Plural(len(unknown), "node id names", "node ids name")+
			" no configured metrics endpoint (node ids are the host:port of DORIS_FE_HTTP_* and DORIS_BE_HOSTS).")
	}
	if len(nodes) == 0 {
		return nil, doris.ArgError(clusterPrefix, "NODE_NOT_FOUND", "node_ids names no configured FE or BE metrics endpoint")
	}
	start := r.Now()
	got := r.scrape(ctx, rt, nodes, func(typ, name string) bool { return allowed(typ, name) && wanted(names, name) })
	out := make([]map[string]any, 0, len(got))
	status, failed := "success", 0
	for _, n := range got {
		item := map[string]any{"node_id": n.ID, "node_type": n.Type, "host": n.Host}
		if n.Reason != "" {
			item["status"], item["reason_code"], item["metrics"] = "unavailable", n.Reason, []map[string]any{}
			status = "partial"
			failed++
			warnings = append(warnings, fmt.Sprintf("%s %s metrics are unavailable (%s).", strings.ToUpper(n.Type), n.ID, n.Reason))
			out = append(out, item)
			continue
		}
		items, cut := metricItems(n.Samples)
		item["status"], item["metrics"] = "success", items
		if cut || n.Truncated {
			item["status"], item["truncated"] = "partial", true
			status = "partial"
			warnings = append(warnings, fmt.Sprintf("%s %s has more matching series than the %d shown; ask for fewer metric_names.",
				strings.ToUpper(n.Type), n.ID, maxMetricsPerNode))
		}
		out = append(out, item)
	}
	if failed == len(got) {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "CLUSTER_METRICS_UNAVAILABLE", Status: 503, Retryable: true,
			Message: fmt.Sprintf("no metrics endpoint answered (%s)", reasonCounts(got))}
	}
	return &doris.Result{Status: status, Warnings: warnings, Source: "doris_http_metrics", Data: map[string]any{
		"captured_at": start.UTC().Format(time.RFC3339), "nodes": out,
	}}, nil
}

// reasonCounts summarises node failures as "CLUSTER_X: n, ...".
func reasonCounts(nodes []nodeMetrics) string {
	counts := map[string]int{}
	for _, n := range nodes {
		if n.Reason != "" {
			counts[n.Reason]++
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}
