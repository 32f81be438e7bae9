package query_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// adbcResult is execute_adbc_query's data.
type adbcResult struct {
	Columns []struct {
		Name      string `json:"name"`
		Type      string `json:"type"`
		ArrowType string `json:"arrow_type"`
	} `json:"columns"`
	Rows         []map[string]any `json:"rows"`
	RowCount     int              `json:"row_count"`
	Truncated    bool             `json:"truncated"`
	ResultFormat string           `json:"result_format"`
}

func decodeNumbers(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatal(err)
	}
}

// stringFamily is how the two protocols name the same text and binary
// columns: MySQL says char, varchar or text; Arrow has one utf8 (and one
// binary) type, which the ADBC path reports as varchar (varbinary).
func family(typ string) string {
	switch typ {
	case "char", "varchar", "text", "json", "enum", "set":
		return "varchar"
	case "blob", "varbinary", "binary":
		return "varbinary"
	}
	return typ
}

// TestADBCAvailability: both ADBC children are callable on 2.1.5+
// profiles with ADBC enabled and the Flight SQL port answering this
// route, and say precisely why not otherwise.
func TestADBCAvailability(t *testing.T) {
	for _, profile := range []string{"2.1.11", "3.0", "4.0"} {
		t.Run(profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile, Flight: true})
			m := e.Discover("doris_query")
			for _, child := range []string{"get_adbc_connection_info", "execute_adbc_query"} {
				// Degraded only because mcp_reader cannot see the BE versions.
				if a := m.Availability(t, child); !a.Availability.Callable || !strings.HasPrefix(a.Availability.ReasonCode, "CAPABILITY_VERIFIED") {
					t.Errorf("%s: %+v", child, a.Availability)
				}
			}
			ev := e.Ok("doris_query", "get_adbc_connection_info", map[string]any{"explicit_adbc": true})
			var info map[string]any
			decodeNumbers(t, ev.Child(t).Data, &info)
			if info["enabled"] != true || info["fe_reachable"] != true || info["be_reachable"] != true || info["driver_available"] != true {
				t.Errorf("info %v", info)
			}
			if strings.Contains(string(ev.Raw), e.Cfg.Password) {
				t.Error("the connection info leaks the password")
			}
		})
	}
	off := doristest.NewEnv(t, doristest.EnvOpts{Flight: true, Config: func(c *doris.Config) { c.ADBC.Enabled = false }})
	a := off.Discover("doris_query").Availability(t, "execute_adbc_query")
	if a.Availability.Callable || a.Availability.ReasonCode != "PROVIDER_NOT_CONFIGURED" {
		t.Errorf("ADBC off: %+v", a.Availability)
	}
	// Enabled, but the port does not answer: the probe says so.
	dead := doristest.NewEnv(t, doristest.EnvOpts{Flight: true, Config: func(c *doris.Config) { c.ADBC.FEPort = 1 }})
	a = dead.Discover("doris_query").Availability(t, "execute_adbc_query")
	if a.Availability.Callable || !strings.HasPrefix(a.Availability.ReasonCode, "CAPABILITY_PROBE_") {
		t.Errorf("dead port: %+v", a.Availability)
	}
}

