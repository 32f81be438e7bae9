package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Doris DDL for searchable tables: CREATE TABLE with INDEX clauses and
// Doris table clauses, DROP TABLE, CREATE INDEX, DROP INDEX and BUILD INDEX.
// The table itself is created upstream as the client (so grants decide),
// in MariaDB's dialect: ARRAY, MAP, STRUCT and VARIANT columns become JSON,
// STRING becomes LONGTEXT, the key, partition, distribution and property
// clauses are dropped (a UNIQUE KEY becomes the primary key). The index
// definitions go to the search index store once the table exists.

// searchDDL dispatches the statements above.
func (c *conn) searchDDL(sql string, ts []token) error {
	switch {
	case ts[0].is("CREATE") && ts[1].is("TABLE"):
		return c.createTable(sql, ts)
	case ts[0].is("DROP") && ts[1].is("TABLE"):
		return c.dropTable(sql, ts)
	case ts[0].is("CREATE") && ts[1].is("INDEX"):
		return c.createIndex(sql, ts)
	case ts[0].is("DROP") && ts[1].is("INDEX"):
		return c.dropIndex(ts)
	}
	return c.buildIndex(ts)
}

// tableName resolves [catalog.][db.]table at ts[i] against the session.
func (c *conn) tableName(ts []token, i int) (db, table string, next int, derr *dorisErr) {
	parts, next := parseChain(ts, i)
	cur, _, _ := c.snapshot()
	switch len(parts) {
	case 1:
		db, table = cur, parts[0]
	case 2:
		db, table = parts[0], parts[1]
	case 3:
		if derr := c.checkCatalog(parts[0]); derr != nil {
			return "", "", next, derr
		}
		db, table = parts[1], parts[2]
	default:
		return "", "", next, syntaxAt(ts, i, syntaxExpectEnd)
	}
	if db == "" {
		return "", "", next, &dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"}
	}
	return db, table, next, nil
}

// ddlColumn is one translated column.
type ddlColumn struct {
	name, dorisType string
	notNull         bool
}

func (c *conn) createTable(sql string, ts []token) error {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	i := 2
	ifNotExists := false
	if at(i).is("IF") && at(i+1).is("NOT") && at(i+2).is("EXISTS") {
		ifNotExists, i = true, i+3
	}
	db, table, i, derr := c.tableName(ts, i)
	if derr != nil {
		return c.send(derr)
	}
	var cols []ddlColumn
	var colSQL []string
	var indexes []searchIndex
	var pk []string
	comment, ctas := "", ""
	if at(i).isP("(") {
		end := matchParen(ts, i)
		if end < 0 {
			return c.send(syntaxAt(ts, len(ts), syntaxExpectEnd))
		}
		for _, item := range splitTop(ts[i+1 : end]) {
			if len(item) == 0 {
				continue
			}
			if item[0].is("INDEX") {
				ix, derr := c.parseIndexDef(item, 1)
				if derr != nil {
					return c.send(derr)
				}
				ix.db, ix.table = db, table
				indexes = append(indexes, ix)
				continue
			}
			col, text := translateColumn(item)
			cols = append(cols, col)
			colSQL = append(colSQL, text)
		}
		i = end + 1
	}
	for i < len(ts) {
		t := ts[i]
		switch {
		case t.is("ENGINE"):
			i += 2
			if at(i - 1).isP("=") {
				i++
			}
		case (t.is("DUPLICATE") || t.is("UNIQUE") || t.is("AGGREGATE") || t.is("PRIMARY")) && at(i+1).is("KEY") && at(i+2).isP("("):
			end := matchParen(ts, i+2)
			if end < 0 {
				return c.send(syntaxAt(ts, len(ts), syntaxExpectEnd))
			}
			if t.is("UNIQUE") || t.is("PRIMARY") {
				for _, k := range splitTop(ts[i+3 : end]) {
					if len(k) == 1 && k[0].isIdent() {
						pk = append(pk, quoteIdent(k[0].ident()))
					}
				}
			}
			i = end + 1
		case t.is("COMMENT") && at(i+1).kind == tkString:
			comment, i = at(i+1).str(), i+2
		case t.is("AS") && (at(i+1).is("SELECT") || at(i+1).is("WITH") || at(i+1).isP("(")):
			ctas, i = tokensText(ts[i+1:]), len(ts)
		case t.is("LIKE"):
			ctas, i = "LIKE "+tokensText(ts[i+1:]), len(ts)
		case t.isP("("):
			end := matchParen(ts, i)
			if end < 0 {
				return c.send(syntaxAt(ts, len(ts), syntaxExpectEnd))
			}
			i = end + 1
		default:
			// PARTITION BY, AUTO PARTITION BY, DISTRIBUTED BY HASH(...)
			// BUCKETS n|AUTO, ROLLUP, CLUSTER BY, PROPERTIES: Doris only.
			i++
		}
	}
	for k := range indexes {
		if derr := c.checkIndex(&indexes[k], cols); derr != nil {
			return c.send(derr)
		}
	}
	if ctas != "" && !strings.HasPrefix(ctas, "LIKE ") {
		// The query of CREATE TABLE ... AS is Doris SQL like any other.
		q, derr := c.translate(ctas)
		if derr != nil {
			return c.send(derr)
		}
		ctas = q
	}
	existed := c.tableExists(db, table)
	ddl := "CREATE TABLE "
	if ifNotExists {
		ddl += "IF NOT EXISTS "
	}
	ddl += qualified(db, table)
	switch {
	case strings.HasPrefix(ctas, "LIKE "):
		ddl += " " + ctas
	case len(colSQL) > 0:
		if len(pk) > 0 {
			colSQL = append(colSQL, "PRIMARY KEY ("+strings.Join(pk, ", ")+")")
		}
		ddl += " (" + strings.Join(colSQL, ", ") + ")"
		if comment != "" {
			ddl += " COMMENT=" + quoteString(comment)
		}
		if ctas != "" {
			ddl += " AS " + ctas
		}
	case ctas != "":
		ddl += " AS " + ctas
	default:
		return c.send(syntaxAt(ts, i, syntaxExpectEnd))
	}
	if _, sent, err := c.upQuery(ddl, sql, 1); sent || err != nil {
		return err
	}
	if !(ifNotExists && existed) {
		if err := c.s.saveIndexes(db, table, true, indexes); err != nil {
			return c.send(newDorisErr(1105, "HY000", "failed to record the table's indexes"))
		}
	}
	return c.sendOK(0, "")
}

