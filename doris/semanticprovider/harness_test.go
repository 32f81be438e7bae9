package semanticprovider_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
)

func TestMain(m *testing.M) {
	code := m.Run()
	mariadb.SkipNotice("doris/semanticprovider")
	if err := mariadb.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "stop shared mariadb:", err)
	}
	os.Exit(code)
}

// env is a simulator in front of the shared MariaDB: compiled SQL runs
// through the simulator (as Doris SQL), reference SQL straight on MariaDB.
type env struct {
	in    *mariadb.Instance
	doris *sql.DB // through the simulator
	maria *sql.DB // MariaDB itself
}

func newEnv(t *testing.T) *env {
	t.Helper()
	in := mariadb.SharedFor(t)
	s, err := sim.Start(context.Background(), sim.Options{
		Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: "3.0",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("start sim: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd, c.DBName = "tcp", s.Addr(), "root", in.RootPassword(), "demo"
	c.Timeout = 10 * time.Second
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return &env{in: in, doris: db, maria: in.Root()}
}

// table is a result: column names and rows of nullable text.
type table struct {
	cols []string
	rows [][]sql.NullString
}

func runQuery(t *testing.T, db *sql.DB, q string) table {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("query failed: %v\n%s", err, q)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	out := table{cols: cols}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out.rows = append(out.rows, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("query failed: %v\n%s", err, q)
	}
	return out
}

var (
	midnight = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}) 00:00:00$`)
	number   = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
)

// canon renders a value for comparison: timestamps at midnight as dates,
// numbers rounded to 9 significant digits (Doris and MariaDB differ in
// the scale of a division), NULL as NULL.
func canon(v sql.NullString) string {
	if !v.Valid {
		return "NULL"
	}
	s := v.String
	if m := midnight.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if number.MatchString(s) {
		f, _ := strconv.ParseFloat(s, 64)
		if f == 0 {
			return "0"
		}
		return strconv.FormatFloat(f, 'g', 9, 64)
	}
	return s
}

func (tb table) lines(ordered bool) []string {
	var out []string
	for _, r := range tb.rows {
		var parts []string
		for _, v := range r {
			parts = append(parts, canon(v))
		}
		out = append(out, strings.Join(parts, " | "))
	}
	if !ordered {
		sort.Strings(out)
	}
	return out
}

// sameRows fails unless got and want hold the same rows (in the same
// order when ordered), and says where they differ.
func sameRows(t *testing.T, got, want table, ordered bool) {
	t.Helper()
	g, w := got.lines(ordered), want.lines(ordered)
	if len(g) == 0 {
		t.Fatalf("the compiled query returned no rows; a test over no rows proves nothing")
	}
	if len(g) != len(w) {
		t.Fatalf("got %d rows, want %d\n got: %s\nwant: %s", len(g), len(w), head(g), head(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("row %d:\n got  %s\n want %s", i, g[i], w[i])
		}
	}
}

func head(lines []string) string {
	if len(lines) > 8 {
		lines = lines[:8]
	}
	return strings.Join(lines, "; ")
}

// provider answers requests for one manifest through the protocol.
type provider struct {
	p   *semanticprovider.Provider
	ref string
}

func newProvider(t *testing.T, ref, path string) provider {
	t.Helper()
	p, err := semanticprovider.New([]semanticprovider.Source{{Ref: ref, Path: path}})
	if err != nil {
		t.Fatal(err)
	}
	return provider{p: p, ref: ref}
}

// call sends one protocol request and returns data, or the reason code.
func (pv provider) call(t *testing.T, op string, args map[string]any) (map[string]any, string) {
	t.Helper()
	if op != "list_models" {
		args["model_ref"] = pv.ref
	}
	req, _ := json.Marshal(map[string]any{"protocol_version": semanticprovider.ProtocolVersion, "request_id": "t-1", "operation": op, "arguments": args})
	out := pv.p.Handle(context.Background(), req, nil)
	var resp struct {
		ProtocolVersion string         `json:"protocol_version"`
		RequestID       string         `json:"request_id"`
		OK              bool           `json:"ok"`
		Data            map[string]any `json:"data"`
		Error           struct {
			ReasonCode string `json:"reason_code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, out)
	}
	if resp.ProtocolVersion != semanticprovider.ProtocolVersion || resp.RequestID != "t-1" {
		t.Fatalf("response does not correlate: %s", out)
	}
	if !resp.OK {
		return nil, resp.Error.ReasonCode
	}
	return resp.Data, ""
}

// compile compiles a request and returns its SQL.
func (pv provider) compile(t *testing.T, req map[string]any) string {
	t.Helper()
	data, reason := pv.call(t, "compile_query", map[string]any{"dialect": "doris", "request": req})
	if reason != "" {
		t.Fatalf("compile refused with %s", reason)
	}
	return data["sql"].(string)
}
