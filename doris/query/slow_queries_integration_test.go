package query_test

// list_slow_queries end to end: who may call it (the audit log's own
// grant decides, on every simulated release) and which records a window
// of N minutes selects (exactly N minutes by Doris's clock).

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestSlowQueriesFollowAuditGrant: an account granted SELECT on exactly
// the audit log (what a Doris administrator grants to let someone read it)
// can list slow queries on every release; an account without that grant
// sees the child unavailable with CAPABILITY_PROBE_PERMISSION_DENIED, and
// calling it anyway says so instead of running.
//
// Before the fix, 2.1 and 4.0 read the audit log through a view in the
// simulator's private schema, so the grant on the audit log itself was not
// enough and the probe was refused for the first account too.
func TestSlowQueriesFollowAuditGrant(t *testing.T) {
	in := mariadb.SharedFor(t)
	doristest.NewAccount(t, in, "lh_auditor", "lh_auditor-pw-7Qx", "SELECT ON __internal_schema.audit_log", "SELECT ON demo.*")
	doristest.NewAccount(t, in, "lh_blind", "lh_blind-pw-7Qx", "SELECT ON demo.*")
	// The simulator logs in upstream as each account; its own audit log
	// writer stays off, so that the accounts' grants decide alone.
	as := func(p, user, pw string) *doristest.Env {
		return doristest.NewEnv(t, doristest.EnvOpts{Profile: p, User: user, Password: pw, Users: map[string]string{user: pw}, NoAudit: true})
	}
	for _, p := range []string{"2.1", "3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			e := as(p, "lh_auditor", "lh_auditor-pw-7Qx")
			a := e.Discover("doris_query").Availability(t, "list_slow_queries").Availability
			if !a.Callable || a.ReasonCode != "CAPABILITY_VERIFIED" {
				t.Fatalf("auditor: got %+v, want callable with CAPABILITY_VERIFIED", a)
			}
			var c doristest.CollectionOf
			e.Ok("doris_query", "list_slow_queries", map[string]any{"window_minutes": 5000, "min_duration_ms": 0, "limit": 3}).Decode(t, &c)
			if len(c.Items) != 3 {
				t.Fatalf("auditor: got %d records, want 3", len(c.Items))
			}
			// The same grant lets it describe the audit log.
			q, _, _ := e.Query(map[string]any{"sql": "DESC internal.__internal_schema.audit_log"})
			if q.RowCount < 20 || q.Rows[0]["Field"] != "query_id" {
				t.Fatalf("auditor: DESC audit_log: got %d rows, first %v", q.RowCount, q.Rows[0])
			}

			e = as(p, "lh_blind", "lh_blind-pw-7Qx")
			a = e.Discover("doris_query").Availability(t, "list_slow_queries").Availability
			if a.Callable || a.ReasonCode != "CAPABILITY_PROBE_PERMISSION_DENIED" {
				t.Fatalf("blind: got %+v, want unavailable with CAPABILITY_PROBE_PERMISSION_DENIED", a)
			}
			e.Fail("doris_query", "list_slow_queries", map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", "CAPABILITY_PROBE_PERMISSION_DENIED")
			e.Fail("doris_query", "execute_query", map[string]any{"sql": "DESC internal.__internal_schema.audit_log"},
				"CHILD_EXECUTION_FAILED", "QUERY_PERMISSION_DENIED")
		})
	}
}

