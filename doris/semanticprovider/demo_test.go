package semanticprovider_test

import (
	"testing"
	"time"
)

const demoManifest = "testdata/demo_semantic_manifest.json"

// Reference expressions in MariaDB's own dialect, written from the
// definitions (a week starts on Monday, a quarter in January, April, July
// or October), not from the compiled SQL.
const (
	dayOf     = "order_date"
	weekOf    = "(order_date - INTERVAL WEEKDAY(order_date) DAY)"
	monthOf   = "DATE_FORMAT(order_date, '%Y-%m-01')"
	quarterOf = "(MAKEDATE(YEAR(order_date), 1) + INTERVAL QUARTER(order_date) - 1 QUARTER)"
	yearOf    = "MAKEDATE(YEAR(order_date), 1)"
)

// TestDemoMetrics compiles metric requests over the demo schema, runs the
// SQL through the Doris simulator and compares every row with SQL written
// independently for MariaDB.
func TestDemoMetrics(t *testing.T) {
	e := newEnv(t)
	pv := newProvider(t, "demo", demoManifest)

	var minDay, maxDay time.Time
	bounds := runQuery(t, e.maria, "SELECT MIN(order_date), MAX(order_date) FROM demo.orders")
	minDay, _ = time.Parse("2006-01-02", bounds.rows[0][0].String)
	maxDay, _ = time.Parse("2006-01-02", bounds.rows[0][1].String)
	start := minDay.AddDate(0, 0, 40)
	end := start.AddDate(0, 0, 20)
	midMonth := time.Date(maxDay.Year(), maxDay.Month(), 15, 0, 0, 0, 0, time.UTC).AddDate(0, -3, 0)
	monthStart := time.Date(midMonth.Year(), midMonth.Month(), 1, 0, 0, 0, 0, time.UTC)
	d := func(t time.Time) string { return t.Format("2006-01-02") }
	monthStartOf := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC) }

	cases := []struct {
		name    string
		req     map[string]any
		ref     string
		ordered bool
	}{
		{"simple metric, no group-by",
			map[string]any{"metrics": []string{"revenue"}},
			"SELECT SUM(total_amount) FROM demo.orders", false},
		{"grain day",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"metric_time__day"}},
			"SELECT " + dayOf + ", COUNT(*) FROM demo.orders GROUP BY 1", false},
		{"grain week starts on Monday",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"metric_time__week"}},
			"SELECT " + weekOf + ", COUNT(*) FROM demo.orders GROUP BY 1", false},
		{"grain month",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"metric_time__month"}},
			"SELECT " + monthOf + ", SUM(total_amount) FROM demo.orders GROUP BY 1", false},
		{"grain quarter",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"TimeDimension('metric_time', 'quarter')"}},
			"SELECT " + quarterOf + ", SUM(total_amount) FROM demo.orders GROUP BY 1", false},
		{"grain year",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"metric_time__year"}},
			"SELECT " + yearOf + ", COUNT(*) FROM demo.orders GROUP BY 1", false},
		{"named time dimension at hour",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"order__ordered_at__hour"}},
			"SELECT DATE_FORMAT(order_ts, '%Y-%m-%d %H:00:00'), COUNT(*) FROM demo.orders GROUP BY 1", false},
		{"local categorical dimensions",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"order__status", "Dimension('order__channel')"}},
			"SELECT status, channel, SUM(total_amount) FROM demo.orders GROUP BY status, channel", false},
		{"entity group-by",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"Entity('customer')"}},
			"SELECT customer_id, COUNT(*) FROM demo.orders GROUP BY customer_id", false},
		{"one hop through customer",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"customer__country", "metric_time__year"}},
			"SELECT c.country, " + yearOf + ", SUM(o.total_amount) FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id GROUP BY 1, 2", false},
		{"two hops: orders, customers, sales days",
			map[string]any{"metrics": []string{"orders", "revenue"}, "group_by": []string{"customer__sales_day__busy_day"}},
			"SELECT CASE WHEN v.order_count >= 12 THEN 'busy' ELSE 'quiet' END, COUNT(*), SUM(o.total_amount) FROM demo.orders o " +
				"LEFT JOIN demo.customers c ON o.customer_id = c.customer_id LEFT JOIN demo.v_daily_sales v ON v.sales_date = c.signup_date GROUP BY 1", false},
		{"filtered metric",
			map[string]any{"metrics": []string{"delivered_revenue"}, "group_by": []string{"metric_time__month"}},
			"SELECT " + monthOf + ", SUM(total_amount) FROM demo.orders WHERE status = 'delivered' GROUP BY 1", false},
		{"metric filter through a join",
			map[string]any{"metrics": []string{"enterprise_revenue"}, "group_by": []string{"order__channel"}},
			"SELECT o.channel, SUM(o.total_amount) FROM demo.orders o JOIN demo.customers c ON o.customer_id = c.customer_id WHERE c.segment = 'enterprise' GROUP BY 1", false},
		{"ratio",
			map[string]any{"metrics": []string{"discount_rate"}, "group_by": []string{"order__channel"}},
			"SELECT channel, CAST(SUM(discount_amount) AS DOUBLE) / SUM(total_amount) FROM demo.orders GROUP BY 1", false},
		{"ratio with a filtered numerator input",
			map[string]any{"metrics": []string{"web_share", "orders"}, "group_by": []string{"customer__segment"}},
			"SELECT c.segment, CAST(SUM(CASE WHEN o.channel = 'web' THEN 1 END) AS DOUBLE) / COUNT(*), COUNT(*) FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id GROUP BY 1", false},
		{"ratio of a filtered metric",
			map[string]any{"metrics": []string{"delivered_share"}, "group_by": []string{"metric_time__quarter"}},
			"SELECT " + quarterOf + ", CAST(SUM(CASE WHEN status = 'delivered' THEN total_amount END) AS DOUBLE) / SUM(total_amount) FROM demo.orders GROUP BY 1", false},
		{"derived metrics",
			map[string]any{"metrics": []string{"net_revenue", "revenue_per_order"}, "group_by": []string{"metric_time__month"}},
			"SELECT " + monthOf + ", SUM(total_amount) - SUM(shipping_fee), SUM(total_amount) / COUNT(*) FROM demo.orders GROUP BY 1", false},
		{"derived metric with a function",
			map[string]any{"metrics": []string{"gross_revenue"}, "group_by": []string{"order__is_discounted"}},
			"SELECT discount_amount IS NOT NULL, SUM(total_amount) + COALESCE(SUM(discount_amount), 0) FROM demo.orders GROUP BY 1", false},
		{"two semantic models: FULL OUTER JOIN on metric_time",
			map[string]any{"metrics": []string{"orders", "new_customers", "orders_per_new_customer"}, "group_by": []string{"metric_time__month"}},
			"SELECT m.m, o.n, c.n, o.n / c.n FROM (SELECT " + monthOf + " AS m FROM demo.orders UNION SELECT DATE_FORMAT(signup_date, '%Y-%m-01') FROM demo.customers) m " +
				"LEFT JOIN (SELECT " + monthOf + " AS m, COUNT(*) AS n FROM demo.orders GROUP BY 1) o ON o.m = m.m " +
				"LEFT JOIN (SELECT DATE_FORMAT(signup_date, '%Y-%m-01') AS m, COUNT(DISTINCT customer_id) AS n FROM demo.customers GROUP BY 1) c ON c.m = m.m", false},
		{"two semantic models with NULL keys on both sides",
			map[string]any{"metrics": []string{"orders", "new_customers"}, "group_by": []string{"customer__city"}},
			"SELECT k.city, o.n, c.n FROM (SELECT city FROM demo.customers UNION SELECT c.city FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id) k " +
				"LEFT JOIN (SELECT c.city, COUNT(*) AS n FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id GROUP BY 1) o ON o.city <=> k.city " +
				"LEFT JOIN (SELECT city, COUNT(DISTINCT customer_id) AS n FROM demo.customers GROUP BY 1) c ON c.city <=> k.city", false},
		{"where filter on a joined dimension",
			map[string]any{"metrics": []string{"revenue", "buyers"}, "group_by": []string{"customer__country"},
				"where": []string{"{{ Dimension('customer__country') }} IN ('DE', 'FR')", "{{ Dimension('order__status') }} != 'cancelled'"}},
			"SELECT c.country, SUM(o.total_amount), COUNT(DISTINCT o.customer_id) FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id " +
				"WHERE c.country IN ('DE', 'FR') AND o.status <> 'cancelled' GROUP BY 1", false},
		{"where filter on metric_time",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"order__channel"},
				"where": []string{"{{ TimeDimension('metric_time', 'month') }} >= '" + d(monthStart) + "'"}},
			"SELECT channel, SUM(total_amount) FROM demo.orders WHERE " + monthOf + " >= '" + d(monthStart) + "' GROUP BY 1", false},
		{"start and end time",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"metric_time__day"}, "start_time": d(start), "end_time": d(end) + "T23:00:00Z"},
			"SELECT order_date, SUM(total_amount) FROM demo.orders WHERE order_date BETWEEN '" + d(start) + "' AND '" + d(end) + "' GROUP BY 1", false},
		{"a time range widens to whole periods of the grain",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"metric_time__month"}, "start_time": d(midMonth), "end_time": d(midMonth)},
			"SELECT " + monthOf + ", COUNT(*) FROM demo.orders WHERE order_date >= '" + d(monthStart) + "' AND order_date < '" + d(monthStart.AddDate(0, 1, 0)) + "' GROUP BY 1", false},
		{"order and limit",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"customer__country"}, "order_by": []string{"-revenue"}, "limit": 3},
			"SELECT c.country, SUM(o.total_amount) AS r FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id GROUP BY 1 ORDER BY r DESC LIMIT 3", true},
		{"order by a group-by ascending",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"metric_time__quarter"}, "order_by": []string{"metric_time__quarter"}},
			"SELECT " + quarterOf + " AS q, COUNT(*) FROM demo.orders GROUP BY 1 ORDER BY q", true},
		{"saved query with a where filter",
			map[string]any{"saved_query": "revenue_by_country_month"},
			"SELECT " + monthOf + ", c.country, SUM(o.total_amount), COUNT(*), AVG(o.total_amount) FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id " +
				"WHERE o.status <> 'cancelled' GROUP BY 1, 2", false},
		{"saved query with order and limit",
			map[string]any{"saved_query": "top_channels"},
			"SELECT channel, COUNT(*) AS n, SUM(total_amount) FROM demo.orders GROUP BY 1 ORDER BY n DESC LIMIT 3", true},
		{"saved query with a time range and a filter from the request",
			map[string]any{"saved_query": "revenue_by_country_month", "start_time": d(start), "end_time": d(end),
				"where": []string{"{{ Dimension('customer__segment') }} = 'consumer'"}},
			"SELECT " + monthOf + ", c.country, SUM(o.total_amount), COUNT(*), AVG(o.total_amount) FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id " +
				"WHERE o.status <> 'cancelled' AND c.segment = 'consumer' AND o.order_date >= '" + d(monthStartOf(start)) + "' AND o.order_date < '" + d(monthStartOf(end).AddDate(0, 1, 0)) + "' GROUP BY 1, 2", false},
		{"every aggregation",
			map[string]any{"metrics": []string{"average_order_value", "buyers", "largest_order", "smallest_order", "shipped_orders", "coupon_orders"}, "group_by": []string{"order__channel"}},
			"SELECT channel, AVG(total_amount), COUNT(DISTINCT customer_id), MAX(total_amount), MIN(total_amount), SUM(shipped_at IS NOT NULL), COUNT(discount_amount) FROM demo.orders GROUP BY 1", false},
		{"a measure's own agg_time_dimension",
			map[string]any{"metrics": []string{"shipped_revenue"}, "group_by": []string{"metric_time__month"}},
			"SELECT DATE_FORMAT(shipped_at, '%Y-%m-01'), SUM(total_amount) FROM demo.orders GROUP BY 1", false},
		{"another semantic model's measures and dimensions",
			map[string]any{"metrics": []string{"lifetime_value", "active_customers"}, "group_by": []string{"customer__segment", "metric_time__year"}},
			"SELECT segment, MAKEDATE(YEAR(signup_date), 1), SUM(lifetime_value), NULLIF(COUNT(DISTINCT CASE WHEN is_active = 1 THEN customer_id END), 0) FROM demo.customers GROUP BY 1, 2", false},
		{"a time dimension of a joined model",
			map[string]any{"metrics": []string{"orders"}, "group_by": []string{"customer__signup_date__year"}},
			"SELECT MAKEDATE(YEAR(c.signup_date), 1), COUNT(*) FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id GROUP BY 1", false},
		{"products",
			map[string]any{"metrics": []string{"products_launched"}, "group_by": []string{"product__category"}},
			"SELECT category, COUNT(product_id) FROM demo.products GROUP BY 1", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sqlText := pv.compile(t, c.req)
			got := runQuery(t, e.doris, sqlText)
			want := runQuery(t, e.maria, c.ref)
			sameRows(t, got, want, c.ordered)
		})
	}
	if len(cases) < 20 {
		t.Fatalf("only %d requests; the acceptance needs at least 20", len(cases))
	}
}

