package sim

import (
	"fmt"
	"slices"
	"strings"
)

// showCreateTable answers SHOW CREATE TABLE for base tables with Doris DDL
// built from the upstream definition (views are forwarded: same shape).
func (c *conn) showCreateTable(sql string, ts []token, i int) error {
	q, next, ok := parseTableRef(ts, i)
	if !ok || next < len(ts) {
		return c.forward(sql)
	}
	if derr := c.checkCatalog(q.catalog); derr != nil {
		return c.send(derr)
	}
	db := q.db
	if db == "" {
		db, _, _ = c.snapshot()
	}
	udb, utbl := c.upstreamTable(db, q.table)
	cols, sent, err := c.upQuery("SHOW FULL COLUMNS FROM "+qualified(udb, utbl), sql, 10000)
	if sent || err != nil {
		return err
	}
	info, sent, err := c.upQuery(fmt.Sprintf("SELECT TABLE_TYPE, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
		quoteString(udb), quoteString(utbl)), sql, 1)
	if sent || err != nil {
		return err
	}
	if len(info.rows) == 1 && deref(info.rows[0][0]) == "VIEW" {
		return c.forward("SHOW CREATE TABLE " + qualified(udb, utbl))
	}
	idx, sent, err := c.upQuery("SHOW INDEX FROM "+qualified(udb, utbl), sql, 10000)
	if sent || err != nil {
		return err
	}
	get := func(r *result, row []*string, name string) string {
		if k := r.colIndex(name); k >= 0 && k < len(row) {
			return deref(row[k])
		}
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE `%s` (\n", q.table)
	var keys []string
	var lines []string
	for _, row := range cols.rows {
		name := get(cols, row, "Field")
		null := "NULL"
		if get(cols, row, "Null") == "NO" {
			null = "NOT NULL"
		}
		typ := strings.NewReplacer("decimalv3", "decimal", "datetimev2", "datetime", "datev2", "date").Replace(dorisType(get(cols, row, "Type")))
		typ = strings.TrimSuffix(typ, "(0)")
		if t := c.s.lake.columnType(udb, utbl, name); t != "" {
			typ = t // a type MariaDB stores differently (VARIANT, ARRAY, ...)
		}
		line := fmt.Sprintf("  `%s` %s %s", name, typ, null)
		if k := cols.colIndex("Default"); k >= 0 && row[k] != nil {
			line += " DEFAULT " + quoteDDL(strings.Trim(*row[k], "'"))
		}
		line += " COMMENT " + quoteDDL(get(cols, row, "Comment"))
		lines = append(lines, line)
		if get(cols, row, "Key") == "PRI" {
			keys = append(keys, "`"+name+"`")
		}
	}
	for _, row := range idx.rows {
		name := get(idx, row, "Key_name")
		if !secondaryKey(name, get(idx, row, "Non_unique")) {
			continue
		}
		props := ""
		if get(idx, row, "Index_type") == "FULLTEXT" {
			props = ` PROPERTIES("parser" = "english", "lower_case" = "true", "support_phrase" = "true")`
		}
		lines = append(lines, fmt.Sprintf("  INDEX %s (`%s`) USING INVERTED%s COMMENT %s", name, get(idx, row, "Column_name"), props,
			quoteDDL(get(idx, row, "Index_comment"))))
	}
	for _, ix := range c.storedIndexes(db, q.table) { // searchstore.go
		lines = append(lines, "  "+ix.ddl()+" COMMENT "+quoteDDL(ix.comment))
	}
	b.WriteString(strings.Join(lines, ",\n"))
	b.WriteString("\n) ENGINE=OLAP\n")
	model := "DUPLICATE"
	meta := c.s.lake.table(udb, utbl)
	if meta != nil && meta.keyModel != "" {
		model, keys = meta.keyModel, nil
		for _, k := range meta.keyCols {
			keys = append(keys, "`"+k+"`")
		}
	} else if len(keys) > 0 {
		model = "UNIQUE"
	} else if len(cols.rows) > 0 {
		keys = []string{"`" + get(cols, cols.rows[0], "Field") + "`"}
	}
	fmt.Fprintf(&b, "%s KEY(%s)\n", model, strings.Join(keys, ", "))
	if len(info.rows) == 1 {
		fmt.Fprintf(&b, "COMMENT %s\n", quoteDDL(deref(info.rows[0][1])))
	}
	switch {
	case meta != nil && meta.distKind == "RANDOM":
		fmt.Fprintf(&b, "DISTRIBUTED BY RANDOM BUCKETS %s\n", meta.buckets)
	case meta != nil && meta.distKind == "HASH":
		dist := make([]string, len(meta.distCols))
		for i, k := range meta.distCols {
			dist[i] = "`" + k + "`"
		}
		fmt.Fprintf(&b, "DISTRIBUTED BY HASH(%s) BUCKETS %s\n", strings.Join(dist, ", "), meta.buckets)
	default:
		// Not created through the simulator (the demo data set's tables,
		// which the demo presents as created with 10 buckets), or created
		// without DISTRIBUTED BY: the key columns.
		fmt.Fprintf(&b, "DISTRIBUTED BY HASH(%s) BUCKETS 10\n", strings.Join(keys, ", "))
	}
	b.WriteString("PROPERTIES (\n")
	props := []string{`"replication_allocation" = "tag.location.default: 1"`, `"min_load_replica_num" = "-1"`,
		`"is_being_synced" = "false"`, `"storage_medium" = "hdd"`, `"storage_format" = "V2"`,
		`"inverted_index_storage_format" = "V2"`}
	if model == "UNIQUE" {
		props = append(props, `"enable_unique_key_merge_on_write" = "true"`)
	}
	props = append(props, `"light_schema_change" = "true"`, `"disable_auto_compaction" = "false"`,
		`"enable_single_replica_compaction" = "false"`, `"group_commit_interval_ms" = "10000"`,
		`"group_commit_data_bytes" = "134217728"`)
	// Properties given at CREATE TABLE through the simulator, then those
	// ALTER TABLE ... SET changed since (which win).
	var given [][2]string
	if meta != nil {
		given = meta.props
	}
	altered := c.alteredTableProperties(db, q.table)
	// A given property replaces its default in place (Doris shows one
	// "storage_format", V3 when the table was created so); others follow.
	put := func(kv [2]string) {
		for i, d := range props {
			if strings.HasPrefix(strings.ToLower(d), strings.ToLower(fmt.Sprintf("%q = ", kv[0]))) {
				props[i] = fmt.Sprintf("%q = %q", kv[0], kv[1])
				return
			}
		}
		props = append(props, fmt.Sprintf("%q = %q", kv[0], kv[1]))
	}
	for _, kv := range given {
		if !slices.ContainsFunc(altered, func(a [2]string) bool { return strings.EqualFold(a[0], kv[0]) }) {
			put(kv)
		}
	}
	for _, kv := range altered {
		put(kv)
	}
	b.WriteString(strings.Join(props, ",\n"))
	b.WriteString("\n);")
	return c.sendResult([]string{"Table", "Create Table"}, [][]any{{q.table, b.String()}})
}

func quoteDDL(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `'`, `\'`) + "'"
}

// Table-valued functions about jobs: the simulator has none, so they become
// empty derived tables with the Doris column names.
var tvfColumns = map[string][]string{
	"jobs:insert": {"Id", "Name", "Definer", "ExecuteType", "RecurringStrategy", "Status", "ExecuteSql", "CreateTime",
		"SucceedTaskCount", "FailedTaskCount", "CanceledTaskCount", "Comment"},
	"jobs:mv": {"Id", "Name", "MvId", "MvName", "MvDatabaseId", "MvDatabaseName", "ExecuteType", "RecurringStrategy",
		"Status", "CreateTime"},
	"tasks:insert": {"TaskId", "JobId", "JobName", "Label", "Status", "ErrorMsg", "CreateTime", "StartTime",
		"FinishTime", "TrackingUrl", "LoadStatistic", "User"},
	"tasks:mv": {"TaskId", "JobId", "JobName", "MvId", "MvName", "MvDatabaseId", "MvDatabaseName", "Status",
		"ErrorMsg", "CreateTime", "StartTime", "FinishTime", "DurationMs", "TaskContext", "RefreshMode",
		"NeedRefreshPartitions", "CompletedPartitions", "Progress", "LastQueryId"},
	"mv_infos": {"Id", "Name", "JobName", "State", "SchemaChangeDetail", "RefreshState", "RefreshInfo", "QuerySql",
		"MvProperties", "MvPartitionInfo", "SyncWithBaseTables"},
	// local() reads a file on a backend; the simulator has none to read, so
	// an allowed local() (EGRESS_ALLOWED_FUNCTIONS) runs and returns no row.
	"local": {"c1"},
}

// tvfDerived returns the replacement for name(args) or "" when unknown.
func tvfDerived(name string, args []token) string {
	name = strings.ToLower(name)
	key := name
	if name == "jobs" || name == "tasks" {
		typ := ""
		for k := 0; k+2 < len(args); k++ {
			if args[k].kind == tkString && strings.EqualFold(args[k].str(), "type") && args[k+1].isP("=") {
				typ = strings.ToLower(args[k+2].str())
			}
		}
		key = name + ":" + typ
	}
	cols, ok := tvfColumns[key]
	if !ok {
		return ""
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "CAST(NULL AS CHAR) AS " + quoteIdent(c)
	}
	return "(SELECT " + strings.Join(parts, ", ") + " FROM DUAL WHERE 1 = 0)"
}
