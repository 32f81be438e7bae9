package sim

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// execute runs one client statement: Doris-only statements are answered
// here, the rest is translated and forwarded.
func (c *conn) execute(sql string) error {
	ts := sig(lex(sql))
	if len(ts) == 0 {
		return c.sendErr(1065, "42000", "Query was empty")
	}
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	if handled, err := c.lakeExecute(sql, ts); handled {
		return err
	}
	if handled, err := c.pipelineStatement(sql, ts); handled {
		return err
	}
	switch {
	case ts[0].is("SHOW"):
		return c.show(sql, ts)
	case ts[0].is("EXPLAIN"):
		return c.explain(sql, ts)
	case (ts[0].is("DESC") || ts[0].is("DESCRIBE")) && (at(1).is("SELECT") || at(1).is("WITH") || at(1).isP("(")):
		return c.explain(sql, ts)
	case ts[0].is("DESC") || ts[0].is("DESCRIBE"):
		return c.describe(sql, ts)
	case ts[0].is("SET"):
		return c.set(sql, ts)
	case ts[0].is("USE"):
		return c.use(ts)
	case ts[0].is("SWITCH"):
		return c.switchCatalog(ts)
	case ts[0].is("KILL"):
		return c.killStatement(sql, ts)
	case (ts[0].is("CREATE") || ts[0].is("ALTER") || ts[0].is("DROP")) && at(1).is("WORKLOAD") && at(2).is("GROUP"):
		return c.workloadGroupDDL(ts) // workload.go
	case ts[0].is("DROP") && at(1).is("TABLE"):
		return c.dropTable(sql, ts) // searchddl.go
	case (ts[0].is("CREATE") || ts[0].is("DROP")) && at(1).is("INDEX"), ts[0].is("BUILD") && at(1).is("INDEX"):
		return c.indexDDL(sql, ts) // searchindexddl.go
	}
	if ok, err := c.governanceStatement(sql, ts); ok {
		return err
	}
	return c.forward(sql)
}

// forward translates and relays a statement.
func (c *conn) forward(sql string) error {
	q, variantType, derr := c.translate(sql)
	if derr != nil {
		return c.send(derr)
	}
	if variantType {
		return c.relayVariantTypes(q, sql)
	}
	return c.relay(q, sql)
}

// translate turns a Doris statement into the upstream statement that
// stands in for it: names and functions (rewrite.go), then MATCH,
// TOKENIZE, distances and array literals (searchvector.go), then a
// query_timeout hint as MariaDB's statement time limit. variantType
// reports VARIANT_TYPE() values the relay must finish
// (relayVariantTypes).
func (c *conn) translate(sql string) (q string, variantType bool, derr *dorisErr) {
	rw, derr := c.rewrite(sql)
	if derr != nil {
		return "", false, derr
	}
	q, derr = c.searchRewrite(rw.sql)
	if derr != nil {
		return "", false, derr
	}
	if rw.timeout > 0 {
		q = fmt.Sprintf("SET STATEMENT max_statement_time=%d FOR %s", rw.timeout, q)
	}
	return q, rw.variantType, nil
}

// tailAfter returns the text of sql after its first n significant tokens.
func tailAfter(sql string, n int) string {
	all := lex(sql)
	seen := 0
	for i, t := range all {
		if t.kind == tkSpace || t.kind == tkComment {
			continue
		}
		if seen == n {
			return strings.TrimRight(strings.TrimSpace(join(all[i:])), ";")
		}
		seen++
	}
	return ""
}

func adminDenied() *dorisErr {
	return &dorisErr{1227, "42000", "errCode = 2, detailMessage = Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation"}
}

// qname is a possibly catalog-qualified object name.
type qname struct{ catalog, db, table string }

// parseChain reads a dotted name at ts[i]; returns the parts and the next index.
func parseChain(ts []token, i int) ([]string, int) {
	var parts []string
	for i < len(ts) && ts[i].isIdent() {
		parts = append(parts, ts[i].ident())
		if i+1 < len(ts) && ts[i+1].isP(".") {
			i += 2
			continue
		}
		i++
		break
	}
	return parts, i
}

// checkCatalog validates a catalog name used by a statement.
func (c *conn) checkCatalog(cat string) *dorisErr {
	if cat == "" {
		_, cur, _ := c.snapshot()
		cat = cur
	}
	if strings.EqualFold(cat, "internal") {
		return nil
	}
	return c.catalogError(cat)
}

