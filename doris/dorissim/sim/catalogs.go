package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// External catalogs.
//
// CREATE CATALOG registers a catalog in the simulator's memory, as an FE
// keeps catalog metadata. Its databases are real MariaDB databases named
// by BackingDatabase, so data, grants and errors are MariaDB's own: a
// reader sees an external database exactly when it may read the MariaDB
// database behind it. DROP CATALOG forgets the catalog and leaves the data,
// as Doris leaves the external system alone; creating the catalog again
// finds it.
//
// The built-in catalog "hive" is an HMS catalog whose metastore never
// answers: every use of it fails with Doris's metastore error.

// lakehouse is the simulator's Doris-only metadata for external catalogs
// and for tables created through it (VARIANT columns, table properties,
// formats, partition columns). Like an FE's catalog it lives in memory.
type lakehouse struct {
	mu       sync.Mutex // protects catalogs, nextID and tables
	catalogs map[string]*extCatalog
	nextID   int64
	tables   map[string]*tableMeta

	// commit serialises a write to an Iceberg or Paimon table with the
	// snapshot it commits, so parents chain in write order.
	commit sync.Mutex
}

// extCatalog is one catalog other than internal.
type extCatalog struct {
	id               int64
	name, typ        string
	props            [][2]string // as given, in order
	created, updated time.Time
	comment          string
	// unreachable, when set, is the error every use of the catalog gets.
	unreachable string
}

// catalogTypes are the types CREATE CATALOG accepts (Doris's
// CatalogFactory); anything else is "Unknown catalog type".
var catalogTypes = map[string]bool{
	"hms": true, "iceberg": true, "paimon": true, "jdbc": true, "es": true,
	"max_compute": true, "trino-connector": true, "lakesoul": true,
}

// builtinHive is the demo's HMS catalog with an unreachable metastore.
func builtinHive() *extCatalog {
	created, _ := time.Parse("2006-01-02 15:04:05.000", "2023-12-25 16:11:41.687")
	updated, _ := time.Parse("2006-01-02 15:04:05", "2023-12-25 20:43:18")
	return &extCatalog{id: 130100, name: "hive", typ: "hms", created: created, updated: updated,
		props: [][2]string{{"hive.metastore.uris", "thrift://127.0.0.1:9083"},
			{"ipc.client.fallback-to-simple-auth-allowed", "true"}, {"type", "hms"}, {"use_meta_cache", "true"}},
		unreachable: hiveUnreachable}
}

// initLocked fills the zero value in.
func (l *lakehouse) initLocked() {
	if l.catalogs == nil {
		l.catalogs = map[string]*extCatalog{"hive": builtinHive()}
		l.tables = map[string]*tableMeta{}
		l.nextID = time.Now().UnixMilli()
	}
}

// catalog returns the external catalog of that name (case-insensitive).
func (l *lakehouse) catalog(name string) (*extCatalog, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initLocked()
	c, ok := l.catalogs[strings.ToLower(name)]
	return c, ok
}

// hasCreated reports catalogs beyond the built-in hive: only then can a
// statement name an external table the simulator must resolve.
func (l *lakehouse) hasCreated() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.catalogs) > 1 || len(l.catalogs) == 1 && l.catalogs["hive"] == nil
}

// list returns the external catalogs sorted by name.
func (l *lakehouse) list() []*extCatalog {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.initLocked()
	out := make([]*extCatalog, 0, len(l.catalogs))
	for _, c := range l.catalogs {
		out = append(out, c)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].name < out[b].name })
	return out
}

// BackingDatabase is the MariaDB database that holds database db of the
// external catalog catalog: "__ext<len(catalog)>_<catalog>_<db>", which
// cannot be confused between catalogs. Tests and the demo use it to grant
// access and to clean up.
func BackingDatabase(catalog, db string) string {
	return backingPrefix(catalog) + db
}

func backingPrefix(catalog string) string {
	return "__ext" + strconv.Itoa(len(catalog)) + "_" + catalog + "_"
}