// TestADBCEquivalence: for the same statements execute_adbc_query returns
// execute_query's columns and rows, every type the demo schema holds.
func TestADBCEquivalence(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "2.1.11", Flight: true})
	cases := []struct{ name, sql string }{
		{"integers", "SELECT order_id, customer_id, external_ref FROM demo.orders ORDER BY order_id LIMIT 20"},
		{"small and tiny integers", "SELECT order_id, line_no, quantity FROM demo.order_items ORDER BY order_id, line_no LIMIT 20"},
		{"booleans (tinyint)", "SELECT customer_id, is_active FROM demo.customers ORDER BY customer_id LIMIT 20"},
		{"decimals with nulls", "SELECT order_id, total_amount, discount_amount, shipping_fee FROM demo.orders ORDER BY order_id LIMIT 50"},
		{"decimal scale 3", "SELECT product_id, weight_kg, unit_price FROM demo.products ORDER BY product_id"},
		{"dates", "SELECT customer_id, signup_date FROM demo.customers ORDER BY customer_id LIMIT 20"},
		{"datetimes with nulls", "SELECT order_id, order_ts, shipped_at FROM demo.orders ORDER BY order_id LIMIT 50"},
		{"strings, chars and text", "SELECT customer_id, full_name, country, city FROM demo.customers ORDER BY customer_id LIMIT 30"},
		{"long text", "SELECT product_id, description FROM demo.products ORDER BY product_id LIMIT 10"},
		{"binary", "SELECT order_id, payment_token FROM demo.orders ORDER BY order_id LIMIT 20"},
		{"floats and doubles", "SELECT order_id, CAST(total_amount AS DOUBLE) AS d, CAST(total_amount / 7 AS FLOAT) AS f FROM demo.orders ORDER BY order_id LIMIT 20"},
		{"expressions and a NULL literal", "SELECT 1 AS one, 'x' AS s, NULL AS n, 2.5 AS dec_lit"},
		{"aggregates", "SELECT status, COUNT(*) AS n, SUM(total_amount) AS total, MIN(order_ts) AS first_ts FROM demo.orders GROUP BY status ORDER BY status"},
		{"empty result", "SELECT order_id, status FROM demo.orders WHERE order_id < 0"},
		{"duplicate column names", "SELECT order_id, order_id, status AS order_id_2 FROM demo.orders ORDER BY order_id LIMIT 3"},
		{"FE-local statement", "SHOW TABLES"},
		{"masked personal data", "SELECT customer_id, email, phone FROM demo.customers ORDER BY customer_id LIMIT 20"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			my := e.Ok("doris_query", "execute_query", map[string]any{"sql": tc.sql, "max_rows": 1000})
			ad := e.Ok("doris_query", "execute_adbc_query", map[string]any{"explicit_adbc": true, "sql": tc.sql, "max_rows": 1000, "result_format": "arrow"})
			var q, a adbcResult
			decodeNumbers(t, my.Child(t).Data, &q)
			decodeNumbers(t, ad.Child(t).Data, &a)
			if len(q.Columns) != len(a.Columns) {
				t.Fatalf("columns: mysql %v, adbc %v", q.Columns, a.Columns)
			}
			for i := range q.Columns {
				if q.Columns[i].Name != a.Columns[i].Name || family(q.Columns[i].Type) != family(a.Columns[i].Type) {
					t.Errorf("column %d: mysql %s %s, adbc %s %s (%s)", i, q.Columns[i].Name, q.Columns[i].Type,
						a.Columns[i].Name, a.Columns[i].Type, a.Columns[i].ArrowType)
				}
				if a.Columns[i].ArrowType == "" {
					t.Errorf("column %d has no arrow_type", i)
				}
			}
			if !reflect.DeepEqual(q.Rows, a.Rows) {
				t.Errorf("rows differ\nmysql %v\n adbc %v", q.Rows, a.Rows)
			}
			if q.RowCount != a.RowCount || q.Truncated != a.Truncated || a.ResultFormat != "arrow" {
				t.Errorf("row_count %d/%d truncated %v/%v format %q", q.RowCount, a.RowCount, q.Truncated, a.Truncated, a.ResultFormat)
			}
			if !reflect.DeepEqual(my.Child(t).Warnings, ad.Child(t).Warnings) {
				t.Errorf("warnings: mysql %v, adbc %v", my.Child(t).Warnings, ad.Child(t).Warnings)
			}
			mm, am := my.Child(t).Metadata["masking"], ad.Child(t).Metadata["masking"]
			if !reflect.DeepEqual(mm, am) {
				t.Errorf("masking: mysql %s, adbc %s", mm, am)
			}
		})
	}
	// dict and pandas: the same records, without Arrow types.
	ev := e.Ok("doris_query", "execute_adbc_query", map[string]any{"explicit_adbc": true, "sql": "SELECT 1 AS one", "result_format": "dict"})
	var d adbcResult
	decodeNumbers(t, ev.Child(t).Data, &d)
	if d.ResultFormat != "dict" || d.Columns[0].ArrowType != "" || d.Rows[0]["one"] != json.Number("1") {
		t.Errorf("dict: %+v", d)
	}
}

