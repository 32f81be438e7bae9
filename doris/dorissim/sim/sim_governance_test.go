package sim_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

func TestFrontendConfig(t *testing.T) {
	for _, p := range []struct {
		profile string
		lineage bool
	}{{"2.1", false}, {"3.0", false}, {"4.0", true}} {
		t.Run(p.profile, func(t *testing.T) {
			s, in := startSim(t, p.profile)
			_, err := query(t, reader(t, s), "SHOW FRONTEND CONFIG LIKE 'ldap%'")
			wantErr(t, err, 1227, "the (ADMIN) privilege(s)")
			adm := root(t, s, in)
			r := mustQuery(t, adm, "SHOW FRONTEND CONFIG")
			wantCols(t, "SHOW FRONTEND CONFIG", r.cols, "Key", "Value", "Type", "IsMutable", "MasterOnly", "Comment")
			keys := map[string]string{}
			for _, row := range r.rows {
				keys[row[0].String] = row[1].String
			}
			if keys["authentication_type"] != "default" || keys["ldap_authentication_enabled"] != "false" {
				t.Fatalf("config %v", keys)
			}
			if v, ok := keys["activate_lineage_plugin"]; ok != p.lineage || (ok && v != "[]") {
				t.Fatalf("activate_lineage_plugin on %s: %q present=%v, want present=%v", p.profile, v, ok, p.lineage)
			}
			r = mustQuery(t, adm, "SHOW FRONTEND CONFIG LIKE 'ldap_use_ssl'")
			if len(r.rows) != 1 || r.rows[0][0].String != "ldap_use_ssl" {
				t.Fatalf("LIKE: %v", r.rows)
			}
			if _, err := adm.ExecContext(context.Background(), `ADMIN SET FRONTEND CONFIG ("ldap_default_roles" = "analysts,readers")`); err != nil {
				t.Fatal(err)
			}
			r = mustQuery(t, adm, "SHOW FRONTEND CONFIG LIKE 'ldap_default_roles'")
			if r.rows[0][1].String != "analysts,readers" {
				t.Fatalf("after ADMIN SET: %v", r.rows)
			}
			_, err = adm.ExecContext(context.Background(), `ADMIN SET FRONTEND CONFIG ("query_port" = "1")`)
			wantErr(t, err, 1105, "Config 'query_port' does not exist or is not mutable")
			_, err = reader(t, s).ExecContext(context.Background(), `ADMIN SET FRONTEND CONFIG ("ldap_default_roles" = "x")`)
			wantErr(t, err, 1227, "ADMIN")
		})
	}
}

