package semanticprovider_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// compileReason compiles req and returns the reason code ("" on success)
// and the SQL.
func compileReason(t *testing.T, pv provider, req map[string]any) (string, string) {
	t.Helper()
	data, reason := pv.call(t, "compile_query", map[string]any{"dialect": "doris", "request": req})
	if reason != "" {
		return reason, ""
	}
	return "", data["sql"].(string)
}

func TestCompileRefusals(t *testing.T) {
	pv := newProvider(t, "demo", demoManifest)
	m := func(kv ...any) map[string]any {
		out := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	rev := []string{"revenue"}
	cases := []struct {
		name string
		req  map[string]any
		want string
	}{
		{"unknown metric", m("metrics", []string{"nope"}), semanticprovider.ReasonMetricNotFound},
		{"unknown saved query", m("saved_query", "nope"), semanticprovider.ReasonSavedQueryNotFound},
		{"metrics and saved query", m("metrics", rev, "saved_query", "top_channels"), semanticprovider.ReasonRequestInvalid},
		{"group-bys with a saved query", m("saved_query", "top_channels", "group_by", []string{"order__status"}), semanticprovider.ReasonRequestInvalid},
		{"no metrics", m("metrics", []string{}), semanticprovider.ReasonRequestInvalid},
		{"metric twice", m("metrics", []string{"revenue", "revenue"}), semanticprovider.ReasonRequestInvalid},
		{"unknown dimension", m("metrics", rev, "group_by", []string{"order__nope"}), semanticprovider.ReasonGroupByInvalid},
		{"unknown entity in path", m("metrics", rev, "group_by", []string{"nope__country"}), semanticprovider.ReasonGroupByInvalid},
		{"dimension without an entity", m("metrics", rev, "group_by", []string{"Dimension('country')"}), semanticprovider.ReasonGroupByInvalid},
		{"three hops", m("metrics", rev, "group_by", []string{"customer__sales_day__customer__sales_day__busy_day"}), semanticprovider.ReasonGroupByInvalid},
		{"grain on a categorical dimension", m("metrics", rev, "group_by", []string{"order__status__month"}), semanticprovider.ReasonGroupByInvalid},
		{"grain finer than the dimension", m("metrics", rev, "group_by", []string{"metric_time__hour"}), semanticprovider.ReasonGrainUnsupported},
		{"sub-second grain", m("metrics", rev, "group_by", []string{"metric_time__millisecond"}), semanticprovider.ReasonGrainUnsupported},
		{"date part", m("metrics", rev, "group_by", []string{"metric_time__extract_year"}), semanticprovider.ReasonGrainUnsupported},
		{"group-by twice", m("metrics", rev, "group_by", []string{"metric_time__day", "TimeDimension('metric_time', 'day')"}), semanticprovider.ReasonGroupByInvalid},
		{"metric as a group-by", m("metrics", rev, "group_by", []string{"Metric('orders')"}), semanticprovider.ReasonGroupByInvalid},
		{"where filter not reachable from every metric", m("metrics", []string{"revenue", "new_customers"}, "where", []string{"{{ Dimension('order__status') }} = 'paid'"}), semanticprovider.ReasonWhereInvalid},
		{"bare column in a filter", m("metrics", rev, "where", []string{"status = 'paid'"}), semanticprovider.ReasonWhereInvalid},
		{"subquery in a filter", m("metrics", rev, "where", []string{"{{ Dimension('order__status') }} IN (SELECT 1)"}), semanticprovider.ReasonWhereInvalid},
		{"second statement in a filter", m("metrics", rev, "where", []string{"{{ Dimension('order__status') }} = 'a'; DROP TABLE demo.orders"}), semanticprovider.ReasonWhereInvalid},
		{"comment in a filter", m("metrics", rev, "where", []string{"{{ Dimension('order__status') }} = 'a' -- x"}), semanticprovider.ReasonWhereInvalid},
		{"backslash in a filter literal", m("metrics", rev, "where", []string{`{{ Dimension('order__status') }} = 'a\' OR 1=1 OR \''`}), semanticprovider.ReasonWhereInvalid},
		{"backquoted name in a filter", m("metrics", rev, "where", []string{"`status` = 'a'"}), semanticprovider.ReasonWhereInvalid},
		{"placeholder in a filter", m("metrics", rev, "where", []string{"{{ Dimension('order__status') }} = %(x)s"}), semanticprovider.ReasonWhereInvalid},
		{"hint in a filter", m("metrics", rev, "where", []string{"/*+ SET_VAR(a=1) */ {{ Dimension('order__status') }} = 'a'"}), semanticprovider.ReasonWhereInvalid},
		{"unclosed template", m("metrics", rev, "where", []string{"{{ Dimension('order__status') = 'a'"}), semanticprovider.ReasonWhereInvalid},
		{"unknown template call", m("metrics", rev, "where", []string{"{{ Column('status') }} = 'a'"}), semanticprovider.ReasonWhereInvalid},
		{"template inside a string", m("metrics", rev, "where", []string{"'{{ Dimension('order__status') }}' = 'a'"}), semanticprovider.ReasonWhereInvalid},
		{"metric filter", m("metrics", rev, "where", []string{"{{ Metric('orders', group_by=['customer']) }} > 2"}), semanticprovider.ReasonWhereInvalid},
		{"unbalanced parentheses", m("metrics", rev, "where", []string{"({{ Dimension('order__status') }} = 'a'"}), semanticprovider.ReasonWhereInvalid},
		{"number the lexers read differently", m("metrics", rev, "where", []string{"{{ Dimension('order__status') }} = 1e5x"}), semanticprovider.ReasonWhereInvalid},
		{"start after end", m("metrics", rev, "start_time", "2025-02-01", "end_time", "2025-01-01"), semanticprovider.ReasonTimeInvalid},
		{"time with a non-UTC offset", m("metrics", rev, "start_time", "2025-02-01T10:00:00+02:00"), semanticprovider.ReasonTimeInvalid},
		{"not a time", m("metrics", rev, "start_time", "yesterday"), semanticprovider.ReasonTimeInvalid},
		{"limit zero", m("metrics", rev, "limit", 0), semanticprovider.ReasonLimitInvalid},
		{"limit too large", m("metrics", rev, "limit", 100001), semanticprovider.ReasonLimitInvalid},
		{"order by an unknown column", m("metrics", rev, "order_by", []string{"-orders"}), semanticprovider.ReasonOrderByInvalid},
		{"cumulative without a time spine", m("metrics", []string{"revenue_7d"}, "group_by", []string{"metric_time__day"}), semanticprovider.ReasonTimeSpineRequired},
		{"offset without a time spine", m("metrics", []string{"revenue_growth_mom"}, "group_by", []string{"metric_time__month"}), semanticprovider.ReasonTimeSpineRequired},
		{"too many where filters", m("metrics", rev, "where", make([]string, 17)), semanticprovider.ReasonRequestInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, _ := compileReason(t, pv, c.req); got != c.want {
				t.Fatalf("got %q, want %s", got, c.want)
			}
		})
	}
}

