package bridge

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// Bridge is a stdio MCP server that forwards every message to a Remote:
// what a desktop Host that can only start a local process runs in place of
// the server. It serves both protocol eras as the server's own stdio does:
// a request whose _meta names a protocol version is 2026-07-28; after an
// initialize, requests without one belong to the handshake era it
// negotiated. Each is forwarded to the remote in that era.
//
// It never hangs: every request gets its answer, the remote's, or a
// structured JSON-RPC error (error.data.reason REMOTE_*) within the
// Remote's bound; a cancellation from the Host closes the request's stream,
// which stops the call in the remote, and nothing more is written for it.
type Bridge struct {
	Remote *Remote
	// Log receives one record per request (the invocation log: method,
	// target, duration, outcome, trace id), never arguments or results;
	// nil discards.
	Log *slog.Logger
	// DrainTimeout is how long requests in flight get to answer once the
	// Host closes stdin or the bridge is told to stop (default 10 s).
	DrainTimeout time.Duration
}

// maxInFlight bounds the requests in flight, as the server's stdio does.
const maxInFlight = 64

// Serve bridges newline-delimited JSON-RPC on in/out until in ends or ctx
// is done. The error is nil unless reading failed.
func (b *Bridge) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	log := b.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &hostConn{b: b, log: log, w: out, inflight: map[string]context.CancelFunc{}}
	work, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()

	reading, stopReading := context.WithCancel(ctx)
	defer stopReading()
	lines, readErr := mcp.ReadLines(reading, in)
	drain := func() {
		done := make(chan struct{})
		go func() { c.wg.Wait(); close(done) }()
		d := b.DrainTimeout
		if d <= 0 {
			d = 10 * time.Second
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			stopWork()
			<-done
		}
	}
	for {
		select {
		case <-ctx.Done():
			drain()
			return nil
		case err := <-readErr:
			drain()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case line := <-lines:
			if line == nil {
				c.write(encodeError(mcp.ID{}, &mcp.Error{Code: mcp.CodeInvalidRequest, Message: "message exceeds the size bound"}))
				continue
			}
			c.handle(work, line)
		}
	}
}

type hostConn struct {
	b   *Bridge
	log *slog.Logger
	wg  sync.WaitGroup

	mu       sync.Mutex // guards w, inflight, legacy
	w        io.Writer
	inflight map[string]context.CancelFunc
	legacy   string // the handshake-era version initialize negotiated
	broken   bool
}

func (c *hostConn) write(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(b)
}

func (c *hostConn) writeLocked(b []byte) {
	if c.broken {
		return
	}
	var line bytes.Buffer
	if json.Compact(&line, b) != nil {
		return
	}
	line.WriteByte('\n')
	if _, err := c.w.Write(line.Bytes()); err != nil {
		c.broken = true
	}
}

// hostMessage is what the bridge reads of a Host's message.
type hostMessage struct {
	req         *mcp.Request
	params      map[string]json.RawMessage
	meta        map[string]json.RawMessage
	modern      bool
	version     string
	name        string
	traceparent string
	body        []byte
}

func (c *hostConn) handle(ctx context.Context, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	req, derr := mcp.DecodeRequest(line)
	if derr != nil {
		id := mcp.ID{}
		if req != nil {
			id = req.ID
		}
		c.write(encodeError(id, derr))
		return
	}
	m, perr := c.read(req, line)
	if perr != nil {
		if !req.Notification {
			c.write(encodeError(req.ID, perr))
		}
		return
	}
	if req.Method == "notifications/cancelled" {
		c.cancel(m)
		if !m.modern {
			// Handshake-era servers are told too; 2026-07-28 has no
			// notification over HTTP: closing the stream is the cancellation.
			c.forwardNotification(ctx, m)
		}
		return
	}
	if req.Notification {
		c.forwardNotification(ctx, m)
		return
	}
	key := req.ID.String()
	c.mu.Lock()
	if _, dup := c.inflight[key]; dup || len(c.inflight) >= maxInFlight {
		c.mu.Unlock()
		msg := "a request with this id is already in flight"
		if !dup {
			msg = "too many requests in flight"
		}
		c.write(encodeError(req.ID, &mcp.Error{Code: mcp.CodeInvalidRequest, Message: msg}))
		return
	}
	reqCtx, cancel := context.WithCancel(ctx)
	c.inflight[key] = cancel
	c.mu.Unlock()
	run := func() {
		defer cancel()
		c.forward(reqCtx, m)
		c.mu.Lock()
		delete(c.inflight, key)
		c.mu.Unlock()
	}
	if !m.modern && req.Method == "initialize" {
		run() // the negotiated era applies to the lines after it
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		run()
	}()
}

// read parses what the bridge needs of a message and decides its era, as
// the server's stdio does; it adds a traceparent to _meta when the Host
// sent none.
func (c *hostConn) read(req *mcp.Request, line []byte) (*hostMessage, *mcp.Error) {
	m := &hostMessage{req: req, body: line, params: map[string]json.RawMessage{}, meta: map[string]json.RawMessage{}}
	if req.Params != nil {
		if err := json.Unmarshal(req.Params, &m.params); err != nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "params must be an object"}
		}
	}
	hasMeta := false
	if raw, ok := m.params["_meta"]; ok {
		if err := json.Unmarshal(raw, &m.meta); err != nil || m.meta == nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "_meta must be an object"}
		}
		hasMeta = true
	}
	version := jsonString(m.meta["io.modelcontextprotocol/protocolVersion"])
	c.mu.Lock()
	legacy := c.legacy
	c.mu.Unlock()
	switch {
	case version != "" || hasMeta && legacy == "":
		m.modern, m.version = true, version
	case legacy != "":
		m.version = legacy
	case req.Method == "initialize":
		// no version header on the handshake itself
	default:
		m.modern = true // the remote answers that _meta is required
	}
	switch req.Method {
	case "tools/call", "prompts/get":
		m.name = jsonString(m.params["name"])
	case "resources/read":
		m.name = jsonString(m.params["uri"])
	}
	if req.Notification {
		return m, nil
	}
	m.traceparent = jsonString(m.meta["traceparent"])
	if !validTraceparent(m.traceparent) {
		m.traceparent = NewTraceparent()
		tp, _ := json.Marshal(m.traceparent)
		m.meta["traceparent"] = tp
		meta, _ := json.Marshal(m.meta)
		m.params["_meta"] = meta
		params, _ := json.Marshal(m.params)
		env := map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": json.RawMessage(req.ID.String()), "params": params}
		env["method"], _ = json.Marshal(req.Method)
		m.body, _ = json.Marshal(env)
	}
	return m, nil
}

