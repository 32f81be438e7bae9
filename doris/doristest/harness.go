package doristest

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/handle"
	"github.com/go-sql-driver/mysql"
)

// UpdateGoldens rewrites the golden files the tests of this package
// compare against, instead of comparing: go test ./doris -run X -update.
var UpdateGoldens = flag.Bool("update", false, "rewrite the golden files this package's tests compare against")

// Quiet discards logs unless DORIS_TEST_LOG is set.
func Quiet() *slog.Logger {
	if os.Getenv("DORIS_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Env is one test's Doris: the simulator over the shared MariaDB, the
// runtime and the catalog surface that a Host would talk to.
type Env struct {
	t   testing.TB
	DB  *mariadb.Instance
	Sim *sim.Server
	Cfg doris.Config
	RT  *doris.Runtime
	SF  *catalog.Surface
	ID  auth.Identity
	now func() time.Time
}

type EnvOpts struct {
	Profile  string
	User     string // default mcp_reader
	Password string
	NoFEHTTP bool
	// config adjusts the runtime's configuration before Open.
	Config func(*doris.Config)
	// now is the runtime's clock (nil: time.Now).
	Now func() time.Time
	// down starts the simulator unreachable (SetDown) before Open.
	Down bool
	// noAudit stops the simulator from appending statements to the audit
	// log (its background writer competes for the CPU in benchmarks).
	NoAudit bool
	// deployment is the simulator's deployment mode ("" = integrated).
	Deployment string
	// users are extra accounts the simulator accepts (they must exist in
	// MariaDB with the same password); feConfig stands for fe.conf.
	Users    map[string]string
	FEConfig map[string]string
	// instance is the MariaDB to use instead of the shared one.
	Instance *mariadb.Instance
	// Flight serves Arrow Flight SQL on the simulator's FE and BE and
	// enables ADBC in the runtime (ADBC_ENABLED, *_ARROW_FLIGHT_SQL_PORT).
	Flight bool
}

// NewEnv starts a simulator (profile "3.0" unless given) and a runtime
// logged in as mcp_reader, skipping loudly without MariaDB (failing under
// CI=true).
func NewEnv(t testing.TB, o EnvOpts) *Env {
	t.Helper()
	in := o.Instance
	if in == nil {
		in = mariadb.SharedFor(t)
	}
	if o.Profile == "" {
		o.Profile = "3.0"
	}
	simOpts := sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: o.Profile, Logger: Quiet()}
	if o.NoFEHTTP {
		simOpts.FEHTTP = ""
	}
	simOpts.NoAuditLog = o.NoAudit
	simOpts.Deployment = o.Deployment
	if len(o.Users) > 0 {
		simOpts.Users = maps.Clone(simOpts.Users)
		maps.Copy(simOpts.Users, o.Users)
	}
	simOpts.FEConfig = o.FEConfig
	if o.Flight {
		simOpts.FEFlight, simOpts.BEFlight = "127.0.0.1:0", "127.0.0.1:0"
	}
	s, err := sim.Start(context.Background(), simOpts)
	if err != nil {
		t.Fatalf("start the Doris simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if o.Down {
		if err := s.SetDown(true); err != nil {
			t.Fatal(err)
		}
	}
	e := &Env{t: t, DB: in, Sim: s, ID: auth.Anonymous(), now: o.Now}
	e.Cfg = SimConfig(t, s, o)
	if o.Config != nil {
		o.Config(&e.Cfg)
	}
	e.Open()
	return e
}

// NewAccount creates a MariaDB account with exactly the given grants
// (each a GRANT's privileges and object, e.g. "SELECT ON demo.*"), dropped
// when the test ends. The simulator accepts it once told its password
// (envOpts.users).
func NewAccount(t testing.TB, in *mariadb.Instance, name, pw string, grants ...string) {
	t.Helper()
	stmts := []string{fmt.Sprintf("CREATE OR REPLACE USER '%s'@'%%' IDENTIFIED BY '%s'", name, pw)}
	for _, g := range grants {
		stmts = append(stmts, fmt.Sprintf("GRANT %s TO '%s'@'%%'", g, name))
	}
	if err := in.Exec(context.Background(), stmts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Exec(context.Background(), fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", name)) })
}

// SimConfig is the runtime configuration that points at s.
func SimConfig(t testing.TB, s *sim.Server, o EnvOpts) doris.Config {
	t.Helper()
	cfg := doris.DefaultConfig()
	host, port := HostPort(t, s.Addr())
	cfg.Host, cfg.Port = host, port
	cfg.User, cfg.Password = mariadb.ReaderUser, mariadb.ReaderPassword
	if o.User != "" {
		cfg.User, cfg.Password = o.User, o.Password
	}
	cfg.Database = mariadb.DemoDatabase
	cfg.ConnectTimeout = 5 * time.Second
	cfg.FEHTTPPort = 0
	if s.FEAddr() != "" {
		cfg.FEHTTPHost, cfg.FEHTTPPort = HostPort(t, s.FEAddr())
	}
	if s.BEAddr() != "" {
		cfg.BEHosts = []string{s.BEAddr()}
	}
	if s.FEFlightAddr() != "" {
		cfg.ADBC.Enabled = true
		_, cfg.ADBC.FEPort = HostPort(t, s.FEFlightAddr())
		if s.BEFlightAddr() != "" {
			_, cfg.ADBC.BEPort = HostPort(t, s.BEFlightAddr())
		}
	}
	return cfg
}

func HostPort(t testing.TB, addr string) (string, int) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("address %q: %v", addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("port %q: %v", p, err)
	}
	return h, n
}

// Open (re)builds the runtime and the surface from e.cfg.
func (e *Env) Open() {
	e.t.Helper()
	signer, err := handle.NewRandom()
	if err != nil {
		e.t.Fatal(err)
	}
	rt, err := doris.Open(e.Cfg, doris.Options{Logger: Quiet(), Handles: signer, Now: e.now, Handlers: catalog.Handlers(), Probes: catalog.Probes()})
	if err != nil {
		e.t.Fatalf("doris.Open: %v", err)
	}
	e.t.Cleanup(func() { rt.Close() })
	sf, err := catalog.New(catalog.Config{Handles: signer, Logger: Quiet(), ValidateResults: true}, rt)
	if err != nil {
		e.t.Fatalf("catalog.New: %v", err)
	}
	e.RT, e.SF = rt, sf
}

// Envelope is a decoded catalog envelope (result, error or manifest).
type Envelope struct {
	Raw             json.RawMessage
	IsError         bool
	Mode            string          `json:"mode"`
	Domain          string          `json:"domain"`
	ChildTool       string          `json:"child_tool"`
	ManifestVersion string          `json:"manifest_version"`
	Data            json.RawMessage `json:"data"`
	Warnings        []string        `json:"warnings"`
	Metadata        struct {
		RequestID  string  `json:"request_id"`
		DurationMs float64 `json:"duration_ms"`
		Source     string  `json:"source"`
		Truncated  bool    `json:"truncated"`
	} `json:"metadata"`
	Error struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Retryable bool   `json:"retryable"`
		Details   struct {
			Rediscover bool   `json:"rediscover"`
			ReasonCode string `json:"reason_code"`
			StatusCode int    `json:"status_code"`
			Position   *int   `json:"position"`
		} `json:"details"`
	} `json:"error"`
	Children []ManifestChild `json:"children"`
}

type ManifestChild struct {
	Name         string `json:"name"`
	Availability struct {
		Status           string              `json:"status"`
		Callable         bool                `json:"callable"`
		ReasonCode       string              `json:"reason_code"`
		ActiveVariant    string              `json:"active_variant"`
		DetectedVersions map[string][]string `json:"detected_versions"`
		Limitations      []string            `json:"limitations"`
	} `json:"availability"`
}

// ChildData is the data member of a result envelope: the child's result.
type ChildData struct {
	Status   string           `json:"status"`
	Data     json.RawMessage  `json:"data"`
	Warnings []string         `json:"warnings"`
	Metadata map[string]any   `json:"metadata"`
	Evidence []map[string]any `json:"evidence"`
}

func (ev *Envelope) Child(t testing.TB) ChildData {
	t.Helper()
	if ev.Mode != "result" {
		t.Fatalf("%s/%s: want a result envelope, got %s", ev.Domain, ev.ChildTool, ev.Raw)
	}
	var cd ChildData
	if err := json.Unmarshal(ev.Data, &cd); err != nil {
		t.Fatalf("child data: %v\n%s", err, ev.Raw)
	}
	return cd
}

// Decode unmarshals the child's data member into v.
func (ev *Envelope) Decode(t testing.TB, v any) ChildData {
	t.Helper()
	cd := ev.Child(t)
	if err := json.Unmarshal(cd.Data, v); err != nil {
		t.Fatalf("decode %s: %v\n%s", ev.ChildTool, err, cd.Data)
	}
	return cd
}

// Ctx is the context of one call: bounded, and carrying a trace of its own
// as a Host's call does, so that every statement of every test reaches
// the simulator with its trace comment (doris/trace.go).
func (e *Env) Ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	e.t.Cleanup(cancel)
	return doris.WithTrace(ctx, doris.NewTrace(doris.Trace{}, false))
}

// CallV runs domain.child through the catalog (hierarchical mode), with the
// manifest_version given (or none).
func (e *Env) CallV(domain, child, manifest string, args any, progress catalog.Progress) *Envelope {
	e.t.Helper()
	a, err := json.Marshal(args)
	if err != nil {
		e.t.Fatal(err)
	}
	outer := map[string]any{"child_tool": child, "arguments": json.RawMessage(a)}
	if manifest != "" {
		outer["manifest_version"] = manifest
	}
	o, _ := json.Marshal(outer)
	res, err := e.SF.CallTool(e.Ctx(), e.ID, domain, o, progress)
	if err != nil {
		e.t.Fatalf("CallTool %s.%s: %v", domain, child, err)
	}
	ev := &Envelope{Raw: res.Structured, IsError: res.IsError}
	if err := json.Unmarshal(res.Structured, ev); err != nil {
		e.t.Fatalf("envelope: %v\n%s", err, res.Structured)
	}
	return ev
}

func (e *Env) Call(domain, child string, args any) *Envelope {
	e.t.Helper()
	return e.CallV(domain, child, "", args, nil)
}

// Ok calls a child and fails the test unless it returned a result.
func (e *Env) Ok(domain, child string, args any) *Envelope {
	e.t.Helper()
	ev := e.Call(domain, child, args)
	if ev.Mode != "result" || ev.IsError {
		e.t.Fatalf("%s.%s(%v): want a result, got %s", domain, child, args, ev.Raw)
	}
	return ev
}

// Fail calls a child and checks the error envelope's code and reason.
func (e *Env) Fail(domain, child string, args any, code, reason string) *Envelope {
	e.t.Helper()
	ev := e.Call(domain, child, args)
	if ev.Mode != "error" || !ev.IsError {
		e.t.Fatalf("%s.%s: want error %s/%s, got %s", domain, child, code, reason, ev.Raw)
	}
	if ev.Error.Code != code || (reason != "" && ev.Error.Details.ReasonCode != reason) {
		e.t.Fatalf("%s.%s: want %s/%s, got %s/%s: %s", domain, child, code, reason,
			ev.Error.Code, ev.Error.Details.ReasonCode, ev.Raw)
	}
	return ev
}

// Discover calls a domain with {} and returns its manifest.
func (e *Env) Discover(domain string) *Envelope {
	e.t.Helper()
	res, err := e.SF.CallTool(e.Ctx(), e.ID, domain, json.RawMessage(`{}`), nil)
	if err != nil {
		e.t.Fatalf("discover %s: %v", domain, err)
	}
	ev := &Envelope{Raw: res.Structured}
	if err := json.Unmarshal(res.Structured, ev); err != nil || ev.Mode != "manifest" {
		e.t.Fatalf("discover %s: %v %s", domain, err, res.Structured)
	}
	return ev
}

func (ev *Envelope) Availability(t testing.TB, child string) ManifestChild {
	t.Helper()
	for _, c := range ev.Children {
		if c.Name == child {
			return c
		}
	}
	t.Fatalf("%s: no child %s in the manifest", ev.Domain, child)
	return ManifestChild{}
}

// QueryResult is the data of execute_query.
type QueryResult struct {
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
	Rows      []map[string]any `json:"rows"`
	RowCount  int              `json:"row_count"`
	Truncated bool             `json:"truncated"`
}

func (e *Env) Query(args map[string]any) (QueryResult, ChildData, *Envelope) {
	e.t.Helper()
	ev := e.Ok("doris_query", "execute_query", args)
	var q QueryResult
	dec := json.NewDecoder(strings.NewReader(string(ev.Child(e.t).Data)))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		e.t.Fatal(err)
	}
	return q, ev.Child(e.t), ev
}

// RootDB is a pool on MariaDB as root, directly (not through the
// simulator), for ground truth.
func (e *Env) RootDB() *sql.DB { return e.DB.Root() }

// Direct opens a go-sql-driver pool straight to addr.
func Direct(t testing.TB, addr, user, pw, db string) *sql.DB {
	t.Helper()
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd, c.DBName = "tcp", addr, user, pw, db
	c.InterpolateParams = true
	c.Timeout = 5 * time.Second
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(conn)
	t.Cleanup(func() { d.Close() })
	return d
}

// Strings reads a one-column result as strings.
func Strings(t testing.TB, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func Scalar(t testing.TB, db *sql.DB, q string, args ...any) string {
	t.Helper()
	out := Strings(t, db, q, args...)
	if len(out) != 1 {
		t.Fatalf("%s: %d rows", q, len(out))
	}
	return out[0]
}

// Main runs a test binary's tests and then stops the shared MariaDB; pkg
// names the package in the loud notice of what was skipped without it.
// Every package whose tests use NewEnv calls it from its TestMain.
func Main(m *testing.M, pkg string) {
	code := m.Run()
	mariadb.SkipNotice(pkg)
	if err := mariadb.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "stop shared MariaDB:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
