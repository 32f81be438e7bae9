package main

// BenchmarkHTTPExecuteQuery runs the whole server in process (the same
// wiring as the binary) over loopback HTTP in front of the simulator and a
// throwaway MariaDB:
//
//	go test -run '^$' -bench HTTPExecuteQuery -cpuprofile cpu.out .
//
// The profile mixes the server with the simulator and the client; read it
// with -focus on this module's packages. For the server's own CPU per
// call, use the load benchmark (go run ./doris/dorissim/loadtest).

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/mcp"
)

func BenchmarkHTTPExecuteQuery(b *testing.B) {
	in := mariadb.SharedFor(b)
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", Upstream: in.Addr(), Users: in.UserMap(),
		Logger: slog.New(slog.DiscardHandler), NoAuditLog: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	host, port, _ := net.SplitHostPort(s.Addr())
	cfg := DefaultConfig()
	cfg.Doris.Host = host
	cfg.Doris.Port, _ = strconv.Atoi(port)
	cfg.Doris.User, cfg.Doris.Password, cfg.Doris.Database = mariadb.ReaderUser, mariadb.ReaderPassword, mariadb.DemoDatabase
	cfg.Doris.FEHTTPPort = 0
	log, sink := newLogger(io.Discard, slog.LevelInfo)
	b.Cleanup(sink.Close)
	srv, rt, err := wire(cfg, log)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	policy, _ := auth.NewHostPolicy("127.0.0.1", nil, nil)
	ts := httptest.NewServer(srv.Handler(mcp.HTTPOptions{Policy: policy}))
	b.Cleanup(ts.Close)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"doris_query","arguments":{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"}}}}`)
	post := func() []byte {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "doris_query")
		resp, err := ts.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return out
	}
	if out := post(); !bytes.Contains(out, []byte(`\"mode\":\"result\"`)) {
		b.Fatalf("first call: %s", out)
	}
	b.ReportAllocs()
	for b.Loop() {
		post()
	}
}
