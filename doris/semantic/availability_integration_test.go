package semantic_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestMetricFlowUnsafeCompilations: SQL a provider compiles is checked
// like caller SQL; a write, two statements, another dialect or no SQL is
// refused with its reason code, and nothing reaches Doris.
func TestMetricFlowUnsafeCompilations(t *testing.T) {
	bin := fakeProvider(t)
	req := map[string]any{"model_ref": "demo/orders", "request": map[string]any{"metrics": []string{"revenue"}}}
	for _, tt := range []struct{ mode, reason string }{
		{"write", "METRICFLOW_COMPILED_SQL_REJECTED"},
		{"multi", "METRICFLOW_COMPILED_SQL_REJECTED"},
		{"other-dialect", "METRICFLOW_DIALECT_MISMATCH"},
		{"empty-sql", "METRICFLOW_COMPILED_SQL_INVALID"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			// As root, who could write: only the guard stands between the
			// provider's SQL and Doris.
			e := doristest.NewEnv(t, doristest.EnvOpts{User: "root", Password: mariadb.SharedFor(t).RootPassword(), Config: withMetricFlow(bin, 30*time.Second, tt.mode)})
			before := count(t, e, "SELECT COUNT(*) FROM demo.orders")
			for _, child := range []string{"compile_metricflow_query", "execute_metricflow_query"} {
				ev := e.Fail("doris_semantic", child, req, "CHILD_EXECUTION_FAILED", tt.reason)
				if strings.Contains(ev.Error.Message, "DELETE") || strings.Contains(ev.Error.Message, "snowflake") {
					t.Errorf("%s: the provider's SQL reached the message: %s", child, ev.Error.Message)
				}
			}
			e.Fail("doris_semantic", "get_metricflow_dimension_values", map[string]any{"model_ref": "demo/orders",
				"metrics": []string{"revenue"}, "dimension": "order__status"}, "CHILD_EXECUTION_FAILED", tt.reason)
			if after := count(t, e, "SELECT COUNT(*) FROM demo.orders"); after != before {
				t.Fatalf("demo.orders went from %d to %d rows", before, after)
			}
		})
	}
}

func count(t testing.TB, e *doristest.Env, q string) int {
	t.Helper()
	var n int
	if err := e.DB.Root().QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMetricFlowBadAnswers: answers that break the protocol after the
// provider passed its health check are refused with their reason code.
func TestMetricFlowBadAnswers(t *testing.T) {
	bin := fakeProvider(t)
	for _, tt := range []struct{ mode, code, reason string }{
		{"bad-items", "CHILD_EXECUTION_FAILED", "METRICFLOW_PROVIDER_RESPONSE_INVALID"},
		{"refuse", "CHILD_ARGUMENTS_INVALID", "METRICFLOW_METRIC_NOT_FOUND"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Config: withMetricFlow(bin, 30*time.Second, tt.mode)})
			if a := e.Discover("doris_semantic").Availability(t, "list_metricflow_models").Availability; !a.Callable {
				t.Fatalf("a provider that answers in protocol is not callable: %+v", a)
			}
			e.Fail("doris_semantic", "list_metricflow_models", map[string]any{}, tt.code, tt.reason)
		})
	}
}

