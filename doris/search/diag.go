package search

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// diagnose_search_query: a composite of three sections, run by runPlan:
//
//	indexes  (required)  the target's columns and search indexes, and how
//	                     they cover the fields the search uses
//	explain  (after indexes)  EXPLAIN: are the MATCH predicates planned,
//	                     is the ANN top-n pushed down (ANN SORT INFO)
//	profile  (after explain, only with include_profile)  the statement
//	                     run once with profiling on, and its profile
//
// The search is given as a read-only SELECT (sql) or as search_data's
// arguments (search_request). A search_request is compiled leniently: an
// index that is missing, lacks phrase support or has another dim is a
// finding, and the statement is still explained, since that is what a
// diagnosis is for.

// explainRowsLimit bounds the plan of a search diagnosis.
const explainRowsLimit = 2000

// diagFinding is one finding with where it came from.
type diagFinding struct {
	code, severity, message, source string
	detail                          map[string]any
}

var matchOpRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bMATCH_(?:ANY|ALL|PHRASE_PREFIX|PHRASE|REGEXP|PHRASE_EDGE)\b`)
})

// DiagnoseSearchQuery runs doris_search diagnose_search_query.
func DiagnoseSearchQuery(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		SQL            string          `json:"sql"`
		SearchRequest  json.RawMessage `json:"search_request"`
		IncludeProfile bool            `json:"include_profile"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if (a.SQL != "") == (a.SearchRequest != nil) {
		return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "give exactly one of sql or search_request")
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	target := "sql"
	var sqlText string
	var args *searchArgs
	var sqlUse searchUse
	if a.SearchRequest != nil {
		target = "search_request"
		if args, err = decodeSearchArgs(a.SearchRequest); err != nil {
			return nil, err
		}
	} else {
		st, err := r.Policy().Check(a.SQL)
		if err != nil {
			return nil, searchGuardError(err)
		}
		if st.Kind != guard.Select {
			return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "sql must be a SELECT (or WITH ... SELECT)")
		}
		sqlText = st.SQL
		sqlUse = searchUseOf(sqlText, r.Settings().Database)
	}

	var (
		cs        *compiledSearch
		scope     = map[string]any{"database": nil, "table": nil, "mode": "raw_sql"}
		textF     []string // fields searched by MATCH
		vectorF   []string // fields ranked by an approximate distance
		approx    bool     // the ordering uses an approximate distance
		found     [3][]diagFinding
		planFacts map[string]any
	)
	steps := []doris.Step{{Name: "indexes", Required: true, Run: func(ctx context.Context) (doris.Section, error) {
		var t *searchTarget
		var fs []diagFinding
		add := func(code, sev, msg string, d map[string]any) {
			fs = append(fs, diagFinding{code, sev, msg, "SHOW INDEX", d})
		}
		if args != nil {
			var err error
			if cs, err = r.compileSearch(ctx, rt, args, vectorSearch(c), true); err != nil {
				return doris.Section{}, err
			}
			t, sqlText, textF = cs.Target, cs.SQL, cs.TextFields
			if cs.VectorField != "" {
				vectorF, approx = []string{cs.VectorField}, true
			}
			scope["mode"] = cs.Mode
			for _, p := range cs.Problems {
				code := strings.TrimPrefix(strings.TrimSuffix(p.Reason, "_REQUIRED"), searchPrefix+"_")
				switch p.Reason {
				case searchPrefix + "_TEXT_INDEX_REQUIRED":
					code = "TEXT_INDEX_MISSING"
				case searchPrefix + "_PHRASE_SUPPORT_REQUIRED":
					code = "PHRASE_SUPPORT_MISSING"
				}
				add(code, "high", p.Message, map[string]any{"object": doris.StrOrNil(p.Object, p.Object != ""), "reason_code": p.Reason})
			}
		} else if sqlUse.table != "" {
			var err error
			if t, err = r.readTarget(ctx, rt, sqlUse.database, sqlUse.table); err != nil {
				return doris.Section{}, err
			}
			textF, vectorF, approx = sqlUse.text, sqlUse.vector, sqlUse.approx
			if len(textF) == 0 && len(vectorF) == 0 {
				add("SEARCH_OPERATOR_NOT_OBSERVED", "medium", "the SQL uses no MATCH predicate and no distance function: it is not a search", map[string]any{})
			}
		} else {
			add("INDEX_METADATA_NOT_BOUND", "medium", "the SQL's target table could not be read from the statement; give search_request for an exact index check", map[string]any{})
			found[0] = fs
			return doris.Section{Status: "partial", ReasonCode: "SEARCH_TARGET_NOT_RESOLVED", Source: "SHOW INDEX"}, nil
		}
		scope["database"], scope["table"] = t.Database, t.Table
		var coverage []map[string]any
		for _, f := range textF {
			ix, ok := t.index("INVERTED", f)
			cov := map[string]any{"field": f, "role": "text", "index": nil}
			if ok {
				cov["index"], cov["parser"], cov["support_phrase"] = ix.Name, ix.wire()["parser"], ix.Properties["support_phrase"] == "true"
				add("TEXT_INDEX_CONFIGURED", "info", "the field has an inverted index; EXPLAIN shows whether the MATCH is planned, the profile whether the index filtered rows",
					map[string]any{"field": f, "index": ix.Name})
			} else if args == nil {
				add("TEXT_INDEX_MISSING", "high", "the MATCH field has no inverted index: Doris cannot answer the MATCH from an index",
					map[string]any{"field": f})
			}
			coverage = append(coverage, cov)
		}
		for _, f := range vectorF {
			ix, ok := t.index("ANN", f)
			cov := map[string]any{"field": f, "role": "vector", "index": nil}
			if ok {
				cov["index"], cov["metric_type"], cov["dimension"] = ix.Name, ix.Properties["metric_type"], doris.AtoiOrNil(ix.Properties["dim"])
				add("ANN_INDEX_CONFIGURED", "info", "the vector field has an ANN index", map[string]any{"field": f, "index": ix.Name,
					"metric_type": ix.Properties["metric_type"]})
			} else {
				add("ANN_INDEX_MISSING", "high", "the vector field has no ANN index: every distance is computed by a full scan", map[string]any{"field": f})
			}
			coverage = append(coverage, cov)
		}
		indexes := make([]map[string]any, 0, len(t.Indexes))
		for _, ix := range t.Indexes {
			indexes = append(indexes, ix.wire())
		}
		found[0] = fs
		return doris.Section{Status: "success", Source: "SHOW INDEX", Data: map[string]any{"database": t.Database, "table": t.Table,
			"indexes": indexes, "coverage": doris.OrEmpty(coverage)}}, nil
	}}, {Name: "explain", After: "indexes", Run: func(ctx context.Context) (doris.Section, error) {
		t := &doris.TextRows{}
		if err := r.TextInto(ctx, rt, doris.Stmt{SQL: "EXPLAIN " + sqlText, Prefix: searchPrefix, Timeout: min(doris.DefaultCallTimeout, r.Settings().QueryTimeout)},
			explainRowsLimit, t); err != nil {
			return doris.Section{}, err
		}
		lines := make([]string, 0, len(t.Rows))
		var ops []string
		var annInfo, annLimit, matchPlanned bool
		for _, row := range t.Rows {
			l := row[0].String
			lines = append(lines, l)
			up := strings.ToUpper(l)
			annInfo = annInfo || strings.Contains(up, "ANN SORT INFO")
			annLimit = annLimit || strings.Contains(up, "ANN SORT LIMIT")
			if strings.Contains(up, "PREDICATES:") {
				for _, m := range matchOpRE().FindAllString(up, -1) {
					matchPlanned = true
					if !slices.Contains(ops, m) {
						ops = append(ops, m)
					}
				}
			}
		}
		slices.Sort(ops)
		planFacts = map[string]any{"match_operators": doris.OrEmpty(ops), "text_match_planned": matchPlanned,
			"ann_sort_info": annInfo, "ann_sort_limit": annLimit, "olap_scan": slices.ContainsFunc(lines, func(l string) bool {
				return strings.Contains(strings.ToUpper(l), "OLAPSCANNODE")
			})}
		var fs []diagFinding
		add := func(code, sev, msg string, d map[string]any) {
			fs = append(fs, diagFinding{code, sev, msg, "EXPLAIN", d})
		}
		if len(textF) > 0 {
			if matchPlanned {
				add("MATCH_PREDICATE_PLANNED", "info", "the plan keeps the MATCH predicate on the scan", map[string]any{"operators": doris.OrEmpty(ops)})
			} else {
				add("MATCH_PREDICATE_NOT_PLANNED", "medium", "the plan shows no MATCH predicate on a scan", map[string]any{})
			}
		}
		if len(vectorF) > 0 && approx {
			if annInfo {
				add("ANN_PUSHDOWN_OBSERVED", "info", "the scan reports ANN SORT INFO: the ANN index serves the top-n", map[string]any{})
			} else {
				add("ANN_PUSHDOWN_NOT_OBSERVED", "high", "the plan shows no ANN SORT INFO: the distances are computed by a full scan "+
					"(check the metric matches the index, the order direction and that a LIMIT is present)", map[string]any{})
			}
		}
		found[1] = fs
		return doris.Section{Status: "success", Source: "EXPLAIN", Data: map[string]any{"plan": lines, "truncated": t.Truncated, "facets": planFacts}}, nil
	}}}
	if a.IncludeProfile {
		steps = append(steps, doris.Step{Name: "profile", After: "explain", Run: func(ctx context.Context) (doris.Section, error) {
			qid, trace, err := r.RunProfiled(ctx, rt, sqlText)
			if err != nil {
				return doris.Section{}, err
			}
			text, cut, err := r.ProfileText(ctx, rt, qid)
			if err != nil {
				return doris.Section{}, err
			}
			counters := profileCounters(text)
			if len(counters) > 0 {
				found[2] = []diagFinding{{"PROFILE_INDEX_COUNTERS", "info", "the profile reports inverted index counters", "FE profile API",
					map[string]any{"counters": counters}}}
			}
			return doris.Section{Status: "success", Source: "FE profile API", Data: map[string]any{"query_id": qid, "trace_id": trace,
				"profile_text": text, "truncated": cut, "index_counters": counters}}, nil
		}})
	}
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		var de *doris.Error
		if errors.As(err, &de) && de.Reason == "SECTION_FAILED" {
			return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_EXECUTION_FAILED", Status: 500, Message: "the index section failed", Cause: err}
		}
		return nil, err
	}
	var findings, evidence []map[string]any
	for _, fs := range found {
		for _, f := range fs {
			findings = append(findings, map[string]any{"code": f.code, "severity": f.severity, "message": f.message})
			ev := map[string]any{"finding": f.code, "source": f.source}
			for k, v := range f.detail {
				ev[k] = v
			}
			evidence = append(evidence, ev)
		}
	}
	for _, s := range steps {
		sec := p.Sections[s.Name]
		ev := map[string]any{"section": s.Name, "status": sec.Status, "source": sec.Source}
		if sec.ReasonCode != "" {
			ev["reason_code"] = sec.ReasonCode
		}
		evidence = append(evidence, ev)
	}
	status := "success"
	if p.Partial {
		status = "partial"
	}
	return &doris.Result{Status: status, Warnings: p.Warnings(steps), Evidence: evidence, Data: map[string]any{
		"target": target, "scope": scope, "findings": doris.OrEmpty(findings), "sections": p.Sections,
	}}, nil
}

var counterRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*-\s*((?:RowsInvertedIndexFiltered|InvertedIndex\w*|RowsAnn\w*|AnnIndex\w*)):\s*(\S+)`)
})

// profileCounters collects the inverted and ANN index counters of a
// profile (first value of each).
func profileCounters(profile string) map[string]string {
	out := map[string]string{}
	for _, m := range counterRE().FindAllStringSubmatch(profile, -1) {
		if _, ok := out[m[1]]; !ok {
			out[m[1]] = m[2]
		}
	}
	return out
}

// searchUse is what a raw SELECT searches: its target table (the first
// table after the first FROM, qualified or in the session's database),
// the fields it MATCHes and the fields it ranks by a distance.
type searchUse struct {
	database, table string
	text, vector    []string
	approx          bool
}

func searchUseOf(sqlText, defaultDB string) searchUse {
	var u searchUse
	toks, err := guard.Scan(sqlText)
	if err != nil {
		return u
	}
	var sig []guard.Token
	for _, t := range toks {
		if t.Kind != guard.TokComment && t.Kind != guard.TokHint {
			sig = append(sig, t)
		}
	}
	ident := func(t guard.Token) (string, bool) {
		switch t.Kind {
		case guard.TokWord:
			return t.Text, true
		case guard.TokQuoted:
			return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(t.Text, "`"), "`"), "``", "`"), true
		}
		return "", false
	}
	isP := func(t guard.Token, p string) bool { return t.Kind == guard.TokPunct && t.Text == p }
	for i := 0; i < len(sig); i++ {
		t := sig[i]
		word := strings.ToUpper(t.Text)
		switch {
		case u.table == "" && t.Kind == guard.TokWord && word == "FROM":
			var parts []string
			j := i + 1
			for j < len(sig) {
				n, ok := ident(sig[j])
				if !ok {
					break
				}
				parts = append(parts, n)
				if j+1 < len(sig) && isP(sig[j+1], ".") {
					j += 2
					continue
				}
				break
			}
			switch len(parts) {
			case 1:
				u.database, u.table = defaultDB, parts[0]
			case 2:
				u.database, u.table = parts[0], parts[1]
			case 3:
				if strings.EqualFold(parts[0], "internal") {
					u.database, u.table = parts[1], parts[2]
				}
			}
		case t.Kind == guard.TokWord && matchOps[word] && i > 0:
			if n, ok := ident(sig[i-1]); ok && !slices.Contains(u.text, n) {
				u.text = append(u.text, n)
			}
		case t.Kind == guard.TokWord && distanceFns[strings.ToLower(t.Text)] && i+2 < len(sig) && isP(sig[i+1], "("):
			j := i + 2
			for j+2 < len(sig) && isP(sig[j+1], ".") {
				j += 2
			}
			if n, ok := ident(sig[j]); ok && !slices.Contains(u.vector, n) {
				u.vector = append(u.vector, n)
				u.approx = u.approx || strings.HasSuffix(strings.ToLower(t.Text), "_approximate")
			}
		}
	}
	return u
}

var matchOps = map[string]bool{"MATCH": true, "MATCH_ANY": true, "MATCH_ALL": true, "MATCH_PHRASE": true, "MATCH_PHRASE_PREFIX": true,
	"MATCH_REGEXP": true, "MATCH_PHRASE_EDGE": true}

var distanceFns = map[string]bool{"l2_distance_approximate": true, "inner_product_approximate": true, "l2_distance": true,
	"inner_product": true, "cosine_distance": true, "l1_distance": true}