// deterministicRequests are requests that exercise every part of the
// compiler.
var deterministicRequests = []map[string]any{
	{"metrics": []string{"revenue", "new_customers", "discount_rate", "net_revenue", "web_share"},
		"group_by":   []string{"metric_time__month", "customer__country"},
		"where":      []string{"{{ Dimension('customer__segment') }} IN ('smb', 'enterprise')", "{{ TimeDimension('metric_time', 'week') }} >= '2024-01-01'"},
		"start_time": "2024-03-15", "end_time": "2025-02-01T10:00:00Z", "order_by": []string{"-revenue", "customer__country"}, "limit": 10},
	{"saved_query": "revenue_by_country_month"},
	{"metrics": []string{"orders", "delivered_share"}, "group_by": []string{"customer__sales_day__busy_day", "order__ordered_at__hour"}},
	{"metrics": []string{"average_order_value", "buyers", "largest_order", "smallest_order", "shipped_orders", "coupon_orders"}, "group_by": []string{"order__channel"}},
}

// TestNewPathsAreDeterministic compiles, from fresh loads, requests over
// the paths this provider gained with per-element loading: relation names
// in each quoting, percentiles, all-time cumulatives, join_to_timespine
// and the aggregation time dimension as the cumulative axis.
func TestNewPathsAreDeterministic(t *testing.T) {
	reqs := []map[string]any{
		{"metrics": []string{"revenue_all_time", "revenue_mtd", "trailing_2_months_revenue_sub_10"}, "group_by": []string{"metric_time__week", "metric_time__quarter"}, "start_time": "2020-02-01"},
		{"metrics": []string{"trailing_2_months_revenue"}, "group_by": []string{"revenue_instance__ds__day"}},
		{"metrics": []string{"revenue_all_time", "revenue"}},
	}
	// Entity paths resolved by the model that owns the element (two models
	// share the primary entity listing, and user), and partition joins,
	// over MetricFlow's SIMPLE_MODEL.
	simple := []map[string]any{
		{"metrics": []string{"booking_value"}, "group_by": []string{"booking__is_instant", "listing__country_latest", "listing__lux_listing"}},
		{"metrics": []string{"listings"}, "group_by": []string{"user__company_name", "user__home_state_latest"}},
		{"metrics": []string{"identity_verifications"}, "group_by": []string{"verification__ds_partitioned", "user__home_state"}},
	}
	for i, req := range simple {
		var first string
		for n := 0; n < 20; n++ {
			pv := newProvider(t, "mfs", "testdata/metricflow/simple_manifest.json")
			reason, sql := compileReason(t, pv, req)
			if reason != "" {
				t.Fatalf("simple request %d refused with %s", i, reason)
			}
			if _, err := guard.Check(sql); err != nil {
				t.Fatalf("simple request %d: the guard rejects the compiled SQL: %v", i, err)
			}
			if n == 0 {
				first = sql
			} else if sql != first {
				t.Fatalf("simple request %d: compilation %d differs from the first", i, n)
			}
		}
	}
	for i, req := range reqs {
		var first string
		for n := 0; n < 20; n++ {
			pv := newProvider(t, "mf", "testdata/metricflow/semantic_manifest.json")
			reason, sql := compileReason(t, pv, req)
			if reason != "" {
				t.Fatalf("request %d refused with %s", i, reason)
			}
			if n == 0 {
				first = sql
			} else if sql != first {
				t.Fatalf("request %d: compilation %d differs from the first", i, n)
			}
		}
	}
}