// isBackingDatabase reports a MariaDB database that belongs to an
// external catalog (hidden from the internal catalog's SHOW DATABASES).
func isBackingDatabase(name string) bool {
	if !strings.HasPrefix(name, "__ext") {
		return false
	}
	rest := name[len("__ext"):]
	i := strings.IndexByte(rest, '_')
	n, err := strconv.Atoi(rest[:max(i, 0)])
	return i > 0 && err == nil && n > 0 && len(rest) > i+1+n && rest[i+1+n] == '_'
}

// splitBacking maps a backing database back to (catalog, db).
func splitBacking(name string) (catalog, db string, ok bool) {
	if !isBackingDatabase(name) {
		return "", "", false
	}
	rest := name[len("__ext"):]
	i := strings.IndexByte(rest, '_')
	n, _ := strconv.Atoi(rest[:i])
	return rest[i+1 : i+1+n], rest[i+2+n:], true
}

// extCatalogOf returns the registered external catalog name refers to, or
// nil for internal, an unknown name or the empty name.
func (c *conn) extCatalogOf(name string) *extCatalog {
	if name == "" || strings.EqualFold(name, "internal") {
		return nil
	}
	cat, ok := c.s.lake.catalog(name)
	if !ok {
		return nil
	}
	return cat
}

// currentExt is the session's current catalog when it is external.
func (c *conn) currentExt() *extCatalog {
	_, cur, _ := c.snapshot()
	return c.extCatalogOf(cur)
}

// usable reports the error a statement using cat gets, if any.
func (cat *extCatalog) usable() *dorisErr {
	if cat.unreachable != "" {
		return newDorisErr(1105, "HY000", cat.unreachable)
	}
	return nil
}

// ---------------------------------------------------------------- CREATE / DROP CATALOG

// createCatalog: CREATE CATALOG [IF NOT EXISTS] name [COMMENT 'x'] PROPERTIES ("k" = "v", ...).
func (c *conn) createCatalog(ts []token) error {
	if !c.admin {
		return c.send(adminDenied())
	}
	i := 2
	ifNot := false
	if i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
		ifNot, i = true, i+3
	}
	if i >= len(ts) || !ts[i].isIdent() {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {IDENTIFIER}(line 1, pos 15)"))
	}
	name := ts[i].ident()
	i++
	comment := ""
	if i+1 < len(ts) && ts[i].is("COMMENT") && ts[i+1].kind == tkString {
		comment, i = ts[i+1].str(), i+2
	}
	props, next, ok := parseProperties(ts, i)
	if !ok || next != len(ts) {
		return c.send(newDorisErr(1105, "HY000", "Invalid CREATE CATALOG syntax: expected PROPERTIES (\"type\" = \"...\", ...)"))
	}
	typ := ""
	for _, kv := range props {
		if kv[0] == "type" {
			typ = strings.ToLower(kv[1])
		}
	}
	if typ == "" {
		return c.send(newDorisErr(1105, "HY000", "Missing property 'type' in properties"))
	}
	if !catalogTypes[typ] {
		return c.send(newDorisErr(1105, "HY000", "Unknown catalog type: "+typ))
	}
	if strings.EqualFold(name, "internal") {
		return c.send(newDorisErr(1105, "HY000", "Catalog internal already exists"))
	}
	l := &c.s.lake
	l.mu.Lock()
	l.initLocked()
	if _, exists := l.catalogs[strings.ToLower(name)]; exists {
		l.mu.Unlock()
		if ifNot {
			return c.sendOK(0, "")
		}
		return c.send(newDorisErr(1105, "HY000", "Catalog "+name+" already exists"))
	}
	l.nextID++
	now := time.Now()
	l.catalogs[strings.ToLower(name)] = &extCatalog{id: l.nextID, name: name, typ: typ, props: props, created: now,
		updated: now, comment: comment}
	l.mu.Unlock()
	return c.sendOK(0, "")
}

