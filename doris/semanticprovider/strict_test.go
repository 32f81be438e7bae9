package semanticprovider_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
)

// shopModel is a small semantic model; its metrics must keep compiling
// whatever else a test manifest carries.
const shopModel = `{"name": "orders", "defaults": {"agg_time_dimension": "ordered_at"},
  "node_relation": {"alias": "orders", "schema_name": "shop", "database": null, "relation_name": "` + "`shop`.`orders`" + `"},
  "entities": [{"name": "order", "type": "primary", "expr": "id"}],
  "measures": [{"name": "revenue", "agg": "sum", "expr": "amount"}, {"name": "order_count", "agg": "count", "expr": "1"}%s],
  "dimensions": [{"name": "ordered_at", "type": "time", "type_params": {"time_granularity": "day"}},
    {"name": "status", "type": "categorical"}]}`

const shopMetrics = `{"name": "revenue", "type": "simple", "type_params": {"measure": {"name": "revenue"}}},
  {"name": "order_count", "type": "simple", "type_params": {"measure": {"name": "order_count"}}},
  {"name": "revenue_all_time", "type": "cumulative", "type_params": {"measure": {"name": "revenue"}}}`

const shopSpine = `"project_configuration": {"time_spine_table_configurations": [
  {"location": "` + "`shop`.`metricflow_time_spine`" + `", "column_name": "date_day", "grain": "day"}], "time_spines": []}`

// shopManifest assembles a manifest: extra measures of the orders model,
// extra semantic models, extra metrics, the project configuration and
// extra top-level text.
func shopManifest(measures, models, metrics, project, top string) string {
	doc := `{"semantic_models": [` + strings.Replace(shopModel, "%s", measures, 1) + models + `],
 "metrics": [` + shopMetrics + metrics + `], ` + project + top + `}`
	return doc
}

func status(t *testing.T, pv provider) map[string]any {
	t.Helper()
	data, reason := pv.call(t, "get_status", map[string]any{})
	if reason != "" {
		t.Fatalf("get_status refused with %s", reason)
	}
	return data
}

func issues(t *testing.T, pv provider) []string {
	t.Helper()
	var out []string
	for _, s := range status(t, pv)["issues"].([]any) {
		out = append(out, s.(string))
	}
	return out
}

