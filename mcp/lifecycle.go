package mcp

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
)

// The server's shutdown, in two steps the program drives (main.go), the
// same for both transports:
//
//  1. Drain: no new work. Requests that arrive are refused with a
//     retryable SERVER_SHUTTING_DOWN error (HTTP 503 with Retry-After),
//     GET /ready answers 503, and calls already running go on.
//  2. Abort, when the grace period ends: every call still running is
//     cancelled. Its query is killed inside Doris (the runtime's
//     cancellation path) and it is answered with SERVER_SHUTTING_DOWN.
type lifecycle struct {
	draining atomic.Bool
	// stop is cancelled by Abort; every call's context ends with it.
	stop  context.Context
	abort context.CancelFunc
}

func newLifecycle() lifecycle {
	ctx, cancel := context.WithCancel(context.Background())
	return lifecycle{stop: ctx, abort: cancel}
}

// retryAfterSeconds is what a client refused during a shutdown is told to
// wait: long enough for a restart or for a load balancer to move it on.
const retryAfterSeconds = 5

// Drain stops the server taking new work; calls already running go on.
// It is idempotent.
func (s *Server) Drain() { s.life.draining.Store(true) }

// Abort cancels every call still running: each is answered with a
// retryable SERVER_SHUTTING_DOWN error once its query has been stopped
// inside Doris. It implies Drain.
func (s *Server) Abort() {
	s.Drain()
	s.life.abort()
}

// Draining reports whether Drain was called.
func (s *Server) Draining() bool { return s.life.draining.Load() }

// BaseContext is the context HTTP requests must derive from, for
// http.Server.BaseContext: Abort cancels it, and with it every request
// still running. (Deriving each call from it costs nothing per call; a
// per-call watch of a shared context would take a shared lock.)
func (s *Server) BaseContext(net.Listener) context.Context { return s.life.stop }

// aborted reports whether in-flight work was abandoned by Abort.
func (s *Server) aborted() bool { return s.life.stop.Err() != nil }

// errShuttingDown answers a request refused, or a call stopped, because
// the server is shutting down. The client did nothing wrong: it may retry.
func errShuttingDown(stopped bool) *Error {
	msg := "the server is shutting down and takes no new requests; retry shortly"
	if stopped {
		msg = "the server is shutting down: the call was stopped before it finished and its query was cancelled inside Doris; retry shortly"
	}
	return &Error{Code: CodeInternalError, Message: msg, retryAfter: retryAfterSeconds,
		Data: map[string]any{"reason": "SERVER_SHUTTING_DOWN", "retryable": true}}
}

// setRetryAfter adds the Retry-After header of an error that has one.
func setRetryAfter(h http.Header, e *Error) {
	if e.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
}
