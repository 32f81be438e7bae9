package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Recorded resource history, bucketed by Doris's own clock over exactly
// window_days: storage from partition creation times, query volume and
// distinct users from the audit log. Only buckets with records appear;
// nothing is interpolated or forecast, and a series needs two buckets.

// growthSeries is one series analyze_resource_growth can build.
type growthSeries struct {
	resource, unit, source, from, timeCol, value string
}

var growthSeriesList = []growthSeries{
	{"storage", "bytes", "information_schema.partitions", "information_schema.partitions", "CREATE_TIME",
		"SUM(COALESCE(DATA_LENGTH, 0) + COALESCE(INDEX_LENGTH, 0))"},
	{"query_volume", "statements", doris.AuditTable, doris.AuditTable, "`time`", "COUNT(*)"},
	{"user_activity", "distinct_users", doris.AuditTable, doris.AuditTable, "`time`", "COUNT(DISTINCT `user`)"},
}

// maxHourWindowDays keeps an hourly answer to 4320 buckets per series;
// longer windows are refused rather than cut or coarsened.
const maxHourWindowDays = 180

// bucketExpr groups a time column by hour, day or ISO week (Monday).
func bucketExpr(granularity, col string) string {
	switch granularity {
	case "hour":
		return "DATE_FORMAT(" + col + ", '%Y-%m-%d %H:00:00')"
	case "week":
		return "DATE_FORMAT(DATE_SUB(" + col + ", INTERVAL WEEKDAY(" + col + ") DAY), '%Y-%m-%d')"
	}
	return "DATE_FORMAT(" + col + ", '%Y-%m-%d')"
}

// AnalyzeResourceGrowth runs doris_cluster analyze_resource_growth.
func AnalyzeResourceGrowth(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		Resource    string `json:"resource"`
		WindowDays  int    `json:"window_days"`
		Granularity string `json:"granularity"`
	}{WindowDays: 30, Granularity: "day"}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if a.Granularity == "hour" && a.WindowDays > maxHourWindowDays {
		return nil, doris.ArgError(clusterPrefix, "ARGUMENT_INVALID", fmt.Sprintf(
			"hourly buckets cover at most %d days; use day or week granularity for a %d-day window", maxHourWindowDays, a.WindowDays))
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	// The window's ends, once, from Doris's clock: every series uses them.
	q, err := doris.Bind("SELECT NOW() AS window_end, DATE_SUB(NOW(), INTERVAL %(days)s DAY) AS window_start",
		map[string]any{"days": json.Number(strconv.Itoa(a.WindowDays))})
	if err != nil {
		return nil, err
	}
	bounds, err := r.Text(ctx, rt, q, 1, clusterPrefix)
	if err != nil {
		return nil, err
	}
	if len(bounds.Rows) != 1 {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "CLUSTER_EXECUTION_FAILED", Status: 502, Message: "Doris did not report its clock"}
	}
	start, end := bounds.Get(bounds.Rows[0], "window_start"), bounds.Get(bounds.Rows[0], "window_end")
	maxBuckets := a.WindowDays + 1
	switch a.Granularity {
	case "hour":
		maxBuckets = a.WindowDays*24 + 1
	case "week":
		maxBuckets = a.WindowDays/7 + 2
	}
	series := []map[string]any{}
	unavailable := []map[string]any{}
	var lastErr *doris.Error
	truncated := false
	for _, gs := range growthSeriesList {
		if a.Resource != "" && gs.resource != a.Resource {
			continue
		}
		b := bucketExpr(a.Granularity, gs.timeCol)
		q, err := doris.Bind("SELECT "+b+" AS bucket_start, "+gs.value+" AS value FROM "+gs.from+" WHERE "+gs.timeCol+
			" >= %(start)s AND "+gs.timeCol+" <= %(end)s GROUP BY "+b+" ORDER BY bucket_start", map[string]any{"start": start, "end": end})
		if err != nil {
			return nil, err
		}
		t, err := r.Text(ctx, rt, q, maxBuckets+1, clusterPrefix)
		if err != nil {
			lastErr = doris.Classify(clusterPrefix, err, ctx)
			unavailable = append(unavailable, map[string]any{"resource": gs.resource, "reason_code": lastErr.Reason})
			continue
		}
		if len(t.Rows) < 2 {
			lastErr = &doris.Error{Kind: doris.KindFailed, Reason: "RESOURCE_HISTORY_INSUFFICIENT", Status: 404,
				Message: "fewer than two " + a.Granularity + "s of " + gs.resource + " history are recorded in the window"}
			unavailable = append(unavailable, map[string]any{"resource": gs.resource, "reason_code": lastErr.Reason, "buckets": len(t.Rows)})
			continue
		}
		truncated = truncated || t.Truncated
		points := make([]map[string]any, 0, len(t.Rows))
		for _, row := range t.Rows {
			points = append(points, map[string]any{"bucket_start": t.Get(row, "bucket_start"), "value": numberOrString(t.Get(row, "value"))})
		}
		series = append(series, map[string]any{"resource": gs.resource, "unit": gs.unit, "source": gs.source, "points": points})
	}
	if a.Resource != "" && len(series) == 0 {
		return nil, lastErr // the one series asked for cannot be built: say why
	}
	if len(series) == 0 {
		reasons := make([]string, len(unavailable))
		for i, u := range unavailable {
			reasons[i] = fmt.Sprintf("%s: %s", u["resource"], u["reason_code"])
		}
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "RESOURCE_HISTORY_UNAVAILABLE", Status: 503, Retryable: true,
			Message: "no resource series has two recorded buckets in the window (" + strings.Join(reasons, ", ") + ")"}
	}
	res := &doris.Result{Status: "success", Source: "recorded_doris_metadata", Data: map[string]any{
		"window_days": a.WindowDays, "granularity": a.Granularity, "window_start": start, "window_end": end,
		"series": series, "unavailable": unavailable,
	}}
	if len(unavailable) > 0 {
		res.Status = "partial"
		res.Warnings = append(res.Warnings, doris.Plural(len(unavailable), "series is", "series are")+" unavailable; see unavailable.")
	}
	if truncated {
		res.Truncated = true
		res.Warnings = append(res.Warnings, "Doris returned more buckets than the window holds; the later ones are left out.")
	}
	if w := r.AuditPluginWarning(ctx, rt); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	return res, nil
}

// errNoHistory: the history sources are readable but hold fewer than two
// hours of records.
var errNoHistory = errors.New("doris: fewer than two hours of recorded history")

// probeHistoryBuckets checks that at least one history source holds
// records in two different hours (the finest buckets) within 3650 days.
// MIN and MAX keep it cheap on a large audit log.
func (r kit) probeHistoryBuckets(ctx context.Context, rt *doris.Route) error {
	var firstErr error
	readable := false
	for _, src := range []struct{ from, col string }{{doris.AuditTable, "`time`"}, {"information_schema.partitions", "CREATE_TIME"}} {
		t, err := r.InternalText(ctx, rt, "SELECT MIN("+src.col+") AS lo, MAX("+src.col+") AS hi FROM "+src.from+
			" WHERE "+src.col+" >= DATE_SUB(NOW(), INTERVAL 3650 DAY)", 1, "PROBE")
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		readable = true
		if len(t.Rows) == 1 {
			lo, hi := t.Get(t.Rows[0], "lo"), t.Get(t.Rows[0], "hi")
			if len(lo) >= 13 && len(hi) >= 13 && lo[:13] != hi[:13] {
				return nil
			}
		}
	}
	if readable {
		return errNoHistory // readable, but not two hours of records yet
	}
	return firstErr
}
