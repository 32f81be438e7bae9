package mcp_test

import (
	"testing"
	"time"
)

// A tools/call without an id is a notification: it is never run (it has
// no one to answer and skips the checks a request must pass), over HTTP
// it is acknowledged at once, and over stdio it never blocks the session.
const toolsCallNotification = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"slow","arguments":{}}}`

func TestRequestWithoutIDNeverRunsHTTP(t *testing.T) {
	e := newEnv(t, 10, 0)
	h := newHTTP(t, e, false)
	h.ts.Client().Timeout = 5 * time.Second // a notification that runs never answers
	rep := h.post(t, "/mcp", modernHeaders("tools/call", "slow"), toolsCallNotification, "", "")
	if rep.status != 202 {
		t.Fatalf("status %d, want 202: %s", rep.status, rep.body)
	}
	if n := e.be.calls.Load(); n != 0 {
		t.Fatalf("the backend ran %d tools/call notifications", n)
	}
}

func TestRequestWithoutIDNeverRunsStdio(t *testing.T) {
	e := newEnv(t, 10, 0)
	s := newStdio(t, e)
	s.send(t, toolsCallNotification)
	s.send(t, req(2, "tools/list", ""))
	m := s.recv(t, "2026-07-28", "tools/list")
	if m["id"] != float64(2) {
		t.Fatalf("first answer %v, want the tools/list response", m)
	}
	if n := e.be.calls.Load(); n != 0 {
		t.Fatalf("the backend ran %d tools/call notifications", n)
	}
}