func TestCompileIsDeterministic(t *testing.T) {
	for i, req := range deterministicRequests {
		var first string
		for n := 0; n < 30; n++ {
			pv := newProvider(t, "demo", demoManifest) // a fresh load every time
			reason, sql := compileReason(t, pv, req)
			if reason != "" {
				t.Fatalf("request %d refused with %s", i, reason)
			}
			if n == 0 {
				first = sql
			} else if sql != first {
				t.Fatalf("request %d: compilation %d differs from the first:\n%s\n---\n%s", i, n, sql, first)
			}
		}
	}
}

// writeManifest writes a manifest document for one test.
func writeManifest(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "semantic_manifest.json")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// hostileManifest has names, relations and expressions that try to break
// out of their quoting.
const hostileManifest = `{"semantic_models": [{"name": "events", "defaults": {"agg_time_dimension": "at"},
 "node_relation": {"alias": "ev ents; DROP TABLE x; --", "schema_name": "sché ma"},
 "entities": [{"name": "event", "type": "primary", "expr": "id"}],
 "measures": [
  {"name": "amount", "agg": "sum", "expr": "CASE WHEN kind = 'it''s' THEN amount ELSE 0 END"},
  {"name": "odd", "agg": "sum", "expr": "amount; DROP TABLE x"},
  {"name": "sneaky", "agg": "sum", "expr": "amount FROM salaries"},
  {"name": "dated", "agg": "sum", "expr": "1", "agg_time_dimension": "padded"}],
 "dimensions": [
  {"name": "at", "type": "time", "type_params": {"time_granularity": "day"}},
  {"name": "padded", "type": "time", "type_params": {"time_granularity": "day"}, "expr": "COALESCE(at, '2000-01-01')"},
  {"name": "kind", "type": "categorical", "expr": "select"}]}],
 "metrics": [
  {"name": "amount", "type": "simple", "type_params": {"measure": {"name": "amount"}}},
  {"name": "odd", "type": "simple", "type_params": {"measure": {"name": "odd"}}},
  {"name": "sneaky", "type": "simple", "type_params": {"measure": {"name": "sneaky"}}},
  {"name": "dated", "type": "simple", "type_params": {"measure": {"name": "dated"}}}],
 "saved_queries": []}`

