package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/handle"
	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/metrics"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

// lines is an AuditSink that keeps what it is given.
type lines struct {
	mu  sync.Mutex
	got [][]byte
}

func (l *lines) Write(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, append([]byte(nil), b...))
}

func (l *lines) Close() error { return nil }

func (l *lines) all() [][]byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([][]byte(nil), l.got...)
}

// newTelemetryEnv is newEnv with telemetry: a registry and an audit sink.
func newTelemetryEnv(t *testing.T) (*env, *metrics.Registry, *lines) {
	t.Helper()
	signer, err := handle.New([]byte("mcp-test-secret-0123456789-abcdef-XYZ"))
	if err != nil {
		t.Fatal(err)
	}
	reg, sink := metrics.NewRegistry(), &lines{}
	logs := &syncBuffer{}
	be := newFakeBackend(0)
	srv, err := mcp.NewServer(be, mcp.Options{Name: "doris-mcp-server", Version: "test", PageSize: 10, Handles: signer,
		Logger:    slog.New(slog.NewJSONHandler(logs, nil)),
		Telemetry: mcp.NewTelemetry(mcp.TelemetryOptions{Registry: reg, Audit: sink})})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wiretest.Load()
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, be: be, logs: logs, wire: w}, reg, sink
}

// TestTelemetryFoldsHostileMethods: methods a client made up are counted
// under "other", whatever their text; the label set stays the server's.
func TestTelemetryFoldsHostileMethods(t *testing.T) {
	e, reg, sink := newTelemetryEnv(t)
	s := newStdio(t, e)
	hostile := []string{"evil/method", "tools/call\"} 1\n# HELP x", strings.Repeat("m", 10000), "notifications/../../etc"}
	for i, m := range hostile {
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, i+1, m, metaJSON))
		if got := s.recv(t, wiretest.Rev20260728, ""); errorCode(t, got) != mcp.CodeMethodNotFound {
			t.Fatalf("%q: %v", m, got)
		}
	}
	s.send(t, req(99, "tools/list", ""))
	s.recv(t, wiretest.Rev20260728, "tools/list")
	var out bytes.Buffer
	reg.WriteTo(&out)
	page := out.String()
	for _, want := range []string{
		`doris_mcp_requests_total{method="other",code="-32601"} 4`,
		`doris_mcp_requests_total{method="tools/list",code="ok"} 1`,
		`doris_mcp_request_duration_seconds_count{method="other"} 4`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the exposition lacks %s:\n%s", want, page)
		}
	}
	for _, m := range regexp.MustCompile(`method="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if slices.Contains(hostile, m[1]) || !strings.Contains(m[1], "/") && m[1] != metrics.Other && m[1] != "ping" {
			t.Errorf("method label %q is not one of the server's methods", m[1])
		}
	}
	if strings.Contains(page, "# HELP x") {
		t.Errorf("a method's text was written into the exposition:\n%s", page)
	}
	got := sink.all()
	if len(got) != len(hostile)+1 {
		t.Fatalf("%d audit lines for %d requests", len(got), len(hostile)+1)
	}
	var l struct {
		Transport, Method, Outcome, Code string
		RPCError                         int `json:"rpc_error"`
	}
	json.Unmarshal(got[0], &l)
	if l.Transport != "stdio" || l.Method != "evil/method" || l.Outcome != "error" || l.Code != "JSONRPC_-32601" || l.RPCError != mcp.CodeMethodNotFound {
		t.Errorf("audit line %s", got[0])
	}
	json.Unmarshal(got[2], &l)
	if len(l.Method) != 128 {
		t.Errorf("a 10000-byte method is %d bytes in the audit line", len(l.Method))
	}
}

// TestTelemetryTraceparent: the traceparent of _meta names the request in
// the log line and the audit line, with a span of the server's own; a
// request without one gets a fresh trace.
func TestTelemetryTraceparent(t *testing.T) {
	e, _, sink := newTelemetryEnv(t)
	h := newHTTP(t, e, false)
	const tid = "0af7651916cd43dd8448eb211c80319c"
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"traceparent":"00-` + tid + `-b7ad6b7169203331-01","tracestate":"congo=t61rcWkgMzE"}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"echo","arguments":{}}}`
	if r := h.post(t, "/mcp", modernHeaders("tools/call", "echo"), body, wiretest.Rev20260728, "tools/call"); r.status != 200 {
		t.Fatalf("tools/call: %d %s", r.status, r.body)
	}
	h.call(t, "tools/list", "", "")
	got := sink.all()
	if len(got) != 2 {
		t.Fatalf("%d audit lines", len(got))
	}
	var first, second struct {
		TraceID   string `json:"trace_id"`
		Transport string `json:"transport"`
	}
	json.Unmarshal(got[0], &first)
	json.Unmarshal(got[1], &second)
	if first.TraceID != tid || first.Transport != "http" {
		t.Errorf("audit line %s", got[0])
	}
	if len(second.TraceID) != 32 || second.TraceID == tid {
		t.Errorf("a request without traceparent: trace %q", second.TraceID)
	}
	if !strings.Contains(e.logs.String(), `"trace_id":"`+tid+`"`) {
		t.Errorf("the request log line lacks the trace:\n%s", e.logs.String())
	}
}
