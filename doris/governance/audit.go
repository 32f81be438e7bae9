package governance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Bounds of the audit-reading children.
const (
	maxAuditResults    = 200   // get_recent_audit_logs items
	maxAuditScan       = 1000  // rows get_recent_audit_logs reads to apply its filters
	maxAccessRows      = 50000 // rows analyze_data_access_patterns parses
	maxAccessGroups    = 744   // an hour of 31 days each
	maxAuditStmtChars  = 2048  // characters of a sanitised statement returned
	maxObjectsPerEvent = 16
)

// auditWindowError refuses a window beyond GOVERNANCE_MAX_AUDIT_WINDOW_DAYS.
func (r kit) auditWindowError(minutes int) error {
	if maxMin := r.Settings().Governance.MaxAuditWindowDays * 1440; minutes > maxMin {
		return doris.ArgError(governancePrefix, "AUDIT_WINDOW_TOO_LARGE",
			fmt.Sprintf("the window is longer than this server reads (GOVERNANCE_MAX_AUDIT_WINDOW_DAYS=%d); ask for at most %d minutes",
				r.Settings().Governance.MaxAuditWindowDays, maxMin))
	}
	return nil
}

// auditReadError explains the usual reason the audit log cannot be read.
func auditReadError(err error, ctx context.Context) error {
	de := governanceError(err, ctx)
	if de.Reason == governancePrefix+"_OBJECT_NOT_FOUND" {
		de.Reason = governancePrefix + "_AUDIT_LOG_UNAVAILABLE"
		de.Message = doris.AuditMissingMessage
	}
	return de
}

// auditObjects are the tables an audited statement touches, as
// catalog.db.table, at most maxObjectsPerEvent.
func auditObjects(stmt, catalog, db string) []string {
	sh, _ := parseStatement(stmt, catalog, db)
	var out []string
	for _, o := range sh.readsAndWrites() {
		if len(out) == maxObjectsPerEvent {
			break
		}
		out = append(out, o.String())
	}
	return out
}

// objectMatches reports whether catalog.db.table names table (and db, if
// given), case-insensitively.
func objectMatches(obj, db, table string) bool {
	parts := strings.Split(obj, ".")
	if len(parts) != 3 || !strings.EqualFold(parts[2], table) {
		return false
	}
	return db == "" || strings.EqualFold(parts[1], db)
}

// likeContains is a LIKE pattern matching any text containing s; LIKE's
// wildcards in s only widen the pre-filter, which is confirmed by parsing.
func likeContains(s string) string { return "%" + s + "%" }

