package doristest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// CollectionOf is the data of a Collection child.
type CollectionOf struct {
	Items      []map[string]any `json:"items"`
	NextCursor *string          `json:"next_cursor"`
	Truncated  bool             `json:"truncated"`
}

func (c CollectionOf) Names() []string {
	var out []string
	for _, it := range c.Items {
		out = append(out, it["name"].(string))
	}
	return out
}

// SearchWriter connects to the simulator as the demo writer.
func SearchWriter(t testing.TB, e *Env) *sql.DB {
	return Direct(t, e.Sim.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
}

type ModelItem struct {
	ModelRef        string   `json:"model_ref"`
	Name            string   `json:"name"`
	Namespace       string   `json:"namespace"`
	Tags            []string `json:"tags"`
	Datasets        int      `json:"datasets"`
	VisibleDatasets int      `json:"visible_datasets"`
	MappingStatus   string   `json:"mapping_status"`
}

func (e *Env) Models(args map[string]any) []ModelItem {
	e.t.Helper()
	var c struct {
		Items []ModelItem `json:"items"`
	}
	e.Ok("doris_semantic", "list_semantic_models", args).Decode(e.t, &c)
	return c.Items
}

var Profiles = []string{"2.1", "3.0", "4.0", "4.1"}

// SimDB is a pool straight to the simulator as user (not through the MCP
// server), for what the test itself does to Doris.
func (e *Env) SimDB(user, password string) *sql.DB {
	return Direct(e.t, e.Sim.Addr(), user, password, mariadb.DemoDatabase)
}

// ConnID is the Doris connection id the next statement runs on (with
// MaxConnections 1, the pool's only connection).
func (e *Env) ConnID() string {
	e.t.Helper()
	q, _, _ := e.Query(map[string]any{"sql": "SELECT CONNECTION_ID() AS id"})
	return fmt.Sprint(q.Rows[0]["id"])
}

// Uniq is a name suffix unique within this test binary's MariaDB.
func Uniq(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("%d", time.Now().UnixNano()%1_000_000_000)
}

// Writer is the ETL account, straight to the simulator (the MCP server is
// read-only and never writes).
func (e *Env) Writer() *sql.DB {
	return Direct(e.t, e.Sim.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
}

func (e *Env) Exec(db *sql.DB, stmts ...string) {
	e.t.Helper()
	for _, q := range stmts {
		if _, err := db.ExecContext(e.Ctx(), q); err != nil {
			e.t.Fatalf("%s: %v", q, err)
		}
	}
}

// SyncAudit waits until the simulator's audit log holds every statement
// run so far.
func (e *Env) SyncAudit() {
	e.t.Helper()
	if err := e.Sim.SyncAudit(e.Ctx()); err != nil {
		e.t.Fatal(err)
	}
}

// RootOpts are the options of an environment logged in as the Doris admin.
func RootOpts(profile string) EnvOpts {
	return EnvOpts{Profile: profile, User: "root", Password: mariadb.DefaultRootPassword}
}

// Lake is a test's external catalog, created through the simulator as
// root. Its backing databases are dropped, and the reader's grants on them
// revoked, when the test ends.
type Lake struct {
	t    testing.TB
	e    *Env
	Root *sql.Conn
	name string
	dbs  []string
}

func NewLake(t testing.TB, e *Env, name, props string, dbs ...string) *Lake {
	t.Helper()
	pool := Direct(t, e.Sim.Addr(), "root", e.DB.RootPassword(), "demo")
	conn, err := pool.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	l := &Lake{t: t, e: e, Root: conn, name: name, dbs: dbs}
	drop := func() {
		for _, d := range dbs {
			b := sim.BackingDatabase(name, d)
			e.RootDB().Exec(fmt.Sprintf("REVOKE ALL PRIVILEGES ON `%s`.* FROM 'mcp_reader'@'%%'", b))
			e.RootDB().Exec("DROP DATABASE IF EXISTS `" + b + "`")
		}
	}
	drop()
	t.Cleanup(drop)
	l.Exec("CREATE CATALOG " + name + " PROPERTIES (" + props + ")")
	for _, d := range dbs {
		l.Exec("CREATE DATABASE " + name + "." + d)
	}
	return l
}

func (l *Lake) Exec(stmts ...string) {
	l.t.Helper()
	for _, s := range stmts {
		if _, err := l.Root.ExecContext(context.Background(), s); err != nil {
			l.t.Fatalf("%s: %v", s, err)
		}
	}
}

// Grant lets the reader read database db of the catalog.
func (l *Lake) Grant(db string) {
	l.t.Helper()
	if _, err := l.e.RootDB().Exec(fmt.Sprintf("GRANT SELECT, SHOW VIEW ON `%s`.* TO 'mcp_reader'@'%%'", sim.BackingDatabase(l.name, db))); err != nil {
		l.t.Fatal(err)
	}
}

// SyncBuffer is a log destination several goroutines write to.
type SyncBuffer struct {
	mu sync.Mutex // protects b
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// LogTo rebuilds e's runtime and surface with debug logs written to buf.
func (e *Env) LogTo(buf *SyncBuffer) {
	e.t.Helper()
	log := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	signer, err := handle.NewRandom()
	if err != nil {
		e.t.Fatal(err)
	}
	rt, err := doris.Open(e.Cfg, doris.Options{Logger: log, Handles: signer, Handlers: catalog.Handlers(), Probes: catalog.Probes()})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { rt.Close() })
	sf, err := catalog.New(catalog.Config{Handles: signer, Logger: log, ValidateResults: true}, rt)
	if err != nil {
		e.t.Fatal(err)
	}
	e.RT, e.SF = rt, sf
}

type SemanticContext struct {
	ModelRef string `json:"model_ref"`
	Context  struct {
		Model    string `json:"model"`
		Datasets []struct {
			Name       string   `json:"name"`
			Table      string   `json:"table"`
			PrimaryKey []string `json:"primary_key"`
			Fields     []struct {
				Name        string `json:"name"`
				Expression  any    `json:"expression"`
				Description string `json:"description"`
			} `json:"fields"`
		} `json:"datasets"`
		Metrics []struct {
			Name       string   `json:"name"`
			Expression any      `json:"expression"`
			DependsOn  []string `json:"depends_on"`
		} `json:"metrics"`
		Relationships []struct {
			Name string `json:"name"`
			On   string `json:"on"`
		} `json:"relationships"`
	} `json:"context"`
	Bytes     int  `json:"bytes"`
	Truncated bool `json:"truncated"`
	Raw       json.RawMessage
}

func (e *Env) Context(request map[string]any) (SemanticContext, ChildData) {
	e.t.Helper()
	var c SemanticContext
	cd := e.Ok("doris_semantic", "get_semantic_context", map[string]any{"model_ref": "retail/sales", "request": request}).Decode(e.t, &c)
	var raw struct {
		Context json.RawMessage `json:"context"`
	}
	json.Unmarshal(cd.Data, &raw)
	c.Raw = raw.Context
	return c, cd
}

func (c SemanticContext) DatasetNames() string {
	var out []string
	for _, d := range c.Context.Datasets {
		out = append(out, d.Name)
	}
	return strings.Join(out, ",")
}

// TracedCall runs domain.child under trace tr (as a Host's call with that
// traceparent would) and decodes the envelope.
func (e *Env) TracedCall(tr doris.Trace, domain, child string, args any) *Envelope {
	e.t.Helper()
	a, _ := json.Marshal(args)
	outer, _ := json.Marshal(map[string]any{"child_tool": child, "arguments": json.RawMessage(a)})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.SF.CallTool(doris.WithTrace(ctx, tr), e.ID, domain, outer, nil)
	if err != nil {
		e.t.Fatalf("CallTool %s.%s: %v", domain, child, err)
	}
	ev := &Envelope{Raw: res.Structured, IsError: res.IsError}
	if err := json.Unmarshal(res.Structured, ev); err != nil {
		e.t.Fatalf("envelope: %v\n%s", err, res.Structured)
	}
	return ev
}

func MaskingMeta(t *testing.T, cd ChildData) (bool, int) {
	t.Helper()
	m, ok := cd.Metadata["masking"].(map[string]any)
	if !ok {
		t.Fatalf("no metadata.masking in %v", cd.Metadata)
	}
	n, _ := m["masked_values"].(float64)
	return m["applied"] == true, int(n)
}

// As is another runtime on the same simulator, logged in as user.
func (e *Env) As(user, pw string) *Env {
	e.t.Helper()
	o := *e
	o.Cfg.User, o.Cfg.Password = user, pw
	o.Open()
	return &o
}

// PipeTable creates demo.<prefix>_<random> straight in MariaDB and drops
// it (and anything named after it) when the test ends.
func PipeTable(t *testing.T, e *Env, prefix, columns string) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	if err := e.DB.Exec(context.Background(), "CREATE TABLE demo."+name+" ("+columns+")"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.DB.Exec(context.Background(), "DROP TABLE IF EXISTS demo."+name, "DROP VIEW IF EXISTS demo.v_"+name,
			"DROP TABLE IF EXISTS demo.mv_"+name, "DROP TABLE IF EXISTS demo.copy_"+name)
	})
	return name
}