// TestStrictnessIsPerElement checks that an element with an unknown key,
// a malformed field or an unusable relation is refused alone, named with
// its reason and JSON path, while the rest of the manifest loads and
// compiles.
func TestStrictnessIsPerElement(t *testing.T) {
	other := `, {"name": "refunds", "defaults": {"agg_time_dimension": "at"}, "node_relation": %s,
  "entities": [{"name": "refund", "type": "primary"}], "measures": [{"name": "refunded", "agg": "sum"}],
  "dimensions": [{"name": "at", "type": "time", "type_params": {"time_granularity": "day"}}]%s}`
	refundsMetric := `, {"name": "refunded", "type": "simple", "type_params": {"measure": {"name": "refunded"}}}`
	goodRel := `{"alias": "refunds", "schema_name": "shop"}`
	refunds := func(rel, extra string) string {
		return strings.Replace(strings.Replace(other, "%s", rel, 1), "%s", extra, 1)
	}
	cases := []struct {
		name                     string
		measures, models, metric string
		project                  string
		refused                  string // the metric that must refuse
		reason                   string
		path                     string // in get_status
	}{
		{"unknown key in a measure", `, {"name": "refunded", "agg": "sum", "new_key": 1}`, "", refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonFieldUnknown, `$.semantic_models[0].measures[2]: unknown key "new_key"`},
		{"unknown aggregation", `, {"name": "refunded", "agg": "mode"}`, "", refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonElementInvalid, `$.semantic_models[0].measures[2].agg`},
		{"unknown key in a metric", "", "", `, {"name": "refunded", "type": "simple", "type_params": {"measure": {"name": "revenue"}}, "future": 1}`, shopSpine,
			"refunded", semanticprovider.ReasonFieldUnknown, `$.metrics[3]: unknown key "future"`},
		{"unknown key deep inside a metric", "", "", `, {"name": "refunded", "type": "simple", "type_params": {"measure": {"name": "revenue", "window": 1}}}`, shopSpine,
			"refunded", semanticprovider.ReasonFieldUnknown, `$.metrics[3].type_params.measure: unknown key "window"`},
		{"unknown metric type", "", "", `, {"name": "refunded", "type": "magic", "type_params": {}}`, shopSpine,
			"refunded", semanticprovider.ReasonElementInvalid, `$.metrics[3].type`},
		{"unknown key in a semantic model", "", strings.Replace(strings.Replace(other, "%s", goodRel, 1), "%s", `, "sharding": {}`, 1), refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonFieldUnknown, `$.semantic_models[1]: unknown key "sharding"`},
		{"entity name with a double underscore", "", strings.Replace(refunds(goodRel, ""), `"name": "refund"`, `"name": "re__fund"`, 1), refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonElementInvalid, `$.semantic_models[1].entities[0].name`},
		{"two primary entities", "", strings.Replace(refunds(goodRel, ""), `"type": "primary"}]`, `"type": "primary"}, {"name": "b", "type": "primary"}]`, 1), refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonElementInvalid, `$.semantic_models[1].entities[1].type`},
		{"backquote in an alias", "", strings.Replace(strings.Replace(other, "%s", `{"alias": "re`+"`"+`funds", "schema_name": "shop"}`, 1), "%s", "", 1), refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonRelationInvalid, `$.semantic_models[1].node_relation.alias`},
		{"relation name with four parts", "", strings.Replace(strings.Replace(other, "%s", `{"alias": "refunds", "schema_name": "shop", "relation_name": "a.b.c.d"}`, 1), "%s", "", 1), refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonRelationInvalid, `$.semantic_models[1].node_relation.relation_name: relation name has more than three parts: "a.b.c.d"`},
		{"no node relation", "", strings.Replace(strings.Replace(other, "%s", `null`, 1), "%s", "", 1), refundsMetric, shopSpine,
			"refunded", semanticprovider.ReasonRelationInvalid, `$.semantic_models[1].node_relation: missing`},
		{"a time spine that cannot be mapped", "", "", "", `"project_configuration": {"time_spine_table_configurations": [{"location": "a.b.c.d", "column_name": "date_day", "grain": "day"}]}`,
			"revenue_all_time", semanticprovider.ReasonRelationInvalid, `$.project_configuration.time_spine_table_configurations[0].location`},
		{"a time spine with an unknown key", "", "", "", `"project_configuration": {"time_spines": [{"node_relation": {"alias": "s", "schema_name": "shop"}, "primary_column": {"name": "d", "time_granularity": "day", "new": 1}}]}`,
			"revenue_all_time", semanticprovider.ReasonFieldUnknown, `$.project_configuration.time_spines[0].primary_column: unknown key "new"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := shopManifest(c.measures, c.models, c.metric, c.project, "")
			if !json.Valid([]byte(doc)) {
				t.Fatalf("test manifest is not JSON: %s", doc)
			}
			pv := newProvider(t, "shop", writeManifest(t, doc))
			if r, _ := compileReason(t, pv, map[string]any{"metrics": []string{"revenue", "order_count"}, "group_by": []string{"metric_time__month", "order__status"}}); r != "" {
				t.Fatalf("the unaffected metrics refuse with %s", r)
			}
			if r, _ := compileReason(t, pv, map[string]any{"metrics": []string{c.refused}, "group_by": []string{"metric_time__day"}}); r != c.reason {
				t.Fatalf("metric %s: got %q, want %s", c.refused, r, c.reason)
			}
			found := false
			for _, s := range issues(t, pv) {
				if strings.Contains(s, c.reason) && strings.Contains(s, c.path) {
					found = true
				}
			}
			if !found {
				t.Fatalf("get_status does not name %s at %s: %v", c.reason, c.path, issues(t, pv))
			}
		})
	}
}

// TestLenientSections checks that free-form sections and the fields dbt
// writes today never refuse anything.
func TestLenientSections(t *testing.T) {
	metrics := `, {"name": "revenue_default", "type": "simple", "type_params": {"measure": {"name": "revenue"}}, "default_granularity": "month",
   "config": {"meta": {"owner": "x", "anything": [1, {"deep": true}]}, "group": null, "future_config": 1}, "meta": null},
  {"name": "fusion_revenue", "type": "simple", "label": "Fusion", "type_params": {"metric_aggregation_params": {"semantic_model": "orders", "agg": "sum",
   "agg_params": null, "agg_time_dimension": "ordered_at", "non_additive_dimension": null, "expr": "amount * 2"}}}`
	saved := `, "saved_queries": [{"name": "monthly", "query_params": {"metrics": ["revenue"], "group_by": ["TimeDimension('metric_time', 'month')"], "where": null, "order_by": [], "limit": null},
   "exports": [{"name": "e", "config": {"export_as": "table", "schema_name": null, "alias": null, "database": null, "new_export_option": 3}, "unrendered_config": {}}],
   "config": {"cache": {"enabled": false}, "new": 1}, "tags": "x", "metadata": null, "description": null, "label": null}]`
	doc := shopManifest("", "", metrics, shopSpine, saved+`, "future_section": {"x": 1}`)
	pv := newProvider(t, "shop", writeManifest(t, doc))
	for _, req := range []map[string]any{
		{"metrics": []string{"revenue_default"}, "group_by": []string{"metric_time"}},
		{"metrics": []string{"fusion_revenue"}, "group_by": []string{"metric_time__day"}},
		{"saved_query": "monthly"},
	} {
		r, sql := compileReason(t, pv, req)
		if r != "" {
			t.Fatalf("%v refused with %s", req, r)
		}
		if req["metrics"] != nil && req["metrics"].([]string)[0] == "fusion_revenue" && !strings.Contains(sql, "SUM(`s0`.`amount` * ") {
			t.Errorf("Fusion's metric_aggregation_params.expr is not the aggregated expression:\n%s", sql)
		}
	}
	is := issues(t, pv)
	if len(is) != 1 || !strings.Contains(is[0], `unknown top-level key "future_section"`) {
		t.Fatalf("issues = %v, want only the ignored top-level key", is)
	}
}

// TestManifestLevelErrorsStay checks that what is a parser-differential
// attack or a broken structure still refuses the whole manifest.
func TestManifestLevelErrorsStay(t *testing.T) {
	cases := map[string]string{
		"case variant of a metric key":   shopManifest("", "", `, {"Name": "x", "type": "simple", "type_params": {"measure": {"name": "revenue"}}}`, shopSpine, ""),
		"case variant deep in a measure": shopManifest(`, {"name": "x", "Agg": "sum"}`, "", "", shopSpine, ""),
		"case variant of a section":      shopManifest("", "", "", shopSpine, `, "Saved_Queries": []`),
		"duplicate key in a metric":      shopManifest("", "", `, {"name": "x", "name": "y", "type": "simple", "type_params": {}}`, shopSpine, ""),
		"a metric that is not an object": shopManifest("", "", `, 3`, shopSpine, ""),
		"metric defined twice":           shopManifest("", "", `, {"name": "revenue", "type": "simple", "type_params": {"measure": {"name": "revenue"}}}`, shopSpine, ""),
		"measure defined twice":          shopManifest(`, {"name": "revenue", "agg": "max"}`, "", "", shopSpine, ""),
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			err := semanticprovider.CheckManifest([]byte(doc))
			if semanticprovider.ReasonOf(err) != semanticprovider.ReasonManifestInvalid || err == nil {
				t.Fatalf("got %v, want %s", err, semanticprovider.ReasonManifestInvalid)
			}
		})
	}
}

// TestRelationNames maps relation names as each adapter writes them.
func TestRelationNames(t *testing.T) {
	cases := []struct{ relation, want string }{
		{"`analytics`.`orders`", "`analytics`.`orders`"},              // dbt-doris: no database part
		{"`analytics`.`orders``s`", ""},                               // a doubled backquote unquotes to a backquote: refused
		{"\"public\".\"orders\"", "`public`.`orders`"},                // Postgres
		{"\"warehouse\".\"public\".\"orders\"", "`public`.`orders`"},  // Postgres, Redshift, DuckDB
		{"\"we\"\"ird\".\"or ders\"", "`we\"ird`.`or ders`"},          // a doubled double quote
		{"`my-project`.`analytics`.`orders`", "`analytics`.`orders`"}, // BigQuery
		{"`my-project.analytics.orders`", "`analytics`.`orders`"},     // BigQuery, one pair of backquotes
		{"ANALYTICS.DBT.ORDERS", "`DBT`.`ORDERS`"},                    // Snowflake, unquoted
		{"[warehouse].[dbo].[orders]", "`dbo`.`orders`"},              // SQL Server
		{"analytics.orders", "`analytics`.`orders`"},                  // unquoted
		{"orders", "`orders`"},                                        // one part: the session's database
		{"a.b.c.d", ""},                                               // four parts
		{"`a`.`b", ""},                                                // unclosed
		{"`a`x.`b`", ""},                                              // text after a quote
		{"a b.c", ""},                                                 // space in an unquoted part
		{"\"a.b\".\"c\"", ""},                                         // a dot inside a Doris name
		{"a..b", ""},                                                  // empty part
		{"a.", ""},                                                    // trailing dot
		{"`a`;DROP TABLE x", ""},                                      // text after a quote
		{"\"a\x01\".t", ""},                                           // control character
	}
	for _, c := range cases {
		t.Run(c.relation, func(t *testing.T) {
			rel, _ := json.Marshal(c.relation)
			doc := `{"semantic_models": [{"name": "orders", "defaults": {"agg_time_dimension": "at"},
 "node_relation": {"alias": "x", "schema_name": "y", "database": null, "relation_name": ` + string(rel) + `},
 "entities": [], "measures": [{"name": "n", "agg": "count", "expr": "1"}],
 "dimensions": [{"name": "at", "type": "time", "type_params": {"time_granularity": "day"}}]}],
 "metrics": [{"name": "n", "type": "simple", "type_params": {"measure": {"name": "n"}}}],
 "project_configuration": {"time_spine_table_configurations": [{"location": ` + string(rel) + `, "column_name": "d", "grain": "day"}]}}`
			pv := newProvider(t, "r", writeManifest(t, doc))
			reason, sql := compileReason(t, pv, map[string]any{"metrics": []string{"n"}})
			if c.want == "" {
				if reason != semanticprovider.ReasonRelationInvalid {
					t.Fatalf("got %q, want %s", reason, semanticprovider.ReasonRelationInvalid)
				}
				st := status(t, pv)
				if st["model_valid"] != true {
					t.Fatalf("one bad relation refused the manifest: %v", st)
				}
				return
			}
			if reason != "" {
				t.Fatalf("refused with %s", reason)
			}
			if !strings.Contains(sql, "FROM "+c.want+" AS `s0`") {
				t.Fatalf("compiled SQL does not read %s:\n%s", c.want, sql)
			}
		})
	}
}