// GetRecentAuditLogs runs doris_governance get_recent_audit_logs.
func GetRecentAuditLogs(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		WindowMinutes int    `json:"window_minutes"`
		User          string `json:"user"`
		Operation     string `json:"operation"`
		Database      string `json:"database"`
		Table         string `json:"table"`
		Limit         int    `json:"limit"`
	}{WindowMinutes: 1440, Limit: 100}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if err := r.auditWindowError(a.WindowMinutes); err != nil {
		return nil, err
	}
	if e := doris.CheckOptionalIdents(governancePrefix, doris.Arg("database", a.Database), doris.Arg("table", a.Table)); e != nil {
		return nil, e
	}
	op := strings.ToUpper(strings.TrimSpace(a.Operation))
	postFilter := op != "" || a.Table != "" || a.Database != ""
	fetch := a.Limit + 1
	if postFilter {
		fetch = maxAuditScan
	}
	// The window is exact minutes by Doris's own clock: never rounded.
	q := "SELECT query_id, `time`, `user`, `catalog`, db, state, error_code, query_time, scan_rows, return_rows, stmt FROM " +
		doris.AuditTable + " WHERE `time` >= DATE_SUB(NOW(), INTERVAL %(window)s MINUTE)"
	params := map[string]any{"window": json.Number(strconv.Itoa(a.WindowMinutes)), "limit": json.Number(strconv.Itoa(fetch))}
	if a.User != "" {
		q += " AND `user` = %(user)s"
		params["user"] = a.User
	}
	if a.Database != "" {
		q += " AND (db = %(db)s OR stmt LIKE %(dblike)s)"
		params["db"], params["dblike"] = a.Database, likeContains(a.Database)
	}
	if a.Table != "" {
		q += " AND stmt LIKE %(tbl)s"
		params["tbl"] = likeContains(a.Table)
	}
	q += " ORDER BY `time` DESC LIMIT %(limit)s"
	text, err := doris.Bind(q, params)
	if err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, text, fetch, governancePrefix)
	if err != nil {
		return nil, auditReadError(err, ctx)
	}
	items := []map[string]any{}
	more := false
	for _, row := range t.Rows {
		stmtText := t.Get(row, "stmt")
		catalog, db := t.Get(row, "catalog"), t.Get(row, "db")
		operation := statementOperation(stmtText)
		if op != "" && operation != op {
			continue
		}
		objects := auditObjects(stmtText, catalog, db)
		if a.Table != "" || a.Database != "" {
			match := a.Table == "" && strings.EqualFold(db, a.Database)
			for _, o := range objects {
				if a.Table != "" && objectMatches(o, a.Database, a.Table) || a.Table == "" && objectMatches(o, a.Database, strings.Split(o, ".")[2]) {
					match = true
				}
			}
			if !match {
				continue
			}
		}
		if len(items) == a.Limit {
			more = true
			break
		}
		shown, cut := doris.SanitizeStatement(stmtText, maxAuditStmtChars)
		trace := doris.StatementTrace(stmtText)
		items = append(items, map[string]any{
			"time": doris.Nullable(t, row, "time"), "query_id": doris.Nullable(t, row, "query_id"), "user": doris.Nullable(t, row, "user"),
			"catalog": doris.Nullable(t, row, "catalog"), "database": doris.Nullable(t, row, "db"), "state": doris.Nullable(t, row, "state"),
			"operation": operation, "error_code": doris.AtoiOrNil(t.Get(row, "error_code")),
			"query_time_ms": doris.AtoiOrNil(t.Get(row, "query_time")), "scan_rows": doris.AtoiOrNil(t.Get(row, "scan_rows")),
			"return_rows": doris.AtoiOrNil(t.Get(row, "return_rows")), "stmt": shown, "stmt_truncated": cut, "objects": doris.OrEmpty(objects),
			"trace_id": doris.StrOrNil(trace, trace != ""),
		})
	}
	truncated := more || (!postFilter && len(t.Rows) > a.Limit) || (postFilter && t.Truncated && len(items) < a.Limit)
	res := &doris.Result{Status: "success", Data: doris.Collection{Items: items, Truncated: truncated}, Truncated: truncated,
		Source: "doris_audit_log"}
	if truncated {
		res.Warnings = append(res.Warnings, "More audit events match: narrow window_minutes, user, operation, database or table, or raise limit.")
	}
	if w := r.AuditPluginWarning(ctx, rt); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	return res, nil
}

// scanAudit streams the rows of q, a SELECT on the audit log, to each,
// at most max of them; get reads a column of the row by its lower-case
// name. It returns the rows read and whether more were left unread.
func (r kit) scanAudit(ctx context.Context, rt *doris.Route, q string, max int, each func(get func(string) string)) (read int, truncated bool, err error) {
	idx := map[string]int{}
	err = r.Run(ctx, rt, doris.Stmt{SQL: q, Prefix: governancePrefix, Timeout: doris.DeadlineOr(ctx, r.Settings().QueryTimeout)},
		func(cols []doris.Column, row []doris.RawBytes) (bool, error) {
			if len(idx) == 0 {
				for i, col := range cols {
					idx[strings.ToLower(col.Name)] = i
				}
			}
			if read == max {
				truncated = true
				return true, nil
			}
			read++
			each(func(name string) string { return string(row[idx[name]]) })
			return false, nil
		})
	return read, truncated, err
}

