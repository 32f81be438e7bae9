package doris

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// maxPlanRows bounds EXPLAIN output.
const maxPlanRows = 10000

// explain runs EXPLAIN [VERBOSE] over a SELECT and returns its lines.
func (r *Runtime) explain(ctx context.Context, c *Call, sqlText, catalog, database string, verbose bool) ([]string, bool, error) {
	st, err := checkSQL(sqlText, nil)
	if err != nil {
		return nil, false, err
	}
	text := st.SQL
	if st.Kind != guard.Select {
		return nil, false, argError(queryPrefix, "EXPLAIN_TARGET_INVALID", "only a SELECT (or WITH ... SELECT) can be explained")
	}
	if e := checkOptionalIdents(queryPrefix, identArg{"catalog", catalog}, identArg{"database", database}); e != nil {
		return nil, false, e
	}
	q := "EXPLAIN " + text
	if verbose {
		q = "EXPLAIN VERBOSE " + text
	}
	caller := ""
	if text == sqlText {
		caller = sqlText // positions Doris reports are positions in the caller's text
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, false, err
	}
	t := &textRows{}
	err = r.textInto(ctx, rt, stmt{sql: q, catalog: catalog, database: database, prefix: queryPrefix,
		timeout: min(DefaultCallTimeout, r.cfg.QueryTimeout), caller: caller, callerAt: len(q) - len(text)},
		min(maxPlanRows, r.cfg.MaxResultRows), t)
	if err != nil {
		return nil, false, err
	}
	lines := make([]string, 0, len(t.rows))
	for _, row := range t.rows {
		if len(row) > 0 {
			lines = append(lines, row[0].String)
		}
	}
	return lines, t.truncated, nil
}

