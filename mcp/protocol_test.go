package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/handle"
	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

func TestDiscover(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	// clientInfo is optional.
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	r := h.post(t, "/mcp", modernHeaders("server/discover", ""), body, wiretest.Rev20260728, "server/discover")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	res := r.msg["result"].(map[string]any)
	if res["resultType"] != "complete" || res["cacheScope"] != "public" || res["ttlMs"].(float64) <= 0 {
		t.Errorf("cache hints / resultType: %v", res)
	}
	info := res["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
	if info["name"] != "doris-mcp-server" {
		t.Errorf("serverInfo %v", info)
	}
	caps := res["capabilities"].(map[string]any)
	for _, c := range []string{"tools", "resources", "prompts", "completions"} {
		if _, ok := caps[c]; !ok {
			t.Errorf("capability %s not declared", c)
		}
	}
	// Capabilities match handlers: every declared group answers.
	for _, m := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		r := h.call(t, m, "", "")
		if r.status != 200 {
			t.Errorf("%s: status %d", m, r.status)
		}
		res := r.msg["result"].(map[string]any)
		if res["cacheScope"] != "private" || res["ttlMs"] != float64(0) || res["resultType"] != "complete" {
			t.Errorf("%s cache hints: %v", m, res)
		}
	}
}

// TestToolsListPaging walks every page with signed cursors and checks that
// cursors are bound to their collection.
func TestToolsListPaging(t *testing.T) {
	e := newEnv(t, 4, 7) // 10 tools, 4 per page
	h := newHTTP(t, e, false)
	var names []string
	cursor := ""
	pages := 0
	for {
		extra := ""
		if cursor != "" {
			extra = `"cursor":` + jsonString(cursor)
		}
		r := h.call(t, "tools/list", extra, "")
		if r.status != 200 {
			t.Fatalf("page %d: %d %s", pages, r.status, r.body)
		}
		res := r.msg["result"].(map[string]any)
		for _, tl := range res["tools"].([]any) {
			names = append(names, tl.(map[string]any)["name"].(string))
		}
		pages++
		next, ok := res["nextCursor"].(string)
		if !ok {
			break
		}
		cursor = next
		if pages > 10 {
			t.Fatal("paging does not end")
		}
	}
	if pages != 3 || len(names) != 10 || names[0] != "echo" || names[9] != "tool_06" {
		t.Fatalf("pages %d, names %v", pages, names)
	}
	// A tools cursor does not open prompts/list.
	first := h.call(t, "tools/list", "", "").msg["result"].(map[string]any)["nextCursor"].(string)
	r := h.call(t, "prompts/list", `"cursor":`+jsonString(first), "")
	if r.status != 400 || errorCode(t, r.msg) != -32602 {
		t.Fatalf("cross-collection cursor: %d %s", r.status, r.body)
	}
	data := r.msg["error"].(map[string]any)["data"].(map[string]any)
	if data["cursorError"] != "wrong_scope" {
		t.Fatalf("cursorError %v, want wrong_scope", data["cursorError"])
	}
	// Flipping a byte of the MAC invalidates it.
	b := []byte(first)
	b[len(b)-3] ^= 1
	if r := h.call(t, "tools/list", `"cursor":`+jsonString(string(b)), ""); errorCode(t, r.msg) != -32602 {
		t.Fatalf("tampered cursor accepted: %s", r.body)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestProgressOverSSE: a call with a progressToken is answered on a
// request-scoped event stream carrying increasing progress, then the
// result.
func TestProgressOverSSE(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	body := strings.Replace(req(5, "tools/call", `"name":"progress","arguments":{}`), `"io.modelcontextprotocol/clientInfo"`, `"progressToken":"tok-1","io.modelcontextprotocol/clientInfo"`, 1)
	r, _ := http.NewRequest(http.MethodPost, h.ts.URL+"/mcp", strings.NewReader(body))
	for k, v := range modernHeaders("tools/call", "progress") {
		r.Header.Set(k, v)
	}
	resp, err := h.ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		if err := h.wire.Check(wiretest.Rev20260728, "tools/call", []byte(data)); err != nil {
			t.Error(err)
		}
		events = append(events, m)
	}
	if len(events) != 4 {
		t.Fatalf("%d events, want 3 progress + 1 result: %v", len(events), events)
	}
	last := 0.0
	for _, ev := range events[:3] {
		p := ev["params"].(map[string]any)
		if ev["method"] != "notifications/progress" || p["progressToken"] != "tok-1" || p["progress"].(float64) <= last {
			t.Fatalf("bad progress event %v", ev)
		}
		last = p["progress"].(float64)
	}
	if events[3]["id"] != float64(5) || events[3]["result"] == nil {
		t.Fatalf("final event %v", events[3])
	}
}

// TestSSECloseCancels: closing the response stream cancels the request.
func TestSSECloseCancels(t *testing.T) {
	e := newEnv(t, 100, 0)
	h := newHTTP(t, e, false)
	body := strings.Replace(req(6, "tools/call", `"name":"slow","arguments":{}`), `"io.modelcontextprotocol/clientInfo"`, `"progressToken":7,"io.modelcontextprotocol/clientInfo"`, 1)
	ctx, cancel := context.WithCancel(context.Background())
	r, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.ts.URL+"/mcp", strings.NewReader(body))
	for k, v := range modernHeaders("tools/call", "slow") {
		r.Header.Set(k, v)
	}
	resp, err := h.ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-e.be.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("closing the stream did not cancel the tool call")
	}
}

