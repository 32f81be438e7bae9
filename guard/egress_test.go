package guard_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// spellings returns the ways Doris's lexer lets a caller write a call of
// the table function fn: any case, backquoted, comments between name and
// parenthesis, a qualifying prefix, nested in a subquery, a CTE, EXPLAIN
// and DESCRIBE FUNCTION.
func spellings(fn, args string) []string {
	up := strings.ToUpper(fn)
	return []string{
		"SELECT * FROM " + fn + "(" + args + ")",
		"select * from " + up + "(" + args + ") t",
		"SELECT * FROM `" + fn + "`(" + args + ")",
		"SELECT * FROM `" + up + "`(" + args + ")",
		"SELECT * FROM /* a */ " + fn + " /* b */ (" + args + ")",
		"SELECT * FROM " + fn + " -- c\n(" + args + ")",
		"SELECT * FROM internal." + fn + "(" + args + ")",
		"SELECT * FROM t, " + fn + "(" + args + ") x",
		"SELECT * FROM t JOIN " + fn + "(" + args + ") x ON 1 = 1",
		"SELECT * FROM (SELECT * FROM " + fn + "(" + args + ")) x",
		"WITH c AS (SELECT * FROM " + fn + "(" + args + ")) SELECT * FROM c",
		"EXPLAIN SELECT * FROM " + fn + "(" + args + ")",
		"DESC FUNCTION " + fn + "(" + args + ")",
		"SELECT /*+ ordered */ * FROM " + fn + "(" + args + ");",
	}
}

var egressCases = []struct{ fn, args string }{
	{"http", `"uri" = "http://169.254.169.254/latest/meta-data/", "format" = "csv"`},
	{"http_stream", `"format" = "csv"`},
	{"local", `"file_path" = "conf/be.conf", "backend_id" = "10001", "format" = "csv"`},
	{"file", `"file_path" = "/etc/passwd", "format" = "csv"`},
	{"parquet_meta", `"uri" = "file:///opt/doris/be/conf/x.parquet"`},
	{"s3", `"uri" = "s3://b/x", "s3.endpoint" = "http://attacker.example", "s3.access_key" = "k"`},
	{"hdfs", `"uri" = "hdfs://10.0.0.5:8020/x", "fs.defaultFS" = "hdfs://10.0.0.5:8020"`},
	{"query", `"catalog" = "jdbc", "query" = "DELETE FROM t"`},
	{"no_such_tvf", `"a" = "b"`},
}

func TestEgressRefusedByDefault(t *testing.T) {
	for _, c := range egressCases {
		for _, sql := range spellings(c.fn, c.args) {
			_, err := guard.Check(sql)
			var ge *guard.Error
			if !errors.As(err, &ge) || ge.Reason != guard.ReasonEgressFunction {
				t.Errorf("Check(%q) = %v, want %s", sql, err, guard.ReasonEgressFunction)
				continue
			}
			if ge.Name != c.fn || !strings.Contains(ge.Msg, c.fn) || !strings.Contains(ge.Msg, "allows it by name") {
				t.Errorf("Check(%q): name %q, message %q; want the name %s and the way to allow it", sql, ge.Name, ge.Msg, c.fn)
			}
		}
	}
	for _, sql := range []string{
		"SELECT ai_generate('x')", "SELECT AI_SUMMARIZE(body) FROM t", "SELECT `ai_mask`(a, ['x']) FROM t",
		"SELECT embed('r', body) FROM t", "SELECT db.EMBED('r', b) FROM t", "SELECT * FROM t WHERE ai_filter(b)",
		"SELECT ai_agg(body, 'x') FROM t GROUP BY k", "SHOW TABLES WHERE ai_filter(Tables_in_db) = 1",
		"SELECT `ai_mas\u212a`(a, ['x']) FROM t", // the Kelvin sign lower-cases to k in Java too
	} {
		if _, err := guard.Check(sql); !errors.Is(err, &guard.Error{Reason: guard.ReasonEgressFunction}) {
			t.Errorf("Check(%q) = %v, want %s", sql, err, guard.ReasonEgressFunction)
		}
	}
	for _, sql := range []string{
		"SHOW LOAD WARNINGS ON 'http://169.254.169.254/'",
		"show load warnings on \"http://10.0.0.1/x\";",
		"SHOW LOAD /* x */ WARNINGS ON 'http://x'",
	} {
		if _, err := guard.Check(sql); !errors.Is(err, &guard.Error{Reason: guard.ReasonExternalLocation}) {
			t.Errorf("Check(%q) = %v, want %s", sql, err, guard.ReasonExternalLocation)
		}
	}
}

