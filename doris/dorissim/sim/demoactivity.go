package sim

import (
	"context"
	"fmt"
	"time"
)

// DemoActivity is what the demo's people do once the simulator is up, run
// through the simulator itself so that the audit log, statistics and
// metadata record it truthfully: the ETL account builds two summary tables
// with INSERT ... SELECT and one with CREATE TABLE ... AS SELECT, registers
// a Java UDF and analyzes the main tables; the administrator creates a role
// for analysts; the reader runs a few reports. It may run again on the
// same upstream. The accounts are the demo data set's (mcp_writer, root and
// mcp_reader in Options.Users).
func (s *Server) DemoActivity(ctx context.Context) error {
	type step struct {
		user  string
		stmts []string
	}
	steps := []step{
		{"mcp_writer", []string{
			"DROP TABLE IF EXISTS demo.daily_revenue",
			"DROP TABLE IF EXISTS demo.product_sales",
			"DROP TABLE IF EXISTS demo.customer_ltv",
			"CREATE TABLE demo.daily_revenue (sales_date DATE NOT NULL COMMENT 'Order day', order_count INT NOT NULL COMMENT 'Orders that day', " +
				"revenue DECIMAL(14,2) NOT NULL COMMENT 'Delivered revenue, USD') UNIQUE KEY(sales_date) COMMENT 'Daily revenue, rebuilt nightly by etl_user' " +
				"DISTRIBUTED BY HASH(sales_date) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")",
			"CREATE TABLE demo.product_sales (product_id INT NOT NULL, units INT NOT NULL, revenue DECIMAL(14,2) NOT NULL) UNIQUE KEY(product_id) " +
				"COMMENT 'Units and revenue per product' DISTRIBUTED BY HASH(product_id) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\")",
			"INSERT INTO demo.daily_revenue (sales_date, order_count, revenue) SELECT order_date, COUNT(*), SUM(total_amount) " +
				"FROM demo.orders WHERE status NOT IN ('cancelled', 'returned') GROUP BY order_date",
			"INSERT INTO demo.product_sales (product_id, units, revenue) SELECT i.product_id, SUM(i.quantity), SUM(i.line_amount) " +
				"FROM demo.order_items i JOIN demo.orders o ON o.order_id = i.order_id GROUP BY i.product_id",
			"CREATE TABLE demo.customer_ltv AS SELECT c.customer_id, c.segment, SUM(o.total_amount) AS ltv " +
				"FROM demo.customers c JOIN demo.orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.segment",
			`CREATE FUNCTION IF NOT EXISTS demo.mask_email(VARCHAR(255)) RETURNS VARCHAR(255) PROPERTIES ("file" = "file:///opt/apache-doris/udf/mask-udf-1.2.jar", ` +
				`"symbol" = "com.example.udf.MaskEmail", "type" = "JAVA_UDF", "always_nullable" = "true")`,
			"ANALYZE TABLE demo.orders WITH SYNC",
			"ANALYZE TABLE demo.customers WITH SYNC",
		}},
		{"root", []string{
			"CREATE ROLE IF NOT EXISTS analysts COMMENT 'Read-only analysts'",
			"GRANT SELECT_PRIV ON demo.* TO ROLE 'analysts'",
			"GRANT 'analysts' TO 'mcp_reader'@'%'",
		}},
		{"mcp_reader", []string{
			"SELECT sales_date, revenue FROM daily_revenue ORDER BY sales_date DESC LIMIT 7",
			"SELECT segment, COUNT(*) AS customers, SUM(ltv) AS ltv FROM customer_ltv GROUP BY segment",
			"SELECT c.country, COUNT(*) AS orders FROM orders o JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.country",
		}},
	}
	for _, st := range steps {
		pw, ok := s.opts.Users[st.user]
		if !ok {
			return fmt.Errorf("sim: demo activity needs the %s account in Options.Users", st.user)
		}
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		up, err := dialUpstream(dctx, s.Addr(), st.user, pw, "demo", 45)
		cancel()
		if err != nil {
			return fmt.Errorf("sim: demo activity: connect as %s: %w", st.user, err)
		}
		_ = up.conn.SetDeadline(time.Now().Add(60 * time.Second))
		for _, q := range st.stmts {
			if err := up.exec(q); err != nil {
				up.close()
				return fmt.Errorf("sim: demo activity as %s: %.60s: %w", st.user, q, err)
			}
		}
		up.close()
	}
	return nil
}
