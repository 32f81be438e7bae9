package query_test

// execute_query against the simulator over real MariaDB: typed values,
// ceilings, truncation, timeouts and kills, write refusals and permission
// denials, checked against what MariaDB itself holds and runs.

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// expectedJSON is the JSON value the server must produce for one MariaDB
// value of a column whose information_schema DATA_TYPE is dataType:
// integers as numbers up to 2^53-1 and as strings beyond, decimals as
// strings, datetimes in ISO 8601, binary as base64, NULL as null.
func expectedJSON(dataType string, v sql.RawBytes) any {
	if v == nil {
		return nil
	}
	s := string(v)
	switch dataType {
	case "tinyint", "smallint", "mediumint", "int", "bigint":
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil && n <= 1<<53-1 && n >= -(1<<53-1) {
			return json.Number(s)
		}
		return s
	case "float", "double":
		return json.Number(s)
	case "datetime", "timestamp":
		return strings.Replace(s, " ", "T", 1)
	case "binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob":
		return base64.StdEncoding.EncodeToString(v)
	}
	return s // decimal, date, char, varchar, text
}

// TestExecuteQueryMatchesMariaDB reads whole demo tables through the
// runtime and compares every value with MariaDB's own, read directly.
// (Through the catalog, results larger than its instance limits are
// refused as CHILD_RESULT_INVALID: see TestExecuteQueryThroughCatalog.)
func TestExecuteQueryMatchesMariaDB(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) {
		c.MaxResultRows, c.MaxResultBytes = doris.AbsMaxResultRows, doris.AbsMaxResultBytes
		c.EnableMasking = false // values byte for byte (masking: mask_integration_test.go)
	}})
	for _, tc := range []struct {
		table, key string
		rows       int
	}{
		{"customers", "customer_id", mariadb.DemoCustomers},
		{"products", "product_id", mariadb.DemoProducts},
		{"orders", "order_id", mariadb.DemoOrders},
		{"order_items", "order_id, line_no", -1},
	} {
		t.Run(tc.table, func(t *testing.T) {
			if tc.rows < 0 {
				tc.rows, _ = strconv.Atoi(doristest.Scalar(t, e.RootDB(), "SELECT COUNT(*) FROM demo."+tc.table))
			}
			q, res := e.RunQuery(t, map[string]any{"sql": "SELECT * FROM " + tc.table + " ORDER BY " + tc.key, "max_rows": 100000})
			if q.RowCount != tc.rows || len(q.Rows) != tc.rows || q.Truncated || res.Status != "success" || res.Truncated {
				t.Fatalf("%s: %d rows (truncated %v), want %d", tc.table, q.RowCount, q.Truncated, tc.rows)
			}
			compareWithMariaDB(t, e, tc.table, tc.key, q)
		})
	}
}

// TestExecuteQueryThroughCatalog: the same comparison for a result that
// fits the catalog's envelope limits, as a Host receives it.
func TestExecuteQueryThroughCatalog(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.EnableMasking = false }})
	q, cd, ev := e.Query(map[string]any{"sql": "SELECT * FROM customers ORDER BY customer_id", "max_rows": 1000})
	if q.RowCount != mariadb.DemoCustomers || q.Truncated || cd.Status != "success" || ev.Metadata.Truncated ||
		ev.Metadata.Source != "doris_mysql" || cd.Metadata["active_variant"] != "mysql_read_only" {
		t.Fatalf("customers: %d rows: %s", q.RowCount, ev.Raw[:min(len(ev.Raw), 400)])
	}
	compareWithMariaDB(t, e, "customers", "customer_id", q)
	q, _, _ = e.Query(map[string]any{"sql": "SELECT COUNT(*) AS n, SUM(total_amount) AS total FROM orders"})
	var n, total string
	e.RootDB().QueryRow("SELECT COUNT(*), SUM(total_amount) FROM demo.orders").Scan(&n, &total)
	if fmt.Sprint(q.Rows[0]["n"]) != n || q.Rows[0]["total"] != total {
		t.Fatalf("aggregate %v, MariaDB %s %s", q.Rows[0], n, total)
	}
}

