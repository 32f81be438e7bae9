package sim_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

func TestMain(m *testing.M) {
	code := m.Run()
	mariadb.SkipNotice("doris/dorissim/sim")
	if err := mariadb.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "stop shared mariadb:", err)
	}
	os.Exit(code)
}

// startSim starts MariaDB (once) and a simulator in front of it.
func startSim(t *testing.T, profile string) (*sim.Server, *mariadb.Instance) {
	t.Helper()
	in := mariadb.SharedFor(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() && os.Getenv("SIM_DEBUG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := sim.Start(context.Background(), sim.Options{
		Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: profile, Logger: log,
	})
	if err != nil {
		t.Fatalf("start sim: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, in
}

func connector(t testing.TB, addr, user, pw, db string) *mysql.Config {
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd, c.DBName = "tcp", addr, user, pw, db
	c.InterpolateParams = true
	c.Timeout = 5 * time.Second
	return c
}

func open(t testing.TB, addr, user, pw, db string) *sql.DB {
	t.Helper()
	conn, err := mysql.NewConnector(connector(t, addr, user, pw, db))
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(conn)
	t.Cleanup(func() { d.Close() })
	return d
}

func root(t testing.TB, s *sim.Server, in *mariadb.Instance) *sql.DB {
	return open(t, s.Addr(), "root", in.RootPassword(), "demo")
}

func reader(t testing.TB, s *sim.Server) *sql.DB {
	return open(t, s.Addr(), mariadb.ReaderUser, mariadb.ReaderPassword, "demo")
}

type rowset struct {
	cols []string
	rows [][]sql.NullString
}

func (r rowset) col(name string) int {
	for i, c := range r.cols {
		if c == name {
			return i
		}
	}
	return -1
}

func query(t testing.TB, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, stmt string, args ...any) (rowset, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return rowset{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return rowset{}, err
	}
	out := rowset{cols: cols}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return out, err
		}
		out.rows = append(out.rows, vals)
	}
	return out, rows.Err()
}

func mustQuery(t testing.TB, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, stmt string, args ...any) rowset {
	t.Helper()
	r, err := query(t, q, stmt, args...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return r
}

func mysqlErr(t testing.TB, err error) *mysql.MySQLError {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("want a MySQL error, got %v", err)
	}
	return me
}

func wantErr(t testing.TB, err error, code uint16, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %d %q, got success", code, substr)
	}
	me := mysqlErr(t, err)
	if me.Number != code || !strings.Contains(me.Message, substr) {
		t.Fatalf("want error %d containing %q, got %d %q", code, substr, me.Number, me.Message)
	}
}

func wantCols(t testing.TB, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s columns:\n got  %v\n want %v", what, got, want)
	}
}

// ---------------------------------------------------------------- tests

func TestHandshakeAndAuth(t *testing.T) {
	s, in := startSim(t, "3.0")
	ctx := context.Background()
	db := reader(t, s)
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	r := mustQuery(t, db, "SELECT @@version_comment, version(), @@version")
	if got := r.rows[0][0].String; got != "Doris version doris-3.0.4-rc02-39f9074cec" {
		t.Fatalf("version_comment %q", got)
	}
	if r.rows[0][1].String != "5.7.99" || r.rows[0][2].String != "5.7.99" {
		t.Fatalf("version %v", r.rows[0])
	}
	wantCols(t, "version", r.cols, "@@version_comment", "version()", "@@version")
	r = mustQuery(t, db, "SELECT @@version_comment LIMIT 1")
	if len(r.rows) != 1 {
		t.Fatal("limit 1")
	}
	r = mustQuery(t, db, "SHOW VARIABLES LIKE 'version_comment'")
	wantCols(t, "show variables", r.cols, "Variable_name", "Value", "Default_Value", "Changed")
	if len(r.rows) != 1 || !strings.HasPrefix(r.rows[0][1].String, "Doris version doris-3.0.4") {
		t.Fatalf("show variables: %v", r.rows)
	}

	bad := open(t, s.Addr(), mariadb.ReaderUser, "wrong", "")
	err := bad.PingContext(ctx)
	wantErr(t, err, 1045, "Access denied for user 'mcp_reader'@'127.0.0.1' (using password: YES)")
	if mysqlErr(t, err).SQLState != [5]byte{'2', '8', '0', '0', '0'} {
		t.Fatalf("sqlstate %s", mysqlErr(t, err).SQLState)
	}
	unknown := open(t, s.Addr(), "nobody", "x", "")
	wantErr(t, unknown.PingContext(ctx), 1045, "Access denied for user 'nobody'")
	// connecting with a catalog-qualified database
	q := open(t, s.Addr(), "root", in.RootPassword(), "internal.demo")
	r = mustQuery(t, q, "SELECT DATABASE()")
	if r.rows[0][0].String != "demo" {
		t.Fatalf("database %v", r.rows)
	}
}

