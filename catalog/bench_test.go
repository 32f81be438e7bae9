package catalog_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// The benchmarks below measure the protocol and catalog cost of a request
// over real loopback HTTP (a TCP connection, net/http on both ends), with a
// fake Doris runtime so that Doris itself is not measured.

const benchMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func benchServer(b *testing.B, mode string) *httptest.Server {
	b.Helper()
	s := newSurface(b, catalog.Config{Mode: mode}, newFakeRuntime())
	srv, err := mcp.NewServer(s, mcp.Options{Name: "doris-mcp-server", Version: "bench", PageSize: 100, Handles: testSigner(b)})
	if err != nil {
		b.Fatal(err)
	}
	policy, _ := auth.NewHostPolicy("127.0.0.1", nil, nil)
	ts := httptest.NewServer(srv.Handler(mcp.HTTPOptions{Policy: policy}))
	b.Cleanup(ts.Close)
	return ts
}

func benchPost(b *testing.B, ts *httptest.Server, method, name, body string) {
	b.Helper()
	client := ts.Client()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", method)
		if name != "" {
			r.Header.Set("Mcp-Name", name)
		}
		resp, err := client.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n == 0 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

func BenchmarkHTTPDiscover(b *testing.B) {
	benchPost(b, benchServer(b, catalog.Hierarchical), "server/discover", "",
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+benchMeta+`}}`)
}

func BenchmarkHTTPToolsListHierarchical(b *testing.B) {
	benchPost(b, benchServer(b, catalog.Hierarchical), "tools/list", "",
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+benchMeta+`}}`)
}

func BenchmarkHTTPToolsListFlat(b *testing.B) {
	benchPost(b, benchServer(b, catalog.Flat), "tools/list", "",
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+benchMeta+`}}`)
}

func BenchmarkHTTPDomainDiscovery(b *testing.B) {
	benchPost(b, benchServer(b, catalog.Hierarchical), "tools/call", "doris_cluster",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+benchMeta+`,"name":"doris_cluster","arguments":{}}}`)
}

func BenchmarkHTTPRejectedDispatch(b *testing.B) {
	benchPost(b, benchServer(b, catalog.Hierarchical), "tools/call", "doris_query",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+benchMeta+`,"name":"doris_query","arguments":{"child_tool":"execute_query","arguments":{"sql":"SELECT 1","max_rows":0}}}}`)
}

func BenchmarkHTTPChildCall(b *testing.B) {
	benchPost(b, benchServer(b, catalog.Hierarchical), "tools/call", "doris_query",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+benchMeta+`,"name":"doris_query","arguments":{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"}}}}`)
}