func TestFrontendConfigFromOptions(t *testing.T) {
	in := mariadb.SharedFor(t)
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", Upstream: in.Addr(), Users: in.UserMap(),
		Profile: "4.0", Logger: discard(), FEConfig: map[string]string{"authentication_type": "ldap", "activate_lineage_plugin": "[example-lineage]"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := mustQuery(t, root(t, s, in), "SHOW FRONTEND CONFIG LIKE '%a%_%t%'")
	got := map[string]string{}
	for _, row := range r.rows {
		got[row[0].String] = row[1].String
	}
	if got["authentication_type"] != "ldap" || got["activate_lineage_plugin"] != "[example-lineage]" {
		t.Fatalf("fe.conf overrides not shown: %v", got)
	}
}

func TestUserDefinedFunctions(t *testing.T) {
	for _, p := range []string{"2.1", "3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			s, _ := startSim(t, p)
			ctx := context.Background()
			w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
			name := "mask_phone_" + strings.ReplaceAll(p, ".", "")
			create := fmt.Sprintf(`CREATE FUNCTION %s(VARCHAR(32), INT) RETURNS VARCHAR(32) PROPERTIES (
  "file" = "file:///opt/udf/mask-udf.jar", "symbol" = "com.example.udf.MaskPhone", "type" = "JAVA_UDF", "always_nullable" = "true")`, name)
			if _, err := w.ExecContext(ctx, create); err != nil {
				t.Fatalf("writer CREATE FUNCTION: %v", err)
			}
			t.Cleanup(func() { w.ExecContext(ctx, "DROP FUNCTION IF EXISTS "+name+"(VARCHAR(32), INT)") })
			_, err := w.ExecContext(ctx, create)
			wantErr(t, err, 1105, "already exists")
			_, err = reader(t, s).ExecContext(ctx, strings.Replace(create, name, name+"_r", 1))
			wantErr(t, err, 1044, "Access denied for user 'mcp_reader'")
			_, err = w.ExecContext(ctx, strings.Replace(create, "CREATE FUNCTION", "CREATE GLOBAL FUNCTION", 1))
			wantErr(t, err, 1227, "ADMIN")

			r := mustQuery(t, reader(t, s), "SHOW FULL FUNCTIONS IN demo LIKE 'mask_phone%'")
			wantCols(t, "SHOW FULL FUNCTIONS", r.cols, "Signature", "Return Type", "Function Type", "Intermediate Type", "Properties")
			var row []string
			for _, x := range r.rows {
				if strings.HasPrefix(x[0].String, name+"(") {
					row = []string{x[0].String, x[1].String, x[2].String, x[3].String, x[4].String}
				}
			}
			if row == nil || row[0] != name+"(VARCHAR(32), INT)" || row[1] != "VARCHAR(32)" {
				t.Fatalf("function row %v in %v", row, r.rows)
			}
			if p == "4.0" {
				if row[2] != "SCALAR/JAVA_UDF" || !strings.Contains(row[4], "FILE=file:///opt/udf/mask-udf.jar") || !strings.Contains(row[4], "SYMBOL=com.example.udf.MaskPhone") {
					t.Fatalf("4.x row %v", row)
				}
			} else if row[2] != "Scalar" || row[3] != "NULL" || !strings.Contains(row[4], `"symbol":"com.example.udf.MaskPhone"`) || !strings.Contains(row[4], `"type":"JAVA_UDF"`) {
				t.Fatalf("%s row %v", p, row)
			}
			r = mustQuery(t, reader(t, s), "SHOW FUNCTIONS FROM demo")
			wantCols(t, "SHOW FUNCTIONS", r.cols, "Function Name")
			if !strings.Contains(joinRows(r), name+"\n") {
				t.Fatalf("names %v", r.rows)
			}
			if _, err := w.ExecContext(ctx, "DROP FUNCTION "+name+"(VARCHAR(32), INT)"); err != nil {
				t.Fatal(err)
			}
			if r := mustQuery(t, reader(t, s), "SHOW FULL FUNCTIONS IN demo LIKE ?", name); len(r.rows) != 0 {
				t.Fatalf("dropped function still listed: %v", r.rows)
			}
			_, err = w.ExecContext(ctx, "DROP FUNCTION "+name+"(VARCHAR(32), INT)")
			wantErr(t, err, 1105, "Unknown function")
		})
	}
}

func TestGlobalFunctions(t *testing.T) {
	s, in := startSim(t, "3.0")
	ctx := context.Background()
	adm := root(t, s, in)
	if _, err := adm.ExecContext(ctx, `CREATE GLOBAL ALIAS FUNCTION id_masking_g(INT) WITH PARAMETER(id) AS CONCAT(LEFT(id, 3), '****', RIGHT(id, 4))`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { adm.ExecContext(ctx, "DROP GLOBAL FUNCTION id_masking_g(INT)") })
	r := mustQuery(t, reader(t, s), "SHOW GLOBAL FULL FUNCTIONS")
	found := false
	for _, row := range r.rows {
		if row[0].String == "id_masking_g(INT)" {
			found = row[2].String == "Alias" && strings.Contains(row[4].String, `"parameter":"id"`)
		}
	}
	if !found {
		t.Fatalf("global alias function: %v", r.rows)
	}
	if r := mustQuery(t, reader(t, s), "SHOW FULL FUNCTIONS IN demo LIKE 'id_masking_g'"); len(r.rows) != 0 {
		t.Fatalf("a global function is listed in demo: %v", r.rows)
	}
}

