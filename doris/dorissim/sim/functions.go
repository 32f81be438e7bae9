package sim

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// User-defined function metadata:
//
//	CREATE [GLOBAL] [AGGREGATE|TABLES] FUNCTION [IF NOT EXISTS] [db.]name(types)
//	    RETURNS type [INTERMEDIATE type] PROPERTIES ("k" = "v", ...)
//	CREATE [GLOBAL] ALIAS FUNCTION [db.]name(types) WITH PARAMETER(p, ...) AS expr
//	DROP [GLOBAL] FUNCTION [IF EXISTS] [db.]name(types)
//	SHOW [GLOBAL] [FULL] [BUILTIN] FUNCTIONS [IN|FROM db] [LIKE 'pattern']
//
// Privileges as in Doris: a GLOBAL function needs ADMIN; a database
// function needs CREATE on the database (DROP likewise); SHOW FUNCTIONS of a
// database needs a privilege on it; SHOW GLOBAL FUNCTIONS needs none.
// Nothing is loaded or run: the simulator keeps metadata only.

// udf is one stored function.
type udf struct {
	db, name, args, kind, binary, ret, inter string
	id                                       int64
	props                                    map[string]string
}

// signature is Function.signatureString(): name(T1, T2).
func (f udf) signature() string {
	return f.name + "(" + displayArgs(f.args) + ")"
}

// displayArgs prints stored argument types ("DECIMAL(12,2),INT") as Doris
// lists them: separated by ", ", types keeping their own commas.
func displayArgs(args string) string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, args[start:i])
				start = i + 1
			}
		}
	}
	if start < len(args) {
		parts = append(parts, args[start:])
	}
	return strings.Join(parts, ", ")
}

// isFunctionDDL reports CREATE/DROP [GLOBAL] [ALIAS|AGGREGATE|TABLES] FUNCTION at ts[i].
func (c *conn) isFunctionDDL(ts []token, i int) bool {
	for k := i; k < len(ts) && k < i+3; k++ {
		switch {
		case ts[k].is("FUNCTION"):
			return true
		case ts[k].is("GLOBAL"), ts[k].is("ALIAS"), ts[k].is("AGGREGATE"), ts[k].is("TABLES"):
			continue
		default:
			return false
		}
	}
	return false
}

// functionHead is the parsed part common to CREATE and DROP.
type functionHead struct {
	global, alias, aggregate, table, ifClause bool
	db, name, args                            string
	next                                      int // index after the closing parenthesis
}

func (c *conn) parseFunctionHead(ts []token) (functionHead, *dorisErr) {
	var h functionHead
	i := 1
	for i < len(ts) && !ts[i].is("FUNCTION") {
		switch {
		case ts[i].is("GLOBAL"):
			h.global = true
		case ts[i].is("ALIAS"):
			h.alias = true
		case ts[i].is("AGGREGATE"):
			h.aggregate = true
		case ts[i].is("TABLES"):
			h.table = true
		}
		i++
	}
	i++
	if i+1 < len(ts) && ts[i].is("IF") && (ts[i+1].is("NOT") || ts[i+1].is("EXISTS")) {
		h.ifClause = true
		i += 2
		if ts[i-1].is("NOT") {
			i++
		}
	}
	parts, next := parseChain(ts, i)
	switch len(parts) {
	case 1:
		h.name = parts[0]
	case 2:
		h.db, h.name = parts[0], parts[1]
	default:
		return h, syntaxAt(ts, i, syntaxExpectName)
	}
	if next >= len(ts) || !ts[next].isP("(") {
		return h, syntaxAt(ts, next, syntaxExpectName)
	}
	depth, start := 0, next+1
	var args []string
	end := -1
	for k := next; k < len(ts); k++ {
		switch {
		case ts[k].isP("(") || ts[k].isP("<"):
			depth++
		case ts[k].isP(")") || ts[k].isP(">"):
			depth--
		}
		if depth == 0 {
			end = k
			break
		}
		if depth == 1 && ts[k].isP(",") {
			args = append(args, typeText(ts[start:k]))
			start = k + 1
		}
	}
	if end < 0 {
		return h, syntaxAt(ts, len(ts), syntaxExpectName)
	}
	if last := typeText(ts[start:end]); last != "" {
		args = append(args, last)
	}
	h.args, h.next = strings.Join(args, ","), end+1
	if !h.global && h.db == "" {
		db, _, _ := c.snapshot()
		if db == "" {
			return h, &dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"}
		}
		h.db = db
	}
	if h.global {
		h.db = ""
	}
	return h, nil
}