func TestQuotingAndGuard(t *testing.T) {
	pv := newProvider(t, "h", writeManifest(t, hostileManifest))
	reason, sql := compileReason(t, pv, map[string]any{"metrics": []string{"amount"}, "group_by": []string{"event__kind"},
		"where": []string{"{{ Dimension('event__kind') }} <> 'O''Brien'"}})
	if reason != "" {
		t.Fatalf("refused with %s", reason)
	}
	for _, want := range []string{"`sché ma`.`ev ents; DROP TABLE x; --`", "`s0`.`kind` = 'it''s'", "`s0`.`select`", "'O''Brien'"} {
		if !strings.Contains(sql, want) {
			t.Errorf("compiled SQL lacks %s:\n%s", want, sql)
		}
	}
	if _, err := guard.Check(sql); err != nil {
		t.Errorf("compiled SQL fails the guard: %v", err)
	}
	// An expression that is not one expression is refused where it is used.
	if got, _ := compileReason(t, pv, map[string]any{"metrics": []string{"odd"}}); got != semanticprovider.ReasonExpressionUnsupported {
		t.Errorf("a measure expression with ';': got %q, want %s", got, semanticprovider.ReasonExpressionUnsupported)
	}
	// Words the grammar does not know become quoted column names: they can
	// fail in Doris but never read another table.
	_, sneaky := compileReason(t, pv, map[string]any{"metrics": []string{"sneaky"}})
	if !strings.Contains(sneaky, "SUM(`s0`.`amount` `s0`.`FROM` `s0`.`salaries`)") {
		t.Errorf("unknown words were not quoted as columns:\n%s", sneaky)
	}
	// A literal in an aggregation time expression that no time range uses
	// must not leave an unused placeholder behind.
	if got, _ := compileReason(t, pv, map[string]any{"metrics": []string{"dated"}}); got != "" {
		t.Errorf("a measure whose time expression has a literal: refused with %s", got)
	}
	// The other metrics still compile: one bad expression does not refuse
	// the manifest.
	data, reason := pv.call(t, "get_status", map[string]any{})
	if reason != "" || data["model_valid"] != true {
		t.Fatalf("get_status: %v %s", data, reason)
	}
	if issues := data["issues"].([]any); len(issues) != 1 || !strings.Contains(issues[0].(string), "odd") {
		t.Errorf("issues = %v, want the one broken metric", issues)
	}
}

