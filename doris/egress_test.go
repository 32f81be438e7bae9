package doris

import (
	"errors"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// TestBoundaryEgress: the connection boundary applies the egress policy
// the runtime was configured with, so a statement that reached it by any
// path is judged as CheckSQL judged it.
func TestBoundaryEgress(t *testing.T) {
	refused := []string{
		`SELECT * FROM http("uri" = "http://169.254.169.254/latest/meta-data/")`,
		`SELECT * FROM S3("uri" = "s3://b/x")`,
		"SELECT * FROM `local`(\"file_path\" = \"conf/be.conf\", \"backend_id\" = \"1\")",
		`SELECT ai_generate('x')`,
		`SHOW LOAD WARNINGS ON 'http://169.254.169.254/'`,
		`SELECT /*+ SET_VAR(query_timeout = 3600) */ 1`,
	}
	for _, q := range refused {
		err := boundary(q, nil)
		if !errors.Is(err, ErrNotReadOnly) {
			t.Errorf("boundary(%q) = %v, want ErrNotReadOnly", q, err)
		}
	}
	p := &guard.Policy{AllowFunctions: []string{"s3", "ai_generate"}}
	for _, q := range refused {
		err := boundary(q, p)
		allowed := strings.Contains(q, "S3(") || strings.Contains(q, "ai_generate")
		if allowed != (err == nil) {
			t.Errorf("boundary(%q) under %v = %v", q, p.AllowFunctions, err)
		}
	}
	// The server's own statements: fixed session controls, and reads of
	// internal table functions.
	for _, q := range []string{"SET query_timeout = 30", "USE `demo`", `SELECT * FROM jobs("type"="insert") LIMIT 1`,
		`SELECT * FROM mv_infos("database"='d') LIMIT 501`, `SELECT * FROM iceberg_meta("table" = 'c.d.t', "query_type" = 'snapshots')`} {
		if err := boundary(q, nil); err != nil {
			t.Errorf("boundary(%q) = %v", q, err)
		}
	}
}

func TestGuardErrorNamesTheSetting(t *testing.T) {
	_, err := guard.Check(`SELECT * FROM http("uri" = "http://x")`)
	de := GuardError(err).(*Error)
	if de.Reason != "QUERY_READ_ONLY_VIOLATION" || !strings.Contains(de.Message, EgressSetting) || !strings.Contains(de.Message, "EGRESS_FUNCTION") {
		t.Fatalf("GuardError = %s %q, want QUERY_READ_ONLY_VIOLATION naming EGRESS_FUNCTION and %s", de.Reason, de.Message, EgressSetting)
	}
	if GuardReason(err) != guard.ReasonEgressFunction {
		t.Fatalf("GuardReason = %q", GuardReason(err))
	}
}

func TestConfigValidatesAllowedFunctions(t *testing.T) {
	c := DefaultConfig()
	c.AllowedFunctions = []string{"s3", "ai_generate"}
	if errs := c.Validate(); len(errs) != 0 {
		t.Fatalf("valid names refused: %v", errs)
	}
	c.AllowedFunctions = []string{"s3()", "a b"}
	errs := c.Validate()
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), EgressSetting) {
		t.Fatalf("Validate = %v, want two %s errors", errs, EgressSetting)
	}
}
