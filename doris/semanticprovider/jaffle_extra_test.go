package semanticprovider_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestJaffleShopTimeSpineMetrics adds to the real manifest the time-spine
// metrics it lacks (a trailing window, month-to-date, start-of-month and a
// seven-day offset) and checks them over the same marts.
func TestJaffleShopTimeSpineMetrics(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(jaffleDir, "semantic_manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	measure := map[string]any{"name": "revenue", "filter": nil, "alias": nil, "join_to_timespine": false, "fill_nulls_with": nil}
	cum := func(name string, window any, gtd any, periodAgg string) map[string]any {
		return map[string]any{"name": name, "description": nil, "type": "cumulative", "filter": nil, "metadata": nil, "label": nil,
			"type_params": map[string]any{"measure": measure, "cumulative_type_params": map[string]any{"window": window, "grain_to_date": gtd, "period_agg": periodAgg}}}
	}
	derived := func(name string, input map[string]any) map[string]any {
		return map[string]any{"name": name, "description": nil, "type": "derived", "filter": nil, "metadata": nil, "label": nil,
			"type_params": map[string]any{"expr": "r", "metrics": []any{input}}}
	}
	doc["metrics"] = append(doc["metrics"].([]any),
		cum("revenue_7d", map[string]any{"count": 7, "granularity": "day"}, nil, "first"),
		cum("revenue_mtd", nil, "month", "last"),
		derived("revenue_start_of_month", map[string]any{"name": "revenue", "alias": "r", "filter": nil, "offset_window": nil, "offset_to_grain": "month"}),
		derived("revenue_week_ago", map[string]any{"name": "revenue", "alias": "r", "filter": nil, "offset_window": map[string]any{"count": 7, "granularity": "day"}, "offset_to_grain": nil}),
		map[string]any{"name": "revenue_every_day", "description": nil, "type": "simple", "filter": nil, "metadata": nil, "label": nil,
			"type_params": map[string]any{"measure": map[string]any{"name": "revenue", "filter": nil, "alias": nil, "join_to_timespine": true, "fill_nulls_with": 0}}},
	)
	b, _ := json.Marshal(doc)
	path := writeManifest(t, string(b))

	e := newEnv(t)
	buildJaffle(t, e)
	pv := newProvider(t, "jaffle_shop", path)
	const (
		items = "`DBT`.`order_items`"
		spine = "`DBT`.`metricflow_time_spine`"
	)
	mtdDaily := "SELECT s.date_day AS d, SUM(i.product_price) AS v FROM " + spine + " s JOIN " + items + " i " +
		"ON i.ordered_at <= s.date_day AND i.ordered_at >= DATE_FORMAT(s.date_day, '%Y-%m-01') GROUP BY 1"
	cases := []struct {
		name string
		req  map[string]any
		ref  string
	}{
		{"trailing seven-day window",
			map[string]any{"metrics": []string{"revenue_7d"}, "group_by": []string{"metric_time__day"}},
			"SELECT s.date_day, SUM(i.product_price) FROM " + spine + " s JOIN " + items + " i " +
				"ON i.ordered_at <= s.date_day AND i.ordered_at > s.date_day - INTERVAL 7 DAY GROUP BY 1"},
		{"month to date by day",
			map[string]any{"metrics": []string{"revenue_mtd"}, "group_by": []string{"metric_time__day"}},
			mtdDaily},
		{"month to date by month takes the last day (period_agg last)",
			map[string]any{"metrics": []string{"revenue_mtd"}, "group_by": []string{"metric_time__month"}},
			"SELECT DATE_FORMAT(c.d, '%Y-%m-01'), c.v FROM (" + mtdDaily + ") c WHERE c.d = (SELECT MAX(c2.d) FROM (" + mtdDaily + ") c2 " +
				"WHERE DATE_FORMAT(c2.d, '%Y-%m-01') = DATE_FORMAT(c.d, '%Y-%m-01'))"},
		{"offset to the start of the month",
			map[string]any{"metrics": []string{"revenue_start_of_month"}, "group_by": []string{"metric_time__day"}},
			"SELECT s.date_day, SUM(i.product_price) FROM " + spine + " s JOIN " + items + " i ON i.ordered_at = DATE_FORMAT(s.date_day, '%Y-%m-01') GROUP BY 1"},
		{"join_to_timespine with fill_nulls_with: every spine day in the range, 0 where nothing sold",
			map[string]any{"metrics": []string{"revenue_every_day"}, "group_by": []string{"metric_time__day"}, "start_time": "2016-09-01", "end_time": "2016-10-15"},
			"SELECT s.date_day, COALESCE(r.v, 0) FROM " + spine + " s LEFT JOIN (SELECT ordered_at AS d, SUM(product_price) AS v FROM " + items + " GROUP BY 1) r " +
				"ON r.d = s.date_day WHERE s.date_day BETWEEN '2016-09-01' AND '2016-10-15'"},
		{"join_to_timespine by week",
			map[string]any{"metrics": []string{"revenue_every_day"}, "group_by": []string{"metric_time__week"}, "start_time": "2016-09-05", "end_time": "2016-10-16"},
			"SELECT w.d, COALESCE(r.v, 0) FROM (SELECT DISTINCT s.date_day - INTERVAL WEEKDAY(s.date_day) DAY AS d FROM " + spine + " s WHERE s.date_day BETWEEN '2016-09-05' AND '2016-10-16') w " +
				"LEFT JOIN (SELECT ordered_at - INTERVAL WEEKDAY(ordered_at) DAY AS d, SUM(product_price) AS v FROM " + items + " WHERE ordered_at BETWEEN '2016-09-05' AND '2016-10-16' GROUP BY 1) r ON r.d = w.d"},
		{"join_to_timespine without metric_time changes nothing",
			map[string]any{"metrics": []string{"revenue_every_day"}, "group_by": []string{"product__product_type"}},
			"SELECT p.product_type, SUM(i.product_price) FROM " + items + " i LEFT JOIN `DBT`.`products` p ON i.product_id = p.product_id GROUP BY 1"},
		{"seven-day offset by month joins days",
			map[string]any{"metrics": []string{"revenue_week_ago"}, "group_by": []string{"metric_time__month"}},
			"SELECT DATE_FORMAT(s.date_day, '%Y-%m-01'), SUM(i.product_price) FROM " + spine + " s JOIN " + items + " i ON i.ordered_at = s.date_day - INTERVAL 7 DAY GROUP BY 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sameRows(t, runQuery(t, e.doris, pv.compile(t, c.req)), runQuery(t, e.maria, c.ref), false)
		})
	}
}