// dropCatalog: DROP CATALOG [IF EXISTS] name. The data stays.
func (c *conn) dropCatalog(ts []token) error {
	if !c.admin {
		return c.send(adminDenied())
	}
	i := 2
	ifExists := false
	if i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		ifExists, i = true, i+2
	}
	if i != len(ts)-1 || !ts[i].isIdent() {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {IDENTIFIER}(line 1, pos 12)"))
	}
	name := ts[i].ident()
	if strings.EqualFold(name, "internal") {
		return c.send(newDorisErr(1105, "HY000", "Internal catalog can not be dropped."))
	}
	l := &c.s.lake
	l.mu.Lock()
	l.initLocked()
	_, exists := l.catalogs[strings.ToLower(name)]
	delete(l.catalogs, strings.ToLower(name))
	l.mu.Unlock()
	if !exists && !ifExists {
		return c.send(newDorisErr(1105, "HY000", "Unknown catalog '"+name+"'"))
	}
	c.mu.Lock()
	if strings.EqualFold(c.catalog, name) {
		c.catalog = "internal"
	}
	c.mu.Unlock()
	return c.sendOK(0, "")
}

// parseProperties reads PROPERTIES ("k" = "v", ...) at ts[i]; keys keep
// their case, values are literal strings.
func parseProperties(ts []token, i int) ([][2]string, int, bool) {
	if i >= len(ts) || !ts[i].is("PROPERTIES") {
		return nil, i, false
	}
	i++
	if i >= len(ts) || !ts[i].isP("(") {
		return nil, i, false
	}
	i++
	var out [][2]string
	for i < len(ts) && !ts[i].isP(")") {
		if i+2 >= len(ts) || ts[i].kind != tkString || !ts[i+1].isP("=") || ts[i+2].kind != tkString {
			return nil, i, false
		}
		out = append(out, [2]string{ts[i].str(), ts[i+2].str()})
		i += 3
		if i < len(ts) && ts[i].isP(",") {
			i++
		}
	}
	if i >= len(ts) {
		return nil, i, false
	}
	return out, i + 1, true
}

// ---------------------------------------------------------------- SHOW CATALOGS / SHOW CATALOG

func (c *conn) showCatalogs(ts []token, i int) error {
	rows := c.catalogRows()
	if i+1 < len(ts) && ts[i].is("LIKE") {
		var keep [][]any
		for _, r := range rows {
			if likeMatch(ts[i+1].str(), r[1].(string)) {
				keep = append(keep, r)
			}
		}
		rows = keep
	}
	return c.sendResult(c.s.profile().catalogsCols(), rows)
}

// catalogRows are the rows of SHOW CATALOGS, sorted by name.
func (c *conn) catalogRows() [][]any {
	p := c.s.profile()
	_, cur, _ := c.snapshot()
	isCur := func(n string) string {
		if strings.EqualFold(cur, n) {
			return "yes"
		}
		return ""
	}
	var rows [][]any
	internal := []any{"0", "internal", "internal", isCur("internal"), "UNRECORDED"}
	if p.atLeast("3.0") {
		internal = append(internal, nil)
	}
	rows = append(rows, append(internal, "Doris internal catalog"))
	for _, cat := range c.s.lake.list() {
		r := []any{strconv.FormatInt(cat.id, 10), cat.name, cat.typ, isCur(cat.name), cat.created.Format("2006-01-02 15:04:05.000")}
		if p.atLeast("3.0") {
			r = append(r, cat.updated.Format("2006-01-02 15:04:05"))
		}
		var comment any
		if cat.comment != "" {
			comment = cat.comment
		}
		rows = append(rows, append(r, comment))
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a][1].(string) < rows[b][1].(string) })
	return rows
}