func TestPolicyAllowsByName(t *testing.T) {
	p := &guard.Policy{AllowFunctions: []string{"HTTP", "s3", "ai_generate", "no_such_tvf"}}
	for _, c := range egressCases {
		for _, sql := range spellings(c.fn, c.args) {
			_, err := p.Check(sql)
			allowed := c.fn == "http" || c.fn == "s3" || c.fn == "no_such_tvf"
			if allowed && err != nil {
				t.Errorf("allowed %s: Check(%q) = %v", c.fn, sql, err)
			}
			if !allowed && !errors.Is(err, &guard.Error{Reason: guard.ReasonEgressFunction}) {
				t.Errorf("not allowed %s: Check(%q) = %v, want %s", c.fn, sql, err, guard.ReasonEgressFunction)
			}
		}
	}
	if _, err := p.Check("SELECT ai_generate('x')"); err != nil {
		t.Errorf("allowed ai_generate refused: %v", err)
	}
	if _, err := p.Bind("SELECT * FROM s3('uri' = %(u)s)", map[string]any{"u": "s3://b/x"}); err != nil {
		t.Errorf("Bind under the policy: %v", err)
	}
	// Allowing functions allows nothing else.
	for sql, reason := range map[string]string{
		"SELECT /*+ SET_VAR(query_timeout=1) */ * FROM s3('uri'='x')": guard.ReasonClientHint,
		"SHOW LOAD WARNINGS ON 'http://x'":                            guard.ReasonExternalLocation,
		"INSERT INTO t SELECT * FROM s3('uri'='x')":                   guard.ReasonWriteStatement,
		"SELECT * FROM s3('uri'='x'); DROP TABLE t":                   guard.ReasonMultipleStatements,
		"SELECT embed('x')":                                           guard.ReasonEgressFunction,
	} {
		if _, err := p.Check(sql); !errors.Is(err, &guard.Error{Reason: reason}) {
			t.Errorf("Check(%q) = %v, want %s", sql, err, reason)
		}
	}
	// The package-level Check and a nil or zero Policy stay strict.
	for _, pol := range []*guard.Policy{nil, {}} {
		if _, err := pol.Check("SELECT * FROM s3('uri'='x')"); err == nil {
			t.Errorf("%#v accepted s3()", pol)
		}
	}
}

func TestInternalTableFunctionsAccepted(t *testing.T) {
	for _, sql := range []string{
		`SELECT * FROM numbers("number" = "10")`, `SELECT * FROM frontends()`, `SELECT * FROM backends() b`,
		`SELECT * FROM jobs("type"="insert")`, `SELECT * FROM tasks("type"="mv")`, `SELECT * FROM mv_infos("database"="d")`,
		`SELECT * FROM partitions("catalog"="internal","database"="d","table"="t")`, `SELECT * FROM workload_groups()`,
		`SELECT * FROM catalogs()`, `SELECT * FROM iceberg_meta("table"="c.d.t","query_type"="snapshots")`,
		`DESC FUNCTION numbers("number" = "1")`, `SELECT * FROM t LATERAL VIEW explode_numbers(5) x AS n`,
		`SELECT EXTRACT(YEAR FROM now()) FROM t`, `SELECT a FROM t WHERE b IS NOT DISTINCT FROM abs(c)`,
		`SELECT * FROM (VALUES (1, 2)) v`, `SELECT * FROM t, UNNEST(arr) u`,
	} {
		if _, err := guard.Check(sql); err != nil {
			t.Errorf("Check(%q) = %v", sql, err)
		}
	}
}