// tableExists reports whether db.table exists upstream.
func (c *conn) tableExists(db, table string) bool {
	r, err := c.s.adminQuery(fmt.Sprintf("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
		quoteString(db), quoteString(table)), 1)
	return err == nil && r != nil && len(r.rows) > 0
}

// translateColumn turns a Doris column definition into MariaDB's.
func translateColumn(item []token) (ddlColumn, string) {
	col := ddlColumn{name: item[0].ident()}
	out := []string{quoteIdent(col.name)}
	j := 1
	// The type: a word, optional (args), optional <...>.
	typStart := j
	if j < len(item) {
		j++
	}
	if j < len(item) && item[j].isP("(") {
		if e := matchParen(item, j); e > 0 {
			j = e + 1
		}
	}
	if j < len(item) && (item[j].isP("<") || item[j].isP("<<")) {
		depth := 0
		for ; j < len(item); j++ {
			switch item[j].text {
			case "<":
				depth++
			case "<<":
				depth += 2
			case ">":
				depth--
			case ">>":
				depth -= 2
			}
			if depth <= 0 {
				j++
				break
			}
		}
	}
	col.dorisType = strings.ToLower(strings.ReplaceAll(tokensText(item[typStart:j]), " ", ""))
	out = append(out, mariaType(col.dorisType))
	for ; j < len(item); j++ {
		t := item[j]
		switch {
		case t.is("NOT") && j+1 < len(item) && item[j+1].is("NULL"):
			col.notNull = true
			out = append(out, "NOT NULL")
			j++
		case t.is("AUTO_INCREMENT"):
			out = append(out, "AUTO_INCREMENT")
			if j+1 < len(item) && item[j+1].isP("(") {
				if e := matchParen(item, j+1); e > 0 {
					j = e // AUTO_INCREMENT(start): MariaDB has no start here
				}
			}
		case t.is("SUM") || t.is("MAX") || t.is("MIN") || t.is("REPLACE") || t.is("REPLACE_IF_NOT_NULL") ||
			t.is("HLL_UNION") || t.is("BITMAP_UNION") || t.is("QUANTILE_UNION") || t.is("GENERIC"):
			// aggregation types of the aggregate key model
		default:
			out = append(out, t.text)
		}
	}
	return col, strings.Join(out, " ")
}

