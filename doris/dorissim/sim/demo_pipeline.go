package sim

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// DemoPipelineTables are the objects LoadDemoPipeline creates in demo.
var DemoPipelineTables = []string{"web_events", "mv_event_counts"}

// LoadDemoPipeline gives the demo ingestion history that really happened,
// run through the simulator as user (who must be able to create and load
// tables in demo): it creates demo.web_events, loads it with Stream Load
// over the FE HTTP port (one clean load, one with two bad rows filtered
// under max_filter_ratio, one that fails), backfills it with an INSERT ...
// SELECT from demo.orders under a label, and builds the materialized view
// demo.mv_event_counts over it, which the second load then leaves out of
// sync. Every pipeline question then has a true answer on a first try.
func (s *Server) LoadDemoPipeline(ctx context.Context, user string) error {
	pw, ok := s.opts.Users[user]
	if !ok {
		return fmt.Errorf("sim: unknown demo user %q", user)
	}
	if s.FEAddr() == "" {
		return fmt.Errorf("sim: the demo pipeline needs the FE HTTP port")
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	up, err := dialUpstream(ctx, s.Addr(), user, pw, "demo", 45)
	if err != nil {
		return fmt.Errorf("sim: connect to the simulator as %s: %w", user, err)
	}
	defer up.close()
	_ = up.conn.SetDeadline(time.Now().Add(60 * time.Second))
	run := func(q string) error {
		if err := up.exec(q); err != nil {
			return fmt.Errorf("sim: demo pipeline: %w (statement: %.120s)", err, q)
		}
		return nil
	}
	now := time.Now().Truncate(time.Second)
	stamp := now.Format("20060102_1504")
	if err := run("CREATE TABLE IF NOT EXISTS web_events (event_id BIGINT NOT NULL, event_time DATETIME NOT NULL, " +
		"customer_id INT NULL, event_type VARCHAR(16) NOT NULL, page VARCHAR(64) NULL) UNIQUE KEY(event_id) " +
		"COMMENT 'Clickstream landing table, loaded by Stream Load' DISTRIBUTED BY HASH(event_id) BUCKETS 1 " +
		"PROPERTIES (\"replication_num\" = \"1\")"); err != nil {
		return err
	}
	types := []string{"view", "view", "view", "search", "add_to_cart", "checkout"}
	pages := []string{"/", "/products", "/products/42", "/search", "/cart", "/checkout"}
	var first strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&first, "%d,%s,%d,%s,%s\n", i, fmtTime(now.Add(-time.Duration(121-i)*time.Minute)), 1+i%200,
			types[i%len(types)], pages[i%len(pages)])
	}
	cols := "event_id,event_time,customer_id,event_type,page"
	if err := s.demoLoad(ctx, user, pw, "web_events_"+stamp+"_01", first.String(), map[string]string{
		"column_separator": ",", "columns": cols}, "Success"); err != nil {
		return err
	}
	if err := run("INSERT INTO web_events WITH LABEL demo_backfill_" + stamp + " SELECT order_id + 1000000, order_ts, customer_id, " +
		"'purchase', '/checkout' FROM orders ORDER BY order_ts DESC LIMIT 20"); err != nil {
		return err
	}
	if err := run("CREATE MATERIALIZED VIEW IF NOT EXISTS mv_event_counts BUILD IMMEDIATE REFRESH AUTO ON SCHEDULE EVERY 1 HOUR " +
		`PROPERTIES ("replication_num" = "1") AS SELECT DATE(event_time) AS event_date, event_type, COUNT(*) AS events ` +
		"FROM web_events GROUP BY DATE(event_time), event_type"); err != nil {
		return err
	}
	var second strings.Builder
	for i := 121; i <= 150; i++ {
		fmt.Fprintf(&second, "%d,%s,%d,%s,%s\n", i, fmtTime(now.Add(-time.Duration(151-i)*10*time.Second)), 1+i%200,
			types[i%len(types)], pages[i%len(pages)])
	}
	second.WriteString("not-a-number," + fmtTime(now) + ",7,view,/\n")
	second.WriteString("151," + fmtTime(now) + "\n")
	if err := s.demoLoad(ctx, user, pw, "web_events_"+stamp+"_02", second.String(), map[string]string{
		"column_separator": ",", "columns": cols, "max_filter_ratio": "0.1"}, "Success"); err != nil {
		return err
	}
	// Sent with commas but without the separator header: every row is one
	// column short of the schema, and the load fails.
	return s.demoLoad(ctx, user, pw, "web_events_"+stamp+"_03", "152,"+fmtTime(now)+",9,view,/\n", map[string]string{"columns": cols}, "Fail")
}

// demoLoad runs one stream load through the FE and checks its status.
func (s *Server) demoLoad(ctx context.Context, user, pw, label, body string, headers map[string]string, want string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, "http://"+s.FEAddr()+"/api/demo/web_events/_stream_load", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.SetBasicAuth(user, pw)
	req.Header.Set("label", label)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("sim: demo stream load %s: %w", label, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if !strings.Contains(string(b), `"Status": "`+want+`"`) && !strings.Contains(string(b), `"Status": "Label Already Exists"`) {
		return fmt.Errorf("sim: demo stream load %s: want %s, got %s", label, want, b)
	}
	return nil
}
