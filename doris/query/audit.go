package query

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// maxStmtChars caps statements read back from the audit log.
const maxStmtChars = 8192

// ListSlowQueries runs doris_query list_slow_queries.
func ListSlowQueries(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		WindowMinutes int    `json:"window_minutes"`
		Limit         int    `json:"limit"`
		MinDurationMs *int   `json:"min_duration_ms"`
		Database      string `json:"database"`
		User          string `json:"user"`
	}{WindowMinutes: 60, Limit: 20}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	minMs := 1000
	if a.MinDurationMs != nil {
		minMs = *a.MinDurationMs
	}
	// The window is exact minutes, computed by Doris's own clock (no
	// rounding up to whole days, no skew with this server's clock).
	q := "SELECT query_id, `time`, `user`, `catalog`, db, state, query_time, cpu_time_ms, scan_bytes, scan_rows, " +
		"return_rows, peak_memory_bytes, sql_hash, sql_digest, stmt FROM " + doris.AuditTable +
		" WHERE `time` >= DATE_SUB(NOW(), INTERVAL %(window)s MINUTE) AND query_time >= %(min_ms)s AND is_query = 1"
	params := map[string]any{"window": json.Number(strconv.Itoa(a.WindowMinutes)), "min_ms": json.Number(strconv.Itoa(minMs)),
		"limit": json.Number(strconv.Itoa(a.Limit + 1))}
	if a.Database != "" {
		q += " AND db = %(db)s"
		params["db"] = a.Database
	}
	if a.User != "" {
		q += " AND `user` = %(user)s"
		params["user"] = a.User
	}
	q += " ORDER BY query_time DESC LIMIT %(limit)s"
	text, err := doris.Bind(q, params)
	if err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, text, a.Limit+1, doris.QueryPrefix)
	if err != nil {
		return nil, auditError(err)
	}
	items := []map[string]any{}
	for _, row := range t.Rows {
		if len(items) == a.Limit {
			break
		}
		stmtText, cut := doris.CapChars(doris.MaskLiterals(t.Get(row, "stmt")), maxStmtChars)
		trace := doris.StatementTrace(t.Get(row, "stmt"))
		items = append(items, map[string]any{
			"query_id": t.Get(row, "query_id"), "time": doris.Nullable(t, row, "time"), "user": doris.Nullable(t, row, "user"),
			"catalog": doris.Nullable(t, row, "catalog"), "db": doris.Nullable(t, row, "db"), "state": doris.Nullable(t, row, "state"),
			"query_time": doris.AtoiOrNil(t.Get(row, "query_time")), "cpu_time_ms": doris.AtoiOrNil(t.Get(row, "cpu_time_ms")),
			"scan_bytes": doris.AtoiOrNil(t.Get(row, "scan_bytes")), "scan_rows": doris.AtoiOrNil(t.Get(row, "scan_rows")),
			"return_rows": doris.AtoiOrNil(t.Get(row, "return_rows")), "peak_memory_bytes": doris.AtoiOrNil(t.Get(row, "peak_memory_bytes")),
			"sql_hash": doris.Nullable(t, row, "sql_hash"), "sql_digest": doris.Nullable(t, row, "sql_digest"),
			"stmt": stmtText, "stmt_truncated": cut, "trace_id": doris.StrOrNil(trace, trace != ""),
		})
	}
	truncated := len(t.Rows) > a.Limit || t.Truncated
	res := &doris.Result{Status: "success", Data: doris.Collection{Items: items, Truncated: truncated}, Truncated: truncated}
	if truncated {
		res.Warnings = append(res.Warnings, "More slow queries match; raise limit or min_duration_ms, or shorten window_minutes.")
	}
	if w := r.AuditPluginWarning(ctx, rt); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	return res, nil
}

// auditError explains the usual reason the audit log cannot be read.
func auditError(err error) error {
	de := doris.Classify(doris.QueryPrefix, err, nil)
	if de.Reason == "QUERY_OBJECT_NOT_FOUND" {
		de.Message = doris.AuditMissingMessage
	}
	return de
}

// Diagnosis rules (rule_version query-diagnosis-v1).
const (
	ruleVersion            = "query-diagnosis-v1"
	highScanRows           = 1_000_000
	highScanRatio          = 100
	longDurationMs         = 10_000
	highPeakMemoryBytes    = 1 << 30
	diagnosisPlanRowsLimit = 2000
)