// upstreamTable maps a Doris table to the upstream relation that backs it.
func (c *conn) upstreamTable(db, tbl string) (string, string) {
	p := c.s.profile()
	if strings.EqualFold(db, "information_schema") && p.infoTables()[strings.ToLower(tbl)] {
		return simSchema, p.prefix() + strings.ToLower(tbl)
	}
	if strings.EqualFold(db, "__internal_schema") && strings.EqualFold(tbl, "audit_log") && p.auditTarget() != "" {
		return simSchema, p.prefix() + "audit_log"
	}
	return db, tbl
}

func qualified(db, tbl string) string {
	if db == "" {
		return quoteIdent(tbl)
	}
	return quoteIdent(db) + "." + quoteIdent(tbl)
}

// ---------------------------------------------------------------- SHOW

func (c *conn) show(sql string, ts []token) error {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	if handled, err := c.lakeShow(sql, ts); handled {
		return err
	}
	p := c.s.profile()
	now := time.Now()
	i := 1
	full := false
	if at(i).is("FULL") {
		full = true
		i++
	}
	w := at(i)
	if handled, err := c.showPipeline(ts[i:]); handled {
		return err
	}
	if ok, err := c.showGovernance(sql, ts, i, full); ok {
		return err
	}
	switch {
	case w.is("FRONTENDS") && !full:
		if !p.atLeast("3.0") && !c.admin {
			return c.send(adminDenied())
		}
		return c.sendResult(frontendsCols, p.frontendRows(c.s.topology(), now))
	case w.is("BACKENDS") && !full:
		if !c.admin {
			return c.send(adminDenied())
		}
		return c.sendResult(p.backendsCols(), c.s.backendRows(p, now))
	case w.is("PROC"):
		if !c.admin {
			return c.send(adminDenied())
		}
		path := at(i + 1).str()
		cols, rows, derr := c.proc(path)
		if derr != nil {
			return c.send(derr)
		}
		return c.sendResult(cols, rows)
	case w.is("DATABASES") || w.is("SCHEMAS"):
		return c.showDatabases(sql, ts, i+1)
	case w.is("TABLES"):
		return c.showTables(sql, ts, i+1, full)
	case w.is("COLUMNS") || w.is("FIELDS"):
		return c.showColumns(sql, ts, i+1, full)
	case w.is("INDEX") || w.is("INDEXES") || w.is("KEYS"):
		return c.showIndex(sql, ts, i+1)
	case w.is("WORKLOAD") && at(i+1).is("GROUPS"):
		like := ""
		if at(i + 2).is("LIKE") {
			like = at(i + 3).str()
		}
		cols, rows := c.s.wgs.show(p, c.user, c.admin, c.s.act.byGroup(), like) // workload.go
		return c.sendResult(cols, rows)
	case w.is("COMPUTE") && at(i+1).is("GROUPS"):
		return c.showComputeGroups(sql) // cloud.go
	case w.is("PROCESSLIST"):
		return c.showProcesslist(full)
	case w.is("VARIABLES") || ((w.is("GLOBAL") || w.is("SESSION") || w.is("LOCAL")) && at(i+1).is("VARIABLES")):
		return c.showVariables(sql, ts, i)
	case w.is("TABLE") && at(i+1).is("STATUS"):
		return c.showTableStatus(sql, ts, i+2)
	case w.is("GRANTS") || (w.is("ALL") && at(i+1).is("GRANTS")):
		return c.showGrants(sql, ts)
	case w.is("CREATE") && at(i+1).is("TABLE"):
		return c.showCreateTable(sql, ts, i+2)
	case w.is("PARTITIONS") && (at(i+1).is("FROM") || at(i+1).is("IN")):
		return c.showPartitionsOf(ts, i+2)
	case w.is("BUILD") && at(i+1).is("INDEX"):
		return c.showBuildIndex(ts, i+2) // searchstore.go
	case w.is("INVERTED") && at(i+1).is("INDEX") && at(i+2).is("ANALYZER"):
		return c.showAnalyzers(sql) // searchtext.go
	}
	if cols := cannedEmpty(ts[i:]); cols != nil {
		return c.sendResult(cols, nil)
	}
	return c.forward(sql)
}

