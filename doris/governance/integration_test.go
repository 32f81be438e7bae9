package governance_test

// doris_governance against the simulator, compared with truth computed in
// the test: from MariaDB directly, or from what the test itself did.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// auditItem is one get_recent_audit_logs item.
type auditItem struct {
	Time, QueryID, User, Database, State, Operation, Stmt, TraceID string
	ScanRows, ReturnRows                                           int64
	Objects                                                        []string
}

func (a *auditItem) UnmarshalJSON(b []byte) error {
	var m struct {
		Time       string   `json:"time"`
		QueryID    string   `json:"query_id"`
		User       string   `json:"user"`
		Database   string   `json:"database"`
		State      string   `json:"state"`
		Operation  string   `json:"operation"`
		Stmt       string   `json:"stmt"`
		TraceID    string   `json:"trace_id"`
		ScanRows   int64    `json:"scan_rows"`
		ReturnRows int64    `json:"return_rows"`
		Objects    []string `json:"objects"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*a = auditItem{m.Time, m.QueryID, m.User, m.Database, m.State, m.Operation, m.Stmt, m.TraceID, m.ScanRows, m.ReturnRows, m.Objects}
	return nil
}

// TestGovernanceNamesCheckedInOrder: a call whose database and table are
// both invalid is refused for the database, every time (the names were
// checked in map order, so the answer named either).
func TestGovernanceNamesCheckedInOrder(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	bad := map[string]any{"database": "bad`db", "table": "bad`tbl"}
	for _, child := range []string{"get_recent_audit_logs", "analyze_data_access_patterns", "analyze_columns", "analyze_table_storage"} {
		for range 20 {
			ev := e.Fail("doris_governance", child, bad, "CHILD_ARGUMENTS_INVALID", "GOVERNANCE_IDENTIFIER_INVALID")
			if !strings.HasPrefix(ev.Error.Message, "database ") {
				t.Fatalf("%s: %q, want the database named first", child, ev.Error.Message)
			}
		}
	}
}

// TestGovernanceRecentAuditLogs: a query run through execute_query is in
// get_recent_audit_logs with its user, database, operation and the scan
// and return counts the audit log recorded; its literals are masked; the
// window is exact minutes.
func TestGovernanceRecentAuditLogs(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			marker := "gov_marker_" + doristest.Uniq(t)
			sqlText := "SELECT COUNT(*) AS " + marker + " FROM orders WHERE status = 'paid'"
			q, _, _ := e.Query(map[string]any{"sql": sqlText})
			if q.RowCount != 1 {
				t.Fatalf("query: %+v", q)
			}
			e.SyncAudit()
			var c struct {
				Items     []auditItem `json:"items"`
				Truncated bool        `json:"truncated"`
			}
			ev := e.Ok("doris_governance", "get_recent_audit_logs", map[string]any{"window_minutes": 10, "user": mariadb.ReaderUser,
				"operation": "select", "database": "demo", "table": "orders", "limit": 200})
			ev.Decode(t, &c)
			var got *auditItem
			for i := range c.Items {
				if strings.Contains(c.Items[i].Stmt, marker) {
					got = &c.Items[i]
				}
				if it := c.Items[i]; it.User != mariadb.ReaderUser || it.Operation != "SELECT" {
					t.Fatalf("filters let through %+v", it)
				}
			}
			if got == nil {
				t.Fatalf("the query is not among %d items: %s", len(c.Items), ev.Raw)
			}
			var qid, user, db, state, stmt string
			var scan, ret int64
			// The statement reached Doris behind the call's trace comment
			// (doris/trace.go), and the audit log keeps it as sent.
			if err := e.RootDB().QueryRow("SELECT query_id, `user`, db, state, scan_rows, return_rows, stmt FROM __internal_schema.audit_log WHERE stmt LIKE ?",
				"/*traceparent='00-%'*/ "+sqlText).
				Scan(&qid, &user, &db, &state, &scan, &ret, &stmt); err != nil {
				t.Fatal(err)
			}
			if got.QueryID != qid || got.User != user || got.Database != db || got.State != state || got.ScanRows != scan || got.ReturnRows != ret {
				t.Fatalf("item %+v, audit log %s %s %s %s %d %d", *got, qid, user, db, state, scan, ret)
			}
			// The item names the call that sent it: the 32 hex digits after
			// "/*traceparent='00-" in the stored statement.
			if want := stmt[len("/*traceparent='00-"):][:32]; got.TraceID != want {
				t.Fatalf("trace_id %q, want %q from the audit log's %q", got.TraceID, want, stmt)
			}
			if scan == 0 || ret != 1 || !strings.Contains(got.Stmt, "'***'") || strings.Contains(got.Stmt, "paid") {
				t.Fatalf("scan %d, return %d, stmt %q", scan, ret, got.Stmt)
			}
			if len(got.Objects) != 1 || got.Objects[0] != "internal.demo.orders" {
				t.Fatalf("objects %v", got.Objects)
			}
		})
	}
}

// TestGovernanceAuditWindowIsExactMinutes: events 59 and 61 minutes old
// against a 60-minute window.
func TestGovernanceAuditWindowIsExactMinutes(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	who := "window_probe_" + doristest.Uniq(t)
	if err := e.DB.Exec(e.Ctx(),
		"INSERT INTO __internal_schema.audit_log (query_id, `time`, `user`, `catalog`, db, state, stmt) VALUES "+
			fmt.Sprintf("('w59', NOW(3) - INTERVAL 59 MINUTE, '%s', 'internal', 'demo', 'EOF', 'SELECT 1'), ", who)+
			fmt.Sprintf("('w61', NOW(3) - INTERVAL 61 MINUTE, '%s', 'internal', 'demo', 'EOF', 'SELECT 2')", who)); err != nil {
		t.Fatal(err)
	}
	var c struct {
		Items []auditItem `json:"items"`
	}
	e.Ok("doris_governance", "get_recent_audit_logs", map[string]any{"window_minutes": 60, "user": who}).Decode(t, &c)
	if len(c.Items) != 1 || c.Items[0].QueryID != "w59" {
		t.Fatalf("60-minute window: %+v", c.Items)
	}
	e.Ok("doris_governance", "get_recent_audit_logs", map[string]any{"window_minutes": 62, "user": who}).Decode(t, &c)
	if len(c.Items) != 2 || c.Items[0].QueryID != "w59" {
		t.Fatalf("62-minute window, newest first: %+v", c.Items)
	}
	// A window beyond GOVERNANCE_MAX_AUDIT_WINDOW_DAYS is refused, not cut.
	e.Cfg.Governance.MaxAuditWindowDays = 1
	e.Open()
	e.Fail("doris_governance", "get_recent_audit_logs", map[string]any{"window_minutes": 1441}, "CHILD_ARGUMENTS_INVALID", "GOVERNANCE_AUDIT_WINDOW_TOO_LARGE")
	e.Fail("doris_governance", "analyze_data_access_patterns", map[string]any{"window_days": 2}, "CHILD_ARGUMENTS_INVALID", "GOVERNANCE_AUDIT_WINDOW_TOO_LARGE")
}

// accessGroups decodes analyze_data_access_patterns.
type accessGroups struct {
	Groups []struct {
		Key           string `json:"key"`
		EventCount    int64  `json:"event_count"`
		DistinctUsers int64  `json:"distinct_users"`
		ErrorCount    int64  `json:"error_count"`
	} `json:"groups"`
	RowsRead  int64  `json:"rows_read"`
	Truncated bool   `json:"truncated"`
	Method    string `json:"method"`
}

func (a accessGroups) count(key string) int64 {
	for _, g := range a.Groups {
		if g.Key == key {
			return g.EventCount
		}
	}
	return -1
}

// TestGovernanceAccessPatterns: the counts equal what the test ran and a
// GROUP BY over the audit log in MariaDB.
func TestGovernanceAccessPatterns(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			in := mariadb.SharedFor(t)
			analyst := "gov_analyst_" + doristest.Uniq(t)
			doristest.NewAccount(t, in, analyst, "analystpw", "SELECT ON demo.*", "SELECT ON `__internal_schema`.*", "SELECT ON `__doris_sim`.*")
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, Users: map[string]string{analyst: "analystpw"}})
			a := doristest.Direct(t, e.Sim.Addr(), analyst, "analystpw", "demo")
			for i := 0; i < 3; i++ {
				e.Exec(a, fmt.Sprintf("SELECT COUNT(*) FROM orders WHERE customer_id > %d", i))
			}
			e.Exec(a, "SELECT COUNT(*) FROM customers", "SELECT c.country, COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.country")
			e.SyncAudit()
			var truth int64
			e.RootDB().QueryRow("SELECT COUNT(*) FROM __internal_schema.audit_log WHERE `user` = ? AND `time` >= NOW() - INTERVAL 1 DAY", analyst).Scan(&truth)
			if truth != 5 {
				t.Fatalf("MariaDB holds %d audit rows of %s, the test ran 5", truth, analyst)
			}
			var g accessGroups
			e.Ok("doris_governance", "analyze_data_access_patterns", map[string]any{"window_days": 1, "group_by": "user"}).Decode(t, &g)
			if g.count(analyst) != truth || g.Method != "doris_group_by" {
				t.Fatalf("group_by user: %s has %d events, MariaDB GROUP BY %d (%s)", analyst, g.count(analyst), truth, g.Method)
			}
			e.Ok("doris_governance", "analyze_data_access_patterns", map[string]any{"window_days": 1, "group_by": "user", "database": "demo", "table": "orders"}).Decode(t, &g)
			if g.count(analyst) != 4 {
				t.Fatalf("table orders: %s has %d events, the test ran 4 statements on it: %+v", analyst, g.count(analyst), g.Groups)
			}
			e.Ok("doris_governance", "analyze_data_access_patterns", map[string]any{"window_days": 1, "group_by": "user", "table": "customers"}).Decode(t, &g)
			if g.count(analyst) != 2 {
				t.Fatalf("table customers: %s has %d events, want 2", analyst, g.count(analyst))
			}
			e.Ok("doris_governance", "analyze_data_access_patterns", map[string]any{"window_days": 1, "group_by": "object", "database": "demo"}).Decode(t, &g)
			if g.count("internal.demo.orders") < 4 || g.count("internal.demo.customers") < 2 || g.Method != "audit_rows_parsed" {
				t.Fatalf("group_by object: %+v", g)
			}
		})
	}
}

// lineage decodes trace_column_lineage.
type lineage struct {
	Root         string `json:"root"`
	EvidencePath string `json:"evidence_path"`
	Edges        []struct {
		Source       string  `json:"source_object"`
		Target       string  `json:"target_object"`
		SourceColumn *string `json:"source_column"`
		TargetColumn *string `json:"target_column"`
		Dependency   string  `json:"dependency_type"`
		Statement    string  `json:"statement_type"`
		Evidence     string  `json:"evidence_type"`
		QueryID      string  `json:"query_id"`
		EventID      string  `json:"event_id"`
		Depth        int     `json:"depth"`
	} `json:"edges"`
	Truncated bool `json:"truncated"`
}

func (l lineage) edges() []string {
	var out []string
	for _, e := range l.Edges {
		s := e.Source + " -> " + e.Target
		if e.SourceColumn != nil || e.TargetColumn != nil {
			s = fmt.Sprintf("%s.%s -> %s.%s (%s)", e.Source, deref(e.SourceColumn), e.Target, deref(e.TargetColumn), e.Dependency)
		}
		out = append(out, fmt.Sprintf("%s @%d", s, e.Depth))
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestGovernanceLineageFromAudit: an INSERT ... SELECT and a CTAS run as
// the writer are traced from target back to source with the audit log's
// evidence, on every release (4.0 uses the degraded fallback variant).
func TestGovernanceLineageFromAudit(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p})
			n := doristest.Uniq(t)
			src, tgt, ctas := "lin_src_"+n, "lin_tgt_"+n, "lin_ctas_"+n
			w := e.Writer()
			insert := fmt.Sprintf("INSERT INTO demo.%s (region, total) SELECT s.region, SUM(s.amount) FROM demo.%s s GROUP BY s.region", tgt, src)
			e.Exec(w, fmt.Sprintf("CREATE TABLE demo.%s (id INT, amount DECIMAL(10,2), region VARCHAR(8))", src),
				fmt.Sprintf("INSERT INTO demo.%s VALUES (1, 10.5, 'eu'), (2, 7.25, 'us'), (3, 1, 'eu')", src),
				fmt.Sprintf("CREATE TABLE demo.%s (region VARCHAR(8), total DECIMAL(12,2))", tgt), insert,
				fmt.Sprintf("CREATE TABLE demo.%s AS SELECT region, total AS region_total FROM demo.%s", ctas, tgt))
			t.Cleanup(func() {
				for _, tb := range []string{src, tgt, ctas} {
					w.Exec("DROP TABLE IF EXISTS demo." + tb)
				}
			})
			e.SyncAudit()
			var qid string
			if err := e.RootDB().QueryRow("SELECT query_id FROM __internal_schema.audit_log WHERE stmt = ? AND `user` = ?", insert, mariadb.WriterUser).Scan(&qid); err != nil {
				t.Fatal(err)
			}
			m := e.Discover("doris_governance")
			a := m.Availability(t, "trace_column_lineage").Availability
			wantVariant := map[string]string{"2.1": "audit_sql_inference_primary", "3.0": "audit_sql_inference_primary", "4.0": "audit_sql_inference_fallback", "4.1": "audit_sql_inference_fallback"}[p]
			if !a.Callable || a.ActiveVariant != wantVariant {
				t.Fatalf("availability %+v", a)
			}
			var l lineage
			cd := e.Ok("doris_governance", "trace_column_lineage", map[string]any{"object": "demo." + tgt, "direction": "upstream"}).Decode(t, &l)
			want := []string{fmt.Sprintf("internal.demo.%s -> internal.demo.%s @1", src, tgt)}
			if got := l.edges(); strings.Join(got, "|") != strings.Join(want, "|") || l.EvidencePath != "audit" {
				t.Fatalf("upstream edges %v, want %v", got, want)
			}
			if e0 := l.Edges[0]; e0.Evidence != "audit_sql_inference" || e0.QueryID != qid || e0.Statement != "INSERT_SELECT" {
				t.Fatalf("evidence %+v, audit query id %s", e0, qid)
			}
			if (p >= "4.0") != (cd.Status == "partial") {
				t.Fatalf("%s status %s", p, cd.Status)
			}
			e.Ok("doris_governance", "trace_column_lineage", map[string]any{"object": "internal.demo." + src, "direction": "downstream", "depth": 2}).Decode(t, &l)
			want = []string{fmt.Sprintf("internal.demo.%s -> internal.demo.%s @1", src, tgt), fmt.Sprintf("internal.demo.%s -> internal.demo.%s @2", tgt, ctas)}
			if got := l.edges(); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("downstream edges %v, want %v", got, want)
			}
			e.Ok("doris_governance", "trace_column_lineage", map[string]any{"object": "demo." + src, "direction": "downstream", "depth": 1}).Decode(t, &l)
			if len(l.Edges) != 1 {
				t.Fatalf("depth 1: %v", l.edges())
			}
			e.Ok("doris_governance", "trace_column_lineage", map[string]any{"object": "demo." + ctas, "column": "region_total", "direction": "upstream", "depth": 2}).Decode(t, &l)
			want = []string{
				fmt.Sprintf("internal.demo.%s.total -> internal.demo.%s.region_total (direct) @1", tgt, ctas),
				fmt.Sprintf("internal.demo.%s.amount -> internal.demo.%s.total (expression) @2", src, tgt),
			}
			if got := l.edges(); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("column edges %v, want %v", got, want)
			}
			e.Ok("doris_governance", "trace_column_lineage", map[string]any{"object": "demo." + tgt, "column": "region", "direction": "upstream"}).Decode(t, &l)
			if got := l.edges(); len(got) != 1 || !strings.Contains(got[0], ".region -> ") || !strings.Contains(got[0], "(direct)") {
				t.Fatalf("region edges %v", got)
			}
			e.Fail("doris_governance", "trace_column_lineage", map[string]any{"object": "demo." + tgt, "evidence_mode": "native"},
				"CHILD_EXECUTION_FAILED", "GOVERNANCE_NATIVE_LINEAGE_UNAVAILABLE")
		})
	}
}

// TestGovernanceNativeLineage: with the lineage plugin active (fe.conf)
// and a store configured, lineage comes from the store's events.
func TestGovernanceNativeLineage(t *testing.T) {
	n := doristest.Uniq(t)
	store := "lineage_events_" + n
	o := doristest.RootOpts("4.0")
	o.FEConfig = map[string]string{"activate_lineage_plugin": "[mcp-store-sink]"}
	o.Config = func(c *doris.Config) { c.Governance.LineageStoreTable = "demo." + store }
	e := doristest.NewEnv(t, o)
	w := e.Writer()
	e.Exec(w, "CREATE TABLE demo."+store+" (event_id VARCHAR(64), event_time DATETIME, query_id VARCHAR(64), source_object VARCHAR(256), "+
		"target_object VARCHAR(256), source_column VARCHAR(128), target_column VARCHAR(128), dependency_type VARCHAR(32), statement_type VARCHAR(32))",
		"INSERT INTO demo."+store+" VALUES ('ev-1', NOW() - INTERVAL 5 MINUTE, 'q-1', 'internal.demo.orders', 'internal.demo.daily_sales_x', 'total_amount', 'revenue', 'direct', 'INSERT_INTO'), "+
			"('ev-2', NOW() - INTERVAL 3 MINUTE, 'q-2', 'internal.demo.daily_sales_x', 'internal.demo.sales_mart_x', NULL, NULL, NULL, 'CTAS')")
	t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS demo." + store) })
	a := e.Discover("doris_governance").Availability(t, "trace_column_lineage").Availability
	if a.ActiveVariant != "native_lineage_events" || a.Status != "available" {
		t.Fatalf("availability %+v", a)
	}
	var st struct {
		ActivePath string         `json:"active_path"`
		Reasons    []string       `json:"reasons"`
		Store      map[string]any `json:"store"`
	}
	e.Ok("doris_governance", "get_lineage_capability_status", map[string]any{}).Decode(t, &st)
	if st.ActivePath != "native_lineage_events" || st.Store["row_count"] != float64(2) || st.Store["recent_event_observed"] != true || len(st.Reasons) != 0 {
		t.Fatalf("status %+v", st)
	}
	var l lineage
	e.Ok("doris_governance", "trace_column_lineage", map[string]any{"object": "demo.sales_mart_x", "direction": "upstream"}).Decode(t, &l)
	want := []string{"internal.demo.daily_sales_x -> internal.demo.sales_mart_x @1", "internal.demo.orders -> internal.demo.daily_sales_x @2"}
	if got := l.edges(); strings.Join(got, "|") != strings.Join(want, "|") || l.EvidencePath != "native" {
		t.Fatalf("native edges %v, want %v", got, want)
	}
	if l.Edges[0].Evidence != "native_event" || l.Edges[0].EventID != "ev-2" || l.Edges[1].EventID != "ev-1" {
		t.Fatalf("native evidence %+v", l.Edges)
	}
	e.Ok("doris_governance", "trace_column_lineage", map[string]any{"object": "demo.daily_sales_x", "column": "revenue", "direction": "upstream"}).Decode(t, &l)
	if got := l.edges(); len(got) != 1 || got[0] != "internal.demo.orders.total_amount -> internal.demo.daily_sales_x.revenue (direct) @1" {
		t.Fatalf("native column edge %v", got)
	}

	// A store without the canonical columns is not a native path.
	o.Config = func(c *doris.Config) { c.Governance.LineageStoreTable = "demo.orders" }
	e2 := doristest.NewEnv(t, o)
	if a := e2.Discover("doris_governance").Availability(t, "trace_column_lineage").Availability; a.ActiveVariant != "audit_sql_inference_fallback" {
		t.Fatalf("store without event columns: %+v", a)
	}
	st = struct {
		ActivePath string         `json:"active_path"`
		Reasons    []string       `json:"reasons"`
		Store      map[string]any `json:"store"`
	}{}
	e2.Ok("doris_governance", "get_lineage_capability_status", map[string]any{}).Decode(t, &st)
	if st.ActivePath != "audit_sql_inference" || !strings.Contains(strings.Join(st.Reasons, " "), "LINEAGE_STORE_MISSING_COLUMNS") {
		t.Fatalf("status %+v", st)
	}
}
