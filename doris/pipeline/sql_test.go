package pipeline

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

func TestParseSQLRefs(t *testing.T) {
	tests := []struct {
		name, sql string
		kind      string
		target    string
		sources   []string
	}{
		{"select", "SELECT a FROM t WHERE b = 1", "", "", []string{"t"}},
		{"qualified and quoted", "SELECT * FROM `internal`.`demo`.`orders` o JOIN demo.customers AS c ON o.id = c.id", "", "",
			[]string{"internal.demo.orders", "demo.customers"}},
		{"from list", "SELECT * FROM a x, b, c AS z WHERE 1", "", "", []string{"a", "b", "c"}},
		{"insert select", "INSERT INTO db.t (a, b) SELECT a, b FROM s WHERE a > 0", "insert", "db.t", []string{"s"}},
		{"insert with label", "INSERT INTO t WITH LABEL l1 SELECT * FROM s", "insert", "t", []string{"s"}},
		{"insert overwrite", "INSERT OVERWRITE TABLE t SELECT * FROM s1 UNION ALL SELECT * FROM s2", "insert_overwrite", "t", []string{"s1", "s2"}},
		{"insert values", "INSERT INTO t VALUES (1, 'FROM x')", "insert", "t", nil},
		{"view", "CREATE VIEW v AS SELECT * FROM base WHERE note <> 'JOIN secret'", "create_view", "v", []string{"base"}},
		{"or replace view", "create or replace view db.v (a) as select a from db.base", "create_view", "db.v", []string{"db.base"}},
		{"mv", "CREATE MATERIALIZED VIEW mv BUILD IMMEDIATE REFRESH AUTO ON MANUAL AS SELECT k, COUNT(*) FROM t GROUP BY k",
			"create_materialized_view", "mv", []string{"t"}},
		{"ctas", "CREATE TABLE IF NOT EXISTS t2 PROPERTIES ('replication_num' = '1') AS SELECT * FROM t1", "ctas", "t2", []string{"t1"}},
		{"create table without select", "CREATE TABLE t2 (a INT) DISTRIBUTED BY HASH(a)", "", "", nil},
		{"broker load", "LOAD LABEL db.l1 (DATA INFILE('s3://b/x') INTO TABLE tgt COLUMNS TERMINATED BY ',') WITH S3 ('s3.secret_key' = 'x')",
			"broker_load", "tgt", nil},
		{"routine load", "CREATE ROUTINE LOAD db.job1 ON events COLUMNS TERMINATED BY ',' FROM KAFKA ('kafka_topic' = 't')", "routine_load", "events", nil},
		{"function FROM", "SELECT EXTRACT(YEAR FROM ts), TRIM(BOTH 'x' FROM name) FROM real_table", "", "", []string{"real_table"}},
		{"subquery", "SELECT * FROM (SELECT a FROM inner_t) q WHERE a IN (SELECT b FROM other)", "", "", []string{"inner_t", "other"}},
		{"cte", "WITH c AS (SELECT * FROM base), d (x) AS (SELECT 1) SELECT * FROM c JOIN d JOIN real2", "", "", []string{"base", "real2"}},
		{"table function", "SELECT * FROM s3('uri' = 's3://x', 's3.secret_key' = 'k') JOIN numbers('number' = '5') n", "", "", nil},
		{"comment", "SELECT 1 FROM t /* FROM hidden */ -- JOIN hidden2\n", "", "", []string{"t"}},
		{"mariadb view definition", "select `o`.`order_date` AS `d`,count(0) AS `n` from `demo`.`orders` `o` where `o`.`status` not in ('a','b') group by `o`.`order_date`",
			"", "", []string{"demo.orders"}},
		{"left join", "SELECT * FROM a LEFT JOIN b ON a.id = b.id LEFT OUTER JOIN c USING (id)", "", "", []string{"a", "b", "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			refs, ok := parseSQLRefs(tc.sql)
			if !ok {
				t.Fatal("not read")
			}
			var sources []string
			for _, s := range refs.Sources {
				sources = append(sources, strings.Join(s, "."))
			}
			if refs.Kind != tc.kind || strings.Join(refs.Target, ".") != tc.target || !slices.Equal(sources, tc.sources) {
				t.Fatalf("got %q %q %q, want %q %q %q", refs.Kind, strings.Join(refs.Target, "."), sources, tc.kind, tc.target, tc.sources)
			}
		})
	}
	if _, ok := parseSQLRefs("SELECT 'unclosed"); ok {
		t.Fatal("unreadable SQL read")
	}
}

