package pipeline

import (
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// Reading table references out of SQL that Doris recorded (view and
// materialized-view definitions, audit statements), with the guard's
// Doris lexer: names are taken only where the grammar puts a relation
// (after FROM and JOIN, in FROM lists, after INSERT INTO, CREATE VIEW,
// CREATE TABLE ... AS, LOAD ... INTO TABLE), never from string literals,
// comments, function arguments such as EXTRACT(YEAR FROM x), table
// functions or CTE names.

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

// subqueryOpeners are keywords after which "(" opens a subquery or a list, not
// a function call.
var subqueryOpeners = map[string]bool{
	"IN": true, "EXISTS": true, "FROM": true, "JOIN": true, "AS": true, "SELECT": true, "WHERE": true, "AND": true,
	"OR": true, "NOT": true, "ON": true, "UNION": true, "ALL": true, "ANY": true, "SOME": true, "HAVING": true,
	"BY": true, "THEN": true, "ELSE": true, "WHEN": true, "CASE": true, "VALUES": true, "LATERAL": true, "USING": true,
	"WITH": true, "INTERSECT": true, "EXCEPT": true, "MINUS": true, "DISTINCT": true, "INTO": true, "TABLE": true,
	"RETURN": true, "VIEW": true, "OVERWRITE": true,
}

// refTerminators end a table reference's alias position.
var refTerminators = map[string]bool{
	"WHERE": true, "GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "JOIN": true, "INNER": true,
	"LEFT": true, "RIGHT": true, "CROSS": true, "NATURAL": true, "FULL": true, "OUTER": true, "ON": true,
	"USING": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "MINUS": true, "WINDOW": true, "LATERAL": true,
	"TABLESAMPLE": true, "PARTITION": true, "PARTITIONS": true, "TABLET": true, "FOR": true, "QUALIFY": true,
	"SELECT": true, "VALUES": true, "SET": true, "LEFT_SEMI": true, "STRAIGHT_JOIN": true, "SEMI": true, "ANTI": true,
}

// parseSQLRefs reads sql's references; ok is false when the lexer cannot
// read the text.
func parseSQLRefs(sql string) (sqlRefs, bool) {
	all, err := guard.Scan(sql)
	if err != nil {
		return sqlRefs{}, false
	}
	ts := all[:0:0]
	for _, t := range all {
		if t.Kind != guard.TokComment && t.Kind != guard.TokHint {
			ts = append(ts, t)
		}
	}
	word := func(i int, w string) bool {
		return i >= 0 && i < len(ts) && ts[i].Kind == guard.TokWord && strings.EqualFold(ts[i].Text, w)
	}
	punct := func(i int, p string) bool {
		return i >= 0 && i < len(ts) && ts[i].Kind == guard.TokPunct && ts[i].Text == p
	}
	isIdent := func(i int) bool {
		return i >= 0 && i < len(ts) && (ts[i].Kind == guard.TokWord || ts[i].Kind == guard.TokQuoted)
	}
	ident := func(i int) string {
		if ts[i].Kind == guard.TokQuoted {
			s := ts[i].Text
			return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
		}
		return ts[i].Text
	}
	chain := func(i int) ([]string, int) {
		var parts []string
		for isIdent(i) {
			parts = append(parts, ident(i))
			if punct(i+1, ".") && isIdent(i+2) {
				i += 2
				continue
			}
			i++
			break
		}
		return parts, i
	}
	var refs sqlRefs
	// The written relation.
	i := 0
	switch {
	case word(0, "INSERT"):
		i = 1
		refs.Kind = "insert"
		if word(i, "OVERWRITE") {
			refs.Kind = "insert_overwrite"
		}
		if word(i, "INTO") || word(i, "OVERWRITE") {
			i++
		}
		if word(i, "TABLE") {
			i++
		}
		refs.Target, _ = chain(i)
	case word(0, "CREATE"):
		i = 1
		if word(i, "OR") && word(i+1, "REPLACE") {
			i += 2
		}
		for word(i, "EXTERNAL") || word(i, "TEMPORARY") {
			i++
		}
		kind := ""
		switch {
		case word(i, "VIEW"):
			kind, i = "create_view", i+1
		case word(i, "MATERIALIZED") && word(i+1, "VIEW"):
			kind, i = "create_materialized_view", i+2
		case word(i, "TABLE"):
			kind, i = "ctas", i+1
		case word(i, "ROUTINE") && word(i+1, "LOAD"):
			parts, next := chain(i + 2)
			if len(parts) > 0 && word(next, "ON") {
				refs.Kind = "routine_load"
				refs.Target, _ = chain(next + 1)
			}
		}
		if kind != "" {
			if word(i, "IF") && word(i+1, "NOT") && word(i+2, "EXISTS") {
				i += 3
			}
			target, next := chain(i)
			if kind == "ctas" && !hasTopLevelAS(ts, next) {
				break // CREATE TABLE without AS SELECT reads nothing
			}
			refs.Kind, refs.Target = kind, target
		}
	case word(0, "LOAD") && word(1, "LABEL"):
		for k := 2; k+1 < len(ts); k++ {
			if word(k, "INTO") && word(k+1, "TABLE") {
				refs.Kind = "broker_load"
				refs.Target, _ = chain(k + 2)
				break
			}
		}
	}
	if refs.Kind != "" && (len(refs.Target) == 0 || len(refs.Target) > 3) {
		refs.Kind, refs.Target = "", nil
	}
	// CTE names are not relations.
	ctes := map[string]bool{}
	withSeen := false
	for k := range ts {
		if word(k, "WITH") {
			withSeen = true
		}
		if withSeen && (word(k, "WITH") || punct(k, ",")) && isIdent(k+1) {
			j := k + 2
			if punct(j, "(") { // WITH c (a, b) AS (...)
				for j < len(ts) && !punct(j, ")") {
					j++
				}
				j++
			}
			if word(j, "AS") && punct(j+1, "(") {
				ctes[strings.ToLower(ident(k+1))] = true
			}
		}
	}
	// The relations read: after FROM (a list) and JOIN, outside function
	// arguments.
	seen := map[string]bool{}
	add := func(parts []string) {
		if len(parts) > 3 || len(parts) == 1 && ctes[strings.ToLower(parts[0])] {
			return // not a relation name (catalog.db.table at most), or a CTE
		}
		k := strings.ToLower(strings.Join(parts, "\x00"))
		if !seen[k] {
			seen[k] = true
			refs.Sources = append(refs.Sources, parts)
		}
	}
	var stack []bool // true: the parenthesis is a function call
	inFunc := func() bool { return len(stack) > 0 && stack[len(stack)-1] }
	for k := 0; k < len(ts); k++ {
		switch {
		case punct(k, "("):
			fn := k > 0 && isIdent(k-1) && !(ts[k-1].Kind == guard.TokWord && subqueryOpeners[strings.ToUpper(ts[k-1].Text)])
			stack = append(stack, fn)
		case punct(k, ")"):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case (word(k, "FROM") || word(k, "JOIN")) && !inFunc():
			list := word(k, "FROM")
			for j := k + 1; j < len(ts); {
				if !isIdent(j) {
					break // a derived table: its own FROM is read in turn
				}
				parts, next := chain(j)
				if punct(next, "(") {
					break // a table function
				}
				add(parts)
				j = next
				if word(j, "AS") {
					j++
				}
				if isIdent(j) && !(ts[j].Kind == guard.TokWord && refTerminators[strings.ToUpper(ts[j].Text)]) {
					j++ // alias
				}
				if list && punct(j, ",") {
					j++
					continue
				}
				break
			}
		}
	}
	return refs, true
}

// hasTopLevelAS reports an AS at nesting depth 0 from ts[i] on (CREATE
// TABLE ... AS SELECT).
func hasTopLevelAS(ts []guard.Token, i int) bool {
	depth := 0
	for ; i < len(ts); i++ {
		t := ts[i]
		switch {
		case t.Kind == guard.TokPunct && t.Text == "(":
			depth++
		case t.Kind == guard.TokPunct && t.Text == ")":
			depth--
		case depth == 0 && t.Kind == guard.TokWord && strings.EqualFold(t.Text, "AS"):
			return true
		}
	}
	return false
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