// restyle rewrites every relation of the jaffle-shop manifest (models and
// time spine) in one adapter's quoting.
func restyle(t *testing.T, style func(db, schema, table string) string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(jaffleDir, "semantic_manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc["semantic_models"].([]any) {
		nr := m.(map[string]any)["node_relation"].(map[string]any)
		nr["relation_name"] = style(nr["database"].(string), nr["schema_name"].(string), nr["alias"].(string))
	}
	pc := doc["project_configuration"].(map[string]any)
	for _, tc := range pc["time_spine_table_configurations"].([]any) {
		tc.(map[string]any)["location"] = style("FY26_TASK_FORCE_KIMBARA", "DBT", "metricflow_time_spine")
	}
	b, _ := json.Marshal(doc)
	return writeManifest(t, string(b))
}

// TestAdapterQuotingOnTheSimulator re-renders the real jaffle-shop
// manifest as dbt-doris (backquoted, no database part), Postgres (double
// quotes) and BigQuery (backquoted, three parts) write it, and checks that
// each compiles to the same tables: the same rows as the manifest dbt
// wrote on Snowflake, for a simple metric, a join, and the cumulative
// metric that needs the time spine.
func TestAdapterQuotingOnTheSimulator(t *testing.T) {
	styles := map[string]func(db, schema, table string) string{
		"dbt-doris": func(_, s, tb string) string { return "`" + s + "`.`" + tb + "`" },
		"postgres":  func(d, s, tb string) string { return `"` + d + `"."` + s + `"."` + tb + `"` },
		"bigquery": func(d, s, tb string) string {
			return "`" + strings.ToLower(strings.ReplaceAll(d, "_", "-")) + "`.`" + s + "`.`" + tb + "`"
		},
	}
	e := newEnv(t)
	buildJaffle(t, e)
	orig := newProvider(t, "jaffle_shop", filepath.Join(jaffleDir, "semantic_manifest.json"))
	reqs := []map[string]any{
		{"metrics": []string{"revenue", "order_total"}, "group_by": []string{"metric_time__month"}},
		{"metrics": []string{"revenue"}, "group_by": []string{"product__product_type"}},
		{"metrics": []string{"cumulative_revenue"}, "group_by": []string{"metric_time__day"}, "start_time": "2016-09-01", "end_time": "2016-10-31"},
	}
	for name, style := range styles {
		t.Run(name, func(t *testing.T) {
			pv := newProvider(t, "jaffle_shop", restyle(t, style))
			for _, is := range issues(t, pv) {
				if strings.Contains(is, "RELATION") || strings.Contains(is, "time spine") {
					t.Fatalf("a relation does not map: %s", is)
				}
			}
			for _, req := range reqs {
				sql := pv.compile(t, req)
				if !strings.Contains(sql, "`DBT`.`") || strings.Contains(sql, `"`) {
					t.Fatalf("compiled SQL does not read the DBT database:\n%s", sql)
				}
				sameRows(t, runQuery(t, e.doris, sql), runQuery(t, e.doris, orig.compile(t, req)), false)
			}
		})
	}
}