// compareWithMariaDB checks q (SELECT * FROM table ORDER BY key) value by
// value against MariaDB's own rows.
func compareWithMariaDB(t *testing.T, e *doristest.Env, table, key string, q doristest.QueryResult) {
	t.Helper()
	types := map[string]string{}
	rows, err := e.RootDB().Query("SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.columns WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION", table)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for rows.Next() {
		var n, dt string
		rows.Scan(&n, &dt)
		types[n] = dt
		order = append(order, n)
	}
	rows.Close()
	if len(q.Columns) != len(order) {
		t.Fatalf("columns %v, MariaDB %v", q.Columns, order)
	}
	for i, c := range q.Columns {
		if c.Name != order[i] || !strings.HasPrefix(types[c.Name], c.Type) && !(c.Type == "blob" && types[c.Name] == "text") {
			t.Fatalf("column %d %+v, MariaDB %s %s", i, c, order[i], types[order[i]])
		}
	}
	direct, err := e.RootDB().Query("SELECT * FROM demo." + table + " ORDER BY " + key)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	raw := make([]sql.RawBytes, len(order))
	dest := make([]any, len(raw))
	for i := range raw {
		dest[i] = &raw[i]
	}
	n := 0
	for direct.Next() {
		if err := direct.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		got := q.Rows[n]
		for i, col := range order {
			want := expectedJSON(types[col], raw[i])
			if fmt.Sprint(got[col]) != fmt.Sprint(want) || (want == nil) != (got[col] == nil) {
				t.Fatalf("row %d %s: got %#v, MariaDB %q -> want %#v", n, col, got[col], raw[i], want)
			}
			if _, isNum := want.(json.Number); isNum {
				if _, ok := got[col].(json.Number); !ok {
					t.Fatalf("row %d %s: %#v should be a JSON number", n, col, got[col])
				}
			}
		}
		n++
	}
	if n != len(q.Rows) {
		t.Fatalf("MariaDB has %d rows, the server returned %d", n, len(q.Rows))
	}
}

func TestExecuteQueryValues(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	q, _, _ := e.Query(map[string]any{"sql": "SELECT order_id, external_ref, total_amount, discount_amount, order_ts, order_date, payment_token, note " +
		"FROM orders WHERE order_id IN (%(first)s, %(last)s) ORDER BY order_id", "parameters": map[string]any{"first": 100001, "last": 105000}})
	if q.RowCount != 2 {
		t.Fatalf("rows %v", q.Rows)
	}
	last := q.Rows[1]
	if last["external_ref"] != "9223372036854775807" {
		t.Fatalf("BIGINT beyond 2^53 must be a string: %#v", last["external_ref"])
	}
	if last["order_id"] != json.Number("105000") {
		t.Fatalf("small BIGINT must be a number: %#v", last["order_id"])
	}
	for _, r := range q.Rows {
		if _, ok := r["total_amount"].(string); !ok {
			t.Fatalf("DECIMAL must be a string: %#v", r["total_amount"])
		}
		ts, _ := r["order_ts"].(string)
		if _, err := time.Parse("2006-01-02T15:04:05", ts); err != nil {
			t.Fatalf("DATETIME must be ISO 8601: %q", ts)
		}
		if tok, ok := r["payment_token"].(string); ok {
			if b, err := base64.StdEncoding.DecodeString(tok); err != nil || len(b) != 16 {
				t.Fatalf("VARBINARY must be base64 of 16 bytes: %q", tok)
			}
		}
	}
	// NULL is null; a parameter value travels as a value, never as SQL.
	q, _, _ = e.Query(map[string]any{"sql": "SELECT NULL AS n, %(v)s AS v, COUNT(*) AS c FROM orders WHERE status = %(s)s",
		"parameters": map[string]any{"v": "it's `x` -- ; DROP", "s": "paid"}})
	want := doristest.Scalar(t, e.RootDB(), "SELECT COUNT(*) FROM demo.orders WHERE status = 'paid'")
	if q.Rows[0]["n"] != nil || q.Rows[0]["v"] != "it's `x` -- ; DROP" || fmt.Sprint(q.Rows[0]["c"]) != want {
		t.Fatalf("row %v, MariaDB count %s", q.Rows[0], want)
	}
	// Duplicate column names are keyed name, name_2.
	q, cd, _ := e.Query(map[string]any{"sql": "SELECT 1 AS a, 2 AS a"})
	if q.Rows[0]["a"] != json.Number("1") || q.Rows[0]["a_2"] != json.Number("2") || len(cd.Warnings) != 1 {
		t.Fatalf("duplicates %v %v", q.Rows, cd.Warnings)
	}
}

