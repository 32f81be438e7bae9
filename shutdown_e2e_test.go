package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// slowSQL runs for minutes in MariaDB unless it is killed.
const slowSQL = "SELECT SUM(a.seq * b.seq) AS shutdown_marker FROM demo.seq_1_to_100000 a, demo.seq_1_to_100000 b"

// postCall sends one modern tools/call of execute_query and returns the
// HTTP status and the decoded JSON-RPC message.
func postCall(base, sql string, id int) (int, map[string]any, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{}},
		"name": "doris_query", "arguments": map[string]any{"child_tool": "execute_query",
			"arguments": map[string]any{"sql": sql, "timeout_ms": 120000}}}})
	r, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", "doris_query")
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(r)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return resp.StatusCode, nil, err
	}
	return resp.StatusCode, m, nil
}

// TestShutdownWithSlowQueries: SIGTERM with 20 slow queries in flight.
// The server stops accepting, gives them SHUTDOWN_GRACE_SECONDS, then
// stops them: every client gets an answer (503, retryable
// SERVER_SHUTTING_DOWN), no query is left running in MariaDB, and the
// process exits 0.
func TestShutdownWithSlowQueries(t *testing.T) {
	fd := startFakeDoris(t)
	if !fd.live {
		requireOrSkip(t, "the shutdown test needs MariaDB")
		return
	}
	bin := buildServer(t, ".")
	env := map[string]string{"SHUTDOWN_GRACE_SECONDS": "2"}
	for k, v := range fd.env {
		env[k] = v
	}
	srv := startHTTPServer(t, bin, env)

	const slow = 20
	type answer struct {
		status int
		msg    map[string]any
		err    error
	}
	answers := make(chan answer, slow)
	var wg sync.WaitGroup
	for i := 0; i < slow; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, m, err := postCall(srv.base, slowSQL, i+1)
			answers <- answer{status, m, err}
		}()
	}
	running := func() int {
		var n int
		fd.db.Root().QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE COMMAND = 'Query' AND INFO LIKE '%shutdown_marker%' AND ID <> CONNECTION_ID()").Scan(&n)
		return n
	}
	if !waitFor(30*time.Second, 50*time.Millisecond, func() bool { return running() >= slow }) {
		t.Fatalf("only %d of %d slow queries reached MariaDB", running(), slow)
	}

	start := time.Now()
	exitErr, killed := srv.stop(syscall.SIGTERM, 30*time.Second)
	took := time.Since(start)
	wg.Wait()
	close(answers)
	if killed || exitErr != nil {
		t.Fatalf("exit after SIGTERM: %v (killed %v); stderr:\n%s", exitErr, killed, lastLines(srv.stderr.String(), 30))
	}
	n := 0
	for a := range answers {
		n++
		if a.err != nil {
			t.Errorf("a client got no answer: %v", a.err)
			continue
		}
		e, _ := a.msg["error"].(map[string]any)
		d, _ := e["data"].(map[string]any)
		if a.status != http.StatusServiceUnavailable || d["reason"] != "SERVER_SHUTTING_DOWN" || d["retryable"] != true {
			t.Errorf("answer %d %v, want 503 SERVER_SHUTTING_DOWN", a.status, a.msg)
		}
	}
	if n != slow {
		t.Errorf("%d answers, want %d", n, slow)
	}
	if !waitFor(5*time.Second, 20*time.Millisecond, func() bool { return running() == 0 }) {
		t.Fatalf("%d slow queries still run in MariaDB after the server exited", running())
	}
	t.Logf("SIGTERM with %d slow queries: exit 0 after %v (grace 2 s), every client answered 503, MariaDB clear", slow, took.Round(time.Millisecond))
}
