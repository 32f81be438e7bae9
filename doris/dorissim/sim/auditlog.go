package sim

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// The audit log: internal.__internal_schema.audit_log with each profile's
// column list. The upstream table has the 3.0 column set (it is the demo
// data set's table); the 2.1 and 4.0 profiles read it through a view in
// __doris_sim with their own columns, in their own order.
//
// Column lists, from the Doris sources (fe-core catalog/InternalSchema.java,
// AUDIT_SCHEMA):
//   - 2.1 (branch-2.1, 2.1.7 and later): the 2.0 list plus stmt_type after
//     stmt_id; trace_id is gone since 2.1.7.
//   - 3.0: adds shuffle_send_rows, shuffle_send_bytes,
//     scan_bytes_from_local_storage, scan_bytes_from_remote_storage,
//     is_nereids and compute_group.
//   - 4.0: the reorganised list (frontend_ip moved up, queue and spill
//     times, plan phases, queried_tables_and_views, ...).

// readsData reports statements whose scan_rows Doris records (queries and
// DML); SHOW, DDL without a query and session statements scan nothing.
func readsData(sql string) bool {
	ts := sig(lex(sql))
	if len(ts) == 0 {
		return false
	}
	switch {
	case ts[0].is("SELECT"), ts[0].is("WITH"), ts[0].isP("("), ts[0].is("INSERT"), ts[0].is("UPDATE"),
		ts[0].is("DELETE"), ts[0].is("REPLACE"):
		return true
	case ts[0].is("CREATE"):
		for _, t := range ts {
			if t.is("SELECT") {
				return true
			}
		}
	}
	return false
}

// Bookkeeping starts every statement the simulator sends upstream on a
// client's own connection for its own records (not the client's work), so
// that a test reading MariaDB's general log can tell them apart.
const Bookkeeping = "/* dorissim bookkeeping */ "

// scanRows returns how many rows the client's upstream connection read
// since the last call: MariaDB's per-session Rows_read counter (a session
// starts at 0), which is what a Doris scan node counts. It runs before the
// client's answer is flushed, so that the connection is idle again when
// the client sees the result.
func (c *conn) scanRows() int64 {
	up := c.upstreamConn()
	if up == nil {
		return 0
	}
	r, err := up.query(Bookkeeping+"SHOW SESSION STATUS LIKE 'Rows_read'", 1)
	if err != nil || r == nil || len(r.rows) != 1 || len(r.rows[0]) < 2 {
		return 0
	}
	now, err := strconv.ParseInt(deref(r.rows[0][1]), 10, 64)
	if err != nil {
		return 0
	}
	delta := now - c.rowsRead
	c.rowsRead = now
	return max(delta, 0)
}

// SeedAuditHistory appends days of hourly audit history ending at now to
// __internal_schema.audit_log: believable users, statements over the demo
// tables (dashboards, analysts, a nightly INSERT ... SELECT and a weekly
// CTAS that lineage can find), some failures, and one statement carrying a
// password, as real audit logs do. It returns the number of rows written.
// The demo calls it; tests that need a quiet audit log do not.
func (s *Server) SeedAuditHistory(ctx context.Context, now time.Time, days int) (int, error) {
	rows := auditHistory(now, days)
	for i := 0; i < len(rows); i += 200 {
		if err := ctx.Err(); err != nil {
			return i, err
		}
		j := min(i+200, len(rows))
		if err := s.adminExec("INSERT INTO __internal_schema.audit_log VALUES " + strings.Join(rows[i:j], ",\n")); err != nil {
			return i, fmt.Errorf("sim: seed audit history: %w", err)
		}
	}
	return len(rows), nil
}

// historyTemplate is one kind of statement in the demo history.
type historyTemplate struct {
	user, db, stmt, typ string
	query               bool
	ms, scan, ret       [2]int64
	hours               [2]int // hours of the day it runs in
	everyDays           int    // 0: any day; n: once every n days at the first hour
}

