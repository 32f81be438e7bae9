package sim_test

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// scratchDB creates a database directly in MariaDB (not through the
// simulator) for one test, and drops it afterwards.
func scratchDB(t *testing.T, root *sql.DB, name string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	all := append([]string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name}, stmts...)
	for _, s := range all {
		if _, err := root.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	t.Cleanup(func() { root.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name) })
}

// dorisTrunc is Doris's DATE_TRUNC, written from its definition (weeks
// start on Monday), independently of the SQL under test.
func dorisTrunc(ts time.Time, unit string) time.Time {
	y, m, d := ts.Date()
	switch unit {
	case "second":
		return ts.Truncate(time.Second)
	case "minute":
		return time.Date(y, m, d, ts.Hour(), ts.Minute(), 0, 0, time.UTC)
	case "hour":
		return time.Date(y, m, d, ts.Hour(), 0, 0, 0, time.UTC)
	case "day":
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case "week":
		return time.Date(y, m, d-(int(ts.Weekday())+6)%7, 0, 0, 0, 0, time.UTC)
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		return time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	panic(unit)
}

func TestDateTruncTranslation(t *testing.T) {
	s, in := startSim(t, "3.0")
	values := []string{
		"2024-12-29 13:45:12", // a Sunday: its week starts on Monday the 23rd
		"2024-12-30 00:00:00", // a Monday at midnight
		"2025-01-01 23:59:59", // new year, same week as 2024-12-30
		"2024-03-31 10:11:12", // last day of Q1
		"2024-04-01 00:00:00", // first instant of Q2
		"2024-02-29 12:34:56", // leap day
		"2024-10-06 08:00:00", // a Sunday in Q4
	}
	var rows []string
	for i, v := range values {
		rows = append(rows, fmt.Sprintf("(%d, '%s', '%s')", i, v, v[:10]))
	}
	scratchDB(t, in.Root(), "tr_dt",
		"CREATE TABLE tr_dt.t (id INT, ts DATETIME NULL, d DATE NULL)",
		"INSERT INTO tr_dt.t VALUES "+strings.Join(rows, ", ")+", (99, NULL, NULL)")
	db := root(t, s, in)
	for _, unit := range []string{"second", "minute", "hour", "day", "week", "month", "quarter", "year"} {
		t.Run(unit, func(t *testing.T) {
			r := mustQuery(t, db, "SELECT id, DATE_TRUNC(ts, '"+unit+"'), DATE_TRUNC(CAST(ts AS DATETIME), '"+
				strings.ToUpper(unit)+"'), DATE_TRUNC(CAST(d AS DATE), '"+unit+"') FROM tr_dt.t ORDER BY id")
			if len(r.rows) != len(values)+1 {
				t.Fatalf("got %d rows, want %d", len(r.rows), len(values)+1)
			}
			for i, v := range values {
				ts, _ := time.Parse("2006-01-02 15:04:05", v)
				want := dorisTrunc(ts, unit).Format("2006-01-02 15:04:05")
				if got := r.rows[i][1].String; got != want {
					t.Errorf("DATE_TRUNC('%s', '%s') = %s, want %s", v, unit, got, want)
				}
				if got := r.rows[i][2].String; got != want {
					t.Errorf("DATE_TRUNC(CAST('%s' AS DATETIME), '%s') = %s, want %s", v, strings.ToUpper(unit), got, want)
				}
				day, _ := time.Parse("2006-01-02", v[:10])
				wantDate := dorisTrunc(day, unit).Format("2006-01-02")
				if got := r.rows[i][3].String; got != wantDate {
					t.Errorf("DATE_TRUNC(CAST('%s' AS DATE), '%s') = %s, want the DATE %s", v[:10], unit, got, wantDate)
				}
			}
			last := r.rows[len(values)]
			if last[1].Valid || last[2].Valid || last[3].Valid {
				t.Errorf("DATE_TRUNC(NULL) = %v, want NULL", last)
			}
		})
	}
	t.Run("nested and in GROUP BY", func(t *testing.T) {
		r := mustQuery(t, db, "SELECT DATE_TRUNC(DATE_TRUNC(ts, 'day'), 'month') AS m, COUNT(*) FROM tr_dt.t "+
			"WHERE ts IS NOT NULL GROUP BY DATE_TRUNC(DATE_TRUNC(ts, 'day'), 'month') ORDER BY m")
		got := fmt.Sprint(r.rows)
		want := fmt.Sprint([][]sql.NullString{
			{ns("2024-02-01 00:00:00"), ns("1")}, {ns("2024-03-01 00:00:00"), ns("1")}, {ns("2024-04-01 00:00:00"), ns("1")},
			{ns("2024-10-01 00:00:00"), ns("1")}, {ns("2024-12-01 00:00:00"), ns("2")}, {ns("2025-01-01 00:00:00"), ns("1")},
		})
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
}

func ns(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }

// fjRow is one row of a full outer join of a(k, v) and b(k, w).
type fjRow struct{ ak, v, bk, w *int }

func ip(i int) *int { return &i }

func (r fjRow) String() string {
	f := func(p *int) string {
		if p == nil {
			return "NULL"
		}
		return fmt.Sprint(*p)
	}
	return f(r.ak) + "," + f(r.v) + "|" + f(r.bk) + "," + f(r.w)
}

// fullJoin computes a FULL OUTER JOIN b ON a.k = b.k from its definition:
// the matching pairs, the unmatched rows of a, the unmatched rows of b.
// NULL keys never match.
func fullJoin(a, b [][2]*int) []string {
	var out []string
	matchedB := make([]bool, len(b))
	for _, x := range a {
		hit := false
		for j, y := range b {
			if x[0] != nil && y[0] != nil && *x[0] == *y[0] {
				hit, matchedB[j] = true, true
				out = append(out, fjRow{x[0], x[1], y[0], y[1]}.String())
			}
		}
		if !hit {
			out = append(out, fjRow{x[0], x[1], nil, nil}.String())
		}
	}
	for j, y := range b {
		if !matchedB[j] {
			out = append(out, fjRow{nil, nil, y[0], y[1]}.String())
		}
	}
	sort.Strings(out)
	return out
}

func values(rows [][2]*int) string {
	var parts []string
	for _, r := range rows {
		f := func(p *int) string {
			if p == nil {
				return "NULL"
			}
			return fmt.Sprint(*p)
		}
		parts = append(parts, "("+f(r[0])+", "+f(r[1])+")")
	}
	return strings.Join(parts, ", ")
}

func TestFullOuterJoinTranslation(t *testing.T) {
	s, in := startSim(t, "3.0")
	a := [][2]*int{{ip(1), ip(10)}, {ip(2), ip(20)}, {ip(2), ip(21)}, {ip(3), ip(30)}, {nil, ip(40)}, {nil, nil}}
	b := [][2]*int{{ip(2), ip(200)}, {ip(2), ip(201)}, {ip(4), ip(400)}, {nil, ip(500)}, {ip(1), nil}}
	scratchDB(t, in.Root(), "tr_fj",
		"CREATE TABLE tr_fj.a (k INT NULL, v INT NULL)",
		"CREATE TABLE tr_fj.b (k INT NULL, w INT NULL)",
		"CREATE TABLE tr_fj.e (k INT NULL, w INT NULL)",
		"INSERT INTO tr_fj.a VALUES "+values(a),
		"INSERT INTO tr_fj.b VALUES "+values(b))
	db := root(t, s, in)
	got := func(t *testing.T, q string) []string {
		t.Helper()
		r := mustQuery(t, db, q)
		var out []string
		for _, row := range r.rows {
			var parts []string
			for _, c := range row {
				if c.Valid {
					parts = append(parts, c.String)
				} else {
					parts = append(parts, "NULL")
				}
			}
			out = append(out, parts[0]+","+parts[1]+"|"+parts[2]+","+parts[3])
		}
		sort.Strings(out)
		return out
	}
	cases := []struct {
		name string
		sql  string
		want []string
	}{
		{"FULL OUTER JOIN of tables", "SELECT a.k, a.v, b.k, b.w FROM tr_fj.a AS a FULL OUTER JOIN tr_fj.b AS b ON a.k = b.k", fullJoin(a, b)},
		{"FULL JOIN without OUTER", "SELECT a.k, a.v, b.k, b.w FROM tr_fj.a a FULL JOIN tr_fj.b b ON a.k = b.k", fullJoin(a, b)},
		{"swapped sides", "SELECT a.k, a.v, b.k, b.w FROM tr_fj.b AS b FULL OUTER JOIN tr_fj.a AS a ON b.k = a.k", fullJoin(a, b)},
		{"empty right side", "SELECT a.k, a.v, b.k, b.w FROM tr_fj.a AS a FULL OUTER JOIN tr_fj.e AS b ON a.k = b.k", fullJoin(a, nil)},
		{"empty left side", "SELECT a.k, a.w, b.k, b.w FROM tr_fj.e AS a FULL OUTER JOIN tr_fj.b AS b ON a.k = b.k", fullJoin(nil, b)},
		{"derived tables, then WHERE", "SELECT x.k, x.v, y.k, y.w FROM (SELECT k, v FROM tr_fj.a) AS x FULL OUTER JOIN (SELECT k, w FROM tr_fj.b) AS y ON x.k = y.k WHERE x.k IS NULL OR y.k IS NULL",
			filterRows(fullJoin(a, b), func(r string) bool { return strings.HasPrefix(r, "NULL,") || strings.Contains(r, "|NULL,") })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if g := got(t, c.sql); strings.Join(g, " ") != strings.Join(c.want, " ") {
				t.Errorf("got  %v\nwant %v", g, c.want)
			}
		})
	}

	t.Run("chain of three with COALESCE keys and GROUP BY", func(t *testing.T) {
		// The shape the MetricFlow provider writes: aggregated inputs joined
		// on their group-by, then grouped on the coalesced key.
		q := "SELECT COALESCE(q0.k, q1.k, q2.k) AS k, MAX(q0.s) AS s0, MAX(q1.s) AS s1, MAX(q2.s) AS s2 " +
			"FROM (SELECT k, SUM(v) AS s FROM tr_fj.a GROUP BY k) AS q0 " +
			"FULL OUTER JOIN (SELECT k, SUM(w) AS s FROM tr_fj.b GROUP BY k) AS q1 ON q0.k = q1.k " +
			"FULL OUTER JOIN (SELECT k, COUNT(*) AS s FROM tr_fj.b WHERE w IS NOT NULL GROUP BY k) AS q2 ON COALESCE(q0.k, q1.k) = q2.k " +
			"GROUP BY COALESCE(q0.k, q1.k, q2.k) ORDER BY k"
		r := mustQuery(t, db, q)
		var g []string
		for _, row := range r.rows {
			var parts []string
			for _, c := range row {
				if c.Valid {
					parts = append(parts, c.String)
				} else {
					parts = append(parts, "NULL")
				}
			}
			g = append(g, strings.Join(parts, ","))
		}
		// Per key: SUM(a.v), SUM(b.w), COUNT(b with w); the NULL-key groups
		// of all three meet under the NULL key.
		want := []string{"NULL,40,500,1", "1,10,NULL,NULL", "2,41,401,2", "3,30,NULL,NULL", "4,NULL,400,1"}
		if strings.Join(g, " ") != strings.Join(want, " ") {
			t.Errorf("got  %v\nwant %v", g, want)
		}
	})

	t.Run("untouched without a full join", func(t *testing.T) {
		r := mustQuery(t, db, "SELECT COUNT(*) FROM tr_fj.a LEFT JOIN tr_fj.b ON a.k = b.k")
		if r.rows[0][0].String != "8" {
			t.Errorf("LEFT JOIN count = %s, want 8", r.rows[0][0].String)
		}
	})
}

func filterRows(rows []string, keep func(string) bool) []string {
	var out []string
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}
