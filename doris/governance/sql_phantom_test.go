package governance

import (
	"slices"
	"testing"
)

// TestNoPhantomTables: a FROM inside a function's arguments, or in a
// statement that names no relation there (SHOW, REVOKE, CANCEL), is not a
// table; the lineage of the statement names t1 alone.
func TestNoPhantomTables(t *testing.T) {
	for _, tt := range []struct {
		stmt    string
		objects []string
	}{
		{"SELECT EXTRACT(YEAR FROM ts), TRIM(BOTH 'x' FROM name), SUBSTRING(s FROM 2) FROM t1", []string{"internal.demo.t1"}},
		{"SHOW TABLES FROM demo", nil},
		{"SHOW COLUMNS FROM orders FROM demo", nil},
		{"SHOW FULL PROCESSLIST", nil},
		{"SHOW LOAD FROM demo WHERE LABEL = 'x'", nil},
		{"REVOKE SELECT_PRIV ON demo.orders FROM 'u'", nil},
		{"CANCEL LOAD FROM demo WHERE LABEL = 'x'", nil},
		{"SELECT * FROM (SELECT a FROM hive.db2.src) q, dim WHERE EXISTS (SELECT 1 FROM e WHERE e.k = EXTRACT(DAY FROM q.d))",
			[]string{"internal.demo.dim", "hive.db2.src", "internal.demo.e"}},
		{"SELECT COALESCE((SELECT MAX(v) FROM m), 0)", []string{"internal.demo.m"}},
	} {
		if got := auditObjects(tt.stmt, "internal", "demo"); !slices.Equal(got, tt.objects) {
			t.Errorf("objects(%q) = %v, want %v", tt.stmt, got, tt.objects)
		}
	}
	sh, ok := parseStatement("INSERT INTO t2 SELECT EXTRACT(YEAR FROM ts), a FROM t1", "internal", "demo")
	if !ok || sh.kind != "INSERT_SELECT" {
		t.Fatalf("ok %v kind %q", ok, sh.kind)
	}
	if got, want := edgeStrings(sh), []string{"internal.demo.t1 -> internal.demo.t2"}; !slices.Equal(got, want) {
		t.Fatalf("edges %v, want %v", got, want)
	}
	sh, _ = parseStatement("INSERT INTO t2 (y, a) SELECT EXTRACT(YEAR FROM ts), a FROM t1", "internal", "demo")
	want := []string{"internal.demo.t1 -> internal.demo.t2", "internal.demo.t1.ts -> internal.demo.t2.y (expression)",
		"internal.demo.t1.a -> internal.demo.t2.a (direct)"}
	if got := edgeStrings(sh); !slices.Equal(got, want) {
		t.Fatalf("edges %v, want %v", got, want)
	}
}