func (c *conn) proc(path string) ([]string, [][]any, *dorisErr) {
	p := c.s.profile()
	now := time.Now()
	clean := "/" + strings.Trim(path, "/")
	switch clean {
	case "/":
		var rows [][]any
		for _, n := range procRoot {
			rows = append(rows, []any{n})
		}
		return []string{"name"}, rows, nil
	case "/frontends":
		return frontendsCols, p.frontendRows(c.s.topology(), now), nil
	case "/backends":
		return p.backendsCols(), c.s.backendRows(p, now), nil
	case "/current_queries", "/current_query_stmts":
		return currentQueriesCols, c.s.currentQueries(c), nil
	case "/catalogs":
		return p.catalogsCols(), c.catalogRows(), nil
	case "/statistic":
		r, _, err := c.upQuery("SELECT TABLE_SCHEMA, COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA NOT IN "+
			"('information_schema','mysql','performance_schema','sys','"+simSchema+"') GROUP BY TABLE_SCHEMA ORDER BY TABLE_SCHEMA", "", 10000)
		if err != nil || r == nil {
			return nil, nil, newDorisErr(1105, "HY000", "failed to read statistic")
		}
		cols := []string{"DbId", "DbName", "TableNum", "PartitionNum", "IndexNum", "TabletNum", "ReplicaNum"}
		var rows [][]any
		var tt, tb int
		for _, row := range r.rows {
			n, _ := strconv.Atoi(deref(row[1]))
			tt += n
			tb += n * 10
			rows = append(rows, []any{dbID(deref(row[0])), deref(row[0]), itoa(n), itoa(n), itoa(n), itoa(n * 10), itoa(n * 10)})
		}
		rows = append(rows, []any{"Total", itoa(len(r.rows)), itoa(tt), itoa(tt), itoa(tt), itoa(tb), itoa(tb)})
		return cols, rows, nil
	}
	return nil, nil, newDorisErr(1105, "HY000", "Invalid proc path: "+path)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// dbID is a stable fake Doris database id.
func dbID(name string) string {
	h := md5.Sum([]byte(name))
	return strconv.Itoa(10000 + int(h[0])<<8 + int(h[1]))
}

// showDatabases: SHOW DATABASES [FROM catalog] [LIKE ... | WHERE ...].
func (c *conn) showDatabases(sql string, ts []token, i int) error {
	cat := ""
	if i < len(ts) && (ts[i].is("FROM") || ts[i].is("IN")) && i+1 < len(ts) {
		cat = ts[i+1].ident()
		i += 2
	}
	if derr := c.checkCatalog(cat); derr != nil {
		return c.send(derr)
	}
	r, sent, err := c.upQuery("SHOW DATABASES "+tailAfter(sql, i), sql, 100000)
	if sent || err != nil {
		return err
	}
	hidden := map[string]bool{simSchema: true, "performance_schema": true, "sys": true}
	var rows [][]any
	for _, row := range r.rows {
		n := deref(row[0])
		if hidden[strings.ToLower(n)] || isBackingDatabase(n) {
			continue
		}
		rows = append(rows, []any{n})
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a][0].(string) < rows[b][0].(string) })
	return c.sendResult([]string{"Database"}, rows)
}

