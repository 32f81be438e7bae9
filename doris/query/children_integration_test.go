package query_test

// explain_query, get_query_profile, diagnose_query_performance and
// list_slow_queries against the simulator (its EXPLAIN, its FE HTTP
// profile API) and the audit log seeded in MariaDB.

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

func TestExplainQuery(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	// Ground truth: the plan the simulator's FE gives the same account.
	sim := doristest.Direct(t, e.Sim.Addr(), mariadb.ReaderUser, mariadb.ReaderPassword, "demo")
	const q = "SELECT customer_id, total_amount FROM orders WHERE status = 'paid'"
	want := doristest.Strings(t, sim, "EXPLAIN "+q)
	type plan struct {
		Level     string   `json:"level"`
		Plan      []string `json:"plan"`
		Truncated bool     `json:"truncated"`
		Facets    struct {
			Pruning  []map[string]any `json:"partition_pruning"`
			Pushdown []map[string]any `json:"pushdown"`
			Joins    []map[string]any `json:"joins"`
			IndexUse []map[string]any `json:"index_use"`
		} `json:"facets"`
	}
	var p plan
	ev := e.Ok("doris_query", "explain_query", map[string]any{"sql": q})
	cd := ev.Decode(t, &p)
	if !slices.Equal(p.Plan, want) || p.Level != "normal" || p.Truncated || len(cd.Warnings) != 0 {
		t.Fatalf("plan %q\nFE says %q", p.Plan, want)
	}
	if len(p.Facets.Pushdown) != 1 || p.Facets.Pushdown[0]["predicates"] != "status = 'paid'" ||
		len(p.Facets.Pruning) != 1 || p.Facets.Pruning[0]["table"] != "demo.orders" {
		t.Fatalf("facets %+v", p.Facets)
	}
	if cd.Metadata["active_variant"] != "base_explain" {
		t.Fatalf("variant %v", cd.Metadata)
	}
	// verbose, and costs (verbose plus a warning: Doris has no cost-only mode)
	wantV := doristest.Strings(t, sim, "EXPLAIN VERBOSE "+q)
	cd = e.Ok("doris_query", "explain_query", map[string]any{"sql": q, "level": "verbose"}).Decode(t, &p)
	if !slices.Equal(p.Plan, wantV) || len(cd.Warnings) != 0 {
		t.Fatalf("verbose plan differs")
	}
	cd = e.Ok("doris_query", "explain_query", map[string]any{"sql": q, "level": "costs"}).Decode(t, &p)
	if !slices.Equal(p.Plan, wantV) || len(cd.Warnings) != 1 || !strings.Contains(cd.Warnings[0], "VERBOSE") && !strings.Contains(cd.Warnings[0], "verbose") {
		t.Fatalf("costs: %v", cd.Warnings)
	}
	// Joins are reported.
	e.Ok("doris_query", "explain_query", map[string]any{"sql": "SELECT COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.customer_id"}).Decode(t, &p)
	if len(p.Facets.Joins) == 0 {
		t.Fatalf("joins %+v", p.Facets)
	}
	// Only a read can be explained, and the guard sees it first.
	e.Fail("doris_query", "explain_query", map[string]any{"sql": "DELETE FROM orders"}, "CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
	e.Fail("doris_query", "explain_query", map[string]any{"sql": "SHOW TABLES"}, "CHILD_ARGUMENTS_INVALID", "QUERY_EXPLAIN_TARGET_INVALID")
	e.Fail("doris_query", "explain_query", map[string]any{"sql": "SELECT * FROM secret.salaries"}, "CHILD_EXECUTION_FAILED", "QUERY_PERMISSION_DENIED")
	e.Fail("doris_query", "explain_query", map[string]any{"sql": "SELECT * FROM nope"}, "CHILD_EXECUTION_FAILED", "QUERY_OBJECT_NOT_FOUND")
}

func TestGetQueryProfile(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	const q = "SELECT status, COUNT(*) AS n FROM orders GROUP BY status"
	var p doristest.Profile
	ev := e.Ok("doris_query", "get_query_profile", map[string]any{"sql": q, "include_operator_tree": true})
	cd := ev.Decode(t, &p)
	if p.QueryID == "" || p.TraceID == nil || ev.Metadata.Source != "doris_fe_http" || cd.Status != "success" {
		t.Fatalf("profile by sql: %s", ev.Raw)
	}
	// The statement carries the call's trace comment (doris/trace.go), as
	// Doris's profile shows the text it was sent.
	for _, want := range []string{"Profile ID: " + p.QueryID, "Sql Statement: /*traceparent='00-" + *p.TraceID + "-", "'*/ " + q, "User: " + mariadb.ReaderUser, "Task State: OK", "Default Db: demo"} {
		if !strings.Contains(p.ProfileText, want) {
			t.Fatalf("profile lacks %q:\n%s", want, p.ProfileText)
		}
	}
	if len(p.OperatorTree) == 0 || p.OperatorTree[0]["operator"] != "RESULT_SINK_OPERATOR" {
		t.Fatalf("operator tree %v", p.OperatorTree)
	}
	// The query id the FE recorded, straight from the FE HTTP API.
	body := doristest.FEGet(t, e, "/rest/v2/manager/query/trace_id/"+*p.TraceID)
	if body != `"`+p.QueryID+`"` {
		t.Fatalf("FE trace lookup %s, child said %s", body, p.QueryID)
	}
	// The query_id form returns the same profile.
	var byID doristest.Profile
	e.Ok("doris_query", "get_query_profile", map[string]any{"query_id": p.QueryID}).Decode(t, &byID)
	if byID.QueryID != p.QueryID || byID.TraceID != nil || byID.ProfileText != p.ProfileText || byID.OperatorTree != nil {
		t.Fatalf("by id: %+v", byID)
	}
	e.Fail("doris_query", "get_query_profile", map[string]any{"query_id": "0000000000000000-0000000000000000"},
		"CHILD_EXECUTION_FAILED", "QUERY_PROFILE_NOT_FOUND")
	e.Fail("doris_query", "get_query_profile", map[string]any{"sql": "DROP TABLE orders"}, "CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
	e.Fail("doris_query", "get_query_profile", map[string]any{"query_id": "x", "sql": q}, "CHILD_ARGUMENTS_INVALID", "")

	// MAX_RESPONSE_CONTENT_SIZE caps the text.
	small := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxResponseContentSize = 100 }})
	ev = small.Ok("doris_query", "get_query_profile", map[string]any{"sql": q})
	cd = ev.Decode(t, &p)
	if !p.ProfileTruncated || len([]rune(p.ProfileText)) != 100 || !ev.Metadata.Truncated || len(cd.Warnings) != 1 {
		t.Fatalf("capped profile: %s", ev.Raw)
	}
}

