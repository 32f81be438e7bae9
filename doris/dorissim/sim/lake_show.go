package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SHOW CREATE TABLE, SHOW TABLE STATS, SHOW PARTITIONS and EXPLAIN scan
// nodes of external tables, computed from the backing data and metadata.

// extColumnDefs reads the columns of r's backing table as Doris shows them.
func (c *conn) extColumnDefs(r extRef, m *tableMeta, orig string) ([][3]string, bool, error) {
	res, sent, err := c.upQuery("SHOW FULL COLUMNS FROM "+qualified(r.backing(), r.table), orig, 10000)
	if sent || err != nil {
		return nil, sent, err
	}
	var out [][3]string // name, type, comment
	for _, row := range res.rows {
		get := func(name string) string {
			if k := res.colIndex(name); k >= 0 && k < len(row) {
				return deref(row[k])
			}
			return ""
		}
		name := get("Field")
		typ := dorisType(get("Type"))
		if m != nil && m.types[strings.ToLower(name)] != "" {
			typ = m.types[strings.ToLower(name)]
		}
		out = append(out, [3]string{name, typ, get("Comment")})
	}
	return out, false, nil
}

// extShowCreate answers SHOW CREATE TABLE of an external table in the
// shape Doris prints for its format, location and properties included.
func (c *conn) extShowCreate(r extRef, orig string) error {
	m, sent, err := c.checkExtTable(r, orig)
	if sent || err != nil {
		return err
	}
	cols, sent, err := c.extColumnDefs(r, m, orig)
	if sent || err != nil {
		return err
	}
	format := r.format(m)
	var part []string
	var props [][2]string
	if m != nil {
		part, props = m.partCols, m.props
	}
	var b strings.Builder
	if format == "hive" {
		fmt.Fprintf(&b, "CREATE TABLE `%s`(\n", r.table)
		var lines []string
		for _, col := range cols {
			if containsFold(part, col[0]) {
				continue
			}
			lines = append(lines, fmt.Sprintf("  `%s` %s COMMENT %s", col[0], hiveType(col[1]), quoteDDL(col[2])))
		}
		b.WriteString(strings.Join(lines, ",\n") + ")\n")
		if len(part) > 0 {
			var pl []string
			for _, p := range part {
				for _, col := range cols {
					if strings.EqualFold(col[0], p) {
						pl = append(pl, fmt.Sprintf(" `%s` %s", col[0], hiveType(col[1])))
					}
				}
			}
			b.WriteString("PARTITIONED BY (\n" + strings.Join(pl, ",\n") + ")\n")
		}
		b.WriteString("ROW FORMAT SERDE\n  'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe'\n" +
			"STORED AS INPUTFORMAT\n  'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat'\n" +
			"OUTPUTFORMAT\n  'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat'\n")
		fmt.Fprintf(&b, "LOCATION\n  '%s'\nTBLPROPERTIES (\n", r.tableLocation())
		tp := []string{fmt.Sprintf("  'transient_lastDdlTime'='%d'", createdAt(m).Unix())}
		for _, p := range props {
			tp = append(tp, fmt.Sprintf("  '%s'='%s'", p[0], p[1]))
		}
		b.WriteString(strings.Join(tp, ",\n") + ")")
		return c.sendResult([]string{"Table", "Create Table"}, [][]any{{r.table, b.String()}})
	}
	fmt.Fprintf(&b, "CREATE TABLE `%s` (\n", r.table)
	var lines []string
	for _, col := range cols {
		line := fmt.Sprintf("  `%s` %s NULL", col[0], col[1])
		if col[2] != "" {
			line += " COMMENT " + quoteDDL(col[2])
		}
		lines = append(lines, line)
	}
	b.WriteString(strings.Join(lines, ",\n"))
	fmt.Fprintf(&b, "\n) ENGINE=%s_EXTERNAL_TABLE\n", strings.ToUpper(format))
	if len(part) > 0 {
		var q []string
		for _, p := range part {
			q = append(q, "`"+p+"`")
		}
		fmt.Fprintf(&b, "PARTITION BY LIST (%s) ()\n", strings.Join(q, ", "))
	}
	if format == "iceberg" || format == "paimon" {
		fmt.Fprintf(&b, "LOCATION '%s'\n", r.tableLocation())
	}
	all := defaultTableProps(format)
	for _, p := range props {
		all = setProp(all, p[0], p[1])
	}
	var pl []string
	for _, p := range all {
		pl = append(pl, fmt.Sprintf("  %q = %q", p[0], p[1]))
	}
	b.WriteString("PROPERTIES (\n" + strings.Join(pl, ",\n") + "\n);")
	return c.sendResult([]string{"Table", "Create Table"}, [][]any{{r.table, b.String()}})
}

