// Package sqlref reads, from SQL text that Doris recorded (audited
// statements, view and materialized-view definitions, load statements),
// which relations a statement reads and which one it writes, and for a
// write fed by a query, that query's select list. It is the one reader
// behind lineage (governance) and dependencies (pipeline).
//
// It works on the guard's Doris lexer, so names come only from where the
// grammar puts a relation: after FROM and JOIN in a query (and in FROM
// lists), after INSERT INTO / OVERWRITE, CREATE VIEW, CREATE MATERIALIZED
// VIEW, CREATE TABLE ... AS, LOAD ... INTO TABLE and CREATE ROUTINE LOAD
// ... ON. Never from string literals, comments, function arguments
// (EXTRACT(YEAR FROM ts), TRIM(BOTH 'x' FROM s), SUBSTRING(s FROM 2)),
// table functions, CTE names, or statements whose FROM names no relation
// (SHOW ... FROM db, REVOKE ... FROM user, CANCEL LOAD FROM db). This is
// inference from SQL text, not Doris's plan; callers label it so.
package sqlref

import (
	"strings"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// Kind says what a statement writes.
type Kind string

// The statement kinds that write a relation.
const (
	None            Kind = ""
	Insert          Kind = "insert"
	InsertOverwrite Kind = "insert_overwrite"
	CTAS            Kind = "ctas"
	CreateView      Kind = "create_view"
	CreateMV        Kind = "create_materialized_view"
	BrokerLoad      Kind = "broker_load"
	RoutineLoad     Kind = "routine_load"
)

// Item is one item of a select list.
type Item struct {
	// Name is the item's alias, or the column of a bare column reference.
	Name string
	// Refs are the column references in the item: [column],
	// [qualifier, column], [db, table, column], ...
	Refs [][]string
	// Bare reports that the item is exactly one column reference.
	Bare bool
}

// Statement is what one statement says about its relations. Names are
// parts as written (unquoted), 1 to 3 of them: table, db.table or
// catalog.db.table.
type Statement struct {
	// Operation is the first keyword, upper-cased ("SELECT" for a
	// parenthesised query, "UNKNOWN" when there is none).
	Operation string
	Kind      Kind
	// Target is the written relation when Kind is not None.
	Target []string
	// TargetColumns is an INSERT's column list, if it has one.
	TargetColumns []string
	// FromQuery reports that a query (not VALUES) feeds the target.
	FromQuery bool
	// Sources are the relations read, in the order their FROM or JOIN
	// comes, without duplicates (compared case-insensitively), without
	// CTE names and without the target.
	Sources [][]string
	// Aliases maps a lower-cased alias, or a source's lower-cased table
	// name, to that source.
	Aliases map[string][]string
	// Items is the select list of the query that feeds the target (for
	// INSERT ... SELECT and CTAS).
	Items []Item
}

// queryStarts are the first words of statements whose FROM and JOIN name
// relations. Everything else (SHOW, DESC, REVOKE, CANCEL, KILL, ADMIN,
// HELP, ...) names none that way.
var queryStarts = map[string]bool{
	"SELECT": true, "WITH": true, "INSERT": true, "CREATE": true, "DELETE": true, "UPDATE": true,
	"EXPLAIN": true, "ALTER": true, "LOAD": true, "VALUES": true, "TABLE": true,
}

// subqueryOpeners are words after which "(" opens a subquery or a list, not
// a function call's arguments.
var subqueryOpeners = map[string]bool{
	"IN": true, "EXISTS": true, "FROM": true, "JOIN": true, "AS": true, "SELECT": true, "WHERE": true, "AND": true,
	"OR": true, "NOT": true, "ON": true, "UNION": true, "ALL": true, "ANY": true, "SOME": true, "HAVING": true,
	"BY": true, "THEN": true, "ELSE": true, "WHEN": true, "CASE": true, "VALUES": true, "LATERAL": true, "USING": true,
	"WITH": true, "INTERSECT": true, "EXCEPT": true, "MINUS": true, "DISTINCT": true, "INTO": true, "TABLE": true,
	"RETURN": true, "VIEW": true, "OVERWRITE": true,
}

// relationEnd are words that end a table reference, so are never its alias.
var relationEnd = map[string]bool{
	"WHERE": true, "GROUP": true, "ORDER": true, "HAVING": true, "LIMIT": true, "JOIN": true, "INNER": true, "LEFT": true,
	"RIGHT": true, "FULL": true, "CROSS": true, "NATURAL": true, "ON": true, "USING": true, "UNION": true, "EXCEPT": true,
	"INTERSECT": true, "MINUS": true, "WINDOW": true, "QUALIFY": true, "LATERAL": true, "TABLESAMPLE": true,
	"PARTITION": true, "PARTITIONS": true, "TABLET": true, "FOR": true, "OFFSET": true, "SEMI": true, "ANTI": true,
	"OUTER": true, "INTO": true, "SELECT": true, "AS": true, "WITH": true, "ASOF": true, "VALUES": true, "SET": true,
	"LEFT_SEMI": true, "STRAIGHT_JOIN": true, "TEMPORARY": true,
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
	"BOTH": true, "LEADING": true, "TRAILING": true, "FOR": true,
}

// Significant returns stmt's tokens without comments and hints; ok is
// false when the lexer could not read all of it.
func Significant(stmt string) ([]guard.Token, bool) {
	toks, err := guard.Scan(stmt)
	out := toks[:0:0]
	for _, t := range toks {
		if t.Kind != guard.TokComment && t.Kind != guard.TokHint {
			out = append(out, t)
		}
	}
	return out, err == nil
}

// Operation is stmt's first keyword, upper-cased ("SELECT" for a
// parenthesised query, "UNKNOWN" when there is none).
func Operation(stmt string) string {
	toks, _ := Significant(stmt)
	return operation(toks)
}

func operation(toks []guard.Token) string {
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

// Ident is the name a word or backquoted identifier token stands for.
func Ident(t guard.Token) string {
	if t.Kind == guard.TokQuoted && len(t.Text) >= 2 {
		return strings.ReplaceAll(t.Text[1:len(t.Text)-1], "``", "`")
	}
	return t.Text
}

// Parse reads stmt. ok is false when the lexer cannot read the whole text;
// the Statement then carries only its Operation.
func Parse(stmt string) (Statement, bool) {
	toks, ok := Significant(stmt)
	st := Statement{Operation: operation(toks)}
	if !ok {
		return st, false
	}
	if len(toks) == 0 {
		return st, true
	}
	p := &reader{toks: toks}
	query := p.target(&st)
	if st.Kind != None && (len(st.Target) == 0 || len(st.Target) > 3) {
		st.Kind, st.Target, st.TargetColumns, st.FromQuery, query = None, nil, nil, false, -1
	}
	st.Aliases = map[string][]string{}
	if queryStarts[st.Operation] || st.Operation == "SELECT" {
		p.relations(&st)
	}
	if query >= 0 && (st.Kind == Insert || st.Kind == InsertOverwrite || st.Kind == CTAS) {
		st.FromQuery = true
		q := &reader{toks: toks[query:]}
		st.Items = q.selectList()
	}
	return st, true
}

// reader walks significant tokens.
type reader struct{ toks []guard.Token }

func (p *reader) word(i int, w string) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].Kind == guard.TokWord && strings.EqualFold(p.toks[i].Text, w)
}