func TestFilterGrammar(t *testing.T) {
	pv := newProvider(t, "demo", demoManifest)
	accept := []string{
		"{{ Dimension('order__status') }} = 'paid'",
		"{{ Dimension('order__status') }} IN ('paid', 'shipped') AND NOT {{ Dimension('order__channel') }} = 'web'",
		"LOWER({{ Dimension('customer__country') }}) LIKE 'd%'",
		"{{ TimeDimension('metric_time', 'month') }} BETWEEN '2024-01-01' AND '2024-06-30'",
		"{{ TimeDimension('order__ordered_at', time_granularity_name='day') }} >= DATE '2024-01-01'",
		"{{ Dimension('order__ordered_at').grain('week') }} < CURRENT_DATE",
		"{{ Entity('customer') }} IS NOT NULL",
		"{{ Dimension('busy_day', entity_path=['customer', 'sales_day']) }} = \"busy\"",
		"CASE WHEN {{ Dimension('order__channel') }} = 'web' THEN 1 ELSE 0 END = 1",
		"({{ Dimension('order__status') }} <> 'cancelled') OR {{ Dimension('order__is_discounted') }} = 1",
	}
	for _, f := range accept {
		t.Run(f, func(t *testing.T) {
			reason, sql := compileReason(t, pv, map[string]any{"metrics": []string{"revenue"}, "where": []string{f}})
			if reason != "" {
				t.Fatalf("refused with %s", reason)
			}
			if _, err := guard.Check(sql); err != nil {
				t.Fatalf("fails the guard: %v", err)
			}
		})
	}
}