// TestSemanticAvailability: with each piece off or broken, every child
// stays listed, not callable, with the precise reason; the other piece is
// unaffected; a broken provider leaves no process behind.
func TestSemanticAvailability(t *testing.T) {
	bin := fakeProvider(t)
	ossieOn := withOssie(t, "")
	tests := []struct {
		name   string
		mode   string // "" for MetricFlow off
		reason string
	}{
		{"metricflow off", "", "PROVIDER_NOT_CONFIGURED"},
		{"provider exits non-zero", "exit1", "METRICFLOW_PROVIDER_FAILED"},
		{"provider hangs", "hang", "METRICFLOW_PROVIDER_TIMEOUT"},
		{"provider floods stdout", "flood", "METRICFLOW_PROVIDER_OUTPUT_LIMIT_EXCEEDED"},
		{"wrong request id", "wrong-id", "METRICFLOW_PROVIDER_PROTOCOL_MISMATCH"},
		{"wrong protocol version", "wrong-version", "METRICFLOW_PROVIDER_PROTOCOL_MISMATCH"},
		{"invalid UTF-8", "bad-utf8", "METRICFLOW_PROVIDER_RESPONSE_INVALID"},
		{"executable gone", "gone", "METRICFLOW_PROVIDER_START_FAILED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "pids")
			config := func(c *doris.Config) {
				ossieOn(c)
				if tt.mode != "" {
					withMetricFlow(bin, 2*time.Second, tt.mode, pidfile)(c)
				}
			}
			e := doristest.NewEnv(t, doristest.EnvOpts{Config: config})
			if tt.mode == "gone" {
				// The executable vanishes after startup.
				e.Cfg.MetricFlow.CommandJSON = `["` + filepath.Join(t.TempDir(), "vanished") + `"]`
				e.Open()
			}
			m := e.Discover("doris_semantic")
			for _, c := range mfChildren {
				a := m.Availability(t, c).Availability
				if a.Callable || a.ReasonCode != tt.reason {
					t.Errorf("%s: %+v, want not callable with %s", c, a, tt.reason)
				}
			}
			for _, c := range []string{"list_semantic_models", "get_semantic_context"} {
				if a := m.Availability(t, c).Availability; !a.Callable {
					t.Errorf("%s with Ossie on: %+v", c, a)
				}
			}
			ev := e.Fail("doris_semantic", "list_metricflow_models", map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", tt.reason)
			if tt.mode == "" && !strings.Contains(strings.Join(m.Availability(t, "list_metricflow_models").Availability.Limitations, " "), "METRICFLOW_ENABLED") {
				t.Errorf("MetricFlow off does not say how to turn it on: %s", ev.Raw)
			}
			b, _ := os.ReadFile(pidfile)
			for _, f := range strings.Fields(string(b)) {
				pid, _ := strconv.Atoi(f)
				if alive(pid) {
					t.Errorf("provider process %d outlived its request", pid)
				}
			}
			if tt.mode == "hang" && len(strings.Fields(string(b))) != 2 {
				t.Errorf("the hanging provider recorded pids %q, want itself and its child", b)
			}
		})
	}
}

// alive reports whether pid is a running process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// TestMetricFlowSlowProvider: a provider slower to answer than the
// capability probe's timeout (but within its own) is pending, not failed,
// and becomes callable once its health check completes.
func TestMetricFlowSlowProvider(t *testing.T) {
	bin := fakeProvider(t)
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) {
		withMetricFlow(bin, 30*time.Second, "slow")(c)
		c.ProbeTimeout = time.Second
	}})
	a := e.Discover("doris_semantic").Availability(t, "list_metricflow_models").Availability
	if a.Callable || a.ReasonCode != "CAPABILITY_PROBE_PENDING" {
		t.Fatalf("a provider still starting: %+v, want pending", a)
	}
	doristest.Eventually(t, 30*time.Second, func() string {
		a = e.Discover("doris_semantic").Availability(t, "list_metricflow_models").Availability
		if a.Callable {
			return ""
		}
		if a.ReasonCode != "CAPABILITY_PROBE_PENDING" {
			t.Fatalf("the slow provider, while starting: %+v, want pending", a)
		}
		return fmt.Sprintf("the slow provider never became callable: %+v", a)
	})
	e.Ok("doris_semantic", "list_metricflow_models", map[string]any{})
}

// TestSemanticScope: a principal without the semantic:read scope is
// refused by every semantic child, with its reason.
func TestSemanticScope(t *testing.T) {
	bin := fakeProvider(t)
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) {
		withOssie(t, "")(c)
		withMetricFlow(bin, 30*time.Second, "demo")(c)
	}})
	e.Ok("doris_semantic", "list_semantic_models", map[string]any{})
	e.ID = auth.Identity{Method: "test", Subject: "no-semantic", Route: "global", Scopes: []string{"tool:list"}}
	for _, c := range []struct {
		child string
		args  map[string]any
	}{
		{"list_semantic_models", map[string]any{}},
		{"get_semantic_context", map[string]any{"model_ref": "retail/sales", "request": map[string]any{"question": "revenue"}}},
		{"list_metricflow_models", map[string]any{}},
		{"execute_metricflow_query", map[string]any{"model_ref": "demo/orders", "request": map[string]any{"metrics": []string{"revenue"}}}},
	} {
		e.Fail("doris_semantic", c.child, c.args, "CHILD_EXECUTION_FAILED", "SEMANTIC_SCOPE_REQUIRED")
	}
}
