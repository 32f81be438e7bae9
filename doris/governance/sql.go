package governance

import (
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// Reading audited statements with the guard's Doris lexer: what a
// statement does (its operation), which tables it touches, and, for
// INSERT ... SELECT and CREATE TABLE ... AS SELECT, which tables and
// columns feed which. This is inference from SQL text, not Doris's plan:
// it is labelled so wherever it is used, and a statement the lexer cannot
// read is skipped, never guessed at.

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

// sqlWords are keywords that are never column names in an expression.
var sqlWords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "GROUP": true, "BY": true, "ORDER": true, "HAVING": true, "LIMIT": true,
	"OFFSET": true, "JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "OUTER": true, "CROSS": true,
	"ON": true, "USING": true, "AS": true, "AND": true, "OR": true, "NOT": true, "NULL": true, "IS": true, "IN": true,
	"CASE": true, "WHEN": true, "THEN": true, "ELSE": true, "END": true, "DISTINCT": true, "ALL": true, "UNION": true,
	"EXCEPT": true, "INTERSECT": true, "MINUS": true, "LIKE": true, "RLIKE": true, "REGEXP": true, "BETWEEN": true,
	"EXISTS": true, "INTERVAL": true, "TRUE": true, "FALSE": true, "OVER": true, "PARTITION": true, "ROWS": true,
	"RANGE": true, "UNBOUNDED": true, "PRECEDING": true, "FOLLOWING": true, "CURRENT": true, "ROW": true, "ASC": true,
	"DESC": true, "NULLS": true, "FIRST": true, "LAST": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true,
	"MONTH": true, "YEAR": true, "WEEK": true, "QUARTER": true, "DATE": true, "DATETIME": true, "TIMESTAMP": true,
	"INT": true, "INTEGER": true, "BIGINT": true, "SMALLINT": true, "TINYINT": true, "LARGEINT": true, "VARCHAR": true,
	"CHAR": true, "STRING": true, "TEXT": true, "DOUBLE": true, "FLOAT": true, "DECIMAL": true, "BOOLEAN": true,
	"SIGNED": true, "UNSIGNED": true, "WITH": true, "SEMI": true, "ANTI": true, "LATERAL": true, "VIEW": true,
	"NATURAL": true, "QUALIFY": true, "WINDOW": true, "TABLESAMPLE": true, "PERCENT": true, "REPEATABLE": true,
	"INTO": true, "VALUES": true, "SET": true, "DIV": true, "MOD": true, "XOR": true, "COLLATE": true, "ESCAPE": true,
}

// relationEnd are words that end a table reference (so are not aliases).
var relationEnd = map[string]bool{
	"WHERE": true, "GROUP": true, "ORDER": true, "HAVING": true, "LIMIT": true, "JOIN": true, "INNER": true, "LEFT": true,
	"RIGHT": true, "FULL": true, "CROSS": true, "NATURAL": true, "ON": true, "USING": true, "UNION": true, "EXCEPT": true,
	"INTERSECT": true, "MINUS": true, "WINDOW": true, "QUALIFY": true, "LATERAL": true, "TABLESAMPLE": true,
	"PARTITION": true, "PARTITIONS": true, "TABLET": true, "FOR": true, "OFFSET": true, "SEMI": true, "ANTI": true,
	"OUTER": true, "INTO": true, "SELECT": true, "AS": true, "WITH": true, "ASOF": true,
}

// significant returns the statement's tokens without comments and hints;
// ok is false when the lexer could not read all of it.
func significant(stmt string) ([]guard.Token, bool) {
	toks, err := guard.Scan(stmt)
	out := toks[:0]
	for _, t := range toks {
		if t.Kind != guard.TokComment && t.Kind != guard.TokHint {
			out = append(out, t)
		}
	}
	return out, err == nil
}

// statementOperation is the statement's first keyword, upper-cased
// ("SELECT" for a parenthesised query, "UNKNOWN" when there is none).
func statementOperation(stmt string) string {
	toks, _ := significant(stmt)
	if len(toks) == 0 {
		return "UNKNOWN"
	}
	if toks[0].Kind == guard.TokPunct && toks[0].Text == "(" {
		return "SELECT"
	}
	if toks[0].Kind != guard.TokWord {
		return "UNKNOWN"
	}
	return strings.ToUpper(toks[0].Text)
}

