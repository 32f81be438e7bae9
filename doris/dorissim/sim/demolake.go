package sim

import (
	"fmt"
	"strings"
)

// The demo's lakehouse: an Iceberg catalog iceberg_demo whose table
// sales.orders has three snapshots made by real writes (two appends and an
// overwrite), and demo.events with a VARIANT column. The statements run
// through the simulator as an administrator, as they would against Doris.

// DemoLakehouseStatements are the statements that build the demo's
// lakehouse, in order.
func DemoLakehouseStatements() []string {
	out := []string{
		`CREATE CATALOG iceberg_demo COMMENT 'Iceberg catalog of the demo' PROPERTIES (
  "type" = "iceberg", "iceberg.catalog.type" = "hadoop", "warehouse" = "s3://demo-lake/warehouse",
  "s3.endpoint" = "http://127.0.0.1:9000", "s3.region" = "us-east-1",
  "s3.access_key" = "DEMOACCESSKEY0000", "s3.secret_key" = "demo-secret-never-shown")`,
		"CREATE DATABASE iceberg_demo.sales",
		`CREATE TABLE iceberg_demo.sales.orders (
  order_id BIGINT COMMENT 'Order key', customer_id INT COMMENT 'Buyer', region STRING COMMENT 'Sales region',
  amount DECIMAL(12,2) COMMENT 'Order total, USD', order_date DATE COMMENT 'Day of the order')
PARTITION BY LIST (order_date) ()
PROPERTIES ("write-format" = "parquet", "write.parquet.compression-codec" = "zstd")`,
		`INSERT INTO iceberg_demo.sales.orders VALUES
  (1001, 17, 'emea', 120.50, '2025-06-01'), (1002, 42, 'amer', 75.00, '2025-06-01'),
  (1003, 17, 'emea', 19.99, '2025-06-02'), (1004, 99, 'apac', 310.00, '2025-06-02')`,
		`INSERT INTO iceberg_demo.sales.orders VALUES
  (1005, 42, 'amer', 42.00, '2025-06-03'), (1006, 7, 'apac', 8.75, '2025-06-03'), (1007, 99, 'apac', -5.00, '2025-06-03')`,
		// A correction: the refund row is dropped by rewriting the table.
		"INSERT OVERWRITE TABLE iceberg_demo.sales.orders SELECT * FROM iceberg_demo.sales.orders WHERE amount > 0",
		`CREATE TABLE demo.events (
  event_id BIGINT NOT NULL COMMENT 'Event key',
  event_time DATETIME NOT NULL COMMENT 'When it happened (UTC)',
  event_type VARCHAR(32) NOT NULL COMMENT 'page_view, add_to_cart or purchase',
  payload VARIANT NULL COMMENT 'Event body as sent by the client'
) DUPLICATE KEY(event_id)
DISTRIBUTED BY HASH(event_id) BUCKETS 4
PROPERTIES ("replication_num" = "1", "variant_max_subcolumns_count" = "2048")`,
	}
	var rows []string
	pages := []string{"/", "/products/12", "/cart", "/checkout"}
	for i := 1; i <= 40; i++ {
		ts := fmt.Sprintf("2025-06-0%d %02d:%02d:00", 1+i%3, 8+i%12, (i*7)%60)
		var typ, body string
		switch {
		case i%5 == 0:
			typ = "purchase"
			body = fmt.Sprintf(`{"user":{"id":%d,"tier":"%s"},"order":{"id":%d,"total":%d.%02d,"items":%d},"coupon":%s}`,
				100+i%13, []string{"free", "plus"}[i%2], 5000+i, 10+i*3, i%100, 1+i%4, []string{"null", `"SUMMER25"`}[i%2])
		case i%3 == 0:
			typ = "add_to_cart"
			body = fmt.Sprintf(`{"user":{"id":%d},"product":{"sku":"SKU-%04d","qty":%d}}`, 100+i%13, i, 1+i%3)
		default:
			typ = "page_view"
			body = fmt.Sprintf(`{"user":{"id":%d},"page":"%s","referrer":"%s","duration_ms":%d}`,
				100+i%13, pages[i%len(pages)], []string{"search", "email", "direct"}[i%3], 200+i*37)
		}
		rows = append(rows, fmt.Sprintf("(%d, '%s', '%s', '%s')", i, ts, typ, body))
	}
	out = append(out, "INSERT INTO demo.events VALUES\n  "+strings.Join(rows, ",\n  "))
	return out
}
