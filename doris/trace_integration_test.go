package doris_test

// Trace ids in Doris: a call's W3C trace reaches Doris on the statements
// it causes, where Doris shows it (the audit log, current_queries), and
// get_query_profile finds the call's profile by it. The truth is read
// straight from the simulator's audit log table in MariaDB and from the
// FE, never from what the child says.

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// traced returns a fresh trace as a Host would send it.
func traced(t *testing.T) doris.Trace {
	t.Helper()
	caller, ok := doris.ParseTraceparent(doris.NewTrace(doris.Trace{}, false).Traceparent())
	if !ok {
		t.Fatal("a minted traceparent does not parse")
	}
	return doris.NewTrace(caller, true)
}

func TestTraceReachesTheAuditLog(t *testing.T) {
	for _, p := range []string{"2.1", "3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			tr := traced(t)
			const q = "SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY status"
			ev := e.TracedCall(tr, "doris_query", "execute_query", map[string]any{"sql": q})
			if ev.Mode != "result" {
				t.Fatalf("execute_query: %s", ev.Raw)
			}
			e.SyncAudit()
			rows, err := e.RootDB().Query("SELECT stmt FROM __internal_schema.audit_log WHERE stmt LIKE ? ORDER BY stmt_id",
				"%"+tr.ID+"%")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var stmts []string
			for rows.Next() {
				var s string
				rows.Scan(&s)
				stmts = append(stmts, s)
			}
			want := "/*traceparent='00-" + tr.ID + "-" + tr.Span + "-" + tr.Flags + "'*/ " + q
			found := false
			for _, s := range stmts {
				if !strings.HasPrefix(s, "/*traceparent='00-"+tr.ID+"-"+tr.Span+"-") {
					t.Errorf("audit row of the trace does not lead with its comment: %q", s)
				}
				found = found || s == want
			}
			if !found {
				t.Fatalf("the audit log has no row %q among the trace's %d: %q", want, len(stmts), stmts)
			}
		})
	}
}

// TestTraceInCurrentQueriesAndErrorEnvelope: while a call's statement
// runs, SHOW PROC '/current_queries' shows it with the call's trace; the
// call then times out, and its error envelope names the trace.
func TestTraceInCurrentQueriesAndErrorEnvelope(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	admin := e.SimDB("root", mariadb.DefaultRootPassword)
	tr := traced(t)
	// A cross join MariaDB takes seconds over; the call's own timeout
	// ends it.
	const q = "SELECT COUNT(*) FROM order_items a CROSS JOIN order_items b CROSS JOIN order_items c"
	done := make(chan *doristest.Envelope, 1)
	go func() {
		done <- e.TracedCall(tr, "doris_query", "execute_query", map[string]any{"sql": q, "timeout_ms": 2000})
	}()
	seen := ""
	for seen == "" {
		select {
		case ev := <-done:
			t.Fatalf("the call ended before current_queries showed it: %s", ev.Raw)
		case <-time.After(20 * time.Millisecond):
		}
		rows, err := admin.Query("SHOW PROC '/current_queries'")
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			for i, c := range cols {
				if s, _ := vals[i].([]byte); c == "Statement" && strings.Contains(string(s), tr.ID) {
					seen = string(s)
				}
			}
		}
		rows.Close()
	}
	if want := "/*traceparent='" + tr.Traceparent() + "'*/ " + q; seen != want {
		t.Fatalf("current_queries Statement %q, want %q", seen, want)
	}
	ev := <-done
	if ev.Mode != "error" || ev.Error.Code != "CHILD_EXECUTION_TIMEOUT" {
		t.Fatalf("want a timeout, got %s", ev.Raw)
	}
	var withTrace struct {
		Error struct {
			TraceID string `json:"trace_id"`
		} `json:"error"`
	}
	json.Unmarshal(ev.Raw, &withTrace)
	if withTrace.Error.TraceID != tr.ID {
		t.Fatalf("error envelope trace_id %q, want %q: %s", withTrace.Error.TraceID, tr.ID, ev.Raw)
	}
}

