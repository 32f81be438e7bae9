package catalog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kaptinlin/jsonschema"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

var anon = auth.Anonymous()

// domainOrder and childOrder are the reference server's contract, spelled
// out so that a change to the table shows here.
var domainOrder = []string{"doris_catalog", "doris_query", "doris_cluster", "doris_pipeline", "doris_search",
	"doris_governance", "doris_lakehouse", "doris_semantic"}

func toolsOf(t *testing.T, s *catalog.Surface, id auth.Identity) []map[string]any {
	t.Helper()
	tools, err := s.Tools(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, tl := range tools {
		var m map[string]any
		if err := json.Unmarshal(tl.JSON, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func listBytes(t *testing.T, s *catalog.Surface) int {
	tools, _ := s.Tools(context.Background(), anon)
	raws := make([]json.RawMessage, len(tools))
	for i, tl := range tools {
		raws[i] = tl.JSON
	}
	b, _ := json.Marshal(map[string]any{"tools": raws})
	return len(b)
}

func TestHierarchicalToolsList(t *testing.T) {
	s := newSurface(t, catalog.Config{}, newFakeRuntime())
	tools := toolsOf(t, s, anon)
	var names []string
	for _, tl := range tools {
		names = append(names, tl["name"].(string))
		desc := tl["description"].(string)
		if !strings.Contains(desc, "Call with {} to discover") {
			t.Errorf("%s: description lacks the single-domain rule", tl["name"])
		}
		in := tl["inputSchema"].(map[string]any)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: input schema %v", tl["name"], in)
		}
		if tl["outputSchema"] == nil {
			t.Errorf("%s: no output schema", tl["name"])
		}
	}
	want := append([]string(nil), domainOrder...)
	sortStrings(want)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want the 8 domains %v", names, want)
	}
	n := listBytes(t, s)
	t.Logf("hierarchical tools/list: %d bytes (budget 12288; the reference spends 21878)", n)
	if n > 12<<10 {
		t.Fatalf("hierarchical tools/list is %d bytes, budget 12288", n)
	}
}

func TestFlatToolsList(t *testing.T) {
	s := newSurface(t, catalog.Config{Mode: catalog.Flat}, newFakeRuntime())
	tools := toolsOf(t, s, anon)
	if len(tools) != 55 {
		t.Fatalf("%d flat tools, want 55", len(tools))
	}
	nameRE := regexp.MustCompile(`^doris_[a-z]+_[a-z0-9_]+$`)
	for _, tl := range tools {
		name := tl["name"].(string)
		if !nameRE.MatchString(name) || len(name) > 64 {
			t.Errorf("flat name %q", name)
		}
		if !strings.Contains(tl["title"].(string), ": ") {
			t.Errorf("%s: title %q is not \"<Domain>: <Child>\"", name, tl["title"])
		}
	}
	t.Logf("flat tools/list: %d bytes for 55 tools", listBytes(t, s))
}

// TestManifests discovers every domain: children in the reference order,
// availability that never claims more than the evidence, budgets held,
// and the envelope valid against the domain tool's output schema.
func TestManifests(t *testing.T) {
	rt := newFakeRuntime()
	s := newSurface(t, catalog.Config{}, rt)
	out := outputSchemas(t, s)
	codeRE := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	total := 0
	for _, d := range domainOrder {
		env, res := call(t, s, anon, d, `{}`)
		checkOutput(t, out[d], res)
		if env["mode"] != "manifest" || env["domain"] != d {
			t.Fatalf("%s discovery: %v", d, env)
		}
		mv := env["manifest_version"].(string)
		if !regexp.MustCompile(`^` + strings.TrimPrefix(d, "doris_") + `\.[0-9a-f]{12}$`).MatchString(mv) {
			t.Errorf("%s: manifest_version %q", d, mv)
		}
		var got []string
		for _, c := range env["children"].([]any) {
			ch := c.(map[string]any)
			got = append(got, ch["name"].(string))
			a := ch["availability"].(map[string]any)
			status, callable := a["status"].(string), a["callable"].(bool)
			if !codeRE.MatchString(a["reason_code"].(string)) {
				t.Errorf("%s.%s: reason_code %q", d, ch["name"], a["reason_code"])
			}
			if callable && (status == "unavailable" || status == "misconfigured" || status == "unknown") {
				t.Errorf("%s.%s: callable with status %s", d, ch["name"], status)
			}
			if callable && a["active_variant"] == nil {
				t.Errorf("%s.%s: callable without active_variant", d, ch["name"])
			}
			if len(ch["description"].(string)) > 800 {
				t.Errorf("%s.%s: description of %d characters", d, ch["name"], len(ch["description"].(string)))
			}
			// With every probe passing, exactly the bound children run.
			if bound := rt.Handler(d, ch["name"].(string)) != nil; callable != bound {
				t.Errorf("%s.%s: callable=%v but handler bound=%v", d, ch["name"], callable, bound)
			}
		}
		if strings.Join(got, ",") != strings.Join(childNames(d), ",") {
			t.Errorf("%s children %v, want %v", d, got, childNames(d))
		}
		size := len(res.Structured)
		total += size
		t.Logf("%-17s manifest: %5d bytes (budget 16384), %2d children", d, size, len(got))
		if size > 16<<10 {
			t.Errorf("%s manifest is %d bytes, budget 16384", d, size)
		}
	}
	t.Logf("all 8 manifests: %d bytes", total)
}

// TestGoldens pins the contract as Hosts see it: tools/list in both modes
// and every manifest. Run with -update after an intended change.
func TestGoldens(t *testing.T) {
	dir := filepath.Join("..", "testdata", "golden")
	check := func(name string, v any) {
		t.Helper()
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if *update {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./catalog -run TestGoldens -update)", err)
		}
		if !bytes.Equal(want, buf.Bytes()) {
			t.Errorf("%s differs from the golden file; if the change is intended, run go test ./catalog -run TestGoldens -update and review the diff", name)
		}
	}
	for _, mode := range []string{catalog.Hierarchical, catalog.Flat} {
		s := newSurface(t, catalog.Config{Mode: mode}, newFakeRuntime())
		check("tools-"+mode+".json", toolsOf(t, s, anon))
	}
	s := newSurface(t, catalog.Config{}, newFakeRuntime())
	for _, d := range domainOrder {
		env, _ := call(t, s, anon, d, `{}`)
		check("manifest-"+d+".json", env)
	}
}

func childNames(domain string) []string {
	var out []string
	for _, e := range expectedChildren {
		if e.domain == domain {
			out = append(out, e.child)
		}
	}
	return out
}

// expectedChildren is the 55-child contract in the reference order.
var expectedChildren = func() []struct{ domain, child string } {
	spec := map[string]string{
		"doris_catalog":    "list_catalogs list_databases list_tables get_table_context get_table_size",
		"doris_query":      "execute_query explain_query get_query_profile diagnose_query_performance list_slow_queries get_adbc_connection_info execute_adbc_query",
		"doris_cluster":    "get_cluster_overview list_cluster_nodes list_active_tasks get_monitoring_metrics get_memory_stats get_cache_status get_compaction_status get_workload_group_status get_compute_group_status analyze_resource_growth get_runtime_capabilities",
		"doris_pipeline":   "get_ingestion_status diagnose_ingestion get_materialized_view_status monitor_data_freshness analyze_data_dependencies",
		"doris_search":     "search_data preview_text_analysis inspect_search_indexes diagnose_search_query",
		"doris_governance": "analyze_columns analyze_table_storage get_lineage_capability_status trace_column_lineage analyze_data_access_patterns get_recent_audit_logs list_udfs get_auth_mapping_status",
		"doris_lakehouse":  "inspect_external_catalog inspect_lakehouse_table inspect_variant_column",
		"doris_semantic":   "list_semantic_models get_semantic_model_summary get_semantic_context get_semantic_mapping_status list_metricflow_models get_metricflow_status list_metricflow_metrics get_metricflow_group_bys list_metricflow_saved_queries get_metricflow_dimension_values compile_metricflow_query execute_metricflow_query",
	}
	var out []struct{ domain, child string }
	for _, d := range domainOrder {
		for _, c := range strings.Fields(spec[d]) {
			out = append(out, struct{ domain, child string }{d, c})
		}
	}
	return out
}()

func TestFiftyFiveChildren(t *testing.T) {
	if len(expectedChildren) != 55 {
		t.Fatalf("the spelled-out contract has %d children", len(expectedChildren))
	}
}

// outputSchemas compiles each tool's declared output schema.
func outputSchemas(t *testing.T, s *catalog.Surface) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{}
	for _, tl := range toolsOf(t, s, anon) {
		b, _ := json.Marshal(tl["outputSchema"])
		sc, err := jsonschema.NewCompiler().Compile(b)
		if err != nil {
			t.Fatalf("%s output schema: %v", tl["name"], err)
		}
		out[tl["name"].(string)] = sc
	}
	return out
}

// checkOutput asserts the MCP rule that structuredContent conforms to the
// tool's outputSchema, and that content carries the same JSON as text.
func checkOutput(t *testing.T, schema *jsonschema.Schema, res *catalog.ToolResult) {
	t.Helper()
	if schema == nil {
		t.Fatal("no output schema for the tool")
	}
	if r := schema.ValidateJSON(res.Structured); !r.IsValid() {
		b, _ := json.Marshal(r.ToList(false))
		t.Errorf("structuredContent does not match the output schema: %s\n%s", b, res.Structured)
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]catalog.Config{
		"unknown mode":           {Mode: "tree"},
		"unknown allowlist name": {Enabled: []string{"doris_query.drop_table"}},
		"unknown denylist name":  {Disabled: []string{"doris_nope.list"}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.Handles = testSigner(t)
			s, err := catalog.New(cfg, newFakeRuntime())
			if err == nil {
				t.Fatalf("New accepted %+v: %v", cfg, s)
			}
		})
	}
}
