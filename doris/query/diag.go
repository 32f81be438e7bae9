package query

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// explain runs EXPLAIN [VERBOSE] over a SELECT and returns its lines.
func (r kit) explain(ctx context.Context, c *doris.Call, sqlText, catalog, database string, verbose bool) ([]string, bool, error) {
	st, err := r.CheckSQL(sqlText, nil)
	if err != nil {
		return nil, false, err
	}
	text := st.SQL
	if st.Kind != guard.Select {
		return nil, false, doris.ArgError(doris.QueryPrefix, "EXPLAIN_TARGET_INVALID", "only a SELECT (or WITH ... SELECT) can be explained")
	}
	if e := doris.CheckOptionalIdents(doris.QueryPrefix, doris.Arg("catalog", catalog), doris.Arg("database", database)); e != nil {
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
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, false, err
	}
	t := &doris.TextRows{}
	err = r.TextInto(ctx, rt, doris.Stmt{SQL: q, Catalog: catalog, Database: database, Prefix: doris.QueryPrefix,
		Timeout: min(doris.DefaultCallTimeout, r.Settings().QueryTimeout), Caller: caller, CallerAt: len(q) - len(text)},
		min(doris.MaxPlanRows, r.Settings().MaxResultRows), t)
	if err != nil {
		return nil, false, err
	}
	lines := make([]string, 0, len(t.Rows))
	for _, row := range t.Rows {
		if len(row) > 0 {
			lines = append(lines, row[0].String)
		}
	}
	return lines, t.Truncated, nil
}

// ExplainQuery runs doris_query explain_query.
func ExplainQuery(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		SQL      string `json:"sql"`
		Catalog  string `json:"catalog"`
		Database string `json:"database"`
		Level    string `json:"level"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if a.Level == "" {
		a.Level = "normal"
	}
	lines, truncated, err := r.explain(ctx, c, a.SQL, a.Catalog, a.Database, a.Level != "normal")
	if err != nil {
		return nil, err
	}
	res := &doris.Result{Status: "success", Truncated: truncated, Data: map[string]any{
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
	return map[string]any{"partition_pruning": doris.OrEmpty(pruning), "pushdown": doris.OrEmpty(pushdown),
		"joins": doris.OrEmpty(joins), "index_use": doris.OrEmpty(index)}
}

// GetQueryProfile runs doris_query get_query_profile.
func GetQueryProfile(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		QueryID             string `json:"query_id"`
		SQL                 string `json:"sql"`
		TraceID             string `json:"trace_id"`
		WindowMinutes       int    `json:"recent_window_minutes"`
		IncludeOperatorTree bool   `json:"include_operator_tree"`
	}{WindowMinutes: 60}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
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
		qid, trace, err := r.RunProfiled(ctx, rt, a.SQL)
		if err != nil {
			return nil, err
		}
		a.QueryID = qid
		data["trace_id"] = trace
	}
	text, cut, err := r.ProfileText(ctx, rt, a.QueryID)
	if err != nil {
		return nil, err
	}
	return r.profileResult(data, a.QueryID, text, cut, a.IncludeOperatorTree), nil
}

// profileResult is get_query_profile's result for one query's profile.
func (r kit) profileResult(data map[string]any, queryID, text string, cut, tree bool) *doris.Result {
	data["query_id"], data["profile_text"], data["profile_truncated"] = queryID, text, cut
	if tree {
		data["operator_tree"] = operatorTree(text)
	}
	res := &doris.Result{Status: "success", Data: data, Source: "doris_fe_http", Truncated: cut}
	if cut {
		res.Warnings = append(res.Warnings, fmt.Sprintf("The profile text was cut at %d characters (MAX_RESPONSE_CONTENT_SIZE).", r.Settings().MaxResponseContentSize))
	}
	return res
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
	return doris.OrEmpty(out)
}
