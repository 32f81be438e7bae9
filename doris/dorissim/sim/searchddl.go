package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// The search side of Doris DDL: INDEX clauses (of CREATE TABLE, parsed in
// doris_ddl.go, and of CREATE INDEX) checked as Doris's IndexDef analysis
// checks them, and DROP TABLE, which forgets a table's indexes. Index
// definitions live in the search index store (searchstore.go).

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

// invertedDefaults applies the default Doris's catalog Index constructor
// gives an inverted index (apache/doris#37949, in 2.0.14, 2.1.5 and 3.0.1,
// so in every release the profiles cover): support_phrase "true" when a
// parser is given and support_phrase is not. (The same constructor also
// stores lower_case "true" when absent; the simulator does not show that
// one yet: see the fidelity ledger.)
func invertedDefaults(props map[string]string) {
	if _, ok := props["parser"]; ok {
		if _, ok := props["support_phrase"]; !ok {
			props["support_phrase"] = "true"
		}
	}
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
		invertedDefaults(ix.props)
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
	if err := c.s.forgetTableStats(db, table); err != nil { // metadata.go: statistics die with their table
		return c.send(newDorisErr(1105, "HY000", "failed to drop the table's statistics"))
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
