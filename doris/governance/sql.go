package governance

import (
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris/sqlref"
)

// Reading audited statements with the shared SQL-reference reader
// (doris/sqlref, on the guard's Doris lexer): what a statement does (its
// operation), which tables it touches, and, for INSERT ... SELECT and
// CREATE TABLE ... AS SELECT, which tables and columns feed which. This is
// inference from SQL text, not Doris's plan: it is labelled so wherever it
// is used, and a statement the lexer cannot read is skipped, never guessed
// at.

// objName is a table named in a statement, completed with the session's
// catalog and database.
type objName struct{ catalog, db, table string }

func (o objName) String() string { return o.catalog + "." + o.db + "." + o.table }

// key compares names as Doris does by default for the internal catalog
// (lower_case_table_names=0 keeps case, but audit SQL often differs in
// case only by typing): case-insensitively.
func (o objName) key() string { return strings.ToLower(o.String()) }

// stmtShape is what one statement says about its tables.
type stmtShape struct {
	operation string // first keyword: SELECT, INSERT, CREATE, SHOW, ...
	// kind is INSERT_SELECT, INSERT_OVERWRITE or CTAS for statements that
	// write one table from a query; "" otherwise.
	kind          string
	target        objName
	targetColumns []string // the INSERT column list, if any
	sources       []objName
	items         []selectItem // the outermost select list feeding the target
	aliases       map[string]objName
}

// selectItem is one item of a select list.
type selectItem struct {
	name string     // alias, or the column of a bare column reference
	refs [][]string // column references: [column], [qualifier, column], ...
	bare bool       // the item is exactly one column reference
}

// readsAndWrites returns every table the statement names, target first.
func (s *stmtShape) readsAndWrites() []objName {
	var out []objName
	if s.kind != "" {
		out = append(out, s.target)
	}
	return append(out, s.sources...)
}

// statementOperation is the statement's first keyword, upper-cased
// ("SELECT" for a parenthesised query, "UNKNOWN" when there is none).
func statementOperation(stmt string) string { return sqlref.Operation(stmt) }

// parseStatement reads one audited statement with the shared SQL-reference
// reader; catalog and db are the session's, which complete partial table
// names. ok is false for text the lexer cannot read completely.
func parseStatement(stmt, catalog, db string) (stmtShape, bool) {
	st, ok := sqlref.Parse(stmt)
	sh := stmtShape{operation: st.Operation}
	if !ok {
		return sh, false
	}
	if catalog == "" {
		catalog = "internal"
	}
	complete := func(parts []string) (objName, bool) {
		switch len(parts) {
		case 1:
			return objName{catalog, db, parts[0]}, db != ""
		case 2:
			return objName{catalog, parts[0], parts[1]}, true
		case 3:
			return objName{parts[0], parts[1], parts[2]}, true
		}
		return objName{}, false
	}
	sh.aliases = map[string]objName{}
	if st.FromQuery {
		target, ok := complete(st.Target)
		if !ok {
			return stmtShape{operation: sh.operation}, true
		}
		sh.target, sh.targetColumns = target, st.TargetColumns
		switch st.Kind {
		case sqlref.Insert:
			sh.kind = "INSERT_SELECT"
		case sqlref.InsertOverwrite:
			sh.kind = "INSERT_OVERWRITE"
		case sqlref.CTAS:
			sh.kind = "CTAS"
		}
		for _, it := range st.Items {
			sh.items = append(sh.items, selectItem{name: it.Name, refs: it.Refs, bare: it.Bare})
		}
	}
	seen := map[string]bool{}
	for _, parts := range st.Sources {
		o, ok := complete(parts)
		if !ok {
			continue
		}
		if k := o.key(); !seen[k] && (sh.kind == "" || k != sh.target.key()) {
			seen[k] = true
			sh.sources = append(sh.sources, o)
		}
	}
	for a, parts := range st.Aliases {
		if o, ok := complete(parts); ok {
			sh.aliases[a] = o
		}
	}
	return sh, true
}

// lineageEdge is one inferred dependency.
type lineageEdge struct {
	source, target       objName
	sourceCol, targetCol string
	dependency           string // table_dependency, direct or expression
}

// edges returns the statement's inferred edges: table to table, and
// column to column where the select list says which column feeds which.
func (s *stmtShape) edges() []lineageEdge {
	if s.kind == "" {
		return nil
	}
	var out []lineageEdge
	for _, src := range s.sources {
		out = append(out, lineageEdge{source: src, target: s.target, dependency: "table_dependency"})
	}
	for i, it := range s.items {
		target := it.name
		if len(s.targetColumns) > 0 {
			if i >= len(s.targetColumns) {
				break
			}
			target = s.targetColumns[i]
		} else if s.kind != "CTAS" {
			continue // INSERT without a column list: target columns unknown
		}
		if target == "" {
			continue
		}
		dep := "expression"
		if it.bare {
			dep = "direct"
		}
		for _, ref := range it.refs {
			src, ok := s.resolve(ref)
			if !ok {
				continue
			}
			out = append(out, lineageEdge{source: src, target: s.target, sourceCol: ref[len(ref)-1], targetCol: target, dependency: dep})
		}
	}
	return out
}

// resolve finds the table a column reference belongs to: its qualifier's
// alias or table, or the only source.
func (s *stmtShape) resolve(ref []string) (objName, bool) {
	switch len(ref) {
	case 1:
		if len(s.sources) == 1 {
			return s.sources[0], true
		}
	case 2:
		o, ok := s.aliases[strings.ToLower(ref[0])]
		return o, ok
	default:
		q := strings.ToLower(strings.Join(ref[:len(ref)-1], "."))
		for _, src := range s.sources {
			if strings.HasSuffix(src.key(), q) {
				return src, true
			}
		}
	}
	return objName{}, false
}
