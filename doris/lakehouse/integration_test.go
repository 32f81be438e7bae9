package lakehouse_test

// doris_lakehouse against truth: every catalog, table and document here is
// made by the test through the simulator (as Doris would be driven), and
// every answer is compared with what the test wrote or with MariaDB read
// directly.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// lakeTableResult is the data of inspect_lakehouse_table.
type lakeTableResult struct {
	Format  string `json:"format"`
	Columns []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Nullable bool   `json:"nullable"`
	} `json:"columns"`
	PartitionColumns []string `json:"partition_columns"`
	Statistics       *struct {
		RowCount *int64 `json:"row_count"`
	} `json:"statistics"`
	Snapshots []struct {
		ID        string           `json:"snapshot_id"`
		Parent    *string          `json:"parent_id"`
		Operation string           `json:"operation"`
		Summary   map[string]int64 `json:"summary"`
	} `json:"snapshots"`
	Partitions []struct {
		Name        string         `json:"name"`
		Values      map[string]any `json:"values"`
		RecordCount *int64         `json:"record_count"`
	} `json:"partitions"`
	Pushdown *struct {
		ScanNodes          []string `json:"scan_nodes"`
		External           bool     `json:"external_scan"`
		PartitionsSelected *int64   `json:"partitions_selected"`
	} `json:"pushdown"`
	Sections map[string]struct {
		Status     string `json:"status"`
		Source     string `json:"source"`
		ReasonCode string `json:"reason_code"`
	} `json:"sections"`
}

// icebergWrite is one write the test makes and what it must leave.
type icebergWrite struct {
	sql     string
	op      string
	added   int64 // rows added (append, overwrite)
	deleted int64 // rows removed by a delete
}

