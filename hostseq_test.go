package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

// TestHostSequence runs the Host test sequence of the integration guide
// against the built binary, over Streamable HTTP and over stdio, with the
// Doris simulator in front of MariaDB:
//
//  1. server/discover identifies the server;
//  2. tools/list returns the 8 domains;
//  3. discover doris_catalog and call list_tables;
//  4. switch to doris_cluster in the same conversation and call
//     get_runtime_capabilities;
//  5. an invalid child name is rejected deterministically;
//  6. write SQL is refused by the read-only guard;
//  7. a Doris upgrade makes the old manifest stale, and rediscovery works;
//  8. an object the account may not read is refused for that identity.
//
// Every message the server sends is validated against the 2026-07-28 wire
// schema.
func TestHostSequence(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts MariaDB")
	}
	mariadb.Require(t)
	repo, _ := os.Getwd()
	bin := buildServer(t, repo)
	wire, err := wiretest.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			s, env := hsStartDoris(t)
			env["CAPABILITY_SNAPSHOT_TTL_SECONDS"] = "1"
			var h hsClient
			if transport == "http" {
				srv := startHTTPServer(t, bin, env)
				h = &hsHTTP{url: srv.base + "/mcp"}
				defer hsHTTPLimits(t, srv.base, wire)
			} else {
				h = hsStartStdio(t, bin, env)
			}
			hostSequence(t, h, wire, s)
		})
	}
}

func hostSequence(t *testing.T, h hsClient, wire *wiretest.Validator, s *sim.Server) {
	call := func(method, name string, params map[string]any) map[string]any {
		t.Helper()
		msg := h.do(t, method, name, params)
		if err := wire.Check(wiretest.Rev20260728, method, msg); err != nil {
			t.Errorf("wire schema: %v", err)
		}
		var m map[string]any
		json.Unmarshal(msg, &m)
		if m["error"] != nil {
			t.Fatalf("%s: %v", method, m["error"])
		}
		return m["result"].(map[string]any)
	}
	tool := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res := call("tools/call", name, map[string]any{"name": name, "arguments": args})
		env := res["structuredContent"].(map[string]any)
		var fromText map[string]any
		json.Unmarshal([]byte(res["content"].([]any)[0].(map[string]any)["text"].(string)), &fromText)
		if fmt.Sprint(fromText) != fmt.Sprint(env) {
			t.Errorf("text content and structuredContent differ")
		}
		return env
	}
	errCode := func(env map[string]any) (string, map[string]any) {
		t.Helper()
		if env["mode"] != "error" {
			t.Fatalf("want an error envelope, got %v", env)
		}
		e := env["error"].(map[string]any)
		return e["code"].(string), e["details"].(map[string]any)
	}

	// 1. Identity.
	d := call("server/discover", "", nil)
	if d["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)["name"] != "doris-mcp-server" {
		t.Fatalf("discover: %v", d)
	}
	// 2. Eight domains.
	if tools := call("tools/list", "", nil)["tools"].([]any); len(tools) != 8 {
		t.Fatalf("%d tools, want 8", len(tools))
	}
	// 3. Catalog discovery, then list_tables.
	cat := tool("doris_catalog", map[string]any{})
	catMV := cat["manifest_version"].(string)
	res := tool("doris_catalog", map[string]any{"child_tool": "list_tables", "arguments": map[string]any{"database": "demo"}, "manifest_version": catMV})
	if res["mode"] != "result" || !strings.Contains(fmt.Sprint(res["data"]), "orders") {
		t.Fatalf("list_tables: %v", res)
	}
	// 4. Switch to the cluster domain.
	cl := tool("doris_cluster", map[string]any{})
	res = tool("doris_cluster", map[string]any{"child_tool": "get_runtime_capabilities", "arguments": map[string]any{}, "manifest_version": cl["manifest_version"]})
	versions := res["data"].(map[string]any)["data"].(map[string]any)["versions"].(map[string]any)
	if versions["master_fe"] != "3.0.4" {
		t.Fatalf("get_runtime_capabilities: %v", res)
	}
	// 5. Invalid child name: deterministic.
	a := tool("doris_catalog", map[string]any{"child_tool": "list_tablez", "arguments": map[string]any{}})
	b := tool("doris_catalog", map[string]any{"child_tool": "list_tablez", "arguments": map[string]any{}})
	for _, env := range []map[string]any{a, b} {
		if e, ok := env["error"].(map[string]any); ok {
			delete(e, "trace_id") // each call's own, by design
		}
	}
	if code, _ := errCode(a); code != "CHILD_TOOL_NOT_FOUND" || fmt.Sprint(a["error"]) != fmt.Sprint(b["error"]) {
		t.Fatalf("invalid child: %v / %v", a, b)
	}
	// 6. Write SQL.
	w := tool("doris_query", map[string]any{"child_tool": "execute_query", "arguments": map[string]any{"sql": "INSERT INTO demo.orders SELECT * FROM demo.orders"}})
	if code, det := errCode(w); code != "CHILD_ARGUMENTS_INVALID" || det["reason_code"] != "QUERY_READ_ONLY_VIOLATION" {
		t.Fatalf("write SQL: %v", w)
	}
	// 8. A table the reader may not read, refused for that identity.
	p := tool("doris_query", map[string]any{"child_tool": "execute_query", "arguments": map[string]any{"sql": "SELECT * FROM secret.salaries"}})
	if code, det := errCode(p); code != "CHILD_EXECUTION_FAILED" || det["reason_code"] != "QUERY_PERMISSION_DENIED" {
		t.Fatalf("permission-denied object: %v", p)
	}
	if strings.Contains(fmt.Sprint(p), "salaries") && strings.Contains(fmt.Sprint(p["error"]), "Permission denied: user") {
		t.Errorf("the backend's error text reached the Host: %v", p)
	}
	// 7. Doris is upgraded: the old manifest is stale; rediscovery works.
	if err := s.SetProfile("4.0"); err != nil {
		t.Fatal(err)
	}
	// The server sees the upgrade when its capability snapshot expires
	// (CAPABILITY_SNAPSHOT_TTL_SECONDS=1, the least it takes; the binary's
	// clock cannot be moved): until then the old manifest still serves.
	var st map[string]any
	if !waitFor(15*time.Second, 100*time.Millisecond, func() bool {
		st = tool("doris_catalog", map[string]any{"child_tool": "list_tables", "arguments": map[string]any{"database": "demo"}, "manifest_version": catMV})
		return st["mode"] != "result"
	}) {
		t.Fatalf("the upgrade was not seen 15 s after it, with a 1 s capability TTL: %v", st)
	}
	code, det := errCode(st)
	if code != "CHILD_MANIFEST_STALE" || det["rediscover"] != true || st["manifest_version"] == catMV {
		t.Fatalf("after the upgrade: %v", st)
	}
	fresh := tool("doris_catalog", map[string]any{})
	if fresh["manifest_version"] != st["manifest_version"] {
		t.Fatalf("the stale error's manifest_version %v is not the rediscovered %v", st["manifest_version"], fresh["manifest_version"])
	}
	res = tool("doris_catalog", map[string]any{"child_tool": "list_tables", "arguments": map[string]any{"database": "demo"}, "manifest_version": fresh["manifest_version"]})
	if res["mode"] != "result" {
		t.Fatalf("after rediscovery: %v", res)
	}
}

