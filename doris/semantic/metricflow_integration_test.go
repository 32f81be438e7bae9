package semantic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// The MetricFlow children against a provider the test builds
// (metricflow/testdata/fakeprovider): in "demo" mode a well-behaved
// provider of a small model over the demo schema, in every other mode a
// broken one. Rows are compared with truth the test computes from MariaDB
// on its own.

var mfChildren = []string{"list_metricflow_models", "get_metricflow_status", "list_metricflow_metrics", "get_metricflow_group_bys",
	"list_metricflow_saved_queries", "get_metricflow_dimension_values", "compile_metricflow_query", "execute_metricflow_query"}

// fakeProvider builds the fake provider and returns its path.
func fakeProvider(t testing.TB) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to build the fake provider: %v", err)
	}
	out := filepath.Join(t.TempDir(), "fakeprovider")
	if b, err := exec.Command(gobin, "build", "-o", out, "../metricflow/testdata/fakeprovider").CombinedOutput(); err != nil {
		t.Fatalf("build the fake provider: %v\n%s", err, b)
	}
	return out
}

// withMetricFlow enables MetricFlow with the fake provider in mode.
func withMetricFlow(bin string, timeout time.Duration, args ...string) func(*doris.Config) {
	return func(c *doris.Config) {
		cmd, _ := json.Marshal(append([]string{bin}, args...))
		c.MetricFlow.Enabled, c.MetricFlow.CommandJSON, c.MetricFlow.Timeout = true, string(cmd), timeout
	}
}

// cents parses a decimal string ("123.4" or "123.45") as cents.
func cents(t testing.TB, v any) int64 {
	t.Helper()
	s := fmt.Sprint(v)
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "00")[:2]
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		t.Fatalf("not a decimal: %q", s)
	}
	return n
}

// demoOrder is one order as MariaDB has it, with its customer's country.
type demoOrder struct {
	customer               int
	country, status, chan_ string
	date                   string
	amount                 int64
}

func demoOrders(t testing.TB, e *doristest.Env) []demoOrder {
	t.Helper()
	ctx := context.Background()
	countries := map[int]string{}
	rows, err := e.DB.Root().QueryContext(ctx, "SELECT customer_id, country FROM demo.customers")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int
		var c string
		rows.Scan(&id, &c)
		countries[id] = c
	}
	rows.Close()
	rows, err = e.DB.Root().QueryContext(ctx, "SELECT customer_id, status, channel, CAST(order_date AS CHAR), CAST(total_amount AS CHAR) FROM demo.orders")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []demoOrder
	for rows.Next() {
		var o demoOrder
		var amount string
		rows.Scan(&o.customer, &o.status, &o.chan_, &o.date, &amount)
		o.country, o.amount = countries[o.customer], cents(t, amount)
		out = append(out, o)
	}
	return out
}

