package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kaptinlin/jsonschema"
)

// expectedTable is the reference contract: 8 domains and 55 children, in
// order (contract §1).
var expectedTable = []struct {
	domain   string
	children []string
}{
	{"doris_catalog", []string{
		"list_catalogs", "list_databases", "list_tables", "get_table_context", "get_table_size",
	}},
	{"doris_query", []string{
		"execute_query", "explain_query", "get_query_profile", "diagnose_query_performance",
		"list_slow_queries", "get_adbc_connection_info", "execute_adbc_query",
	}},
	{"doris_cluster", []string{
		"get_cluster_overview", "list_cluster_nodes", "list_active_tasks", "get_monitoring_metrics",
		"get_memory_stats", "get_cache_status", "get_compaction_status", "get_workload_group_status",
		"get_compute_group_status", "analyze_resource_growth", "get_runtime_capabilities",
	}},
	{"doris_pipeline", []string{
		"get_ingestion_status", "diagnose_ingestion", "get_materialized_view_status",
		"monitor_data_freshness", "analyze_data_dependencies",
	}},
	{"doris_search", []string{
		"search_data", "preview_text_analysis", "inspect_search_indexes", "diagnose_search_query",
	}},
	{"doris_governance", []string{
		"analyze_columns", "analyze_table_storage", "get_lineage_capability_status",
		"trace_column_lineage", "analyze_data_access_patterns", "get_recent_audit_logs", "list_udfs",
		"get_auth_mapping_status",
	}},
	{"doris_lakehouse", []string{
		"inspect_external_catalog", "inspect_lakehouse_table", "inspect_variant_column",
	}},
	{"doris_semantic", []string{
		"list_semantic_models", "get_semantic_model_summary", "get_semantic_context",
		"get_semantic_mapping_status", "list_metricflow_models", "get_metricflow_status",
		"list_metricflow_metrics", "get_metricflow_group_bys", "list_metricflow_saved_queries",
		"get_metricflow_dimension_values", "compile_metricflow_query", "execute_metricflow_query",
	}},
}

// allowedProbes are the probe ids the Doris layer implements.
var allowedProbes = map[string]bool{
	"catalog.show_catalogs": true, "catalog.show_databases": true,
	"catalog.information_schema_tables": true, "catalog.information_schema_columns": true,
	"catalog.information_schema_partitions": true,
	"query.explain":                         true, "query.audit_log": true, "query.profile_api": true,
	"query.adbc_flight":       true,
	"cluster.current_queries": true, "cluster.active_queries": true, "cluster.processlist": true,
	"cluster.file_cache_statistics": true, "cluster.compaction_tasks": true,
	"cluster.workload_groups": true, "cluster.compute_groups": true, "cluster.history_buckets": true,
	"cluster.fe_metrics": true, "cluster.be_metrics": true,
	"pipeline.show_load": true, "pipeline.show_stream_load": true, "pipeline.routine_load": true,
	"pipeline.insert_jobs": true, "pipeline.mv_jobs": true, "pipeline.mv_tasks": true,
	"pipeline.audit_log": true,
	"search.show_index":  true, "search.tokenize": true, "search.vector_functions": true,
	"search.explain": true, "search.match_explain": true,
	"governance.information_schema": true, "governance.audit_log": true,
	"governance.global_functions": true, "governance.ldap_config": true,
	"governance.lineage_plugin": true, "governance.role_mappings": true,
	"governance.lineage_store": true,
	"lakehouse.show_catalogs":  true,
	"semantic.metricflow":      true,
}

const (
	maxInputBytes      = 4096
	maxDataBytes       = 3072
	minChildDescChars  = 120
	maxChildDescChars  = 360
	maxDomainDescChars = 380
	maxPropDescChars   = 100
)

var (
	flatNameRE     = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
	variantNameRE  = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	versionRangeRE = regexp.MustCompile(`^(\d+)\.(\d+)\.(\d+)-(?:(\d+)\.(\d+)\.(\d+))?$`)
)