// TestLakehouseIcebergAgainstWrites: on every release the snapshots of an
// Iceberg table are exactly the writes the test made (count, order,
// operations, parents, record counters), partitions hold exactly the rows
// written per partition value, and the statistics and plan match the data.
func TestLakehouseIcebergAgainstWrites(t *testing.T) {
	for _, p := range []string{"2.1", "3.0", "4.0", "4.1"} {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
			name := "lhice" + strings.ReplaceAll(p, ".", "")
			l := doristest.NewLake(t, e, name, `"type" = "iceberg", "warehouse" = "s3://lake/wh"`, "sales")
			l.Grant("sales")
			l.Exec("CREATE TABLE " + name + ".sales.orders (id INT, region STRING, amount DECIMAL(10,2), dt DATE) PARTITION BY LIST (dt) ()")
			tbl := name + ".sales.orders"
			// Rows per dt the table must hold after each write, kept by the test.
			rows := map[int]string{}
			writes := []icebergWrite{
				{sql: "INSERT INTO " + tbl + " VALUES (1,'eu',1.00,'2024-01-01'),(2,'us',2.00,'2024-01-01'),(3,'eu',3.00,'2024-01-02')", op: "append", added: 3},
				{sql: "INSERT INTO " + tbl + " VALUES (4,'eu',4.00,'2024-01-03')", op: "append", added: 1},
				{sql: "INSERT INTO " + tbl + " VALUES (5,'us',5.00,'2024-01-03'),(6,'us',6.00,'2024-01-04')", op: "append", added: 2},
				{sql: "INSERT OVERWRITE TABLE " + tbl + " SELECT id, region, amount, dt FROM " + tbl + " WHERE id <> 6", op: "overwrite", added: 5},
				{sql: "DELETE FROM " + tbl + " WHERE id = 2", op: "delete", deleted: 1},
			}
			dts := map[int]string{1: "2024-01-01", 2: "2024-01-01", 3: "2024-01-02", 4: "2024-01-03", 5: "2024-01-03", 6: "2024-01-04"}
			for id := 1; id <= 6; id++ {
				rows[id] = dts[id]
			}
			delete(rows, 6) // the overwrite drops it
			delete(rows, 2) // the delete removes it
			for _, w := range writes {
				l.Exec(w.sql)
			}

			var got lakeTableResult
			ev := e.Ok("doris_lakehouse", "inspect_lakehouse_table", map[string]any{"catalog": name, "database": "sales", "table": "orders",
				"include_snapshots": true, "include_partitions": true})
			cd := ev.Decode(t, &got)

			// Snapshots, newest first, against the writes and MariaDB's ids.
			ids := doristest.Strings(t, e.RootDB(), "SELECT snapshot_id FROM `"+sim.BackingDatabase(name, "sales")+"`.`orders$snapshots` ORDER BY committed_at")
			if len(got.Snapshots) != len(writes) || len(ids) != len(writes) {
				t.Fatalf("got %d snapshots (MariaDB %d), want %d", len(got.Snapshots), len(ids), len(writes))
			}
			var total, posDeletes int64
			for i, w := range writes {
				s := got.Snapshots[len(writes)-1-i]
				if s.ID != ids[i] || s.Operation != w.op {
					t.Errorf("snapshot %d: got %s %s, want %s %s", i, s.ID, s.Operation, ids[i], w.op)
				}
				switch {
				case i == 0 && s.Parent != nil:
					t.Errorf("first snapshot has parent %s", *s.Parent)
				case i > 0 && (s.Parent == nil || *s.Parent != ids[i-1]):
					t.Errorf("snapshot %d: parent %v, want %s", i, s.Parent, ids[i-1])
				}
				switch w.op {
				case "append":
					total += w.added
				case "overwrite":
					total, posDeletes = w.added, 0
				case "delete":
					posDeletes += w.deleted
				}
				if w.added > 0 && s.Summary["added-records"] != w.added || s.Summary["total-records"] != total ||
					s.Summary["total-position-deletes"] != posDeletes {
					t.Errorf("snapshot %d (%s): summary %v, want added %d, total %d, position deletes %d", i, w.op, s.Summary, w.added, total, posDeletes)
				}
			}
			wantSource := "iceberg_meta()"
			if p >= "4.0" {
				wantSource = "table$snapshots"
			}
			if got.Sections["snapshots"].Source != wantSource {
				t.Errorf("snapshots source %q, want %q", got.Sections["snapshots"].Source, wantSource)
			}

			// Partitions: from 3.1 per dt with the live rows; before, a reason.
			perDT := map[string]int64{}
			for _, dt := range rows {
				perDT[dt]++
			}
			if p >= "4.0" {
				gotDT := map[string]int64{}
				for _, part := range got.Partitions {
					gotDT[fmt.Sprint(part.Values["dt"])] = *part.RecordCount
				}
				if fmt.Sprint(gotDT) != fmt.Sprint(perDT) {
					t.Errorf("partitions: got %v, want %v", gotDT, perDT)
				}
			} else if s := got.Sections["partitions"]; s.Status != "unavailable" || s.ReasonCode != "LAKEHOUSE_SYSTEM_TABLES_NEED_DORIS_3_1" || cd.Status != "partial" {
				t.Errorf("%s partitions: %+v (result %s)", p, s, cd.Status)
			}

			if got.Format != "iceberg" || len(got.Columns) != 4 || got.Columns[1].Name != "region" || strings.Join(got.PartitionColumns, ",") != "dt" {
				t.Errorf("format/columns/partition columns: %s %+v %v", got.Format, got.Columns, got.PartitionColumns)
			}
			if got.Statistics == nil || got.Statistics.RowCount == nil || *got.Statistics.RowCount != int64(len(rows)) {
				t.Errorf("statistics: %+v, want %d rows", got.Statistics, len(rows))
			}
			if got.Pushdown == nil || !got.Pushdown.External || strings.Join(got.Pushdown.ScanNodes, ",") != "VICEBERG_SCAN_NODE" ||
				got.Pushdown.PartitionsSelected == nil || *got.Pushdown.PartitionsSelected != int64(len(perDT)) {
				t.Errorf("pushdown: %+v", got.Pushdown)
			}
		})
	}
}

