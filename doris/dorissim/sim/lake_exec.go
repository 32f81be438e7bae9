package sim

import (
	"fmt"
	"strings"
	"time"
)

// Statements on external catalogs and Doris-only DDL: the hooks execute()
// and show() call first. Each returns handled=false for statements it does
// not own, which then take their usual path.

// extRef is a table (or database) resolved into an external catalog.
type extRef struct {
	cat       *extCatalog
	db, table string
}

func (r extRef) backing() string { return BackingDatabase(r.cat.name, r.db) }

// format is the table format of tables in the catalog (or as recorded).
func (r extRef) format(m *tableMeta) string {
	if m != nil && m.format != "" {
		return m.format
	}
	switch r.cat.typ {
	case "hms":
		return "hive"
	}
	return r.cat.typ
}

// resolveExt resolves q against the external catalogs: an explicit
// catalog, or the session's current one when it is external.
func (c *conn) resolveExt(q qname) (extRef, bool) {
	if q.catalog != "" {
		cat := c.extCatalogOf(q.catalog)
		if cat == nil {
			return extRef{}, false
		}
		return extRef{cat: cat, db: q.db, table: q.table}, true
	}
	cat := c.currentExt()
	if cat == nil {
		return extRef{}, false
	}
	db := q.db
	if db == "" {
		db, _, _ = c.snapshot()
	}
	return extRef{cat: cat, db: db, table: q.table}, true
}

// lakeExecute is execute()'s hook.
func (c *conn) lakeExecute(sql string, ts []token) (bool, error) {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	switch {
	case ts[0].is("CREATE") && at(1).is("CATALOG"):
		return true, c.createCatalog(ts)
	case ts[0].is("DROP") && at(1).is("CATALOG"):
		return true, c.dropCatalog(ts)
	case (ts[0].is("CREATE") || ts[0].is("DROP")) && (at(1).is("DATABASE") || at(1).is("SCHEMA")):
		return c.extDatabaseDDL(sql, ts)
	case ts[0].is("CREATE") && (at(1).is("TABLE") || at(1).is("EXTERNAL") && at(2).is("TABLE")):
		return true, c.createTableDoris(sql, ts)
	case ts[0].is("DROP") && at(1).is("TABLE"):
		return c.dropTableDoris(sql, ts)
	case ts[0].is("INSERT") || ts[0].is("DELETE") || ts[0].is("UPDATE"):
		return c.extWrite(sql, ts)
	case ts[0].is("SWITCH") && len(ts) == 2 && ts[1].isIdent():
		if cat := c.extCatalogOf(ts[1].ident()); cat != nil && cat.unreachable == "" {
			return true, c.switchExternal(cat)
		}
	case ts[0].is("USE"):
		parts, next := parseChain(ts, 1)
		if next != len(ts) || len(parts) == 0 || len(parts) > 2 {
			return false, nil
		}
		var cat *extCatalog
		if len(parts) == 2 {
			cat = c.extCatalogOf(parts[0])
		} else {
			cat = c.currentExt()
		}
		if cat != nil {
			return true, c.useExternal(cat, parts[len(parts)-1])
		}
	case (ts[0].is("DESC") || ts[0].is("DESCRIBE")) && len(ts) > 1 && ts[1].isIdent():
		q, next, ok := parseTableRef(ts, 1)
		if !ok || next != len(ts) {
			return false, nil
		}
		if r, ok := c.resolveExt(q); ok {
			return true, c.extColumns(r, false, sql)
		}
	}
	return false, nil
}