// typeText renders type tokens the way Doris prints types: upper case,
// without spaces.
func typeText(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		if t.kind == tkWord {
			b.WriteString(strings.ToUpper(t.text))
		} else {
			b.WriteString(t.text)
		}
	}
	return b.String()
}

// What Nereids says it expected at a syntax error.
const (
	syntaxExpectName = "{'(', IDENTIFIER}"
	syntaxExpectEnd  = "{<EOF>, ';'}"
)

// syntaxAt is Nereids' syntax error at token i: what was found, what the
// grammar expected there (as Doris prints it, "{'(', IDENTIFIER}"), and
// the position on the line (tokens separated by one space, which is how
// the statements the simulator parses are written).
func syntaxAt(ts []token, i int, expecting string) *dorisErr {
	tok, pos := "<EOF>", 0
	for k := 0; k < i && k < len(ts); k++ {
		pos += len(ts[k].text) + 1
	}
	if i < len(ts) {
		tok = ts[i].text
	}
	return newDorisErr(1105, "HY000", fmt.Sprintf("\nmismatched input '%s' expecting %s(line 1, pos %d)", tok, expecting, pos))
}

// checkFunctionPriv applies Doris's privilege rule for function DDL.
func (c *conn) checkFunctionPriv(h functionHead) *dorisErr {
	if c.admin {
		return nil
	}
	if h.global {
		return adminConfigDenied()
	}
	r, err := c.upstreamConn().query("SELECT COUNT(*) FROM information_schema.SCHEMA_PRIVILEGES WHERE TABLE_SCHEMA = "+
		quoteString(h.db)+" AND PRIVILEGE_TYPE = 'CREATE'", 1)
	if err != nil || r == nil || len(r.rows) != 1 || deref(r.rows[0][0]) == "0" {
		return &dorisErr{1044, "42000", fmt.Sprintf("errCode = 2, detailMessage = Access denied for user '%s'@'%%' to database '%s'", c.user, h.db)}
	}
	return nil
}

func (c *conn) createFunction(sql string, ts []token) error {
	h, derr := c.parseFunctionHead(ts)
	if derr != nil {
		return c.send(derr)
	}
	if derr := c.checkFunctionPriv(h); derr != nil {
		return c.send(derr)
	}
	f := udf{db: h.db, name: strings.ToLower(h.name), args: h.args, props: map[string]string{}}
	i := h.next
	switch {
	case h.alias:
		// WITH PARAMETER(p, ...) AS expr
		if i+1 >= len(ts) || !ts[i].is("WITH") || !ts[i+1].is("PARAMETER") {
			return c.send(syntaxAt(ts, i, syntaxExpectName))
		}
		var params []string
		k := i + 2
		for k < len(ts) && !ts[k].isP(")") {
			if ts[k].isIdent() {
				params = append(params, ts[k].ident())
			}
			k++
		}
		if k+1 >= len(ts) || !ts[k+1].is("AS") {
			return c.send(syntaxAt(ts, k+1, syntaxExpectName))
		}
		f.kind, f.binary, f.ret = "ALIAS", "JAVA_UDF", "VARCHAR(*)"
		f.props["parameter"] = strings.Join(params, ",")
		f.props["origin_function"] = tailAfter(sql, k+2)
	default:
		if i >= len(ts) || !ts[i].is("RETURNS") {
			return c.send(syntaxAt(ts, i, syntaxExpectName))
		}
		k := i + 1
		start := k
		for k < len(ts) && !ts[k].is("INTERMEDIATE") && !ts[k].is("PROPERTIES") {
			k++
		}
		f.ret = typeText(ts[start:k])
		if k < len(ts) && ts[k].is("INTERMEDIATE") {
			start = k + 1
			for k < len(ts) && !ts[k].is("PROPERTIES") {
				k++
			}
			f.inter = typeText(ts[start:k])
		}
		if k >= len(ts) || !ts[k].is("PROPERTIES") {
			return c.send(newDorisErr(1105, "HY000", "No 'file' or 'object_file' in properties"))
		}
		props, ok := keyValueProperties(ts, k+1)
		if !ok {
			return c.send(syntaxAt(ts, k+1, syntaxExpectName))
		}
		for key, v := range props {
			f.props[strings.ToLower(key)] = v
		}
		f.binary = strings.ToUpper(f.props["type"])
		if f.binary == "" {
			f.binary = "NATIVE"
		}
		switch {
		case f.binary == "PYTHON_UDF" && !c.s.profile().versionAtLeast("4.1.3"):
			return c.send(newDorisErr(1105, "HY000", "Python UDF is not supported in this version"))
		case f.binary != "JAVA_UDF" && f.binary != "PYTHON_UDF":
			return c.send(newDorisErr(1105, "HY000", "Native UDF is no longer supported, please use JAVA_UDF"))
		case f.props["file"] == "" && f.props["object_file"] == "":
			return c.send(newDorisErr(1105, "HY000", "No 'file' or 'object_file' in properties"))
		case f.props["symbol"] == "":
			return c.send(newDorisErr(1105, "HY000", "No 'symbol' in properties"))
		}
		f.kind = "SCALAR"
		if h.aggregate {
			f.kind = "AGGREGATE"
		} else if h.table {
			f.kind = "UDTF"
		}
	}
	existing, err := c.s.loadFunctions(f.db)
	if err != nil {
		return c.send(metaFailed())
	}
	for _, e := range existing {
		if e.name == f.name && e.args == f.args {
			if h.ifClause {
				return c.sendOK(0, "")
			}
			return c.send(newDorisErr(1105, "HY000", "function already exists: "+f.signature()))
		}
	}
	f.id = time.Now().UnixMilli()*10 + int64(len(existing)%10)
	pj, _ := json.Marshal(f.props)
	inter := "NULL"
	if f.inter != "" {
		inter = quoteString(f.inter)
	}
	if err := c.s.adminExec(fmt.Sprintf("INSERT INTO `%s`.sim_functions VALUES (%s, %s, %s, %d, %s, %s, %s, %s, %s, NOW())",
		simSchema, quoteString(f.db), quoteString(f.name), quoteString(f.args), f.id, quoteString(f.kind),
		quoteString(f.binary), quoteString(f.ret), inter, quoteString(string(pj)))); err != nil {
		return c.send(metaFailed())
	}
	return c.sendOK(0, "")
}

