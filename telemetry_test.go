package main

// GET /metrics, the invocation audit log and trace ids, end to end in
// process: the counters equal the calls the test made, the audit log has
// one line per call and no argument value, and a traceparent sent in
// _meta reaches the simulator's audit log, the error envelope and the log.

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/mcp/metrics"
)

// workload is the calls every telemetry test makes, with what each must
// count as.
type workload struct {
	ok, refused, discoveries, hostile, lists int
	bytes                                    int // structuredContent bytes of the execute_query calls
	rows                                     int
}

// run makes the calls: execute_query that succeed (a literal in the SQL
// and a bound parameter value the audit log must never show), execute_query
// the guard refuses, a discovery, a child name no domain has, tools/list.
func (w *workload) run(t *testing.T, ts *telServer) {
	t.Helper()
	for i := 0; i < 3; i++ {
		r := ts.child(t, "doris_query", "execute_query", map[string]any{
			"sql":        "SELECT 'sekrit-literal-42' AS x, %(p)s AS y FROM customers WHERE customer_id <= 2",
			"parameters": map[string]any{"p": "param-value-77"}}, nil)
		if !strings.Contains(string(r.structured), `"mode":"result"`) {
			t.Fatalf("execute_query: %s", r.raw)
		}
		w.ok++
		w.rows += 2
		w.bytes += len(r.structured)
	}
	for i := 0; i < 2; i++ {
		r := ts.child(t, "doris_query", "execute_query", map[string]any{"sql": "DELETE FROM orders WHERE note = 'gone-value-13'"}, nil)
		if !strings.Contains(string(r.structured), "QUERY_READ_ONLY_VIOLATION") {
			t.Fatalf("a DELETE was not refused: %s", r.raw)
		}
		w.refused++
		w.bytes += len(r.structured)
	}
	if r := ts.call(t, "tools/call", "doris_query", map[string]any{"name": "doris_query", "arguments": map[string]any{}}, nil); !strings.Contains(string(r.structured), `"mode":"manifest"`) {
		t.Fatalf("discovery: %s", r.raw)
	}
	w.discoveries++
	if r := ts.child(t, "doris_query", "evil\"}\n{child=\"x", map[string]any{}, nil); !strings.Contains(string(r.structured), "CHILD_TOOL_NOT_FOUND") {
		t.Fatalf("a made-up child: %s", r.raw)
	}
	w.hostile++
	if r := ts.call(t, "tools/list", "", nil, nil); r.errCode != 0 {
		t.Fatalf("tools/list: %s", r.raw)
	}
	w.lists++
}

func (w *workload) calls() int { return w.ok + w.refused + w.discoveries + w.hostile + w.lists }