func (p *reader) punct(i int, s string) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].Kind == guard.TokPunct && p.toks[i].Text == s
}

func (p *reader) name(i int) bool {
	return i >= 0 && i < len(p.toks) && (p.toks[i].Kind == guard.TokWord || p.toks[i].Kind == guard.TokQuoted)
}

// keyword reports a word token in set.
func (p *reader) keyword(i int, set map[string]bool) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].Kind == guard.TokWord && set[strings.ToUpper(p.toks[i].Text)]
}

// skipParens returns the index after the parenthesis opened at i.
func (p *reader) skipParens(i int) int {
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
func (p *reader) parts(i int) ([]string, int) {
	var out []string
	for p.name(i) {
		out = append(out, Ident(p.toks[i]))
		if p.punct(i+1, ".") && p.name(i+2) {
			i += 2
			continue
		}
		i++
		break
	}
	return out, i
}

// isQueryStart reports a query beginning at i: SELECT, WITH or "(".
func (p *reader) isQueryStart(i int) bool {
	return p.word(i, "SELECT") || p.word(i, "WITH") || p.punct(i, "(")
}

// target reads the written relation into st and returns the index where
// the query feeding it starts, or -1.
func (p *reader) target(st *Statement) int {
	switch {
	case p.word(0, "INSERT"):
		i := 1
		switch {
		case p.word(i, "INTO"):
			st.Kind = Insert
			i++
		case p.word(i, "OVERWRITE"):
			st.Kind = InsertOverwrite
			i++
		default:
			return -1
		}
		if p.word(i, "TABLE") {
			i++
		}
		st.Target, i = p.parts(i)
		if p.word(i, "PARTITION") || p.word(i, "TEMPORARY") {
			for i < len(p.toks) && !p.punct(i, "(") && !p.word(i, "WITH") && !p.word(i, "SELECT") {
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
				if p.name(k) {
					st.TargetColumns = append(st.TargetColumns, Ident(p.toks[k]))
				}
			}
			i = end
		}
		if !p.isQueryStart(i) {
			return -1 // INSERT ... VALUES
		}
		return i
	case p.word(0, "CREATE"):
		i := 1
		if p.word(i, "OR") && p.word(i+1, "REPLACE") {
			i += 2
		}
		for p.word(i, "EXTERNAL") || p.word(i, "TEMPORARY") {
			i++
		}
		kind := None
		switch {
		case p.word(i, "VIEW"):
			kind, i = CreateView, i+1
		case p.word(i, "MATERIALIZED") && p.word(i+1, "VIEW"):
			kind, i = CreateMV, i+2
		case p.word(i, "TABLE"):
			kind, i = CTAS, i+1
		case p.word(i, "ROUTINE") && p.word(i+1, "LOAD"):
			parts, next := p.parts(i + 2)
			if len(parts) > 0 && p.word(next, "ON") {
				st.Kind = RoutineLoad
				st.Target, _ = p.parts(next + 1)
			}
			return -1
		}
		if kind == None {
			return -1
		}
		if p.word(i, "IF") && p.word(i+1, "NOT") && p.word(i+2, "EXISTS") {
			i += 3
		}
		target, next := p.parts(i)
		query := -1
		for k, depth := next, 0; k < len(p.toks) && query < 0; k++ {
			switch {
			case p.punct(k, "("):
				depth++
			case p.punct(k, ")"):
				depth--
			case depth == 0 && p.word(k, "AS"):
				query = k + 1
			}
		}
		if kind == CTAS && (query < 0 || !p.isQueryStart(query)) {
			return -1 // CREATE TABLE without AS SELECT reads nothing
		}
		st.Kind, st.Target = kind, target
		return query
	case p.word(0, "LOAD") && p.word(1, "LABEL"):
		for k := 2; k+1 < len(p.toks); k++ {
			if p.word(k, "INTO") && p.word(k+1, "TABLE") {
				st.Kind = BrokerLoad
				st.Target, _ = p.parts(k + 2)
				break
			}
		}
	}
	return -1
}

// ctes returns the lower-cased names WITH clauses define, at any depth.
func (p *reader) ctes() map[string]bool {
	out := map[string]bool{}
	for k := range p.toks {
		if !p.word(k, "WITH") {
			continue
		}
		i := k + 1
		if p.word(i, "RECURSIVE") {
			i++
		}
		for p.name(i) {
			n := strings.ToLower(Ident(p.toks[i]))
			i++
			if p.punct(i, "(") {
				i = p.skipParens(i) // WITH c (a, b) AS (...)
			}
			if !p.word(i, "AS") || !p.punct(i+1, "(") {
				break
			}
			out[n] = true
			i = p.skipParens(i + 1)
			if !p.punct(i, ",") {
				break
			}
			i++
		}
	}
	return out
}

// relations reads every relation after FROM and JOIN outside function
// arguments, at any depth, into st.Sources and st.Aliases.
func (p *reader) relations(st *Statement) {
	ctes := p.ctes()
	seen := map[string]bool{}
	if st.Kind != None {
		seen[strings.ToLower(strings.Join(st.Target, "\x00"))] = true
	}
	add := func(parts []string) bool {
		if len(parts) == 0 || len(parts) > 3 || len(parts) == 1 && ctes[strings.ToLower(parts[0])] {
			return false // not a relation name (catalog.db.table at most), or a CTE
		}
		k := strings.ToLower(strings.Join(parts, "\x00"))
		if !seen[k] {
			seen[k] = true
			st.Sources = append(st.Sources, parts)
		}
		return true
	}
	var stack []bool // per open parenthesis: true when it holds a function's arguments
	inFunc := func() bool { return len(stack) > 0 && stack[len(stack)-1] }
	for k := 0; k < len(p.toks); k++ {
		switch {
		case p.punct(k, "("):
			fn := p.name(k-1) && !p.keyword(k-1, subqueryOpeners)
			stack = append(stack, fn)
			continue
		case p.punct(k, ")"):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		case !(p.word(k, "FROM") || p.word(k, "JOIN")) || inFunc():
			continue
		}
		list := p.word(k, "FROM")
		for j := k + 1; j < len(p.toks); {
			var obj []string
			if p.punct(j, "(") {
				// A derived table: its own FROM is read when the scan
				// reaches it.
				j = p.skipParens(j)
			} else if p.name(j) {
				parts, next := p.parts(j)
				if p.punct(next, "(") {
					break // a table function
				}
				if add(parts) {
					obj = parts
					st.Aliases[strings.ToLower(parts[len(parts)-1])] = parts
				}
				j = next
			} else {
				break
			}
			if p.word(j, "AS") {
				j++
			}
			if p.name(j) && !p.keyword(j, relationEnd) {
				if obj != nil {
					st.Aliases[strings.ToLower(Ident(p.toks[j]))] = obj
				}
				j++ // alias
			}
			if list && p.punct(j, ",") {
				j++
				continue
			}
			break
		}
	}
}

// selectList splits the outermost SELECT's items (after any WITH clause).
func (p *reader) selectList() []Item {
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
	var items []Item
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
func (p *reader) item(from, to int) Item {
	var it Item
	end := to
	switch {
	case end-from >= 3 && p.name(end-1) && p.word(end-2, "AS"):
		it.Name, end = Ident(p.toks[end-1]), end-2
	case end-from >= 2 && p.name(end-1) && !p.keyword(end-1, sqlWords) && p.expressionEnd(end-2):
		it.Name, end = Ident(p.toks[end-1]), end-1 // "expr alias"
	}
	for k := from; k < end; k++ {
		if !p.name(k) || p.punct(k-1, ".") || p.keyword(k, sqlWords) {
			continue
		}
		parts, next := p.parts(k)
		if p.punct(next, "(") {
			k = next - 1 // a function name
			continue
		}
		it.Refs = append(it.Refs, parts)
		if k == from && next == end {
			it.Bare = true
			if it.Name == "" {
				it.Name = parts[len(parts)-1]
			}
		}
		k = next - 1
	}
	return it
}

// expressionEnd reports a token that can end an expression, so that a name
// after it is an alias: a closing parenthesis, a name, a literal.
func (p *reader) expressionEnd(i int) bool {
	if i < 0 || i >= len(p.toks) {
		return false
	}
	t := p.toks[i]
	switch t.Kind {
	case guard.TokPunct:
		return t.Text == ")"
	case guard.TokWord:
		return !sqlWords[strings.ToUpper(t.Text)] || strings.EqualFold(t.Text, "END")
	}
	return true
}
