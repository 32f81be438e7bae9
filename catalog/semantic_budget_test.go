package catalog_test

import (
	"context"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

// semanticChildren are doris_semantic's twelve children.
var semanticChildren = []string{"list_semantic_models", "get_semantic_model_summary", "get_semantic_context",
	"get_semantic_mapping_status", "list_metricflow_models", "get_metricflow_status", "list_metricflow_metrics",
	"get_metricflow_group_bys", "list_metricflow_saved_queries", "get_metricflow_dimension_values",
	"compile_metricflow_query", "execute_metricflow_query"}

// TestSemanticManifestBudget: the semantic manifest stays within its
// 16 KiB budget in every state a deployment can be in, evidence included
// (the catalog would otherwise trim the evidence, or fail closed): both
// providers off, both on and healthy on a cluster whose node versions are
// visible, and the MetricFlow provider failing. With stale evidence the
// limitations grow and the catalog trims the evidence to fit: the manifest
// is still served.
func TestSemanticManifestBudget(t *testing.T) {
	bound := func(f *fakeRuntime) {
		for _, c := range semanticChildren {
			f.handlers["doris_semantic."+c] = func(ctx context.Context, c *doris.Call) (*doris.Result, error) { return nil, nil }
		}
	}
	tests := []struct {
		name      string
		providers map[string]bool
		probe     string
		stale     bool
		callable  int
		reason    string // of list_metricflow_models
	}{
		{"both off", map[string]bool{}, doris.ProbeNotConfigured, false, 0, "PROVIDER_NOT_CONFIGURED"},
		{"both on", map[string]bool{"ossie": true, "metricflow": true}, doris.ProbeOK, false, 12, "CAPABILITY_VERIFIED"},
		{"both on, evidence stale", map[string]bool{"ossie": true, "metricflow": true}, doris.ProbeOK, true, 12, "CAPABILITY_VERIFIED_DEGRADED"},
		{"provider failing", map[string]bool{"ossie": true, "metricflow": true}, "METRICFLOW_PROVIDER_PROTOCOL_MISMATCH", false, 4, "METRICFLOW_PROVIDER_PROTOCOL_MISMATCH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeRuntime()
			bound(f)
			f.snap.Providers, f.snap.Stale = tt.providers, tt.stale
			f.probe = map[string]string{"semantic.metricflow": tt.probe}
			s := newSurface(t, catalog.Config{}, f)
			env, res := call(t, s, anon, "doris_semantic", `{}`)
			if env["mode"] != "manifest" {
				t.Fatalf("discovery: %s", res.Structured)
			}
			callable := 0
			for _, c := range env["children"].([]any) {
				ch := c.(map[string]any)
				a := ch["availability"].(map[string]any)
				if a["callable"].(bool) {
					callable++
				}
				if ch["name"] == "list_metricflow_models" && a["reason_code"] != tt.reason {
					t.Errorf("list_metricflow_models: reason %v, want %s", a["reason_code"], tt.reason)
				}
				if ch["name"] == "list_metricflow_models" && tt.probe == doris.ProbeOK && !tt.stale && a["evidence_sources"] == nil {
					t.Error("the manifest was trimmed: evidence_sources are gone")
				}
			}
			if callable != tt.callable {
				t.Errorf("%d callable children, want %d", callable, tt.callable)
			}
			t.Logf("%s: %d bytes (budget 16384)", tt.name, len(res.Structured))
			if len(res.Structured) > 16<<10 {
				t.Errorf("the semantic manifest is %d bytes, budget 16384", len(res.Structured))
			}
		})
	}
}
