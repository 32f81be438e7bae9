package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Vector search and the search rewrite's entry point.
//
// ARRAY<FLOAT> columns are JSON arrays in MariaDB; array literals ([0.1,
// 0.2]) and CAST('[...]' AS ARRAY<FLOAT>) become JSON text. The distance
// functions are computed exactly from the data (Doris's approximate ones
// included: an ANN index changes speed and recall, not the metric):
//
//	l2_distance, l2_distance_approximate      sqrt(sum((a-b)^2))
//	inner_product, inner_product_approximate  sum(a*b)
//	cosine_distance                            1 - a.b / (|a| |b|)
//	l1_distance                                sum(|a-b|)
//
// With a constant query vector the column's elements are read once with
// JSON_TABLE and paired with the constants by ordinal (ELT), which keeps a
// 100,000-row ORDER BY distance LIMIT k under a second or two. A row whose
// array length differs from the query vector's gets NULL; a query vector
// whose length differs from the column's ANN index dim is refused as Doris
// refuses it. The *_approximate functions exist from Doris 4.0 on.

var distanceFuncs = map[string]string{
	"l2_distance": "l2", "l2_distance_approximate": "l2", "inner_product": "ip", "inner_product_approximate": "ip",
	"cosine_distance": "cosine", "l1_distance": "l1",
}

// searchRewrite applies the search translations (TOKENIZE, MATCH, distance
// functions, arrays) to a statement that goes upstream. Statements without
// any of them come back unchanged.
func (c *conn) searchRewrite(sql string) (string, *dorisErr) {
	return c.searchRewriteMode(sql, false)
}

// searchRewriteForPlan is searchRewrite for EXPLAIN: the plan of a MATCH on
// a column without an inverted index is made (Doris fails such a MATCH
// only when it runs).
func (c *conn) searchRewriteForPlan(sql string) (string, *dorisErr) {
	return c.searchRewriteMode(sql, true)
}

func (c *conn) searchRewriteMode(sql string, plan bool) (string, *dorisErr) {
	if !needsSearchRewrite(sql) {
		return sql, nil
	}
	matches := c.rewriteMatches
	if plan {
		matches = c.rewriteMatchesForPlan
	}
	var derr *dorisErr
	for _, pass := range []func(string) (string, *dorisErr){c.rewriteDistances, rewriteArrays, matches, c.rewriteTokenize} {
		if sql, derr = pass(sql); derr != nil {
			return "", derr
		}
	}
	return sql, nil
}

func needsSearchRewrite(sql string) bool {
	for _, t := range lex(sql) {
		switch {
		case t.kind == tkWord:
			if u := strings.ToUpper(t.text); matchOps[u] != "" || u == "TOKENIZE" || distanceFuncs[strings.ToLower(u)] != "" {
				return true
			}
		case t.isP("["):
			return true
		}
	}
	return false
}

// rewriteMatches replaces every MATCH predicate (Doris form: col MATCH_x
// 'text'; MariaDB's MATCH (...) AGAINST is left alone).
func (c *conn) rewriteMatches(sql string) (string, *dorisErr) { return c.rewriteMatchesIn(sql, false) }

func (c *conn) rewriteMatchesForPlan(sql string) (string, *dorisErr) {
	return c.rewriteMatchesIn(sql, true)
}

func (c *conn) rewriteMatchesIn(sql string, plan bool) (string, *dorisErr) {
	all := lex(sql)
	idx := sigIndexes(all)
	refs := tableRefs(sig(all))
	for k := 0; k < len(idx); k++ {
		t := all[idx[k]]
		if t.kind != tkWord || matchOps[strings.ToUpper(t.text)] == "" || (k+1 < len(idx) && all[idx[k+1]].isP("(")) {
			continue
		}
		next, derr := c.rewriteMatch(all, idx, k, refs, plan)
		if derr != nil {
			return "", derr
		}
		k = next
	}
	return join(all), nil
}

