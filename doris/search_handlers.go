package doris

import (
	"context"
	"slices"
)

// searchPrefix names the failure domain of doris_search reason codes.
const searchPrefix = "SEARCH"

// searchHandlers binds the children of doris_search that this build runs.
func (r *Runtime) searchHandlers() map[string]Handler {
	return map[string]Handler{
		"doris_search.search_data":            r.searchData,
		"doris_search.preview_text_analysis":  r.previewTextAnalysis,
		"doris_search.inspect_search_indexes": r.inspectSearchIndexes,
		"doris_search.diagnose_search_query":  r.diagnoseSearchQuery,
	}
}

// searchProbeSQL are the SQL capability probes of doris_search.
var searchProbeSQL = map[string]string{
	"search.show_index":       "SHOW INDEX FROM information_schema.tables",
	"search.tokenize":         `SELECT TOKENIZE('Doris search', '"parser"="english"')`,
	"search.vector_functions": "SELECT l2_distance_approximate([0.0], [0.0])",
	"search.explain":          "EXPLAIN SELECT 1",
}

// probeMatchExplain checks that Doris plans a MATCH_ANY predicate: EXPLAIN
// over the first string column the account can see, looked up database by
// database (SHOW DATABASES, then information_schema.columns for one schema
// at a time, which never opens the system schemas). An account that sees
// no string column has nothing to search, and the probe passes without a
// plan.
func (r *Runtime) probeMatchExplain(ctx context.Context, rt *route) error {
	dbs, err := r.internalText(ctx, rt, "SHOW DATABASES", 1000, "PROBE")
	if err != nil {
		return err
	}
	var names []string
	for _, row := range dbs.rows {
		if n := row[0].String; n != "" && !slices.Contains(systemDatabases, n) && checkIdent("PROBE", "name", n) == nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, db := range names[:min(len(names), 8)] {
		q, err := bind("SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.columns WHERE TABLE_SCHEMA = %(db)s "+
			"AND LOWER(DATA_TYPE) IN ('varchar', 'char', 'string', 'text') ORDER BY TABLE_NAME, ORDINAL_POSITION LIMIT 1",
			map[string]any{"db": db})
		if err != nil {
			return err
		}
		t, err := r.internalText(ctx, rt, q, 1, "PROBE")
		if err != nil {
			return err
		}
		if len(t.rows) == 0 {
			continue
		}
		table, col := t.rows[0][0].String, t.rows[0][1].String
		if checkIdent("PROBE", "name", table) != nil || checkIdent("PROBE", "name", col) != nil {
			continue // a name the server cannot quote
		}
		_, err = r.internalText(ctx, rt, "EXPLAIN SELECT 1 FROM "+qualified(db, table)+" WHERE "+quoteIdent(col)+
			" MATCH_ANY 'doris' LIMIT 1", maxPlanRows, "PROBE")
		return err
	}
	return nil
}
