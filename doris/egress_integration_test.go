package doris_test

// The egress policy end to end: on the simulator, each SQL-running child
// refuses functions that reach outside Doris, at the call; the connection
// boundary refuses them on its own for SQL that skipped the call's check;
// and a function the operator allowed by name (EGRESS_ALLOWED_FUNCTIONS)
// runs.

import (
	"errors"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// egressSQL are refused statements in the spellings Doris's lexer accepts.
var egressSQL = []string{
	`SELECT * FROM http("uri" = "http://169.254.169.254/latest/meta-data/", "format" = "csv")`,
	"SELECT * FROM `HTTP`(\"uri\" = \"http://169.254.169.254/\")",
	`SELECT * FROM /* x */ s3 /* y */ ("uri" = "s3://b/x", "s3.endpoint" = "http://attacker.example")`,
	`SELECT * FROM internal.LOCAL("file_path" = "conf/be.conf", "backend_id" = "10001", "format" = "csv")`,
	`SELECT * FROM t WHERE k IN (SELECT c1 FROM hdfs("uri" = "hdfs://10.0.0.5:8020/x"))`,
	`WITH q AS (SELECT * FROM query("catalog" = "jdbc", "query" = "DELETE FROM accounts")) SELECT * FROM q`,
	`SELECT ai_generate('summarize', full_name) FROM customers`,
	`SELECT embed('res', email) FROM customers`,
	`SELECT * FROM no_such_tvf("uri" = "x")`,
}

// sqlChildren are the children that take caller SQL, and the reason
// prefix of each.
var sqlChildren = []struct{ domain, child, prefix string }{
	{"doris_query", "execute_query", "QUERY"},
	{"doris_query", "explain_query", "QUERY"},
	{"doris_query", "get_query_profile", "QUERY"},
	{"doris_query", "diagnose_query_performance", "QUERY"},
	{"doris_search", "diagnose_search_query", "SEARCH"},
}

func TestEgressRefusedByEverySQLChild(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	for _, c := range sqlChildren {
		for _, q := range egressSQL {
			ev := e.Fail(c.domain, c.child, map[string]any{"sql": q}, "CHILD_ARGUMENTS_INVALID", c.prefix+"_READ_ONLY_VIOLATION")
			if !strings.Contains(ev.Error.Message, "(EGRESS_FUNCTION)") || !strings.Contains(ev.Error.Message, doris.EgressSetting) {
				t.Errorf("%s.%s(%q): message %q does not name EGRESS_FUNCTION and %s", c.domain, c.child, q, ev.Error.Message, doris.EgressSetting)
			}
		}
	}
	ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": "SHOW LOAD WARNINGS ON 'http://169.254.169.254/'"},
		"CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
	if !strings.Contains(ev.Error.Message, "(EXTERNAL_LOCATION)") {
		t.Errorf("SHOW LOAD WARNINGS ON: message %q", ev.Error.Message)
	}
}

// TestEgressRefusedAtTheBoundary: SQL that reaches the connection without
// the call's check (a handler's own statement) is refused there.
func TestEgressRefusedAtTheBoundary(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	for _, q := range append(egressSQL, "SHOW LOAD WARNINGS ON 'http://169.254.169.254/'",
		"SELECT /*+ SET_VAR(query_timeout = 3600) */ 1") {
		if _, _, err := e.RT.TextForTest(e.Ctx(), e.ID, q, 10); !errors.Is(err, doris.ErrNotReadOnly) {
			t.Errorf("%q reached Doris: %v", q, err)
		}
	}
	// The server's own statements with internal table functions pass.
	if _, _, err := e.RT.TextForTest(e.Ctx(), e.ID, `SELECT * FROM jobs("type"="insert") LIMIT 1`, 10); err != nil {
		t.Errorf("jobs(): %v", err)
	}
}

// TestEgressAllowedByName: with local() allowed, it runs at the call and
// through the boundary; every other function stays refused.
func TestEgressAllowedByName(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.AllowedFunctions = []string{"local"} }})
	q := `SELECT * FROM local("file_path" = "conf/be.conf", "backend_id" = "10001", "format" = "csv")`
	for _, sql := range []string{q, strings.Replace(q, "local", "`LOCAL`", 1), strings.Replace(q, "local", "Local /* c */", 1)} {
		e.Ok("doris_query", "execute_query", map[string]any{"sql": sql})
		if _, _, err := e.RT.TextForTest(e.Ctx(), e.ID, sql, 10); err != nil {
			t.Errorf("boundary refused the allowed %q: %v", sql, err)
		}
	}
	for _, sql := range egressSQL {
		if strings.Contains(strings.ToLower(sql), "local(") {
			continue
		}
		e.Fail("doris_query", "execute_query", map[string]any{"sql": sql}, "CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
		if _, _, err := e.RT.TextForTest(e.Ctx(), e.ID, sql, 10); !errors.Is(err, doris.ErrNotReadOnly) {
			t.Errorf("boundary let %q through: %v", sql, err)
		}
	}
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT /*+ SET_VAR(query_timeout=3600) */ * FROM " + q[len("SELECT * FROM "):]},
		"CHILD_ARGUMENTS_INVALID", "QUERY_READ_ONLY_VIOLATION")
}

// TestHintsAndEmptyStatementsRun: the reads Doris accepts that the guard
// used to refuse run end to end.
func TestHintsAndEmptyStatementsRun(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	for _, sql := range []string{
		"SELECT /*+ leading(o c) */ c.full_name FROM orders o JOIN customers c ON o.customer_id = c.customer_id LIMIT 1",
		"SELECT /*+ ordered */ count(*) FROM orders;;",
		"SELECT 1 ; ;",
		"HELP 'select'",
	} {
		e.Ok("doris_query", "execute_query", map[string]any{"sql": sql})
	}
}
