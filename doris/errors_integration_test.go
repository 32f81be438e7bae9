package doris_test

import (
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestDorisErrorsNameTheProblem: what a Host needs to fix its SQL reaches
// it (the missing object, where parsing stopped), sanitised; the rest of
// Doris's text does not.
func TestDorisErrorsNameTheProblem(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	for _, tc := range []struct {
		sql, reason, object string
	}{
		{"SELECT * FROM no_such_table", "QUERY_OBJECT_NOT_FOUND", "no_such_table"},
		{"SELECT nope_col FROM orders", "QUERY_OBJECT_NOT_FOUND", "nope_col"},
		{"SELECT * FROM orders\nWHERE status = 'paid' GROUP", "QUERY_SYNTAX_ERROR", ""},
	} {
		ev := e.Call("doris_query", "execute_query", map[string]any{"sql": tc.sql})
		if ev.Mode != "error" || ev.Error.Details.ReasonCode != tc.reason {
			t.Errorf("%q: %s", tc.sql, ev.Raw)
			continue
		}
		if tc.object != "" && !strings.Contains(string(ev.Raw), `"object":"`+tc.object+`"`) {
			t.Errorf("%q: the missing object is not named: %s", tc.sql, ev.Raw)
		}
		if tc.reason == "QUERY_SYNTAX_ERROR" {
			p := ev.Error.Details.Position
			// The statement ends where Doris expected BY: the position is
			// the end of the caller's text.
			if p == nil || *p != len(tc.sql) {
				t.Errorf("%q: position %v, want %d: %s", tc.sql, p, len(tc.sql), ev.Raw)
			}
		}
		if strings.Contains(ev.Error.Message, "errCode") || strings.Contains(ev.Error.Message, "detailMessage") {
			t.Errorf("%q: backend text in the message: %q", tc.sql, ev.Error.Message)
		}
	}
}