// showTables: SHOW [FULL] TABLES [FROM|IN [catalog.]db] [LIKE | WHERE].
func (c *conn) showTables(sql string, ts []token, i int, full bool) error {
	p := c.s.profile()
	db, _, _ := c.snapshot()
	cat := ""
	if i < len(ts) && (ts[i].is("FROM") || ts[i].is("IN")) {
		parts, next := parseChain(ts, i+1)
		switch len(parts) {
		case 1:
			db = parts[0]
		case 2:
			cat, db = parts[0], parts[1]
		default:
			return c.send(newDorisErr(1105, "HY000", "Invalid database name"))
		}
		i = next
	}
	if derr := c.checkCatalog(cat); derr != nil {
		return c.send(derr)
	}
	if db == "" {
		return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	q := "SHOW "
	if full {
		q += "FULL "
	}
	q += "TABLES FROM " + quoteIdent(db) + " " + tailAfter(sql, i)
	r, sent, err := c.upQuery(q, sql, 100000)
	if sent || err != nil {
		return err
	}
	cols := []string{"Tables_in_" + db}
	if full {
		cols = append(cols, "Table_type")
		if p.atLeast("3.0") {
			cols = append(cols, "Storage_format", "Inverted_index_storage_format")
		}
	}
	rows := make([][]any, 0, len(r.rows))
	for _, row := range r.rows {
		out := []any{deref(row[0])}
		if full {
			typ := "BASE TABLE"
			if len(row) > 1 {
				typ = deref(row[1])
			}
			out = append(out, typ)
			if p.atLeast("3.0") {
				if typ == "VIEW" || typ == "SYSTEM VIEW" {
					out = append(out, "NONE", "NONE")
				} else {
					out = append(out, "V2", "V2")
				}
			}
		}
		rows = append(rows, out)
	}
	return c.sendResult(cols, rows)
}

// parseTableRef reads "[FROM|IN] [cat.][db.]tbl [FROM|IN db]" at ts[i].
func parseTableRef(ts []token, i int) (qname, int, bool) {
	var q qname
	if i < len(ts) && (ts[i].is("FROM") || ts[i].is("IN")) {
		i++
	}
	parts, next := parseChain(ts, i)
	switch len(parts) {
	case 1:
		q.table = parts[0]
	case 2:
		q.db, q.table = parts[0], parts[1]
	case 3:
		q.catalog, q.db, q.table = parts[0], parts[1], parts[2]
	default:
		return q, i, false
	}
	i = next
	if i+1 < len(ts) && (ts[i].is("FROM") || ts[i].is("IN")) && ts[i+1].isIdent() {
		q.db = ts[i+1].ident()
		i += 2
	}
	return q, i, true
}

func (c *conn) showColumns(sql string, ts []token, i int, full bool) error {
	q, next, ok := parseTableRef(ts, i)
	if !ok {
		return c.forward(sql)
	}
	if derr := c.checkCatalog(q.catalog); derr != nil {
		return c.send(derr)
	}
	udb, utbl := c.upstreamTable(q.db, q.table)
	stmt := "SHOW "
	if full {
		stmt += "FULL "
	}
	stmt += "COLUMNS FROM " + qualified(udb, utbl) + " " + tailAfter(sql, next)
	return c.columnsResult(stmt, sql, full, udb, utbl)
}

func (c *conn) describe(sql string, ts []token) error {
	q, next, ok := parseTableRef(ts, 1)
	if !ok || next < len(ts) {
		return c.forward(sql)
	}
	if derr := c.checkCatalog(q.catalog); derr != nil {
		return c.send(derr)
	}
	udb, utbl := c.upstreamTable(q.db, q.table)
	return c.columnsResult("SHOW COLUMNS FROM "+qualified(udb, utbl), sql, false, udb, utbl)
}

// columnsResult reshapes MariaDB's SHOW [FULL] COLUMNS of udb.utbl into
// Doris's (types MariaDB cannot hold, such as VARIANT, as declared).
func (c *conn) columnsResult(stmt, orig string, full bool, udb, utbl string) error {
	r, sent, err := c.columnsQuery(stmt, orig)
	if sent || err != nil {
		return err
	}
	cols := []string{"Field", "Type", "Null", "Key", "Default", "Extra"}
	if full {
		cols = []string{"Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment"}
	}
	get := func(row []*string, name string) *string {
		if k := r.colIndex(name); k >= 0 && k < len(row) {
			return row[k]
		}
		return nil
	}
	var rows [][]any
	for _, row := range r.rows {
		key := "NO"
		if k := deref(get(row, "Key")); k == "PRI" || k == "UNI" {
			key = "YES"
		}
		extra := ""
		if strings.Contains(strings.ToLower(deref(get(row, "Extra"))), "auto_increment") {
			extra = "AUTO_INCREMENT"
		}
		var def any
		if d := get(row, "Default"); d != nil {
			def = strings.Trim(*d, "'")
		}
		typ := dorisType(deref(get(row, "Type")))
		if t := c.s.lake.columnType(stripInternalPrefix(udb), utbl, deref(get(row, "Field"))); t != "" {
			typ = t
		}
		if full {
			rows = append(rows, []any{deref(get(row, "Field")), typ, "", deref(get(row, "Null")), key, def, extra, "",
				deref(get(row, "Comment"))})
		} else {
			rows = append(rows, []any{deref(get(row, "Field")), typ, deref(get(row, "Null")), key, def, extra})
		}
	}
	return c.sendResult(cols, rows)
}

// dorisType renders a MariaDB column type the way Doris shows it.
func dorisType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	unsigned := strings.Contains(t, "unsigned")
	t = strings.TrimSpace(strings.NewReplacer(" unsigned", "", " zerofill", "").Replace(t))
	base, args := t, ""
	if i := strings.IndexByte(t, '('); i >= 0 {
		base, args = t[:i], t[i:]
	}
	switch base {
	case "tinyint":
		if args == "(1)" && !unsigned {
			return "boolean"
		}
		if unsigned {
			return "smallint"
		}
		return "tinyint"
	case "smallint":
		if unsigned {
			return "int"
		}
		return "smallint"
	case "mediumint":
		return "int"
	case "int", "integer":
		if unsigned {
			return "bigint"
		}
		return "int"
	case "bigint":
		if unsigned {
			return "largeint"
		}
		return "bigint"
	case "decimal", "numeric":
		if args == "" {
			args = "(10,0)"
		}
		return "decimalv3" + args
	case "float":
		return "float"
	case "double", "real":
		return "double"
	case "date":
		return "datev2"
	case "datetime", "timestamp":
		if args == "" {
			args = "(0)"
		}
		return "datetimev2" + args
	case "char", "varchar":
		return base + args
	case "tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob":
		return "text"
	case "binary", "varbinary":
		return "varbinary" + args
	case "enum", "set":
		return "varchar(65533)"
	case "json":
		return "json"
	}
	return t
}

