package pipeline

import (
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/sqlref"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// Reading table references out of SQL that Doris recorded (view and
// materialized-view definitions, audit statements) with doris/sqlref, the
// reader governance's lineage uses too: names are taken only where the
// grammar puts a relation, never from string literals, comments, function
// arguments such as EXTRACT(YEAR FROM x), table functions or CTE names.

// objectName is a catalog.database.table reference.
type objectName struct {
	Catalog, Database, Table string
}

func (o objectName) String() string { return o.Catalog + "." + o.Database + "." + o.Table }

// key compares names the way Doris's defaults do (case-insensitively).
func (o objectName) key() string { return strings.ToLower(o.String()) }

// resolve completes a 1-3 part name with the defaults.
func resolveName(parts []string, catalog, database string) (objectName, bool) {
	switch len(parts) {
	case 1:
		return objectName{catalog, database, parts[0]}, database != ""
	case 2:
		return objectName{catalog, parts[0], parts[1]}, true
	case 3:
		return objectName{parts[0], parts[1], parts[2]}, true
	}
	return objectName{}, false
}

// sqlRefs is what one statement says about data flow.
type sqlRefs struct {
	// Kind is "insert", "insert_overwrite", "create_view",
	// "create_materialized_view", "ctas", "broker_load", "routine_load" or
	// "" for a statement that writes no table.
	Kind    string
	Target  []string   // the written relation's name parts, when Kind != ""
	Sources [][]string // the relations read, in order, without duplicates
}

// parseSQLRefs reads sql's references with the shared SQL-reference reader
// (doris/sqlref); ok is false when the lexer cannot read the text.
func parseSQLRefs(sql string) (sqlRefs, bool) {
	st, ok := sqlref.Parse(sql)
	if !ok {
		return sqlRefs{}, false
	}
	return sqlRefs{Kind: string(st.Kind), Target: st.Target, Sources: st.Sources}, true
}

// parseObjectArg reads a caller's object argument ("t", "db.t",
// "catalog.db.t", with or without backquotes) with the Doris lexer.
func parseObjectArg(s string) ([]string, bool) {
	ts, err := guard.Scan(s)
	if err != nil || len(ts) == 0 {
		return nil, false
	}
	var parts []string
	for i, t := range ts {
		if i%2 == 1 {
			if t.Kind != guard.TokPunct || t.Text != "." {
				return nil, false
			}
			continue
		}
		switch t.Kind {
		case guard.TokWord:
			parts = append(parts, t.Text)
		case guard.TokQuoted:
			parts = append(parts, strings.ReplaceAll(t.Text[1:len(t.Text)-1], "``", "`"))
		default:
			return nil, false
		}
	}
	if len(ts)%2 == 0 || len(parts) > 3 {
		return nil, false
	}
	for _, p := range parts {
		if doris.CheckIdent(pipelinePrefix, "object", p) != nil {
			return nil, false
		}
	}
	return parts, true
}