func TestMetricsCountTheCalls(t *testing.T) {
	ts := startTelemetryServer(t, nil)
	var w workload
	w.run(t, ts)
	e := scrape(t, ts.base+"/metrics", "")
	const eq = "doris_query.execute_query"
	for _, c := range []struct {
		what string
		got  float64
		want int
	}{
		{"calls OK", e.get("doris_mcp_tool_calls_total", "child", eq, "outcome", "OK"), w.ok},
		{"calls refused", e.get("doris_mcp_tool_calls_total", "child", eq, "outcome", catalog.CodeArgumentsInvalid), w.refused},
		{"made-up child", e.get("doris_mcp_tool_calls_total", "child", metrics.Other, "outcome", catalog.CodeToolNotFound), w.hostile},
		{"guard refusals", e.get("doris_mcp_guard_refusals_total", "reason", "WRITE_STATEMENT"), w.refused},
		{"discoveries", e.get("doris_mcp_tool_discoveries_total", "domain", "doris_query"), w.discoveries},
		{"tools/call requests", e.get("doris_mcp_requests_total", "method", "tools/call", "code", "ok"), w.ok + w.refused + w.discoveries + w.hostile},
		{"tools/list requests", e.get("doris_mcp_requests_total", "method", "tools/list", "code", "ok"), w.lists},
		{"rows", e.get("doris_mcp_tool_result_rows_total", "child", eq), w.rows},
		{"bytes", e.get("doris_mcp_tool_result_bytes_total", "child", eq), w.bytes},
		{"duration count", e.get("doris_mcp_tool_call_duration_seconds_count", "child", eq), w.ok + w.refused},
		{"duration +Inf", e.get("doris_mcp_tool_call_duration_seconds_bucket", "child", eq, "le", "+Inf"), w.ok + w.refused},
		{"in flight", e.get("doris_mcp_requests_in_flight", "transport", "http"), 0},
		{"query slots", e.get("doris_mcp_query_slots"), 50},
	} {
		if int(c.got) != c.want {
			t.Errorf("%s: /metrics says %v, the test made %d", c.what, c.got, c.want)
		}
	}
	if open, ok := e.value("doris_mcp_pool_connections", "route", "default", "state", "idle"); !ok || open < 1 {
		t.Errorf("default pool idle connections %v (present %v), want at least 1 after the calls", open, ok)
	}
	if _, ok := e.value("doris_mcp_pool_connections", "route", "own_account", "state", "in_use"); !ok {
		t.Error("no own_account pool series")
	}
	for _, name := range []string{"process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds", "go_goroutines",
		"go_gc_cycles_total", "doris_mcp_capability_snapshot_age_seconds", "doris_mcp_audit_log_errors_total"} {
		if v, ok := e.value(name); !ok || v < 0 {
			t.Errorf("%s = %v (present %v)", name, v, ok)
		}
	}
	if v, ok := e.value("doris_mcp_capability_probe", "probe", "query.profile_api", "outcome", "OK"); !ok || v != 1 {
		t.Errorf("the profile API probe the discovery ran: %v (present %v)", v, ok)
	}
	var build *sample
	for i := range e.samples {
		if e.samples[i].name == "doris_mcp_build_info" {
			build = &e.samples[i]
		}
	}
	if build == nil || build.value != 1 || !strings.HasPrefix(build.labels["goversion"], "go1.") {
		t.Errorf("doris_mcp_build_info %+v", build)
	}
	// Every label value is from its fixed set: the made-up child and its
	// quotes and newline never became a label.
	children := append(catalog.ChildNames(), metrics.Other)
	for _, s := range e.samples {
		if c, ok := s.labels["child"]; ok && !slices.Contains(children, c) {
			t.Errorf("%s has child label %q, outside the contract's names", s.name, c)
		}
		if o, ok := s.labels["outcome"]; ok && s.name == "doris_mcp_tool_calls_total" && !slices.Contains(append(catalog.Outcomes(), metrics.Other), o) {
			t.Errorf("%s has outcome %q", s.name, o)
		}
	}
	// Prometheus naming: counters end in _total, histograms are in seconds.
	for name, typ := range e.types {
		switch {
		case typ == "counter" && !strings.HasSuffix(name, "_total"):
			t.Errorf("counter %s does not end in _total", name)
		case typ == "histogram" && !strings.HasSuffix(name, "_seconds"):
			t.Errorf("histogram %s is not in seconds", name)
		}
	}
}

// TestMetricsHostPolicy: /metrics answers under the MCP listener's
// Host/Origin policy.
func TestMetricsHostPolicy(t *testing.T) {
	ts := startTelemetryServer(t, nil)
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"", "", 200},
		{"evil.example:80", "", 403},
		{"", "http://evil.example", 403},
	} {
		r, _ := http.NewRequest("GET", ts.base+"/metrics", nil)
		if c.host != "" {
			r.Host = c.host
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %q Origin %q: status %d, want %d", c.host, c.origin, resp.StatusCode, c.want)
		}
	}
	off := startTelemetryServer(t, map[string]string{"ENABLE_METRICS": "false"})
	r, _ := http.NewRequest("GET", off.base+"/metrics", nil)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("ENABLE_METRICS=false: /metrics answered %d, want 404", resp.StatusCode)
	}
}