func TestRedactSQL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"CREATE USER u IDENTIFIED BY 'p@ss'", "CREATE USER u IDENTIFIED BY '***'"},
		{`SELECT * FROM s3("uri" = "s3://ak:sk@b/x", "s3.secret_key" = "abc")`, `SELECT * FROM s3('***' = '***', '***' = '***')`},
		{"SELECT 1 /* password=hunter2 */ FROM t -- token x\n", "SELECT 1   FROM t  "},
		{"SELECT 2//**/*3", "SELECT 2/ *3"},
		{"SELECT /*+ SET_VAR(query_timeout=10) */ 1", "SELECT /*+ SET_VAR(query_timeout=10) */ 1"},
		{"SELECT /*+ SET_VAR(a='secret') */ 1", "SELECT /*+ *** */ 1"},
		{"SELECT x'DEADBEEF', r'raw'", "SELECT '***', '***'"},
		{"SELECT 'unclosed", doris.WithheldStatement},
		{"SELECT `a'b` FROM t", "SELECT `a'b` FROM t"},
	}
	for _, tc := range tests {
		if got := doris.RedactSQL(tc.in); got != tc.want {
			t.Errorf("redactSQL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactText(t *testing.T) {
	tests := []struct {
		in     string
		secret string
		keep   string
	}{
		{"connect mysql://admin:Pa55word@10.0.0.1:3306/db failed", "Pa55word", "mysql://***@10.0.0.1"},
		{`property "s3.secret_key" = "wJalrXUtnFEMI/K7MDENG" is invalid`, "wJalrXUtnFEMI", "s3.secret_key"},
		{"password=hunter2, user=bob", "hunter2", "user=bob"},
		{"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "eyJhbGciOiJIUzI1NiJ9", "Bearer ***"},
		{"key AKIAIOSFODNN7EXAMPLE leaked", "AKIAIOSFODNN7EXAMPLE", "leaked"},
		{"CREATE USER x IDENTIFIED BY 'topsecret'", "topsecret", "IDENTIFIED BY"},
		{"[DATA_QUALITY_ERROR]too many filtered rows", "", "[DATA_QUALITY_ERROR]too many filtered rows"},
		{"Duplicate entry 'alice@example.com' for key 'uk_email'", "alice@example.com", "for key 'uk_email'"},
		{"Incorrect integer value: 'x9' for column `id`", "x9", "for column `id`"},
	}
	for _, tc := range tests {
		got := doris.RedactText(tc.in)
		if tc.secret != "" && strings.Contains(got, tc.secret) || !strings.Contains(got, tc.keep) {
			t.Errorf("redactText(%q) = %q", tc.in, got)
		}
	}
}

func TestJavaMapProperties(t *testing.T) {
	got := doris.JavaMapProperties("{grace_period=60, replication_num=1, s3.secret_key=abc, excluded_trigger_tables=a,b, x=y=z}")
	want := map[string]any{"grace_period": "60", "replication_num": "1", "s3.secret_key": "***",
		"excluded_trigger_tables": "a,b", "x": "***"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: got %v, want %v", k, got[k], v)
		}
	}
	if len(doris.JavaMapProperties("{}")) != 0 {
		t.Fatal("empty map")
	}
}

func TestParseObjectArg(t *testing.T) {
	for in, want := range map[string]string{"t": "t", "db.t": "db.t", "`my db`.`t`": "my db.t", "c.db.t": "c.db.t", "a . b": "a.b"} {
		got, ok := parseObjectArg(in)
		if !ok || strings.Join(got, ".") != want {
			t.Errorf("parseObjectArg(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "a.b.c.d", "a..b", "'t'", "a;b", "t--x", "a.", ".a", "a b"} {
		if got, ok := parseObjectArg(bad); ok {
			t.Errorf("parseObjectArg(%q) = %q, want refusal", bad, got)
		}
	}
}

func TestDorisTime(t *testing.T) {
	for in, want := range map[string]any{"2025-01-02 03:04:05": "2025-01-02T03:04:05", "2025-01-02 03:04:05.123": "2025-01-02T03:04:05.123",
		"N/A": nil, "": nil, "NULL": nil, "weird": "weird"} {
		if got := dorisTime(in); got != want {
			t.Errorf("dorisTime(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzRedactSQL: whatever the input, the redacted text keeps no string
// literal's content and no comment's content, and is itself readable.
func FuzzRedactSQL(f *testing.F) {
	for _, s := range []string{"SELECT 'a'", "CREATE USER u IDENTIFIED BY 'p'", "SELECT 1 /* c */", `SELECT "x" FROM t -- c` + "\n",
		"SELECT r'a\\b', x'00'", "SELECT /*+ SET_VAR(a='b') */ 1", "INSERT INTO t VALUES ('it''s', \"q\\\"\")"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := doris.RedactSQL(in)
		toks, err := guard.Scan(in)
		if err != nil {
			if out != doris.WithheldStatement {
				t.Fatalf("unreadable input not withheld: %q -> %q", in, out)
			}
			return
		}
		outToks, err := guard.Scan(out)
		if err != nil {
			t.Fatalf("redacted text unreadable: %q -> %q: %v", in, out, err)
		}
		for _, tk := range outToks {
			if tk.Kind == guard.TokComment {
				t.Fatalf("comment survived: %q -> %q", in, out)
			}
			if tk.Kind == guard.TokString && tk.Text != "'***'" {
				t.Fatalf("literal survived: %q -> %q", in, out)
			}
		}
		strs := 0
		for _, tk := range toks {
			if tk.Kind == guard.TokString {
				strs++
			}
		}
		if n := strings.Count(out, "'***'"); n < strs {
			t.Fatalf("%d literals, %d masks: %q -> %q", strs, n, in, out)
		}
	})
}

// FuzzParseSQLRefs: never panics, and every name it reports appears in
// the input as an identifier token.
func FuzzParseSQLRefs(f *testing.F) {
	for _, s := range []string{"SELECT * FROM a JOIN b", "INSERT INTO t SELECT * FROM s", "WITH c AS (SELECT 1) SELECT * FROM c",
		"CREATE VIEW v AS SELECT * FROM `x`.`y`", "LOAD LABEL l (DATA INFILE('x') INTO TABLE t)", "SELECT EXTRACT(YEAR FROM d) FROM t",
		"SELECT * FROM (((", "FROM , , JOIN"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		refs, ok := parseSQLRefs(in)
		if !ok {
			return
		}
		toks, _ := guard.Scan(in)
		names := map[string]bool{}
		for _, tk := range toks {
			switch tk.Kind {
			case guard.TokWord:
				names[tk.Text] = true
			case guard.TokQuoted:
				names[strings.ReplaceAll(tk.Text[1:len(tk.Text)-1], "``", "`")] = true
			}
		}
		for _, parts := range append(refs.Sources, refs.Target) {
			if len(parts) > 3 {
				t.Fatalf("%d-part name from %q", len(parts), in)
			}
			for _, p := range parts {
				if !names[p] {
					t.Fatalf("name %q is not an identifier of %q", p, in)
				}
			}
		}
	})
}

// A typical audited load statement and a MariaDB-expanded view definition.
const (
	benchInsert = "INSERT INTO demo.daily_revenue WITH LABEL rev_20250101 SELECT o.order_date, SUM(i.line_amount) FROM demo.orders o " +
		"JOIN demo.order_items i ON i.order_id = o.order_id WHERE o.status NOT IN ('cancelled', 'returned') AND o.note <> 'token=abc' " +
		"GROUP BY o.order_date"
	benchView = "select `o`.`order_date` AS `sales_date`,count(0) AS `orders`,sum(`o`.`total_amount`) AS `revenue` from `demo`.`orders` `o` " +
		"where `o`.`status` not in ('cancelled','returned') group by `o`.`order_date`"
)

func BenchmarkParseSQLRefs(b *testing.B) {
	for _, s := range []struct{ name, sql string }{{"insert", benchInsert}, {"view", benchView}} {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.sql)))
			for b.Loop() {
				if _, ok := parseSQLRefs(s.sql); !ok {
					b.Fatal("not read")
				}
			}
		})
	}
}

func BenchmarkRedactSQL(b *testing.B) {
	b.SetBytes(int64(len(benchInsert)))
	for b.Loop() {
		doris.RedactSQL(benchInsert)
	}
}

func BenchmarkTraverse(b *testing.B) {
	// A chain of 500 tables, each read by the next: the edge cap.
	var edges []*dependencyEdge
	for i := range 500 {
		edges = append(edges, &dependencyEdge{Source: objectName{"internal", "d", "t" + strconv.Itoa(i)},
			Target: objectName{"internal", "d", "t" + strconv.Itoa(i+1)}, EvidenceSources: []string{"views"}})
	}
	root := objectName{"internal", "d", "t250"}
	for b.Loop() {
		traverseDependencies(edges, root, "both", pipelineMaxDepth)
	}
}
