package sim_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// session is one client connection (SWITCH and USE are per session).
func session(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func run(t *testing.T, c interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// dropBacking removes the MariaDB databases behind catalog databases.
func dropBacking(t *testing.T, in *mariadb.Instance, catalog string, dbs ...string) {
	t.Helper()
	drop := func() {
		for _, d := range dbs {
			in.Root().Exec("DROP DATABASE IF EXISTS `" + sim.BackingDatabase(catalog, d) + "`")
		}
	}
	drop()
	t.Cleanup(drop)
}

// TestExternalCatalogLifecycle drives an Iceberg catalog through the
// simulator the way Doris is driven, and checks every answer against what
// the test did.
func TestExternalCatalogLifecycle(t *testing.T) {
	s, in := startSim(t, "4.0")
	dropBacking(t, in, "lh_ice", "sales")
	rt := session(t, root(t, s, in))
	run(t, rt, `CREATE CATALOG lh_ice COMMENT 'test lake' PROPERTIES ("type" = "iceberg", "iceberg.catalog.type" = "hadoop",
		"warehouse" = "s3://AKIAEXAMPLE:hunter2@bucket/wh", "s3.secret_key" = "sk-planted-123", "password" = "pw-planted")`,
		"CREATE DATABASE lh_ice.sales",
		`CREATE TABLE lh_ice.sales.orders (id INT, region STRING, amount DECIMAL(10,2), dt DATE)
		 PARTITION BY LIST (dt) () PROPERTIES ("write-format" = "parquet")`)

	// SHOW CATALOGS / SHOW CATALOG
	r := mustQuery(t, rt, "SHOW CATALOGS")
	wantCols(t, "SHOW CATALOGS", r.cols, "CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "LastUpdateTime", "Comment")
	found := false
	for _, row := range r.rows {
		if row[1].String == "lh_ice" {
			found = row[2].String == "iceberg" && row[6].String == "test lake"
		}
	}
	if !found {
		t.Fatalf("SHOW CATALOGS: no iceberg catalog lh_ice with its comment: %v", r.rows)
	}
	props := map[string]string{}
	for _, row := range mustQuery(t, rt, "SHOW CATALOG lh_ice").rows {
		props[row[0].String] = row[1].String
	}
	if props["s3.secret_key"] != "sk-planted-123" || props["password"] != "*XXX" || props["type"] != "iceberg" || props["create_time"] == "" {
		t.Fatalf("SHOW CATALOG: got %v", props)
	}
	wantErr(t, exec1(rt, `CREATE CATALOG lh_bad PROPERTIES ("type" = "hudi")`), 1105, "Unknown catalog type: hudi")

	// Writes commit snapshots: append, append, overwrite, delete.
	run(t, rt, "INSERT INTO lh_ice.sales.orders VALUES (1, 'eu', 10.50, '2024-01-01'), (2, 'us', 20.00, '2024-01-01'), (3, 'eu', 5.25, '2024-01-02')",
		"INSERT INTO lh_ice.sales.orders VALUES (4, 'apac', 7.00, '2024-01-03'), (5, 'eu', 1.00, '2024-01-03')")
	run(t, rt, "INSERT OVERWRITE TABLE lh_ice.sales.orders SELECT id, region, amount, dt FROM lh_ice.sales.orders WHERE id <= 4")
	run(t, rt, "DELETE FROM lh_ice.sales.orders WHERE id = 2")
	type snap struct {
		id, parent     int64
		op             string
		summary        map[string]string
		hasParent      bool
		manifest, when string
	}
	read := func(q string) []snap {
		var out []snap
		for _, row := range mustQuery(t, rt, q).rows {
			var sn snap
			sn.id, _ = strconv.ParseInt(row[1].String, 10, 64)
			sn.hasParent = row[2].Valid
			sn.parent, _ = strconv.ParseInt(row[2].String, 10, 64)
			sn.op, sn.manifest, sn.when = row[3].String, row[4].String, row[0].String
			if err := json.Unmarshal([]byte(row[5].String), &sn.summary); err != nil {
				t.Fatalf("summary %q: %v", row[5].String, err)
			}
			out = append(out, sn)
		}
		return out
	}
	snaps := read("SELECT * FROM lh_ice.sales.orders$snapshots ORDER BY committed_at")
	wantOps := []string{"append", "append", "overwrite", "delete"}
	if len(snaps) != len(wantOps) {
		t.Fatalf("got %d snapshots, want %d: %+v", len(snaps), len(wantOps), snaps)
	}
	wantTotals := []string{"3", "5", "4", "4"} // data file records; the delete adds a position delete
	for i, sn := range snaps {
		if sn.op != wantOps[i] || sn.summary["total-records"] != wantTotals[i] {
			t.Errorf("snapshot %d: got %s total-records %s, want %s %s", i, sn.op, sn.summary["total-records"], wantOps[i], wantTotals[i])
		}
		if i == 0 && sn.hasParent || i > 0 && sn.parent != snaps[i-1].id {
			t.Errorf("snapshot %d: parent %d (set %v), want %d", i, sn.parent, sn.hasParent, snaps[max(i-1, 0)].id)
		}
	}
	if snaps[3].summary["added-position-deletes"] != "1" || snaps[2].summary["deleted-records"] != "5" || snaps[2].summary["added-records"] != "4" {
		t.Errorf("summaries: %v / %v", snaps[2].summary, snaps[3].summary)
	}
	if n := mustQuery(t, rt, "SELECT COUNT(*) FROM lh_ice.sales.orders").rows[0][0].String; n != "3" {
		t.Fatalf("rows after the writes: got %s, want 3", n)
	}

	// $partitions from the data.
	parts := map[string]string{}
	for _, row := range mustQuery(t, rt, "SELECT `partition`, record_count FROM lh_ice.sales.orders$partitions").rows {
		parts[row[0].String] = row[1].String
	}
	want := map[string]string{`{"dt": "2024-01-01"}`: "1", `{"dt": "2024-01-02"}`: "1", `{"dt": "2024-01-03"}`: "1"}
	if fmt.Sprint(parts) != fmt.Sprint(want) {
		t.Fatalf("$partitions: got %v, want %v", parts, want)
	}

	// Metadata statements.
	if r := mustQuery(t, rt, "SHOW DATABASES FROM lh_ice"); len(r.rows) != 1 || r.rows[0][0].String != "sales" {
		t.Fatalf("SHOW DATABASES FROM lh_ice: %v", r.rows)
	}
	r = mustQuery(t, rt, "SHOW FULL TABLES FROM lh_ice.sales")
	if len(r.rows) != 1 || r.rows[0][0].String != "orders" || r.rows[0][2].String != "NONE" {
		t.Fatalf("SHOW FULL TABLES: %v", r.rows)
	}
	r = mustQuery(t, rt, "SHOW FULL COLUMNS FROM lh_ice.sales.orders")
	if len(r.rows) != 4 || r.rows[1][0].String != "region" || r.rows[1][1].String != "text" {
		t.Fatalf("SHOW FULL COLUMNS: %v", r.rows)
	}
	ddl := mustQuery(t, rt, "SHOW CREATE TABLE lh_ice.sales.orders").rows[0][1].String
	for _, w := range []string{"ENGINE=ICEBERG_EXTERNAL_TABLE", "PARTITION BY LIST (`dt`) ()", "LOCATION 's3://AKIAEXAMPLE:hunter2@bucket/wh/sales/orders'", `"write-format" = "parquet"`} {
		if !strings.Contains(ddl, w) {
			t.Fatalf("SHOW CREATE TABLE lacks %q:\n%s", w, ddl)
		}
	}
	plan := mustQuery(t, rt, "EXPLAIN SELECT * FROM lh_ice.sales.orders LIMIT 1")
	var text []string
	for _, row := range plan.rows {
		text = append(text, row[0].String)
	}
	if p := strings.Join(text, "\n"); !strings.Contains(p, "VICEBERG_SCAN_NODE") || !strings.Contains(p, "partition=3/3") {
		t.Fatalf("EXPLAIN:\n%s", p)
	}
	stats := mustQuery(t, rt, "SHOW TABLE STATS lh_ice.sales.orders")
	if stats.rows[0][stats.col("row_count")].String != "3" {
		t.Fatalf("SHOW TABLE STATS: %v", stats.rows)
	}

	// SWITCH and USE resolve names in the catalog.
	run(t, rt, "SWITCH lh_ice", "USE sales")
	if n := mustQuery(t, rt, "SELECT COUNT(*) FROM orders WHERE region = 'eu'").rows[0][0].String; n != "2" {
		t.Fatalf("after SWITCH and USE: got %s eu rows, want 2", n)
	}
	if n := mustQuery(t, rt, "SELECT COUNT(*) FROM sales.orders").rows[0][0].String; n != "3" {
		t.Fatalf("db.table after SWITCH: got %s, want 3", n)
	}
	run(t, rt, "SWITCH internal", "USE demo")

	// A reader without a grant on the catalog's data sees no database.
	rd := reader(t, s)
	if r := mustQuery(t, rd, "SHOW DATABASES FROM lh_ice"); len(r.rows) != 0 {
		t.Fatalf("reader sees %v", r.rows)
	}
	_, err := query(t, rd, "SELECT * FROM lh_ice.sales.orders")
	wantErr(t, err, 1105, "Permission denied")
	run(t, rt, "DROP CATALOG lh_ice")
	_, err = query(t, rt, "SELECT * FROM lh_ice.sales.orders")
	wantErr(t, err, 1105, "Unknown catalog 'lh_ice'")
}

func exec1(c *sql.Conn, q string) error {
	_, err := c.ExecContext(context.Background(), q)
	return err
}

// TestSystemTablesPerRelease: t$snapshots and t$partitions answer from
// Doris 3.1 on; before that only iceberg_meta() does, with parent_id -1
// for a snapshot without a parent.
func TestSystemTablesPerRelease(t *testing.T) {
	for _, p := range []string{"2.1", "3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			s, in := startSim(t, p)
			dropBacking(t, in, "lh_rel", "db")
			rt := session(t, root(t, s, in))
			run(t, rt, `CREATE CATALOG lh_rel PROPERTIES ("type" = "iceberg")`, "CREATE DATABASE lh_rel.db",
				"CREATE TABLE lh_rel.db.t (id INT)", "INSERT INTO lh_rel.db.t VALUES (1)", "INSERT INTO lh_rel.db.t VALUES (2)")
			_, err := query(t, rt, "SELECT * FROM lh_rel.db.t$snapshots")
			meta := mustQuery(t, rt, `SELECT snapshot_id, parent_id FROM iceberg_meta("table" = "lh_rel.db.t", "query_type" = "snapshots") ORDER BY committed_at`)
			if len(meta.rows) != 2 || meta.rows[1][1].String != meta.rows[0][0].String {
				t.Fatalf("iceberg_meta: %v", meta.rows)
			}
			if p == "4.0" {
				if err != nil || meta.rows[0][1].Valid {
					t.Fatalf("4.0: $snapshots err %v, root parent %v", err, meta.rows[0][1])
				}
				return
			}
			wantErr(t, err, 1105, "Table [t$snapshots] does not exist in database [db].")
			if meta.rows[0][1].String != "-1" {
				t.Fatalf("%s: root parent %q, want -1", p, meta.rows[0][1].String)
			}
		})
	}
}

// TestVariantColumns: a VARIANT column created through the simulator is
// shown as variant, path access reads the documents, and VARIANT_TYPE
// reports each path's type.
func TestVariantColumns(t *testing.T) {
	s, in := startSim(t, "3.0")
	rt := root(t, s, in)
	run(t, rt, "DROP TABLE IF EXISTS demo.lh_variant",
		`CREATE TABLE demo.lh_variant (id BIGINT NOT NULL, v VARIANT NULL COMMENT 'event body')
		 DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1", "variant_max_subcolumns_count" = "64")`,
		`INSERT INTO demo.lh_variant VALUES (1, '{"a": 10, "b": {"c": "x", "d": 1.5}}'), (2, '{"a": 300, "tags": ["p", "q"]}'), (3, NULL)`)
	t.Cleanup(func() { in.Root().Exec("DROP TABLE IF EXISTS demo.lh_variant") })
	r := mustQuery(t, rt, "SHOW FULL COLUMNS FROM demo.lh_variant")
	if r.rows[1][1].String != "variant" || r.rows[1][8].String != "event body" {
		t.Fatalf("SHOW FULL COLUMNS: %v", r.rows)
	}
	r = mustQuery(t, rt, "SELECT id, v['b']['c'], v['a'] FROM demo.lh_variant ORDER BY id")
	if r.rows[0][1].String != "x" || r.rows[0][2].String != "10" || r.rows[1][2].String != "300" || r.rows[1][1].Valid {
		t.Fatalf("paths: %v", r.rows)
	}
	r = mustQuery(t, rt, "SELECT VARIANT_TYPE(v) FROM demo.lh_variant ORDER BY id")
	wantCols(t, "VARIANT_TYPE", r.cols, "VARIANT_TYPE(v)")
	want := []string{`{"a":"tinyint","b.c":"string","b.d":"double"}`, `{"a":"smallint","tags":"array<string>"}`, ""}
	for i, w := range want {
		if r.rows[i][0].String != w {
			t.Fatalf("row %d: got %q, want %q", i, r.rows[i][0].String, w)
		}
	}
	r = mustQuery(t, rt, "SELECT VARIANT_TYPE(v['b']) AS t FROM demo.lh_variant WHERE id = 1")
	if r.rows[0][0].String != `{"c":"string","d":"double"}` {
		t.Fatalf("sub-path: %v", r.rows)
	}
	ddl := mustQuery(t, rt, "SHOW CREATE TABLE demo.lh_variant").rows[0][1].String
	if !strings.Contains(ddl, "`v` variant NULL") || !strings.Contains(ddl, `"variant_max_subcolumns_count" = "64"`) ||
		!strings.Contains(ddl, "DUPLICATE KEY(`id`)") {
		t.Fatalf("SHOW CREATE TABLE:\n%s", ddl)
	}
}

// TestDemoLakehouse: the demo's statements run through the simulator and
// leave an Iceberg table with three snapshots and a VARIANT table.
func TestDemoLakehouse(t *testing.T) {
	s, in := startSim(t, "4.0")
	dropBacking(t, in, "iceberg_demo", "sales")
	t.Cleanup(func() { in.Root().Exec("DROP TABLE IF EXISTS demo.events") })
	in.Root().Exec("DROP TABLE IF EXISTS demo.events")
	rt := root(t, s, in)
	run(t, rt, sim.DemoLakehouseStatements()...)
	r := mustQuery(t, rt, "SELECT operation FROM iceberg_demo.sales.orders$snapshots ORDER BY committed_at")
	var ops []string
	for _, row := range r.rows {
		ops = append(ops, row[0].String)
	}
	if strings.Join(ops, ",") != "append,append,overwrite" {
		t.Fatalf("snapshots: %v", ops)
	}
	if n := mustQuery(t, rt, "SELECT COUNT(*) FROM iceberg_demo.sales.orders").rows[0][0].String; n != "6" {
		t.Fatalf("orders: %s rows, want 6", n)
	}
	if r := mustQuery(t, rt, "SHOW FULL COLUMNS FROM demo.events"); r.rows[3][1].String != "variant" {
		t.Fatalf("events: %v", r.rows)
	}
}