// TestSlowQueriesWindowMinutes: window_minutes selects records newer than
// exactly that many minutes before Doris's now. Records are planted at
// offsets 30 s either side of each window edge (so the few seconds the test
// takes cannot move one across), and the expected set is computed here
// from the offsets; rounding the window up to whole days, as the reference
// does, would take in the records just outside 1, 60 and 61 minutes.
func TestSlowQueriesWindowMinutes(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{NoAudit: true})
	const user = "lh_window_probe"
	offsets := []int{30, 90, 3570, 3630, 3690, 86370, 86430} // seconds before now
	t.Cleanup(func() { e.RootDB().Exec("DELETE FROM __internal_schema.audit_log WHERE `user` = ?", user) })
	for i, off := range offsets {
		_, err := e.RootDB().Exec("INSERT INTO __internal_schema.audit_log (query_id, `time`, `user`, `catalog`, db, state, "+
			"query_time, is_query, stmt) VALUES (?, NOW(3) - INTERVAL ? SECOND, ?, 'internal', 'demo', 'EOF', ?, 1, 'SELECT 1')",
			fmt.Sprintf("lhwindow%04d-0000000000000000", i), off, user, 2000+i)
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, window := range []int{1, 2, 60, 61, 1439, 1441} {
		var want []string
		for i, off := range offsets {
			if off < window*60 {
				want = append(want, fmt.Sprintf("lhwindow%04d-0000000000000000", i))
			}
		}
		var c struct {
			Items []struct {
				QueryID string `json:"query_id"`
			} `json:"items"`
		}
		e.Ok("doris_query", "list_slow_queries", map[string]any{"window_minutes": window, "user": user, "min_duration_ms": 0,
			"limit": 100}).Decode(t, &c)
		var got []string
		for _, it := range c.Items {
			got = append(got, it.QueryID)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("window_minutes=%d: got %s, want %s", window, strings.Join(got, " "), strings.Join(want, " "))
		}
	}
}

// TestSlowQueriesNameTheirCall: a statement sent through execute_query is
// listed with the trace id of the call that sent it, as the audit log
// stored it behind the call's traceparent comment; a statement sent
// without one is listed with trace_id null.
func TestSlowQueriesNameTheirCall(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	marker := "slow_marker_" + doristest.Uniq(t)
	e.Query(map[string]any{"sql": "SELECT 1 AS " + marker})
	if _, err := e.RootDB().Exec("INSERT INTO __internal_schema.audit_log (query_id, `time`, `user`, `catalog`, db, state, "+
		"query_time, is_query, stmt) VALUES ('untraced0001-0000000000000000', NOW(3), ?, 'internal', 'demo', 'EOF', 987654, 1, ?)",
		mariadb.ReaderUser, "SELECT 2 AS "+marker); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		e.RootDB().Exec("DELETE FROM __internal_schema.audit_log WHERE query_id = 'untraced0001-0000000000000000'")
	})
	e.SyncAudit()
	var stored string
	if err := e.RootDB().QueryRow("SELECT stmt FROM __internal_schema.audit_log WHERE stmt LIKE ?", "/*traceparent='00-%'*/ SELECT 1 AS "+marker).
		Scan(&stored); err != nil {
		t.Fatal(err)
	}
	want := stored[len("/*traceparent='00-"):][:32]
	// Both made the slowest of the window, so that the shared audit log's
	// other statements cannot crowd them out of the page.
	if _, err := e.RootDB().Exec("UPDATE __internal_schema.audit_log SET query_time = 987654 WHERE stmt = ?", stored); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.RootDB().Exec("DELETE FROM __internal_schema.audit_log WHERE stmt = ?", stored) })
	var c struct {
		Items []struct {
			Stmt    string  `json:"stmt"`
			TraceID *string `json:"trace_id"`
		} `json:"items"`
	}
	e.Ok("doris_query", "list_slow_queries", map[string]any{"window_minutes": 10, "user": mariadb.ReaderUser, "min_duration_ms": 987654,
		"limit": 100}).Decode(t, &c)
	seen := 0
	for _, it := range c.Items {
		switch {
		case strings.Contains(it.Stmt, "SELECT 1 AS "+marker):
			seen++
			if it.TraceID == nil || *it.TraceID != want {
				t.Errorf("the traced statement's trace_id is %v, want %s", it.TraceID, want)
			}
		case strings.Contains(it.Stmt, "SELECT 2 AS "+marker):
			seen++
			if it.TraceID != nil {
				t.Errorf("the untraced statement's trace_id is %q, want null", *it.TraceID)
			}
		}
	}
	if seen != 2 {
		t.Fatalf("found %d of the 2 statements among %d items", seen, len(c.Items))
	}
}
