package sim

import (
	"fmt"
	"strconv"
	"strings"
)

const explainCol = "Explain String(Nereids Planner)"

// explain runs EXPLAIN upstream (so unknown tables and missing privileges
// fail exactly as they would) and renders a Doris-shaped plan from it.
func (c *conn) explain(sql string, ts []token) error {
	i := 1
	verbose := false
	for i < len(ts) {
		t := ts[i]
		if t.is("VERBOSE") {
			verbose = true
			i++
			continue
		}
		if t.is("GRAPH") || t.is("PLAN") || t.is("PARSED") || t.is("ANALYZED") || t.is("REWRITTEN") || t.is("LOGICAL") ||
			t.is("OPTIMIZED") || t.is("PHYSICAL") || t.is("SHAPE") || t.is("MEMO") || t.is("DISTRIBUTED") || (t.is("ALL") && i+1 < len(ts) && ts[i+1].is("PLAN")) {
			i++
			continue
		}
		break
	}
	inner := tailAfter(sql, i)
	if inner == "" {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {'(', 'SELECT', 'WITH'}(line 1, pos 7)"))
	}
	rw, derr := c.rewrite(inner)
	if derr != nil {
		return c.send(derr)
	}
	up, derr := c.searchRewriteForPlan(rw.sql) // searchvector.go
	if derr != nil {
		return c.send(derr)
	}
	r, sent, err := c.upQuery("EXPLAIN "+up, sql, 10000)
	if sent || err != nil {
		return err
	}
	lines := c.annPlanLines(rw.sql, c.planLines(rw.sql, r, verbose))
	rows := make([][]any, len(lines))
	for k, l := range lines {
		rows[k] = []any{l}
	}
	return c.sendResult([]string{explainCol}, rows)
}

type scanInfo struct {
	db, table, alias string
	rows             int64
	key              string
	// lines renders the scan node of an external table (nil: OLAP).
	lines func(id int, where, ind string) []string
}

// planLines builds the plan text.
func (c *conn) planLines(q string, r *result, verbose bool) []string {
	curDB, _, _ := c.snapshot()
	ts := sig(lex(q))
	refs := tableRefs(ts)
	get := func(row []*string, name string) string {
		if k := r.colIndex(name); k >= 0 && k < len(row) {
			return deref(row[k])
		}
		return ""
	}
	var scans []scanInfo
	for _, row := range r.rows {
		t := get(row, "table")
		if t == "" || strings.HasPrefix(t, "<") {
			continue
		}
		n, _ := strconv.ParseInt(get(row, "rows"), 10, 64)
		s := scanInfo{table: t, alias: t, rows: n, key: get(row, "key"), db: curDB}
		if ref, ok := refs[strings.ToLower(t)]; ok {
			s.table = ref.table
			if ref.db != "" {
				s.db = ref.db
			}
		}
		if strings.EqualFold(s.db, simSchema) {
			s.db, s.table = "information_schema", c.displayTable(s.db, s.table)
		}
		s.lines = c.extScanLines(s)
		scans = append(scans, s)
	}
	outputs := selectItems(ts)
	where := clauseText(ts, "WHERE")
	groupBy := clauseText(ts, "GROUP")
	orderBy := clauseText(ts, "ORDER")
	limit := clauseText(ts, "LIMIT")
	agg := groupBy != "" || hasAggregate(ts)

	var L []string
	add := func(f string, a ...any) { L = append(L, fmt.Sprintf(f, a...)) }
	add("PLAN FRAGMENT 0")
	add("  OUTPUT EXPRS:")
	for k, o := range outputs {
		add("    %s[#%d]", o, 100+k)
	}
	add("  PARTITION: UNPARTITIONED")
	add("")
	add("  HAS_COLO_PLAN_NODE: false")
	add("")
	add("  VRESULT SINK")
	add("     MYSQL_PROTOCAL")
	add("")
	if len(scans) == 0 {
		add("  0:VUNION(%d)", 30+len(outputs))
		add("     constant exprs: ")
		for _, o := range outputs {
			add("         %s", o)
		}
		return c.planFooter(L, scans, verbose)
	}
	node := 2 * (len(scans) + 2)
	exch := node
	add("  %d:VEXCHANGE", exch)
	add("     offset: 0")
	add("     distribute expr lists: ")
	add("")
	add("PLAN FRAGMENT 1")
	add("")
	add("  PARTITION: HASH_PARTITIONED: %s", firstKey(scans[0]))
	add("")
	add("  HAS_COLO_PLAN_NODE: false")
	add("")
	add("  STREAM DATA SINK")
	add("    EXCHANGE ID: %02d", exch)
	add("    UNPARTITIONED")
	add("")
	total := scans[0].rows
	node--
	if orderBy != "" && limit != "" {
		add("  %d:VTOP-N(%d)", node, 300+node)
		add("  |  order by: %s", orderBy)
		add("  |  TOPN OPT:1")
		add("  |  offset: 0")
		add("  |  limit: %s", limit)
		add("  |  distribute expr lists: ")
		add("  |  ")
		node--
	} else if orderBy != "" {
		add("  %d:VSORT(%d)", node, 300+node)
		add("  |  order by: %s", orderBy)
		add("  |  algorithm: full sort")
		add("  |  offset: 0")
		add("  |  distribute expr lists: ")
		add("  |  ")
		node--
	}
	if agg {
		add("  %d:VAGGREGATE (update finalize)(%d)", node, 300+node)
		add("  |  output: %s", strings.Join(outputs, ", "))
		if groupBy != "" {
			add("  |  group by: %s", groupBy)
		}
		add("  |  sortByGroupKey:false")
		add("  |  cardinality=%d", max(1, total/10))
		add("  |  distribute expr lists: ")
		add("  |  ")
		node--
	}
	// Joins: left-deep, broadcast of every further table.
	var builds []int
	for k := len(scans) - 1; k >= 1; k-- {
		total = max(total, scans[k].rows)
		add("  %d:VHASH JOIN(%d)", node, 300+node)
		add("  |  join op: INNER JOIN(BROADCAST)[]")
		add("  |  equal join conjunct: %s", joinCondition(ts))
		add("  |  cardinality=%d", total)
		add("  |  vec output tuple id: %d", k+1)
		add("  |  distribute expr lists: ")
		add("  |  ")
		add("  |----%d:VEXCHANGE", 100+k)
		add("  |       offset: 0")
		add("  |       distribute expr lists: ")
		add("  |    ")
		builds = append(builds, k)
		node--
	}
	// Put the predicates on the scan whose alias they mention.
	wherePos := 0
	for k, sc := range scans {
		if strings.Contains(where, sc.alias+".") {
			wherePos = k
			break
		}
	}
	scanWhere := func(k int) string {
		if k == wherePos {
			return where
		}
		return ""
	}
	L = append(L, scanLines(0, scans[0], scanWhere(0), "  ")...)
	for _, k := range builds {
		add("")
		add("PLAN FRAGMENT %d", k+1)
		add("")
		add("  PARTITION: HASH_PARTITIONED: %s", firstKey(scans[k]))
		add("")
		add("  HAS_COLO_PLAN_NODE: false")
		add("")
		add("  STREAM DATA SINK")
		add("    EXCHANGE ID: %d", 100+k)
		add("    UNPARTITIONED")
		add("")
		L = append(L, scanLines(k, scans[k], scanWhere(k), "  ")...)
	}
	return c.planFooter(L, scans, verbose)
}

