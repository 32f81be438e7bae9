package catalog_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

// availabilityOf discovers domain and returns child's availability.
func availabilityOf(t *testing.T, s *catalog.Surface, domain, child string) map[string]any {
	t.Helper()
	env, _ := call(t, s, anon, domain, `{}`)
	for _, c := range env["children"].([]any) {
		m := c.(map[string]any)
		if m["name"] == child {
			return m["availability"].(map[string]any)
		}
	}
	t.Fatalf("%s.%s not in the manifest", domain, child)
	return nil
}

// TestAvailabilityFromEvidence: the same child is available, degraded or
// not callable exactly as the evidence says, with a precise reason.
func TestAvailabilityFromEvidence(t *testing.T) {
	tests := []struct {
		name           string
		edit           func(*fakeRuntime)
		domain, child  string
		status, reason string
		callable       bool
		variant        string
	}{
		{"healthy 3.0", func(*fakeRuntime) {}, "doris_catalog", "list_tables", "available", "CAPABILITY_VERIFIED", true, "table_metadata"},
		{"Doris unreachable", func(f *fakeRuntime) {
			f.snap = doris.Snapshot{Route: "global", Unavailable: doris.ReasonConnectionFailed, Detail: "Doris is not reachable at the configured FE address"}
		}, "doris_catalog", "list_tables", "unknown", "DORIS_CONNECTION_FAILED", false, ""},
		{"wrong credentials", func(f *fakeRuntime) {
			f.snap = doris.Snapshot{Route: "global", Unavailable: doris.ReasonAuthenticationFailed}
		}, "doris_query", "execute_query", "unknown", "DORIS_AUTHENTICATION_FAILED", false, ""},
		{"not a Doris server", func(f *fakeRuntime) {
			f.snap = doris.Snapshot{Route: "global", Unavailable: doris.ReasonNotDoris}
		}, "doris_query", "execute_query", "unknown", "DORIS_VERSION_UNKNOWN", false, ""},
		{"below the 2.0 baseline", func(f *fakeRuntime) {
			f.snap.Master = doris.Version{Major: 1, Minor: 2, Patch: 8}
			f.snap.Frontends, f.snap.Backends = nil, nil
		}, "doris_query", "execute_query", "unavailable", "DORIS_VERSION_BELOW_MINIMUM", false, ""},
		{"mixed versions with no common path", func(f *fakeRuntime) {
			f.snap.Backends = []doris.Node{{Role: "be", Alive: true, Version: "2.0.2"}}
			f.snap.Mixed = true
			f.handlers["doris_lakehouse.inspect_variant_column"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_lakehouse", "inspect_variant_column", "unavailable", "MIXED_DORIS_VERSIONS", false, ""},
		{"mixed versions inside one path", func(f *fakeRuntime) {
			f.snap.Backends = []doris.Node{{Role: "be", Alive: true, Version: "3.0.8"}}
			f.snap.Mixed = true
		}, "doris_cluster", "get_runtime_capabilities", "available", "CAPABILITY_VERIFIED", true, "capability_snapshot"},
		{"backends not visible to the account", func(f *fakeRuntime) {
			f.snap.Backends, f.snap.BEVisible = nil, false
			f.handlers["doris_cluster.list_cluster_nodes"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_cluster", "list_cluster_nodes", "degraded", "CAPABILITY_VERIFIED_DEGRADED", true, "cluster_nodes"},
		{"stale evidence", func(f *fakeRuntime) { f.snap.Stale = true }, "doris_catalog", "list_tables", "degraded", "CAPABILITY_VERIFIED_DEGRADED", true, "table_metadata"},
		{"handler not built", func(*fakeRuntime) {}, "doris_pipeline", "get_ingestion_status", "unavailable", "HANDLER_NOT_BOUND", false, ""},
		{"ADBC not enabled", func(f *fakeRuntime) {
			f.snap.Providers = map[string]bool{}
			f.handlers["doris_query.get_adbc_connection_info"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_query", "get_adbc_connection_info", "misconfigured", "PROVIDER_NOT_CONFIGURED", false, ""},
		{"ADBC enabled, Flight SQL port not answering", func(f *fakeRuntime) {
			f.snap.Providers = map[string]bool{"adbc": true}
			f.probe = map[string]string{"query.adbc_flight": doris.ProbeFailed}
			f.handlers["doris_query.execute_adbc_query"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_query", "execute_adbc_query", "unavailable", "CAPABILITY_PROBE_FAILED", false, ""},
		{"ADBC enabled and answering", func(f *fakeRuntime) {
			f.snap.Providers = map[string]bool{"adbc": true}
			f.handlers["doris_query.execute_adbc_query"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_query", "execute_adbc_query", "available", "CAPABILITY_VERIFIED", true, "adbc_read_only"},
		{"FE HTTP not configured", func(f *fakeRuntime) {
			f.snap.Providers = map[string]bool{}
			f.handlers["doris_query.get_query_profile"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_query", "get_query_profile", "misconfigured", "PROVIDER_NOT_CONFIGURED", false, ""},
		{"deployment mode", func(f *fakeRuntime) {
			f.handlers["doris_cluster.get_compute_group_status"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_cluster", "get_compute_group_status", "unavailable", "DEPLOYMENT_MODE_NOT_SUPPORTED", false, ""},
		{"version range not matched", func(f *fakeRuntime) {
			f.snap.Master = doris.Version{Major: 2, Minor: 0, Patch: 15}
			f.snap.Frontends[0].Version, f.snap.Backends[0].Version = "2.0.15", "2.0.15"
			f.handlers["doris_lakehouse.inspect_variant_column"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_lakehouse", "inspect_variant_column", "unavailable", "VERSION_RANGE_NOT_MATCHED", false, ""},
		{"newest variant on 4.0", func(f *fakeRuntime) {
			f.snap.Master = doris.Version{Major: 4, Minor: 0, Patch: 7}
			f.snap.Frontends[0].Version, f.snap.Backends[0].Version = "4.0.7", "4.0.7"
			f.handlers["doris_query.explain_query"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_query", "explain_query", "available", "CAPABILITY_VERIFIED", true, "search_plan_facets"},
		{"older variant on 3.0", func(f *fakeRuntime) {
			f.handlers["doris_query.explain_query"] = f.handlers["doris_catalog.list_tables"]
		}, "doris_query", "explain_query", "available", "CAPABILITY_VERIFIED", true, "base_explain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := newFakeRuntime()
			tt.edit(rt)
			s := newSurface(t, catalog.Config{}, rt)
			a := availabilityOf(t, s, tt.domain, tt.child)
			if a["status"] != tt.status || a["reason_code"] != tt.reason || a["callable"] != tt.callable {
				t.Fatalf("availability %v, want %s %s callable=%v", a, tt.status, tt.reason, tt.callable)
			}
			if v, _ := a["active_variant"].(string); v != tt.variant {
				t.Fatalf("active_variant %q, want %q", v, tt.variant)
			}
		})
	}
}

// TestProbeFailures: a failed probe makes its children unavailable with
// the probe's reason; other children are untouched.
func TestProbeFailures(t *testing.T) {
	for outcome, reason := range map[string]string{
		doris.ProbePermissionDenied: "CAPABILITY_PROBE_PERMISSION_DENIED",
		doris.ProbeNotSupported:     "CAPABILITY_PROBE_NOT_SUPPORTED",
		doris.ProbeTimeout:          "CAPABILITY_PROBE_TIMEOUT",
		doris.ProbeFailed:           "CAPABILITY_PROBE_FAILED",
	} {
		rt := &probeRuntime{fakeRuntime: newFakeRuntime(), fail: "catalog.show_databases", outcome: outcome}
		s := newSurface(t, catalog.Config{}, rt)
		if a := availabilityOf(t, s, "doris_catalog", "list_tables"); a["reason_code"] != reason || a["callable"] != false {
			t.Errorf("%s: list_tables %v, want %s", outcome, a, reason)
		}
		if a := availabilityOf(t, s, "doris_query", "execute_query"); a["callable"] != true {
			t.Errorf("%s: execute_query affected: %v", outcome, a)
		}
	}
}

type probeRuntime struct {
	*fakeRuntime
	fail, outcome string
}

func (p *probeRuntime) Snapshot(ctx context.Context, id auth.Identity, probes []string) *doris.Snapshot {
	s := p.fakeRuntime.Snapshot(ctx, id, probes)
	if _, ok := s.Probes[p.fail]; ok {
		s.Probes[p.fail] = p.outcome
	}
	return s
}

func TestResourcesPromptsCompletions(t *testing.T) {
	s := newSurface(t, catalog.Config{}, newFakeRuntime())
	ctx := context.Background()
	res, err := s.Resources(ctx, anon)
	if err != nil || len(res) != 2 || res[0].URI != "doris://table/internal/demo/orders" || res[1].URI != "doris://view/internal/demo/v_daily_sales" {
		t.Fatalf("resources %v %v", res, err)
	}
	tpl, _ := s.ResourceTemplates(ctx, anon)
	if len(tpl) != 3 || tpl[0].URITemplate != "doris://stats/{catalog}/{database}/{table}" {
		t.Fatalf("templates %v", tpl)
	}
	rc, err := s.ReadResource(ctx, anon, "doris://table/internal/demo/orders")
	if err != nil || !strings.Contains(rc.Text, "order_id") {
		t.Fatalf("read %v %v", rc, err)
	}
	for _, uri := range []string{"doris://table/internal/demo/nope", "doris://table/x", "test://static-text", "doris://rows/internal/demo/orders", "doris://table/internal/demo/%zz"} {
		if _, err := s.ReadResource(ctx, anon, uri); !errors.Is(err, catalog.ErrResourceNotFound) {
			t.Errorf("read %s: %v, want ErrResourceNotFound", uri, err)
		}
	}
	prompts, _ := s.Prompts(ctx, anon)
	var names []string
	for _, p := range prompts {
		names = append(names, p.Name)
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
	}
	if strings.Join(names, ",") != "data_quality_check,performance_optimization,report_generation,sales_analysis,user_behavior_analysis" {
		t.Fatalf("prompts %v", names)
	}
	pr, err := s.GetPrompt(ctx, anon, "sales_analysis", map[string]string{"database": "demo", "time_range": "2024-Q4"})
	if err != nil || !strings.Contains(pr.Messages[0].Text, "demo") || !strings.Contains(pr.Messages[0].Text, "2024-Q4") {
		t.Fatalf("prompt %v %v", pr, err)
	}
	var ae *catalog.ArgumentError
	if _, err := s.GetPrompt(ctx, anon, "sales_analysis", nil); !errors.As(err, &ae) {
		t.Errorf("missing required argument: %v", err)
	}
	if _, err := s.GetPrompt(ctx, anon, "sales_analysis", map[string]string{"database": "d", "bogus": "x"}); !errors.As(err, &ae) {
		t.Errorf("undeclared argument: %v", err)
	}
	if _, err := s.GetPrompt(ctx, anon, "nope", nil); !errors.Is(err, catalog.ErrPromptNotFound) {
		t.Errorf("unknown prompt: %v", err)
	}
	c, err := s.Complete(ctx, anon, catalog.CompletionRef{Type: "ref/prompt", Name: "sales_analysis"}, "database", "de", nil)
	if err != nil || len(c.Values) != 2 || c.Values[0] != "demo" {
		t.Fatalf("complete database: %v %v", c, err)
	}
	c, err = s.Complete(ctx, anon, catalog.CompletionRef{Type: "ref/resource", URI: "doris://table/{catalog}/{database}/{table}"}, "table", "o", map[string]string{"database": "demo"})
	if err != nil || len(c.Values) != 2 {
		t.Fatalf("complete table: %v %v", c, err)
	}
	if _, err := s.Complete(ctx, anon, catalog.CompletionRef{Type: "ref/prompt", Name: "nope"}, "database", "", nil); !errors.Is(err, catalog.ErrCompletionRef) {
		t.Errorf("unknown ref: %v", err)
	}
	if _, err := s.Complete(ctx, anon, catalog.CompletionRef{Type: "ref/resource", URI: "doris://table/{catalog}/{database}/{table}"}, "column", "", nil); !errors.As(err, &ae) {
		t.Errorf("unknown template variable: %v", err)
	}
}