func (c *conn) dropFunction(ts []token) error {
	h, derr := c.parseFunctionHead(ts)
	if derr != nil {
		return c.send(derr)
	}
	if derr := c.checkFunctionPriv(h); derr != nil {
		return c.send(derr)
	}
	existing, err := c.s.loadFunctions(h.db)
	if err != nil {
		return c.send(metaFailed())
	}
	name := strings.ToLower(h.name)
	for _, e := range existing {
		if e.name == name && e.args == h.args {
			if err := c.s.adminExec(fmt.Sprintf("DELETE FROM `%s`.sim_functions WHERE db = %s AND name = %s AND arg_types = %s",
				simSchema, quoteString(h.db), quoteString(name), quoteString(h.args))); err != nil {
				return c.send(metaFailed())
			}
			return c.sendOK(0, "")
		}
	}
	if h.ifClause {
		return c.sendOK(0, "")
	}
	return c.send(newDorisErr(1105, "HY000", "Unknown function: "+name+"("+displayArgs(h.args)+")"))
}

// keyValueProperties reads ( "k" = "v" [, ...] ) starting at ts[i].
func keyValueProperties(ts []token, i int) (map[string]string, bool) {
	if i >= len(ts) || !ts[i].isP("(") {
		return nil, false
	}
	out := map[string]string{}
	i++
	for i < len(ts) && !ts[i].isP(")") {
		if i+2 >= len(ts) || ts[i].kind != tkString || !ts[i+1].isP("=") || ts[i+2].kind != tkString {
			return nil, false
		}
		out[ts[i].str()] = ts[i+2].str()
		i += 3
		if i < len(ts) && ts[i].isP(",") {
			i++
		}
	}
	return out, i < len(ts)
}

// loadFunctions reads the functions of one database ("" for global ones).
func (s *Server) loadFunctions(db string) ([]udf, error) {
	r, err := s.adminQuery(fmt.Sprintf("SELECT name, arg_types, id, kind, binary_type, return_type, intermediate_type, properties "+
		"FROM `%s`.sim_functions WHERE db = %s", simSchema, quoteString(db)), 100000)
	if err != nil {
		return nil, err
	}
	var out []udf
	for _, row := range r.rows {
		f := udf{db: db, name: deref(row[0]), args: deref(row[1]), kind: deref(row[3]), binary: deref(row[4]),
			ret: deref(row[5]), inter: deref(row[6]), props: map[string]string{}}
		f.id, _ = strconv.ParseInt(deref(row[2]), 10, 64)
		_ = json.Unmarshal([]byte(deref(row[7])), &f.props)
		out = append(out, f)
	}
	return out, nil
}