// lakeShow is show()'s hook.
func (c *conn) lakeShow(sql string, ts []token) (bool, error) {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	i := 1
	full := false
	if at(i).is("FULL") {
		full, i = true, i+1
	}
	w := at(i)
	switch {
	case w.is("CATALOGS") && !full:
		return true, c.showCatalogs(ts, i+1)
	case w.is("CATALOG") && at(i+1).isIdent() && len(ts) == i+2:
		return true, c.showCatalog(at(i + 1).ident())
	case (w.is("DATABASES") || w.is("SCHEMAS")) && !full:
		var cat *extCatalog
		j := i + 1
		if (at(j).is("FROM") || at(j).is("IN")) && at(j+1).isIdent() {
			cat, j = c.extCatalogOf(at(j+1).ident()), j+2
		} else {
			cat = c.currentExt()
		}
		if cat == nil {
			return false, nil
		}
		return true, c.showExtDatabases(cat, ts, j, sql)
	case w.is("TABLES"):
		j := i + 1
		var q qname
		if at(j).is("FROM") || at(j).is("IN") {
			parts, next := parseChain(ts, j+1)
			switch len(parts) {
			case 1:
				q.db = parts[0]
			case 2:
				q.catalog, q.db = parts[0], parts[1]
			default:
				return false, nil
			}
			j = next
		}
		r, ok := c.resolveExt(q)
		if !ok {
			return false, nil
		}
		return true, c.showExtTables(r.cat, r.db, ts, j, full, sql)
	case w.is("COLUMNS") || w.is("FIELDS"):
		q, next, ok := parseTableRef(ts, i+1)
		if !ok || next != len(ts) {
			return false, nil
		}
		if r, ok := c.resolveExt(q); ok {
			return true, c.extColumns(r, full, sql)
		}
	case w.is("CREATE") && at(i+1).is("TABLE"):
		q, next, ok := parseTableRef(ts, i+2)
		if !ok || next != len(ts) {
			return false, nil
		}
		if r, ok := c.resolveExt(q); ok {
			return true, c.extShowCreate(r, sql)
		}
	case w.is("TABLE") && at(i+1).is("STATS"):
		q, next, ok := parseTableRef(ts, i+2)
		if !ok || next != len(ts) {
			return false, nil
		}
		if r, ok := c.resolveExt(q); ok {
			return true, c.extTableStats(r, sql)
		}
	case w.is("PARTITIONS") && (at(i+1).is("FROM") || at(i+1).is("IN")):
		q, next, ok := parseTableRef(ts, i+2)
		if !ok {
			return false, nil
		}
		if r, ok := c.resolveExt(q); ok {
			limit := -1
			if at(next).is("LIMIT") && at(next+1).kind == tkNumber {
				fmt.Sscan(at(next+1).text, &limit)
			}
			return true, c.extPartitions(r, limit, sql)
		}
	}
	return false, nil
}

// checkExtTable checks that r names a visible table and returns its
// metadata (nil for a table created outside the simulator).
func (c *conn) checkExtTable(r extRef, orig string) (*tableMeta, bool, error) {
	if derr := r.cat.usable(); derr != nil {
		return nil, true, c.send(derr)
	}
	if r.db == "" {
		return nil, true, c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	res, sent, err := c.upQuery("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = "+quoteString(r.backing())+
		" AND TABLE_NAME = "+quoteString(r.table), orig, 1)
	if sent || err != nil {
		return nil, true, err
	}
	if len(res.rows) == 0 || strings.Contains(r.table, "$") {
		// Missing, or there but not visible to the client: Doris tells the two apart.
		if !strings.Contains(r.table, "$") {
			if adm, err := c.s.adminQuery("SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = "+
				quoteString(r.backing())+" AND TABLE_NAME = "+quoteString(r.table), 1); err == nil && len(adm.rows) == 1 {
				return nil, true, c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Permission denied: user ['%s'@'%%'] does not have "+
					"privilege for [priv predicate: OR, Admin_priv Select_priv ] command on [%s].[%s].[%s]", c.user, r.cat.name, r.db, r.table)))
			}
		}
		return nil, true, c.send(unknownExtTable(r.db, r.table))
	}
	return c.s.lake.table(r.backing(), r.table), false, nil
}