func TestDorisStatementsPerProfile(t *testing.T) {
	type shape struct {
		profile, build string
		backends       int
		catalogs       []string
		process        int
	}
	for _, sh := range []shape{
		{"2.1", "doris-2.1.7-rc03-443e87e203", 25, []string{"CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "Comment"}, 12},
		{"3.0", "doris-3.0.4-rc02-39f9074cec", 28, []string{"CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "LastUpdateTime", "Comment"}, 12},
		{"4.0", "doris-4.0.7-rc02-35854e7e92a", 28, []string{"CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "LastUpdateTime", "Comment"}, 15},
		{"4.1", "doris-4.1.4-rc04-ad35a140c7f", 28, []string{"CatalogId", "CatalogName", "Type", "IsCurrent", "CreateTime", "LastUpdateTime", "Comment"}, 15},
	} {
		t.Run(sh.profile, func(t *testing.T) {
			s, in := startSim(t, sh.profile)
			rt := root(t, s, in)
			rd := reader(t, s)
			r := mustQuery(t, rt, "SELECT @@version_comment")
			if r.rows[0][0].String != "Doris version "+sh.build {
				t.Fatalf("version_comment %v", r.rows)
			}
			r = mustQuery(t, rt, "SHOW FRONTENDS")
			wantCols(t, "frontends", r.cols, "Name", "Host", "EditLogPort", "HttpPort", "QueryPort", "RpcPort",
				"ArrowFlightSqlPort", "Role", "IsMaster", "ClusterId", "Join", "Alive", "ReplayedJournalId",
				"LastStartTime", "LastHeartbeat", "IsHelper", "ErrMsg", "Version", "CurrentConnected")
			if r.rows[0][r.col("Version")].String != sh.build {
				t.Fatalf("FE version %v", r.rows[0])
			}
			_, err := query(t, rd, "SHOW FRONTENDS")
			if sh.profile == "2.1" {
				wantErr(t, err, 1227, "Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation")
			} else if err != nil {
				t.Fatalf("reader SHOW FRONTENDS on %s: %v", sh.profile, err)
			}
			r = mustQuery(t, rt, "SHOW BACKENDS")
			if len(r.cols) != sh.backends || r.cols[0] != "BackendId" || r.cols[len(r.cols)-1] != "NodeRole" {
				t.Fatalf("backends columns %v", r.cols)
			}
			if r.rows[0][r.col("Version")].String != sh.build || r.rows[0][r.col("Tag")].String != `{"location" : "default"}` {
				t.Fatalf("BE row %v", r.rows[0])
			}
			_, err = query(t, rd, "SHOW BACKENDS")
			wantErr(t, err, 1227, "(Admin_priv)")
			r = mustQuery(t, rt, "SHOW PROC '/'")
			wantCols(t, "proc /", r.cols, "name")
			if len(r.rows) < 20 || r.rows[0][0].String != "auth" {
				t.Fatalf("proc / rows %v", r.rows)
			}
			r = mustQuery(t, rt, "SHOW PROC '/current_queries'")
			wantCols(t, "current_queries", r.cols, "QueryId", "ConnectionId", "Catalog", "Database", "User", "ExecTime", "SqlHash", "Statement")
			_, err = query(t, rd, "SHOW PROC '/current_queries'")
			wantErr(t, err, 1227, "Admin_priv")
			r = mustQuery(t, rd, "SHOW CATALOGS")
			wantCols(t, "catalogs", r.cols, sh.catalogs...)
			if len(r.rows) != 2 {
				t.Fatalf("catalog rows %v", r.rows)
			}
			r = mustQuery(t, rd, "SHOW DATABASES")
			wantCols(t, "databases", r.cols, "Database")
			var dbs []string
			for _, row := range r.rows {
				dbs = append(dbs, row[0].String)
			}
			if got := strings.Join(dbs, ","); got != "__internal_schema,demo,information_schema" {
				t.Fatalf("reader databases %s", got)
			}
			mustQuery(t, rd, "SHOW DATABASES FROM `internal`")
			r = mustQuery(t, rd, "SHOW FULL TABLES FROM `internal`.`demo`")
			if sh.profile == "2.1" {
				wantCols(t, "full tables", r.cols, "Tables_in_demo", "Table_type")
			} else {
				wantCols(t, "full tables", r.cols, "Tables_in_demo", "Table_type", "Storage_format", "Inverted_index_storage_format")
			}
			if len(r.rows) != 6 || r.rows[5][0].String != "v_daily_sales" || r.rows[5][1].String != "VIEW" { // demo.documents is the 6th
				t.Fatalf("tables %v", r.rows)
			}
			r = mustQuery(t, rd, "SHOW FULL COLUMNS FROM `internal`.`demo`.`orders`")
			wantCols(t, "full columns", r.cols, "Field", "Type", "Collation", "Null", "Key", "Default", "Extra", "Privileges", "Comment")
			if r.rows[0][0].String != "order_id" || r.rows[0][4].String != "YES" || r.rows[1][4].String != "NO" {
				t.Fatalf("columns keys %v %v", r.rows[0], r.rows[1])
			}
			if r.rows[7][1].String != "decimalv3(12,2)" || r.rows[7][8].String == "" {
				t.Fatalf("total_amount %v", r.rows[7])
			}
			r = mustQuery(t, rd, "SHOW INDEX FROM `internal`.`demo`.`products`")
			wantCols(t, "index", r.cols, "Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation",
				"Cardinality", "Sub_part", "Packed", "Null", "Index_type", "Comment", "Properties")
			found := false
			for _, row := range r.rows {
				if row[2].String == "ft_description" && row[10].String == "INVERTED" && strings.Contains(row[12].String, `"parser" = "english"`) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no inverted index row: %v", r.rows)
			}
			// A reader sees the groups it may use: normal, not etl.
			r = mustQuery(t, rd, "SHOW WORKLOAD GROUPS")
			if sh.profile >= "4.0" {
				if len(r.cols) != 20 || r.cols[2] != "min_cpu_percent" || len(r.rows) != 1 {
					t.Fatalf("4.0 workload groups %v", r.cols)
				}
			} else {
				wantCols(t, "workload groups", r.cols, "Id", "Name", "Item", "Value")
			}
			_, err = query(t, rd, "SHOW COMPUTE GROUPS")
			if sh.profile == "2.1" {
				wantErr(t, err, 1105, "errCode = 2, detailMessage = ")
			} else {
				wantErr(t, err, 1227, "the ADMIN privilege(s)")
			}
			r = mustQuery(t, rd, "SHOW FULL PROCESSLIST")
			if len(r.cols) != sh.process || r.cols[0] != "CurrentConnected" || r.col("QueryId") < 0 || r.col("Info") < 0 {
				t.Fatalf("processlist %v", r.cols)
			}
			for _, q := range []string{"EXPLAIN SELECT * FROM orders WHERE status = 'paid'", "EXPLAIN VERBOSE SELECT COUNT(*) FROM `internal`.`demo`.`orders` o JOIN customers c ON o.customer_id = c.customer_id", "EXPLAIN SELECT 1"} {
				r = mustQuery(t, rd, q)
				wantCols(t, "explain", r.cols, "Explain String(Nereids Planner)")
				if r.rows[0][0].String != "PLAN FRAGMENT 0" {
					t.Fatalf("%s: %v", q, r.rows[0])
				}
			}
			text := joinRows(mustQuery(t, rd, "EXPLAIN VERBOSE SELECT customer_id FROM orders WHERE status = 'paid'"))
			for _, want := range []string{"TABLE: demo.orders(orders)", "PREDICATES: status = 'paid'", "cardinality=", "TupleDescriptor{id=0, tbl=orders}", "SlotDescriptor{", "MYSQL_PROTOCAL"} {
				if !strings.Contains(text, want) {
					t.Fatalf("explain verbose lacks %q:\n%s", want, text)
				}
			}
			_, err = query(t, rd, "EXPLAIN SELECT * FROM secret.salaries")
			wantErr(t, err, 1105, "Permission denied")
			_, err = query(t, rd, "EXPLAIN SELECT * FROM demo.nope")
			wantErr(t, err, 1105, "Table [nope] does not exist in database [demo].")

			// Doris-only information_schema tables run real SQL upstream.
			// active_queries lists the statements in flight: this one.
			r = mustQuery(t, rd, "SELECT * FROM information_schema.active_queries WHERE `SQL` LIKE '%active_queries%' ORDER BY QUERY_TIME_MS DESC LIMIT 2")
			aq := []string{"QUERY_ID", "QUERY_START_TIME", "QUERY_TIME_MS", "WORKLOAD_GROUP_ID", "DATABASE", "FRONTEND_INSTANCE", "QUEUE_START_TIME", "QUEUE_END_TIME", "QUERY_STATUS"}
			if sh.profile >= "4.0" {
				aq = append(aq, "USER")
			}
			wantCols(t, "active_queries", r.cols, append(aq, "SQL")...)
			if len(r.rows) != 1 || r.rows[0][8].String != "RUNNING" || r.rows[0][4].String != "demo" {
				t.Fatalf("active_queries rows %v", r.rows)
			}
			r = mustQuery(t, rd, "SELECT * FROM internal.information_schema.workload_groups")
			if sh.profile >= "4.0" {
				if r.cols[2] != "MIN_CPU_PERCENT" {
					t.Fatalf("wg cols %v", r.cols)
				}
			} else if r.cols[2] != "CPU_SHARE" {
				t.Fatalf("wg cols %v", r.cols)
			}
			r = mustQuery(t, rd, "SELECT wg.NAME FROM information_schema.workload_groups wg WHERE wg.NAME = 'normal'")
			if len(r.rows) != 1 {
				t.Fatalf("aliased wg %v", r.rows)
			}
			r = mustQuery(t, rd, "SELECT METRIC_NAME, METRIC_VALUE FROM information_schema.file_cache_statistics WHERE METRIC_NAME LIKE 'hits%'")
			if len(r.rows) != 3 {
				t.Fatalf("file cache %v", r.rows)
			}
			mustQuery(t, rd, "SELECT * FROM information_schema.backend_active_tasks")
			r = mustQuery(t, rd, "SELECT * FROM information_schema.processlist")
			if r.cols[0] != "CURRENT_CONNECTED" || r.rows[0][0].String != "Yes" {
				t.Fatalf("is processlist %v %v", r.cols, r.rows)
			}
			_, err = query(t, rd, "SELECT * FROM information_schema.be_compaction_tasks")
			if sh.profile >= "4.0" {
				if err != nil {
					t.Fatalf("be_compaction_tasks: %v", err)
				}
			} else {
				wantErr(t, err, 1051, "Unknown table 'be_compaction_tasks'")
			}
			r = mustQuery(t, rd, "SELECT * FROM internal.__internal_schema.audit_log ORDER BY `time` DESC LIMIT 5")
			switch sh.profile {
			case "2.1":
				if len(r.cols) != 23 || r.cols[len(r.cols)-1] != "stmt" || r.col("stmt_type") != 14 {
					t.Fatalf("2.1 audit %v", r.cols)
				}
			case "3.0":
				if len(r.cols) != 29 || r.col("compute_group") < 0 {
					t.Fatalf("3.0 audit %v", r.cols)
				}
			case "4.0", "4.1":
				if r.cols[4] != "frontend_ip" || r.col("queue_time_ms") < 0 || r.cols[len(r.cols)-1] != "stmt" {
					t.Fatalf("4.0 audit %v", r.cols)
				}
			}
			r = mustQuery(t, rd, "SELECT query_id, `time`, `user`, `catalog`, db, state, query_time, cpu_time_ms, scan_bytes, scan_rows, return_rows, peak_memory_bytes, sql_hash, sql_digest, stmt "+
				"FROM internal.__internal_schema.audit_log WHERE `time` >= ? AND query_time >= ? AND is_query = 1 ORDER BY query_time DESC LIMIT 21",
				time.Now().Add(-7*24*time.Hour).Format("2006-01-02 15:04:05"), 1000)
			if len(r.rows) == 0 {
				t.Fatal("no slow queries")
			}
		})
	}
}

func joinRows(r rowset) string {
	var b strings.Builder
	for _, row := range r.rows {
		b.WriteString(row[0].String)
		b.WriteByte('\n')
	}
	return b.String()
}

func TestTranslations(t *testing.T) {
	s, in := startSim(t, "3.0")
	ctx := context.Background()
	rd := reader(t, s)
	conn, err := rd.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, stmt := range []string{"SWITCH internal", "SWITCH `internal`", "USE internal.demo", "USE `internal`.`demo`", "SET enable_profile=true",
		`SET session_context="trace_id:8f1e2b9c-1111-4222-8333-944455556666"`, "SET sql_select_limit = 1000", "SET query_timeout = 30"} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	r := mustQuery(t, conn, "SELECT @@query_timeout, @@max_statement_time")
	if r.rows[0][0].String != "30" || !strings.HasPrefix(r.rows[0][1].String, "30") {
		t.Fatalf("timeouts %v", r.rows)
	}
	r = mustQuery(t, conn, "SELECT TABLE_COMMENT FROM internal.information_schema.tables WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", "demo", "orders")
	if len(r.rows) != 1 || r.rows[0][0].String != "Sales orders, one row per order" {
		t.Fatalf("comment %v", r.rows)
	}
	// Doris's sample syntax: TABLESAMPLE(n PERCENT) REPEATABLE seed, a
	// real (repeatable) sample of the rows.
	r = mustQuery(t, conn, "SELECT COUNT(*), NDV(status) FROM internal.demo.orders TABLESAMPLE(10 PERCENT) REPEATABLE 1")
	n, _ := strconv.Atoi(r.rows[0][0].String)
	if n < 300 || n > 700 || r.rows[0][1].String == "0" {
		t.Fatalf("10%% sample of 5000 orders: %v", r.rows)
	}
	if again := mustQuery(t, conn, "SELECT COUNT(*) FROM internal.demo.orders TABLESAMPLE(10 PERCENT) REPEATABLE 1"); again.rows[0][0].String != r.rows[0][0].String {
		t.Fatalf("REPEATABLE 1 sampled %s rows, then %s", r.rows[0][0].String, again.rows[0][0].String)
	}
	_, err = conn.ExecContext(ctx, "SELECT COUNT(*) FROM internal.demo.orders TABLESAMPLE 10 PERCENT")
	wantErr(t, err, 1105, "mismatched input '10' expecting '('")
	r = mustQuery(t, conn, "SELECT /*+ SET_VAR(query_timeout=5) */ o.order_id FROM `internal`.`demo`.`orders` o ORDER BY o.order_id LIMIT 1")
	if r.rows[0][0].String != "100001" {
		t.Fatalf("hinted %v", r.rows)
	}
	for stmt, want := range map[string]string{"SWITCH nosuch": "Unknown catalog 'nosuch'", "SELECT * FROM nosuch.db.t": "Unknown catalog 'nosuch'",
		"SHOW DATABASES FROM hive": "Failed to get database list of catalog hive"} {
		_, err := conn.ExecContext(ctx, stmt)
		wantErr(t, err, 1105, want)
	}
	_, err = conn.ExecContext(ctx, "SELEC 1")
	wantErr(t, err, 1105, "mismatched input 'SELEC' expecting")
	_, err = conn.ExecContext(ctx, "USE secret")
	wantErr(t, err, 1044, "Access denied for user 'mcp_reader'@'%' to database 'secret'")
	_, err = conn.ExecContext(ctx, "SET GLOBAL query_timeout = 5")
	wantErr(t, err, 1227, "Admin_priv")
	// big integers and binary values survive the relay
	r = mustQuery(t, conn, "SELECT external_ref, payment_token FROM demo.orders WHERE order_id = 105000")
	if r.rows[0][0].String != "9223372036854775807" {
		t.Fatalf("bigint %v", r.rows)
	}
	r = mustQuery(t, conn, "SHOW GRANTS")
	if r.rows[0][0].String != "'mcp_reader'@'%'" || !strings.Contains(r.rows[0][r.col("DatabasePrivs")].String, "internal.demo: Select_priv") {
		t.Fatalf("grants %v %v", r.cols, r.rows)
	}
	rt := root(t, s, in)
	r = mustQuery(t, rt, "SHOW PROC '/statistic'")
	if r.rows[len(r.rows)-1][0].String != "Total" {
		t.Fatalf("statistic %v", r.rows)
	}
	r = mustQuery(t, rt, "SHOW ROLES")
	if r.rows[0][0].String != "admin" {
		t.Fatalf("roles %v", r.rows)
	}
	for _, q := range []string{"SHOW LOAD FROM demo", "SHOW ALL ROUTINE LOAD", "SHOW STREAM LOAD FROM demo", "SHOW ALTER TABLE COLUMN FROM demo"} {
		mustQuery(t, rd, q)
	}
	r = mustQuery(t, rd, "SHOW PARTITIONS FROM demo.orders")
	if r.cols[0] != "PartitionId" || r.rows[0][1].String != "orders" {
		t.Fatalf("partitions %v %v", r.cols, r.rows)
	}
	r = mustQuery(t, rd, "SHOW CREATE TABLE `internal`.`demo`.`products`")
	wantCols(t, "show create", r.cols, "Table", "Create Table")
	for _, want := range []string{"CREATE TABLE `products` (", "`unit_price` decimal(10,2) NOT NULL COMMENT 'List price, USD'",
		"USING INVERTED PROPERTIES(\"parser\" = \"english\"", ") ENGINE=OLAP", "UNIQUE KEY(`product_id`)",
		"DISTRIBUTED BY HASH(`product_id`) BUCKETS 10", "\"replication_allocation\" = \"tag.location.default: 1\""} {
		if !strings.Contains(r.rows[0][1].String, want) {
			t.Fatalf("DDL lacks %q:\n%s", want, r.rows[0][1].String)
		}
	}
	r = mustQuery(t, rd, "SHOW CREATE TABLE demo.v_daily_sales")
	wantCols(t, "show create view", r.cols, "View", "Create View", "character_set_client", "collation_connection")
	r = mustQuery(t, rd, `SELECT * FROM jobs("type"="insert") WHERE Status = 'RUNNING'`)
	if r.cols[0] != "Id" || r.cols[len(r.cols)-1] != "Comment" || len(r.rows) != 0 {
		t.Fatalf("jobs tvf %v", r.cols)
	}
	r = mustQuery(t, rd, `SELECT Id, Name, JobName, State FROM mv_infos("database"="demo") m`)
	wantCols(t, "mv_infos", r.cols, "Id", "Name", "JobName", "State")
	r = mustQuery(t, rd, "DESC `internal`.`demo`.`orders`")
	wantCols(t, "desc", r.cols, "Field", "Type", "Null", "Key", "Default", "Extra")
}

func TestGrantsAreReal(t *testing.T) {
	s, _ := startSim(t, "3.0")
	ctx := context.Background()
	rd := reader(t, s)
	_, err := query(t, rd, "SELECT * FROM secret.salaries")
	wantErr(t, err, 1105, "errCode = 2, detailMessage = Permission denied: user ['mcp_reader'@'%'] does not have privilege for [priv predicate: OR, Admin_priv Select_priv ] command on [internal].[secret].[salaries]")
	_, err = rd.ExecContext(ctx, "INSERT INTO demo.products (product_id, sku, product_name, category, unit_price) VALUES (9001, 'X-1', 'x', 'x', 1)")
	wantErr(t, err, 1224, "(Load_priv) privilege(s) on table demo.products")
	_, err = rd.ExecContext(ctx, "CREATE TABLE demo.reader_probe (id INT)")
	if err == nil {
		t.Fatal("reader could create a table")
	}
	wr := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	for _, stmt := range []string{"CREATE TABLE demo.writer_probe (id INT PRIMARY KEY, v VARCHAR(10))",
		"INSERT INTO demo.writer_probe VALUES (1, 'a'), (2, 'b')", "DROP TABLE demo.writer_probe"} {
		if _, err := wr.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("writer %s: %v", stmt, err)
		}
	}
	res, err := wr.ExecContext(ctx, "UPDATE demo.customers SET city = city WHERE customer_id < 0")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Fatalf("affected %d", n)
	}
	_, err = query(t, wr, "SELECT * FROM secret.salaries")
	wantErr(t, err, 1105, "Permission denied")
}

// slowQuery runs for minutes unless stopped.
const slowQuery = "SELECT SUM(a.seq * b.seq) FROM demo.seq_1_to_100000 a, demo.seq_1_to_100000 b"

func TestQueryTimeout(t *testing.T) {
	for _, p := range []struct{ profile, text string }{
		{"2.1", "errCode = 2, detailMessage = Timeout"},
		{"3.0", "errCode = 2, detailMessage = query is timeout, killed by timeout checker"},
	} {
		t.Run(p.profile, func(t *testing.T) {
			s, in := startSim(t, p.profile)
			ctx := context.Background()
			conn, err := reader(t, s).Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "SET query_timeout = 1"); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			_, err = query(t, conn, slowQuery)
			wantErr(t, err, 1105, p.text)
			if d := time.Since(t0); d > 5*time.Second {
				t.Fatalf("timeout took %v", d)
			}
			_, err = query(t, conn, "SELECT /*+ SET_VAR(query_timeout=1) */ SUM(a.seq * b.seq) FROM demo.seq_1_to_100000 a, demo.seq_1_to_100000 b")
			wantErr(t, err, 1105, p.text)
			// Doris's view: the connection is idle once it answered.
			r := mustQuery(t, root(t, s, in), "SHOW FULL PROCESSLIST")
			for _, row := range r.rows {
				if row[r.col("Command")].String == "Query" && strings.Contains(row[r.col("Info")].String, "seq_1_to_100000") {
					t.Fatalf("timed-out query still listed as running: %v", row)
				}
			}
			// MariaDB's view: the statement really stops. Its thread may
			// take a moment to wind down after the error is sent.
			if !pollUntil(5*time.Second, 20*time.Millisecond, func() bool {
				var n int
				err := in.Root().QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE '%seq_1_to_100000 b%' AND INFO NOT LIKE '%PROCESSLIST%'").Scan(&n)
				if err != nil {
					t.Fatal(err)
				}
				return n == 0
			}) {
				t.Fatalf("the timed-out statement still runs in MariaDB after 5 s")
			}
		})
	}
}

func TestKillQuery(t *testing.T) {
	s, in := startSim(t, "3.0")
	ctx := context.Background()
	db := reader(t, s)
	victim, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	var id int64
	if err := victim.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := query(t, victim, slowQuery)
		done <- err
	}()
	killer, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer killer.Close()
	// Wait until the statement shows up in the process list with its query
	// id, and runs in MariaDB.
	var qid string
	pollUntil(5*time.Second, 20*time.Millisecond, func() bool {
		r := mustQuery(t, killer, "SHOW PROCESSLIST")
		for _, row := range r.rows {
			if row[r.col("Id")].String == fmt.Sprint(id) && row[r.col("Command")].String == "Query" {
				qid = row[r.col("QueryId")].String
			}
		}
		return qid != "" && runsUpstream(t, in, "seq_1_to_100000 b")
	})
	if qid == "" {
		t.Fatal("slow query not in processlist")
	}
	if _, err := killer.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id)); err != nil {
		t.Fatalf("kill: %v", err)
	}
	select {
	case err := <-done:
		wantErr(t, err, 1105, "errCode = 2, detailMessage = cancel query by user from 127.0.0.1:")
	case <-time.After(10 * time.Second):
		t.Fatal("killed query did not end")
	}
	// the victim connection is still usable; kill by Doris query id works
	// too (once MariaDB has wound the killed statement down, so that the
	// wait below sees the new one)
	if !pollUntil(5*time.Second, 20*time.Millisecond, func() bool { return !runsUpstream(t, in, "seq_1_to_100000 b") }) {
		t.Fatal("the killed statement still runs in MariaDB after 5 s")
	}
	go func() {
		_, err := query(t, victim, slowQuery)
		done <- err
	}()
	var running string
	rt := root(t, s, in)
	pollUntil(5*time.Second, 20*time.Millisecond, func() bool {
		for _, row := range mustQuery(t, rt, "SHOW PROC '/current_queries'").rows {
			if strings.Contains(row[7].String, "seq_1_to_100000") {
				running = row[0].String
			}
		}
		return running != "" && runsUpstream(t, in, "seq_1_to_100000 b")
	})
	if running == "" {
		t.Fatal("not in current_queries")
	}
	if _, err := killer.ExecContext(ctx, fmt.Sprintf("KILL QUERY '%s'", running)); err != nil {
		t.Fatalf("kill by query id: %v", err)
	}
	select {
	case err := <-done:
		wantErr(t, err, 1105, "cancel query by user")
	case <-time.After(10 * time.Second):
		t.Fatal("query killed by id did not end")
	}
}

// runsUpstream reports whether MariaDB runs a statement containing marker.
// The simulator lists a statement (and takes a KILL for it) a moment before
// MariaDB starts it, and MariaDB drops a KILL QUERY for a thread that runs
// nothing yet: a test that kills waits for this too.
func runsUpstream(t *testing.T, in *mariadb.Instance, marker string) bool {
	t.Helper()
	var n int
	if err := in.Root().QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%'", "%"+marker+"%").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func TestClientDisconnectKillsUpstreamWork(t *testing.T) {
	s, in := startSim(t, "3.0")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	db := reader(t, s)
	_, err := db.QueryContext(ctx, slowQuery)
	if err == nil {
		t.Fatal("expected cancellation")
	}
	rt := root(t, s, in)
	if !pollUntil(5*time.Second, 50*time.Millisecond, func() bool {
		r := mustQuery(t, rt, "SHOW FULL PROCESSLIST")
		for _, row := range r.rows {
			if row[r.col("Command")].String == "Query" && strings.Contains(row[r.col("Info")].String, "seq_1_to_100000") {
				return false
			}
		}
		return true
	}) {
		t.Fatal("upstream query kept running after the client went away")
	}
}
