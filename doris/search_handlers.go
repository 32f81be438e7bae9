package doris

import (
	"context"
	"strings"
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

// searchProbeFuncs are the doris_search probes that take more than one
// statement; their errors are classified like SQL probes.
var searchProbeFuncs = map[string]func(*Runtime, context.Context, *route) error{
	"search.match_explain": (*Runtime).probeMatchExplain,
}

// probeMatchExplain checks that Doris plans a MATCH_ANY predicate: EXPLAIN
// over the first string column the account can see. An account that sees
// no string column has nothing to search, and the probe passes without a
// plan. (One information_schema table only: a join of two crashes MariaDB
// 10.11 under concurrent use, which the simulator runs on.)
func (r *Runtime) probeMatchExplain(ctx context.Context, rt *route) error {
	exclude := make([]string, len(systemDatabases))
	params := map[string]any{}
	for i, db := range systemDatabases {
		key := "s" + string(rune('a'+i))
		exclude[i] = "%(" + key + ")s"
		params[key] = db
	}
	q, err := bind("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME FROM information_schema.columns "+
		"WHERE LOWER(DATA_TYPE) IN ('varchar', 'char', 'string', 'text') AND TABLE_SCHEMA NOT IN ("+strings.Join(exclude, ", ")+") "+
		"ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION LIMIT 1", params)
	if err != nil {
		return err
	}
	t, err := r.internalText(ctx, rt, q, 1, "PROBE")
	if err != nil || len(t.rows) == 0 {
		return err
	}
	db, table, col := t.rows[0][0].String, t.rows[0][1].String, t.rows[0][2].String
	for _, id := range []string{db, table, col} {
		if checkIdent("PROBE", "name", id) != nil {
			return nil // a name the server cannot quote: nothing to probe with
		}
	}
	_, err = r.internalText(ctx, rt, "EXPLAIN SELECT 1 FROM "+qualified(db, table)+" WHERE "+quoteIdent(col)+
		" MATCH_ANY 'doris' LIMIT 1", maxPlanRows, "PROBE")
	return err
}