func TestAnalyzeAndStatistics(t *testing.T) {
	for _, p := range []string{"2.1", "3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			s, in := startSim(t, p)
			ctx := context.Background()
			rd := reader(t, s)
			truth := in.Root()
			var rows, ndv, nulls int64
			if err := truth.QueryRowContext(ctx, "SELECT COUNT(*), COUNT(DISTINCT city), COUNT(*) - COUNT(city) FROM demo.customers").Scan(&rows, &ndv, &nulls); err != nil {
				t.Fatal(err)
			}
			r := mustQuery(t, rd, "SHOW TABLE STATS demo.customers")
			if r.rows[0][r.col("row_count")].String != strconv.FormatInt(rows, 10) {
				t.Fatalf("row count before ANALYZE: %v", r.rows)
			}
			r = mustQuery(t, rd, "ANALYZE TABLE demo.customers (city, segment)")
			wantCols(t, "ANALYZE", r.cols, "Catalog_Name", "DB_Name", "Table_Name", "Columns", "Job_Id")
			if _, err := rd.ExecContext(ctx, "ANALYZE TABLE demo.customers WITH SYNC"); err != nil {
				t.Fatal(err)
			}
			r = mustQuery(t, rd, "SHOW COLUMN STATS demo.customers (city)")
			if len(r.rows) != 1 {
				t.Fatalf("column stats %v", r.rows)
			}
			got := r.rows[0]
			want := []string{"city", "customers", fmt.Sprintf("%d.0", rows), fmt.Sprintf("%d.0", ndv), fmt.Sprintf("%d.0", nulls)}
			for i, w := range want {
				if got[i].String != w {
					t.Fatalf("column %d: got %q, want %q (row %v)", i, got[i].String, w, got)
				}
			}
			if len(r.cols) < 16 || r.cols[15] != "last_analyze_row_count" {
				t.Fatalf("columns %v", r.cols)
			}
			r = mustQuery(t, rd, "SHOW TABLE STATS demo.customers")
			if r.rows[0][r.col("row_count")].String != strconv.FormatInt(rows, 10) || r.rows[0][r.col("trigger")].String != "MANUAL" ||
				!strings.Contains(r.rows[0][r.col("columns")].String, "(customers, city)") {
				t.Fatalf("table stats %v %v", r.cols, r.rows)
			}
			_, err := query(t, rd, "SHOW COLUMN STATS secret.salaries")
			wantErr(t, err, 1105, "Permission denied")
			_, err = rd.ExecContext(ctx, "ANALYZE TABLE secret.salaries WITH SYNC")
			wantErr(t, err, 1105, "Permission denied")
		})
	}
}

func TestRoles(t *testing.T) {
	s, in := startSim(t, "4.0")
	ctx := context.Background()
	_, err := query(t, reader(t, s), "SHOW ROLES")
	wantErr(t, err, 1227, "GRANT")
	adm := root(t, s, in)
	for _, q := range []string{"CREATE ROLE IF NOT EXISTS finance_readers COMMENT 'finance analysts'",
		"GRANT SELECT_PRIV ON demo.* TO ROLE 'finance_readers'", "GRANT 'finance_readers' TO 'mcp_reader'@'%'"} {
		if _, err := adm.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { adm.ExecContext(ctx, "DROP ROLE IF EXISTS finance_readers") })
	r := mustQuery(t, adm, "SHOW ROLES")
	wantCols(t, "SHOW ROLES", r.cols[:3], "Name", "Comment", "Users")
	var got []string
	for _, row := range r.rows {
		if row[0].String == "finance_readers" {
			got = []string{row[1].String, row[2].String, row[r.col("DatabasePrivs")].String}
		}
	}
	if strings.Join(got, "|") != "finance analysts|'mcp_reader'@'%'|internal.demo: Select_priv" {
		t.Fatalf("role row %v", got)
	}
	_, err = adm.ExecContext(ctx, "CREATE ROLE finance_readers")
	wantErr(t, err, 1105, "already exists")
}

func TestAuditRecordsScanRows(t *testing.T) {
	for _, p := range []string{"2.1", "3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			s, in := startSim(t, p)
			ctx := context.Background()
			rd := reader(t, s)
			marker := fmt.Sprintf("SELECT COUNT(*) AS n_%d FROM customers WHERE segment <> 'none'", time.Now().UnixNano())
			mustQuery(t, rd, marker)
			if err := s.SyncAudit(ctx); err != nil {
				t.Fatal(err)
			}
			var n int64
			in.Root().QueryRowContext(ctx, "SELECT COUNT(*) FROM demo.customers").Scan(&n)
			r := mustQuery(t, rd, "SELECT `user`, db, state, scan_rows, return_rows, is_query, stmt_type FROM internal.__internal_schema.audit_log WHERE stmt = ?", marker)
			if len(r.rows) != 1 {
				t.Fatalf("audit rows %v", r.rows)
			}
			var cells []string
			for _, v := range r.rows[0] {
				cells = append(cells, v.String)
			}
			got := strings.Join(cells, " ")
			want := fmt.Sprintf("%s demo EOF %d 1 1 SELECT", mariadb.ReaderUser, n)
			if got != want {
				t.Fatalf("audit row: got %s, want %s", got, want)
			}
		})
	}
}

