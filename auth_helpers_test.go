package main

// Helpers of the authentication tests: an in-process server built through
// the real configuration path (fromEnv, Validate, wire, httpOptions) on a
// loopback listener, Doris (the simulator over a throwaway MariaDB), and a
// client that sends one modern MCP request with a bearer token.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// authDoris starts MariaDB and the simulator; extraUsers are added to the
// simulator's accounts (create them in MariaDB with db.Exec).
func authDoris(t *testing.T, extraUsers map[string]string) (*mariadb.Instance, *sim.Server, map[string]string) {
	t.Helper()
	mariadb.Require(t)
	quiet := slog.New(slog.DiscardHandler)
	db, err := mariadb.Start(context.Background(), mariadb.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("start MariaDB: %v", err)
	}
	t.Cleanup(func() { db.Stop() })
	users := db.UserMap()
	for u, p := range extraUsers {
		users[u] = p
	}
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: db.Addr(), Users: users, Profile: "3.0", Logger: quiet})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	host, port := splitHostPort(t, s.Addr())
	feHost, fePort := splitHostPort(t, s.FEAddr())
	return db, s, map[string]string{"DORIS_HOST": host, "DORIS_PORT": port, "DORIS_USER": mariadb.ReaderUser,
		"DORIS_PASSWORD": mariadb.ReaderPassword, "DORIS_DATABASE": mariadb.DemoDatabase,
		"DORIS_FE_HTTP_HOST": feHost, "DORIS_FE_HTTP_PORT": fePort}
}

// inProcess is a server started by startInProcess.
type inProcess struct {
	base string // http://127.0.0.1:PORT
	logs *lockedBuffer
}

type lockedBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	sync func() // waits for the asynchronous log writer, when set
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything logged so far (after the log writer caught
// up).
func (l *lockedBuffer) String() string {
	if l.sync != nil {
		l.sync()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startInProcess serves the configuration of env (in which "{base}" is
// replaced by the server's own http://host:port) on a loopback listener,
// built exactly as main builds it.
func startInProcess(t *testing.T, env map[string]string) *inProcess {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	p := &inProcess{base: "http://" + ts.Listener.Addr().String(), logs: &lockedBuffer{}}
	all := map[string]string{"TRANSPORT": "http", "SERVER_HOST": "127.0.0.1", "ENABLE_LEGACY_HTTP_ADAPTER": "true"}
	for k, v := range env {
		all[k] = strings.ReplaceAll(v, "{base}", p.base)
	}
	cfg := DefaultConfig()
	errs := cfg.fromEnv(all)
	if err := errors.Join(append(errs, cfg.Validate())...); err != nil {
		t.Fatalf("configuration: %v", err)
	}
	log, sink := newLogger(p.logs, slog.LevelDebug)
	t.Cleanup(sink.Close)
	p.logs.sync = sink.Sync
	srv, rt, err := wire(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	opts, stop, err := httpOptions(context.Background(), cfg, rt, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	ts.Config.Handler = srv.Handler(opts)
	ts.Start()
	t.Cleanup(ts.Close)
	return p
}

// mcpReply is one HTTP answer to an MCP request.
type mcpReply struct {
	status    int
	challenge string
	body      []byte
	msg       struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
}

// mcpCall sends one request to path (/mcp or /mcp/legacy) with token ("":
// none). name fills Mcp-Name for named methods.
func mcpCall(t *testing.T, base, path, token, method, name string, params map[string]any) mcpReply {
	t.Helper()
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	legacy := path == "/mcp/legacy" || strings.HasPrefix(path, "/mcp/legacy?")
	if !legacy {
		p["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{}, "io.modelcontextprotocol/clientInfo": map[string]any{"name": "auth-test", "version": "1"}}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 42, "method": method, "params": p})
	r, _ := http.NewRequest("POST", base+path, bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if legacy {
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	} else {
		r.Header.Set("MCP-Protocol-Version", "2026-07-28")
		r.Header.Set("Mcp-Method", method)
		if name != "" {
			r.Header.Set("Mcp-Name", name)
		}
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	rep := mcpReply{status: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), body: b}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &rep.msg); err != nil {
			t.Fatalf("%s %s: reply is not JSON: %s", path, method, b)
		}
	}
	return rep
}

// writeTokensFile writes a version-2 tokens file, owner-only.
func writeTokensFile(t *testing.T, body string) string {
	t.Helper()
	path := t.TempDir() + "/tokens.json"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