// TestADBCCeilingsAndErrors: the same budgets, warnings and error codes
// as execute_query; write SQL is refused before anything is sent.
func TestADBCCeilingsAndErrors(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "3.0", Flight: true, Config: func(c *doris.Config) { c.MaxResultBytes = 4096 }})
	same := func(args map[string]any) {
		t.Helper()
		my := e.Ok("doris_query", "execute_query", args)
		args["explicit_adbc"] = true
		ad := e.Ok("doris_query", "execute_adbc_query", args)
		var q, a adbcResult
		decodeNumbers(t, my.Child(t).Data, &q)
		decodeNumbers(t, ad.Child(t).Data, &a)
		if q.RowCount != a.RowCount || !a.Truncated || !q.Truncated || !reflect.DeepEqual(q.Rows, a.Rows) ||
			!reflect.DeepEqual(my.Child(t).Warnings, ad.Child(t).Warnings) {
			t.Errorf("%v: mysql %d rows %v, adbc %d rows %v", args, q.RowCount, my.Child(t).Warnings, a.RowCount, ad.Child(t).Warnings)
		}
	}
	same(map[string]any{"sql": "SELECT order_id FROM demo.orders ORDER BY order_id", "max_rows": 7})
	same(map[string]any{"sql": "SELECT order_id, note FROM demo.orders ORDER BY order_id", "max_rows": 1000})

	before := e.Sim.FlightStatements()
	for _, q := range []string{"DELETE FROM demo.orders", "INSERT INTO demo.orders SELECT * FROM demo.orders", "SELECT 1; DROP TABLE demo.orders"} {
		my := e.Fail("doris_query", "execute_query", map[string]any{"sql": q}, "CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
		ad := e.Fail("doris_query", "execute_adbc_query", map[string]any{"explicit_adbc": true, "sql": q}, "CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
		if my.Error.Message != ad.Error.Message {
			t.Errorf("%s: %q vs %q", q, my.Error.Message, ad.Error.Message)
		}
	}
	if n := e.Sim.FlightStatements(); n != before {
		t.Errorf("refused writes reached the Flight SQL endpoint (%d statements)", n-before)
	}
	for _, tc := range []struct{ sql, code, reason string }{
		{"SELECT * FROM demo.no_such_table", "CHILD_ARGUMENTS_INVALID", "QUERY_OBJECT_NOT_FOUND"},
		{"SELECT * FROM secret.salaries", "CHILD_EXECUTION_FAILED", "QUERY_PERMISSION_DENIED"},
		{"SELECT no_such_column FROM demo.orders", "CHILD_ARGUMENTS_INVALID", "QUERY_OBJECT_NOT_FOUND"},
	} {
		my := e.Call("doris_query", "execute_query", map[string]any{"sql": tc.sql})
		ad := e.Call("doris_query", "execute_adbc_query", map[string]any{"explicit_adbc": true, "sql": tc.sql})
		if my.Error.Code == "" || my.Error.Code != ad.Error.Code || my.Error.Details.ReasonCode != ad.Error.Details.ReasonCode {
			t.Errorf("%s: mysql %s, adbc %s", tc.sql, my.Raw, ad.Raw)
		}
	}
	e.Fail("doris_query", "execute_adbc_query", map[string]any{"explicit_adbc": true, "sql": "SELECT 1", "max_rows": 100000},
		"CHILD_ARGUMENTS_INVALID", "QUERY_ROW_LIMIT_EXCEEDED")
}

// TestADBCTimeoutAndCancel: a timed-out or cancelled ADBC statement is
// stopped inside Doris (KILL QUERY by its query id, and its stream reset)
// and leaves nothing running in the simulator or MariaDB.
func TestADBCTimeoutAndCancel(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "2.1.11", Flight: true})
	start := time.Now()
	e.Fail("doris_query", "execute_adbc_query", map[string]any{"explicit_adbc": true, "sql": doristest.SlowQuery, "timeout_ms": 1000},
		"CHILD_EXECUTION_TIMEOUT", "QUERY_TIMEOUT")
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Fatalf("timeout answered after %v", took)
	}
	gone := doristest.WaitGone(t, e.DB, "seq_1_to_100000", 2*time.Second)
	t.Logf("timeout: processlist clear %v after the answer", gone)

	h := e.RT.Handler("doris_query", "execute_adbc_query")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	_, err := h(ctx, &doris.Call{Domain: "doris_query", Child: "execute_adbc_query", Identity: e.ID,
		Args: json.RawMessage(`{"explicit_adbc":true,"sql":"` + doristest.SlowQuery + `","timeout_ms":60000}`)})
	var de *doris.Error
	if !errors.As(err, &de) || de.Reason != "QUERY_CANCELLED" {
		t.Fatalf("cancelled call: %v", err)
	}
	gone = doristest.WaitGone(t, e.DB, "seq_1_to_100000", 2*time.Second)
	t.Logf("cancel: processlist clear %v after the answer", gone)
	// The runtime is usable at once.
	e.Ok("doris_query", "execute_adbc_query", map[string]any{"explicit_adbc": true, "sql": "SELECT 1 AS one"})
}
