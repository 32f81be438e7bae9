package sim

import (
	"fmt"
	"strings"
	"time"
)

// CREATE INDEX, DROP INDEX and BUILD INDEX on tables of the simulator: the
// definitions and build jobs go to the search index store
// (searchstore.go).

// columnType reads a column's type as the client sees it: the Doris type
// the table was created with, else the MariaDB type, or "array<float>"
// for a JSON column (a table from before the simulator kept types). tableSeen reports that the table has visible columns;
// sent, that an upstream error was already sent to the client.
func (c *conn) columnType(db, table, column string) (typ string, notNull, tableSeen, sent bool, err error) {
	r, sent, err := c.upQuery(fmt.Sprintf("SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS "+
		"WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s", quoteString(db), quoteString(table)), "", 10000)
	if sent || err != nil {
		return "", false, false, true, err
	}
	for _, row := range r.rows {
		if strings.EqualFold(deref(row[0]), column) {
			typ = strings.ToLower(deref(row[1]))
			if t := c.s.lake.columnType(db, table, deref(row[0])); t != "" {
				// Created through the simulator: its Doris type is known.
				return t, deref(row[2]) == "NO", true, false, nil
			}
			// A JSON column carries a json_valid check (queried on its own:
			// joining information_schema tables crashes MariaDB 10.11 under
			// concurrent use).
			chk, err := c.storeQuery(fmt.Sprintf("SELECT CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = %s "+
				"AND TABLE_NAME = %s AND CONSTRAINT_NAME = %s", quoteString(db), quoteString(table), quoteString(deref(row[0]))), 1)
			if err == nil && len(chk.rows) == 1 && strings.Contains(strings.ToLower(deref(chk.rows[0][0])), "json_valid") {
				typ = "array<float>"
			}
			return typ, deref(row[2]) == "NO", true, false, nil
		}
	}
	return "", false, len(r.rows) > 0, false, nil
}

// createIndex: CREATE INDEX [IF NOT EXISTS] name ON [db.]t (col) USING KIND
// [PROPERTIES(...)] [COMMENT '...'].
func (c *conn) createIndex(sql string, ts []token) error {
	i := 2
	ifNotExists := false
	if i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
		ifNotExists, i = true, i+3
	}
	if i+1 >= len(ts) || !ts[i].isIdent() || !ts[i+1].is("ON") {
		return c.send(syntaxAt(ts, i, syntaxExpectEnd))
	}
	name := ts[i]
	db, table, next, derr := c.tableName(ts, i+2)
	if derr != nil {
		return c.send(derr)
	}
	item := append([]token{name}, ts[next:]...)
	ix, derr := c.parseIndexDef(item, 0)
	if derr != nil {
		return c.send(derr)
	}
	ix.db, ix.table = db, table
	typ, notNull, tableSeen, sent, err := c.columnType(db, table, ix.column)
	if sent {
		return err
	}
	if !tableSeen {
		return c.send(&dorisErr{1051, "42S02", fmt.Sprintf("errCode = 2, detailMessage = Unknown table '%s'", table)})
	}
	if typ == "" {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Column does not exist in table. invalid column: %s", ix.column)))
	}
	if typ == "longtext" || typ == "mediumtext" || typ == "text" {
		typ = "string"
	}
	if derr := checkIndexColumn(c.s.profile(), &ix, typ, notNull); derr != nil {
		return c.send(derr)
	}
	for _, old := range c.tableIndexes(db, table) {
		if strings.EqualFold(old.name, ix.name) {
			if ifNotExists {
				return c.sendOK(0, "")
			}
			return c.send(newDorisErr(1105, "HY000", "index `"+ix.name+"` already exist."))
		}
	}
	if err := c.s.saveIndexes(db, table, false, []searchIndex{ix}); err != nil {
		return c.send(newDorisErr(1105, "HY000", "failed to record the index"))
	}
	return c.sendOK(0, "")
}

// dropIndex: DROP INDEX [IF EXISTS] name ON [db.]t.
func (c *conn) dropIndex(ts []token) error {
	i := 2
	ifExists := false
	if i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		ifExists, i = true, i+2
	}
	if i+1 >= len(ts) || !ts[i].isIdent() || !ts[i+1].is("ON") {
		return c.send(syntaxAt(ts, i, syntaxExpectEnd))
	}
	name := ts[i].ident()
	db, table, _, derr := c.tableName(ts, i+2)
	if derr != nil {
		return c.send(derr)
	}
	var keep []searchIndex
	found := false
	for _, ix := range c.storedIndexes(db, table) {
		if strings.EqualFold(ix.name, name) {
			found = true
			continue
		}
		keep = append(keep, ix)
	}
	if !found {
		if ifExists {
			return c.sendOK(0, "")
		}
		return c.send(newDorisErr(1105, "HY000", "index "+name+" does not exist"))
	}
	if err := c.s.saveIndexes(db, table, true, keep); err != nil {
		return c.send(newDorisErr(1105, "HY000", "failed to drop the index"))
	}
	return c.sendOK(0, "")
}

// buildIndex: BUILD INDEX name ON [db.]t [PARTITIONS (...)] records a
// finished build job, which SHOW BUILD INDEX then lists.
func (c *conn) buildIndex(ts []token) error {
	if len(ts) < 5 || !ts[2].isIdent() || !ts[3].is("ON") {
		return c.send(syntaxAt(ts, 2, syntaxExpectEnd))
	}
	name := ts[2].ident()
	db, table, _, derr := c.tableName(ts, 4)
	if derr != nil {
		return c.send(derr)
	}
	for _, ix := range c.storedIndexes(db, table) {
		if !strings.EqualFold(ix.name, name) {
			continue
		}
		now := time.Now()
		job := now.UnixMilli()
		err := c.s.adminExec(fmt.Sprintf("INSERT INTO %s.search_build_jobs VALUES (%d, %s, %s, %s, %s, %s, %d, 'FINISHED', '', NULL)",
			quoteIdent(simSchema), job, quoteString(db), quoteString(table), quoteString("[ADD "+ix.ddl()+"],  "),
			quoteString(now.Format("2006-01-02 15:04:05.000")), quoteString(now.Add(2*time.Second).Format("2006-01-02 15:04:05.000")),
			job%1000+1))
		if err != nil {
			return c.send(newDorisErr(1105, "HY000", "failed to record the build job"))
		}
		return c.sendOK(0, "")
	}
	return c.send(newDorisErr(1105, "HY000", "index "+name+" not exist in table "+table))
}

// indexDDL runs CREATE INDEX, DROP INDEX and BUILD INDEX.
func (c *conn) indexDDL(sql string, ts []token) error {
	switch {
	case ts[0].is("CREATE"):
		return c.createIndex(sql, ts)
	case ts[0].is("DROP"):
		return c.dropIndex(ts)
	}
	return c.buildIndex(ts)
}