// TestMetricFlowEndToEnd drives the eight children through a
// well-behaved provider; executed metric queries return MariaDB's truth.
func TestMetricFlowEndToEnd(t *testing.T) {
	bin := fakeProvider(t)
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withMetricFlow(bin, 30*time.Second, "demo")})
	m := e.Discover("doris_semantic")
	for _, c := range mfChildren {
		if a := m.Availability(t, c).Availability; !a.Callable || a.ActiveVariant != "metricflow_sidecar" {
			t.Fatalf("%s: %+v", c, a)
		}
	}
	var models struct {
		Items []struct {
			ModelRef string `json:"model_ref"`
		} `json:"items"`
	}
	e.Ok("doris_semantic", "list_metricflow_models", map[string]any{}).Decode(t, &models)
	if len(models.Items) != 1 || models.Items[0].ModelRef != "demo/orders" {
		t.Fatalf("models %+v", models)
	}
	var status map[string]any
	e.Ok("doris_semantic", "get_metricflow_status", map[string]any{"model_ref": "demo/orders"}).Decode(t, &status)
	if status["provider_ready"] != true || status["model_valid"] != true || status["dialect"] != "doris" || status["protocol_version"] != "doris-mcp-metricflow/v1" {
		t.Errorf("status %v", status)
	}
	e.Fail("doris_semantic", "get_metricflow_status", map[string]any{"model_ref": "demo/nope"}, "CHILD_ARGUMENTS_INVALID", "METRICFLOW_MODEL_NOT_FOUND")

	type item = map[string]any
	list := func(child string, args map[string]any) ([]item, bool) {
		t.Helper()
		var c struct {
			Items     []item `json:"items"`
			Truncated bool   `json:"truncated"`
		}
		e.Ok("doris_semantic", child, args).Decode(t, &c)
		return c.Items, c.Truncated
	}
	names := func(items []item) string {
		var out []string
		for _, it := range items {
			out = append(out, it["name"].(string))
		}
		return strings.Join(out, ",")
	}
	metrics, _ := list("list_metricflow_metrics", map[string]any{"model_ref": "demo/orders"})
	if names(metrics) != "avg_order_value,buyers,order_count,revenue" || metrics[0]["dimensions"] != nil {
		t.Errorf("metrics %v", metrics)
	}
	if metrics, _ = list("list_metricflow_metrics", map[string]any{"model_ref": "demo/orders", "include_dimensions": true}); metrics[0]["dimensions"] == nil {
		t.Error("include_dimensions left the dimensions out")
	}
	if metrics, trunc := list("list_metricflow_metrics", map[string]any{"model_ref": "demo/orders", "limit": 2}); len(metrics) != 2 || !trunc {
		t.Errorf("limit 2: %d metrics, truncated %v", len(metrics), trunc)
	}
	if metrics, _ = list("list_metricflow_metrics", map[string]any{"model_ref": "demo/orders", "search": "order"}); names(metrics) != "avg_order_value,order_count" {
		t.Errorf("search order: %s", names(metrics))
	}
	groups, _ := list("get_metricflow_group_bys", map[string]any{"model_ref": "demo/orders", "metrics": []string{"revenue", "buyers"}})
	if len(groups) != 6 || !strings.Contains(names(groups), "customer__country") {
		t.Errorf("group-bys %s", names(groups))
	}
	e.Fail("doris_semantic", "get_metricflow_group_bys", map[string]any{"model_ref": "demo/orders", "metrics": []string{"profit"}},
		"CHILD_ARGUMENTS_INVALID", "METRICFLOW_METRIC_NOT_FOUND")
	if saved, _ := list("list_metricflow_saved_queries", map[string]any{"model_ref": "demo/orders"}); names(saved) != "delivered_by_channel,revenue_by_country" {
		t.Errorf("saved queries %s", names(saved))
	}

	orders := demoOrders(t, e)
	// Dimension values: the distinct statuses MariaDB holds.
	var dv doristest.MfRows
	e.Ok("doris_semantic", "get_metricflow_dimension_values", map[string]any{"model_ref": "demo/orders", "metrics": []string{"revenue"},
		"dimension": "order__status"}).Decode(t, &dv)
	var want []string
	for _, o := range orders {
		if !slices.Contains(want, o.status) {
			want = append(want, o.status)
		}
	}
	slices.Sort(want)
	var got []string
	for _, r := range dv.Rows {
		got = append(got, r["order__status"].(string))
	}
	if !slices.Equal(got, want) || !strings.HasPrefix(dv.SQL, "SELECT DISTINCT") {
		t.Errorf("status values %v, want %v", got, want)
	}

	// Compilation is deterministic and compile-only.
	req := map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"customer__country"}, "order_by": []string{"-revenue"}}
	var c1, c2 struct{ SQL, Dialect, ModelRef string }
	e.Ok("doris_semantic", "compile_metricflow_query", map[string]any{"model_ref": "demo/orders", "request": req}).Decode(t, &c1)
	e.Ok("doris_semantic", "compile_metricflow_query", map[string]any{"model_ref": "demo/orders", "request": req}).Decode(t, &c2)
	if c1.SQL == "" || c1.SQL != c2.SQL || c1.Dialect != "doris" {
		t.Errorf("compile: %+v then %+v", c1, c2)
	}

	// Revenue by country, ordered, against the truth.
	byCountry := map[string]int64{}
	for _, o := range orders {
		byCountry[o.country] += o.amount
	}
	r := e.MfExecute(req, nil)
	if len(byCountry) < 2 || r.Count != len(byCountry) || r.SQL != c1.SQL {
		t.Fatalf("revenue by country: %d rows, want %d (sql %q)", r.Count, len(byCountry), r.SQL)
	}
	for i, row := range r.Rows {
		c := row["customer__country"].(string)
		if cents(t, row["revenue"]) != byCountry[c] {
			t.Errorf("revenue of %s: %v, want %d cents", c, row["revenue"], byCountry[c])
		}
		if i > 0 && cents(t, r.Rows[i-1]["revenue"]) < cents(t, row["revenue"]) {
			t.Errorf("row %d is not in descending revenue order", i)
		}
	}
	// The saved query: orders and revenue of delivered orders per channel.
	type agg struct{ n, amount int64 }
	delivered := map[string]agg{}
	for _, o := range orders {
		if o.status == "delivered" {
			a := delivered[o.chan_]
			delivered[o.chan_] = agg{a.n + 1, a.amount + o.amount}
		}
	}
	r = e.MfExecute(map[string]any{"saved_query": "delivered_by_channel"}, nil)
	if len(delivered) < 2 || r.Count != len(delivered) {
		t.Fatalf("delivered by channel: %d rows, want %d", r.Count, len(delivered))
	}
	for _, row := range r.Rows {
		w := delivered[row["order__channel"].(string)]
		if int64(row["order_count"].(float64)) != w.n || cents(t, row["revenue"]) != w.amount {
			t.Errorf("channel %v: %v orders %v revenue, want %d and %d cents", row["order__channel"], row["order_count"], row["revenue"], w.n, w.amount)
		}
	}
	// Orders per month within a time range, filtered by a dimension.
	start, end := orders[0].date, orders[0].date
	for _, o := range orders {
		start, end = min(start, o.date), max(end, o.date)
	}
	from := start[:8] + "01"
	perMonth := map[string]int64{}
	for _, o := range orders {
		if o.date >= from && o.date <= end && o.chan_ == "web" {
			perMonth[o.date[:7]]++
		}
	}
	r = e.MfExecute(map[string]any{"metrics": []string{"order_count"}, "group_by": []string{"metric_time__month"},
		"where": []string{"{{ Dimension('order__channel') }} = 'web'"}, "start_time": from, "end_time": end, "order_by": []string{"metric_time__month"}}, nil)
	if len(perMonth) < 2 || r.Count != len(perMonth) {
		t.Fatalf("web orders per month: %d rows, want %d", r.Count, len(perMonth))
	}
	for _, row := range r.Rows {
		if n := int64(row["order_count"].(float64)); n != perMonth[row["metric_time__month"].(string)] {
			t.Errorf("month %v: %d web orders, want %d", row["metric_time__month"], n, perMonth[row["metric_time__month"].(string)])
		}
	}
	// Distinct buyers per channel, and a limit.
	buyers := map[string]map[int]bool{}
	for _, o := range orders {
		if buyers[o.chan_] == nil {
			buyers[o.chan_] = map[int]bool{}
		}
		buyers[o.chan_][o.customer] = true
	}
	r = e.MfExecute(map[string]any{"metrics": []string{"buyers"}, "group_by": []string{"order__channel"}, "order_by": []string{"-buyers"}, "limit": 2}, nil)
	var counts []int
	for _, b := range buyers {
		counts = append(counts, len(b))
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	if r.Count != 2 || int(r.Rows[0]["buyers"].(float64)) != counts[0] || int(r.Rows[1]["buyers"].(float64)) != counts[1] {
		t.Errorf("top two channels by buyers %v, want %v", r.Rows, counts[:2])
	}
	// max_rows caps the rows as in execute_query, and says so.
	r = e.MfExecute(map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"customer__country"}}, map[string]any{"max_rows": 2})
	if r.Count != 2 || !r.Trunc {
		t.Errorf("max_rows 2: %d rows, truncated %v", r.Count, r.Trunc)
	}
	e.Fail("doris_semantic", "execute_metricflow_query", map[string]any{"model_ref": "demo/orders",
		"request": map[string]any{"metrics": []string{"revenue"}}, "max_rows": 100000}, "CHILD_ARGUMENTS_INVALID", "QUERY_ROW_LIMIT_EXCEEDED")
	e.Fail("doris_semantic", "execute_metricflow_query", map[string]any{"model_ref": "demo/orders",
		"request": map[string]any{"metrics": []string{"revenue"}, "where": []string{"1 = 1; DROP TABLE demo.orders"}}}, "CHILD_ARGUMENTS_INVALID", "METRICFLOW_WHERE_INVALID")
}