// rewriteTokenize evaluates TOKENIZE over two string literals.
func (c *conn) rewriteTokenize(sql string) (string, *dorisErr) {
	all := lex(sql)
	idx := sigIndexes(all)
	for k := 0; k+5 < len(idx); k++ {
		if !all[idx[k]].is("TOKENIZE") || !all[idx[k+1]].isP("(") {
			continue
		}
		a, comma, b, end := all[idx[k+2]], all[idx[k+3]], all[idx[k+4]], all[idx[k+5]]
		if a.kind != tkString || !comma.isP(",") || b.kind != tkString || !end.isP(")") {
			return "", newDorisErr(1105, "HY000", "the simulator evaluates TOKENIZE over two string literals only")
		}
		lit, derr := c.tokenizeSQL(a.str(), b.str())
		if derr != nil {
			return "", derr
		}
		alias := c.selectAlias(all, idx, k, k+5, "tokenize("+a.text+", "+b.text+")")
		all[idx[k]].text = lit + alias
		for j := idx[k] + 1; j <= idx[k+5]; j++ {
			all[j].text = ""
		}
		k += 5
	}
	return join(all), nil
}

// arrayLiteral reads [v, ...] starting at sig position k of ts and returns
// its JSON text and the position of its "]".
func arrayLiteral(ts []token, k int) (string, int, bool) {
	var b strings.Builder
	depth := 0
	for j := k; j < len(ts); j++ {
		t := ts[j]
		switch {
		case t.isP("["):
			depth++
			b.WriteByte('[')
		case t.isP("]"):
			depth--
			b.WriteByte(']')
			if depth == 0 {
				return b.String(), j, json.Valid([]byte(b.String()))
			}
		case t.isP(","):
			b.WriteByte(',')
		case t.isP("-") || t.isP("+"):
			if t.text == "-" {
				b.WriteByte('-')
			}
		case t.kind == tkNumber:
			f, err := strconv.ParseFloat(t.text, 64)
			if err != nil {
				return "", j, false
			}
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		case t.kind == tkString:
			s, _ := json.Marshal(t.str())
			b.Write(s)
		case t.is("NULL"):
			b.WriteString("null")
		default:
			return "", j, false
		}
	}
	return "", len(ts) - 1, false
}

// isArrayStart reports whether "[" at sig position k starts an array
// literal rather than a subscript (col[1], v['a'], f(x)[1]).
func isArrayStart(ts []token, k int) bool {
	if k == 0 {
		return true
	}
	switch p := ts[k-1]; {
	case p.isP(")") || p.isP("]") || p.kind == tkQuoted || p.kind == tkString:
		return false
	case p.kind == tkWord:
		return clauseWords[strings.ToUpper(p.text)] || arrayAfter[strings.ToUpper(p.text)]
	}
	return true
}

// arrayAfter are the words after which "[" starts a value.
var arrayAfter = map[string]bool{"SELECT": true, "VALUES": true, "AND": true, "OR": true, "NOT": true, "IN": true,
	"THEN": true, "ELSE": true, "WHEN": true, "DISTINCT": true, "IS": true, "LIKE": true, "BETWEEN": true, "BY": true,
	"RETURN": true, "AS": true, "CASE": true}

