package sim

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Search indexes (INVERTED, ANN, NGRAM_BF, BITMAP) of tables created through
// the simulator. MariaDB has no such indexes, so their definitions live in
// __doris_sim.search_indexes, written with the admin account when a CREATE
// TABLE, CREATE INDEX or DROP INDEX through the simulator succeeds upstream,
// and index build jobs (BUILD INDEX) in __doris_sim.search_build_jobs. SHOW
// INDEX, SHOW BUILD INDEX, the MATCH rewrite (parser, lower_case,
// stopwords) and the distance rewrite (dim) read them. Keeping them in the
// upstream, not in memory, lets every simulator in front of the same
// MariaDB see the same indexes.

// searchIndex is one index definition.
type searchIndex struct {
	db, table, name, kind, column, comment string
	props                                  map[string]string
}

// propString renders the properties the way SHOW INDEX and SHOW CREATE
// TABLE print them: ("k" = "v", ...), keys sorted; "" without properties.
func (ix searchIndex) propString() string {
	if len(ix.props) == 0 {
		return ""
	}
	keys := make([]string, 0, len(ix.props))
	for k := range ix.props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q = %q", k, ix.props[k])
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ddl is the index clause as CREATE TABLE and SHOW BUILD INDEX print it.
func (ix searchIndex) ddl() string {
	s := fmt.Sprintf("INDEX %s (`%s`) USING %s", ix.name, ix.column, ix.kind)
	if p := ix.propString(); p != "" {
		s += " PROPERTIES" + p
	}
	return s
}

// searchStoreStatements create the store (part of the seed) and register
// the demo's documents indexes.
func searchStoreStatements() []string {
	q := quoteIdent(simSchema)
	out := []string{
		"CREATE TABLE IF NOT EXISTS " + q + ".search_indexes (db VARCHAR(190) NOT NULL, tbl VARCHAR(190) NOT NULL, " +
			"name VARCHAR(190) NOT NULL, kind VARCHAR(16) NOT NULL, col VARCHAR(190) NOT NULL, props TEXT NOT NULL, " +
			"comment TEXT NOT NULL, PRIMARY KEY (db, tbl, name)) COMMENT 'Doris search index definitions (simulator)'",
		"CREATE TABLE IF NOT EXISTS " + q + ".search_build_jobs (job_id BIGINT NOT NULL PRIMARY KEY, db VARCHAR(190) NOT NULL, " +
			"tbl VARCHAR(190) NOT NULL, alter_indexes TEXT NOT NULL, create_time DATETIME(3) NOT NULL, " +
			"finish_time DATETIME(3) NULL, txn BIGINT NOT NULL, state VARCHAR(16) NOT NULL, msg TEXT NOT NULL, " +
			"progress VARCHAR(16) NULL) COMMENT 'Doris BUILD INDEX jobs (simulator)'",
	}
	for _, ix := range demoSearchIndexes() {
		props, _ := json.Marshal(ix.props)
		out = append(out, fmt.Sprintf("INSERT IGNORE INTO %s.search_indexes VALUES (%s, %s, %s, %s, %s, %s, %s)", q,
			quoteString(ix.db), quoteString(ix.table), quoteString(ix.name), quoteString(ix.kind), quoteString(ix.column),
			quoteString(string(props)), quoteString(ix.comment)))
	}
	ann := demoSearchIndexes()[2]
	out = append(out, fmt.Sprintf("INSERT IGNORE INTO %s.search_build_jobs VALUES (1764579876673, 'demo', 'documents', %s, "+
		"NOW(3) - INTERVAL 2 DAY, NOW(3) - INTERVAL 2 DAY + INTERVAL 2710000 MICROSECOND, 82, 'FINISHED', '', NULL)",
		q, quoteString("[ADD "+ann.ddl()+"],  ")))
	return out
}

// demoSearchIndexes are the indexes of the demo's documents table: an
// english inverted index on body, a unicode one on title (both with
// phrase support) and, seen from Doris 4.0 on, an HNSW ANN index on the
// 8-dimensional embedding.
func demoSearchIndexes() []searchIndex {
	return []searchIndex{
		{db: "demo", table: "documents", name: "idx_body", kind: "INVERTED", column: "body",
			props: map[string]string{"parser": "english", "lower_case": "true", "support_phrase": "true"}, comment: "full-text body"},
		{db: "demo", table: "documents", name: "idx_title", kind: "INVERTED", column: "title",
			props: map[string]string{"parser": "unicode", "lower_case": "true", "support_phrase": "true"}, comment: "title words"},
		{db: "demo", table: "documents", name: "idx_embedding", kind: "ANN", column: "embedding",
			props: map[string]string{"index_type": "hnsw", "metric_type": "l2_distance", "dim": "8"}, comment: ""},
	}
}

// storeQuery reads the store on the client's own upstream connection (the
// demo accounts may read __doris_sim), falling back to the admin account.
func (c *conn) storeQuery(q string, maxRows int) (*result, error) {
	if up := c.upstreamConn(); up != nil {
		if r, err := up.query(q, maxRows); err == nil {
			return r, nil
		}
	}
	return c.s.adminQuery(q, maxRows)
}

// storedIndexes returns the stored indexes of db.table, in name order.
// ANN indexes exist only from Doris 4.0 on.
func (c *conn) storedIndexes(db, table string) []searchIndex {
	r, err := c.storeQuery(fmt.Sprintf("SELECT name, kind, col, props, comment FROM %s.search_indexes WHERE db = %s AND tbl = %s ORDER BY name",
		quoteIdent(simSchema), quoteString(db), quoteString(table)), 1000)
	if err != nil || r == nil {
		return nil
	}
	var out []searchIndex
	for _, row := range r.rows {
		ix := searchIndex{db: db, table: table, name: deref(row[0]), kind: deref(row[1]), column: deref(row[2]), comment: deref(row[4])}
		if ix.kind == "ANN" && !c.s.profile().atLeast("4.0") {
			continue
		}
		_ = json.Unmarshal([]byte(deref(row[3])), &ix.props)
		out = append(out, ix)
	}
	return out
}

// tableIndexes are the indexes Doris would show for db.table: the stored
// ones, plus the MariaDB secondary keys the simulator presents as inverted
// indexes (a FULLTEXT key as an english one, any other key without a
// parser).
func (c *conn) tableIndexes(db, table string) []searchIndex {
	out := c.storedIndexes(db, table)
	udb, utbl := c.upstreamTable(db, table)
	r, err := c.storeQuery("SHOW INDEX FROM "+qualified(udb, utbl), 10000)
	if err != nil || r == nil {
		return out
	}
	get := func(row []*string, name string) string {
		if k := r.colIndex(name); k >= 0 && k < len(row) {
			return deref(row[k])
		}
		return ""
	}
	for _, row := range r.rows {
		name := get(row, "Key_name")
		if !secondaryKey(name, get(row, "Non_unique")) {
			continue
		}
		ix := searchIndex{db: db, table: table, name: name, kind: "INVERTED", column: get(row, "Column_name"),
			comment: get(row, "Index_comment")}
		if get(row, "Index_type") == "FULLTEXT" {
			ix.props = map[string]string{"parser": "english", "lower_case": "true", "support_phrase": "true"}
		}
		out = append(out, ix)
	}
	return out
}

// invertedIndexOn returns the inverted index of db.table on column.
func (c *conn) invertedIndexOn(db, table, column string) (searchIndex, bool) {
	for _, ix := range c.tableIndexes(db, table) {
		if ix.kind == "INVERTED" && strings.EqualFold(ix.column, column) {
			return ix, true
		}
	}
	return searchIndex{}, false
}

// annIndexOn returns the ANN index of db.table on column.
func (c *conn) annIndexOn(db, table, column string) (searchIndex, bool) {
	for _, ix := range c.storedIndexes(db, table) {
		if ix.kind == "ANN" && strings.EqualFold(ix.column, column) {
			return ix, true
		}
	}
	return searchIndex{}, false
}

// saveIndexes replaces the stored indexes of db.table (replace) or adds to
// them.
func (s *Server) saveIndexes(db, table string, replace bool, ixs []searchIndex) error {
	q := quoteIdent(simSchema)
	var stmts []string
	if replace {
		stmts = append(stmts, fmt.Sprintf("DELETE FROM %s.search_indexes WHERE db = %s AND tbl = %s", q, quoteString(db), quoteString(table)),
			fmt.Sprintf("DELETE FROM %s.search_build_jobs WHERE db = %s AND tbl = %s", q, quoteString(db), quoteString(table)))
	}
	for _, ix := range ixs {
		props, _ := json.Marshal(ix.props)
		stmts = append(stmts, fmt.Sprintf("REPLACE INTO %s.search_indexes VALUES (%s, %s, %s, %s, %s, %s, %s)", q,
			quoteString(db), quoteString(table), quoteString(ix.name), quoteString(ix.kind), quoteString(ix.column),
			quoteString(string(props)), quoteString(ix.comment)))
	}
	if len(stmts) == 0 {
		return nil
	}
	return s.adminExec(stmts...)
}

// showIndexRows renders indexes as SHOW INDEX rows.
func showIndexRows(table string, ixs []searchIndex) [][]any {
	rows := make([][]any, 0, len(ixs))
	for _, ix := range ixs {
		rows = append(rows, []any{table, "", ix.name, "", ix.column, "", "", "", "", "", ix.kind, ix.comment, ix.propString()})
	}
	return rows
}

// showBuildIndex answers SHOW BUILD INDEX [FROM|IN db] [WHERE col = 'v'
// [AND ...]] [ORDER BY ...] [LIMIT n] from the stored build jobs.
func (c *conn) showBuildIndex(ts []token, i int) error {
	db, _, _ := c.snapshot()
	if i < len(ts) && (ts[i].is("FROM") || ts[i].is("IN")) {
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
	if db == "" {
		return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	// The database must exist and be visible to the user.
	if _, sent, err := c.upQuery("SHOW TABLES FROM "+quoteIdent(db), "SHOW BUILD INDEX", 100000); sent || err != nil {
		return err
	}
	filters := map[string]string{}
	limit := -1
	for i < len(ts) {
		switch {
		case ts[i].is("WHERE") || ts[i].is("AND"):
			if i+3 < len(ts) && ts[i+1].isIdent() && ts[i+2].isP("=") && (ts[i+3].kind == tkString || ts[i+3].kind == tkNumber) {
				v := ts[i+3].text
				if ts[i+3].kind == tkString {
					v = ts[i+3].str()
				}
				filters[strings.ToLower(ts[i+1].ident())] = v
				i += 4
				continue
			}
			return c.send(newDorisErr(1105, "HY000", "Where clause should looks like: TableName = \"your_table_name\", "+
				"or PartitionName = \"your_partition_name\", or State = \"FINISHED|CANCELLED|RUNNING|WAITING_TXN\", "+
				"or CreateTime/FinishTime >|>=|<|<=|=|!= \"2019-12-02|2019-12-02 14:54:00\""))
		case ts[i].is("LIMIT") && i+1 < len(ts) && ts[i+1].kind == tkNumber:
			limit, _ = strconv.Atoi(ts[i+1].text)
			i += 2
		default:
			i++ // ORDER BY ...: jobs come in id order
		}
	}
	r, err := c.storeQuery(fmt.Sprintf("SELECT job_id, tbl, alter_indexes, DATE_FORMAT(create_time, '%%Y-%%m-%%d %%H:%%i:%%s.%%f'), "+
		"DATE_FORMAT(finish_time, '%%Y-%%m-%%d %%H:%%i:%%s.%%f'), txn, state, msg, progress FROM %s.search_build_jobs WHERE db = %s ORDER BY job_id",
		quoteIdent(simSchema), quoteString(db)), 10000)
	if err != nil {
		return c.send(newDorisErr(1105, "HY000", "failed to read index build jobs"))
	}
	cols := []string{"JobId", "TableName", "PartitionName", "AlterInvertedIndexes", "CreateTime", "FinishTime", "TransactionId", "State", "Msg", "Progress"}
	var rows [][]any
	for _, row := range r.rows {
		ms := func(s *string) any {
			if s == nil {
				return nil
			}
			return strings.TrimSuffix(*s, "000") // microseconds -> milliseconds
		}
		var progress any = "NULL"
		if row[8] != nil {
			progress = *row[8]
		}
		out := []any{deref(row[0]), deref(row[1]), deref(row[1]), deref(row[2]), ms(row[3]), ms(row[4]), deref(row[5]),
			deref(row[6]), deref(row[7]), progress}
		keep := c.s.profile().atLeast("4.0") || !strings.Contains(deref(row[2]), "USING ANN")
		for k, v := range filters {
			for j, name := range cols {
				if strings.EqualFold(name, k) && fmt.Sprint(out[j]) != v {
					keep = false
				}
			}
		}
		if keep {
			rows = append(rows, out)
		}
	}
	if limit >= 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	return c.sendResult(cols, rows)
}