func TestHints(t *testing.T) {
	for _, sql := range []string{
		"SELECT /*+ leading(t1 t2) */ * FROM t1 JOIN t2 ON 1 = 1",
		"SELECT /*+ LEADING(t1 {t2 t3}) */ 1", "SELECT /*+ ordered */ 1", "SELECT /*+ use_cbo_rule(A, B) */ 1",
		"SELECT /*+ use_mv(db.mv) */ 1", "SELECT /*+ no_use_mv */ 1", "SELECT /*+ leading(a b), ordered */ 1",
		"SELECT * FROM a JOIN /*+ broadcast */ b ON 1 = 1", "SELECT /*+ qb_name(q1) */ 1",
	} {
		if _, err := guard.Check(sql); err != nil {
			t.Errorf("Check(%q) = %v", sql, err)
		}
	}
	for _, c := range []struct{ sql, reason, name string }{
		{"SELECT /*+ SET_VAR(query_timeout=3600) */ 1", guard.ReasonClientHint, "set_var"},
		{"SELECT /*+ leading(a b) set_var(exec_mem_limit=-1) */ 1", guard.ReasonClientHint, "set_var"},
		{"SELECT /*+ SeT_VaR */ 1", guard.ReasonClientHint, "set_var"},
		{"SELECT /*+ `set_var`(a=1) */ 1", guard.ReasonClientHint, ""},
		{"SELECT /*+ resource_group(g) */ 1", guard.ReasonUnknownHint, "resource_group"},
		{"SELECT /*+ leading(a) */ 1 /*+ query_timeout(1) */", guard.ReasonUnknownHint, "query_timeout"},
	} {
		_, err := guard.Check(c.sql)
		var ge *guard.Error
		if !errors.As(err, &ge) || ge.Reason != c.reason || ge.Name != c.name {
			t.Errorf("Check(%q) = %#v, want %s naming %q", c.sql, err, c.reason, c.name)
		}
	}
}

func TestValidFunctionName(t *testing.T) {
	for name, want := range map[string]bool{"s3": true, "AI_GENERATE": true, "_x": true, "": false, "1x": false,
		"a-b": false, "a b": false, strings.Repeat("a", 65): false, "ｈｔｔｐ": false} {
		if got := guard.ValidFunctionName(name); got != want {
			t.Errorf("ValidFunctionName(%q) = %v, want %v", name, got, want)
		}
	}
}

// FuzzPolicy checks, for any input, that allowing functions only ever
// allows more, and only those functions: what Check accepts, a Policy
// accepts; what only the Policy accepts, Check refused with
// EGRESS_FUNCTION naming an allowed function.
func FuzzPolicy(f *testing.F) {
	for _, c := range egressCases {
		for _, sql := range spellings(c.fn, c.args) {
			f.Add(sql)
		}
	}
	for _, dir := range []string{"allow", "deny"} {
		for _, cs := range loadCorpus(f, dir) {
			f.Add(cs.sql)
		}
	}
	allowed := []string{"s3", "http", "local", "ai_generate", "no_such_tvf", "my_udtf"}
	p := &guard.Policy{AllowFunctions: allowed}
	f.Fuzz(func(t *testing.T, sql string) {
		_, strictErr := guard.Check(sql)
		_, err := p.Check(sql)
		if strictErr == nil {
			if err != nil {
				t.Fatalf("Check accepted %q but the policy refused it: %v", sql, err)
			}
			return
		}
		if err != nil {
			return
		}
		var ge *guard.Error
		if !errors.As(strictErr, &ge) || ge.Reason != guard.ReasonEgressFunction {
			t.Fatalf("the policy accepted %q, which Check refused for %v", sql, strictErr)
		}
		ok := false
		for _, a := range allowed {
			ok = ok || ge.Name == a
		}
		if !ok {
			t.Fatalf("the policy accepted %q, refused by Check for %q, which is not allowed", sql, ge.Name)
		}
	})
}