// rewriteArrays turns array literals into JSON text and CAST(x AS
// ARRAY<...>) into x.
func rewriteArrays(sql string) (string, *dorisErr) {
	all := lex(sql)
	idx := sigIndexes(all)
	ts := make([]token, len(idx))
	for k, i := range idx {
		ts[k] = all[i]
	}
	blank := func(from, to int) {
		for j := idx[from] + 1; j <= idx[to]; j++ {
			all[j].text = ""
		}
	}
	for k := 0; k < len(ts); k++ {
		switch {
		case ts[k].isP("[") && isArrayStart(ts, k):
			js, end, ok := arrayLiteral(ts, k)
			if !ok {
				return "", newDorisErr(1105, "HY000", "\nmismatched input '[' expecting {<EOF>, ';'}(line 1, pos 0)")
			}
			all[idx[k]].text = quoteString(js)
			blank(k, end)
			k = end
		case ts[k].is("CAST") && k+1 < len(ts) && ts[k+1].isP("("):
			end := matchParen(ts, k+1)
			if end < 0 {
				continue
			}
			for j := k + 2; j+1 < end; j++ {
				if ts[j].is("AS") && (ts[j+1].is("ARRAY") || ts[j+1].is("MAP") || ts[j+1].is("STRUCT")) {
					all[idx[k]].text = ""
					all[idx[k+1]].text = "("
					for x := j; x < end; x++ {
						all[idx[x]].text = ""
					}
					break
				}
			}
		}
	}
	return join(all), nil
}

// vecArg is one argument of a distance function: a constant vector or an
// expression that yields JSON array text.
type vecArg struct {
	consts []float64
	isLit  bool
	expr   string
	chain  []string // the column reference, when the expression is one
}

func readVecArg(ts []token) (vecArg, bool) {
	if len(ts) == 0 {
		return vecArg{}, false
	}
	lit := ts
	if ts[0].is("CAST") && len(ts) > 3 && ts[1].isP("(") && ts[len(ts)-1].isP(")") {
		for j := 2; j < len(ts); j++ {
			if ts[j].is("AS") {
				lit = ts[2:j]
				break
			}
		}
	}
	text := ""
	switch {
	case len(lit) > 0 && lit[0].isP("["):
		js, end, ok := arrayLiteral(lit, 0)
		if !ok || end != len(lit)-1 {
			return vecArg{}, false
		}
		text = js
	case len(lit) == 1 && lit[0].kind == tkString:
		text = lit[0].str()
	}
	if text != "" {
		var v []float64
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return vecArg{}, false
		}
		return vecArg{consts: v, isLit: true}, true
	}
	a := vecArg{expr: tokensText(ts)}
	for j := 0; j < len(ts); j += 2 {
		if !ts[j].isIdent() || (j+1 < len(ts) && !ts[j+1].isP(".")) {
			return a, true
		}
		a.chain = append(a.chain, ts[j].ident())
	}
	return a, true
}

// rewriteDistances replaces the distance function calls.
func (c *conn) rewriteDistances(sql string) (string, *dorisErr) {
	all := lex(sql)
	idx := sigIndexes(all)
	ts := make([]token, len(idx))
	for k, i := range idx {
		ts[k] = all[i]
	}
	var refs map[string]qname
	for k := 0; k+1 < len(ts); k++ {
		name := strings.ToLower(ts[k].text)
		metric := distanceFuncs[name]
		if ts[k].kind != tkWord || metric == "" || !ts[k+1].isP("(") || (k > 0 && ts[k-1].isP(".")) {
			continue
		}
		if strings.HasSuffix(name, "_approximate") && !c.s.profile().atLeast("4.0") {
			return "", newDorisErr(1105, "HY000", "Can not found function '"+name+"'")
		}
		end := matchParen(ts, k+1)
		if end < 0 {
			continue
		}
		args := splitTop(ts[k+2 : end])
		if len(args) != 2 {
			return "", newDorisErr(1105, "HY000", fmt.Sprintf("Can not found function '%s' which has %d arity. Candidate functions are: [%s(ARRAY<FLOAT>, ARRAY<FLOAT>)]",
				name, len(args), name))
		}
		a, okA := readVecArg(args[0])
		b, okB := readVecArg(args[1])
		if !okA || !okB {
			return "", newDorisErr(1105, "HY000", "(127.0.0.1)[INVALID_ARGUMENT]function "+name+" expects two arrays of numbers")
		}
		if a.isLit && !b.isLit {
			a, b = b, a
		}
		if refs == nil {
			refs = tableRefs(ts)
		}
		if b.isLit {
			if dim, ok := c.annDim(a.chain, refs); ok && dim != len(b.consts) {
				return "", newDorisErr(1105, "HY000", fmt.Sprintf("(127.0.0.1)[INVALID_ARGUMENT]function %s have different input element sizes of array: %d and %d",
					name, dim, len(b.consts)))
			}
		}
		rep, derr := distanceSQL(name, metric, a, b)
		if derr != nil {
			return "", derr
		}
		all[idx[k]].text = rep + c.selectAlias(all, idx, k, end, tokensText(ts[k:end+1]))
		for j := idx[k] + 1; j <= idx[end]; j++ {
			all[j].text = ""
		}
		k = end
	}
	return join(all), nil
}

