package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// maxInFlight bounds concurrent requests on one stdio connection.
const maxInFlight = 64

// ServeStdio serves newline-delimited JSON-RPC messages from r, writing
// responses and request-scoped notifications to w, one per line. It returns
// when r reaches EOF (the client closed stdin) or ctx is done (a signal):
// it stops reading, lets the calls in flight finish within
// Options.ShutdownGrace, then aborts the rest, each answered with a
// retryable SERVER_SHUTTING_DOWN error once its query is stopped inside
// Doris. The error is nil unless reading failed.
//
// Modern requests (with _meta) are served statelessly. A legacy client's
// initialize selects the handshake era for this connection's requests that
// carry no _meta: the dual-era migration path.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	conn := &stdioConn{s: s, w: w, inflight: map[string]context.CancelFunc{}}
	// Calls outlive ctx: a signal starts the shutdown, it does not cut
	// calls off. Abort, or the end of ServeStdio, stops them.
	work, stopWork := context.WithCancel(s.life.stop)
	defer func() {
		stopWork()
		conn.wg.Wait()
	}()
	reading, stopReading := context.WithCancel(ctx)
	defer stopReading()

	lines, readErr := ReadLines(reading, r)
	for {
		select {
		case <-ctx.Done():
			conn.shutdown()
			return nil
		case err := <-readErr:
			conn.shutdown()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case line := <-lines:
			if line == nil {
				conn.write(encodeError(ID{}, errorf(CodeInvalidRequest, "message exceeds %d bytes", MaxMessageBytes)))
				continue
			}
			conn.handle(work, line)
		}
	}
}

// shutdown drains the connection: the calls in flight get the grace period
// to finish, then the rest are aborted and answer.
func (c *stdioConn) shutdown() {
	c.s.Drain()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	grace := time.NewTimer(c.s.opts.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
		return
	case <-grace.C:
	}
	c.s.Abort()
	select {
	case <-done:
	case <-time.After(AbortWait):
	}
}

type stdioConn struct {
	s  *Server
	wg sync.WaitGroup

	mu       sync.Mutex // protects w, inflight, legacy
	w        io.Writer
	inflight map[string]context.CancelFunc // request id -> cancel
	legacy   string                        // version chosen by initialize, "" if none
	broken   bool                          // a write failed; write nothing more
}

func (c *stdioConn) write(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(b)
}

func (c *stdioConn) writeLocked(b []byte) {
	if c.broken {
		return
	}
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.broken = true
	}
}

// handle serves one line: decoded and dispatched in order, then run on a
// goroutine of its own (except a legacy initialize, served before the next
// line is read).
func (c *stdioConn) handle(ctx context.Context, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	req, derr := DecodeRequest(line)
	if derr != nil {
		id := ID{}
		if req != nil {
			id = req.ID
		}
		c.write(encodeError(id, derr))
		return
	}
	if req.Method == "notifications/cancelled" {
		c.cancel(req.Params)
		return
	}
	cl, perr := newCall(req, modern)
	if perr != nil {
		if !req.Notification {
			c.write(encodeError(req.ID, perr))
		}
		return
	}
	cl.transport = "stdio" // telemetry.go
	c.chooseEra(cl)
	if req.Notification {
		cl.ctx = ctx
		c.s.serve(cl)
		return
	}
	run, ok := c.begin(ctx, cl)
	if !ok {
		return
	}
	if cl.era == legacy && req.Method == "initialize" {
		// The handshake is served before the next line is read, so a
		// request the client sends right after it (a ping, say) already
		// belongs to the negotiated era. It does no I/O.
		run()
		return
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		run()
	}()
}

// chooseEra decides the era of a request on this connection: modern when
// it carries _meta (or no initialize happened), else the era initialize
// negotiated, the dual-era migration path.
func (c *stdioConn) chooseEra(cl *call) {
	meta := cl.p.meta
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case meta.hasVersion || meta.hasMeta && c.legacy == "":
		cl.era = modern
	case c.legacy != "":
		cl.era, cl.version = legacy, c.legacy
	case cl.req.Method == "initialize":
		cl.era = legacy
	default:
		cl.era = modern // answered with "_meta is required"
	}
}

// begin registers a request in flight and returns the function that serves
// it and writes its response; false when it was refused (a duplicate id,
// too many in flight) and already answered.
func (c *stdioConn) begin(ctx context.Context, cl *call) (func(), bool) {
	req := cl.req
	key := string(req.ID.raw)
	c.mu.Lock()
	if _, dup := c.inflight[key]; dup || len(c.inflight) >= maxInFlight {
		c.mu.Unlock()
		msg := "a request with this id is already in flight"
		if !dup {
			msg = "too many requests in flight"
		}
		c.write(encodeError(req.ID, errorf(CodeInvalidRequest, "%s", msg)))
		return nil, false
	}
	reqCtx, cancel := context.WithCancel(ctx)
	c.inflight[key] = cancel
	c.mu.Unlock()
	cl.ctx, cl.id = reqCtx, auth.Anonymous()
	cl.notify = func(method string, params any) {
		b, err := encodeNotification(method, params)
		if err != nil {
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if reqCtx.Err() == nil {
			c.writeLocked(b)
		}
	}
	return func() {
		result, rerr := c.s.serve(cl)
		var b []byte
		if rerr != nil {
			b = encodeError(req.ID, rerr)
		} else if enc, err := encodeResult(req.ID, result); err == nil {
			b = enc
		} else {
			b = encodeError(req.ID, errorf(CodeInternalError, "internal error"))
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.inflight, key)
		cancelled := reqCtx.Err() != nil && !c.s.aborted()
		cancel()
		if cancelled {
			return // cancelled by the client: send nothing more for it
		}
		if cl.era == legacy && req.Method == "initialize" && rerr == nil {
			c.legacy = cl.version
		}
		c.writeLocked(b)
	}, true
}

// cancel handles notifications/cancelled: the named request stops and gets
// no response. Unknown or finished ids are ignored.
func (c *stdioConn) cancel(params json.RawMessage) {
	p, err := readParams(params)
	if err != nil || p.requestID == nil {
		return
	}
	c.mu.Lock()
	cancel, ok := c.inflight[string(bytes.TrimSpace(p.requestID))]
	c.mu.Unlock()
	if ok {
		cancel()
	}
}