func (c *conn) planFooter(L []string, scans []scanInfo, verbose bool) []string {
	if verbose {
		L = append(L, "", "Tuples:")
		for k, s := range scans {
			L = append(L, fmt.Sprintf("TupleDescriptor{id=%d, tbl=%s}", k, s.table))
			udb, utbl := c.upstreamTable(s.db, s.table)
			r, err := c.upstreamConn().query("SHOW COLUMNS FROM "+qualified(udb, utbl), 1000)
			if err != nil || r == nil {
				continue
			}
			for j, row := range r.rows {
				nullable := len(row) > 2 && deref(row[2]) == "YES"
				L = append(L, fmt.Sprintf("  SlotDescriptor{id=%d, col=%s, colUniqueId=%d, type=%s, nullable=%t, isAutoIncrement=false, subColPath=null}",
					k*100+j, deref(row[0]), j, dorisType(deref(row[1])), nullable))
			}
			L = append(L, "")
		}
	}
	L = append(L, "", "Statistics", " planed with unknown column statistics")
	return L
}

func scanLines(id int, s scanInfo, where, ind string) []string {
	if s.lines != nil {
		return s.lines(id, where, ind)
	}
	kind := fmt.Sprintf("%d:VOlapScanNode(%d)", id, 200+id)
	if strings.EqualFold(s.db, "information_schema") {
		kind = fmt.Sprintf("%d:VSCHEMA_SCAN", id)
	}
	out := []string{ind + kind, fmt.Sprintf("%s   TABLE: %s.%s(%s), PREAGGREGATION: ON", ind, s.db, s.table, s.alias)}
	if where != "" {
		out = append(out, fmt.Sprintf("%s   PREDICATES: %s", ind, where))
	}
	tablets := 10
	out = append(out,
		fmt.Sprintf("%s   partitions=1/1 (%s)", ind, s.table),
		fmt.Sprintf("%s   tablets=%d/%d, tabletList=%d,%d,%d ...", ind, tablets, tablets, 491198+id*100, 491200+id*100, 491202+id*100),
		fmt.Sprintf("%s   cardinality=%d, avgRowSize=0.0, numNodes=1", ind, s.rows),
		fmt.Sprintf("%s   pushAggOp=NONE", ind))
	if s.key != "" && s.key != "PRIMARY" {
		out = append(out, fmt.Sprintf("%s   inverted index: %s", ind, s.key))
	}
	return out
}