// showCatalog: SHOW CATALOG name → Key, Value. Every property is shown as
// it was given (secrets included; only "password" is masked, as Doris
// masks it), plus create_time and use_meta_cache.
func (c *conn) showCatalog(name string) error {
	if strings.EqualFold(name, "internal") {
		return c.sendResult([]string{"Key", "Value"}, [][]any{{"type", "internal"}})
	}
	cat := c.extCatalogOf(name)
	if cat == nil {
		return c.send(newDorisErr(1105, "HY000", "Unknown catalog '"+name+"'"))
	}
	kv := map[string]string{"create_time": cat.created.Format("2006-01-02 15:04:05.000"), "use_meta_cache": "true"}
	for _, p := range cat.props {
		kv[p[0]] = p[1]
		if p[0] == "password" {
			kv[p[0]] = "*XXX"
		}
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([][]any, len(keys))
	for i, k := range keys {
		rows[i] = []any{k, kv[k]}
	}
	return c.sendResult([]string{"Key", "Value"}, rows)
}

// ---------------------------------------------------------------- SWITCH / USE

// switchExternal handles SWITCH to an external catalog: the session's
// database is reset, as in Doris.
func (c *conn) switchExternal(cat *extCatalog) error {
	c.mu.Lock()
	c.catalog, c.db = cat.name, ""
	c.mu.Unlock()
	return c.sendOK(0, "")
}

// useExternal makes db of cat the session's database: the upstream
// connection uses its backing database, so unqualified names resolve there.
func (c *conn) useExternal(cat *extCatalog, db string) error {
	if derr := cat.usable(); derr != nil {
		return c.send(derr)
	}
	backing := BackingDatabase(cat.name, db)
	if _, sent, err := c.upQuery("USE "+quoteIdent(backing), "USE "+db, 1); sent || err != nil {
		return err
	}
	c.mu.Lock()
	c.catalog, c.db = cat.name, db
	c.mu.Unlock()
	return c.sendOK(0, "")
}

// ---------------------------------------------------------------- SHOW DATABASES / TABLES of an external catalog

// extDatabases lists the databases of cat visible to the client: those
// whose backing databases it may see upstream.
func (c *conn) extDatabases(cat *extCatalog, orig string) ([]string, bool, error) {
	prefix := backingPrefix(cat.name)
	pat := strings.NewReplacer(`\`, `\\`, `_`, `\_`, `%`, `\%`).Replace(prefix) + "%"
	r, sent, err := c.upQuery("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE "+quoteString(pat)+
		" ORDER BY SCHEMA_NAME", orig, 100000)
	if sent || err != nil {
		return nil, sent, err
	}
	var out []string
	for _, row := range r.rows {
		out = append(out, strings.TrimPrefix(deref(row[0]), prefix))
	}
	return out, false, nil
}

func (c *conn) showExtDatabases(cat *extCatalog, ts []token, i int, orig string) error {
	if derr := cat.usable(); derr != nil {
		return c.send(derr)
	}
	dbs, sent, err := c.extDatabases(cat, orig)
	if sent || err != nil {
		return err
	}
	var rows [][]any
	for _, d := range dbs {
		if i+1 < len(ts) && ts[i].is("LIKE") && !likeMatch(ts[i+1].str(), d) {
			continue
		}
		rows = append(rows, []any{d})
	}
	return c.sendResult([]string{"Database"}, rows)
}

func (c *conn) showExtTables(cat *extCatalog, db string, ts []token, i int, full bool, orig string) error {
	if derr := cat.usable(); derr != nil {
		return c.send(derr)
	}
	if db == "" {
		return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	backing := BackingDatabase(cat.name, db)
	r, sent, err := c.upQuery("SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = "+
		quoteString(backing)+" ORDER BY TABLE_NAME", orig, 100000)
	if sent || err != nil {
		return err
	}
	if len(r.rows) == 0 {
		// An empty database and a missing (or invisible) one differ in Doris.
		if _, sent, err := c.upQuery("SHOW TABLES FROM "+quoteIdent(backing), orig, 1); sent || err != nil {
			return err
		}
	}
	p := c.s.profile()
	cols := []string{"Tables_in_" + db}
	if full {
		cols = append(cols, "Table_type")
		if p.atLeast("3.0") {
			cols = append(cols, "Storage_format", "Inverted_index_storage_format")
		}
	}
	var rows [][]any
	for _, row := range r.rows {
		name := deref(row[0])
		if strings.Contains(name, "$") {
			continue // the simulator's snapshot tables
		}
		if i+1 < len(ts) && ts[i].is("LIKE") && !likeMatch(ts[i+1].str(), name) {
			continue
		}
		out := []any{name}
		if full {
			typ := "BASE TABLE"
			if deref(row[1]) == "VIEW" {
				typ = "VIEW"
			}
			out = append(out, typ)
			if p.atLeast("3.0") {
				out = append(out, "NONE", "NONE")
			}
		}
		rows = append(rows, out)
	}
	return c.sendResult(cols, rows)
}

// unknownExtTable is Doris's answer for a table missing from an external database.
func unknownExtTable(db, table string) *dorisErr {
	return newDorisErr(1105, "HY000", fmt.Sprintf("Table [%s] does not exist in database [%s].", table, db))
}