// SQLAs runs statements through the simulator as user.
func SQLAs(t *testing.T, e *Env, user, pw string, stmts ...string) {
	t.Helper()
	db := Direct(t, e.Sim.Addr(), user, pw, "demo")
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// ArgsFor is a valid argument object for each bound child.
func ArgsFor(child string) map[string]any {
	switch child {
	case "list_tables":
		return map[string]any{"database": "demo"}
	case "get_table_context", "get_table_size":
		return map[string]any{"database": "demo", "table": "orders"}
	case "execute_query", "explain_query", "get_query_profile", "diagnose_query_performance":
		return map[string]any{"sql": "SELECT COUNT(*) FROM orders"}
	case "list_slow_queries":
		return map[string]any{"window_minutes": 5000}
	case "diagnose_ingestion", "monitor_data_freshness", "analyze_columns", "analyze_table_storage":
		return map[string]any{"database": "demo", "table": "orders"}
	case "analyze_data_dependencies":
		return map[string]any{"object": "orders"}
	case "trace_column_lineage":
		return map[string]any{"object": "demo.orders"}
	case "search_data":
		return map[string]any{"database": "demo", "table": "documents", "mode": "text", "query": "index"}
	case "preview_text_analysis":
		return map[string]any{"text": "Doris search"}
	case "inspect_search_indexes":
		return map[string]any{"database": "demo", "table": "documents"}
	case "diagnose_search_query":
		return map[string]any{"sql": "SELECT doc_id FROM demo.documents WHERE body MATCH_ANY 'index'"}
	case "inspect_external_catalog":
		return map[string]any{"catalog": "hive"}
	case "inspect_lakehouse_table":
		return map[string]any{"catalog": "lake", "database": "db", "table": "t"}
	case "inspect_variant_column":
		return map[string]any{"database": "demo", "table": "events", "column": "payload"}
	}
	return map[string]any{}
}

type MfRows struct {
	Columns []struct{ Name string } `json:"columns"`
	Rows    []map[string]any        `json:"rows"`
	Count   int                     `json:"row_count"`
	Trunc   bool                    `json:"truncated"`
	SQL     string                  `json:"sql"`
}

func (e *Env) MfExecute(request map[string]any, extra map[string]any) MfRows {
	e.t.Helper()
	args := map[string]any{"model_ref": "demo/orders", "request": request}
	for k, v := range extra {
		args[k] = v
	}
	var r MfRows
	e.Ok("doris_semantic", "execute_metricflow_query", args).Decode(e.t, &r)
	return r
}

// SlowQuery runs for many minutes unless something stops it (a cross
// join of 10^10 rows; the guard refuses SLEEP).
const SlowQuery = "SELECT SUM(a.seq * b.seq) AS s FROM demo.seq_1_to_100000 a, demo.seq_1_to_100000 b"

// RunQuery calls execute_query's handler directly (no catalog envelope).
func (e *Env) RunQuery(t testing.TB, args map[string]any) (QueryResult, *doris.Result) {
	t.Helper()
	a, _ := json.Marshal(args)
	res, err := e.RT.Handler("doris_query", "execute_query")(context.Background(),
		&doris.Call{Domain: "doris_query", Child: "execute_query", Identity: e.ID, Args: a})
	if err != nil {
		t.Fatalf("execute_query %v: %v", args, err)
	}
	b, _ := json.Marshal(res.Data)
	var q QueryResult
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		t.Fatal(err)
	}
	return q, res
}

