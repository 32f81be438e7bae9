package mariadb

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// Demo schema, as created by Start:
//
//	demo.customers    ~200 rows  (PK customer_id; indexes on country, signup_date)
//	demo.products      60 rows   (PK product_id; UNIQUE sku; FULLTEXT description)
//	demo.orders      5000 rows   (DECIMAL amounts, DATETIME, DATE, BIGINT external_ref
//	                              beyond 2^53, VARBINARY payment_token, NULLs)
//	demo.order_items ~12500 rows
//	demo.documents     48 rows   (search: inverted indexes on title and body,
//	                              an ANN index on the JSON embedding; demo_search.go)
//	demo.v_daily_sales (VIEW)
//	secret.salaries             (no demo account but root may read it)
//	__internal_schema.audit_log  Doris 3.0 column set, 50 rows relative to now
//	__doris_sim.sim_globals      enable_audit_plugin = true (the demo DBA turned it on)
//
// The generator is deterministic except for timestamps, which are relative to
// the time of Start.
const (
	DemoDatabase     = "demo"
	SecretDatabase   = "secret"
	InternalDatabase = "__internal_schema"

	DemoCustomers  = 200
	DemoProducts   = 60
	DemoOrders     = 5000
	DemoAuditRows  = 50
	BigRefBase     = int64(9007199254740993) // 2^53 + 1
	demoSeedNumber = 20250121
)

