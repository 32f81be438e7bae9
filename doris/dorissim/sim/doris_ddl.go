package sim

import (
	"fmt"
	"strings"
	"time"
)

// Doris CREATE TABLE, translated for MariaDB.
//
// Doris DDL (DUPLICATE/UNIQUE KEY, DISTRIBUTED BY, PARTITION BY, PROPERTIES,
// INDEX ... USING INVERTED, and types MariaDB lacks: VARIANT, STRING,
// ARRAY<...>, LARGEINT, ...) becomes a MariaDB table with the same columns;
// what MariaDB cannot hold is kept as the table's Doris-only metadata
// (tableMeta) and shown again by SHOW [FULL] COLUMNS, DESC and SHOW CREATE
// TABLE. VARIANT, JSON and the nested types are stored as JSON text
// (LONGTEXT with a JSON_VALID check), so path access and VARIANT_TYPE work
// on the data itself.

// tableMeta is the Doris-only metadata of a table created through the
// simulator.
type tableMeta struct {
	catalog, db, table string // Doris names; catalog "" for internal tables
	format             string // iceberg, paimon, hive, jdbc, es, ... ("" internal)
	partCols           []string
	props              [][2]string
	// types are the Doris types of columns MariaDB shows otherwise
	// (variant, array<int>, json, largeint, ...), by lower-case name.
	types    map[string]string
	keyModel string // DUPLICATE, UNIQUE, AGGREGATE ("" for external tables)
	keyCols  []string
	// distribution as created: "HASH" (distCols) or "RANDOM", and the
	// bucket count as written ("AUTO" when BUCKETS was left out); "" when
	// the statement had no DISTRIBUTED BY.
	distKind, buckets string
	distCols          []string
	comment           string
	created           time.Time
}

// tableKey is the map key of a table: case-insensitive db and table.
func tableKey(udb, utbl string) string { return strings.ToLower(udb) + "\x00" + strings.ToLower(utbl) }

// table returns the metadata of upstream table udb.utbl, if any.
func (l *lakehouse) table(udb, utbl string) *tableMeta {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initLocked()
	return l.tables[tableKey(udb, utbl)]
}

func (l *lakehouse) setTable(udb, utbl string, m *tableMeta) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initLocked()
	if m == nil {
		delete(l.tables, tableKey(udb, utbl))
		return
	}
	l.tables[tableKey(udb, utbl)] = m
}

// columnType is the Doris type to show for column col of udb.utbl, or "".
func (l *lakehouse) columnType(udb, utbl, col string) string {
	if m := l.table(udb, utbl); m != nil {
		return m.types[strings.ToLower(col)]
	}
	return ""
}

// createTable is a parsed Doris CREATE TABLE.
type createTable struct {
	ifNotExists bool
	name        qname
	cols        []string // MariaDB column definitions
	colNames    []string
	colTypes    map[string]string // lower(name) -> MariaDB type (for key checks)
	elements    []string          // MariaDB-style table elements passed through
	columns     []ddlColumn       // Doris names and types, for index checks
	indexItems  [][]token         // INDEX clauses, after the word INDEX
	query       string            // the query of CREATE TABLE ... AS, as written
	meta        tableMeta
}

