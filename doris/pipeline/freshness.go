package pipeline

import (
	"context"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// freshness is the answer of monitor_data_freshness.
type freshness struct {
	data     map[string]any
	evidence []map[string]any
	warnings []string
}

// MonitorDataFreshness runs doris_pipeline monitor_data_freshness.
func MonitorDataFreshness(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		Database         string `json:"database"`
		Table            string `json:"table"`
		ThresholdSeconds int64  `json:"threshold_seconds"`
		TimeColumn       string `json:"time_column"`
	}{ThresholdSeconds: 86400}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	f, err := r.freshness(ctx, rt, a.Database, a.Table, a.ThresholdSeconds, a.TimeColumn)
	if err != nil {
		return nil, err
	}
	status := "success"
	if f.data["status"] == "unknown" {
		status = "partial"
	}
	return &doris.Result{Status: status, Data: f.data, Evidence: f.evidence, Warnings: f.warnings}, nil
}

// freshness measures how stale database.table is. With timeColumn the
// lag is Doris's own TIMESTAMPDIFF(SECOND, MAX(col), NOW()); otherwise the
// newest partition VisibleVersionTime (the last committed load), and
// failing that the newest successful load statement in the audit log.
// Every lag is computed by Doris's clock, so the server's clock and time
// zone never skew it.
func (r kit) freshness(ctx context.Context, rt *doris.Route, database, table string, threshold int64, timeColumn string) (*freshness, error) {
	if e := doris.CheckIdents(pipelinePrefix, doris.Arg("database", database), doris.Arg("table", table)); e != nil {
		return nil, e
	}
	if e := doris.CheckOptionalIdents(pipelinePrefix, doris.Arg("time_column", timeColumn)); e != nil {
		return nil, e
	}
	f := &freshness{data: map[string]any{"database": database, "table": table, "threshold_seconds": threshold,
		"time_column": doris.StrOrNil(timeColumn, timeColumn != ""), "method": "none", "last_update_time": nil, "lag_seconds": nil}}
	var lag *int64
	var last any
	if timeColumn != "" {
		col := doris.QuoteIdent(timeColumn)
		q := "SELECT MAX(" + col + ") AS last_update_time, TIMESTAMPDIFF(SECOND, MAX(" + col + "), NOW()) AS lag_seconds FROM " + doris.Qualified(database, table)
		t, err := r.Text(ctx, rt, q, 1, pipelinePrefix)
		if err != nil {
			// The caller named the column: a wrong name or table is an
			// answer, not a reason to guess from other evidence.
			return nil, doris.Classify(pipelinePrefix, err, ctx)
		}
		ev := map[string]any{"source": "MAX(" + timeColumn + ")", "status": "success", "evidence_quality": "recorded_event_time"}
		if len(t.Rows) == 1 && t.Rows[0][1].Valid {
			n, err := strconv.ParseInt(t.Get(t.Rows[0], "lag_seconds"), 10, 64)
			if err == nil {
				lag, last = &n, dorisTime(t.Get(t.Rows[0], "last_update_time"))
				f.data["method"] = "time_column"
			}
		}
		if lag == nil {
			ev["status"] = "empty"
			f.warnings = append(f.warnings, "The table has no "+timeColumn+" values; falling back to partition and audit evidence.")
		}
		f.evidence = append(f.evidence, ev)
	}
	if lag == nil {
		var err error
		lag, last, err = r.partitionFreshness(ctx, rt, database, table, f)
		if err != nil {
			return nil, err
		}
		if lag != nil {
			f.data["method"] = "partition_visible_time"
		}
	}
	if lag == nil {
		lag, last = r.auditFreshness(ctx, rt, database, table, f)
		if lag != nil {
			f.data["method"] = "audit_log"
			f.warnings = append(f.warnings, "Freshness is inferred from the time of the last load statement in the audit log, not from a committed data version.")
		}
	}
	f.data["last_update_time"], f.data["status"] = last, "unknown"
	if lag != nil {
		f.data["lag_seconds"] = *lag
		f.data["status"] = "fresh"
		if *lag > threshold {
			f.data["status"] = "stale"
		}
		if *lag < 0 {
			f.warnings = append(f.warnings, "The last update is later than Doris's current time (clock skew or future-dated rows).")
		}
	} else {
		f.warnings = append(f.warnings, "No freshness evidence was found for this table.")
	}
	return f, nil
}