// TestSessionTracking: catalog and database select the session of each
// call, on a pooled connection that remembers what it has.
func TestSessionTracking(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxConnections = 1 }})
	statements, reset := doristest.GeneralLog(t, e.DB)
	db := func(args map[string]any) string {
		t.Helper()
		args["sql"] = "SELECT DATABASE() AS db"
		q, _, _ := e.Query(args)
		return fmt.Sprint(q.Rows[0]["db"])
	}
	if got := db(map[string]any{}); got != "demo" {
		t.Fatalf("default database %s", got)
	}
	if got := db(map[string]any{"database": "__internal_schema"}); got != "__internal_schema" {
		t.Fatalf("database arg: %s", got)
	}
	if got := db(map[string]any{"catalog": "internal"}); got != "demo" {
		t.Fatalf("back to the default: %s", got)
	}
	e.Query(map[string]any{"sql": "SELECT 1 AS one", "catalog": "hive"})
	reset()
	if got := db(map[string]any{}); got != "demo" {
		t.Fatalf("after the hive catalog: %s", got)
	}
	// After a SWITCH the database is whatever Doris restored: USE again.
	if got := statements(mariadb.ReaderUser); len(got) < 1 || got[0] != "USE `demo`" {
		t.Fatalf("after SWITCH back: %q", got)
	}
	reset()
	db(map[string]any{})
	db(map[string]any{"timeout_ms": 30000})
	// Nothing is re-sent when the session already matches.
	if got := statements(mariadb.ReaderUser); len(got) != 2 {
		t.Fatalf("statements %q", got)
	}
}

func TestExecuteQueryArguments(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) {
		c.MaxResultRows, c.DefaultResultRows, c.QueryTimeout = 500, 20, 10*time.Second
	}})
	// Ceilings are argument errors, never a silent clamp.
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "max_rows": 501}, "CHILD_ARGUMENTS_INVALID", "QUERY_ROW_LIMIT_EXCEEDED")
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "timeout_ms": 10001}, "CHILD_ARGUMENTS_INVALID", "QUERY_TIMEOUT_LIMIT_EXCEEDED")
	// DEFAULT_RESULT_ROWS applies when max_rows is omitted.
	q, _, _ := e.Query(map[string]any{"sql": "SELECT seq FROM seq_1_to_100"})
	if q.RowCount != 20 || !q.Truncated {
		t.Fatalf("default rows: %d %v", q.RowCount, q.Truncated)
	}
	// Parameters must match the placeholders exactly.
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT %(a)s"}, "CHILD_ARGUMENTS_INVALID", "QUERY_PARAMETERS_INVALID")
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT %s", "parameters": map[string]any{"a": 1}}, "CHILD_ARGUMENTS_INVALID", "QUERY_PARAMETERS_INVALID")
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "parameters": map[string]any{"a": 1}}, "CHILD_ARGUMENTS_INVALID", "QUERY_PARAMETERS_INVALID")
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "database": "de`mo"}, "CHILD_ARGUMENTS_INVALID", "QUERY_IDENTIFIER_INVALID")
	// Unknown objects: not found, naming the object Doris reported, with
	// no other backend text.
	ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT * FROM no_such_table"}, "CHILD_EXECUTION_FAILED", "QUERY_OBJECT_NOT_FOUND")
	if !strings.Contains(ev.Error.Message, "no_such_table") || strings.Contains(ev.Error.Message, "detailMessage") ||
		ev.Error.Details.StatusCode != 404 {
		t.Fatalf("not found: %s", ev.Raw)
	}
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT nope FROM orders"}, "CHILD_EXECUTION_FAILED", "QUERY_OBJECT_NOT_FOUND")
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1 FROM orders WHERE"}, "CHILD_EXECUTION_FAILED", "QUERY_SYNTAX_ERROR")
}

// TestWriteRefused is host-sequence step 6: a write is refused as an
// argument error before anything reaches Doris.
func TestWriteRefused(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	e.Discover("doris_query") // capability evidence first, so that only the calls remain
	statements, reset := doristest.GeneralLog(t, e.DB)
	before := doristest.Scalar(t, e.RootDB(), "SELECT COUNT(*) FROM demo.orders")
	reset()
	for _, q := range []string{
		"DELETE FROM orders",
		"UPDATE orders SET status = 'paid'",
		"INSERT INTO orders (order_id) VALUES (1)",
		"DROP TABLE orders",
		"SELECT 1; DELETE FROM orders",
		"WITH x AS (SELECT 1) DELETE FROM orders",
		"SET GLOBAL read_only = 0",
		"KILL QUERY 1",
		"SELECT * FROM orders INTO OUTFILE '/tmp/x'",
		"SELECT SLEEP(100)",
	} {
		ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": q}, "CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
		if ev.Error.Retryable || ev.Error.Details.Position == nil || ev.Error.Details.StatusCode != 400 {
			t.Fatalf("%s: %s", q, ev.Raw)
		}
	}
	if got := statements(mariadb.ReaderUser); len(got) != 0 {
		t.Fatalf("statements reached MariaDB: %q", got)
	}
	if after := doristest.Scalar(t, e.RootDB(), "SELECT COUNT(*) FROM demo.orders"); after != before {
		t.Fatalf("orders %s -> %s", before, after)
	}
}

