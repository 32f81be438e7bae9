package mcp_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

// deep returns a params member nested n arrays deep.
func deep(n int) string {
	return `"x":` + strings.Repeat("[", n) + strings.Repeat("]", n)
}

// TestHTTPBadInput sends every kind of bad input to POST /mcp. Each gets
// its documented status and JSON-RPC error (echoing the id whenever the
// body had a readable one), and the server keeps serving.
func TestHTTPBadInput(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	listHeaders := modernHeaders("tools/list", "")
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	callHeaders := modernHeaders("tools/call", "echo")
	echo := req(7, "tools/call", `"name":"echo","arguments":{"token":"`+secretMarker+`"}`)
	tests := []struct {
		name    string
		method  string // for the wire schema of the reply
		headers map[string]string
		body    string
		status  int
		code    int  // 0: no JSON-RPC error expected
		echoID  bool // the error must carry id 7
	}{
		{"malformed JSON", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":`, 400, -32700, false},
		{"trailing garbage", "tools/list", listHeaders, req(7, "tools/list", "") + "x", 400, -32700, false},
		{"wrong jsonrpc", "tools/list", listHeaders, `{"jsonrpc":"1.0","id":7,"method":"tools/list","params":{` + metaJSON + `}}`, 400, -32600, true},
		{"missing jsonrpc", "tools/list", listHeaders, `{"id":7,"method":"tools/list","params":{` + metaJSON + `}}`, 400, -32600, true},
		{"missing method", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"params":{` + metaJSON + `}}`, 400, -32600, true},
		{"non-string method", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":42,"params":{` + metaJSON + `}}`, 400, -32600, true},
		{"duplicate id key", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/list","params":{` + metaJSON + `}}`, 400, -32600, false},
		{"duplicate key after unescaping", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list","\u006dethod":"x","params":{` + metaJSON + `}}`, 400, -32600, false},
		{"case-variant envelope key", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"Method":"tools/list","method":"tools/list","params":{` + metaJSON + `}}`, 400, -32600, true},
		{"case-variant params key", "tools/call", callHeaders, req(7, "tools/call", `"name":"echo","Name":"slow"`), 400, -32602, true},
		{"case-variant _meta key", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + metaJSON + `,"_META":{}}}`, 400, -32602, true},
		{"invalid UTF-8", "tools/list", listHeaders, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{" + metaJSON + ",\"x\":\"\xff\xfe\"}}", 400, -32700, false},
		{"lone surrogate", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + metaJSON + `,"x":"\ud800"}}`, 400, -32700, false},
		{"too deep", "tools/list", listHeaders, req(7, "tools/list", deep(80)), 400, -32600, false},
		{"oversized body", "tools/list", listHeaders, req(7, "tools/list", `"x":"`+strings.Repeat("a", 5<<20)+`"`), 413, -32600, false},
		{"batch", "tools/list", listHeaders, "[" + req(7, "tools/list", "") + "]", 400, -32600, false},
		{"null id", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":null,"method":"tools/list","params":{` + metaJSON + `}}`, 400, -32600, false},
		{"a response from the client", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"result":{}}`, 400, -32600, true},
		{"params is an array", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[]}`, 400, -32602, true},
		{"wrong content type", "tools/list", with(listHeaders, "Content-Type", "text/plain"), req(7, "tools/list", ""), 415, -32600, true},
		{"no content type", "tools/list", with(listHeaders, "Content-Type", ""), req(7, "tools/list", ""), 415, -32600, true},
		{"accept without event-stream", "tools/list", with(listHeaders, "Accept", "application/json"), req(7, "tools/list", ""), 406, -32600, true},
		{"missing MCP-Protocol-Version", "tools/list", with(listHeaders, "MCP-Protocol-Version", ""), req(7, "tools/list", ""), 400, -32020, true},
		{"mismatched MCP-Protocol-Version", "tools/list", with(listHeaders, "MCP-Protocol-Version", "2025-11-25"), req(7, "tools/list", ""), 400, -32020, true},
		{"missing Mcp-Method", "tools/list", with(listHeaders, "Mcp-Method", ""), req(7, "tools/list", ""), 400, -32020, true},
		{"mismatched Mcp-Method", "tools/list", with(listHeaders, "Mcp-Method", "prompts/list"), req(7, "tools/list", ""), 400, -32020, true},
		{"Mcp-Method values are case-sensitive", "tools/list", with(listHeaders, "Mcp-Method", "TOOLS/LIST"), req(7, "tools/list", ""), 400, -32020, true},
		{"Mcp-Method with a control character", "tools/list", with(listHeaders, "Mcp-Method", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("tools/list\x01"))+"?="), req(7, "tools/list", ""), 400, -32020, true},
		{"missing Mcp-Name", "tools/call", with(callHeaders, "Mcp-Name", ""), echo, 400, -32020, true},
		{"mismatched Mcp-Name", "tools/call", with(callHeaders, "Mcp-Name", "slow"), echo, 400, -32020, true},
		{"Mcp-Name with bad base64", "tools/call", with(callHeaders, "Mcp-Name", "=?base64?ZWNobw?="), echo, 400, -32020, true},
		{"Mcp-Name base64 of another name", "tools/call", with(callHeaders, "Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("slow"))+"?="), echo, 400, -32020, true},
		{"unsupported version", "tools/list", with(listHeaders, "MCP-Protocol-Version", "v999.0.0"),
			strings.Replace(req(7, "tools/list", ""), "2026-07-28", "v999.0.0", 1), 400, -32022, true},
		{"missing _meta", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`, 400, -32602, true},
		{"missing params", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, 400, -32602, true},
		{"missing protocolVersion", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, 400, -32602, true},
		{"missing clientCapabilities", "tools/list", listHeaders, `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, 400, -32602, true},
		{"removed initialize", "initialize", modernHeaders("initialize", ""), req(7, "initialize", `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}`), 404, -32601, true},
		{"removed ping", "ping", modernHeaders("ping", ""), req(7, "ping", ""), 404, -32601, true},
		{"removed logging/setLevel", "logging/setLevel", modernHeaders("logging/setLevel", ""), req(7, "logging/setLevel", `"level":"info"`), 404, -32601, true},
		{"removed resources/subscribe", "resources/subscribe", modernHeaders("resources/subscribe", ""), req(7, "resources/subscribe", `"uri":"doris://x"`), 404, -32601, true},
		{"unknown method", "unknown/method", modernHeaders("unknown/method", ""), req(7, "unknown/method", ""), 404, -32601, true},
		{"unknown tool", "tools/call", modernHeaders("tools/call", "nope"), req(7, "tools/call", `"name":"nope"`), 400, -32602, true},
		{"tool name not a string", "tools/call", modernHeaders("tools/call", "1"), req(7, "tools/call", `"name":1`), 400, -32602, true},
		{"arguments not an object", "tools/call", callHeaders, req(7, "tools/call", `"name":"echo","arguments":[1]`), 400, -32602, true},
		{"tampered cursor", "tools/list", listHeaders, req(7, "tools/list", `"cursor":"mcp-h1.eyJ2IjoxfQ.AAAA"`), 400, -32602, true},
		{"cursor of another kind", "tools/list", listHeaders, req(7, "tools/list", `"cursor":42`), 400, -32602, true},
		{"unknown prompt", "prompts/get", modernHeaders("prompts/get", "nope"), req(7, "prompts/get", `"name":"nope"`), 400, -32602, true},
		{"prompt missing a required argument", "prompts/get", modernHeaders("prompts/get", "sales_analysis"), req(7, "prompts/get", `"name":"sales_analysis"`), 400, -32602, true},
		{"unknown resource", "resources/read", modernHeaders("resources/read", "doris://nope"), req(7, "resources/read", `"uri":"doris://nope"`), 400, -32602, true},
		{"completion of an unknown ref", "completion/complete", modernHeaders("completion/complete", ""), req(7, "completion/complete", `"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}`), 400, -32602, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.post(t, "/mcp", tt.headers, tt.body, wiretest.Rev20260728, tt.method)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d; body %s", r.status, tt.status, r.body)
			}
			if tt.code == 0 {
				return
			}
			if got := errorCode(t, r.msg); got != tt.code {
				t.Fatalf("code %d, want %d; body %s", got, tt.code, r.body)
			}
			id, hasID := r.msg["id"]
			if tt.echoID && (!hasID || id != float64(7)) {
				t.Fatalf("error does not echo id 7: %s", r.body)
			}
			if !tt.echoID && hasID && id == nil {
				t.Fatalf("error carries a null id: %s", r.body)
			}
		})
	}
	// After all of that the server still serves.
	if r := h.call(t, "tools/list", "", ""); r.status != 200 || r.msg["result"] == nil {
		t.Fatalf("tools/list after bad input: %d %s", r.status, r.body)
	}
}

