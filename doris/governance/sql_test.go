package governance

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

func edgeStrings(sh stmtShape) []string {
	var out []string
	for _, e := range sh.edges() {
		if e.sourceCol == "" {
			out = append(out, e.source.String()+" -> "+e.target.String())
			continue
		}
		out = append(out, fmt.Sprintf("%s.%s -> %s.%s (%s)", e.source, e.sourceCol, e.target, e.targetCol, e.dependency))
	}
	return out
}

func TestParseStatementLineage(t *testing.T) {
	tests := []struct {
		name, stmt string
		kind       string
		edges      []string
	}{
		{"insert select", "INSERT INTO demo.t (a, b) SELECT x, SUM(y) FROM demo.s GROUP BY x", "INSERT_SELECT", []string{
			"internal.demo.s -> internal.demo.t", "internal.demo.s.x -> internal.demo.t.a (direct)", "internal.demo.s.y -> internal.demo.t.b (expression)"}},
		{"session database", "insert into t select * from s", "INSERT_SELECT", []string{"internal.db.s -> internal.db.t"}},
		{"overwrite with partition and label", "INSERT OVERWRITE TABLE `demo`.`t` PARTITION(p1) WITH LABEL l1 (a) SELECT s.a FROM demo.s AS s",
			"INSERT_OVERWRITE", []string{"internal.demo.s -> internal.demo.t", "internal.demo.s.a -> internal.demo.t.a (direct)"}},
		{"joins and aliases", "INSERT INTO m (k, v) SELECT o.id, c.name FROM orders o JOIN customers c ON o.cid = c.id LEFT JOIN x.y z ON z.k = o.k",
			"INSERT_SELECT", []string{"internal.db.orders -> internal.db.m", "internal.db.customers -> internal.db.m", "internal.x.y -> internal.db.m",
				"internal.db.orders.id -> internal.db.m.k (direct)", "internal.db.customers.name -> internal.db.m.v (direct)"}},
		{"cte names are not tables", "INSERT INTO t WITH recent AS (SELECT * FROM demo.orders WHERE d > 1) SELECT * FROM recent JOIN demo.c ON 1 = 1",
			"INSERT_SELECT", []string{"internal.demo.orders -> internal.db.t", "internal.demo.c -> internal.db.t"}},
		{"subquery and comma join", "INSERT INTO t SELECT a FROM (SELECT a FROM hive.db2.src) q, demo.dim", "INSERT_SELECT",
			[]string{"internal.demo.dim -> internal.db.t", "hive.db2.src -> internal.db.t"}},
		{"table function is not a table", "INSERT INTO t SELECT * FROM s3(\"uri\" = \"s3://b/k\", \"format\" = \"csv\")", "INSERT_SELECT", nil},
		{"ctas", "CREATE TABLE IF NOT EXISTS demo.ltv PROPERTIES (\"replication_num\" = \"1\") AS SELECT c.id AS customer, SUM(o.amt) total FROM demo.c c JOIN demo.o o ON o.cid = c.id GROUP BY c.id",
			"CTAS", []string{"internal.demo.c -> internal.demo.ltv", "internal.demo.o -> internal.demo.ltv",
				"internal.demo.c.id -> internal.demo.ltv.customer (direct)", "internal.demo.o.amt -> internal.demo.ltv.total (expression)"}},
		{"ctas with columns", "CREATE TABLE t2 (a INT, b INT) AS SELECT x, y FROM s", "CTAS",
			[]string{"internal.db.s -> internal.db.t2", "internal.db.s.x -> internal.db.t2.x (direct)", "internal.db.s.y -> internal.db.t2.y (direct)"}},
		{"comments are skipped", "/* nightly */ INSERT INTO t -- target\n SELECT a FROM s", "INSERT_SELECT", []string{"internal.db.s -> internal.db.t"}},
		{"values is no lineage", "INSERT INTO t VALUES (1, 'a')", "", nil},
		{"plain select", "SELECT * FROM demo.orders", "", nil},
		{"create without as", "CREATE TABLE t (a INT)", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh, ok := parseStatement(tt.stmt, "", "db")
			if !ok || sh.kind != tt.kind {
				t.Fatalf("ok %v, kind %q, want %q", ok, sh.kind, tt.kind)
			}
			if got := edgeStrings(sh); !slices.Equal(got, tt.edges) {
				t.Fatalf("edges\n got %v\nwant %v", got, tt.edges)
			}
		})
	}
	if _, ok := parseStatement("INSERT INTO t SELECT 'unclosed FROM s", "", "db"); ok {
		t.Fatal("an unreadable statement was parsed")
	}
}

func TestStatementObjectsAndOperation(t *testing.T) {
	for _, tt := range []struct {
		stmt, op string
		objects  []string
	}{
		{"SELECT o.id FROM orders o JOIN demo.customers c USING (id)", "SELECT", []string{"internal.db.orders", "internal.demo.customers"}},
		{"(SELECT 1)", "SELECT", nil},
		{"  -- hi\n show tables", "SHOW", nil},
		{"WITH x AS (SELECT * FROM a) SELECT * FROM x", "WITH", []string{"internal.db.a"}},
		{"DELETE FROM t WHERE id IN (SELECT id FROM s)", "DELETE", []string{"internal.db.t", "internal.db.s"}},
		{"INSERT INTO t SELECT * FROM s", "INSERT", []string{"internal.db.t", "internal.db.s"}},
		{"", "UNKNOWN", nil},
	} {
		if got := statementOperation(tt.stmt); got != tt.op {
			t.Errorf("operation(%q) = %s, want %s", tt.stmt, got, tt.op)
		}
		if got := auditObjects(tt.stmt, "", "db"); !slices.Equal(got, tt.objects) {
			t.Errorf("objects(%q) = %v, want %v", tt.stmt, got, tt.objects)
		}
	}
}

// FuzzParseStatement: any text parses without panicking, and every edge
// names complete tables.
func FuzzParseStatement(f *testing.F) {
	for _, s := range []string{"INSERT INTO t (a) SELECT b FROM s", "CREATE TABLE x AS SELECT * FROM y JOIN z ON 1=1",
		"INSERT INTO t WITH c AS (SELECT 1) SELECT * FROM c, (SELECT 2) q", "SELECT a FROM (((t)))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, _ := parseStatement(s, "", "db")
		for _, e := range sh.edges() {
			for _, o := range []objName{e.source, e.target} {
				if o.catalog == "" || o.db == "" || o.table == "" {
					t.Fatalf("incomplete object %+v from %q", o, s)
				}
			}
		}
		_ = statementOperation(s)
		_ = strings.Join(auditObjects(s, "c", "d"), ",")
	})
}

func BenchmarkSanitizeStatement(b *testing.B) {
	stmt := `INSERT INTO demo.daily_revenue (sales_date, order_count, revenue) SELECT order_date, COUNT(*), SUM(total_amount) ` +
		`FROM demo.orders WHERE status NOT IN ('cancelled', 'returned') AND note <> "x" /* nightly */ GROUP BY order_date`
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		doris.SanitizeStatement(stmt, maxAuditStmtChars)
	}
}

func BenchmarkParseStatement(b *testing.B) {
	stmt := "INSERT INTO demo.product_sales (product_id, units, revenue) SELECT i.product_id, SUM(i.quantity), SUM(i.line_amount) " +
		"FROM demo.order_items i JOIN demo.orders o ON o.order_id = i.order_id GROUP BY i.product_id"
	b.SetBytes(int64(len(stmt)))
	for b.Loop() {
		sh, _ := parseStatement(stmt, "internal", "demo")
		sh.edges()
	}
}
