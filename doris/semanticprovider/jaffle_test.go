package semanticprovider_test

import (
	"context"
	"database/sql"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
)

const jaffleDir = "testdata/jaffle_shop"

// exec runs statements on db, failing the test on the first error.
func execAll(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		_, err := db.ExecContext(ctx, s)
		cancel()
		if err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
}

// loadSeed creates table name from a CSV seed (every column text, as
// given) and inserts its rows.
func loadSeed(t *testing.T, db *sql.DB, name string, types map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(jaffleDir, name+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range recs[0] {
		typ := types[c]
		if typ == "" {
			typ = "VARCHAR(255)"
		}
		cols = append(cols, "`"+c+"` "+typ)
	}
	execAll(t, db, "CREATE TABLE `DBT`.`"+name+"` ("+strings.Join(cols, ", ")+")")
	var rows []string
	for _, r := range recs[1:] {
		var vals []string
		for _, v := range r {
			switch v {
			case "True":
				vals = append(vals, "1")
			case "False":
				vals = append(vals, "0")
			default:
				vals = append(vals, "'"+strings.ReplaceAll(v, "'", "''")+"'")
			}
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	execAll(t, db, "INSERT INTO `DBT`.`"+name+"` VALUES "+strings.Join(rows, ", "))
}

// buildJaffle loads the seed excerpt and builds jaffle-shop's marts and
// time spine through the simulator, with the SQL of its dbt models
// (models/staging, models/marts) written in Doris SQL.
func buildJaffle(t *testing.T, e *env) {
	t.Helper()
	execAll(t, e.maria, "DROP DATABASE IF EXISTS `DBT`")
	t.Cleanup(func() { e.maria.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `DBT`") })
	db := e.doris
	execAll(t, db, "CREATE DATABASE `DBT`")
	loadSeed(t, db, "raw_customers", nil)
	loadSeed(t, db, "raw_orders", map[string]string{"ordered_at": "DATETIME", "subtotal": "INT", "tax_paid": "INT", "order_total": "INT"})
	loadSeed(t, db, "raw_items", nil)
	loadSeed(t, db, "raw_products", map[string]string{"price": "INT", "description": "VARCHAR(1024)"})
	loadSeed(t, db, "raw_stores", map[string]string{"opened_at": "DATETIME", "tax_rate": "DECIMAL(10,4)"})
	loadSeed(t, db, "raw_supplies", map[string]string{"cost": "INT", "perishable": "BOOLEAN"})
	execAll(t, db,
		"CREATE TABLE `DBT`.`stg_orders` AS SELECT id AS order_id, store_id AS location_id, customer AS customer_id, "+
			"subtotal AS subtotal_cents, tax_paid AS tax_paid_cents, order_total AS order_total_cents, "+
			"CAST(subtotal / 100 AS DECIMAL(16, 2)) AS subtotal, CAST(tax_paid / 100 AS DECIMAL(16, 2)) AS tax_paid, "+
			"CAST(order_total / 100 AS DECIMAL(16, 2)) AS order_total, DATE_TRUNC(ordered_at, 'day') AS ordered_at FROM `DBT`.`raw_orders`",
		"CREATE TABLE `DBT`.`stg_products` AS SELECT sku AS product_id, name AS product_name, type AS product_type, "+
			"description AS product_description, CAST(price / 100 AS DECIMAL(16, 2)) AS product_price, "+
			"COALESCE(type = 'jaffle', FALSE) AS is_food_item, COALESCE(type = 'beverage', FALSE) AS is_drink_item FROM `DBT`.`raw_products`",
		"CREATE TABLE `DBT`.`stg_supplies` AS SELECT MD5(CONCAT(COALESCE(CAST(id AS CHAR), '_dbt_utils_surrogate_key_null_'), '-', "+
			"COALESCE(CAST(sku AS CHAR), '_dbt_utils_surrogate_key_null_'))) AS supply_uuid, id AS supply_id, sku AS product_id, "+
			"name AS supply_name, CAST(cost / 100 AS DECIMAL(16, 2)) AS supply_cost, perishable AS is_perishable_supply FROM `DBT`.`raw_supplies`",
		"CREATE TABLE `DBT`.`order_items` AS SELECT i.id AS order_item_id, i.order_id, i.sku AS product_id, o.ordered_at, "+
			"p.product_name, p.product_price, p.is_food_item, p.is_drink_item, s.supply_cost "+
			"FROM `DBT`.`raw_items` i LEFT JOIN `DBT`.`stg_orders` o ON i.order_id = o.order_id "+
			"LEFT JOIN `DBT`.`stg_products` p ON i.sku = p.product_id "+
			"LEFT JOIN (SELECT product_id, SUM(supply_cost) AS supply_cost FROM `DBT`.`stg_supplies` GROUP BY product_id) s ON i.sku = s.product_id",
		"CREATE TABLE `DBT`.`orders` AS SELECT o.*, s.order_cost, s.order_items_subtotal, s.count_food_items, s.count_drink_items, "+
			"s.count_order_items, s.count_food_items > 0 AS is_food_order, s.count_drink_items > 0 AS is_drink_order, "+
			"ROW_NUMBER() OVER (PARTITION BY o.customer_id ORDER BY o.ordered_at ASC, o.order_id) AS customer_order_number "+
			"FROM `DBT`.`stg_orders` o LEFT JOIN (SELECT order_id, SUM(supply_cost) AS order_cost, SUM(product_price) AS order_items_subtotal, "+
			"COUNT(order_item_id) AS count_order_items, SUM(CASE WHEN is_food_item THEN 1 ELSE 0 END) AS count_food_items, "+
			"SUM(CASE WHEN is_drink_item THEN 1 ELSE 0 END) AS count_drink_items FROM `DBT`.`order_items` GROUP BY order_id) s ON o.order_id = s.order_id",
		"CREATE TABLE `DBT`.`customers` AS SELECT c.id AS customer_id, c.name AS customer_name, s.count_lifetime_orders, s.first_ordered_at, "+
			"s.last_ordered_at, s.lifetime_spend_pretax, s.lifetime_tax_paid, s.lifetime_spend, "+
			"CASE WHEN s.is_repeat_buyer THEN 'returning' ELSE 'new' END AS customer_type FROM `DBT`.`raw_customers` c "+
			"LEFT JOIN (SELECT customer_id, COUNT(DISTINCT order_id) AS count_lifetime_orders, COUNT(DISTINCT order_id) > 1 AS is_repeat_buyer, "+
			"MIN(ordered_at) AS first_ordered_at, MAX(ordered_at) AS last_ordered_at, SUM(subtotal) AS lifetime_spend_pretax, "+
			"SUM(tax_paid) AS lifetime_tax_paid, SUM(order_total) AS lifetime_spend FROM `DBT`.`orders` GROUP BY customer_id) s ON c.id = s.customer_id",
		"CREATE TABLE `DBT`.`locations` AS SELECT id AS location_id, name AS location_name, tax_rate, DATE_TRUNC(opened_at, 'day') AS opened_date FROM `DBT`.`raw_stores`",
		"CREATE TABLE `DBT`.`products` AS SELECT * FROM `DBT`.`stg_products`",
		"CREATE TABLE `DBT`.`supplies` AS SELECT * FROM `DBT`.`stg_supplies`",
		"CREATE TABLE `DBT`.`metricflow_time_spine` (date_day DATE)",
	)
	// dbt's spine covers ten years up to the build day; the test's covers
	// the months around the excerpt.
	var days []string
	for d := time.Date(2016, 8, 1, 0, 0, 0, 0, time.UTC); d.Before(time.Date(2016, 12, 1, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
		days = append(days, "('"+d.Format("2006-01-02")+"')")
	}
	execAll(t, db, "INSERT INTO `DBT`.`metricflow_time_spine` VALUES "+strings.Join(days, ", "))
}

// TestJaffleShop checks the real jaffle-shop manifest's metrics and saved
// queries against SQL written independently over the same marts.
func TestJaffleShop(t *testing.T) {
	if err := semanticprovider.LoadManifest(filepath.Join(jaffleDir, "semantic_manifest.json")); err != nil {
		t.Fatalf("the real manifest does not load: %v", err)
	}
	e := newEnv(t)
	buildJaffle(t, e)
	pv := newProvider(t, "jaffle_shop", filepath.Join(jaffleDir, "semantic_manifest.json"))

	const (
		items  = "`DBT`.`order_items`"
		orders = "`DBT`.`orders`"
		spine  = "`DBT`.`metricflow_time_spine`"
		month  = "DATE_FORMAT(ordered_at, '%Y-%m-01')"
	)
	// daily revenue with every spine day on or after the first sale: the
	// all-time cumulative revenue, from its definition.
	cumDaily := "SELECT s.date_day AS d, SUM(i.product_price) AS v FROM " + spine + " s JOIN " + items + " i ON i.ordered_at <= s.date_day GROUP BY s.date_day"
	cases := []struct {
		name    string
		req     map[string]any
		ref     string
		ordered bool
	}{
		{"simple metric by day",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"metric_time__day"}},
			"SELECT ordered_at, SUM(product_price) FROM " + items + " GROUP BY 1", false},
		{"simple metric by month",
			map[string]any{"metrics": []string{"order_cost", "order_total"}, "group_by": []string{"metric_time__month"}},
			"SELECT " + month + ", SUM(order_cost), SUM(order_total) FROM " + orders + " GROUP BY 1", false},
		{"filtered metrics",
			map[string]any{"metrics": []string{"orders", "new_customer_orders", "large_orders", "food_orders", "drink_orders"}, "group_by": []string{"metric_time__month"}},
			"SELECT " + month + ", COUNT(*), NULLIF(SUM(customer_order_number = 1), 0), NULLIF(SUM(order_total >= 20), 0), " +
				"NULLIF(SUM(is_food_order = TRUE), 0), NULLIF(SUM(is_drink_order = TRUE), 0) FROM " + orders + " GROUP BY 1", false},
		{"ratio metrics",
			map[string]any{"metrics": []string{"food_revenue_pct", "drink_revenue_pct"}, "group_by": []string{"metric_time__day"}},
			"SELECT ordered_at, CAST(SUM(CASE WHEN is_food_item THEN product_price ELSE 0 END) AS DOUBLE) / SUM(product_price), " +
				"CAST(SUM(CASE WHEN is_drink_item THEN product_price ELSE 0 END) AS DOUBLE) / SUM(product_price) FROM " + items + " GROUP BY 1", false},
		{"derived metric across two semantic models",
			map[string]any{"metrics": []string{"order_gross_profit"}, "group_by": []string{"metric_time__day"}},
			"SELECT d.d, r.v - c.v FROM (SELECT ordered_at AS d FROM " + items + " UNION SELECT ordered_at FROM " + orders + ") d " +
				"LEFT JOIN (SELECT ordered_at AS d, SUM(product_price) AS v FROM " + items + " GROUP BY 1) r ON r.d = d.d " +
				"LEFT JOIN (SELECT ordered_at AS d, SUM(order_cost) AS v FROM " + orders + " GROUP BY 1) c ON c.d = d.d", false},
		{"derived metric with an offset window (month over month)",
			map[string]any{"metrics": []string{"revenue_growth_mom", "revenue"}, "group_by": []string{"metric_time__month"}},
			"SELECT m.m, (cur.v - prev.v) * 100 / prev.v, cur.v FROM (SELECT DISTINCT DATE_FORMAT(date_day, '%Y-%m-01') AS m FROM " + spine + ") m " +
				"LEFT JOIN (SELECT " + month + " AS m, SUM(product_price) AS v FROM " + items + " GROUP BY 1) cur ON cur.m = m.m " +
				"LEFT JOIN (SELECT DATE_FORMAT(ordered_at + INTERVAL 1 MONTH, '%Y-%m-01') AS m, SUM(product_price) AS v FROM " + items + " GROUP BY 1) prev ON prev.m = m.m " +
				"WHERE cur.v IS NOT NULL OR prev.v IS NOT NULL", false},
		{"cumulative metric by day",
			map[string]any{"metrics": []string{"cumulative_revenue"}, "group_by": []string{"metric_time__day"}},
			cumDaily, false},
		{"cumulative metric by month takes the first day of each month (period_agg first)",
			map[string]any{"metrics": []string{"cumulative_revenue"}, "group_by": []string{"metric_time__month"}},
			"SELECT DATE_FORMAT(c.d, '%Y-%m-01'), c.v FROM (" + cumDaily + ") c WHERE c.d = (SELECT MIN(c2.d) FROM (" + cumDaily + ") c2 " +
				"WHERE DATE_FORMAT(c2.d, '%Y-%m-01') = DATE_FORMAT(c.d, '%Y-%m-01'))", false},
		{"cumulative metric within a time range",
			map[string]any{"metrics": []string{"cumulative_revenue"}, "group_by": []string{"metric_time__day"}, "start_time": "2016-10-01", "end_time": "2016-10-15"},
			"SELECT c.d, c.v FROM (" + cumDaily + ") c WHERE c.d BETWEEN '2016-10-01' AND '2016-10-15'", false},
		{"saved query revenue_metrics",
			map[string]any{"saved_query": "revenue_metrics"},
			"SELECT ordered_at, SUM(product_price), SUM(CASE WHEN is_food_item THEN product_price ELSE 0 END), " +
				"SUM(CASE WHEN is_drink_item THEN product_price ELSE 0 END) FROM " + items + " GROUP BY 1", false},
		{"saved query order_metrics",
			map[string]any{"saved_query": "order_metrics"},
			"SELECT ordered_at, COUNT(*), NULLIF(SUM(customer_order_number = 1), 0), SUM(order_total), NULLIF(SUM(is_food_order = TRUE), 0), " +
				"NULLIF(SUM(is_drink_order = TRUE), 0) FROM " + orders + " GROUP BY 1", false},
		{"saved query customer_order_metrics, grouped by an entity",
			map[string]any{"saved_query": "customer_order_metrics"},
			"SELECT customer_id, SUM(count_lifetime_orders), SUM(lifetime_spend_pretax), SUM(lifetime_spend_pretax) / SUM(count_lifetime_orders) " +
				"FROM `DBT`.`customers` GROUP BY 1", false},
		{"one hop: revenue by product type",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"product__product_type"}},
			"SELECT p.product_type, SUM(i.product_price) FROM " + items + " i LEFT JOIN `DBT`.`products` p ON i.product_id = p.product_id GROUP BY 1", false},
		{"two hops: revenue by the order's location and customer type",
			map[string]any{"metrics": []string{"revenue"}, "group_by": []string{"order_id__location__location_name", "order_id__customer__customer_type"}},
			"SELECT l.location_name, c.customer_type, SUM(i.product_price) FROM " + items + " i LEFT JOIN " + orders + " o ON i.order_id = o.order_id " +
				"LEFT JOIN `DBT`.`locations` l ON o.location_id = l.location_id LEFT JOIN `DBT`.`customers` c ON o.customer_id = c.customer_id GROUP BY 1, 2", false},
		{"where filter and order by on the real manifest",
			map[string]any{"metrics": []string{"order_total"}, "group_by": []string{"customer__customer_name"},
				"where": []string{"{{ Dimension('order_id__is_food_order') }} = true"}, "order_by": []string{"-order_total", "customer__customer_name"}, "limit": 5},
			"SELECT c.customer_name, SUM(o.order_total) AS t FROM " + orders + " o LEFT JOIN `DBT`.`customers` c ON o.customer_id = c.customer_id " +
				"WHERE o.is_food_order = TRUE GROUP BY 1 ORDER BY t DESC, 1 LIMIT 5", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runQuery(t, e.doris, pv.compile(t, c.req))
			sameRows(t, got, runQuery(t, e.maria, c.ref), c.ordered)
		})
	}
	t.Run("the median compiles to Doris's exact continuous percentile", func(t *testing.T) {
		// MetricFlow reads a median as the continuous 50th percentile
		// (PERCENTILE_CONT(0.5)); Doris's PERCENTILE is exact and
		// interpolates. MariaDB has no aggregate percentile, so the
		// simulator cannot run it: the statement is checked, not run.
		sql := pv.compile(t, map[string]any{"metrics": []string{"median_revenue"}, "group_by": []string{"metric_time__day"}})
		if !strings.Contains(sql, "PERCENTILE(`s0`.`product_price`, 0.5) AS") {
			t.Fatalf("the median is not PERCENTILE(x, 0.5):\n%s", sql)
		}
	})
	t.Run("an all-time cumulative metric without metric_time is the measure over every row", func(t *testing.T) {
		got := runQuery(t, e.doris, pv.compile(t, map[string]any{"metrics": []string{"cumulative_revenue"}}))
		sameRows(t, got, runQuery(t, e.maria, "SELECT SUM(product_price) FROM "+items), false)
	})
	t.Run("a cumulative metric grouped by its own time dimension", func(t *testing.T) {
		got := runQuery(t, e.doris, pv.compile(t, map[string]any{"metrics": []string{"cumulative_revenue"}, "group_by": []string{"order_item__ordered_at__day"}}))
		sameRows(t, got, runQuery(t, e.maria, cumDaily), false)
	})
}
