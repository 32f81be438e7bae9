package semantic_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestOssieContextExplicit: named concepts bring their definitions, the
// Doris tables that carry them, and the join path between those tables.
func TestOssieContextExplicit(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withOssie(t, "")})
	c, cd := e.Context(map[string]any{"metrics": []string{"revenue"}, "dimensions": []string{"customers.country"}})
	if cd.Status != "success" || c.Truncated || c.DatasetNames() != "orders,customers" {
		t.Fatalf("context %+v (%s)", c, cd.Status)
	}
	if m := c.Context.Metrics; len(m) != 1 || m[0].Name != "revenue" || m[0].Expression != "SUM(orders.total_amount)" ||
		!slices.Equal(m[0].DependsOn, []string{"orders.total_amount"}) {
		t.Errorf("metrics %+v", m)
	}
	if r := c.Context.Relationships; len(r) != 1 || r[0].Name != "orders_to_customers" || r[0].On != "orders.customer_id = customers.customer_id" {
		t.Errorf("relationships %+v", r)
	}
	for _, d := range c.Context.Datasets {
		if d.Table != "internal.demo."+d.Name {
			t.Errorf("dataset %s is carried by %s, want internal.demo.%s", d.Name, d.Table, d.Name)
		}
	}
	if c.Bytes != len(c.Raw) {
		t.Errorf("bytes %d, but the context is %d bytes", c.Bytes, len(c.Raw))
	}

	// units_sold needs order_items; with products.category the join path
	// order_items -> products joins them, and nothing else.
	c, _ = e.Context(map[string]any{"metrics": []string{"units_sold"}, "dimensions": []string{"products.category"}})
	if c.DatasetNames() != "order_items,products" || len(c.Context.Relationships) != 1 || c.Context.Relationships[0].Name != "order_items_to_products" {
		t.Errorf("units_sold by category: datasets %s relationships %+v", c.DatasetNames(), c.Context.Relationships)
	}
	// Revenue by category crosses two joins.
	c, _ = e.Context(map[string]any{"metrics": []string{"revenue"}, "dimensions": []string{"products.category"}})
	var rels []string
	for _, r := range c.Context.Relationships {
		rels = append(rels, r.Name)
	}
	if strings.Join(rels, ",") != "order_items_to_orders,order_items_to_products" {
		t.Errorf("revenue by category joins %v", rels)
	}
	// A dataset asked for by name comes with every field.
	c, _ = e.Context(map[string]any{"datasets": []string{"products"}})
	if len(c.Context.Datasets) != 1 || len(c.Context.Datasets[0].Fields) != 4 {
		t.Errorf("products in full: %+v", c.Context.Datasets)
	}
	for _, tt := range []map[string]any{
		{"metrics": []string{"profit"}},
		{"dimensions": []string{"orders.colour"}},
		{"dimensions": []string{"country"}},
		{"datasets": []string{"shipments"}},
	} {
		e.Fail("doris_semantic", "get_semantic_context", map[string]any{"model_ref": "retail/sales", "request": tt},
			"CHILD_ARGUMENTS_INVALID", "SEMANTIC_CONCEPT_NOT_FOUND")
	}
}

// TestOssieContextQuestion: a question selects the concepts it names by
// name, label or synonym, deterministically.
func TestOssieContextQuestion(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withOssie(t, "")})
	q := map[string]any{"question": "What was the turnover by market last month?"}
	c, _ := e.Context(q)
	var metrics []string
	for _, m := range c.Context.Metrics {
		metrics = append(metrics, m.Name)
	}
	if !slices.Contains(metrics, "revenue") {
		t.Errorf("turnover (a synonym of revenue) selected %v", metrics)
	}
	if !strings.Contains(c.DatasetNames(), "customers") {
		t.Errorf("market (a synonym of customers.country) selected datasets %s", c.DatasetNames())
	}
	again, _ := e.Context(q)
	if string(c.Raw) != string(again.Raw) {
		t.Error("the same question selected a different context")
	}
	// Named outright, a concept crowds out partial matches: "revenue"
	// brings revenue, not line_revenue nor average_order_value (whose
	// description mentions revenue).
	c, _ = e.Context(map[string]any{"question": "revenue by country"})
	if len(c.Context.Metrics) != 1 || c.Context.Metrics[0].Name != "revenue" || c.DatasetNames() != "orders,customers" {
		t.Errorf("revenue by country selected metrics %+v over %s", c.Context.Metrics, c.DatasetNames())
	}
	_, cd := e.Context(map[string]any{"question": "How is the weather in Lisbon?"})
	if cd.Status != "partial" || !strings.Contains(strings.Join(cd.Warnings, " "), "mentions no metric") {
		t.Errorf("a question about nothing in the model: %s %v", cd.Status, cd.Warnings)
	}
}

// TestOssieContextMaxBytes: the context never exceeds max_bytes; it
// sheds examples, descriptions and then question-selected concepts, and
// refuses when what was named explicitly cannot fit.
func TestOssieContextMaxBytes(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withOssie(t, "")})
	full, _ := e.Context(map[string]any{"question": "revenue order count units sold by country segment channel status category brand"})
	if full.Truncated || full.Bytes <= 1024 {
		t.Fatalf("the unbounded context is %d bytes (truncated %v); the test needs more than 1024", full.Bytes, full.Truncated)
	}
	for _, limit := range []int{1024, 2048, full.Bytes - 1} {
		c, cd := e.Context(map[string]any{"question": "revenue order count units sold by country segment channel status category brand", "max_bytes": limit})
		if len(c.Raw) > limit || c.Bytes != len(c.Raw) || !c.Truncated || cd.Status != "partial" {
			t.Errorf("max_bytes %d: context of %d bytes (reported %d), truncated %v, status %s", limit, len(c.Raw), c.Bytes, c.Truncated, cd.Status)
		}
	}
	all := []string{"orders", "order_items", "customers", "products"}
	e.Fail("doris_semantic", "get_semantic_context", map[string]any{"model_ref": "retail/sales",
		"request": map[string]any{"datasets": all, "max_bytes": 1024}}, "CHILD_ARGUMENTS_INVALID", "SEMANTIC_CONTEXT_TOO_LARGE")
	e.Cfg.Ossie.ContextHardMaxBytes, e.Cfg.Ossie.ContextMaxBytes = 4096, 2048
	e.Open()
	e.Fail("doris_semantic", "get_semantic_context", map[string]any{"model_ref": "retail/sales",
		"request": map[string]any{"datasets": all, "max_bytes": 8192}}, "CHILD_ARGUMENTS_INVALID", "SEMANTIC_CONTEXT_LIMIT_EXCEEDED")
	c, _ := e.Context(map[string]any{"datasets": []string{"products"}})
	if c.Bytes > 2048 {
		t.Errorf("the default budget OSSIE_CONTEXT_MAX_BYTES=2048 gave %d bytes", c.Bytes)
	}
}
