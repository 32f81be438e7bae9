package flightsql_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/flightsql"
	"github.com/doris-mcp/doris-mcp-server/doris/flightsql/flighttest"
)

// textRows reads a whole result as text rows (nil for NULL).
func textRows(t *testing.T, ctx context.Context, c *flightsql.Client, token, sql string) (*flightsql.Schema, [][]*string) {
	t.Helper()
	fi, err := c.Execute(ctx, token, sql)
	if err != nil {
		t.Fatalf("Execute(%q): %v", sql, err)
	}
	var schema *flightsql.Schema
	var rows [][]*string
	for _, ep := range fi.Endpoints {
		r, err := c.DoGet(ctx, token, ep.Ticket)
		if err != nil {
			t.Fatalf("DoGet: %v", err)
		}
		schema = r.Schema()
		for {
			b, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			for i := range b.Rows {
				row := make([]*string, len(b.Columns))
				for j, col := range b.Columns {
					if v, null := col.AppendText(nil, i); !null {
						s := string(v)
						row[j] = &s
					}
				}
				rows = append(rows, row)
			}
		}
		r.Close()
	}
	return schema, rows
}

func connect(t *testing.T) (*flighttest.Server, *flightsql.Client, string) {
	srv := flighttest.StartServer(t)
	c, err := flightsql.NewClient(srv.Addr, flightsql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tok, err := c.Handshake(ctx, srv.User, srv.Password)
	if err != nil {
		t.Fatalf("Handshake: %v", err)
	}
	return srv, c, tok
}

func TestPeerHandshake(t *testing.T) {
	srv, c, tok := connect(t)
	if tok != "token-"+srv.User {
		t.Errorf("token = %q", tok)
	}
	ctx := context.Background()
	_, err := c.Handshake(ctx, srv.User, "wrong")
	var st *flightsql.Status
	if !errors.As(err, &st) || st.Code != flightsql.CodeUnauthenticated || !strings.Contains(st.Message, "Access denied") {
		t.Errorf("bad password: %v", err)
	}
	if _, err := c.Execute(ctx, "not-a-token", "SELECT 1"); !errors.As(err, &st) || st.Code != flightsql.CodeUnauthenticated {
		t.Errorf("bad token: %v", err)
	}
}

func TestPeerSQLite(t *testing.T) {
	_, c, tok := connect(t)
	ctx := context.Background()
	schema, rows := textRows(t, ctx, c, tok, "SELECT id, keyName, value FROM intTable ORDER BY id")
	var names []string
	for _, f := range schema.Fields {
		names = append(names, f.Name+":"+f.MySQLType())
	}
	if got := strings.Join(names, ","); got != "id:BIGINT,keyName:VARCHAR,value:BIGINT" {
		t.Errorf("columns %s", got)
	}
	want := [][]string{{"1", "one", "1"}, {"2", "zero", "0"}, {"3", "negative one", "-1"}, {"4", "NULL", "NULL"}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		for j, v := range r {
			s := "NULL"
			if v != nil {
				s = *v
			}
			if s != want[i][j] {
				t.Errorf("row %d col %d = %q, want %q", i, j, s, want[i][j])
			}
		}
	}
}

// TestPeerTypes decodes every column type Doris returns, as Arrow Go's
// IPC writer encodes them.
func TestPeerTypes(t *testing.T) {
	_, c, tok := connect(t)
	schema, rows := textRows(t, context.Background(), c, tok, "ARROWPEER types")
	type col struct{ name, typ, r0, r1 string }
	want := []col{
		{"b", "TINYINT", "1", "0"},
		{"i8", "TINYINT", "127", "-127"},
		{"i16", "SMALLINT", "32767", "-32767"},
		{"i32", "INT", "2147483647", "-2147483647"},
		{"i64", "BIGINT", "9223372036854775807", "-9223372036854775807"},
		{"u8", "UNSIGNED TINYINT", "255", "255"},
		{"u64", "UNSIGNED BIGINT", "18446744073709551615", "18446744073709551615"},
		{"f32", "FLOAT", "1.5", "-1.5"},
		{"f64", "DOUBLE", "2.25e-10", "-2.25e-10"},
		{"d128", "DECIMAL", "123456789012345678.123456789", "-0.000000001"},
		{"d256", "DECIMAL", "123456789012345678901234567890123456789012345678901234567890.1234", "-1.5000"},
		{"s", "VARCHAR", `héllo "quoted"`, ""},
		{"ls", "VARCHAR", "large", "large"},
		{"bin", "VARBINARY", "\x00\x01\xfe\xff", "\x00\x01\xfe\xff"},
		{"d", "DATE", "2024-02-29", "1969-12-31"},
		{"ts", "DATETIME", "2024-02-29 23:59:58.123456", "1969-12-31 23:59:59.000000"},
		{"tsz", "DATETIME", "2024-02-29 23:59:58.123456", "1969-12-31 23:59:59.000000"},
		{"tss", "DATETIME", "2024-02-29 23:59:58", "1969-12-31 23:59:59"},
		{"l", "VARCHAR", "[1, null, 3]", "[1, null, -3]"},
		{"m", "VARCHAR", `{"k1":1, "k2":null}`, `{"k1":-1, "k2":null}`},
		{"st", "VARCHAR", `{"a":7, "b":"x"}`, `{"a":-7, "b":"x"}`},
		{"n", "NULL", "NULL", "NULL"},
	}
	if len(schema.Fields) != len(want) || len(rows) != 3 {
		t.Fatalf("%d columns, %d rows", len(schema.Fields), len(rows))
	}
	str := func(v *string) string {
		if v == nil {
			return "NULL"
		}
		return *v
	}
	for j, w := range want {
		f := schema.Fields[j]
		if f.Name != w.name || f.MySQLType() != w.typ {
			t.Errorf("column %d = %s %s, want %s %s", j, f.Name, f.MySQLType(), w.name, w.typ)
		}
		if g := str(rows[0][j]); g != w.r0 {
			t.Errorf("%s row 0 = %q, want %q", w.name, g, w.r0)
		}
		if g := str(rows[1][j]); g != w.r1 {
			t.Errorf("%s row 1 = %q, want %q", w.name, g, w.r1)
		}
		if rows[2][j] != nil {
			t.Errorf("%s row 2 = %q, want NULL", w.name, *rows[2][j])
		}
	}
}

func TestPeerLargeResult(t *testing.T) {
	_, c, tok := connect(t)
	const n = 250000
	_, rows := textRows(t, context.Background(), c, tok, "ARROWPEER large 250000")
	if len(rows) != n {
		t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for _, i := range []int{0, 3, 999, 1000, n - 1} {
		id := *rows[i][0]
		if id != itoa(i) {
			t.Errorf("row %d id %s", i, id)
		}
		if (rows[i][1] == nil) != (i%7 == 3) {
			t.Errorf("row %d null-ness wrong", i)
		}
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

func TestPeerError(t *testing.T) {
	_, c, tok := connect(t)
	_, err := c.Execute(context.Background(), tok, "ARROWPEER error")
	var st *flightsql.Status
	if !errors.As(err, &st) || st.Code != flightsql.CodeInvalidArgument || st.Message != "fixture: the statement is refused" {
		t.Fatalf("err = %v", err)
	}
	// The SQLite server runs the statement only on DoGet.
	fi, err := c.Execute(context.Background(), tok, "SELECT * FROM no_such_table")
	if err == nil {
		_, err = c.DoGet(context.Background(), tok, fi.Endpoints[0].Ticket)
	}
	if !errors.As(err, &st) || st.Code == flightsql.CodeOK || !strings.Contains(st.Message, "no_such_table") {
		t.Fatalf("err = %v", err)
	}
}

// TestPeerCancel: closing a reader in the middle of a stream, or its
// deadline passing, resets the stream, and the server sees it.
func TestPeerCancel(t *testing.T) {
	srv, c, tok := connect(t)
	ctx := context.Background()
	fi, err := c.Execute(ctx, tok, "ARROWPEER slow")
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.DoGet(ctx, tok, fi.Endpoints[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	srv.WaitLine(t, "CANCELLED 1", 10*time.Second)

	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	fi, err = c.Execute(dctx, tok, "ARROWPEER slow")
	if err != nil {
		t.Fatal(err)
	}
	r, err = c.DoGet(dctx, tok, fi.Endpoints[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for {
		if _, err = r.Next(); err != nil {
			break
		}
	}
	var st *flightsql.Status
	if !errors.As(err, &st) || st.Code != flightsql.CodeDeadlineExceeded {
		t.Fatalf("after the deadline: %v", err)
	}
	srv.WaitLine(t, "CANCELLED 2", 10*time.Second)
}