// demoStatements returns the SQL that builds the demo data set.
func demoStatements(now time.Time) []string {
	now = now.Truncate(time.Second)
	r := rand.New(rand.NewPCG(demoSeedNumber, 7))
	var out []string
	add := func(s string, a ...any) { out = append(out, fmt.Sprintf(s, a...)) }

	add("CREATE DATABASE %s DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci COMMENT 'Demo retail analytics data'", DemoDatabase)
	add(`CREATE TABLE demo.customers (
  customer_id INT NOT NULL COMMENT 'Surrogate customer key',
  full_name VARCHAR(100) NOT NULL COMMENT 'Customer full name',
  email VARCHAR(255) NULL COMMENT 'Contact e-mail address (PII)',
  phone VARCHAR(32) NULL COMMENT 'Mobile phone number (PII)',
  country CHAR(2) NOT NULL COMMENT 'ISO 3166-1 alpha-2 country code',
  city VARCHAR(64) NULL COMMENT 'City of the billing address',
  segment VARCHAR(16) NOT NULL COMMENT 'consumer, smb or enterprise',
  signup_date DATE NOT NULL COMMENT 'Day the account was created',
  lifetime_value DECIMAL(14,2) NULL COMMENT 'Sum of delivered order amounts, USD',
  is_active TINYINT(1) NOT NULL DEFAULT 1 COMMENT '1 when the account is active',
  created_at DATETIME NOT NULL COMMENT 'Row creation time (UTC)',
  PRIMARY KEY (customer_id),
  KEY idx_country (country),
  KEY idx_signup_date (signup_date)
) ENGINE=InnoDB COMMENT='Customer master data, one row per customer account'`)
	add(`CREATE TABLE demo.products (
  product_id INT NOT NULL COMMENT 'Product key',
  sku VARCHAR(32) NOT NULL COMMENT 'Stock keeping unit',
  product_name VARCHAR(120) NOT NULL COMMENT 'Display name',
  category VARCHAR(40) NOT NULL COMMENT 'Top-level category',
  brand VARCHAR(40) NULL COMMENT 'Brand name',
  unit_price DECIMAL(10,2) NOT NULL COMMENT 'List price, USD',
  weight_kg DECIMAL(8,3) NULL COMMENT 'Shipping weight',
  description TEXT NULL COMMENT 'Marketing description (full-text indexed)',
  launched_on DATE NULL COMMENT 'First day on sale',
  PRIMARY KEY (product_id),
  UNIQUE KEY uk_sku (sku),
  KEY idx_category (category),
  FULLTEXT KEY ft_description (description)
) ENGINE=InnoDB COMMENT='Product catalog'`)
	add(`CREATE TABLE demo.orders (
  order_id BIGINT NOT NULL COMMENT 'Order key',
  customer_id INT NOT NULL COMMENT 'Buyer, references customers.customer_id',
  order_ts DATETIME NOT NULL COMMENT 'Time the order was placed (UTC)',
  order_date DATE NOT NULL COMMENT 'Calendar day of order_ts',
  status VARCHAR(16) NOT NULL COMMENT 'placed, paid, shipped, delivered, cancelled or returned',
  channel VARCHAR(16) NOT NULL COMMENT 'web, mobile, store or partner',
  currency CHAR(3) NOT NULL DEFAULT 'USD' COMMENT 'ISO 4217 currency',
  total_amount DECIMAL(12,2) NOT NULL COMMENT 'Order total after discount, incl. shipping',
  discount_amount DECIMAL(12,2) NULL COMMENT 'Coupon discount; NULL when no coupon',
  shipping_fee DECIMAL(8,2) NOT NULL DEFAULT 0.00 COMMENT 'Shipping fee charged',
  shipped_at DATETIME NULL COMMENT 'Hand-over to the carrier; NULL until shipped',
  external_ref BIGINT NOT NULL COMMENT 'Partner reference id (exceeds 2^53)',
  payment_token VARBINARY(16) NULL COMMENT 'Opaque binary payment token',
  note TEXT NULL COMMENT 'Free-text customer note',
  PRIMARY KEY (order_id),
  KEY idx_customer (customer_id),
  KEY idx_order_date (order_date),
  KEY idx_status_date (status, order_date)
) ENGINE=InnoDB COMMENT='Sales orders, one row per order'`)
	add(`CREATE TABLE demo.order_items (
  order_id BIGINT NOT NULL COMMENT 'References orders.order_id',
  line_no SMALLINT NOT NULL COMMENT 'Line number within the order',
  product_id INT NOT NULL COMMENT 'References products.product_id',
  quantity INT NOT NULL COMMENT 'Units ordered',
  unit_price DECIMAL(10,2) NOT NULL COMMENT 'Price per unit at order time',
  line_amount DECIMAL(12,2) NOT NULL COMMENT 'quantity * unit_price',
  PRIMARY KEY (order_id, line_no),
  KEY idx_product (product_id)
) ENGINE=InnoDB COMMENT='Order lines'`)

	// customers
	first := []string{"Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "Lucas", "Mia", "Mateo",
		"Amelia", "Levi", "Harper", "Wei", "Yuki", "Aarav", "Chloé", "Jonas", "Zoë", "Björn", "Fatima", "Diego", "Ines", "Kenji"}
	last := []string{"Smith", "Johnson", "Garcia", "Müller", "Rossi", "Dubois", "Tanaka", "Kim", "Chen", "Novak",
		"Silva", "O'Brien", "Nguyen", "Kowalski", "Andersson", "Patel", "Haddad", "Schmidt", "López", "Ivanova"}
	places := [][2]string{{"US", "Seattle"}, {"US", "Austin"}, {"US", "New York"}, {"DE", "Berlin"}, {"DE", "München"},
		{"FR", "Paris"}, {"JP", "Tokyo"}, {"CN", "Shanghai"}, {"BR", "São Paulo"}, {"IN", "Bengaluru"}, {"GB", "London"}, {"CA", ""}}
	segments := []string{"consumer", "consumer", "consumer", "smb", "smb", "enterprise"}
	var rows []string
	for i := 1; i <= DemoCustomers; i++ {
		fn, ln := first[r.IntN(len(first))], last[r.IntN(len(last))]
		name := fn + " " + ln
		email := "NULL"
		if r.IntN(10) > 0 {
			email = quote(strings.ToLower(asciiOnly(fn)+"."+asciiOnly(ln)) + fmt.Sprintf("%d@example.com", i))
		}
		phone := "NULL"
		if r.IntN(4) > 0 {
			phone = quote(fmt.Sprintf("+1-555-%03d-%04d", r.IntN(1000), r.IntN(10000)))
		}
		pl := places[r.IntN(len(places))]
		city := "NULL"
		if pl[1] != "" {
			city = quote(pl[1])
		}
		signup := now.AddDate(0, 0, -30-r.IntN(1500))
		ltv := "NULL"
		if r.IntN(8) > 0 {
			ltv = fmt.Sprintf("%d.%02d", r.IntN(25000), r.IntN(100))
		}
		rows = append(rows, fmt.Sprintf("(%d,%s,%s,%s,'%s',%s,'%s','%s',%s,%d,'%s')", i, quote(name), email, phone,
			pl[0], city, segments[r.IntN(len(segments))], signup.Format("2006-01-02"), ltv, boolInt(r.IntN(12) > 0),
			signup.Add(time.Duration(r.IntN(86400))*time.Second).Format("2006-01-02 15:04:05")))
	}
	out = append(out, batches("INSERT INTO demo.customers VALUES ", rows, 500)...)

	// products
	cats := []struct{ name, brand string }{{"Electronics", "Voltra"}, {"Home", "Casa Nova"}, {"Outdoor", "Trailhead"},
		{"Books", "Pagewise"}, {"Toys", "Kitebox"}, {"Grocery", "GreenBasket"}}
	nouns := []string{"Headphones", "Lamp", "Tent", "Novel", "Puzzle", "Coffee Beans", "Backpack", "Kettle", "Speaker", "Blanket"}
	adjs := []string{"Wireless", "Compact", "Ultralight", "Organic", "Classic", "Smart", "Waterproof", "Deluxe"}
	prices := make([]int, DemoProducts+1) // cents
	rows = rows[:0]
	for i := 1; i <= DemoProducts; i++ {
		c := cats[r.IntN(len(cats))]
		noun, adj := nouns[r.IntN(len(nouns))], adjs[r.IntN(len(adjs))]
		prices[i] = 199 + r.IntN(49800)
		weight := "NULL"
		if c.name != "Books" || r.IntN(2) == 0 {
			weight = fmt.Sprintf("%d.%03d", r.IntN(20), r.IntN(1000))
		}
		desc := fmt.Sprintf("%s %s by %s. A %s favourite for everyday use; ships in recyclable packaging.",
			adj, strings.ToLower(noun), c.brand, strings.ToLower(c.name))
		launched := "NULL"
		if r.IntN(10) > 0 {
			launched = "'" + now.AddDate(0, 0, -r.IntN(2000)).Format("2006-01-02") + "'"
		}
		rows = append(rows, fmt.Sprintf("(%d,'SKU-%s-%04d',%s,'%s','%s',%d.%02d,%s,%s,%s)", i, strings.ToUpper(c.name[:3]), i,
			quote(adj+" "+noun), c.name, c.brand, prices[i]/100, prices[i]%100, weight, quote(desc), launched))
	}
	out = append(out, batches("INSERT INTO demo.products VALUES ", rows, 500)...)

	// orders and order_items
	statuses := []string{"delivered", "delivered", "delivered", "shipped", "paid", "placed", "cancelled", "returned"}
	channels := []string{"web", "web", "mobile", "mobile", "store", "partner"}
	notes := []string{"Leave at the door", "Gift wrap please", "Call before delivery", "Fragile", "请放在门口"}
	var items []string
	rows = rows[:0]
	for i := 1; i <= DemoOrders; i++ {
		ts := now.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Second)
		st := statuses[r.IntN(len(statuses))]
		nLines := 1 + r.IntN(4)
		sum := 0
		for l := 1; l <= nLines; l++ {
			p := 1 + r.IntN(DemoProducts)
			q := 1 + r.IntN(3)
			amt := prices[p] * q
			sum += amt
			items = append(items, fmt.Sprintf("(%d,%d,%d,%d,%d.%02d,%d.%02d)", 100000+i, l, p, q,
				prices[p]/100, prices[p]%100, amt/100, amt%100))
		}
		disc := "NULL"
		if r.IntN(4) == 0 {
			d := sum * (5 + r.IntN(20)) / 100
			sum -= d
			disc = fmt.Sprintf("%d.%02d", d/100, d%100)
		}
		ship := 0
		if sum < 5000 {
			ship = 499
		}
		sum += ship
		shipped := "NULL"
		if st == "shipped" || st == "delivered" || st == "returned" {
			shipped = "'" + ts.Add(time.Duration(2+r.IntN(70))*time.Hour).Format("2006-01-02 15:04:05") + "'"
		}
		token := "NULL"
		if st != "placed" {
			b := make([]byte, 16)
			for k := range b {
				b[k] = byte(r.IntN(256))
			}
			token = "0x" + hex.EncodeToString(b)
		}
		note := "NULL"
		if r.IntN(9) == 0 {
			note = quote(notes[r.IntN(len(notes))])
		}
		ref := BigRefBase + int64(i)*7919
		if i == DemoOrders {
			ref = 9223372036854775807
		}
		rows = append(rows, fmt.Sprintf("(%d,%d,'%s','%s','%s','%s','USD',%d.%02d,%s,%d.%02d,%s,%d,%s,%s)",
			100000+i, 1+r.IntN(DemoCustomers), ts.Format("2006-01-02 15:04:05"), ts.Format("2006-01-02"), st,
			channels[r.IntN(len(channels))], sum/100, sum%100, disc, ship/100, ship%100, shipped, ref, token, note))
	}
	out = append(out, batches("INSERT INTO demo.orders VALUES ", rows, 1000)...)
	out = append(out, batches("INSERT INTO demo.order_items VALUES ", items, 2000)...)
	add(`CREATE SQL SECURITY INVOKER VIEW demo.v_daily_sales AS
SELECT o.order_date AS sales_date,
       COUNT(*) AS order_count,
       COUNT(DISTINCT o.customer_id) AS customer_count,
       SUM(o.total_amount) AS revenue,
       SUM(COALESCE(o.discount_amount, 0)) AS discounts
FROM demo.orders o
WHERE o.status NOT IN ('cancelled', 'returned')
GROUP BY o.order_date`)
	out = append(out, documentsStatements(now)...) // demo_search.go
	add("ANALYZE TABLE demo.customers, demo.products, demo.orders, demo.order_items")

	// secret
	add("CREATE DATABASE %s DEFAULT CHARACTER SET utf8mb4 COMMENT 'HR data: no demo account may read it'", SecretDatabase)
	add(`CREATE TABLE secret.salaries (
  employee_id INT NOT NULL COMMENT 'Employee key',
  full_name VARCHAR(100) NOT NULL COMMENT 'Employee name',
  department VARCHAR(40) NOT NULL COMMENT 'Department',
  salary DECIMAL(12,2) NOT NULL COMMENT 'Yearly base salary, USD',
  bonus DECIMAL(12,2) NULL COMMENT 'Last yearly bonus',
  PRIMARY KEY (employee_id)
) ENGINE=InnoDB COMMENT='Compensation; restricted'`)
	rows = rows[:0]
	for i := 1; i <= 25; i++ {
		rows = append(rows, fmt.Sprintf("(%d,%s,'%s',%d.00,%s)", i, quote(first[r.IntN(len(first))]+" "+last[r.IntN(len(last))]),
			[]string{"Engineering", "Sales", "Finance", "Support"}[r.IntN(4)], 60000+r.IntN(140000),
			[]string{"NULL", "5000.00", "12500.50"}[r.IntN(3)]))
	}
	out = append(out, batches("INSERT INTO secret.salaries VALUES ", rows, 500)...)

	// __internal_schema.audit_log, Doris 3.0 column set: the simulator's
	// own definition, which it also applies at every start.
	out = append(out, sim.InternalSchemaStatements()...)
	out = append(out, batches("INSERT INTO __internal_schema.audit_log VALUES ", auditRows(r, now), 100)...)
	// The demo's DBA turned Doris's audit loader on (SET GLOBAL
	// enable_audit_plugin = true; Doris's default is false). The simulator
	// keeps persisted global variables in its metadata schema (sim
	// metadata.go); this is the row that statement leaves.
	add("CREATE DATABASE IF NOT EXISTS `%s` DEFAULT CHARACTER SET utf8mb4 COMMENT 'Doris simulator: Doris-only system tables and FE state'", SimSchema)
	add("CREATE TABLE IF NOT EXISTS `%s`.`sim_globals` (name VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL) COMMENT 'persisted global variables'", SimSchema)
	add("REPLACE INTO `%s`.`sim_globals` VALUES ('enable_audit_plugin', 'true')", SimSchema)

	// Accounts. --skip-name-resolve: '%' matches 127.0.0.1.
	for _, u := range []struct{ name, pw string }{{ReaderUser, ReaderPassword}, {WriterUser, WriterPassword}} {
		add("CREATE OR REPLACE USER '%s'@'%%' IDENTIFIED VIA mysql_native_password USING PASSWORD(%s)", u.name, quote(u.pw))
		add("GRANT SELECT ON `%s`.* TO '%s'@'%%'", InternalDatabase, u.name)
		add("GRANT SELECT ON `%s`.* TO '%s'@'%%'", SimSchema, u.name)
	}
	add("GRANT SELECT, SHOW VIEW ON demo.* TO '%s'@'%%'", ReaderUser)
	add("GRANT ALL PRIVILEGES ON demo.* TO '%s'@'%%'", WriterUser)
	add("FLUSH PRIVILEGES")
	return out
}