// TestStdioCancel: notifications/cancelled stops the request, and no
// response is ever written for it.
func TestStdioCancel(t *testing.T) {
	e := newEnv(t, 100, 0)
	s := newStdio(t, e)
	// Lines are dispatched in order and a request is registered before the
	// next line is read, so the cancellation always finds it.
	s.send(t, req("slow-1", "tools/call", `"name":"slow","arguments":{}`))
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}}`)
	select {
	case <-e.be.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled did not cancel the call")
	}
	s.send(t, req("after", "tools/list", ""))
	m := s.recv(t, wiretest.Rev20260728, "tools/list")
	if m["id"] != "after" {
		t.Fatalf("first message after the cancel is %v; the cancelled request must get no response", m)
	}
}

// TestStdioProgress: progress notifications precede the response on stdio.
func TestStdioProgress(t *testing.T) {
	s := newStdio(t, newEnv(t, 100, 0))
	s.send(t, strings.Replace(req(9, "tools/call", `"name":"progress","arguments":{}`), `"io.modelcontextprotocol/clientInfo"`, `"progressToken":"p","io.modelcontextprotocol/clientInfo"`, 1))
	for i := 1; i <= 3; i++ {
		m := s.recv(t, wiretest.Rev20260728, "tools/call")
		if m["method"] != "notifications/progress" {
			t.Fatalf("message %d: %v", i, m)
		}
	}
	if m := s.recv(t, wiretest.Rev20260728, "tools/call"); m["id"] != float64(9) {
		t.Fatalf("final message %v", m)
	}
}

// TestStdioEOFDrains: requests already running when stdin closes still
// answer; then ServeStdio returns.
func TestStdioEOFDrains(t *testing.T) {
	e := newEnv(t, 100, 0)
	s := newStdio(t, e)
	s.send(t, strings.Replace(req(10, "tools/call", `"name":"progress","arguments":{"hold":true}`), `"io.modelcontextprotocol/clientInfo"`, `"progressToken":"p","io.modelcontextprotocol/clientInfo"`, 1))
	// The first progress report: the call runs, held, until the server
	// has seen the EOF.
	if m := s.recv(t, wiretest.Rev20260728, "tools/call"); m["method"] != "notifications/progress" {
		t.Fatalf("first message %v", m)
	}
	s.in.Close()
	eventually(t, "draining after EOF", e.srv.Draining)
	close(e.be.release)
	for i := 0; i < 2; i++ {
		s.recv(t, wiretest.Rev20260728, "tools/call")
	}
	if m := s.recv(t, wiretest.Rev20260728, "tools/call"); m["id"] != float64(10) {
		t.Fatalf("final message %v", m)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatal(err)
		}
		s.done <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not return after EOF")
	}
}

// TestStdioDualEra: a legacy client's initialize sequence works on stdio,
// and modern requests keep working beside it.
func TestStdioDualEra(t *testing.T) {
	s := newStdio(t, newEnv(t, 100, 0))
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
	m := s.recv(t, wiretest.Rev20250618, "initialize")
	res := m["result"].(map[string]any)
	if res["protocolVersion"] != "2025-06-18" || res["serverInfo"].(map[string]any)["name"] != "doris-mcp-server" {
		t.Fatalf("initialize result %v", res)
	}
	if _, modern := res["resultType"]; modern {
		t.Error("a legacy result carries resultType")
	}
	// A ping sent without waiting for the initialize result already
	// belongs to the legacy era.
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
	s.send(t, `{"jsonrpc":"2.0","id":"early","method":"ping"}`)
	s.recv(t, wiretest.Rev20250618, "initialize")
	if m := s.recv(t, wiretest.Rev20250618, "ping"); m["id"] != "early" || m["result"] == nil {
		t.Fatalf("ping right after initialize: %v", m)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	m = s.recv(t, wiretest.Rev20250618, "tools/list")
	if len(m["result"].(map[string]any)["tools"].([]any)) != 3 {
		t.Fatalf("legacy tools/list %v", m)
	}
	s.send(t, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	s.recv(t, wiretest.Rev20250618, "ping")
	s.send(t, req(3, "server/discover", ""))
	if m := s.recv(t, wiretest.Rev20260728, "server/discover"); m["result"] == nil {
		t.Fatalf("modern discover after legacy initialize: %v", m)
	}
}

// handshakeSequence runs what a handshake-era client does on path
// (initialize, initialized, the list methods, logging, subscriptions and
// tool calls), checking every reply against the 2025-11-25 wire schema,
// and returns the headers it ended with.
func handshakeSequence(t *testing.T, h *httpEnv, path string) map[string]string {
	t.Helper()
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	r := h.post(t, path, hdr, init, wiretest.Rev20251125, "initialize")
	if r.status != 200 || r.header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %v %s", r.status, r.header, r.body)
	}
	caps := r.msg["result"].(map[string]any)["capabilities"].(map[string]any)
	if _, ok := caps["logging"]; !ok {
		t.Error("legacy initialize does not declare logging")
	}
	hdr["MCP-Protocol-Version"] = "2025-11-25"
	hdr["Mcp-Session-Id"] = r.header.Get("Mcp-Session-Id")
	if r := h.post(t, path, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, wiretest.Rev20251125, ""); r.status != 202 {
		t.Fatalf("initialized: %d", r.status)
	}
	for _, m := range []string{"ping", "tools/list", "resources/list", "prompts/list", "resources/templates/list"} {
		r := h.post(t, path, hdr, `{"jsonrpc":"2.0","id":1,"method":"`+m+`"}`, wiretest.Rev20251125, m)
		if r.status != 200 || r.msg["result"] == nil {
			t.Fatalf("%s: %d %s", m, r.status, r.body)
		}
	}
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"doris://table/internal/demo/orders"}}`,
	} {
		var m struct{ Method string }
		json.Unmarshal([]byte(body), &m)
		if r := h.post(t, path, hdr, body, wiretest.Rev20251125, m.Method); r.msg["result"] == nil {
			t.Fatalf("%s: %s", m.Method, r.body)
		}
	}
	r = h.post(t, path, hdr, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`, wiretest.Rev20251125, "tools/call")
	if r.status != 200 || r.msg["result"].(map[string]any)["structuredContent"] == nil {
		t.Fatalf("tools/call: %s", r.body)
	}
	// Unknown tool: a JSON-RPC error in a 200 response, as legacy SDKs expect.
	r = h.post(t, path, hdr, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}}`, wiretest.Rev20251125, "tools/call")
	if r.status != 200 || errorCode(t, r.msg) != -32602 {
		t.Fatalf("unknown tool: %d %s", r.status, r.body)
	}
	return hdr
}