// annDim returns the dim of the ANN index on the referenced column.
func (c *conn) annDim(chain []string, refs map[string]qname) (int, bool) {
	if len(chain) == 0 {
		return 0, false
	}
	column := chain[len(chain)-1]
	cur, _, _ := c.snapshot()
	for _, q := range refs {
		if len(chain) == 2 {
			if r, ok := refs[strings.ToLower(chain[0])]; !ok || r != q {
				continue
			}
		}
		db := q.db
		if db == "" {
			db = cur
		}
		if ix, ok := c.annIndexOn(db, q.table, column); ok {
			d, err := strconv.Atoi(ix.props["dim"])
			return d, err == nil
		}
	}
	return 0, false
}

// distanceSQL renders one distance for MariaDB.
func distanceSQL(name, metric string, a, b vecArg) (string, *dorisErr) {
	if a.isLit { // both constant
		if len(a.consts) != len(b.consts) {
			return "", newDorisErr(1105, "HY000", fmt.Sprintf("(127.0.0.1)[INVALID_ARGUMENT]function %s have different input element sizes of array: %d and %d",
				name, len(a.consts), len(b.consts)))
		}
		return strconv.FormatFloat(constDistance(metric, a.consts, b.consts), 'g', -1, 64), nil
	}
	const row = "JSON_TABLE(%s, '$[*]' COLUMNS(__sim_i FOR ORDINALITY, __sim_x DOUBLE PATH '$')) %s"
	x := "__sim_v.__sim_x"
	var y, from, guard string
	if b.isLit {
		if len(b.consts) == 0 {
			return "NULL", nil
		}
		parts := make([]string, len(b.consts))
		for k, f := range b.consts {
			parts[k] = strconv.FormatFloat(f, 'g', -1, 64)
		}
		y = "ELT(__sim_v.__sim_i, " + strings.Join(parts, ", ") + ")"
		from = fmt.Sprintf(row, a.expr, "__sim_v")
		guard = fmt.Sprintf("JSON_LENGTH(%s) = %d", a.expr, len(b.consts))
	} else {
		y = "__sim_w.__sim_x"
		from = fmt.Sprintf(row, a.expr, "__sim_v") + " JOIN " + fmt.Sprintf(row, b.expr, "__sim_w") + " ON __sim_v.__sim_i = __sim_w.__sim_i"
		guard = fmt.Sprintf("JSON_LENGTH(%s) = JSON_LENGTH(%s)", a.expr, b.expr)
	}
	var agg string
	switch metric {
	case "l2":
		agg = fmt.Sprintf("SQRT(SUM(POW(%s - %s, 2)))", x, y)
	case "ip":
		agg = fmt.Sprintf("SUM(%s * %s)", x, y)
	case "l1":
		agg = fmt.Sprintf("SUM(ABS(%s - %s))", x, y)
	default:
		agg = fmt.Sprintf("1 - SUM(%s * %s) / NULLIF(SQRT(SUM(%s * %s)) * SQRT(SUM(%s * %s)), 0)", x, y, x, x, y, y)
	}
	return fmt.Sprintf("IF(%s, (SELECT %s FROM %s), NULL)", guard, agg, from), nil
}

