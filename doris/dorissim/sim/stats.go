package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Column and table statistics, computed from the data:
//
//	ANALYZE TABLE [db.]t [(c1, c2)] [WITH SYNC] [WITH SAMPLE PERCENT n | ROWS n]
//	SHOW TABLE STATS [db.]t
//	SHOW COLUMN [CACHED] STATS [db.]t [(c1, c2)]
//
// ANALYZE reads the table on the client's own upstream connection, so a
// user who may not SELECT it gets Doris's permission error, and stores the
// result through the admin account. The simulator always analyzes fully
// and at once; WITH SYNC answers OK, otherwise the job row Doris returns
// for an asynchronous job (it is finished by the time anyone looks).

// statsColumn is one column eligible for statistics.
type statsColumn struct{ name, typ string }

// skippedStatsType reports MariaDB column types Doris would not collect
// statistics for (complex and semi-structured types).
func skippedStatsType(dataType string) bool {
	switch strings.ToLower(dataType) {
	case "json", "longblob", "geometry", "point", "linestring", "polygon":
		return true
	}
	return false
}

func (c *conn) analyzeTable(ts []token) error {
	db, table, next, derr := c.statsTarget(ts, 2)
	if derr != nil {
		return c.send(derr)
	}
	q := qname{db: db, table: table}
	var only []string
	if next < len(ts) && ts[next].isP("(") {
		for next++; next < len(ts) && !ts[next].isP(")"); next++ {
			if ts[next].isIdent() {
				only = append(only, ts[next].ident())
			}
		}
		next++
	}
	sync := false
	for k := next; k+1 < len(ts); k++ {
		if ts[k].is("WITH") && ts[k+1].is("SYNC") {
			sync = true
		}
	}
	cols, derr := c.statsColumns(db, q.table, only)
	if derr != nil {
		return c.send(derr)
	}
	var sel []string
	for _, col := range cols {
		n := quoteIdent(col.name)
		lo, hi := "CAST(MIN("+n+") AS CHAR)", "CAST(MAX("+n+") AS CHAR)"
		if binaryStatsType(col.typ) {
			lo, hi = "NULL", "NULL" // Doris shows no bounds for binary data
		}
		sel = append(sel, "COUNT(DISTINCT "+n+")", "SUM("+n+" IS NULL)", "COALESCE(SUM(LENGTH("+n+")), 0)", lo, hi)
	}
	r, sent, err := c.upQuery("SELECT COUNT(*)"+prefixComma(sel)+" FROM "+qualified(db, q.table), "", 1)
	if sent || err != nil {
		return err
	}
	row := r.rows[0]
	count, _ := strconv.ParseInt(deref(row[0]), 10, 64)
	now := time.Now().Format("2006-01-02 15:04:05")
	jobID := time.Now().UnixMilli()
	var stmts, names []string
	for k, col := range cols {
		v := row[1+5*k : 6+5*k]
		stmts = append(stmts, fmt.Sprintf("REPLACE INTO `%s`.sim_column_stats VALUES (%s, %s, %s, %d, %d, %s, %s, %s, %s, %s, 'FULL', %s)",
			simSchema, quoteString(db), quoteString(q.table), quoteString(col.name), k, count, orZero(v[0]), orZero(v[1]),
			orZero(v[2]), sqlOrNull(v[3]), sqlOrNull(v[4]), quoteString(now)))
		names = append(names, col.name)
	}
	jobType := "MANUAL"
	stmts = append(stmts, fmt.Sprintf("REPLACE INTO `%s`.sim_table_stats VALUES (%s, %s, %d, %s, %s, %s, %d)",
		simSchema, quoteString(db), quoteString(q.table), count, quoteString(strings.Join(names, ",")), quoteString(jobType), quoteString(now), jobID))
	if err := c.s.adminExec(stmts...); err != nil {
		return c.send(metaFailed())
	}
	if sync {
		return c.sendOK(0, "")
	}
	return c.sendResult([]string{"Catalog_Name", "DB_Name", "Table_Name", "Columns", "Job_Id"},
		[][]any{{"internal", db, q.table, "[" + strings.Join(names, ",") + "]", strconv.FormatInt(jobID, 10)}})
}

