package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/handle"
	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

// secretMarker is put into request bodies; it must never reach a log.
const secretMarker = "SECRET-MARKER-7f3a"

// fakeBackend serves a small, fixed surface. Its tools:
//   - echo: returns its arguments;
//   - slow: says it started (entered), then blocks until its context
//     ends, recording that it did (cancelled);
//   - progress: reports progress three times, then returns; with
//     {"hold":true} it waits after the first report until the test closes
//     release (or its context ends).
type fakeBackend struct {
	tools     []catalog.Tool
	cancelled chan struct{}
	entered   chan struct{} // a slow call started
	release   chan struct{} // closed: held progress calls go on
	calls     atomic.Int64  // tools/call requests that reached the backend
}

func newFakeBackend(n int) *fakeBackend {
	b := &fakeBackend{cancelled: make(chan struct{}, 16), entered: make(chan struct{}, 16), release: make(chan struct{})}
	names := []string{"echo", "progress", "slow"} // "broken" answers calls but is not listed
	for i := 0; i < n; i++ {
		names = append(names, fmt.Sprintf("tool_%02d", i))
	}
	for _, name := range names {
		b.tools = append(b.tools, catalog.Tool{Name: name, JSON: json.RawMessage(
			`{"name":"` + name + `","description":"test tool ` + name + `","inputSchema":{"type":"object"}}`)})
	}
	return b
}

func (b *fakeBackend) Tools(ctx context.Context, id auth.Identity) ([]catalog.Tool, error) {
	return b.tools, nil
}

func (b *fakeBackend) CallTool(ctx context.Context, id auth.Identity, name string, args json.RawMessage, p catalog.Progress) (*catalog.ToolResult, error) {
	b.calls.Add(1)
	switch name {
	case "echo":
		return &catalog.ToolResult{Structured: args}, nil
	case "slow":
		select {
		case b.entered <- struct{}{}:
		default: // nobody is waiting for it
		}
		<-ctx.Done()
		b.cancelled <- struct{}{}
		return nil, ctx.Err()
	case "broken":
		return nil, errors.New("the backend failed")
	case "progress":
		var a struct{ Hold bool }
		json.Unmarshal(args, &a)
		for i := 1; i <= 3; i++ {
			if p != nil {
				p(float64(i), 3, "step")
				p(float64(i), 3, "repeat, must be dropped")
			}
			if i == 1 && a.Hold {
				select {
				case <-b.release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
		}
		return &catalog.ToolResult{Structured: json.RawMessage(`{"done":true}`)}, nil
	}
	for _, t := range b.tools {
		if t.Name == name {
			return &catalog.ToolResult{Structured: json.RawMessage(`{}`)}, nil
		}
	}
	return nil, catalog.ErrToolNotFound
}

func (b *fakeBackend) Resources(ctx context.Context, id auth.Identity) ([]catalog.Resource, error) {
	return []catalog.Resource{{URI: "doris://table/internal/demo/orders", Name: "demo.orders"}}, nil
}

func (b *fakeBackend) ResourceTemplates(ctx context.Context, id auth.Identity) ([]catalog.ResourceTemplate, error) {
	return []catalog.ResourceTemplate{{URITemplate: "doris://table/{catalog}/{database}/{table}", Name: "table"}}, nil
}

func (b *fakeBackend) ReadResource(ctx context.Context, id auth.Identity, uri string) (*catalog.ResourceContents, error) {
	if uri == "doris://table/internal/demo/orders" {
		return &catalog.ResourceContents{URI: uri, MimeType: "application/json", Text: `{"columns":[]}`}, nil
	}
	return nil, catalog.ErrResourceNotFound
}

func (b *fakeBackend) Prompts(ctx context.Context, id auth.Identity) ([]catalog.Prompt, error) {
	return []catalog.Prompt{{Name: "sales_analysis", Description: "d", Arguments: []catalog.PromptArgument{{Name: "database", Required: true}}}}, nil
}

func (b *fakeBackend) GetPrompt(ctx context.Context, id auth.Identity, name string, args map[string]string) (*catalog.PromptResult, error) {
	if name != "sales_analysis" {
		return nil, catalog.ErrPromptNotFound
	}
	if args["database"] == "" {
		return nil, &catalog.ArgumentError{Msg: "prompt sales_analysis needs the argument database"}
	}
	return &catalog.PromptResult{Description: "d", Messages: []catalog.PromptMessage{{Role: "user", Text: "analyse " + args["database"]}}}, nil
}

func (b *fakeBackend) Complete(ctx context.Context, id auth.Identity, ref catalog.CompletionRef, arg, value string, c map[string]string) (*catalog.Completion, error) {
	if ref.Type != "ref/prompt" || ref.Name != "sales_analysis" {
		return nil, catalog.ErrCompletionRef
	}
	return &catalog.Completion{Values: []string{value + "demo"}, Total: 1}, nil
}

// waitEntered waits until a slow call has reached the backend.
func (b *fakeBackend) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-b.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow call did not reach the backend")
	}
}

// eventually waits, for at most 5 s, until cond holds: for state the
// server shows (Draining) but sends no event for.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("%s: not within 5 s", what)
		case <-tick.C:
		}
	}
}