// extColumns answers SHOW [FULL] COLUMNS and DESC of an external table.
func (c *conn) extColumns(r extRef, full bool, orig string) error {
	if _, sent, err := c.checkExtTable(r, orig); sent || err != nil {
		return err
	}
	stmt := "SHOW "
	if full {
		stmt += "FULL "
	}
	return c.columnsResult(stmt+"COLUMNS FROM "+qualified(r.backing(), r.table), orig, full, r.backing(), r.table)
}

// ---------------------------------------------------------------- DDL

// extDatabaseDDL: CREATE DATABASE [IF NOT EXISTS] [c.]db and DROP DATABASE
// [IF EXISTS] [c.]db on an external catalog become DDL on the backing
// database, run as the client.
func (c *conn) extDatabaseDDL(sql string, ts []token) (bool, error) {
	i := 2
	cond := ""
	if i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
		cond, i = "IF NOT EXISTS ", i+3
	} else if i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		cond, i = "IF EXISTS ", i+2
	}
	parts, next := parseChain(ts, i)
	var cat *extCatalog
	switch len(parts) {
	case 1:
		cat = c.currentExt()
	case 2:
		cat = c.extCatalogOf(parts[0])
	}
	if cat == nil || len(parts) == 0 {
		return false, nil
	}
	if derr := cat.usable(); derr != nil {
		return true, c.send(derr)
	}
	db := parts[len(parts)-1]
	q := strings.ToUpper(ts[0].text) + " DATABASE " + cond + quoteIdent(BackingDatabase(cat.name, db))
	if ts[0].is("CREATE") {
		q += " " + tailAfter(sql, next)
	}
	r, sent, err := c.upQuery(q, sql, 1)
	if sent || err != nil {
		return true, err
	}
	return true, c.sendOK(r.affected, "")
}

