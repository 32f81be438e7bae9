package doris

import (
	"context"
	"testing"
)

// TestStatementTrace: the trace id is read back from the comment traced
// puts in front of a statement, and from nothing else: a statement with
// no comment, a malformed or unclosed one, or a traceparent comment that
// does not lead the statement yields none. When a caller's own
// traceparent comment follows the server's, the server's leads and wins.
func TestStatementTrace(t *testing.T) {
	tr, other := NewTrace(Trace{}, false), NewTrace(Trace{}, false)
	sent := traced(WithTrace(context.Background(), tr), "SELECT 1")
	forged := "/*traceparent='" + other.Traceparent() + "'*/ SELECT 1" // the caller's own comment
	for _, c := range []struct{ stmt, want string }{
		{sent, tr.ID},
		{"\n  " + sent, tr.ID},
		{forged, other.ID},
		{traced(WithTrace(context.Background(), tr), forged), tr.ID},
		{"SELECT 1", ""},
		{"SELECT 1 " + sent, ""},
		{"/*traceparent='00-" + tr.ID + "-" + tr.Span + "-01 SELECT 1", ""},
		{"/*traceparent='00-" + tr.ID + "'*/ SELECT 1", ""},
		{"/*traceparent='00-00000000000000000000000000000000-" + tr.Span + "-01'*/ SELECT 1", ""},
		{"/* traceparent='" + tr.Traceparent() + "'*/ SELECT 1", ""},
		{"", ""},
	} {
		if got := StatementTrace(c.stmt); got != c.want {
			t.Errorf("statementTrace(%q) = %q, want %q", c.stmt, got, c.want)
		}
	}
}
