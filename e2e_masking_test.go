package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// TestMaskingEndToEnd: the built binary masks phones, e-mails and identity
// numbers on every data path (execute_query, search_data) and on every
// way in: Streamable HTTP in hierarchical and flat exposure, the legacy
// HTTP endpoint, and stdio; look-alikes come back unchanged; with
// ENABLE_MASKING=false the values come back raw. A bad MASKING_RULES_JSON
// stops the server at startup.
func TestMaskingEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts MariaDB")
	}
	mariadb.Require(t)
	repo, _ := os.Getwd()
	bin := buildServer(t, repo)
	s, env := hsStartDoris(t)
	w := writerOn(t, s.Addr())
	for _, q := range []string{
		"CREATE TABLE e2e_pii (id INT, phone VARCHAR(32), email VARCHAR(100), id_card VARCHAR(32), order_id BIGINT, trace_id VARCHAR(40), " +
			`body STRING, INDEX i (body) USING INVERTED PROPERTIES("parser"="english")) DUPLICATE KEY(id)`,
		"INSERT INTO e2e_pii VALUES (1, '+1-555-123-4567', 'jane.doe@example.com', '110101199003074578', 13812345678, " +
			"'550e8400-e29b-41d4-a716-446655440000', 'support ticket from jane.doe@example.com')",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS e2e_pii") })
	query := map[string]any{"sql": "SELECT phone, email, id_card, order_id, trace_id FROM demo.e2e_pii"}
	search := map[string]any{"database": "demo", "table": "e2e_pii", "mode": "text", "query": "ticket",
		"return_fields": []string{"phone", "email", "id_card", "order_id", "trace_id", "body"}}
	masked := map[string]any{"phone": "+1-55*-***-4567", "email": "j******e@example.com", "id_card": "110101********4578",
		"order_id": float64(13812345678), "trace_id": "550e8400-e29b-41d4-a716-446655440000"}
	raw := map[string]any{"phone": "+1-555-123-4567", "email": "jane.doe@example.com", "id_card": "110101199003074578",
		"order_id": float64(13812345678), "trace_id": "550e8400-e29b-41d4-a716-446655440000"}

	// check reads the first row and the masking metadata of a result
	// envelope.
	check := func(t *testing.T, how string, envl map[string]any, want map[string]any, wantMasked int) {
		t.Helper()
		if envl["mode"] != "result" {
			t.Fatalf("%s: %v", how, envl)
		}
		child := envl["data"].(map[string]any)
		row := child["data"].(map[string]any)["rows"].([]any)[0].(map[string]any)
		for k, v := range want {
			if row[k] != v {
				t.Errorf("%s: %s = %v, want %v", how, k, row[k], v)
			}
		}
		m := child["metadata"].(map[string]any)["masking"].(map[string]any)
		if int(m["masked_values"].(float64)) != wantMasked {
			t.Errorf("%s: metadata.masking %v, want %d values", how, m, wantMasked)
		}
	}
	paths := func(t *testing.T, call func(tool, child string, args map[string]any) map[string]any, want map[string]any, n, ns int) {
		t.Helper()
		check(t, "execute_query", call("doris_query", "execute_query", query), want, n)
		check(t, "search_data", call("doris_search", "search_data", search), want, ns)
	}

	t.Run("http", func(t *testing.T) {
		srv := startHTTPServer(t, bin, env)
		paths(t, func(tool, child string, args map[string]any) map[string]any {
			return modernCall(t, srv.base+"/mcp", tool, map[string]any{"child_tool": child, "arguments": args})
		}, masked, 3, 4)
	})
	t.Run("http flat", func(t *testing.T) {
		flatEnv := copyEnv(env)
		flatEnv["MCP_TOOL_EXPOSURE_MODE"] = "flat"
		srv := startHTTPServer(t, bin, flatEnv)
		paths(t, func(tool, child string, args map[string]any) map[string]any {
			return modernCall(t, srv.base+"/mcp", tool+"_"+child, args)
		}, masked, 3, 4)
	})
	t.Run("legacy endpoint", func(t *testing.T) {
		srv := startHTTPServer(t, bin, env)
		paths(t, func(tool, child string, args map[string]any) map[string]any {
			return legacyCall(t, srv.base+"/mcp/legacy", tool, map[string]any{"child_tool": child, "arguments": args})
		}, masked, 3, 4)
	})
	t.Run("stdio", func(t *testing.T) {
		h := hsStartStdio(t, bin, env)
		paths(t, func(tool, child string, args map[string]any) map[string]any {
			msg := h.do(t, "tools/call", tool, map[string]any{"name": tool, "arguments": map[string]any{"child_tool": child, "arguments": args}})
			return structured(t, msg)
		}, masked, 3, 4)
	})
	t.Run("masking off", func(t *testing.T) {
		offEnv := copyEnv(env)
		offEnv["ENABLE_MASKING"] = "false"
		srv := startHTTPServer(t, bin, offEnv)
		paths(t, func(tool, child string, args map[string]any) map[string]any {
			return modernCall(t, srv.base+"/mcp", tool, map[string]any{"child_tool": child, "arguments": args})
		}, raw, 0, 0)
	})
	t.Run("bad rules refused at startup", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := run(ctx, []string{"--env-file", os.DevNull}, map[string]string{"MASKING_RULES_JSON": `[{"name":"x","columns":["a"],"pattern":"("}]`},
			strings.NewReader(""), &stdout, &stderr)
		if err == nil || !strings.Contains(stderr.String()+err.Error(), "MASKING_RULES_JSON: rule 1 (x): pattern") {
			t.Fatalf("err %v, stderr %s", err, stderr.String())
		}
	})
}

func copyEnv(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// writerOn connects to the simulator as the demo writer.
func writerOn(t *testing.T, addr string) *sql.DB {
	t.Helper()
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd, c.DBName = "tcp", addr, mariadb.WriterUser, mariadb.WriterPassword, "demo"
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// structured returns the structuredContent of a tools/call response.
func structured(t *testing.T, msg []byte) map[string]any {
	t.Helper()
	var m struct {
		Result struct {
			Structured map[string]any `json:"structuredContent"`
		} `json:"result"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil || m.Error != nil || m.Result.Structured == nil {
		t.Fatalf("tools/call: %v %s", err, msg)
	}
	return m.Result.Structured
}

// modernCall is one 2026-07-28 tools/call over Streamable HTTP.
func modernCall(t *testing.T, url, tool string, args map[string]any) map[string]any {
	t.Helper()
	h := &hsHTTP{url: url}
	return structured(t, h.do(t, "tools/call", tool, map[string]any{"name": tool, "arguments": args}))
}

// legacyCall is one 2025-11-25 tools/call on the legacy endpoint, after
// its initialize handshake.
func legacyCall(t *testing.T, url, tool string, args map[string]any) map[string]any {
	t.Helper()
	post := func(body map[string]any) []byte {
		b, _ := json.Marshal(body)
		r, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("legacy %v: %d %s", body["method"], resp.StatusCode, out)
		}
		return out
	}
	post(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2e", "version": "1"}}})
	return structured(t, post(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}}))
}