// GeneralLog turns MariaDB's general query log on (into mysql.general_log)
// for the rest of the test and returns a reader of the statements that
// user sent since the last reset.
func GeneralLog(t testing.TB, in *mariadb.Instance) (statements func(user string) []string, reset func()) {
	t.Helper()
	ctx := context.Background()
	if err := in.Exec(ctx, "SET GLOBAL general_log = 0", "SET GLOBAL log_output = 'TABLE'", "TRUNCATE TABLE mysql.general_log",
		"SET GLOBAL general_log = 1"); err != nil {
		t.Fatalf("general log: %v", err)
	}
	t.Cleanup(func() { in.Exec(ctx, "SET GLOBAL general_log = 0", "TRUNCATE TABLE mysql.general_log") })
	statements = func(user string) []string {
		return Strings(t, in.Root(), "SELECT CONVERT(argument USING utf8mb4) FROM mysql.general_log "+
			"WHERE command_type IN ('Query', 'Execute', 'Prepare') AND user_host LIKE CONCAT(?, '[%') "+
			"AND argument NOT LIKE CONCAT(?, '%') ORDER BY event_time", user, sim.Bookkeeping)
	}
	reset = func() {
		if err := in.Exec(ctx, "TRUNCATE TABLE mysql.general_log"); err != nil {
			t.Fatal(err)
		}
	}
	return statements, reset
}