// mariaType maps a Doris column type (lower case, no spaces) to MariaDB.
func mariaType(t string) string {
	base, args := t, ""
	if k := strings.IndexAny(t, "(<"); k >= 0 {
		base, args = t[:k], t[k:]
	}
	switch base {
	case "array", "map", "struct", "variant", "json", "jsonb":
		return "JSON"
	case "string", "text":
		return "LONGTEXT"
	case "largeint":
		return "DECIMAL(39,0)"
	case "datev2", "datev1":
		return "DATE"
	case "datetimev2", "datetimev1":
		return "DATETIME" + args
	case "decimalv2", "decimalv3":
		return "DECIMAL" + args
	case "bitmap", "hll", "quantile_state", "agg_state":
		return "LONGBLOB"
	case "ipv4":
		return "VARCHAR(15)"
	case "ipv6":
		return "VARCHAR(39)"
	case "varchar":
		if n, err := strconv.Atoi(strings.Trim(args, "()")); args == "" || err == nil && n > 4000 {
			return "LONGTEXT"
		}
	}
	return strings.ToUpper(base) + args
}

// parseIndexDef reads "name (col) USING KIND [PROPERTIES(...)] [COMMENT
// '...']" starting at item[i].
func (c *conn) parseIndexDef(item []token, i int) (searchIndex, *dorisErr) {
	var ix searchIndex
	if i >= len(item) || !item[i].isIdent() {
		return ix, syntaxAt(item, i, syntaxExpectEnd)
	}
	ix.name = item[i].ident()
	i++
	if i >= len(item) || !item[i].isP("(") {
		return ix, syntaxAt(item, i, syntaxExpectEnd)
	}
	end := matchParen(item, i)
	if end != i+2 || !item[i+1].isIdent() {
		return ix, newDorisErr(1105, "HY000", "INVERTED index only supports one column: "+ix.name)
	}
	ix.column = item[i+1].ident()
	i = end + 1
	if i+1 >= len(item) || !item[i].is("USING") {
		return ix, syntaxAt(item, i, syntaxExpectEnd)
	}
	ix.kind = strings.ToUpper(item[i+1].text)
	allowed := "{'BITMAP', 'INVERTED', 'NGRAM_BF'}"
	if c.s.profile().atLeast("4.0") {
		allowed = "{'ANN', 'BITMAP', 'INVERTED', 'NGRAM_BF'}"
	}
	switch ix.kind {
	case "INVERTED", "BITMAP", "NGRAM_BF":
	case "ANN":
		if c.s.profile().atLeast("4.0") {
			break
		}
		fallthrough
	default:
		pfx := ""
		if c.s.profile().atLeast("3.0") {
			pfx = "\n"
		}
		return ix, newDorisErr(1105, "HY000", fmt.Sprintf("%smismatched input '%s' expecting %s(line 1, pos %d)", pfx, item[i+1].text, allowed, i+1))
	}
	i += 2
	for i < len(item) {
		switch {
		case item[i].is("PROPERTIES") && i+1 < len(item) && item[i+1].isP("("):
			end := matchParen(item, i+1)
			if end < 0 {
				return ix, syntaxAt(item, len(item), syntaxExpectEnd)
			}
			ix.props = map[string]string{}
			for _, kv := range splitTop(item[i+2 : end]) {
				if len(kv) != 3 || kv[0].kind != tkString || !kv[1].isP("=") || kv[2].kind != tkString {
					return ix, syntaxAt(item, i+2, syntaxExpectEnd)
				}
				ix.props[strings.ToLower(kv[0].str())] = kv[2].str()
			}
			i = end + 1
		case item[i].is("COMMENT") && i+1 < len(item) && item[i+1].kind == tkString:
			ix.comment = item[i+1].str()
			i += 2
		default:
			return ix, syntaxAt(item, i, syntaxExpectEnd)
		}
	}
	return ix, nil
}

// validParsers are the inverted index parsers of a release.
func (p profile) validParsers() []string {
	if p.atLeast("4.0") {
		return []string{"none", "english", "chinese", "unicode", "standard", "icu", "basic", "ik"}
	}
	return []string{"none", "english", "chinese", "unicode", "standard"}
}