type auditTemplate struct {
	db, stmt, stmtType string
	isQuery            bool
	minMs, maxMs       int64
	scanRows           int64
}

func auditRows(r *rand.Rand, now time.Time) []string {
	tpl := []auditTemplate{
		{"demo", "SELECT order_date, SUM(total_amount) FROM orders WHERE order_date >= '2025-01-01' GROUP BY order_date ORDER BY order_date", "SELECT", true, 40, 900, 5000},
		{"demo", "SELECT c.country, COUNT(*) AS n, SUM(o.total_amount) AS revenue FROM orders o JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.country ORDER BY revenue DESC", "SELECT", true, 800, 4200, 5200},
		{"demo", "SELECT * FROM v_daily_sales ORDER BY sales_date DESC LIMIT 30", "SELECT", true, 15, 300, 5000},
		{"demo", "SELECT p.category, SUM(i.line_amount) FROM order_items i JOIN products p ON p.product_id = i.product_id GROUP BY p.category", "SELECT", true, 1500, 15000, 12500},
		{"tpch_sf1000", "SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty, SUM(l_extendedprice) AS sum_base_price FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus", "SELECT", true, 9000, 118000, 5999989709},
		{"tpch_sf1000", "SELECT o_orderpriority, COUNT(*) AS order_count FROM orders WHERE o_orderdate >= DATE '1993-07-01' AND o_orderdate < DATE '1993-10-01' GROUP BY o_orderpriority ORDER BY o_orderpriority", "SELECT", true, 3000, 46000, 1500000000},
		{"demo", "INSERT INTO order_items SELECT * FROM order_items_staging", "INSERT", false, 200, 3000, 1200},
		{"", "SELECT @@version_comment LIMIT 1", "SELECT", true, 0, 2, 0},
		{"demo", "SHOW FULL TABLES FROM `internal`.`demo`", "SHOW", false, 1, 20, 0},
		{"demo", "CREATE TABLE IF NOT EXISTS tmp_report AS SELECT * FROM orders WHERE status = 'returned'", "CREATE", false, 300, 2500, 5000},
	}
	users := []string{"root", "mcp_reader", "etl_user", "analyst_jane", "mcp_reader", "analyst_jane"}
	var rows []string
	for i := 0; i < DemoAuditRows; i++ {
		t := tpl[r.IntN(len(tpl))]
		age := time.Duration(r.Int64N(int64(72 * time.Hour)))
		if i < 12 {
			age = time.Duration(r.Int64N(int64(50 * time.Minute)))
		}
		ts := now.Add(-age)
		qt := t.minMs + r.Int64N(t.maxMs-t.minMs+1)
		state, code, msg := "EOF", 0, ""
		if !t.isQuery {
			state = "OK"
		}
		if r.IntN(9) == 0 {
			state, code = "ERR", 1105
			msg = []string{"errCode = 2, detailMessage = query is timeout, killed by timeout checker",
				"errCode = 2, detailMessage = Unknown column 'revenu' in 'table list'",
				"errCode = 2, detailMessage = Permission denied: user ['mcp_reader'@'%'] does not have privilege for [priv predicate: OR, Admin_priv Select_priv ] command on [internal].[secret].[salaries]"}[r.IntN(3)]
		}
		scanRows := t.scanRows
		if scanRows > 0 {
			scanRows = scanRows/2 + r.Int64N(scanRows/2+1)
		}
		scanBytes := scanRows * (40 + r.Int64N(120))
		ret := int64(0)
		if t.isQuery && state == "EOF" {
			ret = 1 + r.Int64N(200)
		}
		user := users[r.IntN(len(users))]
		h := md5.Sum([]byte(t.stmt))
		d := md5.Sum([]byte(t.stmtType + t.db))
		qid := fmt.Sprintf("%016x-%016x", r.Uint64(), r.Uint64())
		isQ := 0
		if t.isQuery {
			isQ = 1
		}
		rows = append(rows, fmt.Sprintf("(%s,'%s','127.0.0.1:%d',%s,'internal',%s,'%s',%d,%s,%d,%d,%d,%d,%d,%d,%d,0,%d,'%s',%d,1,'127.0.0.1',%d,'%s','%s',%d,'normal','',%s)",
			quote(qid), ts.Format("2006-01-02 15:04:05.000"), 40000+r.IntN(25000), quote(user), quote(t.db), state, code, quote(msg),
			qt, scanBytes, scanRows, ret, ret, ret*64, scanBytes, 1000+i*37, t.stmtType, isQ,
			qt*(1+r.Int64N(8)), hex.EncodeToString(h[:]), hex.EncodeToString(d[:]), 1<<20+r.Int64N(3<<30), quote(t.stmt)))
	}
	return rows
}

func batches(prefix string, rows []string, n int) []string {
	var out []string
	for i := 0; i < len(rows); i += n {
		j := min(i+n, len(rows))
		out = append(out, prefix+strings.Join(rows[i:j], ",\n"))
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func asciiOnly(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			b.WriteRune(c)
		case c == 'é':
			b.WriteByte('e')
		case c == 'ë' || c == 'ö' || c == 'ó':
			b.WriteByte('o')
		case c == 'ü':
			b.WriteByte('u')
		}
	}
	return b.String()
}