// TestMCPServesBothEras: /mcp serves today's Hosts, which open with a
// handshake-era initialize, as /mcp/legacy does, and 2026-07-28 requests
// statelessly, chosen per request; with ModernOnly a handshake-era
// request is told which setting and endpoint serve it.
func TestMCPServesBothEras(t *testing.T) {
	h := newHTTP(t, newEnv(t, 2, 3), false)
	handshakeSequence(t, h, "/mcp")
	if r := h.call(t, "tools/list", "", ""); r.status != 200 || r.msg["result"] == nil {
		t.Fatalf("modern tools/list beside the handshake era: %d %s", r.status, r.body)
	}
	// The conformance suite's handshake-era initialize also carries an
	// Mcp-Method header: the version header decides, not that.
	hs := map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "initialize"}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	if r := h.post(t, "/mcp", hs, init, wiretest.Rev20251125, "initialize"); r.status != 200 || r.msg["result"] == nil {
		t.Fatalf("handshake-era initialize with an Mcp-Method header: %d %s", r.status, r.body)
	}
	// A modern initialize is a removed method, as conformance requires.
	r := h.post(t, "/mcp", modernHeaders("initialize", ""), req(9, "initialize", ""), wiretest.Rev20260728, "initialize")
	if r.status != 404 || errorCode(t, r.msg) != -32601 {
		t.Fatalf("modern initialize: %d %s", r.status, r.body)
	}

	m := newHTTPWith(t, newEnv(t, 2, 3), mcp.HTTPOptions{ModernOnly: true})
	r = m.post(t, "/mcp", map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}, init, wiretest.Rev20260728, "initialize")
	msg, _ := r.msg["error"].(map[string]any)["message"].(string)
	if r.status != 400 || errorCode(t, r.msg) != -32022 || !strings.Contains(msg, "MCP_MODERN_ONLY") || !strings.Contains(msg, "/mcp/legacy") {
		t.Fatalf("handshake-era initialize on a modern-only /mcp: %d %s", r.status, r.body)
	}
	if r := m.call(t, "tools/list", "", ""); r.status != 200 || r.msg["result"] == nil {
		t.Fatalf("modern tools/list on a modern-only /mcp: %d %s", r.status, r.body)
	}
}