// parseStatement reads one audited statement; catalog and db are the
// session's, which complete partial table names. ok is false for text the
// lexer cannot read completely.
func parseStatement(stmt, catalog, db string) (stmtShape, bool) {
	toks, ok := significant(stmt)
	if !ok || len(toks) == 0 {
		return stmtShape{operation: statementOperation(stmt)}, false
	}
	if catalog == "" {
		catalog = "internal"
	}
	p := &stmtParser{toks: toks, catalog: catalog, db: db}
	sh := stmtShape{operation: statementOperation(stmt), aliases: map[string]objName{}}
	query := 0
	switch {
	case p.word(0, "INSERT"):
		i := 1
		switch {
		case p.word(i, "INTO"):
			sh.kind = "INSERT_SELECT"
			i++
		case p.word(i, "OVERWRITE"):
			sh.kind = "INSERT_OVERWRITE"
			i++
			if p.word(i, "TABLE") {
				i++
			}
		default:
			return sh, true
		}
		target, next, ok := p.chain(i)
		if !ok {
			return stmtShape{operation: sh.operation}, true
		}
		sh.target, i = target, next
		if p.word(i, "PARTITION") || p.word(i, "TEMPORARY") {
			for i < len(toks) && !p.punct(i, "(") && !p.word(i, "WITH") && !p.word(i, "SELECT") {
				i++
			}
			if p.punct(i, "(") && !p.word(i+1, "SELECT") && !p.word(i+1, "WITH") {
				i = p.skipParens(i)
			}
		}
		if p.word(i, "WITH") && p.word(i+1, "LABEL") {
			i += 3
		}
		if p.punct(i, "(") && !p.word(i+1, "SELECT") && !p.word(i+1, "WITH") {
			end := p.skipParens(i)
			for k := i + 1; k < end-1; k++ {
				if toks[k].Kind == guard.TokWord || toks[k].Kind == guard.TokQuoted {
					sh.targetColumns = append(sh.targetColumns, doris.IdentText(toks[k]))
				}
			}
			i = end
		}
		if !(p.word(i, "SELECT") || p.word(i, "WITH") || p.punct(i, "(")) {
			sh.kind = "" // INSERT ... VALUES: no lineage
			return sh, true
		}
		query = i
	case p.word(0, "CREATE") && p.word(1, "TABLE"):
		i := 2
		if p.word(i, "IF") && p.word(i+1, "NOT") && p.word(i+2, "EXISTS") {
			i += 3
		}
		target, next, ok := p.chain(i)
		if !ok {
			return sh, true
		}
		for k, depth := next, 0; k < len(toks); k++ {
			switch {
			case p.punct(k, "("):
				depth++
			case p.punct(k, ")"):
				depth--
			case depth == 0 && p.word(k, "AS") && (p.word(k+1, "SELECT") || p.word(k+1, "WITH") || p.punct(k+1, "(")):
				sh.kind, sh.target, query = "CTAS", target, k+1
			}
			if query > 0 {
				break
			}
		}
		if query == 0 {
			return sh, true
		}
	default:
		query = 0
	}
	q := &stmtParser{toks: toks[query:], catalog: catalog, db: db}
	ctes := q.cteNames()
	seen := map[string]bool{}
	for _, rel := range q.relations(sh.aliases) {
		if ctes[strings.ToLower(rel.table)] && rel.db == db && rel.catalog == catalog {
			continue
		}
		if k := rel.key(); !seen[k] && (sh.kind == "" || k != sh.target.key()) {
			seen[k] = true
			sh.sources = append(sh.sources, rel)
		}
	}
	for a, o := range sh.aliases {
		if ctes[strings.ToLower(o.table)] {
			delete(sh.aliases, a)
		}
	}
	if sh.kind != "" {
		sh.items = q.selectList()
	}
	return sh, true
}

// stmtParser walks significant tokens.
type stmtParser struct {
	toks        []guard.Token
	catalog, db string
}

func (p *stmtParser) word(i int, w string) bool {
	return i >= 0 && i < len(p.toks) && doris.IsWord(p.toks[i], w)
}

func (p *stmtParser) punct(i int, s string) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].Kind == guard.TokPunct && p.toks[i].Text == s
}

func (p *stmtParser) name(i int) bool {
	return i >= 0 && i < len(p.toks) && (p.toks[i].Kind == guard.TokWord || p.toks[i].Kind == guard.TokQuoted)
}

