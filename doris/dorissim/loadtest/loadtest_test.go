//go:build unix

package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

func TestAnswerLabel(t *testing.T) {
	tests := []struct {
		name string
		body string
		code int
		want string
	}{
		{"result", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"mode":"result","data":{"status":"success","data":{"row_count":1}}}}}`, 200, "ok"},
		{"partial", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"mode":"result","data":{"status":"partial","data":{}}}}}`, 200, "partial"},
		{"manifest", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"mode":"manifest","children":[]}}}`, 200, "ok"},
		{"tool list", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"},{"name":"b"}]}}`, 200, "ok"},
		{"domain error", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"mode":"error","error":{"code":"CHILD_EXECUTION_TIMEOUT","details":{"reason_code":"QUERY_TIMEOUT"}}},"isError":true}}`, 200, "CHILD_EXECUTION_TIMEOUT/QUERY_TIMEOUT"},
		{"domain error without reason", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"mode":"error","error":{"code":"CHILD_TOOL_NOT_FOUND","details":{}}}}}`, 200, "CHILD_TOOL_NOT_FOUND"},
		{"protocol error", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, 400, "HTTP 400 rpc -32700"},
		{"shutdown", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x","data":{"reason":"SERVER_SHUTTING_DOWN"}}}`, 503, "HTTP 503 rpc -32603 SERVER_SHUTTING_DOWN"},
		{"not JSON", `<html>`, 502, "HTTP 502"},
		{"not JSON with 200", `<html>`, 200, "undecodable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Mcp-Method") == "" || r.Header.Get("MCP-Protocol-Version") != "2026-07-28" {
					t.Errorf("headers %v, want the MCP 2026-07-28 headers", r.Header)
				}
				w.WriteHeader(tt.code)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			a := newClient(srv.URL).request(context.Background(), "tools/call", "doris_query", sqlCall("SELECT 1", 0, 0))
			if got := a.label(); got != tt.want {
				t.Fatalf("label %q, want %q", got, tt.want)
			}
			if a.ok() != (tt.want == "ok") {
				t.Fatalf("ok() = %v for %q", a.ok(), tt.want)
			}
		})
	}
	t.Run("no answer", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		a := newClient(srv.URL).request(context.Background(), "tools/list", "", rpc("tools/list", nil))
		if a.label() != "no answer" {
			t.Fatalf("label %q, want no answer", a.label())
		}
	})
}

func TestClusterLabel(t *testing.T) {
	node := func(typ, status, reason string) json.RawMessage {
		m := map[string]any{"node_type": typ, "host": "127.0.0.1"}
		if status != "" {
			m["metrics"] = map[string]any{"status": status, "reason_code": reason}
		}
		b, _ := json.Marshal(m)
		return b
	}
	tests := []struct {
		name string
		a    answer
		want string
	}{
		{"all metrics", answer{HTTP: 200, Mode: "result", Status: "success", Items: []json.RawMessage{node("fe", "success", ""), node("be", "success", "")}}, "ok"},
		{"BE dead", answer{HTTP: 200, Mode: "result", Status: "partial", Items: []json.RawMessage{node("fe", "success", ""), node("be", "unavailable", "CLUSTER_NODE_UNREACHABLE")}},
			"partial: BE metrics unavailable (CLUSTER_NODE_UNREACHABLE)"},
		{"no BE listed", answer{HTTP: 200, Mode: "result", Status: "partial", Items: []json.RawMessage{node("fe", "success", "")}}, "partial: no BE listed"},
		{"partial for another reason", answer{HTTP: 200, Mode: "result", Status: "partial", Items: []json.RawMessage{node("be", "success", "")}}, "partial"},
		{"error", answer{HTTP: 200, Mode: "error", Code: "CHILD_EXECUTION_FAILED", Reason: "CLUSTER_BACKEND_UNAVAILABLE"}, "CHILD_EXECUTION_FAILED/CLUSTER_BACKEND_UNAVAILABLE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := clusterLabel(tt.a); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLogScan(t *testing.T) {
	l := newLogScan()
	lines := `{"level":"INFO","msg":"mcp request"}
{"level":"WARN","msg":"mcp request","reason":"QUERY_TIMEOUT"}
{"level":"WARN","msg":"mcp request","reason":"QUERY_TIMEOUT"}
{"level":"ERROR","msg":"kill failed","err":"dial tcp: refused"}
not json
`
	// Written in pieces that split lines, as a pipe delivers them.
	for i := 0; i < len(lines); i += 7 {
		l.Write([]byte(lines[i:min(i+7, len(lines))]))
	}
	s := l.summary()
	if s.Levels["INFO"] != 1 || s.Levels["WARN"] != 2 || s.Levels["ERROR"] != 1 || s.Levels["unparsed"] != 1 {
		t.Fatalf("levels %v, want INFO 1, WARN 2, ERROR 1, unparsed 1", s.Levels)
	}
	if s.Warnings["WARN mcp request reason=QUERY_TIMEOUT"] != 2 || s.Warnings[`ERROR kill failed err="dial tcp: refused"`] != 1 {
		t.Fatalf("warnings %v", s.Warnings)
	}
}

// TestObserverMetrics: figures come from /metrics when the server has
// it, else from /proc with goroutines unknown.
func TestObserverMetrics(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("# HELP go_goroutines Number of goroutines.\n# TYPE go_goroutines gauge\ngo_goroutines 42\n" +
			"process_resident_memory_bytes 2.62144e+07\nprocess_open_fds 17\n" +
			`mcp_calls_total{domain="doris_query"} 5` + "\n"))
	}))
	defer srv.Close()
	f := newObserver(os.Getpid(), srv.URL, time.Now()).read(context.Background())
	if f.Source != "metrics" || f.Goroutines != 42 || f.RSSMiB != 25 || f.FDs != 17 {
		t.Fatalf("from /metrics: %+v, want 42 goroutines, 25 MiB, 17 fds", f)
	}
	none := httptest.NewServer(http.NotFoundHandler())
	defer none.Close()
	f = newObserver(os.Getpid(), none.URL, time.Now()).read(context.Background())
	if f.Source != "proc" || f.Goroutines != -1 || f.goroutineText() != "unknown" || f.RSSMiB <= 0 || f.FDs <= 0 {
		t.Fatalf("from /proc: %+v, want goroutines unknown and this process's RSS and fds", f)
	}
}

func TestChecks(t *testing.T) {
	cs := []check{judge("a", true, ""), unknown("b", "")}
	if failed(cs) || cs[0].verdict() != "PASS" || cs[1].verdict() != "UNKNOWN" {
		t.Fatalf("%v", cs)
	}
	cs = append(cs, judge("c", false, ""))
	if !failed(cs) || cs[2].verdict() != "FAIL" {
		t.Fatalf("a failed check is not a failure: %v", cs)
	}
	curve := func(rss ...float64) []figures {
		var out []figures
		for _, r := range rss {
			out = append(out, figures{RSSMiB: r})
		}
		return out
	}
	if c := rssCheck("rss", figures{}, curve(30, 31, 30, 31, 32, 31), figures{}); c.verdict() != "PASS" {
		t.Fatalf("a flat curve: %s %s", c.verdict(), c.Detail)
	}
	if c := rssCheck("rss", figures{}, curve(30, 31, 40, 50, 60, 70), figures{}); c.verdict() != "FAIL" {
		t.Fatalf("a growing curve: %s %s", c.verdict(), c.Detail)
	}
}