func (r *Runtime) explainQuery(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		SQL      string `json:"sql"`
		Catalog  string `json:"catalog"`
		Database string `json:"database"`
		Level    string `json:"level"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if a.Level == "" {
		a.Level = "normal"
	}
	lines, truncated, err := r.explain(ctx, c, a.SQL, a.Catalog, a.Database, a.Level != "normal")
	if err != nil {
		return nil, err
	}
	res := &Result{Status: "success", Truncated: truncated, Data: map[string]any{
		"level": a.Level, "plan": lines, "truncated": truncated, "facets": planFacets(lines),
	}}
	if a.Level == "costs" {
		res.Warnings = append(res.Warnings, "Doris has no cost-only EXPLAIN; the verbose plan (with cardinalities) is returned instead.")
	}
	if truncated {
		res.Warnings = append(res.Warnings, "The plan was cut at its row limit; explain a smaller query for the rest.")
	}
	return res, nil
}

var (
	partitionsRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`partitions=(\d+)/(\d+)`) })
	tabletsRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`tablets=(\d+)/(\d+)`) })
	tableRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`TABLE: ([^\s,(]+)`) })
)

// planFacets pulls evidence out of plan text: pruning per scan, pushed-down
// predicates, join kinds and index use. It reads only what Doris prints.
func planFacets(lines []string) map[string]any {
	var pruning, pushdown, joins, index []map[string]any
	table := ""
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimLeft(l, "| "))
		if m := tableRE().FindStringSubmatch(t); m != nil {
			table = m[1]
		}
		if m := partitionsRE().FindStringSubmatch(t); m != nil {
			sel, _ := strconv.Atoi(m[1])
			all, _ := strconv.Atoi(m[2])
			pruning = append(pruning, map[string]any{"table": table, "partitions_selected": sel, "partitions_total": all})
		}
		if m := tabletsRE().FindStringSubmatch(t); m != nil && len(pruning) > 0 {
			sel, _ := strconv.Atoi(m[1])
			all, _ := strconv.Atoi(m[2])
			pruning[len(pruning)-1]["tablets_selected"], pruning[len(pruning)-1]["tablets_total"] = sel, all
		}
		if p, ok := strings.CutPrefix(t, "PREDICATES:"); ok {
			pushdown = append(pushdown, map[string]any{"table": table, "predicates": strings.TrimSpace(p)})
		}
		if j, ok := strings.CutPrefix(t, "join op:"); ok {
			joins = append(joins, map[string]any{"join": strings.TrimSpace(j)})
		} else if strings.Contains(t, "CROSS JOIN") || strings.Contains(t, "NESTED LOOP") {
			joins = append(joins, map[string]any{"join": t})
		}
		if strings.Contains(strings.ToLower(t), "inverted index") || strings.Contains(t, "ANN") && strings.Contains(t, "index") {
			index = append(index, map[string]any{"table": table, "detail": t})
		}
	}
	return map[string]any{"partition_pruning": orEmpty(pruning), "pushdown": orEmpty(pushdown),
		"joins": orEmpty(joins), "index_use": orEmpty(index)}
}

// profileText fetches the FE profile text of a query id, capped at
// MAX_RESPONSE_CONTENT_SIZE characters.
func (r *Runtime) profileText(ctx context.Context, rt *route, queryID string) (string, bool, error) {
	data, err := r.http.feGet(ctx, "/rest/v2/manager/query/profile/text/"+queryID, rt.user, rt.password)
	if err != nil {
		return "", false, profileError(err)
	}
	var p struct {
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return "", false, &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_INVALID_RESPONSE", Status: 502,
			Message: "the FE returned a profile in an unexpected shape", Cause: err}
	}
	text, cut := capChars(p.Profile, r.cfg.MaxResponseContentSize)
	return text, cut, nil
}

func profileError(err error) error {
	var se *httpStatusError
	if errors.As(err, &se) {
		switch se.Status {
		case 401:
			return &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_PERMISSION_DENIED", Status: 403,
				Message: "the FE refused the profile request for this account", Cause: err}
		case 403, 404:
			return &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_NOT_FOUND", Status: 404,
				Message: "no profile is recorded for this query (profiling may have been off, or it expired)", Cause: err}
		}
	}
	return &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_BACKEND_UNAVAILABLE", Status: 503, Retryable: true,
		Message: "the FE profile API could not be reached", Cause: err}
}

func capChars(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			break
		}
		count++
	}
	return s[:i], true
}

func (r *Runtime) getQueryProfile(ctx context.Context, c *Call) (*Result, error) {
	a := struct {
		QueryID             string `json:"query_id"`
		SQL                 string `json:"sql"`
		TraceID             string `json:"trace_id"`
		WindowMinutes       int    `json:"recent_window_minutes"`
		IncludeOperatorTree bool   `json:"include_operator_tree"`
	}{WindowMinutes: 60}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"trace_id": nil}
	if a.TraceID != "" { // query_trace.go
		qid, text, cut, all, err := r.profileForTrace(ctx, rt, a.TraceID, a.WindowMinutes)
		if err != nil {
			return nil, err
		}
		data["trace_id"], data["trace_query_ids"] = a.TraceID, all
		return r.profileResult(data, qid, text, cut, a.IncludeOperatorTree), nil
	}
	if a.SQL != "" {
		qid, trace, err := r.runProfiled(ctx, rt, a.SQL)
		if err != nil {
			return nil, err
		}
		a.QueryID = qid
		data["trace_id"] = trace
	}
	text, cut, err := r.profileText(ctx, rt, a.QueryID)
	if err != nil {
		return nil, err
	}
	return r.profileResult(data, a.QueryID, text, cut, a.IncludeOperatorTree), nil
}

// profileResult is get_query_profile's result for one query's profile.
func (r *Runtime) profileResult(data map[string]any, queryID, text string, cut, tree bool) *Result {
	data["query_id"], data["profile_text"], data["profile_truncated"] = queryID, text, cut
	if tree {
		data["operator_tree"] = operatorTree(text)
	}
	res := &Result{Status: "success", Data: data, Source: "doris_fe_http", Truncated: cut}
	if cut {
		res.Warnings = append(res.Warnings, fmt.Sprintf("The profile text was cut at %d characters (MAX_RESPONSE_CONTENT_SIZE).", r.cfg.MaxResponseContentSize))
	}
	return res
}

// runProfiled runs one read-only statement with profiling on, under a
// fresh trace id, and returns the Doris query id the FE recorded for it.
// Its rows are read and dropped; the connection is discarded afterwards.
func (r *Runtime) runProfiled(ctx context.Context, rt *route, sqlText string) (queryID, traceID string, err error) {
	st, err := checkSQL(sqlText, nil)
	if err != nil {
		return "", "", err
	}
	text := st.SQL
	traceID = sessionTraceID(ctx) // the call's own trace id (trace.go)
	err = r.run(ctx, rt, stmt{sql: text, prefix: queryPrefix, timeout: min(DefaultCallTimeout, r.cfg.QueryTimeout),
		setup: []string{`SET session_context = "trace_id:` + traceID + `"`, "SET enable_profile = true"}},
		func([]column, []sql.RawBytes) (bool, error) { return false, nil })
	if err != nil {
		return "", "", err
	}
	data, err := r.http.feGet(ctx, "/rest/v2/manager/query/trace_id/"+traceID, rt.user, rt.password)
	if err != nil {
		return "", "", profileError(err)
	}
	if err := json.Unmarshal(data, &queryID); err != nil || queryID == "" {
		return "", "", &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_NOT_FOUND", Status: 404,
			Message: "the FE did not record a query id for the profiled statement"}
	}
	return queryID, traceID, nil
}

// operatorTree lists the operators of a profile with their nesting depth.
func operatorTree(profile string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(profile, "\n") {
		t := strings.TrimSpace(l)
		name, _, ok := strings.Cut(t, "(id=")
		if !ok || !strings.HasSuffix(strings.TrimSpace(name), "_OPERATOR") && !strings.Contains(name, "OPERATOR") {
			continue
		}
		out = append(out, map[string]any{"operator": strings.TrimSpace(name), "depth": (len(l) - len(strings.TrimLeft(l, " "))) / 2})
	}
	return orEmpty(out)
}