// TestLakehousePaimonSnapshots: Paimon snapshots are numbered 1, 2, ...
// with the previous one as parent, from Doris 3.1; before, the section
// says why it is missing.
func TestLakehousePaimonSnapshots(t *testing.T) {
	for _, p := range []string{"2.1", "4.0"} {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
			name := "lhpaimon" + strings.ReplaceAll(p, ".", "")
			l := doristest.NewLake(t, e, name, `"type" = "paimon", "warehouse" = "s3://lake/paimon"`, "ods")
			l.Grant("ods")
			l.Exec("CREATE TABLE "+name+".ods.clicks (id BIGINT, page STRING)",
				"INSERT INTO "+name+".ods.clicks VALUES (1, 'a'), (2, 'b')",
				"INSERT INTO "+name+".ods.clicks VALUES (3, 'c')",
				"INSERT OVERWRITE TABLE "+name+".ods.clicks VALUES (9, 'z')")
			var got lakeTableResult
			e.Ok("doris_lakehouse", "inspect_lakehouse_table", map[string]any{"catalog": name, "database": "ods", "table": "clicks",
				"include_snapshots": true}).Decode(t, &got)
			if p != "4.0" {
				if s := got.Sections["snapshots"]; s.Status != "unavailable" || s.ReasonCode != "LAKEHOUSE_SYSTEM_TABLES_NEED_DORIS_3_1" {
					t.Fatalf("snapshots section: %+v", s)
				}
				return
			}
			want := []struct {
				id, parent, op string
				total          int64
			}{{"3", "2", "overwrite", 1}, {"2", "1", "append", 3}, {"1", "", "append", 2}}
			if len(got.Snapshots) != len(want) {
				t.Fatalf("got %d snapshots, want %d", len(got.Snapshots), len(want))
			}
			for i, w := range want {
				s := got.Snapshots[i]
				parent := ""
				if s.Parent != nil {
					parent = *s.Parent
				}
				if s.ID != w.id || parent != w.parent || s.Operation != w.op || s.Summary["total-record"] != w.total {
					t.Errorf("snapshot %d: got %s<-%s %s %v, want %s<-%s %s total %d", i, s.ID, parent, s.Operation, s.Summary, w.id, w.parent, w.op, w.total)
				}
			}
		})
	}
}

// TestLakehouseRefusals: what cannot be inspected says why, and changes
// nothing.
func TestLakehouseRefusals(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{NoAudit: true})
	l := doristest.NewLake(t, e, "lhjdbc", `"type" = "jdbc", "jdbc_url" = "jdbc:mysql://u:p@127.0.0.1:3306/x", "driver_class" = "com.mysql.cj.jdbc.Driver"`, "crm")
	l.Grant("crm")
	l.Exec("CREATE TABLE lhjdbc.crm.accounts (id INT, name VARCHAR(20))")
	cases := []struct {
		child, reason, code string
		args                map[string]any
	}{
		{"inspect_lakehouse_table", "LAKEHOUSE_TABLE_FORMAT_UNSUPPORTED", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"catalog": "lhjdbc", "database": "crm", "table": "accounts"}},
		{"inspect_lakehouse_table", "LAKEHOUSE_CATALOG_NOT_EXTERNAL", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"catalog": "internal", "database": "demo", "table": "orders"}},
		{"inspect_external_catalog", "LAKEHOUSE_CATALOG_NOT_FOUND", "CHILD_ARGUMENTS_INVALID", map[string]any{"catalog": "nope"}},
		{"inspect_lakehouse_table", "LAKEHOUSE_CATALOG_UNREACHABLE", "CHILD_EXECUTION_FAILED",
			map[string]any{"catalog": "hive", "database": "default", "table": "t"}},
		{"inspect_external_catalog", "LAKEHOUSE_OBJECT_LIMIT_EXCEEDED", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"catalog": "lhjdbc", "include_objects": true, "object_limit": 51}},
		{"inspect_variant_column", "LAKEHOUSE_COLUMN_NOT_VARIANT", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"database": "demo", "table": "orders", "column": "note"}},
		{"inspect_variant_column", "LAKEHOUSE_VARIANT_COLUMN_NOT_FOUND", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"database": "demo", "table": "orders", "column": "nope"}},
		{"inspect_variant_column", "LAKEHOUSE_TABLE_NOT_FOUND", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"database": "demo", "table": "nope", "column": "v"}},
		{"inspect_variant_column", "LAKEHOUSE_SAMPLE_ROWS_EXCEEDED", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"database": "demo", "table": "orders", "column": "note", "sample_rows": 21}},
		{"inspect_variant_column", "LAKEHOUSE_IDENTIFIER_INVALID", "CHILD_ARGUMENTS_INVALID",
			map[string]any{"database": "demo", "table": "orders`; DROP TABLE x; --", "column": "v"}},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			e.Fail("doris_lakehouse", c.child, c.args, c.code, c.reason)
		})
	}
	// The hive catalog's metastore does not answer: listing its objects
	// makes the answer partial, with the state and the reason.
	var cat struct {
		State     string `json:"state"`
		Databases []any  `json:"databases"`
	}
	cd := e.Ok("doris_lakehouse", "inspect_external_catalog", map[string]any{"catalog": "hive", "include_objects": true}).Decode(t, &cat)
	if cd.Status != "partial" || cat.State != "unreachable" || cat.Databases != nil ||
		!strings.Contains(strings.Join(cd.Warnings, " "), "LAKEHOUSE_CATALOG_UNREACHABLE") {
		t.Fatalf("hive: %s %+v %v", cd.Status, cat, cd.Warnings)
	}
	// A table the reader may not read: permission, not "not found".
	l.Exec("CREATE DATABASE lhjdbc.hidden", "CREATE TABLE lhjdbc.hidden.t (id INT)")
	t.Cleanup(func() { e.RootDB().Exec("DROP DATABASE IF EXISTS `" + sim.BackingDatabase("lhjdbc", "hidden") + "`") })
	e.Fail("doris_lakehouse", "inspect_variant_column", map[string]any{"catalog": "lhjdbc", "database": "hidden", "table": "t", "column": "id"},
		"CHILD_EXECUTION_FAILED", "LAKEHOUSE_PERMISSION_DENIED")
}