// hsStartDoris starts MariaDB and the simulator (profile 3.0) and returns
// the simulator and the server environment pointing at it.
func hsStartDoris(t *testing.T) (*sim.Server, map[string]string) {
	t.Helper()
	d := startBridgeDoris(t) // bridge_helpers_test.go: MariaDB and the simulator, and the env for them
	return d.sim, d.env
}

// hsClient sends one modern request and returns the raw response.
type hsClient interface {
	do(t *testing.T, method, name string, params map[string]any) []byte
}

func hsBody(id int, method string, params map[string]any) []byte {
	p := map[string]any{"_meta": map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "host-sequence", "version": "1"},
	}}
	for k, v := range params {
		p[k] = v
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": p})
	return b
}

type hsHTTP struct {
	url string
	id  int
}

func (h *hsHTTP) do(t *testing.T, method, name string, params map[string]any) []byte {
	t.Helper()
	h.id++
	r, _ := http.NewRequest(http.MethodPost, h.url, strings.NewReader(string(hsBody(h.id, method, params))))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", method)
	if name != "" {
		r.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

type hsStdio struct {
	in  io.WriteCloser
	out *bufio.Scanner
	id  int
}

func hsStartStdio(t *testing.T, bin string, env map[string]string) *hsStdio {
	t.Helper()
	dir := t.TempDir()
	all := serverBaseEnv(dir)
	for k, v := range env {
		all[k] = v
	}
	cmd := exec.Command(bin, "--transport", "stdio")
	cmd.Dir = dir
	cmd.Env = envList(all)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close() // EOF: the server must exit on its own
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("stdio server exited with %v after EOF", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("stdio server did not exit within 10 s of EOF")
		}
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	return &hsStdio{in: in, out: sc}
}

func (h *hsStdio) do(t *testing.T, method, name string, params map[string]any) []byte {
	t.Helper()
	h.id++
	if _, err := h.in.Write(append(hsBody(h.id, method, params), '\n')); err != nil {
		t.Fatal(err)
	}
	if !h.out.Scan() {
		t.Fatalf("stdout closed: %v", h.out.Err())
	}
	return append([]byte(nil), h.out.Bytes()...)
}

// hsHTTPLimits checks the HTTP bounds of the real binary: oversized headers
// are refused (431) and a long query on a progress-token request streams
// progress before its result.
func hsHTTPLimits(t *testing.T, base string, wire *wiretest.Validator) {
	r, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(string(hsBody(1, "tools/list", nil))))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Padding", strings.Repeat("p", 100<<10))
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 100 KiB header: status %d, want 431", resp.StatusCode)
	}

	body := hsBody(2, "tools/call", map[string]any{"name": "doris_query", "arguments": map[string]any{
		"child_tool": "execute_query",
		"arguments": map[string]any{"timeout_ms": 60000,
			"sql": "SELECT COUNT(*) AS n FROM demo.orders a, demo.order_items b WHERE a.order_id + b.order_id < 0"}}})
	body = []byte(strings.Replace(string(body), `"_meta":{`, `"_meta":{"progressToken":"long-1",`, 1))
	r, _ = http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", "tools/call")
	r.Header.Set("Mcp-Name", "doris_query")
	start := time.Now()
	resp, err = http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var progress int
	var final map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 8<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if err := wire.Check(wiretest.Rev20260728, "tools/call", []byte(data)); err != nil {
			t.Error(err)
		}
		var m map[string]any
		json.Unmarshal([]byte(data), &m)
		if m["method"] == "notifications/progress" {
			progress++
		} else {
			final = m
		}
	}
	env := final["result"].(map[string]any)["structuredContent"].(map[string]any)
	if env["mode"] != "result" {
		t.Fatalf("long query: %v", env)
	}
	took := time.Since(start)
	t.Logf("long query: %s, %d progress notifications", took.Round(time.Millisecond), progress)
	if took > 1500*time.Millisecond && progress == 0 {
		t.Errorf("a query of %s streamed no progress", took)
	}
}
