package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

// shuttingDown reports whether m is the retryable SERVER_SHUTTING_DOWN
// error.
func shuttingDown(m map[string]any) bool {
	e, _ := m["error"].(map[string]any)
	d, _ := e["data"].(map[string]any)
	return e != nil && d["reason"] == "SERVER_SHUTTING_DOWN" && d["retryable"] == true
}

// TestHTTPDrainAndAbort: after Drain new requests are refused with 503
// and Retry-After, /ready takes the instance out of rotation, and the call
// already running goes on; Abort stops it, and it is answered 503 with
// SERVER_SHUTTING_DOWN, never as the client's mistake.
func TestHTTPDrainAndAbort(t *testing.T) {
	e := newEnv(t, 10, 0)
	h := newHTTP(t, e, false)
	running := make(chan reply, 1)
	go func() { running <- h.call(t, "tools/call", `"name":"slow","arguments":{}`, "slow") }()
	e.be.waitEntered(t)

	e.srv.Drain()
	refused := h.call(t, "tools/list", "", "")
	if refused.status != http.StatusServiceUnavailable || refused.header.Get("Retry-After") == "" || !shuttingDown(refused.msg) {
		t.Fatalf("a request while draining: %d %q %s", refused.status, refused.header.Get("Retry-After"), refused.body)
	}
	resp, err := h.ts.Client().Get(h.ts.URL + "/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/ready while draining: %d", resp.StatusCode)
	}
	select {
	case r := <-running:
		t.Fatalf("the running call was cut off by Drain: %d %s", r.status, r.body)
	case <-time.After(100 * time.Millisecond):
	}

	e.srv.Abort()
	r := <-running
	if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || !shuttingDown(r.msg) {
		t.Fatalf("the aborted call: %d %s", r.status, r.body)
	}
	<-e.be.cancelled
}

// TestHTTPInternalErrorIs500: a failure of the server is a 5xx, not a
// 400 that blames the client.
func TestHTTPInternalErrorIs500(t *testing.T) {
	e := newEnv(t, 10, 0)
	h := newHTTP(t, e, false)
	r := h.call(t, "tools/call", `"name":"broken","arguments":{}`, "broken")
	if r.status != http.StatusInternalServerError || errorCode(t, r.msg) != -32603 {
		t.Fatalf("internal error: %d %s", r.status, r.body)
	}
}

// TestStdioEOFAbortsAfterGrace: at EOF the calls in flight get the grace
// period; one still running after it is aborted and answered with
// SERVER_SHUTTING_DOWN (the client may still be reading stdout), and
// ServeStdio returns.
func TestStdioEOFAbortsAfterGrace(t *testing.T) {
	e := newEnvWith(t, 10, 0, mcp.Options{ShutdownGrace: 200 * time.Millisecond})
	s := newStdio(t, e)
	s.send(t, req(7, "tools/call", `"name":"slow","arguments":{}`))
	e.be.waitEntered(t)
	s.in.Close()
	m := s.recv(t, wiretest.Rev20260728, "tools/call")
	if m["id"] != float64(7) || !shuttingDown(m) {
		b, _ := json.Marshal(m)
		t.Fatalf("aborted call's answer: %s", b)
	}
	if msg := m["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "shutting down") {
		t.Fatalf("message %q", msg)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatal(err)
		}
		s.done <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after the abort")
	}
}
