package mcp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// TestMissingClientCapability: a method that needs a client capability the
// request's _meta does not declare is refused with -32021, HTTP 400, and
// data.requiredCapabilities as a ClientCapabilities object. No shipped
// method needs one today, so the test registers its own.
func TestMissingClientCapability(t *testing.T) {
	signer, _ := handle.NewRandom()
	s, err := NewServer(nil, Options{Name: "t", Version: "t", PageSize: 10, Handles: signer, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.methods["test/needs-sampling"] = &method{eras: modernOnly, requires: []string{"sampling"},
		handler: func(*Server, *call) (any, *Error) { return &emptyResult{}, nil }}
	policy, _ := auth.NewHostPolicy("127.0.0.1", nil, nil)
	ts := httptest.NewServer(s.Handler(HTTPOptions{Policy: policy}))
	defer ts.Close()
	post := func(caps string) (int, map[string]any) {
		body := `{"jsonrpc":"2.0","id":1,"method":"test/needs-sampling","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
		r, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", "test/needs-sampling")
		resp, err := ts.Client().Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m map[string]any
		json.Unmarshal(b, &m)
		return resp.StatusCode, m
	}
	status, m := post(`{"elicitation":{}}`)
	e, _ := m["error"].(map[string]any)
	if status != 400 || e == nil || e["code"] != float64(CodeMissingClientCapability) {
		t.Fatalf("status %d body %v", status, m)
	}
	req := e["data"].(map[string]any)["requiredCapabilities"].(map[string]any)
	if _, ok := req["sampling"].(map[string]any); !ok || len(req) != 1 {
		t.Fatalf("requiredCapabilities %v, want {sampling:{}}", req)
	}
	if status, m := post(`{"sampling":{}}`); status != 200 || m["result"] == nil {
		t.Fatalf("with the capability declared: %d %v", status, m)
	}
}