func defaultTableProps(format string) [][2]string {
	switch format {
	case "iceberg":
		return [][2]string{{"format-version", "2"}, {"write-format", "parquet"}, {"write.parquet.compression-codec", "zstd"}}
	case "paimon":
		return [][2]string{{"file.format", "parquet"}, {"bucket", "-1"}}
	}
	return nil
}

func setProp(props [][2]string, k, v string) [][2]string {
	for i := range props {
		if props[i][0] == k {
			props[i][1] = v
			return props
		}
	}
	return append(props, [2]string{k, v})
}

func createdAt(m *tableMeta) time.Time {
	if m != nil {
		return m.created
	}
	return time.Now()
}

// hiveType renders a Doris type as Hive spells it.
func hiveType(t string) string {
	switch {
	case t == "text" || strings.HasPrefix(t, "varchar(65533)"):
		return "string"
	case strings.HasPrefix(t, "datev2"):
		return "date"
	case strings.HasPrefix(t, "datetimev2"):
		return "timestamp"
	case strings.HasPrefix(t, "decimalv3"):
		return "decimal" + strings.TrimPrefix(t, "decimalv3")
	}
	return t
}

// extTableStats answers SHOW TABLE STATS of an external table: the row
// count is the backing table's, the update time its last commit.
func (c *conn) extTableStats(r extRef, orig string) error {
	m, sent, err := c.checkExtTable(r, orig)
	if sent || err != nil {
		return err
	}
	res, sent, err := c.upQuery("SELECT COUNT(*) FROM "+qualified(r.backing(), r.table), orig, 1)
	if sent || err != nil {
		return err
	}
	updated := createdAt(m)
	if f := r.format(m); f == "iceberg" || f == "paimon" {
		col := "committed_at"
		if f == "paimon" {
			col = "commit_time"
		}
		if last, err := c.upstreamConn().query("SELECT MAX("+col+") FROM "+qualified(r.backing(), r.table+"$snapshots"), 1); err == nil &&
			len(last.rows) == 1 && last.rows[0][0] != nil {
			if t, err := time.ParseInLocation("2006-01-02 15:04:05", strings.SplitN(*last.rows[0][0], ".", 2)[0], time.Local); err == nil {
				updated = t
			}
		}
	}
	cols := []string{"updated_rows", "query_times", "row_count", "updated_time", "columns", "trigger", "new_partition",
		"user_inject", "enable_auto_analyze", "last_analyze_time"}
	return c.sendResult(cols, [][]any{{"0", "0", deref(res.rows[0][0]), fmtTime(updated), "[]", "MANUAL", "false", "false",
		"true", "N/A"}})
}