// seeded selects the audit-log rows seeded by the MariaDB harness.
const seeded = "stmt_id BETWEEN 1000 AND 2813 AND MOD(stmt_id - 1000, 37) = 0 AND `user` <> 'mcp_writer'"

type diagnosis struct {
	RuleVersion string `json:"rule_version"`
	QueryID     any    `json:"query_id"`
	Findings    []struct {
		Code     string `json:"code"`
		Severity string `json:"severity"`
	} `json:"findings"`
	Sections map[string]struct {
		Status     string `json:"status"`
		ReasonCode string `json:"reason_code"`
	} `json:"sections"`
}

func (d diagnosis) codes() []string {
	var out []string
	for _, f := range d.Findings {
		out = append(out, f.Code)
	}
	slices.Sort(out)
	return out
}

// auditRecord is one row of the seeded audit log, read directly.
type auditRecord struct {
	id, db, stmt                                string
	queryTime, scanRows, returnRows, peakMemory int64
}

func auditRecords(t testing.TB, db *sql.DB, where string) []auditRecord {
	t.Helper()
	rows, err := db.Query("SELECT query_id, db, stmt, query_time, scan_rows, return_rows, peak_memory_bytes FROM __internal_schema.audit_log WHERE " + where)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []auditRecord
	for rows.Next() {
		var r auditRecord
		if err := rows.Scan(&r.id, &r.db, &r.stmt, &r.queryTime, &r.scanRows, &r.returnRows, &r.peakMemory); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// expectedFindings applies rule_version query-diagnosis-v1 to an audit
// record (the plan and profile rules are checked separately).
func expectedFindings(r auditRecord) []string {
	var out []string
	if r.scanRows >= 1_000_000 && r.scanRows > 100*max(r.returnRows, 1) {
		out = append(out, "HIGH_SCAN_TO_RETURN_RATIO")
	}
	if r.queryTime >= 10_000 {
		out = append(out, "LONG_RECORDED_DURATION")
	}
	if r.peakMemory >= 1<<30 {
		out = append(out, "HIGH_PEAK_MEMORY")
	}
	slices.Sort(out)
	return out
}

func TestDiagnoseByAuditQueryID(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	// Every seeded SELECT of the demo database (the simulator appends the
	// statements the tests run, too; the seeded rows have stmt_id
	// 1000 + 37 i): its plan can be produced.
	recs := auditRecords(t, e.RootDB(), seeded+" AND is_query = 1 AND db = 'demo' AND stmt LIKE 'SELECT%' AND state = 'EOF'")
	if len(recs) == 0 {
		t.Fatal("no seeded demo queries")
	}
	sawFinding := false
	for _, r := range recs {
		var d diagnosis
		ev := e.Ok("doris_query", "diagnose_query_performance", map[string]any{"query_id": r.id})
		cd := ev.Decode(t, &d)
		want := expectedFindings(r)
		if !slices.Equal(d.codes(), want) {
			t.Fatalf("%s (%d ms, %d scanned, %d returned, %d bytes): findings %v, rules say %v", r.id, r.queryTime, r.scanRows, r.returnRows, r.peakMemory, d.codes(), want)
		}
		sawFinding = sawFinding || len(want) > 0
		// audit and plan read; the FE keeps no profile of a seeded record.
		if d.RuleVersion != "query-diagnosis-v1" || d.QueryID != r.id || d.Sections["audit"].Status != "success" ||
			d.Sections["explain"].Status != "success" || d.Sections["profile"].Status != "unavailable" ||
			d.Sections["profile"].ReasonCode != "QUERY_PROFILE_NOT_FOUND" || cd.Status != "partial" {
			t.Fatalf("%s: %s", r.id, ev.Raw)
		}
		if len(cd.Evidence) < len(want)+3 {
			t.Fatalf("evidence %v", cd.Evidence)
		}
	}
	if !sawFinding {
		t.Fatal("no seeded record triggers a rule; the test proves little")
	}
	// A record whose tables do not exist here: the plan is unavailable,
	// the audit evidence still answers.
	tpch := auditRecords(t, e.RootDB(), seeded+" AND is_query = 1 AND db = 'tpch_sf1000' LIMIT 1")
	var d diagnosis
	e.Ok("doris_query", "diagnose_query_performance", map[string]any{"query_id": tpch[0].id}).Decode(t, &d)
	if d.Sections["explain"].Status != "unavailable" || !slices.Equal(d.codes(), expectedFindings(tpch[0])) {
		t.Fatalf("tpch: %+v", d)
	}
	// Nothing known about the id: no evidence at all.
	e.Fail("doris_query", "diagnose_query_performance", map[string]any{"query_id": "ffffffffffffffff-ffffffffffffffff"},
		"CHILD_EXECUTION_FAILED", "QUERY_SQL_EVIDENCE_NOT_FOUND")
}

func TestDiagnoseBySQL(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	var d diagnosis
	ev := e.Ok("doris_query", "diagnose_query_performance", map[string]any{"sql": "SELECT COUNT(*) FROM orders o, customers c", "include_cluster_context": true})
	cd := ev.Decode(t, &d)
	if !slices.Equal(d.codes(), []string{"CROSS_JOIN_OBSERVED"}) || d.QueryID != nil || cd.Status != "success" ||
		d.Sections["cluster_context"].Status != "success" {
		t.Fatalf("cross join: %s", ev.Raw)
	}
	e.Ok("doris_query", "diagnose_query_performance", map[string]any{"sql": "SELECT COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.customer_id"}).Decode(t, &d)
	if len(d.Findings) != 0 {
		t.Fatalf("equi-join findings %v", d.codes())
	}
	e.Fail("doris_query", "diagnose_query_performance", map[string]any{"sql": "DELETE FROM orders"}, "CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
}

func TestListSlowQueries(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	type item struct {
		QueryID   string `json:"query_id"`
		User      string `json:"user"`
		DB        string `json:"db"`
		QueryTime int64  `json:"query_time"`
		Stmt      string `json:"stmt"`
	}
	var c struct {
		Items     []item `json:"items"`
		Truncated bool   `json:"truncated"`
	}
	// Every seeded row is within 72 hours; no statement of these tests
	// takes 5 s, so the audit writer cannot add rows that qualify.
	where := "`time` >= NOW() - INTERVAL 5000 MINUTE AND query_time >= 5000 AND is_query = 1"
	want := auditRecords(t, e.RootDB(), where+" ORDER BY query_time DESC")
	if len(want) < 3 {
		t.Fatalf("only %d seeded slow queries", len(want))
	}
	ev := e.Ok("doris_query", "list_slow_queries", map[string]any{"window_minutes": 5000, "min_duration_ms": 5000, "limit": 1000})
	cd := ev.Decode(t, &c)
	if len(c.Items) != len(want) || c.Truncated || cd.Status != "success" {
		t.Fatalf("%d items, MariaDB %d", len(c.Items), len(want))
	}
	var got, exp []string
	for i, it := range c.Items {
		got = append(got, it.QueryID)
		exp = append(exp, want[i].id)
		if it.QueryTime != want[i].queryTime {
			t.Fatalf("item %d: %d ms, MariaDB %d (order)", i, it.QueryTime, want[i].queryTime)
		}
		if strings.Contains(it.Stmt, "'1998-12-01'") || strings.Contains(it.Stmt, "'2025-01-01'") {
			t.Fatalf("literals not masked: %s", it.Stmt)
		}
	}
	slices.Sort(got)
	slices.Sort(exp)
	if !slices.Equal(got, exp) {
		t.Fatalf("ids %v\nMariaDB %v", got, exp)
	}
	// limit, truncation and filters
	ev = e.Ok("doris_query", "list_slow_queries", map[string]any{"window_minutes": 5000, "min_duration_ms": 5000, "limit": 2})
	cd = ev.Decode(t, &c)
	if len(c.Items) != 2 || !c.Truncated || !ev.Metadata.Truncated || len(cd.Warnings) != 1 {
		t.Fatalf("limited: %s", ev.Raw)
	}
	user := want[0]
	var u string
	e.RootDB().QueryRow("SELECT `user` FROM __internal_schema.audit_log WHERE query_id = ?", user.id).Scan(&u)
	n := len(auditRecords(t, e.RootDB(), where+fmt.Sprintf(" AND db = '%s' AND `user` = '%s'", user.db, u)))
	e.Ok("doris_query", "list_slow_queries", map[string]any{"window_minutes": 5000, "min_duration_ms": 5000, "database": user.db, "user": u}).Decode(t, &c)
	if len(c.Items) != n || n == 0 {
		t.Fatalf("filtered %d, MariaDB %d", len(c.Items), n)
	}
	for _, it := range c.Items {
		if it.DB != user.db || it.User != u {
			t.Fatalf("filter leak %+v", it)
		}
	}
}

// TestAuditLogPerProfile: list_slow_queries reads the audit log of every
// simulated release (2.1's is the 2.0 column set).
func TestAuditLogPerProfile(t *testing.T) {
	for _, p := range []string{"2.1", "4.0"} {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			var c doristest.CollectionOf
			e.Ok("doris_query", "list_slow_queries", map[string]any{"window_minutes": 5000, "limit": 5}).Decode(t, &c)
			if len(c.Items) != 5 {
				t.Fatalf("%d items", len(c.Items))
			}
		})
	}
}