func firstKey(s scanInfo) string {
	return s.table + ".__key"
}

// tableRefs maps aliases and table names to (db, table) for FROM/JOIN items.
func tableRefs(ts []token) map[string]qname {
	out := map[string]qname{}
	for i := 0; i < len(ts); i++ {
		if !(ts[i].is("FROM") || ts[i].is("JOIN") || (ts[i].isP(",") && inFrom(ts, i))) {
			continue
		}
		parts, next := parseChain(ts, i+1)
		if len(parts) == 0 || len(parts) > 2 {
			continue
		}
		q := qname{table: parts[len(parts)-1]}
		if len(parts) == 2 {
			q.db = parts[0]
		}
		out[strings.ToLower(q.table)] = q
		if next < len(ts) && ts[next].is("AS") {
			next++
		}
		if next < len(ts) && ts[next].isIdent() && !clauseWords[strings.ToUpper(ts[next].text)] {
			out[strings.ToLower(ts[next].ident())] = q
		}
	}
	return out
}

// inFrom reports whether position i lies in a FROM clause at depth 0.
func inFrom(ts []token, i int) bool {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		switch {
		case ts[j].isP(")"):
			depth++
		case ts[j].isP("("):
			if depth == 0 {
				return false
			}
			depth--
		case depth == 0 && ts[j].is("FROM"):
			return true
		case depth == 0 && (ts[j].is("SELECT") || ts[j].is("WHERE")):
			return false
		}
	}
	return false
}

// selectItems returns the top-level select list of the first SELECT.
func selectItems(ts []token) []string {
	start := -1
	for i, t := range ts {
		if t.is("SELECT") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return []string{"1"}
	}
	for start < len(ts) && (ts[start].is("DISTINCT") || ts[start].is("ALL") || ts[start].is("SQL_NO_CACHE")) {
		start++
	}
	var items []string
	depth, from := 0, start
	for i := start; i <= len(ts); i++ {
		end := i == len(ts)
		if !end {
			switch {
			case ts[i].isP("("):
				depth++
			case ts[i].isP(")"):
				depth--
			}
		}
		if end || (depth == 0 && (ts[i].isP(",") || ts[i].is("FROM") || ts[i].is("LIMIT") || ts[i].is("UNION") || ts[i].is("INTO"))) {
			if i > from {
				items = append(items, tokensText(ts[from:i]))
			}
			if end || !ts[i].isP(",") {
				break
			}
			from = i + 1
		}
	}
	if len(items) == 0 {
		items = []string{"1"}
	}
	return items
}

var clauseEnds = map[string]bool{"WHERE": true, "GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true,
	"UNION": true, "WINDOW": true, "FOR": true, "INTO": true, "OFFSET": true}

// clauseText returns the text of a top-level clause (without its keyword).
func clauseText(ts []token, kw string) string {
	depth := 0
	for i := 0; i < len(ts); i++ {
		switch {
		case ts[i].isP("("):
			depth++
		case ts[i].isP(")"):
			depth--
		case depth == 0 && ts[i].is(kw):
			j := i + 1
			if (kw == "GROUP" || kw == "ORDER") && j < len(ts) && ts[j].is("BY") {
				j++
			}
			k, d := j, 0
			for ; k < len(ts); k++ {
				if ts[k].isP("(") {
					d++
				} else if ts[k].isP(")") {
					if d == 0 {
						break
					}
					d--
				} else if d == 0 && clauseEnds[strings.ToUpper(ts[k].text)] && ts[k].kind == tkWord {
					break
				}
			}
			return tokensText(ts[j:k])
		}
	}
	return ""
}

func hasAggregate(ts []token) bool {
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].kind == tkWord && ts[i+1].isP("(") {
			switch strings.ToUpper(ts[i].text) {
			case "COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "NDV", "APPROX_COUNT_DISTINCT":
				return true
			}
		}
	}
	return false
}

func joinCondition(ts []token) string {
	on := clauseAfter(ts, "ON")
	if on == "" {
		return "(cross join)"
	}
	return "(" + on + ")"
}

func clauseAfter(ts []token, kw string) string {
	for i := range ts {
		if ts[i].is(kw) {
			k := i + 1
			for k < len(ts) && !(ts[k].kind == tkWord && (clauseEnds[strings.ToUpper(ts[k].text)] || ts[k].is("JOIN") ||
				ts[k].is("LEFT") || ts[k].is("INNER") || ts[k].is("RIGHT"))) {
				k++
			}
			return tokensText(ts[i+1 : k])
		}
	}
	return ""
}

// tokensText joins significant tokens with single spaces (no space around dots and before commas).
func tokensText(ts []token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 && !t.isP(".") && !ts[i-1].isP(".") && !t.isP(",") && !t.isP(")") && !ts[i-1].isP("(") &&
			!(t.isP("(") && ts[i-1].kind == tkWord) {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return b.String()
}
