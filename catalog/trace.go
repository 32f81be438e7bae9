package catalog

import (
	"context"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// What the protocol layer needs of the Doris side, as plain values: mcp
// imports catalog, never doris.

// Trace is a call's W3C trace context. mcp reads the caller's from
// _meta.traceparent; the doris core writes it in front of every
// statement the call sends, so Doris's audit log names the call.
type Trace = doris.Trace

// StartTrace continues the caller's traceparent (a malformed or empty one
// is dropped) in a new span, or starts a new trace.
func StartTrace(traceparent string) Trace {
	return doris.NewTrace(doris.ParseTraceparent(traceparent))
}

// WithTrace returns ctx carrying t, for every statement the call sends.
func WithTrace(ctx context.Context, t Trace) context.Context { return doris.WithTrace(ctx, t) }

// GuardReasons are the reasons a guard refusal is counted under: the
// bounded label set of refusal metrics.
func GuardReasons() []string { return doris.GuardReasons() }