// historyTemplates are the demo's regular workload.
var historyTemplates = []historyTemplate{
	{user: "bi_dashboard", db: "demo", typ: "SELECT", query: true, ms: [2]int64{20, 400}, scan: [2]int64{3000, 5000}, ret: [2]int64{30, 31}, hours: [2]int{7, 20},
		stmt: "SELECT * FROM v_daily_sales ORDER BY sales_date DESC LIMIT 30"},
	{user: "bi_dashboard", db: "demo", typ: "SELECT", query: true, ms: [2]int64{300, 2500}, scan: [2]int64{5000, 5200}, ret: [2]int64{12, 13}, hours: [2]int{7, 20},
		stmt: "SELECT c.country, COUNT(*) AS orders, SUM(o.total_amount) AS revenue FROM orders o JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.country ORDER BY revenue DESC"},
	{user: "analyst_jane", db: "demo", typ: "SELECT", query: true, ms: [2]int64{800, 9000}, scan: [2]int64{12000, 17500}, ret: [2]int64{6, 7}, hours: [2]int{9, 18},
		stmt: "SELECT p.category, SUM(i.line_amount) AS revenue FROM order_items i JOIN products p ON p.product_id = i.product_id GROUP BY p.category"},
	{user: "analyst_jane", db: "demo", typ: "SELECT", query: true, ms: [2]int64{40, 600}, scan: [2]int64{200, 201}, ret: [2]int64{1, 50}, hours: [2]int{9, 18},
		stmt: "SELECT customer_id, full_name, segment, lifetime_value FROM customers WHERE segment = 'enterprise' ORDER BY lifetime_value DESC LIMIT 50"},
	{user: "analyst_omar", db: "demo", typ: "SELECT", query: true, ms: [2]int64{100, 1500}, scan: [2]int64{5000, 5001}, ret: [2]int64{1, 8}, hours: [2]int{10, 17},
		stmt: "SELECT status, COUNT(*) FROM orders WHERE order_date >= '2025-01-01' GROUP BY status"},
	{user: "analyst_omar", db: "demo", typ: "SELECT", query: true, ms: [2]int64{20, 200}, scan: [2]int64{1, 400}, ret: [2]int64{1, 400}, hours: [2]int{10, 17},
		stmt: "SELECT sales_date, revenue FROM daily_revenue ORDER BY sales_date DESC LIMIT 60"},
	{user: "etl_user", db: "demo", typ: "INSERT", ms: [2]int64{1500, 6000}, scan: [2]int64{5000, 5001}, hours: [2]int{2, 2}, everyDays: 1,
		stmt: "INSERT INTO demo.daily_revenue (sales_date, order_count, revenue) SELECT order_date, COUNT(*), SUM(total_amount) FROM demo.orders WHERE status NOT IN ('cancelled', 'returned') GROUP BY order_date"},
	{user: "etl_user", db: "demo", typ: "INSERT", ms: [2]int64{2500, 9000}, scan: [2]int64{17000, 17600}, hours: [2]int{3, 3}, everyDays: 1,
		stmt: "INSERT INTO demo.product_sales (product_id, units, revenue) SELECT i.product_id, SUM(i.quantity), SUM(i.line_amount) FROM demo.order_items i JOIN demo.orders o ON o.order_id = i.order_id GROUP BY i.product_id"},
	{user: "etl_user", db: "demo", typ: "CREATE", ms: [2]int64{3000, 12000}, scan: [2]int64{5200, 5300}, hours: [2]int{4, 4}, everyDays: 7,
		stmt: "CREATE TABLE demo.customer_ltv AS SELECT c.customer_id, c.segment, SUM(o.total_amount) AS ltv FROM demo.customers c JOIN demo.orders o ON o.customer_id = c.customer_id GROUP BY c.customer_id, c.segment"},
	{user: "mcp_reader", db: "demo", typ: "SELECT", query: true, ms: [2]int64{5, 80}, ret: [2]int64{1, 20}, hours: [2]int{8, 22},
		stmt: "SELECT TABLE_NAME, TABLE_TYPE, TABLE_ROWS FROM information_schema.tables WHERE TABLE_SCHEMA = 'demo'"},
	{user: "root", db: "", typ: "SHOW", ms: [2]int64{1, 20}, ret: [2]int64{1, 2}, hours: [2]int{0, 23},
		stmt: "SHOW BACKENDS"},
}