func compact(t *testing.T, what, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		t.Fatalf("%s: not valid JSON: %v", what, err)
	}
	return buf.Bytes()
}

func compileTestSchema(t *testing.T, what, s string) *jsonschema.Schema {
	t.Helper()
	sch, err := jsonschema.NewCompiler().Compile(compact(t, what, s))
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", what, err)
	}
	return sch
}

// walkSchema visits every subschema of a JSON Schema document (schema
// positions only, so a property named "format" is not mistaken for the
// keyword).
func walkSchema(path string, node any, visit func(path string, schema map[string]any)) {
	schema, ok := node.(map[string]any)
	if !ok {
		return
	}
	visit(path, schema)
	for _, key := range []string{"items", "additionalProperties", "propertyNames", "not", "if", "then", "else", "contains"} {
		if sub, ok := schema[key]; ok {
			walkSchema(path+"/"+key, sub, visit)
		}
	}
	for _, key := range []string{"properties", "$defs", "patternProperties"} {
		if m, ok := schema[key].(map[string]any); ok {
			for name, sub := range m {
				walkSchema(path+"/"+key+"/"+name, sub, visit)
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if list, ok := schema[key].([]any); ok {
			for i, sub := range list {
				walkSchema(path+"/"+key+"/"+strconv.Itoa(i), sub, visit)
			}
		}
	}
}

func checkSchemaKeywords(t *testing.T, what string, doc []byte) {
	t.Helper()
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	walkSchema("#", root, func(path string, schema map[string]any) {
		for _, banned := range []string{"$ref", "$schema", "format", "$dynamicRef"} {
			if _, ok := schema[banned]; ok {
				t.Errorf("%s %s: keyword %q is not allowed", what, path, banned)
			}
		}
		if enum, ok := schema["enum"].([]any); ok {
			if len(enum) == 0 || len(enum) > maxEnumValues {
				t.Errorf("%s %s: enum has %d values (1..%d)", what, path, len(enum), maxEnumValues)
			}
		}
		if d, ok := schema["description"].(string); ok {
			if n := utf8.RuneCountInString(d); n == 0 || n > maxPropDescChars {
				t.Errorf("%s %s: description has %d chars (1..%d)", what, path, n, maxPropDescChars)
			}
		}
	})
}

func domainShort(d *Domain) string { return strings.TrimPrefix(d.Name, "doris_") }

func TestTableDomainsAndChildrenOrder(t *testing.T) {
	if len(domains) != len(expectedTable) {
		t.Fatalf("got %d domains, want %d", len(domains), len(expectedTable))
	}
	total := 0
	for i, want := range expectedTable {
		d := domains[i]
		if d.Name != want.domain {
			t.Errorf("domain %d: got %q, want %q", i, d.Name, want.domain)
			continue
		}
		if len(d.Children) > maxChildren {
			t.Errorf("%s: %d children, max %d", d.Name, len(d.Children), maxChildren)
		}
		var got []string
		for _, c := range d.Children {
			got = append(got, c.Name)
		}
		if strings.Join(got, ",") != strings.Join(want.children, ",") {
			t.Errorf("%s children:\n got  %v\n want %v", d.Name, got, want.children)
		}
		total += len(d.Children)
	}
	if total != 55 {
		t.Errorf("got %d children in all, want 55", total)
	}
}

func TestTableNamesUniqueAndFlat(t *testing.T) {
	seen := map[string]bool{}
	features := map[string]bool{}
	for _, d := range domains {
		if !strings.HasPrefix(d.Name, "doris_") || !flatNameRE.MatchString(d.Name) {
			t.Errorf("bad domain name %q", d.Name)
		}
		for _, c := range d.Children {
			flat := d.Name + "_" + c.Name
			if !flatNameRE.MatchString(flat) {
				t.Errorf("flat name %q does not match %s", flat, flatNameRE)
			}
			if seen[flat] {
				t.Errorf("duplicate child %q", flat)
			}
			seen[flat] = true
			if want := domainShort(d) + "." + c.Name; c.Feature != want {
				t.Errorf("%s: feature %q, want %q", flat, c.Feature, want)
			}
			if features[c.Feature] {
				t.Errorf("%s: duplicate feature %q", flat, c.Feature)
			}
			features[c.Feature] = true
		}
	}
}

func TestTableDescriptionsAndTitles(t *testing.T) {
	for _, d := range domains {
		if d.Title == "" {
			t.Errorf("%s: empty title", d.Name)
		}
		if n := utf8.RuneCountInString(d.Description); n == 0 || n > maxDomainDescChars {
			t.Errorf("%s: domain description has %d chars (1..%d)", d.Name, n, maxDomainDescChars)
		}
		for _, c := range d.Children {
			if c.Title == "" || len(c.Title) > 64 {
				t.Errorf("%s.%s: title %q", d.Name, c.Name, c.Title)
			}
			n := utf8.RuneCountInString(c.Description)
			if n < minChildDescChars || n > maxChildDescChars {
				t.Errorf("%s.%s: description has %d chars (%d..%d)", d.Name, c.Name, n, minChildDescChars, maxChildDescChars)
			}
			if strings.TrimSpace(c.Description) != c.Description || strings.Contains(c.Description, "  ") {
				t.Errorf("%s.%s: description has stray whitespace", d.Name, c.Name)
			}
		}
	}
}

func TestTableSchemas(t *testing.T) {
	for _, d := range domains {
		inputTotal, dataTotal := 0, 0
		for _, c := range d.Children {
			what := d.Name + "." + c.Name
			in := compact(t, what+" input", c.Input)
			if len(in) > maxInputBytes {
				t.Errorf("%s: input is %d bytes, max %d", what, len(in), maxInputBytes)
			}
			inputTotal += len(in)
			compileTestSchema(t, what+" input", c.Input)
			checkSchemaKeywords(t, what+" input", in)
			var top map[string]any
			if err := json.Unmarshal(in, &top); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if top["type"] != "object" {
				t.Errorf("%s: input type is %v, want object", what, top["type"])
			}
			if ap, ok := top["additionalProperties"].(bool); !ok || ap {
				t.Errorf("%s: input must have additionalProperties:false", what)
			}
			if _, ok := top["properties"].(map[string]any); !ok {
				t.Errorf("%s: input has no properties object", what)
			}

			switch c.Family {
			case Query, TableContext:
				if c.Data != "" {
					t.Errorf("%s: family %d defines data; Data must be empty", what, c.Family)
				}
			case Collection, Detail, Diagnostic:
				if c.Data == "" {
					t.Errorf("%s: family %d needs a Data schema", what, c.Family)
					continue
				}
				data := compact(t, what+" data", c.Data)
				if len(data) > maxDataBytes {
					t.Errorf("%s: data is %d bytes, max %d", what, len(data), maxDataBytes)
				}
				dataTotal += len(data)
				compileTestSchema(t, what+" data", c.Data)
				checkSchemaKeywords(t, what+" data", data)
				var dtop map[string]any
				_ = json.Unmarshal(data, &dtop)
				if dtop["type"] != "object" {
					t.Errorf("%s: data type is %v, want object", what, dtop["type"])
				}
			default:
				t.Errorf("%s: unknown family %d", what, c.Family)
			}
		}
		t.Logf("%-17s inputs %5d bytes, data %5d bytes (compact JSON)", d.Name, inputTotal, dataTotal)
	}
}

func parseVersion(t *testing.T, parts []string) [3]int {
	t.Helper()
	var v [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("bad version part %q", p)
		}
		v[i] = n
	}
	return v
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func TestTableVariantsProbesProviders(t *testing.T) {
	scopes := map[VersionScope]bool{ScopeMasterFE: true, ScopeAllFE: true, ScopeAllBE: true, ScopeAllComponents: true}
	providers := map[string]bool{"": true, ProviderFEHTTP: true, ProviderBEHTTP: true, ProviderADBC: true,
		ProviderOssie: true, ProviderMetricFlow: true, ProviderLineageStore: true}
	modes := map[string]bool{"integrated": true, "cloud": true, "shared_data": true}
	baseline := [3]int{2, 0, 0}
	for _, d := range domains {
		for _, c := range d.Children {
			what := d.Name + "." + c.Name
			if !scopes[c.Scope] {
				t.Errorf("%s: bad scope %q", what, c.Scope)
			}
			if !providers[c.Provider] {
				t.Errorf("%s: bad provider %q", what, c.Provider)
			}
			checkProbes := func(where string, ids []string) {
				seen := map[string]bool{}
				for _, id := range ids {
					if !allowedProbes[id] {
						t.Errorf("%s: unknown probe id %q", where, id)
					}
					if seen[id] {
						t.Errorf("%s: duplicate probe id %q", where, id)
					}
					seen[id] = true
				}
			}
			checkProbes(what, c.Probes)
			if len(c.Variants) == 0 {
				t.Errorf("%s: no variants", what)
			}
			names := map[string]bool{}
			for _, v := range c.Variants {
				vw := what + "/" + v.Name
				if !variantNameRE.MatchString(v.Name) || names[v.Name] {
					t.Errorf("%s: bad or duplicate variant name", vw)
				}
				names[v.Name] = true
				checkProbes(vw, v.Probes)
				for _, p := range v.Probes {
					for _, cp := range c.Probes {
						if p == cp {
							t.Errorf("%s: probe %q repeats a child probe", vw, p)
						}
					}
				}
				for _, m := range v.Modes {
					if !modes[m] {
						t.Errorf("%s: bad mode %q", vw, m)
					}
				}
				if len(v.Ranges) == 0 {
					t.Errorf("%s: no version ranges", vw)
				}
				for _, r := range v.Ranges {
					m := versionRangeRE.FindStringSubmatch(r)
					if m == nil {
						t.Errorf("%s: range %q does not parse", vw, r)
						continue
					}
					lo := parseVersion(t, m[1:4])
					if less(lo, baseline) {
						t.Errorf("%s: range %q starts below the 2.0.0 baseline", vw, r)
					}
					if m[4] != "" {
						if hi := parseVersion(t, m[4:7]); !less(lo, hi) {
							t.Errorf("%s: range %q has min >= max", vw, r)
						}
					}
				}
			}
		}
	}
}

func findChild(t *testing.T, domain, child string) *Child {
	t.Helper()
	for _, d := range domains {
		if d.Name != domain {
			continue
		}
		for i := range d.Children {
			if d.Children[i].Name == child {
				return &d.Children[i]
			}
		}
	}
	t.Fatalf("no child %s.%s", domain, child)
	return nil
}

func repeatJSON(item string, n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf(item, i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestTableArgumentValidation(t *testing.T) {
	long := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	filters33 := "{"
	for i := 0; i < 33; i++ {
		if i > 0 {
			filters33 += ","
		}
		filters33 += fmt.Sprintf(`"c%d":1`, i)
	}
	filters33 += "}"

	cases := []struct {
		domain, child string
		args          string
		valid         bool
	}{
		// catalog
		{"doris_catalog", "list_catalogs", `{}`, true},
		{"doris_catalog", "list_catalogs", `{"include_external":false,"pattern":"hive_*"}`, true},
		{"doris_catalog", "list_catalogs", `{"include_external":"yes"}`, false},
		{"doris_catalog", "list_databases", `{"catalog":""}`, false},
		{"doris_catalog", "list_tables", `{"database":"sales"}`, true},
		{"doris_catalog", "list_tables", `{"database":"sales","types":["table","view"],"page":"abc"}`, true},
		{"doris_catalog", "list_tables", `{}`, false},
		{"doris_catalog", "list_tables", `{"database":"sales","types":["table","bogus"]}`, false},
		{"doris_catalog", "list_tables", `{"database":"sales","types":[]}`, false},
		{"doris_catalog", "list_tables", `{"database":"sales","types":["view","view"]}`, false},
		{"doris_catalog", "list_tables", `{"database":"sales","unknown":1}`, false},
		{"doris_catalog", "list_tables", `{"database":` + long(257) + `}`, false},
		{"doris_catalog", "get_table_context", `{"database":"d","table":"t","sections":["schema","basic"]}`, true},
		{"doris_catalog", "get_table_context", `{"database":"d","table":"t","sections":["stats"]}`, false},
		{"doris_catalog", "get_table_context", `{"database":"d"}`, false},
		{"doris_catalog", "get_table_size", `{"database":"d","table":"t","include_partitions":true}`, true},
		// query
		{"doris_query", "execute_query", `{"sql":"SELECT 1","max_rows":100000,"timeout_ms":300000}`, true},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","max_rows":100001}`, false},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","max_rows":0}`, false},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","max_rows":1.5}`, false},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","timeout_ms":300001}`, false},
		{"doris_query", "execute_query", `{"sql":""}`, false},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","catalog":` + long(65) + `}`, false},
		{"doris_query", "execute_query", `{"sql":"SELECT %(a)s","parameters":{"a":1,"b":null,"c":"x","d":true}}`, true},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","parameters":{"1bad":1}}`, false},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","parameters":{"a":{"x":1}}}`, false},
		{"doris_query", "execute_query", `{"sql":"SELECT 1","parameters":{"a":[1]}}`, false},
		{"doris_query", "explain_query", `{"sql":"SELECT 1","level":"costs"}`, true},
		{"doris_query", "explain_query", `{"sql":"SELECT 1","level":"analyze"}`, false},
		{"doris_query", "get_query_profile", `{"query_id":"abc_1-2"}`, true},
		{"doris_query", "get_query_profile", `{"sql":"SELECT 1","include_operator_tree":true}`, true},
		{"doris_query", "get_query_profile", `{"query_id":"abc","sql":"SELECT 1"}`, false},
		{"doris_query", "get_query_profile", `{"recent_window_minutes":5}`, false},
		{"doris_query", "get_query_profile", `{"query_id":"a b"}`, false},
		{"doris_query", "get_query_profile", `{"query_id":` + long(129) + `}`, false},
		{"doris_query", "get_query_profile", `{"query_id":"a","recent_window_minutes":129601}`, false},
		{"doris_query", "diagnose_query_performance", `{"sql":"SELECT 1","database":"d"}`, true},
		{"doris_query", "diagnose_query_performance", `{"query_id":"q","sql":"SELECT 1"}`, false},
		{"doris_query", "list_slow_queries", `{}`, true},
		{"doris_query", "list_slow_queries", `{"limit":1001}`, false},
		{"doris_query", "list_slow_queries", `{"min_duration_ms":-1}`, false},
		{"doris_query", "list_slow_queries", `{"user":` + long(129) + `}`, false},
		{"doris_query", "get_adbc_connection_info", `{"explicit_adbc":true}`, true},
		{"doris_query", "get_adbc_connection_info", `{"explicit_adbc":false}`, false},
		{"doris_query", "get_adbc_connection_info", `{}`, false},
		{"doris_query", "execute_adbc_query", `{"explicit_adbc":true,"sql":"SELECT 1","result_format":"dict"}`, true},
		{"doris_query", "execute_adbc_query", `{"explicit_adbc":true,"sql":"SELECT 1","result_format":"csv"}`, false},
		{"doris_query", "execute_adbc_query", `{"sql":"SELECT 1"}`, false},
		// cluster
		{"doris_cluster", "get_cluster_overview", `{"include":["nodes","cache"]}`, true},
		{"doris_cluster", "get_cluster_overview", `{"include":["disks"]}`, false},
		{"doris_cluster", "list_cluster_nodes", `{"node_types":["be"],"include_metrics":true}`, true},
		{"doris_cluster", "list_cluster_nodes", `{"node_types":"be"}`, false},
		{"doris_cluster", "list_active_tasks", `{"task_types":["query","compaction"],"limit":1000}`, true},
		{"doris_cluster", "list_active_tasks", `{"limit":1001}`, false},
		{"doris_cluster", "list_active_tasks", `{"task_types":["disk"]}`, false},
		{"doris_cluster", "get_monitoring_metrics", `{"metric_names":["doris_fe_query_total"],"window":"1h"}`, true},
		{"doris_cluster", "get_monitoring_metrics", `{"metric_names":["bad name"]}`, false},
		{"doris_cluster", "get_monitoring_metrics", `{"metric_names":` + repeatJSON(`"m%d"`, 101) + `}`, false},
		{"doris_cluster", "get_memory_stats", `{"detail":"everything"}`, false},
		{"doris_cluster", "get_compaction_status", `{"limit":1000}`, true},
		{"doris_cluster", "get_compaction_status", `{"limit":1001}`, false},
		{"doris_cluster", "analyze_resource_growth", `{}`, true},
		{"doris_cluster", "analyze_resource_growth", `{"resource":"storage","window_days":3650,"granularity":"week"}`, true},
		{"doris_cluster", "analyze_resource_growth", `{"resource":"cpu"}`, false},
		{"doris_cluster", "analyze_resource_growth", `{"window_days":3651}`, false},
		{"doris_cluster", "get_runtime_capabilities", `{"detail":"full"}`, true},
		{"doris_cluster", "get_runtime_capabilities", `{"detail":"all"}`, false},
		// pipeline
		{"doris_pipeline", "get_ingestion_status", `{"job_types":["routine_load","continuous_load"],"limit":200}`, true},
		{"doris_pipeline", "get_ingestion_status", `{"limit":201}`, false},
		{"doris_pipeline", "get_ingestion_status", `{"job_types":["spark_load"]}`, false},
		{"doris_pipeline", "diagnose_ingestion", `{"job_id":"12345"}`, true},
		{"doris_pipeline", "diagnose_ingestion", `{"database":"d","table":"t","include_dependencies":true}`, true},
		{"doris_pipeline", "diagnose_ingestion", `{"database":"d"}`, false},
		{"doris_pipeline", "diagnose_ingestion", `{}`, false},
		{"doris_pipeline", "diagnose_ingestion", `{"job_id":"1","window_minutes":43201}`, false},
		{"doris_pipeline", "monitor_data_freshness", `{"database":"d","table":"t","threshold_seconds":31536000}`, true},
		{"doris_pipeline", "monitor_data_freshness", `{"database":"d","table":"t","threshold_seconds":0}`, false},
		{"doris_pipeline", "analyze_data_dependencies", `{"object":"d.t","depth":5}`, true},
		{"doris_pipeline", "analyze_data_dependencies", `{"object":"d.t","depth":6}`, false},
		// search
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"text","query":"doris"}`, true},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"text"}`, false},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"vector","vector":[0.1,0.2],"top_k":5}`, true},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"hybrid","vector":[0.1]}`, false},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"hybrid","vector":[0.1],"query":"x"}`, true},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"fuzzy","query":"x"}`, false},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"text","query":"x","top_k":1001}`, false},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"vector","vector":` + repeatJSON(`%d`, 4097) + `}`, false},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"text","query":"x","filters":{"a":1,"b":{"operator":"in","values":[1,2]},"c":{"operator":"is_null"}}}`, true},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"text","query":"x","filters":{"b":{"operator":"like","value":"x"}}}`, false},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"text","query":"x","filters":{"b":{"operator":"eq","value":"x","sql":"1=1"}}}`, false},
		{"doris_search", "search_data", `{"database":"d","table":"t","mode":"text","query":"x","filters":` + filters33 + `}`, false},
		{"doris_search", "preview_text_analysis", `{"text":"Doris search","analyzer":"english"}`, true},
		{"doris_search", "preview_text_analysis", `{"text":"x","token_filters":` + repeatJSON(`"f%d"`, 17) + `}`, false},
		{"doris_search", "inspect_search_indexes", `{"database":"d","table":"t","index":"idx"}`, true},
		{"doris_search", "diagnose_search_query", `{"sql":"SELECT 1","include_profile":true}`, true},
		{"doris_search", "diagnose_search_query", `{"search_request":{"database":"d","table":"t","mode":"text","query":"x"}}`, true},
		{"doris_search", "diagnose_search_query", `{"search_request":{"database":"d","table":"t","mode":"vector"}}`, false},
		{"doris_search", "diagnose_search_query", `{"include_profile":true}`, false},
		// governance
		{"doris_governance", "analyze_columns", `{"database":"d","table":"t","columns":["a"],"sample_ratio":0.1}`, true},
		{"doris_governance", "analyze_columns", `{"database":"d","table":"t","sample_ratio":1.5}`, false},
		{"doris_governance", "analyze_columns", `{"database":"d","table":"t","columns":` + repeatJSON(`"c%d"`, 33) + `}`, false},
		{"doris_governance", "get_lineage_capability_status", `{}`, true},
		{"doris_governance", "get_lineage_capability_status", `{"verbose":true}`, false},
		{"doris_governance", "trace_column_lineage", `{"object":"db.orders","column":"id","evidence_mode":"audit"}`, true},
		{"doris_governance", "trace_column_lineage", `{"object":"internal.db.orders","direction":"upstream","depth":5}`, true},
		{"doris_governance", "trace_column_lineage", `{"object":"orders"}`, false},
		{"doris_governance", "trace_column_lineage", `{"object":"db.orders","depth":6}`, false},
		{"doris_governance", "trace_column_lineage", `{"object":"db.orders","evidence_mode":"guess"}`, false},
		{"doris_governance", "analyze_data_access_patterns", `{"window_days":30,"group_by":"hour"}`, true},
		{"doris_governance", "analyze_data_access_patterns", `{"window_days":31}`, false},
		{"doris_governance", "get_recent_audit_logs", `{"limit":200,"window_minutes":43200}`, true},
		{"doris_governance", "get_recent_audit_logs", `{"limit":201}`, false},
		{"doris_governance", "list_udfs", `{"language":"python","name_pattern":"my_*"}`, true},
		{"doris_governance", "get_auth_mapping_status", `{"provider":"oidc","principal":"alice"}`, true},
		{"doris_governance", "get_auth_mapping_status", `{"provider":"saml"}`, false},
		// lakehouse
		{"doris_lakehouse", "inspect_external_catalog", `{"catalog":"hive","include_objects":true,"object_limit":500}`, true},
		{"doris_lakehouse", "inspect_external_catalog", `{"catalog":"hive","object_limit":501}`, false},
		{"doris_lakehouse", "inspect_external_catalog", `{}`, false},
		{"doris_lakehouse", "inspect_lakehouse_table", `{"catalog":"ice","database":"d","table":"t","include_snapshots":true}`, true},
		{"doris_lakehouse", "inspect_lakehouse_table", `{"database":"d","table":"t"}`, false},
		{"doris_lakehouse", "inspect_variant_column", `{"database":"d","table":"t","column":"v","path":"a.b","sample_rows":500}`, true},
		{"doris_lakehouse", "inspect_variant_column", `{"database":"d","table":"t","column":"v","sample_rows":0}`, false},
		// semantic
		{"doris_semantic", "list_semantic_models", `{"namespace":"sales"}`, true},
		{"doris_semantic", "list_semantic_models", `{"namespace":` + long(193) + `}`, false},
		{"doris_semantic", "get_semantic_model_summary", `{"model_ref":"sales/orders@1.2+build.7"}`, true},
		{"doris_semantic", "get_semantic_model_summary", `{"model_ref":"bad ref!"}`, false},
		{"doris_semantic", "get_semantic_model_summary", `{"model_ref":` + long(193) + `}`, false},
		{"doris_semantic", "get_semantic_context", `{"model_ref":"sales","request":{"question":"revenue by month?"}}`, true},
		{"doris_semantic", "get_semantic_context", `{"model_ref":"sales","request":{"metrics":["revenue"],"max_bytes":65536}}`, true},
		{"doris_semantic", "get_semantic_context", `{"model_ref":"sales","request":{}}`, false},
		{"doris_semantic", "get_semantic_context", `{"model_ref":"sales","request":{"max_bytes":2048}}`, false},
		{"doris_semantic", "get_semantic_context", `{"model_ref":"sales","request":{"question":"q","max_bytes":1023}}`, false},
		{"doris_semantic", "get_semantic_context", `{"model_ref":"sales"}`, false},
		{"doris_semantic", "list_metricflow_models", `{}`, true},
		{"doris_semantic", "list_metricflow_models", `{"model_ref":"x"}`, false},
		{"doris_semantic", "list_metricflow_metrics", `{"model_ref":"m","limit":1001}`, false},
		{"doris_semantic", "get_metricflow_group_bys", `{"model_ref":"m","metrics":["revenue","orders"]}`, true},
		{"doris_semantic", "get_metricflow_group_bys", `{"model_ref":"m","metrics":[]}`, false},
		{"doris_semantic", "get_metricflow_group_bys", `{"model_ref":"m","metrics":["1bad"]}`, false},
		{"doris_semantic", "get_metricflow_dimension_values", `{"model_ref":"m","metrics":["revenue"],"dimension":"customer__region","start_time":"2024-01-01","end_time":"2024-02-01T00:00:00Z"}`, true},
		{"doris_semantic", "get_metricflow_dimension_values", `{"model_ref":"m","metrics":["revenue"],"dimension":"d","start_time":"yesterday"}`, false},
		{"doris_semantic", "get_metricflow_dimension_values", `{"model_ref":"m","metrics":["revenue"],"dimension":"d","limit":10001}`, false},
		{"doris_semantic", "compile_metricflow_query", `{"model_ref":"m","request":{"metrics":["revenue"],"group_by":["metric_time__month"],"order_by":["-metric_time__month"],"limit":10}}`, true},
		{"doris_semantic", "compile_metricflow_query", `{"model_ref":"m","request":{"saved_query":"weekly_revenue"}}`, true},
		{"doris_semantic", "compile_metricflow_query", `{"model_ref":"m","request":{"metrics":["revenue"],"saved_query":"q"}}`, false},
		{"doris_semantic", "compile_metricflow_query", `{"model_ref":"m","request":{"group_by":["x"]}}`, false},
		{"doris_semantic", "compile_metricflow_query", `{"model_ref":"m","request":{"metrics":["r"],"where":` + repeatJSON(`"w%d"`, 17) + `}}`, false},
		{"doris_semantic", "execute_metricflow_query", `{"model_ref":"m","request":{"metrics":["revenue"]},"max_rows":100000}`, true},
		{"doris_semantic", "execute_metricflow_query", `{"model_ref":"m","request":{"metrics":["revenue"]},"max_rows":100001}`, false},
	}

	compiled := map[string]*jsonschema.Schema{}
	covered := map[string]bool{}
	for _, tc := range cases {
		key := tc.domain + "." + tc.child
		sch, ok := compiled[key]
		if !ok {
			sch = compileTestSchema(t, key, findChild(t, tc.domain, tc.child).Input)
			compiled[key] = sch
		}
		covered[tc.domain] = true
		res := sch.ValidateJSON([]byte(tc.args))
		if res.IsValid() != tc.valid {
			args := tc.args
			if len(args) > 200 {
				args = args[:200] + "..."
			}
			t.Errorf("%s %s: valid=%v, want %v", key, args, res.IsValid(), tc.valid)
		}
	}
	for _, d := range domains {
		if !covered[d.Name] {
			t.Errorf("no argument cases for %s", d.Name)
		}
	}
}