// TestLegacyHTTP drives /mcp/legacy as handshake-era clients do.
func TestLegacyHTTP(t *testing.T) {
	h := newHTTP(t, newEnv(t, 2, 3), true)
	hdr := handshakeSequence(t, h, "/mcp/legacy")
	// A modern version header belongs on /mcp.
	hdr["MCP-Protocol-Version"] = "2026-07-28"
	r := h.post(t, "/mcp/legacy", hdr, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`, wiretest.Rev20251125, "tools/list")
	if r.status != 400 || r.msg["error"] != "legacy_adapter_only" {
		t.Fatalf("modern header on legacy endpoint: %d %s", r.status, r.body)
	}
	// GET (no standalone stream) and DELETE (no sessions) are 405.
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(m, h.ts.URL+"/mcp/legacy", nil)
		resp, err := h.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 {
			t.Errorf("%s /mcp/legacy: %d", m, resp.StatusCode)
		}
	}
}

func TestHealthEndpoints(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	for path, want := range map[string]int{"/live": 200, "/ready": 200, "/health": 200, "/nope": 404} {
		resp, err := h.ts.Client().Get(h.ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestCursorAfterRestart: a tools/list cursor issued before the server
// restarted (another secret) says so, as ADR 0002 promises, instead of
// calling it a cursor this server never issued.
func TestCursorAfterRestart(t *testing.T) {
	old := newHTTP(t, newEnv(t, 4, 7), false)
	first := old.call(t, "tools/list", "", "").msg["result"].(map[string]any)["nextCursor"].(string)
	signer, err := handle.New([]byte("another-secret-after-the-restart-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	h := newHTTP(t, newEnvWith(t, 4, 7, mcp.Options{Handles: signer}), false)
	r := h.call(t, "tools/list", `"cursor":`+jsonString(first), "")
	if r.status != 400 || errorCode(t, r.msg) != -32602 {
		t.Fatalf("old cursor: %d %s", r.status, r.body)
	}
	msg, _ := r.msg["error"].(map[string]any)["message"].(string)
	if !strings.Contains(msg, "the server restarted or its secret changed: start the list again") {
		t.Fatalf("old cursor message %q", msg)
	}
}

// reasoned is an error with a reason code, as doris.Error is.
type reasoned struct{ code string }

func (r reasoned) Error() string      { return "backend said: secret-backend-text" }
func (r reasoned) ReasonCode() string { return r.code }

// TestReadyReason: a failed readiness check gives its reason code in the
// body of GET /ready, and never the error's text.
func TestReadyReason(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{reasoned{"DORIS_AUTHENTICATION_FAILED"}, "DORIS_AUTHENTICATION_FAILED"},
		{reasoned{"DORIS_CONNECTION_FAILED"}, "DORIS_CONNECTION_FAILED"},
		{errors.New("secret-backend-text"), "DORIS_UNAVAILABLE"},
	} {
		err := tc.err
		h := newHTTPWith(t, newEnv(t, 100, 0), mcp.HTTPOptions{Ready: func(context.Context) error { return err }})
		resp, gerr := h.ts.Client().Get(h.ts.URL + "/ready")
		if gerr != nil {
			t.Fatal(gerr)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 503 || !strings.Contains(string(body), `"reason":"`+tc.want+`"`) || strings.Contains(string(body), "secret-backend-text") {
			t.Errorf("%v: %d %s, want 503 with reason %s", tc.err, resp.StatusCode, body, tc.want)
		}
	}
}
