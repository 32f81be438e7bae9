package doris_test

// The integration harness: one throwaway MariaDB per test binary (the
// dorissim/mariadb shared instance) and, per test, an in-process Doris
// simulator in front of it, a doris.Runtime and a catalog.Surface over
// that runtime, so that every call goes the way a Host's does.

import (
	"context"
	"database/sql"
	"encoding/json"
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

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

func TestMain(m *testing.M) {
	code := m.Run()
	mariadb.SkipNotice("doris")
	if err := mariadb.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "stop shared MariaDB:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// quiet discards logs unless DORIS_TEST_LOG is set.
func quiet() *slog.Logger {
	if os.Getenv("DORIS_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// env is one test's Doris: the simulator over the shared MariaDB, the
// runtime and the catalog surface that a Host would talk to.
type env struct {
	t   testing.TB
	db  *mariadb.Instance
	sim *sim.Server
	cfg doris.Config
	rt  *doris.Runtime
	sf  *catalog.Surface
	id  auth.Identity
	now func() time.Time
}

type envOpts struct {
	profile  string
	user     string // default mcp_reader
	password string
	noFEHTTP bool
	// config adjusts the runtime's configuration before Open.
	config func(*doris.Config)
	// now is the runtime's clock (nil: time.Now).
	now func() time.Time
	// down starts the simulator unreachable (SetDown) before Open.
	down bool
	// noAudit stops the simulator from appending statements to the audit
	// log (its background writer competes for the CPU in benchmarks).
	noAudit bool
	// deployment is the simulator's deployment mode ("" = integrated).
	deployment string
	// users are extra accounts the simulator accepts (they must exist in
	// MariaDB with the same password); feConfig stands for fe.conf.
	users    map[string]string
	feConfig map[string]string
	// instance is the MariaDB to use instead of the shared one.
	instance *mariadb.Instance
}

// newEnv starts a simulator (profile "3.0" unless given) and a runtime
// logged in as mcp_reader, skipping loudly without MariaDB (failing under
// CI=true).
func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	in := o.instance
	if in == nil {
		in = mariadb.SharedFor(t)
	}
	if o.profile == "" {
		o.profile = "3.0"
	}
	simOpts := sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: o.profile, Logger: quiet()}
	if o.noFEHTTP {
		simOpts.FEHTTP = ""
	}
	simOpts.NoAuditLog = o.noAudit
	simOpts.Deployment = o.deployment
	if len(o.users) > 0 {
		simOpts.Users = maps.Clone(simOpts.Users)
		maps.Copy(simOpts.Users, o.users)
	}
	simOpts.FEConfig = o.feConfig
	s, err := sim.Start(context.Background(), simOpts)
	if err != nil {
		t.Fatalf("start the Doris simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if o.down {
		if err := s.SetDown(true); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{t: t, db: in, sim: s, id: auth.Anonymous(), now: o.now}
	e.cfg = simConfig(t, s, o)
	if o.config != nil {
		o.config(&e.cfg)
	}
	e.open()
	return e
}

// newAccount creates a MariaDB account with exactly the given grants
// (each a GRANT's privileges and object, e.g. "SELECT ON demo.*"), dropped
// when the test ends. The simulator accepts it once told its password
// (envOpts.users).
func newAccount(t testing.TB, in *mariadb.Instance, name, pw string, grants ...string) {
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

// simConfig is the runtime configuration that points at s.
func simConfig(t testing.TB, s *sim.Server, o envOpts) doris.Config {
	t.Helper()
	cfg := doris.DefaultConfig()
	host, port := hostPort(t, s.Addr())
	cfg.Host, cfg.Port = host, port
	cfg.User, cfg.Password = mariadb.ReaderUser, mariadb.ReaderPassword
	if o.user != "" {
		cfg.User, cfg.Password = o.user, o.password
	}
	cfg.Database = mariadb.DemoDatabase
	cfg.ConnectTimeout = 5 * time.Second
	cfg.FEHTTPPort = 0
	if s.FEAddr() != "" {
		cfg.FEHTTPHost, cfg.FEHTTPPort = hostPort(t, s.FEAddr())
	}
	if s.BEAddr() != "" {
		cfg.BEHosts = []string{s.BEAddr()}
	}
	return cfg
}

func hostPort(t testing.TB, addr string) (string, int) {
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

// open (re)builds the runtime and the surface from e.cfg.
func (e *env) open() {
	e.t.Helper()
	signer, err := handle.NewRandom()
	if err != nil {
		e.t.Fatal(err)
	}
	rt, err := doris.Open(e.cfg, doris.Options{Logger: quiet(), Handles: signer, Now: e.now, Handlers: catalog.Handlers(), Probes: catalog.Probes()})
	if err != nil {
		e.t.Fatalf("doris.Open: %v", err)
	}
	e.t.Cleanup(func() { rt.Close() })
	sf, err := catalog.New(catalog.Config{Handles: signer, Logger: quiet(), ValidateResults: true}, rt)
	if err != nil {
		e.t.Fatalf("catalog.New: %v", err)
	}
	e.rt, e.sf = rt, sf
}

// envelope is a decoded catalog envelope (result, error or manifest).
type envelope struct {
	raw             json.RawMessage
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
	Children []manifestChild `json:"children"`
}

type manifestChild struct {
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

// childData is the data member of a result envelope: the child's result.
type childData struct {
	Status   string           `json:"status"`
	Data     json.RawMessage  `json:"data"`
	Warnings []string         `json:"warnings"`
	Metadata map[string]any   `json:"metadata"`
	Evidence []map[string]any `json:"evidence"`
}

func (ev *envelope) child(t testing.TB) childData {
	t.Helper()
	if ev.Mode != "result" {
		t.Fatalf("%s/%s: want a result envelope, got %s", ev.Domain, ev.ChildTool, ev.raw)
	}
	var cd childData
	if err := json.Unmarshal(ev.Data, &cd); err != nil {
		t.Fatalf("child data: %v\n%s", err, ev.raw)
	}
	return cd
}

// decode unmarshals the child's data member into v.
func (ev *envelope) decode(t testing.TB, v any) childData {
	t.Helper()
	cd := ev.child(t)
	if err := json.Unmarshal(cd.Data, v); err != nil {
		t.Fatalf("decode %s: %v\n%s", ev.ChildTool, err, cd.Data)
	}
	return cd
}

// ctx is the context of one call: bounded, and carrying a trace of its own
// as a Host's call does, so that every statement of every test reaches
// the simulator with its trace comment (doris/trace.go).
func (e *env) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	e.t.Cleanup(cancel)
	return doris.WithTrace(ctx, doris.NewTrace(doris.Trace{}, false))
}

// call runs domain.child through the catalog (hierarchical mode), with the
// manifest_version given (or none).
func (e *env) callV(domain, child, manifest string, args any, progress catalog.Progress) *envelope {
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
	res, err := e.sf.CallTool(e.ctx(), e.id, domain, o, progress)
	if err != nil {
		e.t.Fatalf("CallTool %s.%s: %v", domain, child, err)
	}
	ev := &envelope{raw: res.Structured, IsError: res.IsError}
	if err := json.Unmarshal(res.Structured, ev); err != nil {
		e.t.Fatalf("envelope: %v\n%s", err, res.Structured)
	}
	return ev
}

func (e *env) call(domain, child string, args any) *envelope {
	e.t.Helper()
	return e.callV(domain, child, "", args, nil)
}

// ok calls a child and fails the test unless it returned a result.
func (e *env) ok(domain, child string, args any) *envelope {
	e.t.Helper()
	ev := e.call(domain, child, args)
	if ev.Mode != "result" || ev.IsError {
		e.t.Fatalf("%s.%s(%v): want a result, got %s", domain, child, args, ev.raw)
	}
	return ev
}

// fail calls a child and checks the error envelope's code and reason.
func (e *env) fail(domain, child string, args any, code, reason string) *envelope {
	e.t.Helper()
	ev := e.call(domain, child, args)
	if ev.Mode != "error" || !ev.IsError {
		e.t.Fatalf("%s.%s: want error %s/%s, got %s", domain, child, code, reason, ev.raw)
	}
	if ev.Error.Code != code || (reason != "" && ev.Error.Details.ReasonCode != reason) {
		e.t.Fatalf("%s.%s: want %s/%s, got %s/%s: %s", domain, child, code, reason,
			ev.Error.Code, ev.Error.Details.ReasonCode, ev.raw)
	}
	return ev
}

// discover calls a domain with {} and returns its manifest.
func (e *env) discover(domain string) *envelope {
	e.t.Helper()
	res, err := e.sf.CallTool(e.ctx(), e.id, domain, json.RawMessage(`{}`), nil)
	if err != nil {
		e.t.Fatalf("discover %s: %v", domain, err)
	}
	ev := &envelope{raw: res.Structured}
	if err := json.Unmarshal(res.Structured, ev); err != nil || ev.Mode != "manifest" {
		e.t.Fatalf("discover %s: %v %s", domain, err, res.Structured)
	}
	return ev
}

func (ev *envelope) availability(t testing.TB, child string) manifestChild {
	t.Helper()
	for _, c := range ev.Children {
		if c.Name == child {
			return c
		}
	}
	t.Fatalf("%s: no child %s in the manifest", ev.Domain, child)
	return manifestChild{}
}

// queryResult is the data of execute_query.
type queryResult struct {
	Columns []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"columns"`
	Rows      []map[string]any `json:"rows"`
	RowCount  int              `json:"row_count"`
	Truncated bool             `json:"truncated"`
}

func (e *env) query(args map[string]any) (queryResult, childData, *envelope) {
	e.t.Helper()
	ev := e.ok("doris_query", "execute_query", args)
	var q queryResult
	dec := json.NewDecoder(strings.NewReader(string(ev.child(e.t).Data)))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		e.t.Fatal(err)
	}
	return q, ev.child(e.t), ev
}

// rootDB is a pool on MariaDB as root, directly (not through the
// simulator), for ground truth.
func (e *env) rootDB() *sql.DB { return e.db.Root() }

// direct opens a go-sql-driver pool straight to addr.
func direct(t testing.TB, addr, user, pw, db string) *sql.DB {
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

// strings1 reads a one-column result as strings.
func strings1(t testing.TB, db *sql.DB, q string, args ...any) []string {
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

func scalar(t testing.TB, db *sql.DB, q string, args ...any) string {
	t.Helper()
	out := strings1(t, db, q, args...)
	if len(out) != 1 {
		t.Fatalf("%s: %d rows", q, len(out))
	}
	return out[0]
}
