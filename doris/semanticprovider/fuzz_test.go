package semanticprovider_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// FuzzCheckManifest feeds arbitrary documents to the manifest loader. It
// must never panic, and a manifest it accepts must compile each metric to
// SQL that passes the guard, or refuse it with a reason code.
func FuzzCheckManifest(f *testing.F) {
	for _, p := range []string{demoManifest, filepath.Join(jaffleDir, "semantic_manifest.json"), filepath.Join(truthDir, "semantic_manifest.json")} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(hostileManifest))
	f.Add([]byte(shopManifest(`, {"name": "p", "agg": "percentile", "agg_params": {"percentile": 0.9}}`, "", `, {"name": "p", "type": "simple", "type_params": {"measure": {"name": "p", "join_to_timespine": true}}}`, shopSpine, "")))
	f.Add([]byte(`{"semantic_models": [], "metrics": [{"name": "x", "type": "derived", "type_params": {"expr": "x", "metrics": [{"name": "x"}]}}]}`))
	// One file per fuzzing process, rewritten for each accepted input
	// (iterations in a process run one at a time).
	p := filepath.Join(f.TempDir(), "m.json")
	pv, err := semanticprovider.New([]semanticprovider.Source{{Ref: "f", Path: p}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if semanticprovider.CheckManifest(data) != nil {
			return
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var m struct {
			Metrics []struct {
				Name string `json:"name"`
			} `json:"metrics"`
		}
		json.Unmarshal(data, &m)
		for i, mt := range m.Metrics {
			if i == 4 {
				break
			}
			req, _ := json.Marshal(map[string]any{"protocol_version": semanticprovider.ProtocolVersion, "request_id": "f",
				"operation": "compile_query", "arguments": map[string]any{"model_ref": "f", "request": map[string]any{"metrics": []string{mt.Name}, "group_by": []string{"metric_time__month"}}}})
			checkResponse(t, pv.Handle(context.Background(), req, nil))
		}
	})
}

// FuzzHandle feeds arbitrary request documents to the protocol decoder
// and compiler over the demo manifest. Every answer must be one
// well-formed response; compiled SQL must pass the guard.
func FuzzHandle(f *testing.F) {
	seeds := []string{
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"a","operation":"list_models","arguments":{}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"b","operation":"get_group_bys","arguments":{"model_ref":"demo","metrics":["revenue"]}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"c","operation":"compile_query","arguments":{"model_ref":"demo","dialect":"doris","request":{"metrics":["revenue","new_customers"],"group_by":["metric_time__month","customer__country"],"where":["{{ Dimension('customer__segment') }} = 'smb'"],"order_by":["-revenue"],"limit":5,"start_time":"2024-01-01"}}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"d","operation":"compile_query","arguments":{"model_ref":"demo","request":{"saved_query":"top_channels"}}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"e","operation":"compile_dimension_values","arguments":{"model_ref":"demo","metrics":["orders"],"dimension":"customer__city","limit":3}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"f","operation":"list_metrics","arguments":{"model_ref":"demo","search":"rev","include_dimensions":true,"limit":2}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"g","operation":"compile_query","arguments":{"model_ref":"demo","request":{"metrics":["revenue"],"where":["LOWER({{ Dimension('order__status') }}) IN ('a''b', \"c\") AND {{ TimeDimension('metric_time', 'day') }} < CURRENT_DATE"]}}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"h","operation":"compile_query","arguments":{"model_ref":"mf","request":{"metrics":["revenue_all_time","trailing_2_months_revenue_sub_10"],"group_by":["metric_time__week","metric_time__quarter"],"start_time":"2020-03-01"}}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"i","operation":"compile_query","arguments":{"model_ref":"mf","request":{"metrics":["trailing_2_months_revenue"],"group_by":["revenue_instance__ds__day"],"where":["{{ TimeDimension('revenue_instance__ds', 'day') }} >= '2020-03-05'"]}}}`,
		`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"j","operation":"get_status","arguments":{"model_ref":"mf"}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	pv, err := semanticprovider.New([]semanticprovider.Source{{Ref: "demo", Path: demoManifest}, {Ref: "mf", Path: filepath.Join(truthDir, "semantic_manifest.json")}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkResponse(t, pv.Handle(context.Background(), data, nil))
	})
}

// checkResponse asserts the protocol invariants of one response.
func checkResponse(t *testing.T, out []byte) {
	t.Helper()
	var resp struct {
		ProtocolVersion string         `json:"protocol_version"`
		OK              bool           `json:"ok"`
		Data            map[string]any `json:"data"`
		Error           *struct {
			ReasonCode string `json:"reason_code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil || strings.Contains(string(out), "\n") {
		t.Fatalf("response is not one JSON line: %q", out)
	}
	if resp.ProtocolVersion != semanticprovider.ProtocolVersion {
		t.Fatalf("protocol_version %q", resp.ProtocolVersion)
	}
	if !resp.OK {
		if resp.Error == nil || !strings.HasPrefix(resp.Error.ReasonCode, "METRICFLOW_") {
			t.Fatalf("a refusal without a reason code: %s", out)
		}
		return
	}
	if sql, ok := resp.Data["sql"].(string); ok {
		if _, err := guard.Check(sql); err != nil {
			t.Fatalf("compiled SQL fails the guard: %v\n%s", err, sql)
		}
	}
}