// TestPermissionDenied is host-sequence step 8: an object the configured
// account may not read is refused for that account (no fallback to a
// stronger one), with no backend text.
func TestPermissionDenied(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	for _, q := range []string{"SELECT * FROM secret.salaries", "SELECT salary FROM internal.secret.salaries WHERE employee_id = 1"} {
		ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": q}, "CHILD_EXECUTION_FAILED", "QUERY_PERMISSION_DENIED")
		if ev.Error.Retryable || ev.Error.Details.StatusCode != 403 {
			t.Fatalf("%s: %s", q, ev.Raw)
		}
		for _, leak := range []string{"salaries", "secret", "mcp_reader", "Permission denied", "errCode", "Select_priv", "Admin_priv", "internal", "%"} {
			if strings.Contains(ev.Error.Message, leak) {
				t.Fatalf("message leaks %q: %s", leak, ev.Error.Message)
			}
		}
	}
	// The same runtime code with the root account reads it: the refusal
	// was the reader's own privilege.
	admin := doristest.NewEnv(t, doristest.EnvOpts{User: "root", Password: e.DB.RootPassword()})
	q, _, _ := admin.Query(map[string]any{"sql": "SELECT COUNT(*) AS n FROM secret.salaries"})
	if q.Rows[0]["n"] != json.Number("25") {
		t.Fatalf("root: %v", q.Rows)
	}
}

// TestTimeout: a query that would run for minutes is stopped at
// timeout_ms, inside Doris, and leaves nothing running.
func TestTimeout(t *testing.T) {
	for _, profile := range []string{"2.1", "3.0"} {
		t.Run(profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile, Config: func(c *doris.Config) { c.MaxConnections = 1 }})
			id1, _, _ := e.Query(map[string]any{"sql": "SELECT CONNECTION_ID() AS id"})
			start := time.Now()
			ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": doristest.SlowQuery, "timeout_ms": 1000},
				"CHILD_EXECUTION_TIMEOUT", "QUERY_TIMEOUT")
			took := time.Since(start)
			if took > 2*time.Second || took < 900*time.Millisecond {
				t.Fatalf("timeout answered after %v", took)
			}
			if !ev.Error.Retryable || ev.Error.Details.StatusCode != 504 || !strings.Contains(ev.Error.Message, "narrow") {
				t.Fatalf("timeout envelope %s", ev.Raw)
			}
			gone := doristest.WaitGone(t, e.DB, "seq_1_to_100000", time.Second)
			t.Logf("Doris %s: CHILD_EXECUTION_TIMEOUT after %v; MariaDB processlist clear %v later", profile, took.Round(time.Millisecond), gone.Round(time.Millisecond))
			// The pool is usable at once, with a new connection: a
			// timed-out statement's connection is never reused.
			id2, _, _ := e.Query(map[string]any{"sql": "SELECT CONNECTION_ID() AS id"})
			if fmt.Sprint(id2.Rows[0]["id"]) == fmt.Sprint(id1.Rows[0]["id"]) {
				t.Fatal("the timed-out statement's connection went back to the pool")
			}
		})
	}
}

// TestKillOnCancel: when the caller goes away the server kills the query
// with KILL QUERY on a side connection, and never reuses the connection.
// The KILL carries the call's trace comment, so Doris's audit log ties it
// to the call.
func TestKillOnCancel(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxConnections = 1 }})
	id1, _, _ := e.Query(map[string]any{"sql": "SELECT CONNECTION_ID() AS id"})
	statements, reset := doristest.GeneralLog(t, e.DB)
	reset()
	h := e.RT.Handler("doris_query", "execute_query")
	tr := doris.NewTrace(doris.Trace{}, false)
	ctx, cancel := context.WithCancel(doris.WithTrace(context.Background(), tr))
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	_, err := h(ctx, &doris.Call{Domain: "doris_query", Child: "execute_query", Identity: e.ID,
		Args: json.RawMessage(`{"sql":"` + doristest.SlowQuery + `","timeout_ms":60000}`)})
	var de *doris.Error
	if !errors.As(err, &de) || de.Reason != "QUERY_CANCELLED" || !de.Retryable {
		t.Fatalf("cancelled call: %v", err)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Fatalf("cancellation answered after %v", took)
	}
	gone := doristest.WaitGone(t, e.DB, "seq_1_to_100000", time.Second)
	t.Logf("cancelled after 500ms; processlist clear %v after the answer", gone.Round(time.Millisecond))
	var kills []string
	for _, s := range statements(mariadb.ReaderUser) {
		if strings.HasPrefix(s, "KILL QUERY") {
			kills = append(kills, s)
		}
	}
	if len(kills) != 1 || kills[0] != "KILL QUERY "+fmt.Sprint(id1.Rows[0]["id"]) {
		t.Fatalf("kills sent upstream: %q (query ran on connection %v)", kills, id1.Rows[0]["id"])
	}
	e.SyncAudit()
	var audited string
	if err := e.RootDB().QueryRow("SELECT stmt FROM __internal_schema.audit_log WHERE stmt LIKE ?",
		"/*traceparent='00-"+tr.ID+"-%'*/ KILL QUERY %").Scan(&audited); err != nil {
		t.Fatalf("the KILL is not in the audit log under the call's trace %s: %v", tr.ID, err)
	}
	id2, _, _ := e.Query(map[string]any{"sql": "SELECT CONNECTION_ID() AS id"})
	if fmt.Sprint(id2.Rows[0]["id"]) == fmt.Sprint(id1.Rows[0]["id"]) {
		t.Fatal("the killed query's connection went back to the pool")
	}
}