// TestDemoDimensionValues compiles compile_dimension_values and compares
// with the distinct values written independently.
func TestDemoDimensionValues(t *testing.T) {
	e := newEnv(t)
	pv := newProvider(t, "demo", demoManifest)
	cases := []struct {
		name string
		args map[string]any
		ref  string
	}{
		{"joined dimension with NULLs", map[string]any{"metrics": []string{"revenue"}, "dimension": "customer__city"},
			"SELECT DISTINCT c.city FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id ORDER BY 1"},
		{"under the metric's filter and a limit", map[string]any{"metrics": []string{"enterprise_revenue"}, "dimension": "order__channel", "limit": 2},
			"SELECT DISTINCT o.channel FROM demo.orders o JOIN demo.customers c ON o.customer_id = c.customer_id WHERE c.segment = 'enterprise' ORDER BY 1 LIMIT 2"},
		{"two semantic models", map[string]any{"metrics": []string{"orders", "new_customers"}, "dimension": "customer__segment"},
			"SELECT segment FROM demo.customers UNION SELECT c.segment FROM demo.orders o LEFT JOIN demo.customers c ON o.customer_id = c.customer_id ORDER BY 1"},
		{"metric_time within a time range", map[string]any{"metrics": []string{"orders"}, "dimension": "metric_time__month", "start_time": "2000-01-01"},
			"SELECT DISTINCT " + monthOf + " FROM demo.orders ORDER BY 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, reason := pv.call(t, "compile_dimension_values", c.args)
			if reason != "" {
				t.Fatalf("refused with %s", reason)
			}
			got := runQuery(t, e.doris, data["sql"].(string))
			sameRows(t, got, runQuery(t, e.maria, c.ref), true)
		})
	}
}