func TestUnsupportedVersionData(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	body := strings.Replace(req("abc", "tools/list", ""), "2026-07-28", "v999.0.0", 1)
	r := h.post(t, "/mcp", map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "v999.0.0", "Mcp-Method": "tools/list"}, body, wiretest.Rev20260728, "tools/list")
	data := r.msg["error"].(map[string]any)["data"].(map[string]any)
	if data["requested"] != "v999.0.0" || r.msg["id"] != "abc" {
		t.Fatalf("data %v, id %v", data, r.msg["id"])
	}
	if sup := data["supported"].([]any); len(sup) != 1 || sup[0] != "2026-07-28" {
		t.Fatalf("supported %v", sup)
	}
}

func TestHTTPMethodsAndOrigins(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	for _, m := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
		r, _ := http.NewRequest(m, h.ts.URL+"/mcp", nil)
		resp, err := h.ts.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s /mcp: status %d, want 405", m, resp.StatusCode)
		}
	}
	hdr := modernHeaders("tools/list", "")
	for _, tc := range []struct {
		name, host, origin string
		status             int
	}{
		{"evil host", "evil.example.com", "", 403},
		{"evil origin", "", "http://evil.example.com", 403},
		{"evil host and origin", "evil.example.com:80", "http://evil.example.com", 403},
		{"null origin", "", "null", 403},
		{"localhost origin", "", "http://localhost:5173", 200},
		{"no origin", "", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := map[string]string{}
			for k, v := range hdr {
				m[k] = v
			}
			if tc.host != "" {
				m["Host"] = tc.host
			}
			if tc.origin != "" {
				m["Origin"] = tc.origin
			}
			r := h.post(t, "/mcp", m, req(1, "tools/list", ""), wiretest.Rev20260728, "tools/list")
			if r.status != tc.status {
				t.Fatalf("status %d, want %d", r.status, tc.status)
			}
		})
	}
	r := h.post(t, "/mcp/legacy", modernHeaders("tools/list", ""), req(1, "tools/list", ""), wiretest.Rev20260728, "tools/list")
	if r.status != 404 || !strings.Contains(string(r.body), "ENABLE_LEGACY_HTTP_ADAPTER=true") {
		t.Fatalf("/mcp/legacy without ENABLE_LEGACY_HTTP_ADAPTER: status %d %s, want 404 naming the setting", r.status, r.body)
	}
}