// extPartitions answers SHOW PARTITIONS of an external table: Hive
// tables list their partition values; Doris refuses the other formats.
func (c *conn) extPartitions(r extRef, limit int, orig string) error {
	m, sent, err := c.checkExtTable(r, orig)
	if sent || err != nil {
		return err
	}
	format := r.format(m)
	if format != "hive" {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Catalog of type '%s' is not allowed in ShowPartitionsStmt", r.cat.typ)))
	}
	if m == nil || len(m.partCols) == 0 {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Table %s is not a partitioned table", r.table)))
	}
	var parts []string
	for _, p := range m.partCols {
		parts = append(parts, fmt.Sprintf("CONCAT(%s, '=', COALESCE(CAST(%s AS CHAR), '__HIVE_DEFAULT_PARTITION__'))",
			quoteString(p), quoteIdent(p)))
	}
	q := "SELECT DISTINCT CONCAT_WS('/', " + strings.Join(parts, ", ") + ") AS p FROM " + qualified(r.backing(), r.table) + " ORDER BY p"
	if limit >= 0 {
		q += " LIMIT " + strconv.Itoa(limit)
	}
	res, sent, err := c.upQuery(q, orig, 100000)
	if sent || err != nil {
		return err
	}
	rows := make([][]any, len(res.rows))
	for i, row := range res.rows {
		rows[i] = []any{deref(row[0])}
	}
	return c.sendResult([]string{"Partition"}, rows)
}

// extScanLines renders the scan node of an external table in a plan, or
// nil when s is not one.
func (c *conn) extScanLines(s scanInfo) func(id int, where, ind string) []string {
	cat, db, ok := splitBacking(s.db)
	if !ok {
		return nil
	}
	ext := c.extCatalogOf(cat)
	if ext == nil {
		return nil
	}
	r := extRef{cat: ext, db: db, table: s.table}
	m := c.s.lake.table(r.backing(), r.table)
	format := r.format(m)
	node := map[string]string{"iceberg": "VICEBERG_SCAN_NODE", "paimon": "VPAIMON_SCAN_NODE", "hive": "VHIVE_SCAN_NODE",
		"jdbc": "VJdbcScanNode", "es": "VEsScanNode"}[format]
	if node == "" {
		node = "VFILE_SCAN_NODE"
	}
	up := c.upstreamConn()
	files, parts, total := int64(1), int64(0), int64(0)
	if m != nil && len(m.partCols) > 0 && up != nil {
		var cols []string
		for _, p := range m.partCols {
			cols = append(cols, quoteIdent(p))
		}
		if res, err := up.query("SELECT COUNT(DISTINCT "+strings.Join(cols, ", ")+") FROM "+qualified(r.backing(), r.table), 1); err == nil && len(res.rows) == 1 {
			parts, _ = strconv.ParseInt(deref(res.rows[0][0]), 10, 64)
		}
	}
	if format == "iceberg" && up != nil {
		if res, err := up.query("SELECT s.summary FROM "+qualified(r.backing(), r.table+"$snapshots")+" s ORDER BY s.committed_at DESC LIMIT 1", 1); err == nil && len(res.rows) == 1 {
			var sum icebergSummary
			if json.Unmarshal([]byte(deref(res.rows[0][0])), &sum) == nil {
				files, total = max(sum.n("total-data-files"), 0), sum.n("total-files-size")
			}
		}
	}
	return func(id int, where, ind string) []string {
		out := []string{fmt.Sprintf("%s%d:%s(%d)", ind, id, node, 200+id), fmt.Sprintf("%s   table: %s.%s", ind, db, s.table)}
		if where != "" {
			out = append(out, fmt.Sprintf("%s   predicates: %s", ind, where))
		}
		if format == "jdbc" || format == "es" {
			return append(out, fmt.Sprintf("%s   cardinality=%d, numNodes=1", ind, s.rows))
		}
		out = append(out,
			fmt.Sprintf("%s   inputSplitNum=%d, totalFileSize=%d, scanRanges=%d", ind, files, total, files),
			fmt.Sprintf("%s   partition=%d/%d", ind, parts, parts),
			fmt.Sprintf("%s   backends:", ind),
			fmt.Sprintf("%s     %s", ind, backendID),
			fmt.Sprintf("%s       %s/data/00000-0-%s.parquet start: 0 length: %d", ind, r.tableLocation(), randomUUID(), total),
			fmt.Sprintf("%s   cardinality=%d, numNodes=1", ind, s.rows),
			fmt.Sprintf("%s   pushdown agg=NONE", ind))
		return out
	}
}