// partitionFreshness reads the newest VisibleVersionTime of the table's
// partitions and has Doris compute its age. A table that does not exist
// (or is not visible) is the call's error; any other failure is recorded
// in f and returns no lag.
func (r kit) partitionFreshness(ctx context.Context, rt *doris.Route, database, table string, f *freshness) (*int64, any, error) {
	t, err := r.Text(ctx, rt, "SHOW PARTITIONS FROM "+doris.Qualified(database, table), pipelineMaxPartitions, pipelinePrefix)
	if err != nil {
		de := doris.Classify(pipelinePrefix, err, ctx)
		if de.Reason == pipelinePrefix+"_OBJECT_NOT_FOUND" || de.Reason == pipelinePrefix+"_PERMISSION_DENIED" {
			return nil, nil, de
		}
		f.evidence = append(f.evidence, map[string]any{"source": "SHOW PARTITIONS", "status": "unavailable", "reason_code": de.Reason})
		f.warnings = append(f.warnings, "Partition versions could not be read ("+de.Reason+").")
		return nil, nil, nil
	}
	newest, version := "", int64(0)
	for _, row := range t.Rows {
		if v := t.Get(row, "VisibleVersionTime"); v > newest && v != "N/A" && v != "NULL" {
			newest = v
		}
		if n, err := strconv.ParseInt(t.Get(row, "VisibleVersion"), 10, 64); err == nil && n > version {
			version = n
		}
	}
	ev := map[string]any{"source": "SHOW PARTITIONS", "status": "success", "rows_observed": len(t.Rows),
		"evidence_quality": "recorded_visible_version"}
	f.evidence = append(f.evidence, ev)
	f.data["partitions_observed"] = len(t.Rows)
	if t.Truncated {
		f.warnings = append(f.warnings, "Only the first 1000 partitions were read.")
	}
	if newest == "" {
		ev["status"] = "empty"
		return nil, nil, nil
	}
	f.data["visible_version"] = version
	if version <= 1 {
		f.warnings = append(f.warnings, "No load has committed to this table since its partitions were created (visible version 1).")
	}
	lag, last := r.ageOf(ctx, rt, newest, f, "SHOW PARTITIONS")
	return lag, last, nil
}

// ageOf has Doris compute NOW() - ts in seconds.
func (r kit) ageOf(ctx context.Context, rt *doris.Route, ts string, f *freshness, source string) (*int64, any) {
	q, err := doris.Bind("SELECT TIMESTAMPDIFF(SECOND, %(ts)s, NOW())", map[string]any{"ts": ts})
	if err != nil {
		return nil, nil
	}
	t, err := r.Text(ctx, rt, q, 1, pipelinePrefix)
	if err != nil || len(t.Rows) != 1 || !t.Rows[0][0].Valid {
		f.warnings = append(f.warnings, "Doris could not compute the age of the "+source+" time.")
		return nil, nil
	}
	n, err := strconv.ParseInt(t.Rows[0][0].String, 10, 64)
	if err != nil {
		return nil, nil
	}
	return &n, dorisTime(ts)
}

// auditFreshness finds the newest successful statement in the audit log
// that wrote the table (INSERT, broker LOAD, CTAS).
func (r kit) auditFreshness(ctx context.Context, rt *doris.Route, database, table string, f *freshness) (*int64, any) {
	q, err := doris.Bind("SELECT `time`, db, stmt, TIMESTAMPDIFF(SECOND, `time`, NOW()) AS lag FROM "+doris.AuditTable+
		" WHERE state <> 'ERR' AND stmt LIKE %(pat)s ORDER BY `time` DESC LIMIT 100",
		map[string]any{"pat": "%" + likeEscape(table) + "%"})
	if err != nil {
		return nil, nil
	}
	t, err := r.Text(ctx, rt, q, 100, pipelinePrefix)
	if err != nil {
		de := auditUnavailable(err, ctx)
		f.evidence = append(f.evidence, map[string]any{"source": doris.AuditTable, "status": "unavailable", "reason_code": de.Reason})
		f.warnings = append(f.warnings, "The audit log could not be read ("+de.Reason+").")
		return nil, nil
	}
	ev := map[string]any{"source": doris.AuditTable, "status": "empty", "rows_observed": len(t.Rows), "evidence_quality": "inferred"}
	f.evidence = append(f.evidence, ev)
	for _, row := range t.Rows {
		refs, ok := parseSQLRefs(t.Get(row, "stmt"))
		if !ok || refs.Kind == "" || refs.Kind == "create_view" || refs.Kind == "create_materialized_view" {
			continue
		}
		o, ok := resolveName(refs.Target, "internal", t.Get(row, "db"))
		if !ok || !strings.EqualFold(o.Database, database) || !strings.EqualFold(o.Table, table) {
			continue
		}
		n, err := strconv.ParseInt(t.Get(row, "lag"), 10, 64)
		if err != nil {
			continue
		}
		ev["status"] = "success"
		return &n, dorisTime(t.Get(row, "time"))
	}
	return nil, nil
}

// auditUnavailable classifies a failure to read the audit log.
func auditUnavailable(err error, ctx context.Context) *doris.Error {
	de := doris.Classify(pipelinePrefix, err, ctx)
	if de.Reason == pipelinePrefix+"_OBJECT_NOT_FOUND" {
		return &doris.Error{Kind: doris.KindFailed, Reason: "PIPELINE_AUDIT_LOG_NOT_ENABLED", Status: 404,
			Message: doris.AuditMissingMessage, Cause: err}
	}
	return de
}

// likeEscape escapes LIKE wildcards in a literal fragment.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