// accessGroup accumulates one group of analyze_data_access_patterns.
type accessGroup struct {
	key                  string
	events, errors       int64
	users                map[string]bool
	distinctUsers        int64
	first, last          string
	queryTimeMs, scanned int64
}

func (g *accessGroup) add(user, state, at string, queryTime, scan int64) {
	g.events++
	if state == "ERR" {
		g.errors++
	}
	g.users[user] = true
	if g.first == "" || at < g.first {
		g.first = at
	}
	if at > g.last {
		g.last = at
	}
	g.queryTimeMs += queryTime
	g.scanned += scan
}

// AnalyzeDataAccessPatterns runs doris_governance analyze_data_access_patterns.
func AnalyzeDataAccessPatterns(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		Database   string `json:"database"`
		Table      string `json:"table"`
		WindowDays int    `json:"window_days"`
		GroupBy    string `json:"group_by"`
	}{WindowDays: 7, GroupBy: "object"}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if a.WindowDays > r.Settings().Governance.MaxAuditWindowDays {
		return nil, doris.ArgError(governancePrefix, "AUDIT_WINDOW_TOO_LARGE",
			fmt.Sprintf("window_days is above this server's GOVERNANCE_MAX_AUDIT_WINDOW_DAYS (%d)", r.Settings().Governance.MaxAuditWindowDays))
	}
	if e := doris.CheckOptionalIdents(governancePrefix, doris.Arg("database", a.Database), doris.Arg("table", a.Table)); e != nil {
		return nil, e
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"days": json.Number(strconv.Itoa(a.WindowDays))}
	where := " WHERE `time` >= DATE_SUB(NOW(), INTERVAL %(days)s DAY)"
	var groups []*accessGroup
	var rowsRead int64
	var truncated bool
	method := "doris_group_by"
	if (a.GroupBy == "user" || a.GroupBy == "hour") && a.Table == "" && a.Database == "" {
		// Exact over the whole window: Doris counts, nothing is capped.
		key := "`user`"
		if a.GroupBy == "hour" {
			key = "DATE_FORMAT(`time`, '%Y-%m-%d %H:00:00')"
		}
		params["limit"] = json.Number(strconv.Itoa(maxAccessGroups + 1))
		q, err := doris.Bind("SELECT "+key+" AS group_key, COUNT(*) AS events, COUNT(DISTINCT `user`) AS users, "+
			"SUM(CASE WHEN state = 'ERR' THEN 1 ELSE 0 END) AS errors, MIN(`time`) AS first_seen, MAX(`time`) AS last_seen, "+
			"SUM(query_time) AS query_time_ms, SUM(scan_rows) AS scan_rows FROM "+doris.AuditTable+where+
			" GROUP BY group_key ORDER BY events DESC, group_key LIMIT %(limit)s", params)
		if err != nil {
			return nil, err
		}
		t, err := r.Text(ctx, rt, q, maxAccessGroups+1, governancePrefix)
		if err != nil {
			return nil, auditReadError(err, ctx)
		}
		for _, row := range t.Rows {
			n := func(col string) int64 { v, _ := strconv.ParseInt(t.Get(row, col), 10, 64); return v }
			groups = append(groups, &accessGroup{key: t.Get(row, "group_key"), events: n("events"), distinctUsers: n("users"),
				errors: n("errors"), first: t.Get(row, "first_seen"), last: t.Get(row, "last_seen"),
				queryTimeMs: n("query_time_ms"), scanned: n("scan_rows")})
			rowsRead += n("events")
		}
	} else {
		method = "audit_rows_parsed"
		if a.Database != "" {
			where += " AND (db = %(db)s OR stmt LIKE %(dblike)s)"
			params["db"], params["dblike"] = a.Database, likeContains(a.Database)
		}
		if a.Table != "" {
			where += " AND stmt LIKE %(tbl)s"
			params["tbl"] = likeContains(a.Table)
		}
		params["limit"] = json.Number(strconv.Itoa(maxAccessRows + 1))
		q, err := doris.Bind("SELECT `time`, `user`, `catalog`, db, state, query_time, scan_rows, stmt FROM "+doris.AuditTable+where+
			" ORDER BY `time` DESC LIMIT %(limit)s", params)
		if err != nil {
			return nil, err
		}
		byKey := map[string]*accessGroup{}
		group := func(k string) *accessGroup {
			g := byKey[k]
			if g == nil {
				g = &accessGroup{key: k, users: map[string]bool{}}
				byKey[k] = g
			}
			return g
		}
		var read int
		read, truncated, err = r.scanAudit(ctx, rt, q, maxAccessRows, func(get func(string) string) {
			num := func(name string) int64 { v, _ := strconv.ParseInt(get(name), 10, 64); return v }
			user, at, state, db := get("user"), get("time"), get("state"), get("db")
			objects := auditObjects(get("stmt"), get("catalog"), db)
			if a.Table != "" || a.Database != "" {
				var keep []string
				for _, o := range objects {
					if a.Table != "" && objectMatches(o, a.Database, a.Table) || a.Table == "" && objectMatches(o, a.Database, strings.Split(o, ".")[2]) {
						keep = append(keep, o)
					}
				}
				if len(keep) == 0 && !(a.Table == "" && strings.EqualFold(db, a.Database)) {
					return
				}
				objects = keep
			}
			var keys []string
			switch a.GroupBy {
			case "user":
				keys = []string{user}
			case "hour":
				keys = []string{hourKey(at)}
			case "operation":
				keys = []string{statementOperation(get("stmt"))}
			default:
				keys = objects
				if len(keys) == 0 {
					keys = []string{"(no table)"}
				}
			}
			for _, k := range keys {
				group(k).add(user, state, at, num("query_time"), num("scan_rows"))
			}
		})
		rowsRead = int64(read)
		if err != nil {
			return nil, auditReadError(err, ctx)
		}
		for _, g := range byKey {
			g.distinctUsers = int64(len(g.users))
			groups = append(groups, g)
		}
		sort.Slice(groups, func(i, j int) bool {
			if groups[i].events != groups[j].events {
				return groups[i].events > groups[j].events
			}
			return groups[i].key < groups[j].key
		})
	}
	if len(groups) > maxAccessGroups {
		groups, truncated = groups[:maxAccessGroups], true
	}
	out := make([]map[string]any, 0, len(groups))
	for _, g := range groups {
		item := map[string]any{"key": g.key, "event_count": g.events, "distinct_users": g.distinctUsers,
			"error_count": g.errors, "first_seen": doris.StrOrNil(g.first, g.first != ""), "last_seen": doris.StrOrNil(g.last, g.last != ""),
			"total_query_time_ms": g.queryTimeMs, "scan_rows": g.scanned}
		if g.events > 0 {
			item["avg_query_time_ms"] = g.queryTimeMs / g.events
		}
		out = append(out, item)
	}
	res := &doris.Result{Status: "success", Truncated: truncated, Source: "doris_audit_log", Data: map[string]any{
		"window_days": a.WindowDays, "group_by": a.GroupBy, "database": doris.StrOrNil(a.Database, a.Database != ""),
		"table": doris.StrOrNil(a.Table, a.Table != ""), "groups": out, "rows_read": rowsRead, "truncated": truncated, "method": method,
	}, Evidence: []map[string]any{{"source": doris.AuditTable, "success": true, "rows_observed": rowsRead, "method": method}}}
	if truncated {
		res.Warnings = append(res.Warnings, fmt.Sprintf("The summary is cut: at most %d audit rows are parsed and %d groups returned; narrow the window or name a table.",
			maxAccessRows, maxAccessGroups))
	}
	if w := r.AuditPluginWarning(ctx, rt); w != "" {
		res.Warnings = append(res.Warnings, w)
	}
	return res, nil
}

// hourKey buckets an audit time ("2006-01-02 15:04:05[.000]") by hour.
func hourKey(at string) string {
	if len(at) >= 13 {
		return at[:13] + ":00:00"
	}
	return "unknown"
}