// skipParens returns the index after the parenthesis opened at i.
func (p *stmtParser) skipParens(i int) int {
	depth := 0
	for ; i < len(p.toks); i++ {
		switch {
		case p.punct(i, "("):
			depth++
		case p.punct(i, ")"):
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return i
}

// parts reads a dotted name at i: its parts and the index after it.
func (p *stmtParser) parts(i int) ([]string, int) {
	var out []string
	for p.name(i) {
		out = append(out, doris.IdentText(p.toks[i]))
		if p.punct(i+1, ".") && p.name(i+2) {
			i += 2
			continue
		}
		i++
		break
	}
	return out, i
}

// chain reads a table name of 1 to 3 parts at i.
func (p *stmtParser) chain(i int) (objName, int, bool) {
	parts, next := p.parts(i)
	switch len(parts) {
	case 1:
		if p.db == "" {
			return objName{}, next, false
		}
		return objName{p.catalog, p.db, parts[0]}, next, true
	case 2:
		return objName{p.catalog, parts[0], parts[1]}, next, true
	case 3:
		return objName{parts[0], parts[1], parts[2]}, next, true
	}
	return objName{}, next, false
}

// cteNames returns the names a leading WITH clause defines.
func (p *stmtParser) cteNames() map[string]bool {
	out := map[string]bool{}
	if !p.word(0, "WITH") {
		return out
	}
	i := 1
	if p.word(i, "RECURSIVE") {
		i++
	}
	for p.name(i) {
		out[strings.ToLower(doris.IdentText(p.toks[i]))] = true
		i++
		if p.punct(i, "(") {
			i = p.skipParens(i)
		}
		if !p.word(i, "AS") || !p.punct(i+1, "(") {
			break
		}
		i = p.skipParens(i + 1)
		if !p.punct(i, ",") {
			break
		}
		i++
	}
	return out
}

// relations returns every table read after FROM and JOIN, at any depth,
// recording aliases (lower-cased) into aliases.
func (p *stmtParser) relations(aliases map[string]objName) []objName {
	var out []objName
	for i := 0; i < len(p.toks); i++ {
		if !p.word(i, "FROM") && !p.word(i, "JOIN") {
			continue
		}
		j := i + 1
		for {
			if p.punct(j, "(") {
				j = p.skipParens(j) // a derived table: its own FROM is read in turn
				if p.word(j, "AS") {
					j++
				}
				if p.name(j) && !relationEnd[strings.ToUpper(p.toks[j].Text)] {
					j++
				}
			} else if p.name(j) {
				obj, next, ok := p.chain(j)
				if p.punct(next, "(") {
					j = p.skipParens(next) // a table function
				} else {
					if ok {
						out = append(out, obj)
						aliases[strings.ToLower(obj.table)] = obj
					}
					j = next
					if p.word(j, "AS") {
						j++
					}
					if p.name(j) && !relationEnd[strings.ToUpper(p.toks[j].Text)] {
						if ok {
							aliases[strings.ToLower(doris.IdentText(p.toks[j]))] = obj
						}
						j++
					}
				}
			} else {
				break
			}
			if !p.punct(j, ",") {
				break
			}
			j++
		}
		// The scan goes on from the token after FROM/JOIN, so that the
		// FROMs inside derived tables are read too.
	}
	return out
}

// selectList splits the outermost SELECT's items (after any WITH clause).
func (p *stmtParser) selectList() []selectItem {
	i := 0
	for i < len(p.toks) && !p.word(i, "SELECT") {
		if p.punct(i, "(") {
			if p.word(i-1, "AS") {
				i = p.skipParens(i) // a CTE body
				continue
			}
			i++ // INSERT ... (SELECT ...)
			continue
		}
		i++
	}
	i++
	if p.word(i, "DISTINCT") || p.word(i, "ALL") {
		i++
	}
	var items []selectItem
	start, depth := i, 0
	for ; i <= len(p.toks); i++ {
		end := i == len(p.toks)
		if !end {
			switch {
			case p.punct(i, "("):
				depth++
			case p.punct(i, ")"):
				depth--
			}
		}
		if end || depth < 0 || depth == 0 && (p.punct(i, ",") || p.word(i, "FROM") || p.word(i, "UNION") || p.word(i, "LIMIT")) {
			items = append(items, p.item(start, i))
			if end || depth < 0 || !p.punct(i, ",") {
				break
			}
			start = i + 1
		}
	}
	return items
}

// item reads the select item toks[from:to].
func (p *stmtParser) item(from, to int) selectItem {
	var it selectItem
	end := to
	switch {
	case end-from >= 3 && p.name(end-1) && p.word(end-2, "AS"):
		it.name, end = doris.IdentText(p.toks[end-1]), end-2
	case end-from >= 2 && p.name(end-1) && !sqlWords[strings.ToUpper(p.toks[end-1].Text)] && p.expressionEnd(end-2):
		it.name, end = doris.IdentText(p.toks[end-1]), end-1 // "expr alias"
	}
	for k := from; k < end; k++ {
		if !p.name(k) || p.punct(k-1, ".") || p.toks[k].Kind == guard.TokWord && sqlWords[strings.ToUpper(p.toks[k].Text)] {
			continue
		}
		parts, next := p.parts(k)
		if p.punct(next, "(") {
			k = next - 1 // a function name
			continue
		}
		it.refs = append(it.refs, parts)
		if k == from && next == end {
			it.bare = true
			if it.name == "" {
				it.name = parts[len(parts)-1]
			}
		}
		k = next - 1
	}
	return it
}

// expressionEnd reports a token that can end an expression, so that a name
// after it is an alias: a closing parenthesis, a name, a literal.
func (p *stmtParser) expressionEnd(i int) bool {
	if i < 0 || i >= len(p.toks) {
		return false
	}
	t := p.toks[i]
	switch t.Kind {
	case guard.TokPunct:
		return t.Text == ")"
	case guard.TokWord:
		return !sqlWords[strings.ToUpper(t.Text)] || doris.IsWord(t, "END")
	}
	return true
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