// DiagnoseQueryPerformance runs doris_query diagnose_query_performance.
func DiagnoseQueryPerformance(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		QueryID               string `json:"query_id"`
		SQL                   string `json:"sql"`
		Database              string `json:"database"`
		IncludeClusterContext bool   `json:"include_cluster_context"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	sections := map[string]doris.Section{}
	var findings []map[string]any
	var evidence []map[string]any
	add := func(code, severity, msg, source string, ev map[string]any) {
		findings = append(findings, map[string]any{"code": code, "severity": severity, "message": msg})
		ev["finding"], ev["source"] = code, source
		evidence = append(evidence, ev)
	}
	sqlText, database := a.SQL, a.Database
	if a.QueryID != "" {
		audit, err := r.auditRecord(ctx, rt, a.QueryID)
		switch {
		case err != nil:
			sections["audit"] = doris.Unavailable(err)
		case audit == nil:
			sections["audit"] = doris.Section{Status: "unavailable", ReasonCode: "QUERY_SQL_EVIDENCE_NOT_FOUND"}
		default:
			sections["audit"] = doris.Section{Status: "success", Source: doris.AuditTable}
			sqlText = audit.stmt
			if database == "" && audit.db != "" && doris.CheckIdent(doris.QueryPrefix, "db", audit.db) == nil {
				database = audit.db // the recorded statement names tables of its own database
			}
			scan, ret := audit.scanRows, audit.returnRows
			if scan >= highScanRows && scan > highScanRatio*max(ret, 1) {
				add("HIGH_SCAN_TO_RETURN_RATIO", "warning", "the query scanned far more rows than it returned: check filters and partition pruning",
					doris.AuditTable, map[string]any{"scan_rows": scan, "return_rows": ret})
			}
			if audit.queryTime >= longDurationMs {
				add("LONG_RECORDED_DURATION", "warning", "the recorded duration is 10 s or longer", doris.AuditTable,
					map[string]any{"query_time_ms": audit.queryTime})
			}
			if audit.peakMemory >= highPeakMemoryBytes {
				add("HIGH_PEAK_MEMORY", "warning", "peak memory reached 1 GiB or more", doris.AuditTable,
					map[string]any{"peak_memory_bytes": audit.peakMemory})
			}
		}
		if prof, _, err := r.ProfileText(ctx, rt, a.QueryID); err != nil {
			sections["profile"] = doris.Unavailable(err)
		} else {
			sections["profile"] = doris.Section{Status: "success", Source: "FE profile API"}
			if strings.Contains(strings.ToLower(prof), "spill") {
				add("PROFILE_SPILL_OBSERVED", "warning", "operators spilled to disk: the query ran short of memory", "FE profile API", map[string]any{})
			}
		}
	}
	if sqlText != "" {
		lines, _, err := r.explain(ctx, c, sqlText, "", database, true)
		var de *doris.Error
		if err != nil && a.SQL != "" && errors.As(err, &de) && de.Kind == doris.KindArguments {
			return nil, err // the caller's own SQL is refused: say why
		}
		if err != nil {
			sections["explain"] = doris.Unavailable(err)
		} else {
			sections["explain"] = doris.Section{Status: "success", Source: "EXPLAIN VERBOSE"}
			for _, l := range lines {
				if low := strings.ToLower(l); strings.Contains(low, "cross join") || strings.Contains(low, "nested loop join") {
					add("CROSS_JOIN_OBSERVED", "warning", "the plan contains a cross or nested-loop join", "EXPLAIN VERBOSE",
						map[string]any{"plan_line": strings.TrimSpace(l)})
					break
				}
			}
		}
	} else {
		sections["explain"] = doris.Section{Status: "unavailable", ReasonCode: "QUERY_SQL_EVIDENCE_NOT_FOUND"}
	}
	if a.IncludeClusterContext {
		snap := c.Snapshot
		if snap == nil {
			sections["cluster_context"] = doris.Section{Status: "unavailable", ReasonCode: "CAPABILITY_SNAPSHOT_UNAVAILABLE"}
		} else {
			sections["cluster_context"] = doris.Section{Status: "success", Source: "capability snapshot", Data: map[string]any{
				"master_fe": snap.Master.String(), "frontends": len(snap.Frontends), "backends": len(snap.Backends),
				"mixed_versions": snap.Mixed, "deployment_mode": snap.Mode,
			}}
		}
	}
	status := "success"
	var warnings []string
	names := slices.Sorted(maps.Keys(sections))
	for _, name := range names {
		s := sections[name]
		ev := map[string]any{"section": name, "status": s.Status, "source": s.Source}
		if s.Status != "success" {
			status = "partial"
			warnings = append(warnings, "The "+name+" evidence is unavailable ("+s.ReasonCode+").")
			ev["reason_code"] = s.ReasonCode
		}
		evidence = append(evidence, ev)
	}
	if sections["explain"].Status != "success" && sections["audit"].Status != "success" {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "QUERY_SQL_EVIDENCE_NOT_FOUND", Status: 404,
			Message: "no evidence could be read for this query: it is not in the audit log and its plan could not be produced"}
	}
	var qid any
	if a.QueryID != "" {
		qid = a.QueryID
	}
	return &doris.Result{Status: status, Warnings: warnings, Evidence: evidence, Data: map[string]any{
		"rule_version": ruleVersion, "query_id": qid, "findings": doris.OrEmpty(findings), "sections": sections,
	}}, nil
}

type auditRow struct {
	stmt, db                                    string
	queryTime, scanRows, returnRows, peakMemory int64
}

// auditRecord finds one query in the audit log; nil when absent.
func (r kit) auditRecord(ctx context.Context, rt *doris.Route, queryID string) (*auditRow, error) {
	q, err := doris.Bind("SELECT db, query_time, scan_rows, return_rows, peak_memory_bytes, stmt FROM "+doris.AuditTable+
		" WHERE query_id = %(qid)s LIMIT 1", map[string]any{"qid": queryID})
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, 1, doris.QueryPrefix)
	if err != nil {
		return nil, auditError(err)
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	row := t.Rows[0]
	n := func(col string) int64 { v, _ := strconv.ParseInt(t.Get(row, col), 10, 64); return v }
	return &auditRow{stmt: t.Get(row, "stmt"), db: t.Get(row, "db"), queryTime: n("query_time"), scanRows: n("scan_rows"),
		returnRows: n("return_rows"), peakMemory: n("peak_memory_bytes")}, nil
}