func TestSeedAuditHistory(t *testing.T) {
	mariadb.Require(t)
	in, err := mariadb.Start(context.Background(), mariadb.Options{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop() })
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", Upstream: in.Addr(), Users: in.UserMap(), Logger: discard(), NoAuditLog: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	now := time.Now()
	n, err := s.SeedAuditHistory(context.Background(), now, 14)
	if err != nil {
		t.Fatal(err)
	}
	var hours, inserts, ctas, total int
	in.Root().QueryRow("SELECT COUNT(DISTINCT DATE_FORMAT(`time`, '%Y-%m-%d %H')), SUM(stmt LIKE 'INSERT INTO demo.daily_revenue%'), "+
		"SUM(stmt LIKE 'CREATE TABLE demo.customer_ltv AS SELECT%'), COUNT(*) FROM __internal_schema.audit_log WHERE stmt_id > 500000 AND stmt_id < 10000000").
		Scan(&hours, &inserts, &ctas, &total)
	if total != n || inserts != 14 || ctas != 2 || hours < 14*16 {
		t.Fatalf("history: %d rows written, %d found over %d hours, %d nightly inserts, %d CTAS", n, total, hours, inserts, ctas)
	}
}

func TestAlterTableSetShowsInCreateTable(t *testing.T) {
	s, _ := startSim(t, "3.0")
	ctx := context.Background()
	w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	if _, err := w.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS demo.props_probe (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.ExecContext(ctx, "DROP TABLE IF EXISTS demo.props_probe") })
	if _, err := w.ExecContext(ctx, `ALTER TABLE demo.props_probe SET ("compression" = "ZSTD")`); err != nil {
		t.Fatal(err)
	}
	_, err := reader(t, s).ExecContext(ctx, `ALTER TABLE demo.props_probe SET ("compression" = "LZ4")`)
	wantErr(t, err, 1142, "(ALTER) privilege")
	r := mustQuery(t, reader(t, s), "SHOW CREATE TABLE demo.props_probe")
	if !strings.Contains(r.rows[0][1].String, `"compression" = "ZSTD"`) {
		t.Fatalf("create table %s", r.rows[0][1].String)
	}
}

func TestDemoActivity(t *testing.T) {
	// Its own MariaDB: the activity adds tables the other tests do not expect.
	mariadb.Require(t)
	in, err := mariadb.Start(context.Background(), mariadb.Options{Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop() })
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", Upstream: in.Addr(), Users: in.UserMap(), Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.DemoActivity(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.SyncAudit(context.Background()); err != nil {
		t.Fatal(err)
	}
	var want, got int
	in.Root().QueryRow("SELECT COUNT(DISTINCT order_date) FROM demo.orders WHERE status NOT IN ('cancelled', 'returned')").Scan(&want)
	in.Root().QueryRow("SELECT COUNT(*) FROM demo.daily_revenue").Scan(&got)
	if got != want || got == 0 {
		t.Fatalf("daily_revenue has %d rows, orders have %d days", got, want)
	}
	var inserts int
	in.Root().QueryRow("SELECT COUNT(*) FROM __internal_schema.audit_log WHERE `user` = 'mcp_writer' AND state = 'OK' AND stmt LIKE 'INSERT INTO demo.daily_revenue%'").Scan(&inserts)
	if inserts == 0 {
		t.Fatal("the demo's INSERT ... SELECT is not in the audit log")
	}
	if r := mustQuery(t, reader(t, s), "SHOW FULL FUNCTIONS IN demo LIKE 'mask_email'"); len(r.rows) != 1 {
		t.Fatalf("demo UDF: %v", r.rows)
	}
	if err := s.DemoActivity(context.Background()); err != nil {
		t.Fatalf("a second run: %v", err)
	}
}
