package sim_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/flightsql/flighttest"
)

func startFlightSim(t *testing.T) *sim.Server {
	t.Helper()
	in := mariadb.SharedFor(t)
	s, err := sim.Start(context.Background(), sim.Options{
		Listen: "127.0.0.1:0", FEFlight: "127.0.0.1:0", BEFlight: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: "2.1.11", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("start sim: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type peerResult struct {
	Columns []struct{ Name, Type string }
	Rows    [][]any
	// Location is the endpoint's location when it named one.
	Location  string
	ErrorCode int    `json:"error_code"`
	Error     string `json:"error"`
}

func runPeer(t *testing.T, addr, user, pw, sql string) peerResult {
	t.Helper()
	var r peerResult
	out := flighttest.RunClient(t, addr, user, pw, sql)
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("peerclient output %q: %v", out, err)
	}
	return r
}

// TestFlightArrowGoClient runs Apache Arrow Go's Flight SQL client
// against the simulator's FE endpoint: handshake, GetFlightInfo, DoGet at
// the BE location the FE names (or on the FE for FE-local results).
func TestFlightArrowGoClient(t *testing.T) {
	s := startFlightSim(t)
	u, pw := mariadb.ReaderUser, mariadb.ReaderPassword

	r := runPeer(t, s.FEFlightAddr(), u, pw, "SELECT order_id, customer_id, order_ts, order_date, status, total_amount, discount_amount, external_ref, payment_token FROM demo.orders ORDER BY order_id LIMIT 3")
	if r.Error != "" {
		t.Fatalf("query: %d %s", r.ErrorCode, r.Error)
	}
	var types []string
	for _, c := range r.Columns {
		types = append(types, c.Name+":"+c.Type)
	}
	want := "order_id:int64,customer_id:int32,order_ts:timestamp[s],order_date:date32,status:utf8,total_amount:decimal(12, 2),discount_amount:decimal(12, 2),external_ref:int64,payment_token:binary"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("columns\n got %s\nwant %s", got, want)
	}
	if len(r.Rows) != 3 || r.Location != "grpc+tcp://"+s.BEFlightAddr() {
		t.Errorf("%d rows from %q", len(r.Rows), r.Location)
	}
	// The values agree with the MySQL protocol's.
	var id, cust, ts, day, status, total string
	if err := reader(t, s).QueryRow("SELECT order_id, customer_id, order_ts, order_date, status, total_amount FROM demo.orders ORDER BY order_id LIMIT 1").
		Scan(&id, &cust, &ts, &day, &status, &total); err != nil {
		t.Fatal(err)
	}
	row := r.Rows[0]
	got := []string{jsonNum(row[0]), jsonNum(row[1]), strings.Replace(row[2].(string), "T", " ", 1), row[3].(string), row[4].(string), row[5].(string)}
	for i, w := range []string{id, cust, ts, day, status, total} {
		if got[i] != w {
			t.Errorf("column %d: Arrow %q, MySQL %q", i, got[i], w)
		}
	}

	r = runPeer(t, s.FEFlightAddr(), u, pw, "SHOW DATABASES")
	if r.Error != "" || r.Location != "" || len(r.Rows) == 0 {
		t.Errorf("SHOW DATABASES: %+v", r)
	}

	r = runPeer(t, s.FEFlightAddr(), u, "wrong", "SELECT 1")
	if r.ErrorCode != 16 || !strings.Contains(r.Error, "Access denied") {
		t.Errorf("bad password: %+v", r)
	}
	r = runPeer(t, s.FEFlightAddr(), u, pw, "SELECT * FROM demo.no_such_table")
	if r.ErrorCode != 13 || !strings.Contains(r.Error, "error code: ") {
		t.Errorf("unknown table: %+v", r)
	}
	r = runPeer(t, s.FEFlightAddr(), u, pw, "SELECT salary FROM secret.salaries")
	if r.ErrorCode != 13 || !strings.Contains(r.Error, "error code: 1") {
		t.Errorf("no privilege: %+v", r)
	}
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