func (c *hostConn) message(m *hostMessage) Message {
	return Message{Body: m.body, Method: m.req.Method, Notification: m.req.Notification, Modern: m.modern,
		Version: m.version, Name: m.name, Traceparent: m.traceparent}
}

func (c *hostConn) forwardNotification(ctx context.Context, m *hostMessage) {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if _, err := c.b.Remote.Send(ctx, c.message(m), nil); err != nil {
			c.log.Debug("notification not delivered", "method", m.req.Method, "err", err)
		}
	}()
}

// forward sends one request and writes its answer, or a structured error,
// unless the Host cancelled it.
func (c *hostConn) forward(ctx context.Context, m *hostMessage) {
	start := time.Now()
	notify := func(b []byte) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if ctx.Err() == nil {
			c.writeLocked(b)
		}
	}
	resp, err := c.b.Remote.Send(ctx, c.message(m), notify)
	rec := []slog.Attr{slog.String("method", m.req.Method)}
	if m.name != "" {
		rec = append(rec, slog.String("target", m.name))
	}
	rec = append(rec, slog.Int64("duration_ms", time.Since(start).Milliseconds()), slog.String("trace_id", traceID(m.traceparent)))
	c.mu.Lock()
	defer c.mu.Unlock()
	if ctx.Err() != nil || isCancelled(err) {
		// Cancelled by the Host (or the Host is gone): nothing more is
		// written for the request.
		c.log.LogAttrs(ctx, slog.LevelInfo, "invocation", append(rec, slog.String("outcome", "cancelled"))...)
		return
	}
	var re *Error
	if errors.As(err, &re) {
		c.log.LogAttrs(ctx, slog.LevelWarn, "invocation", append(rec, slog.String("outcome", "remote_error"), slog.String("reason", re.Reason))...)
		c.writeLocked(encodeError(m.req.ID, re.RPC(c.b.Remote.Redacted())))
		return
	}
	outcome, code := outcomeOf(resp)
	rec = append(rec, slog.String("outcome", outcome))
	if code != 0 {
		rec = append(rec, slog.Int("error_code", code))
	}
	c.log.LogAttrs(ctx, slog.LevelInfo, "invocation", rec...)
	if !m.modern && m.req.Method == "initialize" && outcome == "ok" {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(resp, &r) == nil && r.Result.ProtocolVersion != "" {
			c.legacy = r.Result.ProtocolVersion
		}
	}
	c.writeLocked(resp)
}

func isCancelled(err error) bool {
	var re *Error
	return errors.As(err, &re) && re.Reason == "CANCELLED"
}

// outcomeOf is the invocation log's outcome of a response: ok, tool_error
// (a tool result with isError) or rpc_error with its code.
func outcomeOf(resp []byte) (string, int) {
	var r struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(resp, &r)
	switch {
	case r.Error != nil:
		return "rpc_error", r.Error.Code
	case r.Result != nil && r.Result.IsError:
		return "tool_error", 0
	}
	return "ok", 0
}

// cancel stops the request a notifications/cancelled names.
func (c *hostConn) cancel(m *hostMessage) {
	raw := bytes.TrimSpace(m.params["requestId"])
	if len(raw) == 0 {
		return
	}
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return
	}
	c.mu.Lock()
	cancel, ok := c.inflight[compact.String()]
	c.mu.Unlock()
	if ok {
		cancel()
	}
}

// encodeError renders a JSON-RPC error response (an absent id is omitted).
func encodeError(id mcp.ID, e *mcp.Error) []byte {
	r := struct {
		JSONRPC string     `json:"jsonrpc"`
		ID      *mcp.ID    `json:"id,omitempty"`
		Error   *mcp.Error `json:"error"`
	}{JSONRPC: "2.0", Error: e}
	if !id.IsZero() {
		r.ID = &id
	}
	b, _ := json.Marshal(r)
	return b
}

func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// NewTraceparent starts a W3C trace: version 00, a random trace id and
// span id, sampled.
func NewTraceparent() string {
	var b [24]byte
	rand.Read(b[:])
	return "00-" + hex.EncodeToString(b[:16]) + "-" + hex.EncodeToString(b[16:]) + "-01"
}

func validTraceparent(tp string) bool {
	parts := strings.Split(tp, "-")
	if len(parts) != 4 || parts[0] != "00" || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return false
	}
	for _, p := range parts[1:] {
		if _, err := hex.DecodeString(p); err != nil || strings.ToLower(p) != p {
			return false
		}
	}
	return strings.Trim(parts[1], "0") != "" && strings.Trim(parts[2], "0") != ""
}

// traceID is the trace id of a traceparent.
func traceID(tp string) string {
	if parts := strings.Split(tp, "-"); len(parts) == 4 {
		return parts[1]
	}
	return ""
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
