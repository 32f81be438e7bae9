package metadata_test

// The doris_catalog children against the simulator over real MariaDB:
// every answer is checked against MariaDB's own information_schema, read
// as root straight from MariaDB.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// bulkTables is how many plain tables the bulk database holds, enough for
// two pages of list_tables (100 per page).
const bulkTables = 150

var bulkOnce sync.Once

// bulkDatabase creates (once per process) the database "bulk" with
// bulkTables small tables and one RANGE-partitioned table "events", and
// lets mcp_reader read it.
func bulkDatabase(t testing.TB, in *mariadb.Instance) {
	t.Helper()
	var err error
	bulkOnce.Do(func() {
		stmts := []string{"CREATE DATABASE IF NOT EXISTS bulk COMMENT 'paging and partition fixtures'"}
		for i := range bulkTables {
			stmts = append(stmts, fmt.Sprintf("CREATE TABLE IF NOT EXISTS bulk.t_%03d (id INT PRIMARY KEY) COMMENT 'fixture %d'", i, i))
		}
		stmts = append(stmts,
			`CREATE TABLE IF NOT EXISTS bulk.events (id INT NOT NULL, d DATE NOT NULL, v VARCHAR(20), PRIMARY KEY (id, d))
			 COMMENT 'partitioned by year'
			 PARTITION BY RANGE (YEAR(d)) (PARTITION p2023 VALUES LESS THAN (2024), PARTITION p2024 VALUES LESS THAN (2025),
			 PARTITION p2025 VALUES LESS THAN (2026), PARTITION pmax VALUES LESS THAN MAXVALUE)`,
			`INSERT IGNORE INTO bulk.events SELECT seq, DATE_ADD('2023-01-01', INTERVAL seq DAY), CONCAT('v', seq) FROM bulk.seq_0_to_1099`,
			"ANALYZE TABLE bulk.events",
			"GRANT SELECT, SHOW VIEW ON bulk.* TO 'mcp_reader'@'%'",
			"FLUSH PRIVILEGES")
		err = in.Exec(context.Background(), stmts...)
	})
	if err != nil {
		t.Fatalf("bulk fixtures: %v", err)
	}
}

func TestListCatalogs(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	var c doristest.CollectionOf
	e.Ok("doris_catalog", "list_catalogs", map[string]any{}).Decode(t, &c)
	got := c.Names()
	if !slices.Equal(got, []string{"hive", "internal"}) || c.NextCursor != nil || c.Truncated {
		t.Fatalf("catalogs %v (next %v, truncated %v)", got, c.NextCursor, c.Truncated)
	}
	for _, it := range c.Items {
		switch it["name"] {
		case "internal":
			if it["type"] != "internal" || it["is_current"] != true || it["comment"] != "Doris internal catalog" {
				t.Fatalf("internal catalog %v", it)
			}
		case "hive":
			if it["type"] != "hms" || it["is_current"] != false || it["comment"] != nil {
				t.Fatalf("hive catalog %v", it)
			}
		}
	}
	e.Ok("doris_catalog", "list_catalogs", map[string]any{"include_external": false}).Decode(t, &c)
	if got := c.Names(); !slices.Equal(got, []string{"internal"}) {
		t.Fatalf("internal only: %v", got)
	}
	e.Ok("doris_catalog", "list_catalogs", map[string]any{"pattern": "h*"}).Decode(t, &c)
	if got := c.Names(); !slices.Equal(got, []string{"hive"}) {
		t.Fatalf("pattern h*: %v", got)
	}
	e.Fail("doris_catalog", "list_catalogs", map[string]any{"pattern": "[unclosed"}, "CHILD_ARGUMENTS_INVALID", "CATALOG_PATTERN_INVALID")
}