func (c *conn) showIndex(sql string, ts []token, i int) error {
	q, next, ok := parseTableRef(ts, i)
	if !ok {
		return c.forward(sql)
	}
	if derr := c.checkCatalog(q.catalog); derr != nil {
		return c.send(derr)
	}
	udb, utbl := c.upstreamTable(q.db, q.table)
	r, sent, err := c.upQuery("SHOW INDEX FROM "+qualified(udb, utbl)+" "+tailAfter(sql, next), sql, 100000)
	if sent || err != nil {
		return err
	}
	cols := []string{"Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation", "Cardinality",
		"Sub_part", "Packed", "Null", "Index_type", "Comment", "Properties"}
	get := func(row []*string, name string) string {
		if k := r.colIndex(name); k >= 0 && k < len(row) {
			return deref(row[k])
		}
		return ""
	}
	var rows [][]any
	for _, row := range r.rows {
		name := get(row, "Key_name")
		if !secondaryKey(name, get(row, "Non_unique")) {
			continue // key columns, not secondary indexes, in Doris
		}
		typ, props := "INVERTED", ""
		if get(row, "Index_type") == "FULLTEXT" {
			props = `("parser" = "english", "lower_case" = "true", "support_phrase" = "true")`
		}
		rows = append(rows, []any{q.table, "", name, "", get(row, "Column_name"), "", "", "", "", "", typ,
			get(row, "Index_comment"), props})
	}
	db := q.db
	if db == "" {
		db, _, _ = c.snapshot()
	}
	rows = append(rows, showIndexRows(q.table, c.storedIndexes(db, q.table))...) // searchstore.go
	return c.sendResult(cols, rows)
}

func (c *conn) showTableStatus(sql string, ts []token, i int) error {
	db := ""
	if i+1 < len(ts) && (ts[i].is("FROM") || ts[i].is("IN")) {
		parts, next := parseChain(ts, i+1)
		switch len(parts) {
		case 1:
			db = parts[0]
		case 2:
			if derr := c.checkCatalog(parts[0]); derr != nil {
				return c.send(derr)
			}
			db = parts[1]
		}
		i = next
	}
	q := "SHOW TABLE STATUS"
	if db != "" {
		q += " FROM " + quoteIdent(db)
	}
	r, sent, err := c.upQuery(q+" "+tailAfter(sql, i), sql, 100000)
	if sent || err != nil {
		return err
	}
	cols := []string{"Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length",
		"Max_data_length", "Index_length", "Data_free", "Auto_increment", "Create_time", "Update_time", "Check_time",
		"Collation", "Checksum", "Create_options", "Comment"}
	var rows [][]any
	for _, row := range r.rows {
		out := make([]any, len(cols))
		for k, name := range cols {
			if j := r.colIndex(name); j >= 0 && row[j] != nil {
				out[k] = *row[j]
			}
		}
		if out[1] != nil && out[1] != "" {
			out[1] = "Doris"
		}
		rows = append(rows, out)
	}
	return c.sendResult(cols, rows)
}

// humanSize formats bytes like Doris ("27.396 KB", "0.000").
func humanSize(n int64) string {
	if n <= 0 {
		return "0.000"
	}
	units := []string{"B", "KB", "MB", "GB", "TB"}
	f := float64(n)
	u := 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	return fmt.Sprintf("%.3f %s", f, units[u])
}