// TestPercentiles checks how percentile measures are written: Doris's
// exact PERCENTILE for continuous percentiles, PERCENTILE_APPROX when the
// measure asks for an approximation, and a refusal for discrete ones,
// which Doris lacks.
func TestPercentiles(t *testing.T) {
	measures := `, {"name": "p90", "agg": "percentile", "expr": "amount", "agg_params": {"percentile": 0.9, "use_discrete_percentile": false, "use_approximate_percentile": true}},
  {"name": "p25", "agg": "percentile", "expr": "amount", "agg_params": {"percentile": 0.25}},
  {"name": "p50d", "agg": "percentile", "expr": "amount", "agg_params": {"percentile": 0.5, "use_discrete_percentile": true}},
  {"name": "median_amount", "agg": "median", "expr": "amount"}`
	metrics := ""
	for _, n := range []string{"p90", "p25", "p50d", "median_amount"} {
		metrics += `, {"name": "` + n + `", "type": "simple", "type_params": {"measure": {"name": "` + n + `"}}}`
	}
	pv := newProvider(t, "shop", writeManifest(t, shopManifest(measures, "", metrics, shopSpine, "")))
	for name, want := range map[string]string{
		"p90":           "PERCENTILE_APPROX(`s0`.`amount`, 0.9)",
		"p25":           "PERCENTILE(`s0`.`amount`, 0.25)",
		"median_amount": "PERCENTILE(`s0`.`amount`, 0.5)",
	} {
		r, sql := compileReason(t, pv, map[string]any{"metrics": []string{name}, "group_by": []string{"metric_time__month"}})
		if r != "" || !strings.Contains(sql, want) {
			t.Errorf("%s: refused with %q or lacks %s:\n%s", name, r, want, sql)
		}
	}
	if r, _ := compileReason(t, pv, map[string]any{"metrics": []string{"p50d"}}); r != semanticprovider.ReasonAggregationUnsupported {
		t.Errorf("a discrete percentile: got %q, want %s", r, semanticprovider.ReasonAggregationUnsupported)
	}
}
