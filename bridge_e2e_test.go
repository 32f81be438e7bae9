package main

// The stdio bridge (`doris-mcp-server bridge URL`) against the real binary
// serving HTTP on loopback with a bearer token, over the Doris simulator
// and MariaDB: the Host test sequence through it in both eras, the trace id
// carried, progress forwarded, a cancellation that stops the query inside
// Doris, structured errors within the bound when the remote is slow, down
// or killed mid-call, the next call served once it is back, and a token
// that never appears in argv, logs or errors.

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

const bridgeToken = "bridge-e2e-token-4f1d9c2b7a65e83041"

// bridgeHost adapts a bridge process to the Host sequence's client.
type bridgeHost struct {
	b  *bridgeProc
	id int
}

func (h *bridgeHost) do(t *testing.T, method, name string, params map[string]any) []byte {
	t.Helper()
	h.id++
	m := h.b.request(h.id, method, params, 60*time.Second)
	raw, _ := json.Marshal(m)
	return raw
}

func TestBridge(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING: builds the binary and starts MariaDB (not in -short mode)")
	}
	d := startBridgeDoris(t)
	repo, _ := os.Getwd()
	bin := buildServer(t, repo)
	wire, err := wiretest.Load()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_BRIDGE": bridgeToken, "CAPABILITY_SNAPSHOT_TTL_SECONDS": "1"}
	for k, v := range d.env {
		env[k] = v
	}
	remote := startRemote(t, bin, closedPort(t), env)
	url := remote.base + "/mcp"
	tokenFile := writeTokenFile(t, bridgeToken)
	var everything []string // every bridge's argv, stdout and stderr
	defer func() {
		for _, out := range everything {
			if strings.Contains(out, bridgeToken) {
				t.Errorf("the bearer token appears in a bridge's argv, output or log:\n%s", lastLines(out, 20))
			}
		}
	}()
	newBridge := func(t *testing.T, env map[string]string, args ...string) *bridgeProc {
		b := startBridge(t, bin, env, args...)
		t.Cleanup(func() { everything = append(everything, b.outputs()) })
		return b
	}
	main := newBridge(t, nil, "--token-file", tokenFile, url)

	t.Run("legacy era", func(t *testing.T) {
		b := newBridge(t, map[string]string{bridgeTokenVariable: bridgeToken}, url)
		b.send(map[string]any{"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "legacy-host", "version": "1"}}})
		init, ok := b.await(`"init"`, 20*time.Second)
		if !ok || init["result"].(map[string]any)["protocolVersion"] != "2025-11-25" {
			t.Fatalf("initialize: %v", init)
		}
		b.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		b.send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
		list, _ := b.await("2", 20*time.Second)
		if tools, _ := list["result"].(map[string]any)["tools"].([]any); len(tools) != domainCount {
			t.Fatalf("legacy tools/list: %s", fmtJSON(list))
		}
		b.send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": toolCall("doris_catalog", map[string]any{})})
		call, _ := b.await("3", 20*time.Second)
		if scOf(call)["mode"] != "manifest" {
			t.Fatalf("legacy tools/call: %s", fmtJSON(call))
		}
	})

	t.Run("trace id", func(t *testing.T) {
		const hostTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		params := toolCall("doris_catalog", map[string]any{"child_tool": "no_such_child", "arguments": map[string]any{}})
		body := hsBody(101, "tools/call", params)
		body = []byte(strings.Replace(string(body), `"_meta":{`, `"_meta":{"traceparent":"00-`+hostTrace+`-00f067aa0ba902b7-01",`, 1))
		main.send(body)
		withHost, _ := main.await("101", 20*time.Second)
		if got := scOf(withHost)["error"].(map[string]any)["trace_id"]; got != hostTrace {
			t.Errorf("the Host's trace id: the server saw %v, want %s", got, hostTrace)
		}
		own := main.request(102, "tools/call", params, 20*time.Second)
		started := scOf(own)["error"].(map[string]any)["trace_id"].(string)
		// The log reaches stderr through a pipe of its own: wait for it.
		var logged []string
		waitFor(5*time.Second, 20*time.Millisecond, func() bool {
			logged = nil
			for _, inv := range main.invocations() {
				logged = append(logged, inv["trace_id"].(string))
			}
			return strings.Contains(strings.Join(logged, " "), started)
		})
		if len(started) != 32 || started == hostTrace || !strings.Contains(strings.Join(logged, " "), started) {
			t.Errorf("the bridge's own trace %q is not in its invocation log %v", started, logged)
		}
	})

	t.Run("progress and cancellation", func(t *testing.T) {
		body := hsBody(201, "tools/call", toolCall("doris_query", map[string]any{"child_tool": "execute_query",
			"arguments": map[string]any{"sql": doristest.SlowQuery, "timeout_ms": 60000}}))
		body = []byte(strings.Replace(string(body), `"_meta":{`, `"_meta":{"progressToken":"slow-1",`, 1))
		main.send(body)
		if !main.awaitNote(`"slow-1"`, 30*time.Second) {
			t.Fatalf("no progress notification reached the Host within 30 s; bridge stderr:\n%s", lastLines(main.stderr.String(), 10))
		}
		if got := doristest.Running(t, d.db, "seq_1_to_100000"); len(got) == 0 {
			t.Fatal("the slow query is not running in MariaDB while it streams progress")
		}
		main.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 201, "reason": "the person pressed stop"}})
		gone := doristest.WaitGone(t, d.db, "seq_1_to_100000", 10*time.Second)
		t.Logf("cancelled from the Host: the query was gone from MariaDB %v later", gone.Round(time.Millisecond))
		// The next request is answered; the cancelled one never is.
		main.request(202, "tools/list", nil, 20*time.Second)
		if m, ok := main.await("201", 0); ok {
			t.Errorf("the cancelled request was answered: %s", fmtJSON(m))
		}
	})

	t.Run("slow remote", func(t *testing.T) {
		hold := make(chan struct{})
		reached := make(chan struct{}, 1)
		d.sim.Inject(sim.Fault{Match: "bridge_slow_marker", Hold: hold, Reached: reached})
		defer d.sim.ClearFaults()
		defer close(hold)
		b := newBridge(t, nil, "--token-file", tokenFile, "--timeout", "2s", url)
		start := time.Now()
		m := b.request(301, "tools/call", toolCall("doris_query", map[string]any{"child_tool": "execute_query",
			"arguments": map[string]any{"sql": "SELECT 'bridge_slow_marker' AS m"}}), 15*time.Second)
		took := time.Since(start)
		e := rpcError(m)
		data, _ := e["data"].(map[string]any)
		if data["reason"] != "REMOTE_TIMEOUT" || data["retryable"] != true || took > 5*time.Second {
			t.Fatalf("a remote slower than --timeout 2s: after %v: %s", took, fmtJSON(m))
		}
		t.Logf("slow remote: %s after %v", e["message"], took.Round(time.Millisecond))
	})

	t.Run("refused credentials", func(t *testing.T) {
		wrong := newBridge(t, map[string]string{bridgeTokenVariable: "bridge-e2e-wrong-token-0000000000"}, url)
		m := wrong.request(401, "tools/list", nil, 15*time.Second)
		if data, _ := rpcError(m)["data"].(map[string]any); data["reason"] != "REMOTE_UNAUTHORIZED" || data["http_status"] != float64(401) {
			t.Fatalf("a wrong token: %s", fmtJSON(m))
		}
		none := newBridge(t, nil, url)
		m = none.request(402, "tools/list", nil, 15*time.Second)
		if e := rpcError(m); !strings.Contains(e["message"].(string), "--token-file") {
			t.Fatalf("no token: %s", fmtJSON(m))
		}
		// A token on the command line is refused before anything runs,
		// without repeating it.
		out, err := exec.Command(bin, "bridge", "--token="+bridgeToken, url).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "--token-file") {
			t.Fatalf("--token on the command line: %v %s", err, out)
		}
		everything = append(everything, string(out))
	})

	t.Run("remote killed mid-call and back", func(t *testing.T) {
		port := closedPort(t)
		r2 := startRemote(t, bin, port, env)
		b := newBridge(t, nil, "--token-file", tokenFile, "--timeout", "60s", r2.base+"/mcp")
		b.request(501, "tools/list", nil, 20*time.Second)
		hold := make(chan struct{})
		reached := make(chan struct{}, 1)
		d.sim.Inject(sim.Fault{Match: "bridge_kill_marker", Hold: hold, Reached: reached})
		defer d.sim.ClearFaults()
		defer close(hold)
		b.send(hsBody(502, "tools/call", toolCall("doris_query", map[string]any{"child_tool": "execute_query",
			"arguments": map[string]any{"sql": "SELECT 'bridge_kill_marker' AS m"}})))
		select {
		case <-reached:
		case <-time.After(30 * time.Second):
			t.Fatal("the call did not reach Doris")
		}
		start := time.Now()
		r2.kill()
		m, ok := b.await("502", 10*time.Second)
		took := time.Since(start)
		data, _ := rpcError(m)["data"].(map[string]any)
		if !ok || data["reason"] != "REMOTE_DISCONNECTED" || data["retryable"] != true {
			t.Fatalf("the remote killed mid-call: %v after %v", fmtJSON(m), took)
		}
		t.Logf("killed mid-call: %q after %v", rpcError(m)["message"], took.Round(time.Millisecond))
		// While it is down: refused at once.
		m = b.request(503, "tools/list", nil, 15*time.Second)
		if data, _ := rpcError(m)["data"].(map[string]any); data["reason"] != "REMOTE_UNREACHABLE" {
			t.Fatalf("the remote down: %s", fmtJSON(m))
		}
		// Back on the same address: the next call succeeds.
		startRemote(t, bin, port, env)
		m = b.request(504, "tools/call", toolCall("doris_catalog", map[string]any{}), 30*time.Second)
		if scOf(m)["mode"] != "manifest" {
			t.Fatalf("after the remote came back: %s", fmtJSON(m))
		}
	})

	t.Run("host sequence", func(t *testing.T) {
		hostSequence(t, &bridgeHost{b: main, id: 1000}, wire, d.sim)
	})

	t.Run("invocation log", func(t *testing.T) {
		invs := main.invocations()
		if len(invs) < 10 {
			t.Fatalf("%d invocation records", len(invs))
		}
		for _, inv := range invs {
			for _, k := range []string{"time", "method", "duration_ms", "outcome", "trace_id"} {
				if _, ok := inv[k]; !ok {
					t.Errorf("an invocation record lacks %s: %v", k, inv)
				}
			}
			if inv["method"] == "tools/call" && inv["target"] == nil {
				t.Errorf("a tools/call record without its target: %v", inv)
			}
		}
		// Neither arguments nor results: the SQL text and the table names
		// the calls returned are not in the log.
		log := main.stderr.String()
		for _, s := range []string{"seq_1_to_100000", "INSERT INTO", "salaries", "orders", "list_tablez"} {
			if strings.Contains(log, s) {
				t.Errorf("the bridge's log holds %q (an argument or a result)", s)
			}
		}
		t.Logf("an invocation record: %s", fmtJSON(invs[len(invs)-1]))
	})
}