// auditHistory renders the history rows (3.0 column set), oldest first.
func auditHistory(now time.Time, days int) []string {
	r := rand.New(rand.NewPCG(20250601, uint64(days)))
	end := now.Truncate(time.Hour)
	start := end.Add(-time.Duration(days) * 24 * time.Hour)
	var rows []string
	id := int64(500000)
	add := func(t historyTemplate, at time.Time, state string, code int, msg string) {
		id++
		ms := t.ms[0] + r.Int64N(t.ms[1]-t.ms[0]+1)
		var scan, ret int64
		if t.scan[1] > 0 {
			scan = t.scan[0] + r.Int64N(t.scan[1]-t.scan[0]+1)
		}
		if t.ret[1] > 0 && state != "ERR" {
			ret = t.ret[0] + r.Int64N(t.ret[1]-t.ret[0]+1)
		}
		isQ := 0
		if t.query {
			isQ = 1
		}
		h := md5.Sum([]byte(t.stmt))
		d := md5.Sum([]byte(t.typ + "|" + t.db))
		rows = append(rows, fmt.Sprintf("(%s,'%s',%s,%s,'internal',%s,'%s',%d,%s,%d,%d,%d,%d,0,0,%d,0,%d,'%s',%d,1,'127.0.0.1',%d,'%s','%s',%d,'normal','',%s)",
			quoteString(fmt.Sprintf("%016x-%016x", r.Uint64(), r.Uint64())), at.Format("2006-01-02 15:04:05.000"),
			quoteString(fmt.Sprintf("10.0.%d.%d:%d", 1+r.IntN(3), 10+r.IntN(200), 40000+r.IntN(20000))), quoteString(t.user),
			quoteString(t.db), state, code, quoteString(msg), ms, scan*96, scan, ret, scan*96, id, t.typ, isQ,
			ms*(1+r.Int64N(4)), hex.EncodeToString(h[:]), hex.EncodeToString(d[:]), 8<<20+r.Int64N(512<<20), quoteString(t.stmt)))
	}
	for hour := start; hour.Before(end); hour = hour.Add(time.Hour) {
		day := int(hour.Sub(start) / (24 * time.Hour))
		weekend := hour.Weekday() == time.Saturday || hour.Weekday() == time.Sunday
		for _, t := range historyTemplates {
			if hour.Hour() < t.hours[0] || hour.Hour() > t.hours[1] {
				continue
			}
			n := 0
			switch {
			case t.everyDays > 0:
				if day%t.everyDays == t.everyDays-1 || t.everyDays == 1 {
					n = 1
				}
			case weekend:
				n = r.IntN(2)
			default:
				n = 1 + r.IntN(3)
			}
			for k := 0; k < n; k++ {
				at := hour.Add(time.Duration(r.Int64N(int64(time.Hour))))
				state, code, msg := "EOF", 0, ""
				if !t.query {
					state = "OK"
				}
				if r.IntN(40) == 0 {
					state, code, msg = "ERR", 1105, "errCode = 2, detailMessage = query is timeout, killed by timeout checker"
				}
				add(t, at, state, code, msg)
			}
		}
		// Once, on the first morning, an administrator creates a service
		// account: its password is in the audit log, as in real Doris
		// releases without statement masking.
		if day == 0 && hour.Hour() == 9 {
			add(historyTemplate{user: "root", typ: "CREATE", ms: [2]int64{5, 20},
				stmt: "CREATE USER 'svc_loader'@'%' IDENTIFIED BY 'Loader#2024!demo'"}, hour.Add(7*time.Minute), "OK", 0, "")
		}
	}
	return rows
}