// parseCreateTable reads a Doris CREATE TABLE: columns and INDEX clauses
// (optional with AS), then the table clauses in any order, then an
// optional AS query. ok is false (and derr nil) for CREATE TABLE ...
// LIKE, which is forwarded.
func parseCreateTable(ts []token) (ct *createTable, ok bool, derr *dorisErr) {
	syntax := func(at int) *dorisErr {
		near := "<EOF>"
		if at < len(ts) {
			near = ts[at].text
		}
		return newDorisErr(1105, "HY000", fmt.Sprintf("\nmismatched input '%s' in CREATE TABLE", near))
	}
	ct = &createTable{colTypes: map[string]string{}, meta: tableMeta{types: map[string]string{}}}
	i := 1
	if i < len(ts) && ts[i].is("EXTERNAL") {
		i++
	}
	if i >= len(ts) || !ts[i].is("TABLE") {
		return nil, false, syntax(i)
	}
	i++
	if i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
		ct.ifNotExists, i = true, i+3
	}
	q, next, good := parseTableRef(ts, i)
	if !good || next != i+chainTokens(ts, i) {
		return nil, false, syntax(i)
	}
	ct.name = q
	i = next
	if i < len(ts) && ts[i].is("LIKE") {
		return nil, false, nil
	}
	if i < len(ts) && !ts[i].isP("(") {
		return ct, true, ct.parseClauses(ts, i, syntax)
	}
	if i >= len(ts) {
		return nil, false, syntax(i)
	}
	elems, end := splitElements(ts, i+1)
	if end >= len(ts) {
		return nil, false, syntax(end)
	}
	for _, e := range elems {
		if len(e) == 0 {
			return nil, false, syntax(i)
		}
		switch {
		case e[0].is("INDEX"):
			ct.indexItems = append(ct.indexItems, e[1:])
		case e[0].is("PRIMARY") || e[0].is("KEY") || e[0].is("UNIQUE") || e[0].is("CONSTRAINT") || e[0].is("FULLTEXT") ||
			e[0].is("FOREIGN") || e[0].is("CHECK"):
			ct.elements = append(ct.elements, join(spaced(e)))
		default:
			if derr := ct.addColumn(e); derr != nil {
				return nil, false, derr
			}
		}
	}
	return ct, true, ct.parseClauses(ts, end+1, syntax)
}

// parseClauses reads the table clauses from ts[i] on, and a final AS
// query.
func (ct *createTable) parseClauses(ts []token, i int, syntax func(int) *dorisErr) *dorisErr {
	for i < len(ts) {
		t := ts[i]
		switch {
		case t.is("ENGINE"):
			i++
			if i < len(ts) && ts[i].isP("=") {
				i++
			}
			i++
		case (t.is("DUPLICATE") || t.is("UNIQUE") || t.is("AGGREGATE")) && i+1 < len(ts) && ts[i+1].is("KEY"):
			cols, next, good := identList(ts, i+2)
			if !good {
				return syntax(i + 2)
			}
			ct.meta.keyModel, ct.meta.keyCols, i = strings.ToUpper(t.text), cols, next
		case t.is("COMMENT"):
			i++
			if i < len(ts) && ts[i].isP("=") {
				i++
			}
			if i >= len(ts) || ts[i].kind != tkString {
				return syntax(i)
			}
			ct.meta.comment = ts[i].str()
			i++
		case t.is("AUTO") && i+1 < len(ts) && ts[i+1].is("PARTITION"):
			i++
		case t.is("PARTITION") && i+1 < len(ts) && ts[i+1].is("BY"):
			i += 2
			if i < len(ts) && (ts[i].is("LIST") || ts[i].is("RANGE")) {
				i++
			}
			cols, next, good := identList(ts, i)
			if !good {
				return newDorisErr(1105, "HY000", "the simulator supports identity partition columns only: PARTITION BY LIST (col, ...) ()")
			}
			ct.meta.partCols, i = cols, next
			if i < len(ts) && ts[i].isP("(") { // partition definitions
				_, end := splitElements(ts, i+1)
				i = end + 1
			}
		case t.is("DISTRIBUTED") && i+1 < len(ts) && ts[i+1].is("BY"):
			i += 2
			if i < len(ts) && ts[i].is("HASH") {
				cols, next, good := identList(ts, i+1)
				if !good {
					return syntax(i + 1)
				}
				ct.meta.distKind, ct.meta.distCols, i = "HASH", cols, next
			} else if i < len(ts) && ts[i].is("RANDOM") {
				ct.meta.distKind = "RANDOM"
				i++
			} else {
				return syntax(i)
			}
			ct.meta.buckets = "AUTO" // Doris's default when BUCKETS is left out (2.1+)
			if i+1 < len(ts) && ts[i].is("BUCKETS") {
				ct.meta.buckets = strings.ToUpper(ts[i+1].text)
				i += 2
			}
		case t.is("PROPERTIES"):
			props, next, good := parseProperties(ts, i)
			if !good {
				return syntax(i)
			}
			ct.meta.props, i = props, next
		case t.is("AS") && i+1 < len(ts):
			ct.query = tokensText(ts[i+1:])
			return nil
		default:
			return syntax(i)
		}
	}
	return nil
}