// Running lists the statements MariaDB is running that contain marker
// (other than the asking one).
func Running(t testing.TB, in *mariadb.Instance, marker string) []string {
	return Strings(t, in.Root(), "SELECT CONCAT(ID, ' ', USER, ' ', TIME_MS) FROM information_schema.processlist "+
		"WHERE COMMAND = 'Query' AND ID <> CONNECTION_ID() AND INFO LIKE CONCAT('%', ?, '%')", marker)
}

// WaitGone polls MariaDB's processlist until no statement with marker
// runs, and returns how long that took (or fails after limit).
func WaitGone(t testing.TB, in *mariadb.Instance, marker string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	Eventually(t, limit, func() string {
		if r := Running(t, in, marker); len(r) > 0 {
			return fmt.Sprintf("still running in MariaDB after %v: %v", limit, r)
		}
		return ""
	})
	return time.Since(start)
}

// UDFItem decodes list_udfs.
type UDFItem struct {
	Name       string         `json:"name"`
	Scope      string         `json:"scope"`
	Signature  string         `json:"signature"`
	ReturnType string         `json:"return_type"`
	Kind       string         `json:"kind"`
	Language   string         `json:"language"`
	Properties map[string]any `json:"properties"`
}

type Profile struct {
	QueryID          string           `json:"query_id"`
	TraceID          *string          `json:"trace_id"`
	ProfileText      string           `json:"profile_text"`
	ProfileTruncated bool             `json:"profile_truncated"`
	OperatorTree     []map[string]any `json:"operator_tree"`
}

// FEGet reads an FE REST endpoint of the simulator as the reader and
// returns the envelope's data.
func FEGet(t testing.TB, e *Env, path string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+e.Sim.FEAddr()+path, nil)
	req.SetBasicAuth(mariadb.ReaderUser, mariadb.ReaderPassword)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Code int             `json:"code"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || env.Code != 0 {
		t.Fatalf("FE %s: %v code %d", path, err, env.Code)
	}
	return string(env.Data)
}

// Eventually checks cond until it returns "" or limit passes, and then
// fails the test with cond's last complaint. It is for what another
// process does in its own time (a statement reaching MariaDB, a
// simulated backend's counters), never for letting time pass: a test that
// needs time to pass moves the runtime's clock (Clock).
func Eventually(t testing.TB, limit time.Duration, cond func() string) {
	t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		msg := cond()
		if msg == "" {
			return
		}
		select {
		case <-deadline.C:
			t.Fatal(msg)
		case <-tick.C:
		}
	}
}

// Clock is a clock that moves only when the test moves it, for the
// runtime (EnvOpts.Now: clock.Now): capability TTLs and stale grace then
// pass in an instant and exactly.
type Clock struct {
	mu  sync.Mutex // protects now
	now time.Time
}

// NewClock returns a clock set to the current time.
func NewClock() *Clock { return &Clock{now: time.Now()} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