// createTableDoris runs a translated CREATE TABLE.
func (c *conn) createTableDoris(sql string, ts []token) error {
	ct, ok, derr := parseCreateTable(ts)
	if derr != nil {
		return c.send(derr)
	}
	if !ok {
		return c.forward(sql)
	}
	var udb, utbl string
	m := &ct.meta
	m.table, m.created = ct.name.table, time.Now()
	if r, ext := c.resolveExt(ct.name); ext {
		if derr := r.cat.usable(); derr != nil {
			return c.send(derr)
		}
		if r.db == "" {
			return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
		}
		if len(m.keyCols) > 0 && r.cat.typ != "jdbc" {
			return c.send(newDorisErr(1105, "HY000", "Doris does not support key model for "+r.cat.typ+" table"))
		}
		m.catalog, m.db, m.format = r.cat.name, r.db, r.format(nil)
		udb, utbl = r.backing(), r.table
	} else {
		if ct.name.catalog != "" && !strings.EqualFold(ct.name.catalog, "internal") {
			return c.send(c.catalogError(ct.name.catalog))
		}
		udb, _, _ = c.snapshot()
		if ct.name.db != "" {
			udb = ct.name.db
		}
		if udb == "" {
			return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
		}
		m.db, utbl = udb, ct.name.table
	}
	// INDEX clauses are checked as Doris checks them, and kept in the
	// search index store once the table exists (searchddl.go).
	var indexes []searchIndex
	for _, item := range ct.indexItems {
		if m.format != "" {
			return c.send(newDorisErr(1105, "HY000", "Doris does not support index for "+m.format+" table"))
		}
		ix, derr := c.parseIndexDef(item, 0)
		if derr != nil {
			return c.send(derr)
		}
		if derr := c.checkIndex(&ix, ct.columns); derr != nil {
			return c.send(derr)
		}
		ix.db, ix.table = udb, utbl
		indexes = append(indexes, ix)
	}
	ddl := ct.mariaDDL(qualified(udb, utbl))
	if ct.query != "" {
		// The query of CREATE TABLE ... AS is Doris SQL like any other.
		q, _, derr := c.translate(ct.query)
		if derr != nil {
			return c.send(derr)
		}
		ddl += " AS " + q
	}
	stmts := []string{ddl}
	switch m.format {
	case "iceberg":
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+qualified(udb, utbl+"$snapshots")+" (committed_at DATETIME(6) NOT NULL, "+
			"snapshot_id BIGINT NOT NULL PRIMARY KEY, parent_id BIGINT NULL, operation VARCHAR(16) NOT NULL, "+
			"manifest_list VARCHAR(2048) NOT NULL, summary TEXT NOT NULL)")
	case "paimon":
		stmts = append(stmts, "CREATE TABLE IF NOT EXISTS "+qualified(udb, utbl+"$snapshots")+" (snapshot_id BIGINT NOT NULL PRIMARY KEY, "+
			"schema_id BIGINT NOT NULL, commit_user VARCHAR(64) NOT NULL, commit_identifier BIGINT NOT NULL, commit_kind VARCHAR(16) NOT NULL, "+
			"commit_time DATETIME(3) NOT NULL, base_manifest_list VARCHAR(2048), delta_manifest_list VARCHAR(2048), "+
			"changelog_manifest_list VARCHAR(2048), total_record_count BIGINT, delta_record_count BIGINT, "+
			"changelog_record_count BIGINT, watermark BIGINT)")
	}
	for k, q := range stmts {
		r, sent, err := c.upQuery(q, sql, 1)
		if sent || err != nil {
			return err
		}
		if k == 0 && r != nil && r.isOK && ct.ifNotExists && c.s.lake.table(udb, utbl) != nil {
			return c.sendOK(0, "") // existed: keep its metadata
		}
	}
	c.s.lake.setTable(udb, utbl, m)
	if err := c.s.saveTableMeta(udb, utbl, m); err != nil { // metadata.go
		return c.send(newDorisErr(1105, "HY000", "failed to record the table's metadata"))
	}
	if err := c.s.forgetTableStats(udb, utbl); err != nil { // a new table has no statistics
		return c.send(newDorisErr(1105, "HY000", "failed to reset the table's statistics"))
	}
	if err := c.s.saveIndexes(udb, utbl, true, indexes); err != nil {
		return c.send(newDorisErr(1105, "HY000", "failed to record the table's indexes"))
	}
	return c.sendOK(0, "")
}

// dropTableDoris forgets the metadata of a dropped table and, for an
// external one, drops its snapshot table too.
func (c *conn) dropTableDoris(sql string, ts []token) (bool, error) {
	i := 2
	cond := ""
	if i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		cond, i = "IF EXISTS ", i+2
	}
	q, next, ok := parseTableRef(ts, i)
	if !ok || next != len(ts) {
		return false, nil
	}
	r, ext := c.resolveExt(q)
	if !ext {
		db := q.db
		if db == "" {
			db, _, _ = c.snapshot()
		}
		c.s.lake.setTable(stripInternalPrefix(db), q.table, nil)
		if err := c.s.saveTableMeta(stripInternalPrefix(db), q.table, nil); err != nil {
			return true, c.send(newDorisErr(1105, "HY000", "failed to forget the table's metadata"))
		}
		return false, nil
	}
	if derr := r.cat.usable(); derr != nil {
		return true, c.send(derr)
	}
	res, sent, err := c.upQuery("DROP TABLE "+cond+qualified(r.backing(), r.table), sql, 1)
	if sent || err != nil {
		return true, err
	}
	if _, sent, err := c.upQuery("DROP TABLE IF EXISTS "+qualified(r.backing(), r.table+"$snapshots"), sql, 1); sent || err != nil {
		return true, err
	}
	c.s.lake.setTable(r.backing(), r.table, nil)
	if err := c.s.saveTableMeta(r.backing(), r.table, nil); err != nil {
		return true, c.send(newDorisErr(1105, "HY000", "failed to forget the table's metadata"))
	}
	return true, c.sendOK(res.affected, "")
}