// catalogResult is the data of inspect_external_catalog.
type catalogResult struct {
	Name       string            `json:"name"`
	Type       string            `json:"type"`
	State      *string           `json:"state"`
	Properties map[string]string `json:"properties"`
	Withheld   []string          `json:"withheld_properties"`
	Secret     int               `json:"secret_properties"`
	Databases  []struct {
		Name    string `json:"name"`
		Objects []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"objects"`
	} `json:"databases"`
	Truncated bool `json:"truncated"`
}

// TestLakehouseCatalogObjects: the object sample lists exactly the
// databases and tables the reader may see, within object_limit and
// LAKEHOUSE_MAX_CATALOG_DATABASES, and says when it stopped.
func TestLakehouseCatalogObjects(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{NoAudit: true, Config: func(c *doris.Config) { c.Lakehouse.MaxCatalogDatabases = 2 }})
	l := doristest.NewLake(t, e, "lhobj", `"type" = "hms", "hive.metastore.uris" = "thrift://127.0.0.1:9083"`, "a", "b", "c", "secret")
	for _, d := range []string{"a", "b", "c"} {
		l.Grant(d)
	}
	l.Exec("CREATE TABLE lhobj.a.t1 (id INT)", "CREATE TABLE lhobj.a.t2 (id INT)", "CREATE TABLE lhobj.b.t3 (id INT)",
		"CREATE TABLE lhobj.secret.hidden (id INT)")
	var got catalogResult
	e.Ok("doris_lakehouse", "inspect_external_catalog", map[string]any{"catalog": "lhobj", "include_objects": true}).Decode(t, &got)
	var seen []string
	for _, d := range got.Databases {
		for _, o := range d.Objects {
			seen = append(seen, d.Name+"."+o.Name)
		}
	}
	if got.Type != "hms" || *got.State != "reachable" || len(got.Databases) != 2 || strings.Join(seen, " ") != "a.t1 a.t2 b.t3" || !got.Truncated {
		t.Fatalf("got %+v (objects %v)", got, seen)
	}
	e.Ok("doris_lakehouse", "inspect_external_catalog", map[string]any{"catalog": "lhobj", "include_objects": true, "object_limit": 1}).Decode(t, &got)
	seen = nil
	for _, d := range got.Databases {
		for _, o := range d.Objects {
			seen = append(seen, d.Name+"."+o.Name)
		}
	}
	if strings.Join(seen, " ") != "a.t1" || !got.Truncated {
		t.Fatalf("object_limit 1: %v truncated=%v", seen, got.Truncated)
	}
}

// TestLakehouseHiveTable: a partitioned table of an HMS catalog lists the
// partition values of its rows (SHOW PARTITIONS), and says it has no
// snapshots rather than failing.
func TestLakehouseHiveTable(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "2.1", NoAudit: true})
	l := doristest.NewLake(t, e, "lhhive", `"type" = "hms", "hive.metastore.uris" = "thrift://127.0.0.1:9083"`, "logs")
	l.Grant("logs")
	l.Exec("CREATE TABLE lhhive.logs.access (path STRING, status INT, dt STRING, region STRING) PARTITION BY LIST (dt, region) ()",
		"INSERT INTO lhhive.logs.access VALUES ('/', 200, '2024-05-01', 'eu'), ('/a', 404, '2024-05-01', 'eu'), ('/b', 200, '2024-05-02', 'us')")
	var got lakeTableResult
	cd := e.Ok("doris_lakehouse", "inspect_lakehouse_table", map[string]any{"catalog": "lhhive", "database": "logs", "table": "access",
		"include_snapshots": true, "include_partitions": true}).Decode(t, &got)
	var names []string
	for _, p := range got.Partitions {
		names = append(names, p.Name)
	}
	if got.Format != "hive" || strings.Join(names, " ") != "dt=2024-05-01/region=eu dt=2024-05-02/region=us" ||
		strings.Join(got.PartitionColumns, ",") != "dt,region" {
		t.Fatalf("format %s, partitions %v, partition columns %v", got.Format, names, got.PartitionColumns)
	}
	if s := got.Sections["snapshots"]; s.Status != "unavailable" || s.ReasonCode != "LAKEHOUSE_SNAPSHOTS_NOT_SUPPORTED_FOR_FORMAT" || cd.Status != "partial" {
		t.Fatalf("snapshots: %+v (%s)", s, cd.Status)
	}
	if got.Pushdown == nil || strings.Join(got.Pushdown.ScanNodes, ",") != "VHIVE_SCAN_NODE" {
		t.Fatalf("pushdown: %+v", got.Pushdown)
	}
}

// TestLakehousePartitionValuesMasked: partition values are data, so a
// table partitioned by e-mail address shows them masked, and the result
// says how many values masking changed; the partition that is not
// personal data stays as it is.
func TestLakehousePartitionValuesMasked(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "2.1", NoAudit: true})
	l := doristest.NewLake(t, e, "lhmask", `"type" = "hms", "hive.metastore.uris" = "thrift://127.0.0.1:9083"`, "crm")
	l.Grant("crm")
	l.Exec("CREATE TABLE lhmask.crm.contacts (note STRING, owner_email STRING, region STRING) PARTITION BY LIST (owner_email, region) ()",
		"INSERT INTO lhmask.crm.contacts VALUES ('a', 'jane.doe@example.com', 'eu'), ('b', 'bo@example.org', 'us')")
	var got lakeTableResult
	cd := e.Ok("doris_lakehouse", "inspect_lakehouse_table", map[string]any{"catalog": "lhmask", "database": "crm", "table": "contacts",
		"include_partitions": true}).Decode(t, &got)
	var names []string
	for _, p := range got.Partitions {
		names = append(names, p.Name)
	}
	if want := "owner_email=**@example.org/region=us owner_email=j******e@example.com/region=eu"; strings.Join(names, " ") != want {
		t.Fatalf("partitions %v, want %s", names, want)
	}
	if applied, n := doristest.MaskingMeta(t, cd); !applied || n != 2 {
		t.Fatalf("masking metadata: applied %v, %d values; want 2", applied, n)
	}
	if raw := string(cd.Data); strings.Contains(raw, "jane.doe") || strings.Contains(raw, "bo@") {
		t.Fatalf("a raw address left the server: %s", raw)
	}
}