// env is one server under test with its log.
type env struct {
	srv  *mcp.Server
	be   *fakeBackend
	logs *syncBuffer
	wire *wiretest.Validator
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newEnv(t testing.TB, pageSize, extraTools int) *env {
	t.Helper()
	return newEnvWith(t, pageSize, extraTools, mcp.Options{})
}

// newEnvWith is newEnv with further server options (name, version, page
// size and logger are the test's own; handles too unless given).
func newEnvWith(t testing.TB, pageSize, extraTools int, opts mcp.Options) *env {
	t.Helper()
	signer := opts.Handles
	if signer == nil {
		var err error
		if signer, err = handle.New([]byte("mcp-test-secret-0123456789-abcdef-XYZ")); err != nil {
			t.Fatal(err)
		}
	}
	logs := &syncBuffer{}
	be := newFakeBackend(extraTools)
	opts.Name, opts.Version, opts.PageSize, opts.Handles = "doris-mcp-server", "test", pageSize, signer
	opts.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := mcp.NewServer(be, opts)
	if err != nil {
		t.Fatal(err)
	}
	w, err := wiretest.Load()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if strings.Contains(logs.String(), secretMarker) {
			t.Errorf("a request body's content reached the log:\n%s", logs.String())
		}
	})
	return &env{srv: srv, be: be, logs: logs, wire: w}
}

// metaJSON is the per-request _meta of a modern request.
const metaJSON = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}`

// req renders a modern request with extra params members.
func req(id any, method, extra string) string {
	idJSON, _ := json.Marshal(id)
	params := "{" + metaJSON
	if extra != "" {
		params += "," + extra
	}
	params += "}"
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, idJSON, method, params)
}

// httpEnv serves e on a real loopback listener.
type httpEnv struct {
	*env
	ts *httptest.Server
}

func newHTTP(t testing.TB, e *env, legacy bool) *httpEnv {
	t.Helper()
	return newHTTPWith(t, e, mcp.HTTPOptions{Legacy: legacy})
}

// newHTTPWith serves e over HTTP with o (its Policy: loopback).
func newHTTPWith(t testing.TB, e *env, o mcp.HTTPOptions) *httpEnv {
	t.Helper()
	policy, err := auth.NewHostPolicy("127.0.0.1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Policy = policy
	ts := httptest.NewUnstartedServer(e.srv.Handler(o))
	ts.Config.BaseContext = e.srv.BaseContext // as main does: Abort cancels requests
	ts.Start()
	t.Cleanup(ts.Close)
	return &httpEnv{env: e, ts: ts}
}

type reply struct {
	status int
	header http.Header
	body   []byte
	msg    map[string]any // the decoded JSON body, when it is JSON
}

// modernHeaders are the headers a correct modern client sends for body.
func modernHeaders(method, name string) map[string]string {
	h := map[string]string{
		"Content-Type":         "application/json",
		"Accept":               "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method":           method,
	}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// post sends body with headers to path and, for JSON-RPC bodies, checks
// the reply against the wire schema of rev for method.
func (h *httpEnv) post(t testing.TB, path string, headers map[string]string, body, rev, method string) reply {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, h.ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			r.Host = v
			continue
		}
		r.Header.Set(k, v)
	}
	resp, err := h.ts.Client().Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	rep := reply{status: resp.StatusCode, header: resp.Header, body: b}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(b) > 0 {
		if err := json.Unmarshal(b, &rep.msg); err != nil {
			t.Fatalf("reply is not JSON: %s", b)
		}
		if _, ok := rep.msg["jsonrpc"]; ok {
			if err := h.wire.Check(rev, method, b); err != nil {
				t.Errorf("wire schema: %v", err)
			}
		}
	}
	return rep
}

func (h *httpEnv) call(t testing.TB, method, extra, name string) reply {
	t.Helper()
	return h.post(t, "/mcp", modernHeaders(method, name), req(1, method, extra), wiretest.Rev20260728, method)
}

func errorCode(t testing.TB, m map[string]any) int {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("reply has no error: %v", m)
	}
	return int(e["code"].(float64))
}

// stdioEnv runs e over a pipe pair.
type stdioEnv struct {
	*env
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func newStdio(t testing.TB, e *env) *stdioEnv {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioEnv{env: e, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	s.out.Buffer(make([]byte, 1<<20), 8<<20)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { s.done <- e.srv.ServeStdio(ctx, inR, outW); outW.Close() }()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
	})
	return s
}

func (s *stdioEnv) send(t testing.TB, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// recv reads the next message and checks it against the wire schema.
func (s *stdioEnv) recv(t testing.TB, rev, method string) map[string]any {
	t.Helper()
	line := make(chan []byte, 1)
	go func() {
		if s.out.Scan() {
			line <- append([]byte(nil), s.out.Bytes()...)
		} else {
			line <- nil
		}
	}()
	select {
	case b := <-line:
		if b == nil {
			t.Fatal("stdout closed")
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", b)
		}
		if err := s.wire.Check(rev, method, b); err != nil {
			t.Errorf("wire schema: %v", err)
		}
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no message on stdout within 5 s")
	}
	return nil
}