func TestHTTPHeaderForms(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	body := req(3, "tools/call", `"name":"echo","arguments":{}`)
	for _, tc := range []struct{ name, value string }{
		{"plain", "echo"},
		{"padded with whitespace", "  echo\t"},
		{"base64 sentinel", "=?base64?" + base64.StdEncoding.EncodeToString([]byte("echo")) + "?="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.post(t, "/mcp", modernHeaders("tools/call", tc.value), body, wiretest.Rev20260728, "tools/call")
			if r.status != 200 || r.msg["result"] == nil {
				t.Fatalf("status %d body %s", r.status, r.body)
			}
		})
	}
	// Header names are case-insensitive.
	lower := map[string]string{"content-type": "application/json", "accept": "application/json, text/event-stream",
		"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}
	if r := h.post(t, "/mcp", lower, req(4, "tools/list", ""), wiretest.Rev20260728, "tools/list"); r.status != 200 {
		t.Fatalf("lower-case header names: status %d", r.status)
	}
}

func TestNotificationAccepted(t *testing.T) {
	h := newHTTP(t, newEnv(t, 100, 0), false)
	body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`
	r := h.post(t, "/mcp", modernHeaders("notifications/cancelled", ""), body, wiretest.Rev20260728, "")
	if r.status != http.StatusAccepted || len(r.body) != 0 {
		t.Fatalf("status %d body %q, want 202 and no body", r.status, r.body)
	}
}

// TestStdioBadInput covers the bad inputs that exist without HTTP headers.
func TestStdioBadInput(t *testing.T) {
	s := newStdio(t, newEnv(t, 100, 0))
	tests := []struct {
		name, line string
		code       int
		echoID     bool
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":7,`, -32700, false},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":7,"method":"tools/list","params":{` + metaJSON + `}}`, -32600, true},
		{"missing method", `{"jsonrpc":"2.0","id":7}`, -32600, true},
		{"non-string method", `{"jsonrpc":"2.0","id":7,"method":["x"]}`, -32600, true},
		{"duplicate keys", `{"jsonrpc":"2.0","id":7,"method":"tools/list","method":"tools/call","params":{` + metaJSON + `}}`, -32600, false},
		{"case-variant key", `{"jsonrpc":"2.0","id":7,"method":"tools/list","PARAMS":{},"params":{` + metaJSON + `}}`, -32600, true},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{" + metaJSON + ",\"x\":\"\xc3\x28\"}}", -32700, false},
		{"too deep", req(7, "tools/list", deep(80)), -32600, false},
		{"oversized line", req(7, "tools/list", `"x":"`+strings.Repeat("a", 5<<20)+`"`), -32600, false},
		{"unsupported version", strings.Replace(req(7, "tools/list", ""), "2026-07-28", "1999-01-01", 1), -32022, true},
		{"missing _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}`, -32602, true},
		{"removed ping", req(7, "ping", ""), -32601, true},
		{"unknown method", req(7, "unknown/method", ""), -32601, true},
		{"tampered cursor", req(7, "tools/list", `"cursor":"mcp-h1.x.y"`), -32602, true},
		{"unknown tool", req(7, "tools/call", `"name":"nope","arguments":{"k":"`+secretMarker+`"}`), -32602, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.send(t, tt.line)
			m := s.recv(t, wiretest.Rev20260728, "tools/list")
			if got := errorCode(t, m); got != tt.code {
				t.Fatalf("code %d, want %d: %v", got, tt.code, m)
			}
			if tt.echoID && m["id"] != float64(7) {
				t.Fatalf("error does not echo id 7: %v", m)
			}
		})
	}
	s.send(t, req("ok", "tools/list", ""))
	if m := s.recv(t, wiretest.Rev20260728, "tools/list"); m["result"] == nil || m["id"] != "ok" {
		t.Fatalf("tools/list after bad input: %v", m)
	}
}