// chainTokens counts the tokens of the dotted name at ts[i].
func chainTokens(ts []token, i int) int {
	n := 0
	for i+n < len(ts) && ts[i+n].isIdent() {
		n++
		if i+n < len(ts) && ts[i+n].isP(".") {
			n++
			continue
		}
		break
	}
	return n
}

// splitElements splits the parenthesised list that starts after ts[i-1]'s
// "(" at top-level commas (also outside <...>), returning the elements and
// the index of the closing ")".
func splitElements(ts []token, i int) ([][]token, int) {
	var out [][]token
	var cur []token
	depth, angle := 0, 0
	for ; i < len(ts); i++ {
		t := ts[i]
		switch {
		case t.isP("("):
			depth++
		case t.isP(")"):
			if depth == 0 {
				if len(cur) > 0 {
					out = append(out, cur)
				}
				return out, i
			}
			depth--
		case depth == 0 && t.kind == tkPunct && strings.Trim(t.text, "<>") == "" && t.text != "<>":
			angle += strings.Count(t.text, "<") - strings.Count(t.text, ">")
		case depth == 0 && angle == 0 && t.isP(","):
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	return out, i
}

// identList reads "( a, b, ... )" of plain identifiers at ts[i].
func identList(ts []token, i int) ([]string, int, bool) {
	if i >= len(ts) || !ts[i].isP("(") {
		return nil, i, false
	}
	elems, end := splitElements(ts, i+1)
	if end >= len(ts) {
		return nil, end, false
	}
	var out []string
	for _, e := range elems {
		if len(e) != 1 || !e[0].isIdent() {
			return nil, end, false
		}
		out = append(out, e[0].ident())
	}
	return out, end + 1, true
}

// aggregateWords follow a column type in AGGREGATE KEY tables.
var aggregateWords = map[string]bool{"SUM": true, "MAX": true, "MIN": true, "REPLACE": true, "REPLACE_IF_NOT_NULL": true,
	"HLL_UNION": true, "BITMAP_UNION": true, "QUANTILE_UNION": true, "GENERIC": true}

// addColumn translates one column definition.
func (ct *createTable) addColumn(e []token) *dorisErr {
	if len(e) < 2 || !e[0].isIdent() || e[1].kind != tkWord {
		return newDorisErr(1105, "HY000", "Invalid column definition: "+join(spaced(e)))
	}
	name := e[0].ident()
	// The type: a word, optional (args), optional <nested> (angle brackets
	// may come lexed as "<", ">", ">>", ...).
	i := 2
	if i < len(e) && e[i].isP("(") {
		for i < len(e) && !e[i].isP(")") {
			i++
		}
		i++
	}
	if i < len(e) && e[i].kind == tkPunct && strings.HasPrefix(e[i].text, "<") {
		angle := 0
		for ; i < len(e); i++ {
			if e[i].kind == tkPunct && strings.Trim(e[i].text, "<>") == "" {
				angle += strings.Count(e[i].text, "<") - strings.Count(e[i].text, ">")
				if angle <= 0 {
					i++
					break
				}
			}
		}
	}
	declared := strings.ToLower(typeText(e[1:i]))
	maria, shown := mariaType(declared)
	if maria == "" {
		return newDorisErr(1105, "HY000", "the simulator cannot store columns of type "+declared)
	}
	if shown != "" {
		ct.meta.types[strings.ToLower(name)] = shown
	}
	ct.colTypes[strings.ToLower(name)] = maria
	var attrs []token
	for _, t := range e[i:] {
		if len(attrs) == 0 && t.kind == tkWord && aggregateWords[strings.ToUpper(t.text)] {
			continue
		}
		attrs = append(attrs, t)
	}
	def := quoteIdent(name) + " " + maria
	if len(attrs) > 0 {
		def += " " + join(spaced(attrs))
	}
	if strings.HasPrefix(maria, "LONGTEXT COLLATE utf8mb4_bin") {
		def += " CHECK (JSON_VALID(" + quoteIdent(name) + "))"
	}
	ct.cols = append(ct.cols, def)
	ct.colNames = append(ct.colNames, name)
	col := ddlColumn{name: name, dorisType: declared}
	for k := 0; k+1 < len(attrs); k++ {
		col.notNull = col.notNull || attrs[k].is("NOT") && attrs[k+1].is("NULL")
	}
	ct.columns = append(ct.columns, col)
	return nil
}

// mariaType maps a Doris type to the MariaDB type that stores it and, when
// MariaDB would show it differently, the type Doris shows.
func mariaType(t string) (maria, shown string) {
	base, args := t, ""
	if i := strings.IndexAny(t, "(<"); i >= 0 {
		base, args = t[:i], t[i:]
	}
	const jsonText = "LONGTEXT COLLATE utf8mb4_bin"
	switch base {
	case "tinyint", "smallint", "int", "integer", "bigint", "float", "double", "date", "char":
		return strings.ToUpper(base) + args, ""
	case "boolean", "bool":
		return "TINYINT(1)", ""
	case "largeint":
		return "DECIMAL(39,0)", "largeint"
	case "decimal", "decimalv2", "decimalv3":
		return "DECIMAL" + clampDecimal(args), ""
	case "datev2":
		return "DATE", ""
	case "datetime", "datetimev2":
		return "DATETIME" + args, ""
	case "varchar":
		if args == "" || args == "(*)" {
			return "LONGTEXT", "varchar(65533)"
		}
		return "VARCHAR" + args, ""
	case "string", "text":
		return "LONGTEXT", ""
	case "json", "jsonb":
		return jsonText, "json"
	case "variant":
		return jsonText, t
	case "array", "map", "struct":
		return jsonText, t
	case "ipv4":
		return "INT UNSIGNED", "ipv4"
	case "ipv6":
		return "VARCHAR(39)", "ipv6"
	case "hll", "bitmap", "quantile_state", "agg_state":
		return "LONGBLOB", base
	case "varbinary", "binary":
		return "VARBINARY" + args, ""
	}
	return "", ""
}

// clampDecimal keeps a decimal's precision within MariaDB's 65.
func clampDecimal(args string) string {
	var p, s int
	if n, _ := fmt.Sscanf(args, "(%d,%d)", &p, &s); n == 2 && p > 65 {
		return fmt.Sprintf("(65,%d)", min(s, 30))
	}
	return args
}

// mariaDDL renders the MariaDB CREATE TABLE for table target (quoted).
func (ct *createTable) mariaDDL(target string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	if ct.ifNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(target)
	elems := append([]string{}, ct.cols...)
	elems = append(elems, ct.elements...)
	if k := ct.keyClause(); k != "" {
		elems = append(elems, k)
	}
	if len(elems) > 0 { // none: CREATE TABLE ... AS takes the query's columns
		b.WriteString(" (\n  ")
		b.WriteString(strings.Join(elems, ",\n  "))
		b.WriteString("\n)")
	}
	if ct.meta.comment != "" {
		b.WriteString(" COMMENT " + quoteString(ct.meta.comment))
	}
	return b.String()
}

// secondaryKey reports whether the MariaDB key of that name (and
// Non_unique column of SHOW INDEX) is one Doris would show as a secondary
// index: not the primary key, not a unique key, and not the index that
// stands for the Doris key columns (keyClause).
func secondaryKey(name, nonUnique string) bool {
	return name != "PRIMARY" && nonUnique != "0" && name != dorisKeyIndex
}

// dorisKeyIndex names the MariaDB index keyClause makes for a DUPLICATE or
// AGGREGATE key.
const dorisKeyIndex = "doris_key"

// keyClause is the MariaDB index standing for the Doris key columns, when
// every key column can be indexed.
func (ct *createTable) keyClause() string {
	if len(ct.meta.keyCols) == 0 || len(ct.elements) > 0 {
		return ""
	}
	var cols []string
	for _, k := range ct.meta.keyCols {
		t := ct.colTypes[strings.ToLower(k)]
		if t == "" || strings.Contains(t, "TEXT") || strings.Contains(t, "BLOB") {
			return ""
		}
		cols = append(cols, quoteIdent(k))
	}
	if ct.meta.keyModel == "UNIQUE" {
		return "UNIQUE KEY `doris_unique_key` (" + strings.Join(cols, ", ") + ")"
	}
	return "KEY " + quoteIdent(dorisKeyIndex) + " (" + strings.Join(cols, ", ") + ")"
}