// showFunctions: SHOW [GLOBAL] [FULL] [BUILTIN] FUNCTIONS [IN|FROM db] [LIKE 'p'].
func (c *conn) showFunctions(ts []token, i int, global bool) error {
	full, builtin := false, false
	for i < len(ts) && !ts[i].is("FUNCTIONS") {
		full = full || ts[i].is("FULL")
		builtin = builtin || ts[i].is("BUILTIN")
		i++
	}
	i++
	db, _, _ := c.snapshot()
	if i+1 < len(ts) && (ts[i].is("IN") || ts[i].is("FROM")) {
		parts, next := parseChain(ts, i+1)
		if len(parts) == 2 {
			if derr := c.checkCatalog(parts[0]); derr != nil {
				return c.send(derr)
			}
		}
		if len(parts) > 0 {
			db = parts[len(parts)-1]
		}
		i = next
	}
	pattern := ""
	if i+1 < len(ts) && ts[i].is("LIKE") {
		pattern = ts[i+1].str()
	}
	var fns []udf
	if !builtin {
		if !global {
			if db == "" {
				return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
			}
			r, sent, err := c.upQuery("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = "+quoteString(db), "", 1)
			if sent || err != nil {
				return err
			}
			if len(r.rows) != 1 || deref(r.rows[0][0]) == "0" {
				return c.send(&dorisErr{1044, "42000", fmt.Sprintf("errCode = 2, detailMessage = Access denied for user '%s'@'%%' to database '%s'", c.user, db)})
			}
		} else {
			db = ""
		}
		var err error
		if fns, err = c.s.loadFunctions(db); err != nil {
			return c.send(metaFailed())
		}
	}
	nereids := c.s.profile().atLeast("4.0")
	var rows [][]any
	seen := map[string]bool{}
	sort.Slice(fns, func(a, b int) bool { return fns[a].signature() < fns[b].signature() })
	for _, f := range fns {
		if pattern != "" && !likeMatch(pattern, f.name) {
			continue
		}
		if !full {
			if !seen[f.name] {
				rows = append(rows, []any{f.name})
				seen[f.name] = true
			}
			continue
		}
		rows = append(rows, f.fullRow(nereids))
	}
	if !full {
		sort.Slice(rows, func(a, b int) bool { return rows[a][0].(string) < rows[b][0].(string) })
		return c.sendResult([]string{"Function Name"}, rows)
	}
	return c.sendResult([]string{"Signature", "Return Type", "Function Type", "Intermediate Type", "Properties"}, rows)
}

// fullRow is one SHOW FULL FUNCTIONS row. Doris 4.x (ShowFunctionsCommand)
// types functions as KIND/BINARY_TYPE and lists properties as
// "KEY=value, ..."; 2.x and 3.x print Scalar/Aggregate/Alias and a JSON
// object of lower-case keys.
func (f udf) fullRow(nereids bool) []any {
	sum := md5.Sum([]byte(f.props["file"] + f.props["object_file"]))
	checksum := hex.EncodeToString(sum[:])
	if nereids {
		var kv []string
		add := func(k, v string) { kv = append(kv, k+"="+v) }
		add("ID", strconv.FormatInt(f.id, 10))
		if f.kind != "ALIAS" {
			add("CHECKSUM", checksum)
			if loc := f.props["file"] + f.props["object_file"]; loc != "" {
				add("FILE", loc)
			}
			nullable := "ALWAYS_NULLABLE"
			if f.props["always_nullable"] == "false" {
				nullable = "DEPEND_ON_ARGUMENT"
			}
			add("NULLABLE_MODE", nullable)
			if f.props["static_load"] == "true" {
				add("STATIC_LOAD", "true")
			}
			if v := f.props["runtime_version"]; v != "" {
				add("RUNTIME_VERSION", v)
			}
			add("SYMBOL", f.props["symbol"])
		} else {
			add("NULLABLE_MODE", "DEPEND_ON_ARGUMENT")
			add("ALIAS_OF", f.props["origin_function"])
			if p := f.props["parameter"]; p != "" {
				add("PARAMETERS", p)
			}
		}
		return []any{f.signature(), f.ret, f.kind + "/" + f.binary, f.inter, strings.Join(kv, ", ")}
	}
	kind := map[string]string{"SCALAR": "Scalar", "AGGREGATE": "Aggregate", "ALIAS": "Alias", "UDTF": "Scalar"}[f.kind]
	props := map[string]string{}
	if f.kind == "ALIAS" {
		props["parameter"], props["origin_function"] = f.props["parameter"], f.props["origin_function"]
	} else {
		props["symbol"], props["file"], props["md5"], props["type"] = f.props["symbol"], f.props["file"]+f.props["object_file"], checksum, f.binary
		if v, ok := f.props["always_nullable"]; ok {
			props["always_nullable"] = v
		}
	}
	pj, _ := json.Marshal(props)
	inter := "NULL"
	if f.inter != "" {
		inter = f.inter
	}
	return []any{f.signature(), f.ret, kind, inter, string(pj)}
}