func constDistance(metric string, a, b []float64) float64 {
	var s, na, nb float64
	for k := range a {
		switch metric {
		case "l2":
			s += (a[k] - b[k]) * (a[k] - b[k])
		case "l1":
			s += math.Abs(a[k] - b[k])
		default:
			s += a[k] * b[k]
			na += a[k] * a[k]
			nb += b[k] * b[k]
		}
	}
	switch metric {
	case "l2":
		return math.Sqrt(s)
	case "cosine":
		if na == 0 || nb == 0 {
			return math.NaN()
		}
		return 1 - s/math.Sqrt(na*nb)
	}
	return s
}

// annPlanLines adds Doris 4.0's ANN SORT INFO and ANN SORT LIMIT to the
// scan of a top-n query ordered by an approximate distance over a column
// whose ANN index has the matching metric (l2 ascending, inner product
// descending).
func (c *conn) annPlanLines(q string, lines []string) []string {
	if !c.s.profile().atLeast("4.0") {
		return lines
	}
	ts := sig(lex(q))
	order := splitTop(clauseTokens(ts, "ORDER"))
	limit := clauseText(ts, "LIMIT")
	if len(order) == 0 || limit == "" {
		return lines
	}
	first := order[0]
	desc := len(first) > 0 && first[len(first)-1].is("DESC")
	if len(first) > 0 && (first[len(first)-1].is("DESC") || first[len(first)-1].is("ASC")) {
		first = first[:len(first)-1]
	}
	if len(first) == 1 && first[0].isIdent() { // an alias of a select item
		for _, item := range splitTop(selectTokens(ts)) {
			if n := len(item); n > 2 && item[n-2].is("AS") && strings.EqualFold(item[n-1].ident(), first[0].ident()) {
				first = item[:n-2]
			}
		}
	}
	if len(first) < 4 || !first[1].isP("(") {
		return lines
	}
	fn := strings.ToLower(first[0].text)
	wantMetric := map[string]string{"l2_distance_approximate": "l2_distance", "inner_product_approximate": "inner_product"}[fn]
	if wantMetric == "" || desc != (wantMetric == "inner_product") {
		return lines
	}
	args := splitTop(first[2 : len(first)-1])
	if len(args) != 2 {
		return lines
	}
	col, _ := readVecArg(args[0])
	refs := tableRefs(ts)
	if len(refs) == 0 || len(col.chain) == 0 {
		return lines
	}
	cur, _, _ := c.snapshot()
	for _, r := range refs {
		db := r.db
		if db == "" {
			db = cur
		}
		ix, ok := c.annIndexOn(db, r.table, col.chain[len(col.chain)-1])
		if !ok || ix.props["metric_type"] != wantMetric {
			continue
		}
		for k, l := range lines {
			if strings.Contains(l, "TABLE: "+db+"."+r.table+"(") {
				add := []string{"     ANN SORT INFO:", "          " + tokensText(first), "     ANN SORT LIMIT: " + limit}
				return append(lines[:k+1], append(add, lines[k+1:]...)...)
			}
		}
	}
	return lines
}

// clauseTokens returns the tokens of a top-level clause (without keyword).
func clauseTokens(ts []token, kw string) []token {
	text := clauseText(ts, kw)
	if text == "" {
		return nil
	}
	return sig(lex(text))
}

// selectTokens returns the tokens of the first select list.
func selectTokens(ts []token) []token {
	for i, t := range ts {
		if t.is("SELECT") {
			depth := 0
			for j := i + 1; j < len(ts); j++ {
				switch {
				case ts[j].isP("("):
					depth++
				case ts[j].isP(")"):
					depth--
				case depth == 0 && ts[j].is("FROM"):
					return ts[i+1 : j]
				}
			}
			return ts[i+1:]
		}
	}
	return nil
}