// TestGetQueryProfileByTraceID: the profile of a call, found by the call's
// trace id, both where the server profiled (session_context: the FE's
// trace-id API) and where a DBA turned profiling on for every session
// (the audit log), and a clear NOT_FOUND where Doris kept no profile.
func TestGetQueryProfileByTraceID(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	var p doristest.Profile

	// A call that profiled: get_query_profile with sql, under trace A.
	a := traced(t)
	ev := e.TracedCall(a, "doris_query", "get_query_profile", map[string]any{"sql": "SELECT COUNT(*) FROM customers"})
	ev.Decode(t, &p)
	if p.TraceID == nil || *p.TraceID != a.ID {
		t.Fatalf("profiled under trace %s, child reports trace %v", a.ID, p.TraceID)
	}
	if body := doristest.FEGet(t, e, "/rest/v2/manager/query/trace_id/"+a.ID); body != `"`+p.QueryID+`"` {
		t.Fatalf("FE trace lookup %s, the profiled query is %s", body, p.QueryID)
	}
	var byTrace doristest.Profile
	e.Ok("doris_query", "get_query_profile", map[string]any{"trace_id": a.ID}).Decode(t, &byTrace)
	if byTrace.QueryID != p.QueryID || !strings.Contains(byTrace.ProfileText, "Profile ID: "+p.QueryID) {
		t.Fatalf("by trace id: query %s, want %s", byTrace.QueryID, p.QueryID)
	}

	// A call that did not profile: nothing to find, said plainly.
	c := traced(t)
	e.TracedCall(c, "doris_query", "execute_query", map[string]any{"sql": "SELECT 1"})
	e.SyncAudit()
	nf := e.Fail("doris_query", "get_query_profile", map[string]any{"trace_id": c.ID}, "CHILD_EXECUTION_FAILED", "QUERY_PROFILE_NOT_FOUND")
	if !strings.Contains(nf.Error.Message, "without a profile") {
		t.Fatalf("not-profiled trace: %s", nf.Raw)
	}
	unknown := e.Fail("doris_query", "get_query_profile", map[string]any{"trace_id": strings.Repeat("ab", 16)}, "CHILD_EXECUTION_FAILED", "QUERY_PROFILE_NOT_FOUND")
	if !unknown.Error.Retryable {
		t.Fatalf("an unknown trace may still be loading into the audit log: %s", unknown.Raw)
	}

	// Any call, once a DBA profiles every new session.
	f := doristest.NewEnv(t, doristest.EnvOpts{})
	f.Exec(f.SimDB("root", mariadb.DefaultRootPassword), "SET GLOBAL enable_profile = true")
	b := traced(t)
	const q = "SELECT segment, COUNT(*) FROM customers GROUP BY segment"
	if ev := f.TracedCall(b, "doris_query", "execute_query", map[string]any{"sql": q}); ev.Mode != "result" {
		t.Fatalf("execute_query: %s", ev.Raw)
	}
	f.SyncAudit()
	var qid string
	if err := f.RootDB().QueryRow("SELECT query_id FROM __internal_schema.audit_log WHERE stmt = ?",
		"/*traceparent='"+b.Traceparent()+"'*/ "+q).Scan(&qid); err != nil {
		t.Fatalf("the statement's audit row: %v", err)
	}
	var got doristest.Profile
	f.Ok("doris_query", "get_query_profile", map[string]any{"trace_id": b.ID}).Decode(t, &got)
	if got.QueryID != qid || !strings.Contains(got.ProfileText, "Sql Statement: /*traceparent='"+b.Traceparent()+"'*/ "+q) {
		t.Fatalf("by trace id %s: query %s (audit log says %s)\n%s", b.ID, got.QueryID, qid, got.ProfileText)
	}
}

func TestParseTraceparent(t *testing.T) {
	const id, span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	good := []struct{ in, flags string }{
		{"00-" + id + "-" + span + "-01", "01"},
		{"00-" + id + "-" + span + "-00", "00"},
		{"01-" + id + "-" + span + "-01-future-fields", "01"},
	}
	for _, g := range good {
		tr, ok := doris.ParseTraceparent(g.in)
		if !ok || tr.ID != id || tr.Flags != g.flags {
			t.Errorf("ParseTraceparent(%q) = %+v, %v", g.in, tr, ok)
		}
	}
	bad := []string{
		"",
		"00-" + id + "-" + span,
		"00-" + id + "-" + span + "-01-x", // version 00 has nothing after the flags
		"ff-" + id + "-" + span + "-01",   // version ff is invalid
		"00-" + strings.ToUpper(id) + "-" + span + "-01", // upper-case hex
		"00-00000000000000000000000000000000-" + span + "-01",
		"00-" + id + "-0000000000000000-01",
		"00-" + id + "-" + span + "-0g",
		"00_" + id + "-" + span + "-01",
		"01-" + id + "-" + span + "-01x",
		"00-" + id + "-" + span + "-01" + strings.Repeat("-x", 300),
	}
	for _, b := range bad {
		if tr, ok := doris.ParseTraceparent(b); ok {
			t.Errorf("ParseTraceparent(%q) = %+v, want invalid", b, tr)
		}
	}
	// A call keeps the caller's trace and flags and gets a span of its own.
	caller, _ := doris.ParseTraceparent("00-" + id + "-" + span + "-01")
	call := doris.NewTrace(caller, true)
	if call.ID != id || call.Flags != "01" || call.Span == span || len(call.Span) != 16 {
		t.Fatalf("NewTrace(caller) = %+v", call)
	}
	if minted := doris.NewTrace(doris.Trace{}, false); len(minted.ID) != 32 || minted.ID == id || minted.Flags != "00" {
		t.Fatalf("minted trace %+v", minted)
	}
}