// TestServerKillWhenDorisDoesNotStop: a statement that Doris does not stop
// at its query_timeout (here: the simulator holds it before running) is
// stopped by the server itself shortly after timeout_ms.
func TestServerKillWhenDorisDoesNotStop(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	e.Sim.Inject(sim.Fault{Match: "held_by_fault", Latency: 30 * time.Second})
	defer e.Sim.ClearFaults()
	start := time.Now()
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 'held_by_fault' AS m", "timeout_ms": 1000},
		"CHILD_EXECUTION_TIMEOUT", "QUERY_TIMEOUT")
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("answered after %v", took)
	}
	e.Sim.ClearFaults()
	e.Query(map[string]any{"sql": "SELECT 1 AS one"})
}

func TestTruncation(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	// Row budget.
	q, cd, ev := e.Query(map[string]any{"sql": "SELECT seq, REPEAT('x', 100) AS pad FROM seq_1_to_1000000", "max_rows": 10})
	if q.RowCount != 10 || !q.Truncated || !ev.Metadata.Truncated || len(cd.Warnings) != 1 {
		t.Fatalf("row cut: %d %v %v", q.RowCount, q.Truncated, cd.Warnings)
	}
	if w := cd.Warnings[0]; !strings.Contains(w, "max_rows") || !strings.Contains(w, "WHERE") || !strings.Contains(w, "LIMIT") {
		t.Fatalf("warning does not say how to narrow: %q", w)
	}
	// Exactly max_rows rows is not truncated.
	q, cd, _ = e.Query(map[string]any{"sql": "SELECT * FROM products", "max_rows": mariadb.DemoProducts})
	if q.RowCount != mariadb.DemoProducts || q.Truncated || len(cd.Warnings) != 0 {
		t.Fatalf("exact: %d %v", q.RowCount, q.Truncated)
	}
	// Byte budget.
	small := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxResultBytes = 2048 }})
	q, cd, ev = small.Query(map[string]any{"sql": "SELECT * FROM orders", "max_rows": 5000})
	size := 0
	for _, r := range q.Rows {
		b, _ := json.Marshal(r)
		size += len(b)
	}
	if !q.Truncated || !ev.Metadata.Truncated || q.RowCount == 0 || q.RowCount >= 5000 || size > 2048 || len(cd.Warnings) != 1 {
		t.Fatalf("byte cut: %d rows, %d bytes, %v %v", q.RowCount, size, q.Truncated, cd.Warnings)
	}
	if w := cd.Warnings[0]; !strings.Contains(w, "MAX_RESULT_BYTES") || !strings.Contains(w, "fewer columns") || !strings.Contains(w, "WHERE") {
		t.Fatalf("byte warning %q", w)
	}
}

func TestProgress(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	e.Sim.Inject(sim.Fault{Match: "progress_marker", Latency: 2300 * time.Millisecond})
	defer e.Sim.ClearFaults()
	var mu sync.Mutex
	var seen []float64
	ev := e.CallV("doris_query", "execute_query", "", map[string]any{"sql": "SELECT 'progress_marker' AS m"},
		func(p, total float64, msg string) {
			mu.Lock()
			seen = append(seen, p)
			mu.Unlock()
		})
	if ev.Mode != "result" {
		t.Fatal(string(ev.Raw))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 2 || seen[1] <= seen[0] {
		t.Fatalf("progress %v", seen)
	}
}