// auditLine is one line of the invocation audit log.
type auditLine struct {
	Time          time.Time       `json:"time"`
	Principal     string          `json:"principal"`
	Transport     string          `json:"transport"`
	Method        string          `json:"method"`
	Target        string          `json:"target"`
	Child         string          `json:"child"`
	DurationMs    *float64        `json:"duration_ms"`
	Outcome       string          `json:"outcome"`
	Code          string          `json:"code"`
	Reason        string          `json:"reason"`
	Rows          *int            `json:"rows"`
	Bytes         *int            `json:"bytes"`
	Truncated     *bool           `json:"truncated"`
	RequestID     string          `json:"request_id"`
	CallID        string          `json:"call_id"`
	ArgumentNames []string        `json:"argument_names"`
	TraceID       string          `json:"trace_id"`
	Arguments     json.RawMessage `json:"arguments"`
}

// readAudit closes the server (which flushes the log) and reads every
// line, failing on one that is not JSON.
func readAudit(t *testing.T, ts *telServer, path string) ([]auditLine, string) {
	t.Helper()
	ts.srv.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []auditLine
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		var l auditLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("audit line is not JSON: %q", sc.Text())
		}
		lines = append(lines, l)
	}
	return lines, string(b)
}

func TestAuditLogLinesEqualCalls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit", "calls.log")
	ts := startTelemetryServer(t, map[string]string{"AUDIT_LOG_PATH": path})
	var w workload
	w.run(t, ts)
	lines, raw := readAudit(t, ts, path)
	if len(lines) != w.calls() {
		t.Fatalf("%d audit lines for %d calls:\n%s", len(lines), w.calls(), raw)
	}
	for _, secret := range []string{"sekrit-literal-42", "param-value-77", "gone-value-13", "SELECT", "DELETE", mariadb.ReaderPassword} {
		if strings.Contains(raw, secret) {
			t.Errorf("the audit log holds %q:\n%s", secret, raw)
		}
	}
	var ok, refused, traced int
	for i, l := range lines {
		if l.Principal != "anonymous:local" || l.Transport != "http" || l.DurationMs == nil || l.Rows == nil || l.Bytes == nil ||
			l.Truncated == nil || l.RequestID != strconv.Itoa(i+1) || len(l.TraceID) != 32 || l.Time.IsZero() {
			t.Errorf("line %d lacks a field: %+v", i, l)
		}
		if l.Child == "doris_query.execute_query" {
			switch l.Code {
			case "OK":
				ok++
				if *l.Rows != 2 || l.Outcome != "ok" || !slices.Equal(l.ArgumentNames, []string{"parameters", "sql"}) {
					t.Errorf("an OK call's line: %+v", l)
				}
			case catalog.CodeArgumentsInvalid:
				refused++
				if l.Reason != "QUERY_READ_ONLY_VIOLATION" || l.Outcome != "error" {
					t.Errorf("a refused call's line: %+v", l)
				}
			}
		}
		if l.Arguments != nil {
			t.Errorf("line %d has arguments in the default mode: %s", i, l.Arguments)
		}
		traced++
	}
	if ok != w.ok || refused != w.refused {
		t.Errorf("audit log: %d OK and %d refused execute_query lines, the test made %d and %d", ok, refused, w.ok, w.refused)
	}
	// The stderr lines are the same with the audit log on: one per request.
	if n := strings.Count(ts.logs.String(), `"msg":"mcp request"`); n != w.calls() {
		t.Errorf("%d request log lines for %d calls", n, w.calls())
	}
}