// showVariables forwards and reshapes SHOW VARIABLES (Doris 2.1+ has 4 columns).
func (c *conn) showVariables(sql string, ts []token, i int) error {
	scope := ""
	if !ts[i].is("VARIABLES") {
		scope = strings.ToUpper(ts[i].text) + " "
		i++
	}
	i++ // VARIABLES
	pattern, where := "", false
	if i < len(ts) && ts[i].is("LIKE") && i+1 < len(ts) {
		pattern = ts[i+1].str()
	} else if i < len(ts) && ts[i].is("WHERE") {
		where = true
	}
	r, sent, err := c.upQuery("SHOW "+scope+"VARIABLES "+tailAfter(sql, i), sql, 100000)
	if sent || err != nil {
		return err
	}
	type kv struct{ name, val, def string }
	seen := map[string]bool{}
	var vars []kv
	for _, row := range r.rows {
		name, val := deref(row[0]), deref(row[1])
		if v, ok := c.variable(strings.ToLower(name)); ok {
			val = v
		}
		seen[strings.ToLower(name)] = true
		vars = append(vars, kv{name, val, val})
	}
	if !where {
		for name := range dorisVariables {
			if seen[name] || (pattern != "" && !likeMatch(pattern, name)) {
				continue
			}
			v, _ := c.variable(name)
			vars = append(vars, kv{name, v, dorisVariables[name]})
			seen[name] = true
		}
		for _, name := range []string{"version_comment", "version"} {
			if !seen[name] && (pattern == "" || likeMatch(pattern, name)) {
				v, _ := c.variable(name)
				vars = append(vars, kv{name, v, v})
			}
		}
	}
	sort.Slice(vars, func(a, b int) bool { return vars[a].name < vars[b].name })
	cols := []string{"Variable_name", "Value", "Default_Value", "Changed"}
	rows := make([][]any, 0, len(vars))
	for _, v := range vars {
		changed := "0"
		if v.val != v.def {
			changed = "1"
		}
		rows = append(rows, []any{v.name, v.val, v.def, changed})
	}
	return c.sendResult(cols, rows)
}

// showProcesslist reshapes the upstream process list into Doris columns.
func (c *conn) showProcesslist(full bool) error {
	r, sent, err := c.upQuery("SHOW FULL PROCESSLIST", "", 100000)
	if sent || err != nil {
		return err
	}
	p := c.s.profile()
	get := func(row []*string, name string) string {
		if k := r.colIndex(name); k >= 0 && k < len(row) {
			return deref(row[k])
		}
		return ""
	}
	byThread := map[uint32]*conn{}
	c.s.mu.Lock()
	for k, v := range c.s.byThread {
		byThread[k] = v
	}
	c.s.mu.Unlock()
	feHost, _ := hostPort(c.s.addr)
	me := uint32(0)
	if up := c.upstreamConn(); up != nil {
		me = up.threadID
	}
	var rows [][]any
	for _, row := range r.rows {
		cmd := get(row, "Command")
		if cmd == "Daemon" || cmd == "Binlog Dump" {
			continue
		}
		id64, _ := strconv.ParseUint(get(row, "Id"), 10, 32)
		id := uint32(id64)
		host, login, catalog, qid, trace, info := get(row, "Host"), "", "internal", "", "", get(row, "Info")
		state := "EOF"
		if cmd == "Query" || cmd == "Killed" {
			state = "OK"
		}
		if oc := byThread[id]; oc != nil {
			oc.mu.Lock()
			host, login, catalog, trace = oc.remote, fmtTime(oc.login), oc.catalog, oc.traceID
			if oc.executing {
				qid, info = oc.curQueryID, oc.curSQL
			} else {
				// The FE connection is idle once its statement has been
				// answered, even while MariaDB's thread is still winding
				// down a killed or timed-out statement: report what Doris
				// would, not the upstream's lag.
				if cmd == "Query" && id != me {
					cmd = "Sleep"
				}
				qid, info, state = oc.lastQueryID, oc.lastSQL, oc.lastState
				if oc.lastSQL == "" {
					state = "OK"
				}
			}
			oc.mu.Unlock()
			if id == me {
				info = "show processlist"
				if full {
					info = "show full processlist"
				}
			}
		}
		if !full && len(info) > 100 {
			info = info[:100]
		}
		cur := "No"
		if id == me {
			cur = "Yes"
		}
		var db any = get(row, "db")
		if k := r.colIndex("db"); k >= 0 && row[k] == nil {
			db = ""
		}
		out := []any{cur, get(row, "Id"), get(row, "User"), host, login, catalog, db, cmd, get(row, "Time"), state, qid}
		if p.atLeast("4.0") {
			out = append(out, trace, info, feHost, c.s.cloudCluster())
		} else {
			out = append(out, info)
		}
		rows = append(rows, out)
	}
	return c.sendResult(p.processlistCols(), rows)
}

// ---------------------------------------------------------------- SET / USE / SWITCH / KILL

