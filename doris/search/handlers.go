package search

import (
	"context"
	"slices"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// searchPrefix names the failure domain of doris_search reason codes.
const searchPrefix = "SEARCH"

// Probes are the capability probes of this domain's children.
var Probes = map[string]doris.Probe{
	"search.show_index":       {SQL: "SHOW INDEX FROM information_schema.tables"},
	"search.tokenize":         {SQL: `SELECT TOKENIZE('Doris search', '"parser"="english"')`},
	"search.vector_functions": {SQL: "SELECT l2_distance_approximate([0.0], [0.0])"},
	"search.explain":          {SQL: "EXPLAIN SELECT 1"},
	"search.match_explain": {Run: func(ctx context.Context, r *doris.Runtime, rt *doris.Route) (string, time.Duration) {
		return r.ProbeOutcome(ctx, kit{r}.probeMatchExplain(ctx, rt))
	}},
}

// probeMatchExplain checks that Doris plans a MATCH_ANY predicate: EXPLAIN
// over the first string column the account can see, looked up database by
// database (SHOW DATABASES, then information_schema.columns for one schema
// at a time, which never opens the system schemas). An account that sees
// no string column has nothing to search, and the probe passes without a
// plan.
func (r kit) probeMatchExplain(ctx context.Context, rt *doris.Route) error {
	dbs, err := r.InternalText(ctx, rt, "SHOW DATABASES", 1000, "PROBE")
	if err != nil {
		return err
	}
	var names []string
	for _, row := range dbs.Rows {
		if n := row[0].String; n != "" && !slices.Contains(doris.SystemDatabases, n) && doris.CheckIdent("PROBE", "name", n) == nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, db := range names[:min(len(names), 8)] {
		q, err := doris.Bind("SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.columns WHERE TABLE_SCHEMA = %(db)s "+
			"AND LOWER(DATA_TYPE) IN ('varchar', 'char', 'string', 'text') ORDER BY TABLE_NAME, ORDINAL_POSITION LIMIT 1",
			map[string]any{"db": db})
		if err != nil {
			return err
		}
		t, err := r.InternalText(ctx, rt, q, 1, "PROBE")
		if err != nil {
			return err
		}
		if len(t.Rows) == 0 {
			continue
		}
		table, col := t.Rows[0][0].String, t.Rows[0][1].String
		if doris.CheckIdent("PROBE", "name", table) != nil || doris.CheckIdent("PROBE", "name", col) != nil {
			continue // a name the server cannot quote
		}
		_, err = r.InternalText(ctx, rt, "EXPLAIN SELECT 1 FROM "+doris.Qualified(db, table)+" WHERE "+doris.QuoteIdent(col)+
			" MATCH_ANY 'doris' LIMIT 1", doris.MaxPlanRows, "PROBE")
		return err
	}
	return nil
}