func TestListDatabases(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	bulkDatabase(t, e.DB)
	// Ground truth: what MariaDB shows the same account, less the
	// simulator's own schema.
	reader := doristest.Direct(t, e.DB.Addr(), mariadb.ReaderUser, mariadb.ReaderPassword, "")
	var want []string
	for _, d := range doristest.Strings(t, reader, "SHOW DATABASES") {
		if d != mariadb.SimSchema {
			want = append(want, d)
		}
	}
	slices.SortFunc(want, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	var c doristest.CollectionOf
	e.Ok("doris_catalog", "list_databases", map[string]any{}).Decode(t, &c)
	if got := c.Names(); !slices.Equal(got, want) {
		t.Fatalf("databases %v, MariaDB shows the reader %v", got, want)
	}
	if slices.Contains(c.Names(), mariadb.SecretDatabase) {
		t.Fatal("the reader must not see the secret database")
	}
	e.Ok("doris_catalog", "list_databases", map[string]any{"catalog": "internal", "pattern": "de*"}).Decode(t, &c)
	if len(c.Items) != 1 || c.Items[0]["name"] != "demo" || c.Items[0]["catalog"] != "internal" {
		t.Fatalf("internal de*: %v", c.Items)
	}
	// The simulated hive catalog's metastore never answers.
	e.Fail("doris_catalog", "list_databases", map[string]any{"catalog": "hive"}, "CHILD_EXECUTION_FAILED", "")
	e.Fail("doris_catalog", "list_databases", map[string]any{"catalog": "nope"}, "CHILD_EXECUTION_FAILED", "CATALOG_OBJECT_NOT_FOUND")
	e.Fail("doris_catalog", "list_databases", map[string]any{"catalog": "in`ternal"}, "CHILD_ARGUMENTS_INVALID", "CATALOG_IDENTIFIER_INVALID")
}

func TestListTablesMatchesMariaDB(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	rows, err := e.RootDB().Query("SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.tables WHERE TABLE_SCHEMA = 'demo'")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var n, typ string
		if err := rows.Scan(&n, &typ); err != nil {
			t.Fatal(err)
		}
		kind := "table"
		if typ == "VIEW" {
			kind = "view"
		}
		want = append(want, n+":"+kind)
	}
	rows.Close()
	slices.SortFunc(want, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	var c doristest.CollectionOf
	e.Ok("doris_catalog", "list_tables", map[string]any{"database": "demo"}).Decode(t, &c)
	var got []string
	for _, it := range c.Items {
		got = append(got, it["name"].(string)+":"+it["type"].(string))
		if _, ok := it["storage_format"]; !ok {
			t.Fatalf("3.0 lists Storage_format: %v", it)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("list_tables %v, MariaDB has %v", got, want)
	}
	e.Ok("doris_catalog", "list_tables", map[string]any{"database": "demo", "types": []string{"view"}}).Decode(t, &c)
	if got := c.Names(); !slices.Equal(got, []string{"v_daily_sales"}) {
		t.Fatalf("views %v", got)
	}
	e.Ok("doris_catalog", "list_tables", map[string]any{"database": "demo", "catalog": "internal", "pattern": "order*"}).Decode(t, &c)
	if got := c.Names(); !slices.Equal(got, []string{"order_items", "orders"}) {
		t.Fatalf("order*: %v", got)
	}
	// A database the account may not see and one that does not exist get
	// the same answer (the server does not disclose which), never the
	// backend's text.
	for _, db := range []string{"nope", "secret"} {
		ev := e.Fail("doris_catalog", "list_tables", map[string]any{"database": db}, "CHILD_EXECUTION_FAILED", "CATALOG_PERMISSION_DENIED")
		if ev.Error.Retryable || ev.Error.Details.StatusCode != 403 || strings.Contains(ev.Error.Message, db) {
			t.Fatalf("%s: %s", db, ev.Raw)
		}
	}
	for _, bad := range []string{"de`mo", "demo'", `de"mo`, "de\\mo", "de\nmo"} {
		e.Fail("doris_catalog", "list_tables", map[string]any{"database": bad}, "CHILD_ARGUMENTS_INVALID", "CATALOG_IDENTIFIER_INVALID")
	}
}

func TestListTablesPaging(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	bulkDatabase(t, e.DB)
	want := doristest.Strings(t, e.RootDB(), "SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 'bulk'")
	slices.SortFunc(want, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	if len(want) <= 100 {
		t.Fatalf("fixture has %d tables", len(want))
	}
	args := map[string]any{"database": "bulk"}
	var p1, p2 doristest.CollectionOf
	e.Ok("doris_catalog", "list_tables", args).Decode(t, &p1)
	if len(p1.Items) != 100 || p1.NextCursor == nil || p1.Truncated {
		t.Fatalf("page 1: %d items, next %v", len(p1.Items), p1.NextCursor)
	}
	cursor := *p1.NextCursor
	e.Ok("doris_catalog", "list_tables", map[string]any{"database": "bulk", "page": cursor}).Decode(t, &p2)
	if p2.NextCursor != nil || len(p2.Items) != len(want)-100 {
		t.Fatalf("page 2: %d items, next %v", len(p2.Items), p2.NextCursor)
	}
	if got := append(p1.Names(), p2.Names()...); !slices.Equal(got, want) {
		t.Fatalf("pages %v\nMariaDB %v", got, want)
	}
	// The same cursor again is fine (it is a position, not a one-time token).
	e.Ok("doris_catalog", "list_tables", map[string]any{"database": "bulk", "page": cursor})

	// Tampered: one character of the signature changed.
	tampered := []byte(cursor)
	i := len(tampered) - 3
	tampered[i] = map[bool]byte{true: 'A', false: 'B'}[tampered[i] != 'A']
	ev := e.Fail("doris_catalog", "list_tables", map[string]any{"database": "bulk", "page": string(tampered)},
		"CHILD_ARGUMENTS_INVALID", "CATALOG_PAGE_CURSOR_INVALID")
	if ev.Error.Retryable {
		t.Fatal("a bad cursor is not retryable")
	}
	// A cursor no key of this server verifies is what a restart (or a
	// changed secret) leaves behind: the message says so (ADR 0002).
	if !strings.Contains(ev.Error.Message, "the server restarted or its secret changed: start the list again") {
		t.Fatalf("unverified cursor message: %q", ev.Error.Message)
	}
	// Bound to the other arguments: a cursor for "bulk" does not page a pattern.
	e.Fail("doris_catalog", "list_tables", map[string]any{"database": "bulk", "pattern": "t_*", "page": cursor},
		"CHILD_ARGUMENTS_INVALID", "CATALOG_PAGE_CURSOR_INVALID")
	// Bound to the child: list_databases does not take list_tables' cursors
	// (its schema has no page at all), and a garbage string is refused.
	e.Fail("doris_catalog", "list_tables", map[string]any{"database": "bulk", "page": "mcp-h1.e30.AAAA"},
		"CHILD_ARGUMENTS_INVALID", "CATALOG_PAGE_CURSOR_INVALID")

	// Stale: the list changes between pages.
	if err := e.DB.Exec(context.Background(), "CREATE TABLE bulk.a_new_table (id INT)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.DB.Exec(context.Background(), "DROP TABLE IF EXISTS bulk.a_new_table") })
	e.Fail("doris_catalog", "list_tables", map[string]any{"database": "bulk", "page": cursor},
		"CHILD_ARGUMENTS_INVALID", "CATALOG_PAGE_CURSOR_STALE")
}

// dorisTypeOf is how Doris reports the column type that a MariaDB column
// of the demo schema stands for.
func dorisTypeOf(columnType string) string {
	t := strings.ToLower(columnType)
	base, args, _ := strings.Cut(t, "(")
	if args != "" {
		args = "(" + args
	}
	switch base {
	case "decimal":
		return "decimalv3" + args
	case "date":
		return "datev2"
	case "datetime":
		if args == "" {
			args = "(0)"
		}
		return "datetimev2" + args
	case "tinyint":
		if args == "(1)" {
			return "boolean"
		}
		return "tinyint"
	case "int", "bigint", "smallint":
		return base
	case "text":
		return "text"
	}
	return t
}

func TestGetTableContextMatchesMariaDB(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	for _, table := range []string{"orders", "customers", "products", "order_items", "v_daily_sales"} {
		t.Run(table, func(t *testing.T) {
			ev := e.Ok("doris_catalog", "get_table_context", map[string]any{"database": "demo", "table": table})
			var data map[string]struct {
				Status     string          `json:"status"`
				Data       json.RawMessage `json:"data"`
				Source     string          `json:"source"`
				ReasonCode string          `json:"reason_code"`
			}
			cd := ev.Decode(t, &data)
			if cd.Status != "success" || len(data) != 4 {
				t.Fatalf("status %s, sections %d: %s", cd.Status, len(data), ev.Raw)
			}
			for name, s := range data {
				if s.Status != "success" {
					t.Fatalf("section %s: %s %s", name, s.Status, s.ReasonCode)
				}
			}
			if len(cd.Evidence) != 4 {
				t.Fatalf("evidence %v", cd.Evidence)
			}
			// schema and comments against information_schema.columns
			rows, err := e.RootDB().Query(`SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, COLUMN_KEY, COLUMN_COMMENT
				FROM information_schema.columns WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, table)
			if err != nil {
				t.Fatal(err)
			}
			type col struct{ name, typ, null, key, comment string }
			var want []col
			for rows.Next() {
				var c col
				if err := rows.Scan(&c.name, &c.typ, &c.null, &c.key, &c.comment); err != nil {
					t.Fatal(err)
				}
				want = append(want, c)
			}
			rows.Close()
			var schema struct {
				Columns []struct {
					Name     string `json:"name"`
					Type     string `json:"type"`
					Nullable bool   `json:"nullable"`
					Key      bool   `json:"key"`
					Comment  string `json:"comment"`
				} `json:"columns"`
			}
			if err := json.Unmarshal(data["schema"].Data, &schema); err != nil {
				t.Fatal(err)
			}
			var comments struct {
				Table   *string            `json:"table"`
				Columns map[string]*string `json:"columns"`
			}
			if err := json.Unmarshal(data["comments"].Data, &comments); err != nil {
				t.Fatal(err)
			}
			if len(schema.Columns) != len(want) || len(want) == 0 {
				t.Fatalf("%d columns, MariaDB has %d", len(schema.Columns), len(want))
			}
			for i, c := range schema.Columns {
				w := want[i]
				if c.Name != w.name || c.Type != dorisTypeOf(w.typ) || c.Nullable != (w.null == "YES") ||
					c.Key != (w.key == "PRI" || w.key == "UNI") || c.Comment != w.comment {
					t.Fatalf("column %d: %+v, MariaDB %+v (Doris type %s)", i, c, w, dorisTypeOf(w.typ))
				}
				if got := comments.Columns[w.name]; w.comment != "" && (got == nil || *got != w.comment) {
					t.Fatalf("comment of %s: %v, MariaDB %q", w.name, got, w.comment)
				}
			}
			// table comment and basic facts against information_schema.tables
			var tc, typ string
			var rowsN, dataLen, idxLen int64
			if err := e.RootDB().QueryRow(`SELECT TABLE_COMMENT, TABLE_TYPE, COALESCE(TABLE_ROWS, -1), COALESCE(DATA_LENGTH, -1), COALESCE(INDEX_LENGTH, -1)
				FROM information_schema.tables WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = ?`, table).Scan(&tc, &typ, &rowsN, &dataLen, &idxLen); err != nil {
				t.Fatal(err)
			}
			if tc == "" && comments.Table != nil && *comments.Table != "" || tc != "" && (comments.Table == nil || *comments.Table != tc) {
				t.Fatalf("table comment %v, MariaDB %q", comments.Table, tc)
			}
			var basic map[string]any
			json.Unmarshal(data["basic"].Data, &basic)
			if basic["table_type"] != typ {
				t.Fatalf("basic %v, MariaDB type %s", basic, typ)
			}
			if rowsN >= 0 && basic["row_count"] != float64(rowsN) || dataLen >= 0 && basic["data_bytes"] != float64(dataLen) {
				t.Fatalf("basic %v, MariaDB rows %d data %d", basic, rowsN, dataLen)
			}
			// indexes against information_schema.statistics: Doris has
			// secondary (inverted) indexes only; keys are not indexes there.
			var idx struct {
				Indexes []map[string]any `json:"indexes"`
			}
			json.Unmarshal(data["indexes"].Data, &idx)
			wantIdx := doristest.Strings(t, e.RootDB(), `SELECT CONCAT(INDEX_NAME, '.', COLUMN_NAME) FROM information_schema.statistics
				WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = ? AND NON_UNIQUE = 1 ORDER BY INDEX_NAME, SEQ_IN_INDEX`, table)
			var gotIdx []string
			for _, ix := range idx.Indexes {
				gotIdx = append(gotIdx, fmt.Sprint(ix["name"], ".", ix["column"]))
			}
			slices.Sort(gotIdx)
			slices.Sort(wantIdx)
			if !slices.Equal(gotIdx, wantIdx) {
				t.Fatalf("indexes %v, MariaDB %v", gotIdx, wantIdx)
			}
		})
	}
}

func TestGetTableContextSections(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	type sections map[string]struct {
		Status     string `json:"status"`
		ReasonCode string `json:"reason_code"`
	}
	// Only what is asked for (schema is always there).
	var s sections
	cd := e.Ok("doris_catalog", "get_table_context", map[string]any{"database": "demo", "table": "products",
		"sections": []string{"comments"}}).Decode(t, &s)
	if cd.Status != "success" || len(s) != 2 || s["schema"].Status != "success" || s["comments"].Status != "success" {
		t.Fatalf("schema+comments: %s %v", cd.Status, s)
	}
	// An optional section Doris cannot answer makes the result partial,
	// with the section's reason, and never fails the call.
	e.Sim.Inject(sim.Fault{Match: "SHOW INDEX", ErrCode: 1105,
		ErrMsg: "errCode = 2, detailMessage = Permission denied: secret backend detail 10.1.2.3"})
	defer e.Sim.ClearFaults()
	ev := e.Ok("doris_catalog", "get_table_context", map[string]any{"database": "demo", "table": "products"})
	cd = ev.Decode(t, &s)
	if cd.Status != "partial" || s["indexes"].Status != "unavailable" || s["indexes"].ReasonCode != "CATALOG_PERMISSION_DENIED" ||
		s["schema"].Status != "success" || s["basic"].Status != "success" {
		t.Fatalf("partial: %s", ev.Raw)
	}
	if len(cd.Warnings) != 1 || !strings.Contains(cd.Warnings[0], "indexes") || strings.Contains(string(ev.Raw), "10.1.2.3") {
		t.Fatalf("warnings %v / raw %s", cd.Warnings, ev.Raw)
	}
	e.Sim.ClearFaults()
	// The schema is required: no schema, no context.
	e.Fail("doris_catalog", "get_table_context", map[string]any{"database": "demo", "table": "nope"},
		"CHILD_EXECUTION_FAILED", "CATALOG_OBJECT_NOT_FOUND")
	e.Fail("doris_catalog", "get_table_context", map[string]any{"database": "secret", "table": "salaries"},
		"CHILD_EXECUTION_FAILED", "")
	e.Fail("doris_catalog", "get_table_context", map[string]any{"database": "demo", "table": "orders`; DROP TABLE x; --"},
		"CHILD_ARGUMENTS_INVALID", "CATALOG_IDENTIFIER_INVALID")
}

func TestGetTableSize(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	bulkDatabase(t, e.DB)
	type part struct {
		Name    string `json:"name"`
		Ordinal *int64 `json:"ordinal_position"`
		Rows    *int64 `json:"row_count"`
		Data    *int64 `json:"data_bytes"`
	}
	var size struct {
		Database   string `json:"database"`
		Table      string `json:"table"`
		RowCount   *int64 `json:"row_count"`
		DataBytes  *int64 `json:"data_bytes"`
		IndexBytes *int64 `json:"index_bytes"`
		TotalBytes *int64 `json:"total_bytes"`
		Partitions []part `json:"partitions"`
	}
	for _, table := range []string{"orders", "customers"} {
		e.Ok("doris_catalog", "get_table_size", map[string]any{"database": "demo", "table": table}).Decode(t, &size)
		var rowsN, dataLen, idxLen int64
		if err := e.RootDB().QueryRow(`SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM information_schema.tables
			WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = ?`, table).Scan(&rowsN, &dataLen, &idxLen); err != nil {
			t.Fatal(err)
		}
		if size.Table != table || *size.RowCount != rowsN || *size.DataBytes != dataLen || *size.IndexBytes != idxLen ||
			*size.TotalBytes != dataLen+idxLen || size.Partitions != nil {
			t.Fatalf("%s: %+v, MariaDB %d rows %d+%d bytes", table, size, rowsN, dataLen, idxLen)
		}
	}
	// An unpartitioned table has no partitions (MariaDB lists it with a
	// NULL partition, which is not a partition).
	ev := e.Ok("doris_catalog", "get_table_size", map[string]any{"database": "demo", "table": "orders", "include_partitions": true})
	ev.Decode(t, &size)
	if size.Partitions == nil || len(size.Partitions) != 0 {
		t.Fatalf("orders partitions %+v", size.Partitions)
	}
	// A partitioned table: every partition, in order, with MariaDB's figures.
	ev = e.Ok("doris_catalog", "get_table_size", map[string]any{"database": "bulk", "table": "events", "include_partitions": true})
	cd := ev.Decode(t, &size)
	rows, err := e.RootDB().Query(`SELECT PARTITION_NAME, PARTITION_ORDINAL_POSITION, TABLE_ROWS, DATA_LENGTH FROM information_schema.partitions
		WHERE TABLE_SCHEMA = 'bulk' AND TABLE_NAME = 'events' ORDER BY PARTITION_ORDINAL_POSITION`)
	if err != nil {
		t.Fatal(err)
	}
	var want []part
	for rows.Next() {
		var p part
		p.Ordinal, p.Rows, p.Data = new(int64), new(int64), new(int64)
		if err := rows.Scan(&p.Name, p.Ordinal, p.Rows, p.Data); err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	rows.Close()
	if cd.Status != "success" || len(size.Partitions) != 4 || len(want) != 4 {
		t.Fatalf("events: %s", ev.Raw)
	}
	for i, p := range size.Partitions {
		w := want[i]
		if p.Name != w.Name || *p.Ordinal != *w.Ordinal || *p.Rows != *w.Rows || *p.Data != *w.Data {
			t.Fatalf("partition %d: %s=%d/%d/%d, MariaDB %s=%d/%d/%d", i, p.Name, *p.Ordinal, *p.Rows, *p.Data, w.Name, *w.Ordinal, *w.Rows, *w.Data)
		}
	}
	// Partition statistics Doris cannot read: partial, table totals kept.
	e.Sim.Inject(sim.Fault{Match: "information_schema.partitions", ErrCode: 1105, ErrMsg: "errCode = 2, detailMessage = boom"})
	defer e.Sim.ClearFaults()
	ev = e.Ok("doris_catalog", "get_table_size", map[string]any{"database": "bulk", "table": "events", "include_partitions": true})
	size.Partitions = nil
	cd = ev.Decode(t, &size)
	if cd.Status != "partial" || size.RowCount == nil || len(cd.Warnings) != 1 || strings.Contains(string(ev.Raw), "boom") {
		t.Fatalf("partial size: %s", ev.Raw)
	}
	e.Sim.ClearFaults()
	e.Fail("doris_catalog", "get_table_size", map[string]any{"database": "demo", "table": "nope"}, "CHILD_EXECUTION_FAILED", "CATALOG_OBJECT_NOT_FOUND")
	// The reader cannot see secret.salaries: not found, not a leak.
	e.Fail("doris_catalog", "get_table_size", map[string]any{"database": "secret", "table": "salaries"}, "CHILD_EXECUTION_FAILED", "CATALOG_OBJECT_NOT_FOUND")
}