// checkIndex validates an index against the table's columns, as Doris's
// IndexDef analysis does.
func (c *conn) checkIndex(ix *searchIndex, cols []ddlColumn) *dorisErr {
	var col *ddlColumn
	for k := range cols {
		if strings.EqualFold(cols[k].name, ix.column) {
			col = &cols[k]
		}
	}
	if col == nil {
		return newDorisErr(1105, "HY000", fmt.Sprintf("Column does not exist in table. invalid column: %s", ix.column))
	}
	ix.column = col.name
	return checkIndexColumn(c.s.profile(), ix, col.dorisType, col.notNull)
}

func checkIndexColumn(p profile, ix *searchIndex, dorisType string, notNull bool) *dorisErr {
	stringType := strings.HasPrefix(dorisType, "varchar") || strings.HasPrefix(dorisType, "char") ||
		dorisType == "string" || dorisType == "text" || strings.HasPrefix(dorisType, "variant") ||
		strings.HasPrefix(dorisType, "array<varchar") || strings.HasPrefix(dorisType, "array<string")
	switch ix.kind {
	case "INVERTED":
		parser, ok := ix.props["parser"]
		if !ok {
			return nil
		}
		valid := false
		for _, v := range p.validParsers() {
			valid = valid || v == strings.ToLower(parser)
		}
		if !valid || (!stringType && strings.ToLower(parser) != "none") {
			return newDorisErr(1105, "HY000", fmt.Sprintf("INVERTED index parser: %s is invalid for column: %s of type %s",
				parser, ix.column, strings.ToUpper(dorisType)))
		}
	case "ANN":
		if dorisType != "array<float>" {
			return newDorisErr(1105, "HY000", fmt.Sprintf("ANN index column must be array of float, but column %s is %s", ix.column, dorisType))
		}
		if !notNull {
			return newDorisErr(1105, "HY000", fmt.Sprintf("ANN index column %s must be NOT NULL", ix.column))
		}
		if t := ix.props["index_type"]; t != "hnsw" && t != "ivf" {
			return newDorisErr(1105, "HY000", "ANN index property index_type must be hnsw or ivf")
		}
		if m := ix.props["metric_type"]; m != "l2_distance" && m != "inner_product" {
			return newDorisErr(1105, "HY000", "ANN index property metric_type must be l2_distance or inner_product")
		}
		if d, err := strconv.Atoi(ix.props["dim"]); err != nil || d <= 0 {
			return newDorisErr(1105, "HY000", "ANN index property dim must be a positive integer")
		}
	}
	return nil
}

// dropTable forwards DROP TABLE and forgets the table's indexes.
func (c *conn) dropTable(sql string, ts []token) error {
	i := 2
	ifExists := false
	if i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		ifExists, i = true, i+2
	}
	db, table, next, derr := c.tableName(ts, i)
	if derr != nil {
		return c.send(derr)
	}
	if next < len(ts) && !ts[next].is("FORCE") {
		return c.send(syntaxAt(ts, next, syntaxExpectEnd))
	}
	q := "DROP TABLE "
	if ifExists {
		q += "IF EXISTS "
	}
	if _, sent, err := c.upQuery(q+qualified(db, table), sql, 1); sent || err != nil {
		return err
	}
	if err := c.s.saveIndexes(db, table, true, nil); err != nil {
		return c.send(newDorisErr(1105, "HY000", "failed to drop the table's indexes"))
	}
	return c.sendOK(0, "")
}

// matchParen returns the index of the ")" closing ts[i] ("("), or -1.
func matchParen(ts []token, i int) int {
	depth := 0
	for k := i; k < len(ts); k++ {
		switch {
		case ts[k].isP("("):
			depth++
		case ts[k].isP(")"):
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// splitTop splits tokens at commas outside parentheses, brackets and the
// angle brackets of complex types (ARRAY<...>, MAP<...>, STRUCT<...>).
func splitTop(ts []token) [][]token {
	var out [][]token
	depth, angles, from := 0, 0, 0
	for k, t := range ts {
		if t.kind != tkPunct {
			continue
		}
		switch t.text {
		case "(", "[":
			depth++
		case ")", "]":
			depth--
		case "<", "<<":
			if angles > 0 || k > 0 && (ts[k-1].is("ARRAY") || ts[k-1].is("MAP") || ts[k-1].is("STRUCT")) {
				angles += len(t.text)
			}
		case ">", ">>":
			if angles > 0 {
				angles -= len(t.text)
			}
		case ",":
			if depth == 0 && angles <= 0 {
				out = append(out, ts[from:k])
				from = k + 1
			}
		}
	}
	return append(out, ts[from:])
}