func truthy(v string) bool {
	switch strings.ToLower(strings.Trim(v, `'"`)) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// set handles SET: Doris variables are kept here, query_timeout becomes
// max_statement_time upstream, the rest is forwarded.
func (c *conn) set(sql string, ts []token) error {
	if len(ts) < 2 {
		return c.forward(sql)
	}
	w := ts[1]
	if w.is("NAMES") || w.is("CHARACTER") || w.is("CHARSET") || w.is("PASSWORD") || w.is("TRANSACTION") ||
		w.is("STATEMENT") || w.is("ROLE") || w.is("DEFAULT") || w.is("PROPERTY") || w.is("LDAP_ADMIN_PASSWORD") {
		if w.is("PROPERTY") || w.is("LDAP_ADMIN_PASSWORD") {
			return c.sendOK(0, "")
		}
		return c.forward(sql)
	}
	// split assignments at top-level commas
	var items [][]token
	depth, start := 0, 1
	for k := 1; k <= len(ts); k++ {
		if k == len(ts) || (depth == 0 && ts[k].isP(",")) {
			items = append(items, ts[start:k])
			start = k + 1
			continue
		}
		if ts[k].isP("(") {
			depth++
		} else if ts[k].isP(")") {
			depth--
		}
	}
	type native struct {
		name, value string
		global      bool
	}
	var natives []native
	var upstream []string
	var newTimeout = -1
	for _, it := range items {
		if len(it) < 3 {
			return c.forward(sql)
		}
		global := false
		k := 0
		if it[0].is("GLOBAL") || it[0].is("SESSION") || it[0].is("LOCAL") {
			global = it[0].is("GLOBAL")
			k++
		}
		var name string
		if it[k].kind == tkVar {
			name = strings.ToLower(it[k].text)
			if !strings.HasPrefix(name, "@@") {
				upstream = append(upstream, join(spaced(it)))
				continue
			}
			name = strings.TrimPrefix(name, "@@")
			if strings.HasPrefix(name, "global.") {
				global = true
			}
			for _, pre := range []string{"global.", "session.", "local."} {
				name = strings.TrimPrefix(name, pre)
			}
		} else if it[k].isIdent() {
			name = strings.ToLower(it[k].ident())
		} else {
			return c.forward(sql)
		}
		k++
		if k >= len(it) || !(it[k].isP("=") || it[k].isP(":=")) {
			return c.forward(sql)
		}
		valToks := it[k+1:]
		val := join(spaced(valToks))
		if len(valToks) == 1 && valToks[0].kind == tkString {
			val = valToks[0].str()
		}
		switch name {
		case "query_timeout", "max_execution_time", "insert_timeout":
			n, err := strconv.Atoi(strings.Trim(val, `'"`))
			if err != nil || n < 0 {
				return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Incorrect argument type to variable '%s'", name)))
			}
			if name == "max_execution_time" {
				n = (n + 999) / 1000
			}
			if name != "insert_timeout" {
				newTimeout = n
			}
			natives = append(natives, native{name, strconv.Itoa(n), global})
		default:
			if _, ok := dorisVariables[name]; ok {
				natives = append(natives, native{name, val, global})
			} else {
				upstream = append(upstream, join(spaced(it)))
			}
		}
	}
	for _, n := range natives {
		if n.global && !c.admin {
			return c.send(adminDenied())
		}
		if !n.global && globalOnly(n.name) {
			return c.send(newDorisErr(1229, "HY000", fmt.Sprintf("Variable '%s' is a GLOBAL variable and should be set with SET GLOBAL", n.name)))
		}
	}
	if newTimeout >= 0 {
		upstream = append(upstream, fmt.Sprintf("max_statement_time = %d", newTimeout))
	}
	if len(upstream) > 0 {
		q := "SET " + strings.Join(upstream, ", ")
		if len(natives) == 0 {
			return c.forward(q)
		}
		r, sent, err := c.upQuery(q, sql, 1)
		if sent || err != nil {
			return err
		}
		_ = r
	}
	for _, n := range natives {
		if n.global {
			if globalOnly(n.name) {
				n.value = strings.ToLower(strings.Trim(n.value, `'"`))
				if err := c.s.persistGlobal(n.name, n.value); err != nil { // metadata.go
					return c.send(newDorisErr(1105, "HY000", "failed to persist global variable: "+err.Error()))
				}
			}
			c.s.setGlobal(n.name, n.value) // globals.go
		}
		switch n.name {
		case "query_timeout":
			c.queryTimeout = atoiOr(n.value, c.queryTimeout)
		case "max_execution_time":
			c.queryTimeout = atoiOr(n.value, c.queryTimeout)
		case "enable_profile":
			c.profileOn = truthy(n.value)
		case "session_context":
			v := strings.TrimSpace(n.value)
			trace := ""
			if strings.HasPrefix(strings.ToLower(v), "trace_id:") {
				trace = strings.TrimSpace(v[len("trace_id:"):])
			}
			c.mu.Lock()
			c.traceID = trace
			c.mu.Unlock()
		default:
			c.vars[n.name] = n.value
		}
	}
	return c.sendOK(0, "")
}

// spaced puts single spaces between tokens.
func spaced(ts []token) []token {
	var out []token
	for i, t := range ts {
		if i > 0 {
			out = append(out, token{tkSpace, " "})
		}
		out = append(out, t)
	}
	return out
}

func atoiOr(s string, d int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return d
}

// use handles USE [catalog.]db.
func (c *conn) use(ts []token) error {
	parts, next := parseChain(ts, 1)
	if len(parts) == 0 || next < len(ts) || len(parts) > 2 {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {IDENTIFIER}(line 1, pos 3)"))
	}
	if len(parts) == 2 {
		if derr := c.checkCatalog(parts[0]); derr != nil {
			return c.send(derr)
		}
		c.mu.Lock()
		c.catalog = "internal"
		c.mu.Unlock()
	}
	return c.useDatabase(parts[len(parts)-1])
}

func (c *conn) useDatabase(db string) error {
	if cat := c.currentExt(); cat != nil {
		return c.useExternal(cat, db)
	}
	db = stripInternalPrefix(db)
	r, sent, err := c.upQuery("USE "+quoteIdent(db), "USE "+db, 1)
	if sent || err != nil {
		return err
	}
	_ = r
	c.mu.Lock()
	c.db = db
	c.mu.Unlock()
	return c.sendOK(0, "")
}

func (c *conn) switchCatalog(ts []token) error {
	if len(ts) != 2 || !ts[1].isIdent() {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {IDENTIFIER}(line 1, pos 6)"))
	}
	name := ts[1].ident()
	switch strings.ToLower(name) {
	case "internal", "hive":
		c.mu.Lock()
		c.catalog = strings.ToLower(name)
		c.mu.Unlock()
		return c.sendOK(0, "")
	}
	return c.send(c.catalogError(name))
}

// killStatement: KILL [QUERY|CONNECTION] <thread id | "query id">.
func (c *conn) killStatement(sql string, ts []token) error {
	i := 1
	query := false
	if i < len(ts) && (ts[i].is("QUERY") || ts[i].is("CONNECTION")) {
		query = ts[i].is("QUERY")
		i++
	}
	if i != len(ts)-1 {
		return c.forward(sql)
	}
	arg := ts[i]
	var thread uint32
	switch arg.kind {
	case tkNumber:
		n, err := strconv.ParseUint(arg.text, 10, 32)
		if err != nil {
			return c.forward(sql)
		}
		thread = uint32(n)
	case tkString:
		qid := arg.str()
		for _, oc := range c.s.connections() {
			oc.mu.Lock()
			if oc.executing && oc.curQueryID == qid && oc.up != nil {
				thread = oc.up.threadID
			}
			oc.mu.Unlock()
		}
		if thread == 0 {
			return c.send(&dorisErr{1097, "HY000", "errCode = 2, detailMessage = Unknown query id: " + qid})
		}
		query = true
	default:
		return c.forward(sql)
	}
	if query {
		c.s.mu.Lock()
		c.s.killers[thread] = c.remote
		c.s.mu.Unlock()
		return c.relay(fmt.Sprintf("KILL QUERY %d", thread), sql)
	}
	return c.relay(fmt.Sprintf("KILL CONNECTION %d", thread), sql)
}

// ---------------------------------------------------------------- server-wide views

func (s *Server) runningQueries() int {
	n := 0
	for _, c := range s.connections() {
		c.mu.Lock()
		if c.executing {
			n++
		}
		c.mu.Unlock()
	}
	return n
}

// currentQueries lists statements running on other connections.
func (s *Server) currentQueries(self *conn) [][]any {
	var rows [][]any
	now := time.Now()
	for _, c := range s.connections() {
		if c == self {
			continue
		}
		c.mu.Lock()
		if c.executing && c.up != nil {
			h := md5.Sum([]byte(c.curSQL))
			rows = append(rows, []any{c.curQueryID, strconv.FormatUint(uint64(c.up.threadID), 10), c.catalog, c.db,
				c.user, strconv.FormatInt(now.Sub(c.curStart).Milliseconds(), 10), hex.EncodeToString(h[:]), c.curSQL})
		}
		c.mu.Unlock()
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a][0].(string) < rows[b][0].(string) })
	return rows
}
