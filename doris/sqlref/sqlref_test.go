package sqlref

import (
	"slices"
	"strings"
	"testing"
)

func joined(parts [][]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, strings.Join(p, "."))
	}
	return out
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		name, sql string
		op        string
		kind      Kind
		target    string
		fromQuery bool
		sources   []string
	}{
		{"function FROM", "SELECT EXTRACT(YEAR FROM ts), TRIM(BOTH 'x' FROM name), SUBSTRING(s FROM 2 FOR 3) FROM t1", "SELECT", None, "", false, []string{"t1"}},
		{"insert select with extract", "INSERT INTO t2 SELECT EXTRACT(YEAR FROM ts), a FROM t1", "INSERT", Insert, "t2", true, []string{"t1"}},
		{"show from db", "SHOW TABLES FROM demo", "SHOW", None, "", false, nil},
		{"show columns", "SHOW FULL COLUMNS FROM orders FROM demo", "SHOW", None, "", false, nil},
		{"revoke", "REVOKE SELECT_PRIV ON demo.t FROM 'u'@'%'", "REVOKE", None, "", false, nil},
		{"cancel load", "CANCEL LOAD FROM demo WHERE LABEL = 'l'", "CANCEL", None, "", false, nil},
		{"derived then comma", "SELECT * FROM (SELECT a FROM hive.db2.src) q, demo.dim", "SELECT", None, "", false, []string{"demo.dim", "hive.db2.src"}},
		{"subquery in function", "SELECT COALESCE((SELECT MAX(v) FROM m), 0) FROM n", "SELECT", None, "", false, []string{"m", "n"}},
		{"parenthesised", "(SELECT a FROM t) UNION (SELECT a FROM u)", "SELECT", None, "", false, []string{"t", "u"}},
		{"insert values", "INSERT INTO t VALUES (1, 'FROM x')", "INSERT", Insert, "t", false, nil},
		{"self insert", "INSERT INTO t SELECT * FROM t JOIN s", "INSERT", Insert, "t", true, []string{"s"}},
		{"ctas", "CREATE TABLE t2 PROPERTIES ('a' = 'b') AS SELECT * FROM t1", "CREATE", CTAS, "t2", true, []string{"t1"}},
		{"create table", "CREATE TABLE t2 (a INT) DISTRIBUTED BY HASH(a)", "CREATE", None, "", false, nil},
		{"mv", "CREATE MATERIALIZED VIEW mv REFRESH AUTO ON MANUAL AS SELECT k FROM t", "CREATE", CreateMV, "mv", false, []string{"t"}},
		{"view", "CREATE VIEW v (a) AS SELECT a FROM b", "CREATE", CreateView, "v", false, []string{"b"}},
		{"routine load", "CREATE ROUTINE LOAD db.j ON ev FROM KAFKA ('kafka_topic' = 't')", "CREATE", RoutineLoad, "ev", false, nil},
		{"delete", "DELETE FROM t WHERE id IN (SELECT id FROM s)", "DELETE", None, "", false, []string{"t", "s"}},
		{"lateral view", "SELECT x FROM t LATERAL VIEW explode(a) tmp AS x", "SELECT", None, "", false, []string{"t"}},
		{"cte", "WITH c AS (SELECT * FROM base) SELECT * FROM c JOIN real2", "WITH", None, "", false, []string{"base", "real2"}},
		{"empty", "", "UNKNOWN", None, "", false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, ok := Parse(tt.sql)
			if !ok {
				t.Fatal("not read")
			}
			if st.Operation != tt.op || st.Kind != tt.kind || strings.Join(st.Target, ".") != tt.target ||
				st.FromQuery != tt.fromQuery || !slices.Equal(joined(st.Sources), tt.sources) {
				t.Fatalf("got %s %q %q %v %v", st.Operation, st.Kind, strings.Join(st.Target, "."), st.FromQuery, joined(st.Sources))
			}
		})
	}
	if _, ok := Parse("SELECT 'unclosed FROM t"); ok {
		t.Fatal("unreadable SQL read")
	}
}

func TestItems(t *testing.T) {
	st, _ := Parse("INSERT INTO t2 (y, a, c) SELECT EXTRACT(YEAR FROM ts) AS yr, a, o.c + 1 FROM t1 o")
	if len(st.Items) != 3 || st.Items[0].Name != "yr" || !slices.Equal(joined(st.Items[0].Refs), []string{"ts"}) ||
		!st.Items[1].Bare || st.Items[1].Name != "a" || !slices.Equal(joined(st.Items[2].Refs), []string{"o.c"}) {
		t.Fatalf("items %+v", st.Items)
	}
	if o := st.Aliases["o"]; !slices.Equal(o, []string{"t1"}) {
		t.Fatalf("alias o = %v", o)
	}
	if !slices.Equal(st.TargetColumns, []string{"y", "a", "c"}) {
		t.Fatalf("target columns %v", st.TargetColumns)
	}
}

// FuzzParse: any text is read without panicking, and every name it
// reports has 1 to 3 non-empty parts that appear in the text.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"INSERT INTO t (a) SELECT b FROM s", "SELECT EXTRACT(YEAR FROM x) FROM (SELECT 1 FROM y) q, z",
		"SHOW TABLES FROM d", "WITH c AS (SELECT 1) SELECT * FROM c", "SELECT a FROM (((t)))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st, _ := Parse(s)
		for _, n := range append(st.Sources, st.Target) {
			if len(n) > 3 {
				t.Fatalf("name %v from %q", n, s)
			}
		}
		_ = Operation(s)
	})
}