func TestAuditLogRedactedArguments(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.log")
	ts := startTelemetryServer(t, map[string]string{"AUDIT_LOG_PATH": path, "AUDIT_LOG_ARGUMENTS": "redacted"})
	ts.child(t, "doris_query", "execute_query", map[string]any{
		"sql":        "SELECT full_name FROM customers WHERE email = 'ann@example.com' AND customer_id = %(id)s",
		"parameters": map[string]any{"id": 7}, "max_rows": 5}, nil)
	// Not in the child's schema, so refused: audited all the same, masked.
	ts.child(t, "doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "password": "hunter2-pass"}, nil)
	lines, raw := readAudit(t, ts, path)
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), raw)
	}
	for _, secret := range []string{"ann@example.com", "hunter2-pass", `"id":7`} {
		if strings.Contains(raw, secret) {
			t.Errorf("the redacted audit log holds %q:\n%s", secret, raw)
		}
	}
	var first struct {
		ChildTool string `json:"child_tool"`
		Arguments struct {
			SQL        string         `json:"sql"`
			Parameters map[string]any `json:"parameters"`
			MaxRows    int            `json:"max_rows"`
		} `json:"arguments"`
	}
	if err := json.Unmarshal(lines[0].Arguments, &first); err != nil {
		t.Fatalf("arguments %s: %v", lines[0].Arguments, err)
	}
	if first.ChildTool != "execute_query" || first.Arguments.SQL != "SELECT full_name FROM customers WHERE email = '***' AND customer_id = %(id)s" ||
		first.Arguments.Parameters["id"] != "***" || first.Arguments.MaxRows != 5 {
		t.Errorf("redacted arguments %s", lines[0].Arguments)
	}
	if !strings.Contains(string(lines[1].Arguments), `"password":"***"`) {
		t.Errorf("a credential-named argument: %s", lines[1].Arguments)
	}
}

// TestAuditLogUnwritable: a full disk and a path that cannot be created
// cost audit lines, counted in /metrics and logged once; every call
// succeeds.
func TestAuditLogUnwritable(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(notDir, []byte("x"), 0o600)
	paths := map[string]string{"full disk": "/dev/full", "cannot create": filepath.Join(notDir, "audit.log")}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat("/dev/full"); err != nil && name == "full disk" {
				t.Skip("no /dev/full on this system")
			}
			ts := startTelemetryServer(t, map[string]string{"AUDIT_LOG_PATH": path})
			var w workload
			w.run(t, ts)   // fails the test if any call does not succeed
			ts.srv.Close() // writes (or counts as lost) every queued line
			errs := scrape(t, ts.base+"/metrics", "").get("doris_mcp_audit_log_errors_total")
			if int(errs) != w.calls() {
				t.Fatalf("doris_mcp_audit_log_errors_total %v, want the %d calls' lines", errs, w.calls())
			}
			if n := strings.Count(ts.logs.String(), "audit log cannot be written"); n != 1 {
				t.Errorf("the failure was logged %d times, want once:\n%s", n, ts.logs.String())
			}
		})
	}
}