func prefixComma(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return ", " + strings.Join(xs, ", ")
}

func orZero(s *string) string {
	if s == nil || *s == "" {
		return "0"
	}
	return *s
}

func sqlOrNull(s *string) string {
	if s == nil {
		return "NULL"
	}
	return quoteString(*s)
}

func binaryStatsType(dataType string) bool {
	switch strings.ToLower(dataType) {
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob":
		return true
	}
	return false
}

// statsColumns lists the table's columns on the client's connection (so an
// invisible table is an error the client's privileges decide); only
// restricts them to the named ones.
func (c *conn) statsColumns(db, table string, only []string) ([]statsColumn, *dorisErr) {
	r, err := c.upstreamConn().query("SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "+
		quoteString(db)+" AND TABLE_NAME = "+quoteString(table)+" ORDER BY ORDINAL_POSITION", 10000)
	if err != nil || r == nil {
		return nil, newDorisErr(1105, "HY000", "failed to read the table schema")
	}
	if len(r.rows) == 0 {
		return nil, &dorisErr{1051, "42S02", fmt.Sprintf("errCode = 2, detailMessage = Unknown table '%s'", table)}
	}
	var out []statsColumn
	for _, row := range r.rows {
		col := statsColumn{name: deref(row[0]), typ: deref(row[1])}
		if skippedStatsType(col.typ) {
			continue
		}
		if len(only) > 0 && !containsFold(only, col.name) {
			continue
		}
		out = append(out, col)
	}
	for _, o := range only {
		found := false
		for _, col := range out {
			found = found || strings.EqualFold(col.name, o)
		}
		if !found {
			return nil, newDorisErr(1105, "HY000", fmt.Sprintf("Column: %s not exists", o))
		}
	}
	return out, nil
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// statsTarget resolves [db.]t at ts[i] and checks that the client may read
// it, as Doris checks SELECT on the table before showing its statistics.
func (c *conn) statsTarget(ts []token, i int) (db, table string, next int, derr *dorisErr) {
	q, next, ok := parseTableRef(ts, i)
	if !ok {
		return "", "", 0, syntaxAt(ts, i, syntaxExpectName)
	}
	if derr := c.checkCatalog(q.catalog); derr != nil {
		return "", "", 0, derr
	}
	db = q.db
	if db == "" {
		db, _, _ = c.snapshot()
	}
	if _, err := c.upstreamConn().query("SELECT 1 FROM "+qualified(db, q.table)+" LIMIT 0", 1); err != nil {
		var pe *parsedErr
		if errors.As(err, &pe) {
			return "", "", 0, c.mapError(pe, "", "")
		}
		return "", "", 0, newDorisErr(1105, "HY000", "failed to read the table")
	}
	return db, q.table, next, nil
}

// tableStatsCols are SHOW TABLE STATS's columns: ShowTableStatsStmt (2.1)
// and ShowTableStatsCommand, which adds last_analyze_time (3.0 and later).
func (p profile) tableStatsCols() []string {
	c := []string{"updated_rows", "query_times", "row_count", "updated_time", "columns", "trigger", "new_partition",
		"user_inject", "enable_auto_analyze"}
	if p.atLeast("3.0") {
		c = append(c, "last_analyze_time")
	}
	return c
}

func (c *conn) showTableStats(ts []token, i int) error {
	db, table, _, derr := c.statsTarget(ts, i)
	if derr != nil {
		return c.send(derr)
	}
	p := c.s.profile()
	r, err := c.s.adminQuery(fmt.Sprintf("SELECT row_count, cols, job_type, DATE_FORMAT(updated, '%%Y-%%m-%%d %%H:%%i:%%s') FROM `%s`.sim_table_stats WHERE db = %s AND tbl = %s",
		simSchema, quoteString(db), quoteString(table)), 1)
	if err != nil {
		return c.send(metaFailed())
	}
	if len(r.rows) == 0 {
		// Never analyzed: Doris shows the row count the BEs reported.
		n, sent, err := c.upQuery("SELECT COUNT(*) FROM "+qualified(db, table), "", 1)
		if sent || err != nil {
			return err
		}
		row := []any{"", "", deref(n.rows[0][0]), "", "", "", "", "", "true"}
		if p.atLeast("3.0") {
			row = append(row, "")
		}
		return c.sendResult(p.tableStatsCols(), [][]any{row})
	}
	st := r.rows[0]
	var pairs []string
	for _, col := range strings.Split(deref(st[1]), ",") {
		pairs = append(pairs, "("+table+", "+col+")")
	}
	row := []any{"0", "0", deref(st[0]), deref(st[3]), "[" + strings.Join(pairs, ", ") + "]", deref(st[2]), "false", "false", "true"}
	if p.atLeast("3.0") {
		row = append(row, deref(st[3]))
	}
	return c.sendResult(p.tableStatsCols(), [][]any{row})
}

// columnStatsCols are SHOW COLUMN STATS's columns: 2.1's ShowColumnStatsStmt
// ends with last_analyze_row_count; later releases add
// last_analyze_version, and 4.x hot_values.
func (p profile) columnStatsCols() []string {
	c := []string{"column_name", "index_name", "count", "ndv", "num_null", "data_size", "avg_size_byte", "min", "max",
		"method", "type", "trigger", "query_times", "updated_time", "update_rows", "last_analyze_row_count"}
	if p.atLeast("3.0") {
		c = append(c, "last_analyze_version")
	}
	if p.atLeast("4.0") {
		c = append(c, "hot_values")
	}
	return c
}

func (c *conn) showColumnStats(ts []token, i int) error {
	db, table, next, derr := c.statsTarget(ts, i)
	if derr != nil {
		return c.send(derr)
	}
	var only []string
	if next < len(ts) && ts[next].isP("(") {
		for next++; next < len(ts) && !ts[next].isP(")"); next++ {
			if ts[next].isIdent() {
				only = append(only, ts[next].ident())
			}
		}
	}
	r, err := c.s.adminQuery(fmt.Sprintf("SELECT col, cnt, ndv, num_null, data_size, min_value, max_value, method, "+
		"DATE_FORMAT(updated, '%%Y-%%m-%%d %%H:%%i:%%s') FROM `%s`.sim_column_stats WHERE db = %s AND tbl = %s ORDER BY ord",
		simSchema, quoteString(db), quoteString(table)), 10000)
	if err != nil {
		return c.send(metaFailed())
	}
	p := c.s.profile()
	var rows [][]any
	for _, st := range r.rows {
		name := deref(st[0])
		if len(only) > 0 && !containsFold(only, name) {
			continue
		}
		cnt, _ := strconv.ParseFloat(deref(st[1]), 64)
		size, _ := strconv.ParseFloat(deref(st[4]), 64)
		avg := 0.0
		if cnt > 0 {
			avg = size / cnt
		}
		quote := func(s *string) any {
			if s == nil {
				return "N/A"
			}
			return "'" + *s + "'"
		}
		row := []any{name, table, dorisDouble(deref(st[1])), dorisDouble(deref(st[2])), dorisDouble(deref(st[3])),
			dorisDouble(deref(st[4])), strconv.FormatFloat(avg, 'f', -1, 64), quote(st[5]), quote(st[6]), deref(st[7]),
			"FUNDAMENTALS", "MANUAL", "0", deref(st[8]), "0", deref(st[1])}
		if p.atLeast("3.0") {
			row = append(row, "1")
		}
		if p.atLeast("4.0") {
			row = append(row, "")
		}
		rows = append(rows, row)
	}
	return c.sendResult(p.columnStatsCols(), rows)
}

// dorisDouble prints a count as Doris prints its double statistics ("200.0").
func dorisDouble(s string) string {
	if s == "" {
		s = "0"
	}
	if !strings.ContainsAny(s, ".eE") {
		return s + ".0"
	}
	return s
}
