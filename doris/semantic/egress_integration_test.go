package semantic_test

import (
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestEgressRefusedInCompiledSQL: SQL a semantic provider compiles is
// checked under the same policy as caller SQL.
func TestEgressRefusedInCompiledSQL(t *testing.T) {
	bin := fakeProvider(t)
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withMetricFlow(bin, 30*time.Second, "egress")})
	req := map[string]any{"model_ref": "demo/orders", "request": map[string]any{"metrics": []string{"revenue"}}}
	for _, child := range []string{"compile_metricflow_query", "execute_metricflow_query"} {
		ev := e.Fail("doris_semantic", child, req, "CHILD_EXECUTION_FAILED", "METRICFLOW_COMPILED_SQL_REJECTED")
		if strings.Contains(ev.Error.Message, "169.254") {
			t.Errorf("%s: the compiled SQL reached the message: %s", child, ev.Error.Message)
		}
	}
}