// TestTraceparentEndToEnd: the traceparent a Host sends reaches the
// statement it caused in the simulator's audit log, the error envelope
// and the server's log line, and a call without one gets a trace of its
// own.
func TestTraceparentEndToEnd(t *testing.T) {
	ts := startTelemetryServer(t, nil)
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	tp := "00-" + tid + "-00f067aa0ba902b7-01"
	const q = "SELECT COUNT(*) AS n FROM orders WHERE status = 'shipped'"
	r := ts.child(t, "doris_query", "execute_query", map[string]any{"sql": q}, map[string]any{"traceparent": tp})
	var res struct {
		Metadata struct {
			TraceID string `json:"trace_id"`
		} `json:"metadata"`
	}
	json.Unmarshal(r.structured, &res)
	if res.Metadata.TraceID != tid {
		t.Fatalf("result metadata trace_id %q: %s", res.Metadata.TraceID, r.structured)
	}
	if err := ts.sim.SyncAudit(t.Context()); err != nil {
		t.Fatal(err)
	}
	var stmt string
	if err := ts.db.Root().QueryRow("SELECT stmt FROM __internal_schema.audit_log WHERE stmt LIKE ?", "%"+tid+"%"+q).Scan(&stmt); err != nil {
		t.Fatalf("the simulator's audit log has no statement of trace %s: %v", tid, err)
	}
	tr, _ := doris.ParseTraceparent(tp)
	if !strings.HasPrefix(stmt, "/*traceparent='00-"+tr.ID+"-") || !strings.HasSuffix(stmt, "-01'*/ "+q) || strings.Contains(stmt, "00f067aa0ba902b7") {
		t.Fatalf("audit stmt %q: want the caller's trace with a span of the server's own", stmt)
	}

	bad := ts.child(t, "doris_query", "execute_query", map[string]any{"sql": "SELECT * FROM no_such_table_x"}, map[string]any{"traceparent": tp})
	var env struct {
		Mode  string `json:"mode"`
		Error struct {
			TraceID string `json:"trace_id"`
		} `json:"error"`
	}
	json.Unmarshal(bad.structured, &env)
	if env.Mode != "error" || env.Error.TraceID != tid {
		t.Fatalf("error envelope: %s", bad.structured)
	}
	logs := ts.logs.String()
	if n := strings.Count(logs, `"trace_id":"`+tid+`"`); n != 2 {
		t.Errorf("%d log lines carry the trace, want 2:\n%s", n, logs)
	}

	// A malformed traceparent is dropped, and the call gets a fresh trace.
	own := ts.child(t, "doris_query", "execute_query", map[string]any{"sql": "SELECT 1"}, map[string]any{"traceparent": "00-" + strings.ToUpper(tid) + "-00f067aa0ba902b7-01"})
	json.Unmarshal(own.structured, &res)
	if len(res.Metadata.TraceID) != 32 || res.Metadata.TraceID == tid || res.Metadata.TraceID == strings.ToUpper(tid) {
		t.Fatalf("a malformed traceparent: trace_id %q", res.Metadata.TraceID)
	}
}

// TestMetricsAddr: METRICS_ADDR serves /metrics alone, under the same
// Host/Origin policy, and nothing else.
func TestMetricsAddr(t *testing.T) {
	addr := "127.0.0.1:" + strconv.Itoa(closedPort(t))
	ts := startTelemetryServer(t, map[string]string{"METRICS_ADDR": addr})
	cfg := DefaultConfig()
	cfg.Telemetry.MetricsAddr = addr
	stop, err := serveMetricsAddr(t.Context(), cfg, ts.srv, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ts.child(t, "doris_query", "execute_query", map[string]any{"sql": "SELECT 1"}, nil)
	e := scrape(t, "http://"+addr+"/metrics", "")
	if got := e.get("doris_mcp_tool_calls_total", "child", "doris_query.execute_query", "outcome", "OK"); got != 1 {
		t.Errorf("METRICS_ADDR counts %v calls, want 1", got)
	}
	for path, want := range map[string]int{"/metrics": 403, "/mcp": 404, "/": 404} {
		r, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		if path == "/metrics" {
			r.Host = "evil.example"
		}
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s on METRICS_ADDR: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestLogLinesNameTheTrace: a line logged with a call's context carries
// its trace id, once, whether or not the line named it itself.
func TestLogLinesNameTheTrace(t *testing.T) {
	var buf lockedBuffer
	log, sink := newLogger(&buf, slog.LevelInfo)
	tr := doris.NewTrace(doris.Trace{}, false)
	ctx := doris.WithTrace(t.Context(), tr)
	log.WarnContext(ctx, "a warning during a call")
	log.LogAttrs(ctx, slog.LevelInfo, "mcp request", slog.String("trace_id", tr.ID))
	log.Info("outside any call")
	sink.Close()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	for i, want := range []int{1, 1, 0} {
		if got := strings.Count(lines[i], `"trace_id":"`+tr.ID+`"`); got != want {
			t.Errorf("line %d names the trace %d times, want %d: %s", i, got, want, lines[i])
		}
	}
}
