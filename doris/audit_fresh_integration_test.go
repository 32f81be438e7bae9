package doris_test

// A simulator over an empty MariaDB (no demo data set), as the README's
// "simulator on its own" command starts it: the five audit children are
// callable, say in a warning that Doris's audit loader is off (its
// default), and once a DBA runs SET GLOBAL enable_audit_plugin = true a
// query through execute_query reaches get_recent_audit_logs with its trace.

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

var auditChildren = []struct{ domain, child string }{
	{"doris_governance", "get_recent_audit_logs"},
	{"doris_governance", "analyze_data_access_patterns"},
	{"doris_governance", "trace_column_lineage"},
	{"doris_cluster", "analyze_resource_growth"},
	{"doris_query", "list_slow_queries"},
}

func TestAuditChildrenOnAFreshSimulator(t *testing.T) {
	for _, profile := range []string{"2.1", "3.0", "4.0", "4.1"} {
		t.Run(profile, func(t *testing.T) {
			in := mariadb.FreshFor(t)
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile, Instance: in, User: "root", Password: in.RootPassword(),
				Config: func(c *doris.Config) { c.Database = "" }})
			admin := doristest.Direct(t, e.Sim.Addr(), "root", in.RootPassword(), "")
			e.Exec(admin, "SET GLOBAL enable_audit_plugin = false") // Doris's default; a test before may have set it
			for _, c := range auditChildren {
				if a := e.Discover(c.domain).Availability(t, c.child).Availability; !a.Callable {
					t.Errorf("%s.%s is not callable on a fresh simulator: %+v", c.domain, c.child, a)
				}
			}
			args := map[string]map[string]any{
				"trace_column_lineage":    {"object": "internal.cli.t2", "evidence_mode": "audit"},
				"analyze_resource_growth": {"resource": "query_volume"},
			}
			for _, c := range auditChildren {
				a := args[c.child]
				if a == nil {
					a = map[string]any{}
				}
				ev := e.Call(c.domain, c.child, a)
				if ev.Mode == "error" && ev.Error.Details.ReasonCode == "RESOURCE_HISTORY_INSUFFICIENT" {
					continue // an empty audit log has no history to bucket, and says so
				}
				if ev.Mode != "result" || !slices.Contains(ev.Warnings, doris.AuditPluginOffWarning) {
					t.Errorf("%s.%s with the audit loader off: mode %s, warnings %q\n%s", c.domain, c.child, ev.Mode, ev.Warnings, ev.Raw)
				}
			}

			e.Exec(admin, "SET GLOBAL enable_audit_plugin = true")
			t.Cleanup(func() { e.Exec(admin, "SET GLOBAL enable_audit_plugin = false") })
			tr := traced(t)
			const q = "SELECT 'fresh audit' AS marker"
			if ev := e.TracedCall(tr, "doris_query", "execute_query", map[string]any{"sql": q}); ev.Mode != "result" {
				t.Fatalf("execute_query: %s", ev.Raw)
			}
			e.SyncAudit()
			ev := e.Call("doris_governance", "get_recent_audit_logs", map[string]any{"window_minutes": 10})
			if ev.Mode != "result" || slices.Contains(ev.Warnings, doris.AuditPluginOffWarning) {
				t.Fatalf("get_recent_audit_logs with the loader on: %s", ev.Raw)
			}
			var data struct {
				Data struct {
					Items []struct {
						TraceID *string `json:"trace_id"`
					} `json:"items"`
				} `json:"data"`
			}
			if err := json.Unmarshal(ev.Data, &data); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, it := range data.Data.Items {
				found = found || it.TraceID != nil && *it.TraceID == tr.ID
			}
			if !found {
				t.Fatalf("no audit event carries trace %s: %s", tr.ID, ev.Data)
			}
		})
	}
}
