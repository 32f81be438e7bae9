package doris_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// FuzzParseTraceparent: whatever a client sends as traceparent, a value
// that parses yields a trace whose comment is plain hex inside a closed
// comment, so prepending it to a checked statement changes nothing the
// guard would judge; anything else is dropped.
func FuzzParseTraceparent(f *testing.F) {
	for _, s := range []string{"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-*/ DROP TABLE t; /*",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'*/", "", "ff-" + strings.Repeat("a", 52)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		caller, ok := doris.ParseTraceparent(s)
		if !ok {
			return
		}
		tr := doris.NewTrace(caller, true)
		ctx := doris.WithTrace(context.Background(), tr)
		got, ok := doris.TraceFrom(ctx)
		if !ok || got != tr {
			t.Fatalf("%q parsed but its trace %+v is not carried", s, tr)
		}
		const q = "SELECT 1"
		stmt := "/*traceparent='" + tr.Traceparent() + "'*/ " + q
		st, err := guard.Check(stmt)
		if err != nil || !strings.HasSuffix(st.SQL, q) {
			t.Fatalf("%q: the traced statement %q does not check as the statement: %v", s, stmt, err)
		}
		for _, c := range tr.Traceparent() {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c == '-') {
				t.Fatalf("%q: traceparent %q has %q", s, tr.Traceparent(), c)
			}
		}
	})
}

// FuzzRedactArguments: the redacted arguments are valid JSON within the
// cap, and never hold a string value longer than a name unless it passed
// the statement sanitiser.
func FuzzRedactArguments(f *testing.F) {
	for _, s := range []string{`{"sql":"SELECT 'a' FROM t","parameters":{"p":"x"}}`, `{"password":"x","q":"free text"}`,
		`{"a":[{"b":"c d"}]}`, `[]`, `{`, `{"sql":"SELECT '\u0000"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _ := doris.RedactArguments(json.RawMessage(in))
		if !json.Valid(out) || len(out) > 16<<10 {
			t.Fatalf("RedactArguments(%q) = %q: invalid or over the cap", in, out)
		}
		var v any
		json.Unmarshal(in, &v)
		if m, ok := v.(map[string]any); ok {
			for k, val := range m {
				if s, ok := val.(string); ok && len(s) > 64 && k != "sql" && strings.Contains(string(out), s) {
					t.Fatalf("the value of %q passed through unmasked: %q", k, out)
				}
			}
		}
	})
}