func TestLoaderRefusesHostileManifests(t *testing.T) {
	model := `{"name": "m", "node_relation": {"alias": "t", "schema_name": "s"}, "entities": [], "measures": [], "dimensions": []}`
	cases := []struct {
		name, doc, want string
	}{
		{"not JSON", `{"semantic_models": [`, semanticprovider.ReasonManifestInvalid},
		{"not an object", `[]`, semanticprovider.ReasonManifestInvalid},
		{"duplicate key", `{"metrics": [], "metrics": []}`, semanticprovider.ReasonManifestInvalid},
		{"duplicate key deep inside", `{"semantic_models": [{"name": "m", "name": "n"}]}`, semanticprovider.ReasonManifestInvalid},
		{"data after the object", `{} {}`, semanticprovider.ReasonManifestInvalid},
		{"invalid UTF-8", "{\"metrics\": [], \"x\": \"\xff\"}", semanticprovider.ReasonManifestInvalid},
		{"too deep", `{"semantic_models": [{"metadata": ` + strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70) + `}]}`, semanticprovider.ReasonManifestInvalid},
		{"wrong type", `{"metrics": {}}`, semanticprovider.ReasonManifestInvalid},
		{"NaN", `{"metrics": [], "x": NaN}`, semanticprovider.ReasonManifestInvalid},
		{"model defined twice", `{"semantic_models": [` + model + `, ` + model + `]}`, semanticprovider.ReasonManifestInvalid},
		{"case variant of a key", `{"Metrics": []}`, semanticprovider.ReasonManifestInvalid},
		{"case variant of a nested key", `{"semantic_models": [{"Name": "m", "node_relation": {"alias": "t", "schema_name": "s"}}]}`, semanticprovider.ReasonManifestInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := semanticprovider.LoadManifest(writeManifest(t, c.doc))
			if got := semanticprovider.ReasonOf(err); err == nil || got != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
		})
	}
	t.Run("larger than 32 MiB", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "big.json")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(semanticprovider.MaxManifestBytes + 1) // sparse: no 32 MiB written
		f.Close()
		if got := semanticprovider.ReasonOf(semanticprovider.LoadManifest(p)); got != semanticprovider.ReasonManifestTooLarge {
			t.Fatalf("got %s, want %s", got, semanticprovider.ReasonManifestTooLarge)
		}
	})
	t.Run("not a regular file", func(t *testing.T) {
		if got := semanticprovider.ReasonOf(semanticprovider.LoadManifest(t.TempDir())); got != semanticprovider.ReasonManifestUnreadable {
			t.Fatalf("got %s, want %s", got, semanticprovider.ReasonManifestUnreadable)
		}
	})
	t.Run("the demo and the real manifest load", func(t *testing.T) {
		for _, p := range []string{demoManifest, filepath.Join(jaffleDir, "semantic_manifest.json")} {
			if err := semanticprovider.LoadManifest(p); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
}

func TestMetadataOperations(t *testing.T) {
	pv := newProvider(t, "demo", demoManifest)
	names := func(data map[string]any) []string {
		var out []string
		for _, it := range data["items"].([]any) {
			out = append(out, it.(map[string]any)["name"].(string))
		}
		return out
	}
	t.Run("get_group_bys lists local, joined and two-hop group-bys valid for all metrics", func(t *testing.T) {
		data, reason := pv.call(t, "get_group_bys", map[string]any{"metrics": []string{"revenue", "discount_rate"}})
		if reason != "" {
			t.Fatal(reason)
		}
		got := strings.Join(names(data), ",")
		for _, want := range []string{"metric_time", "order__status", "customer__country", "customer__sales_day__busy_day", "sales_day__busy_day", "customer"} {
			if !strings.Contains(","+got+",", ","+want+",") {
				t.Errorf("group-bys lack %s: %s", want, got)
			}
		}
		// Every listed group-by compiles.
		for _, n := range names(data) {
			if reason, _ := compileReason(t, pv, map[string]any{"metrics": []string{"revenue"}, "group_by": []string{n}}); reason != "" {
				t.Errorf("listed group-by %s refused with %s", n, reason)
			}
		}
	})
	t.Run("get_group_bys intersects across semantic models", func(t *testing.T) {
		data, _ := pv.call(t, "get_group_bys", map[string]any{"metrics": []string{"revenue", "new_customers"}})
		for _, n := range names(data) {
			if strings.HasPrefix(n, "order__") {
				t.Errorf("%s is not reachable from new_customers", n)
			}
		}
	})
	t.Run("list_metrics searches, limits and marks what compiles", func(t *testing.T) {
		data, _ := pv.call(t, "list_metrics", map[string]any{"search": "revenue", "limit": 3})
		if len(data["items"].([]any)) != 3 || data["truncated"] != true {
			t.Errorf("got %v, want 3 items and truncated", data)
		}
		data, _ = pv.call(t, "list_metrics", map[string]any{"search": "7 days"})
		it := data["items"].([]any)
		if len(it) != 1 || it[0].(map[string]any)["compilable"] != false {
			t.Errorf("revenue_7d: got %v, want one item, not compilable", it)
		}
	})
	t.Run("list_saved_queries", func(t *testing.T) {
		data, _ := pv.call(t, "list_saved_queries", map[string]any{})
		if got := strings.Join(names(data), ","); got != "revenue_by_country_month,top_channels" {
			t.Errorf("got %s", got)
		}
	})
	t.Run("list_models and get_status", func(t *testing.T) {
		data, _ := pv.call(t, "list_models", map[string]any{})
		b, _ := json.Marshal(data)
		if !strings.Contains(string(b), `"model_ref":"demo"`) {
			t.Errorf("list_models: %s", b)
		}
		data, _ = pv.call(t, "get_status", map[string]any{})
		if data["model_valid"] != true || data["dialect"] != "doris" || data["metrics"].(float64) != 27 {
			t.Errorf("get_status: %v", data)
		}
	})
}

func TestDemoManifestIsEmbedded(t *testing.T) {
	onDisk, err := os.ReadFile(demoManifest)
	if err != nil {
		t.Fatal(err)
	}
	if got := semanticprovider.DemoManifest(); string(got) != string(onDisk) {
		t.Fatal("DemoManifest differs from testdata/demo_semantic_manifest.json")
	}
	if err := semanticprovider.CheckManifest(semanticprovider.DemoManifest()); err != nil {
		t.Fatal(err)
	}
}
