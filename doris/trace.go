package doris

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// Trace ids: one W3C trace context per MCP call, carried into Doris on
// every statement the call sends.
//
// The protocol layer takes the caller's traceparent from params._meta (or
// mints a trace) and puts it in the call's context with WithTrace. Every
// statement that then reaches the connection boundary starts with
//
//	/*traceparent='00-<trace id>-<span id>-<flags>'*/
//
// (the sqlcommenter form). Doris keeps a statement's text as it was sent:
// the comment shows in the audit log's stmt column (every version), in
// SHOW PROC '/current_queries' and in SHOW PROCESSLIST, so a DBA finds the
// queries of one MCP call with a LIKE on the trace id. It costs bytes, not
// a round trip. The session variable session_context ("trace_id:<id>",
// which feeds the profile's Trace ID and the FE's trace-id API) is set
// only where the server itself turns profiling on: a statement without a
// profile has nothing for that API to find, and setting it on every call
// would cost a round trip per call.

// Trace is the trace context of one call: the trace it belongs to and the
// span id this server gave the call.
type Trace struct {
	// ID is the trace id: 32 lower-case hex digits, not all zero.
	ID string
	// Span is this call's span id: 16 lower-case hex digits.
	Span string
	// Flags are the trace flags (2 hex digits), as the caller sent them.
	Flags string
}

// maxTraceparent bounds the traceparent value read from _meta.
const maxTraceparent = 512

// ParseTraceparent reads a W3C traceparent value
// ("00-<32 hex>-<16 hex>-<2 hex>"). Version ff, all-zero ids, upper-case
// hex and a version-00 value with anything after the flags are invalid; a
// later version may carry more fields after a dash, which are ignored.
// The caller's parent span id is not kept: the call gets a span of its
// own (NewTrace).
func ParseTraceparent(s string) (Trace, bool) {
	if len(s) < 55 || len(s) > maxTraceparent {
		return Trace{}, false
	}
	if s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return Trace{}, false
	}
	version, id, parent, flags := s[0:2], s[3:35], s[36:52], s[53:55]
	if !lowerHex(version) || version == "ff" || !lowerHex(id) || !lowerHex(parent) || !lowerHex(flags) ||
		allZero(id) || allZero(parent) {
		return Trace{}, false
	}
	if len(s) > 55 && (version == "00" || s[55] != '-') {
		return Trace{}, false
	}
	return Trace{ID: id, Flags: flags}, true
}

// NewTrace returns the trace of a call: the caller's trace (from
// ParseTraceparent) with a fresh span id, or, when the caller sent none, a
// new trace, not sampled.
func NewTrace(caller Trace, ok bool) Trace {
	var b [24]byte
	var h [48]byte
	rand.Read(b[:])
	hex.Encode(h[:], b[:])
	ids := string(h[:]) // one allocation for both ids
	t := Trace{ID: ids[:32], Span: ids[32:], Flags: "00"}
	if ok {
		t.ID, t.Flags = caller.ID, caller.Flags
	}
	return t
}

// Traceparent renders t as a version-00 traceparent value.
func (t Trace) Traceparent() string {
	if t.ID == "" {
		return ""
	}
	return "00-" + t.ID + "-" + t.Span + "-" + t.Flags
}

type traceKey struct{}

// traceCtx is a context carrying a trace: the value and its context in
// one allocation, on every request's path.
type traceCtx struct {
	context.Context
	t Trace
}

func (c *traceCtx) Value(key any) any {
	if _, ok := key.(traceKey); ok {
		return &c.t
	}
	return c.Context.Value(key)
}

// WithTrace returns ctx carrying t: every statement sent under it carries
// t into Doris, and error envelopes and log lines name t.ID. A t without
// a valid id is ignored.
func WithTrace(ctx context.Context, t Trace) context.Context {
	if len(t.ID) != 32 || !lowerHex(t.ID) || len(t.Span) != 16 || !lowerHex(t.Span) || len(t.Flags) != 2 || !lowerHex(t.Flags) {
		return ctx
	}
	return &traceCtx{Context: ctx, t: t}
}

// TraceFrom returns the trace ctx carries, if any.
func TraceFrom(ctx context.Context) (Trace, bool) {
	if t, ok := ctx.Value(traceKey{}).(*Trace); ok {
		return *t, true
	}
	return Trace{}, false
}

// traced returns query led by the comment of the trace ctx carries (query
// itself without one), in one allocation. The comment is built from
// validated hex digits only, so it cannot change what a checked
// statement does.
func traced(ctx context.Context, query string) string {
	t, ok := ctx.Value(traceKey{}).(*Trace)
	if !ok {
		return query
	}
	return "/*traceparent='00-" + t.ID + "-" + t.Span + "-" + t.Flags + "'*/ " + query
}

// StatementTrace is the trace id in the /*traceparent='...'*/ comment that
// leads stmt (traced puts one on every statement this server sends), or
// "" when stmt has none or it is malformed. Read from an audit log, it
// names the MCP call that sent the statement.
func StatementTrace(stmt string) string {
	rest, ok := strings.CutPrefix(strings.TrimLeft(stmt, " \t\r\n"), "/*traceparent='")
	if !ok {
		return ""
	}
	value, _, ok := strings.Cut(rest, "'*/")
	if !ok {
		return ""
	}
	t, ok := ParseTraceparent(value)
	if !ok {
		return ""
	}
	return t.ID
}

// traceComment is the comment that leads the statements sent under ctx
// ("" without a trace).
func traceComment(ctx context.Context) string { return traced(ctx, "") }

// sessionTraceID is the trace id to put in session_context for a profiled
// statement: the call's own, or a fresh one outside a call.
func sessionTraceID(ctx context.Context) string {
	if t, ok := TraceFrom(ctx); ok {
		return t.ID
	}
	return NewTrace(Trace{}, false).ID
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func allZero(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}
