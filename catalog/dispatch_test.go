package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

func errorOf(t *testing.T, env map[string]any) (code string, retryable bool, details map[string]any) {
	t.Helper()
	if env["mode"] != "error" {
		t.Fatalf("envelope is not an error: %v", env)
	}
	e := env["error"].(map[string]any)
	return e["code"].(string), e["retryable"].(bool), e["details"].(map[string]any)
}

// TestDispatcherErrors walks every error code of the dispatcher, in the
// order it checks them, and shows that no handler runs for any of them
// except where a handler's own failure is the point.
func TestDispatcherErrors(t *testing.T) {
	rt := newFakeRuntime()
	s := newSurface(t, catalog.Config{}, rt)
	out := outputSchemas(t, s)
	disc, _ := call(t, s, anon, "doris_query", `{}`)
	mv := disc["manifest_version"].(string)
	catDisc, _ := call(t, s, anon, "doris_catalog", `{}`)
	catMV := catDisc["manifest_version"].(string)

	tests := []struct {
		name, tool, args string
		code             string
		retryable        bool
		reason           string
		rediscover       bool
		violations       bool
		handlerRuns      bool
	}{
		{"arguments without child_tool", "doris_query", `{"arguments":{"sql":"SELECT 1"}}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"unknown outer key", "doris_query", `{"child":"execute_query"}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"empty child_tool", "doris_query", `{"child_tool":""}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"child_tool of the wrong type", "doris_query", `{"child_tool":7}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"unknown child", "doris_query", `{"child_tool":"drop_database","arguments":{}}`, catalog.CodeToolNotFound, false, "", true, false, false},
		{"child of another domain", "doris_query", `{"child_tool":"list_tables","arguments":{"database":"demo"}}`, catalog.CodeToolNotFound, false, "", true, false, false},
		{"case variant of a child", "doris_query", `{"child_tool":"Execute_Query","arguments":{"sql":"SELECT 1"}}`, catalog.CodeToolNotFound, false, "", true, false, false},
		{"stale manifest_version", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"},"manifest_version":"query.000000000000"}`, catalog.CodeManifestStale, true, "", true, false, false},
		{"malformed manifest_version", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"},"manifest_version":"garbage"}`, catalog.CodeManifestStale, true, "", true, false, false},
		{"another domain's manifest_version", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"},"manifest_version":"` + catMV + `"}`, catalog.CodeManifestStale, true, "", true, false, false},
		{"unbound handler", "doris_query", `{"child_tool":"explain_query","arguments":{"sql":"SELECT 1"}}`, catalog.CodeCapabilityUnavailable, false, "HANDLER_NOT_BOUND", true, false, false},
		{"missing required argument", "doris_query", `{"child_tool":"execute_query","arguments":{}}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"argument of the wrong type", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":42}}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"unknown argument", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1","SQL":"DROP TABLE t"}}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"over-long string", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1","database":"` + strings.Repeat("d", 65) + `"}}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"bound exceeded", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1","max_rows":100001}}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"enum value outside the list", "doris_catalog", `{"child_tool":"list_tables","arguments":{"database":"demo","types":["table","index"]}}`, catalog.CodeArgumentsInvalid, false, "", false, true, false},
		{"runtime refusal (read-only guard)", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"write"},"manifest_version":"` + mv + `"}`, catalog.CodeArgumentsInvalid, false, "QUERY_READ_ONLY_VIOLATION", false, false, true},
		{"result violates the output schema", "doris_catalog", `{"child_tool":"list_catalogs","arguments":{}}`, catalog.CodeResultInvalid, false, "", false, true, true},
		{"timeout", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"timeout"}}`, catalog.CodeExecutionTimeout, true, "QUERY_TIMEOUT", false, false, true},
		{"execution failure", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"fail"}}`, catalog.CodeExecutionFailed, true, "QUERY_BACKEND_UNAVAILABLE", false, false, true},
		{"handler panic", "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"panic"}}`, catalog.CodeExecutionFailed, false, "INTERNAL_ERROR", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := rt.calls.Load()
			env, res := call(t, s, anon, tt.tool, tt.args)
			checkOutput(t, out[tt.tool], res)
			if !res.IsError {
				t.Error("an error envelope must set isError")
			}
			code, retryable, det := errorOf(t, env)
			if code != tt.code || retryable != tt.retryable {
				t.Fatalf("code %s retryable %v, want %s %v: %v", code, retryable, tt.code, tt.retryable, env)
			}
			if tt.reason != "" && det["reason_code"] != tt.reason {
				t.Errorf("reason_code %v, want %s", det["reason_code"], tt.reason)
			}
			if det["rediscover"] != tt.rediscover {
				t.Errorf("rediscover %v, want %v", det["rediscover"], tt.rediscover)
			}
			v, hasV := det["violations"].([]any)
			if tt.violations != hasV {
				t.Errorf("violations %v, want present=%v", det["violations"], tt.violations)
			}
			if len(v) > 16 {
				t.Errorf("%d violations; at most 16", len(v))
			}
			for _, x := range v {
				vm := x.(map[string]any)
				msg, _ := vm["message"].(string)
				if _, ok := vm["instancePath"]; !ok || vm["keyword"] == "" || msg == "" || len(vm) != 3 {
					t.Errorf("violation %v must have exactly instancePath, keyword and message", vm)
				}
				// Messages name members and bounds, never the values sent.
				for _, value := range []string{"DROP", "SELECT", "index", strings.Repeat("d", 65)} {
					if strings.Contains(msg, value) {
						t.Errorf("violation message %q repeats a value", msg)
					}
				}
			}
			if ran := rt.calls.Load() > before; ran != tt.handlerRuns {
				t.Errorf("handler ran=%v, want %v", ran, tt.handlerRuns)
			}
			b, _ := json.Marshal(env)
			for _, leak := range []string{"DROP TABLE", "secret internal detail", "handler bug", strings.Repeat("d", 65)} {
				if strings.Contains(string(b), leak) {
					t.Errorf("the envelope echoes %q: %s", leak, b)
				}
			}
		})
	}
	// A stale error carries the current manifest_version.
	env, _ := call(t, s, anon, "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"},"manifest_version":"query.000000000000"}`)
	if env["manifest_version"] != mv {
		t.Fatalf("stale envelope manifest_version %v, want %s", env["manifest_version"], mv)
	}
}

func TestExecuteResultEnvelope(t *testing.T) {
	s := newSurface(t, catalog.Config{}, newFakeRuntime())
	disc, _ := call(t, s, anon, "doris_query", `{}`)
	mv := disc["manifest_version"].(string)
	env, res := call(t, s, anon, "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"},"manifest_version":"`+mv+`"}`)
	checkOutput(t, outputSchemas(t, s)["doris_query"], res)
	if res.IsError || env["mode"] != "result" || env["child_tool"] != "execute_query" || env["manifest_version"] != mv {
		t.Fatalf("envelope %v", env)
	}
	md := env["metadata"].(map[string]any)
	if !strings.HasPrefix(md["request_id"].(string), "req_") || md["source"] != "doris_mysql" || md["truncated"] != false {
		t.Fatalf("metadata %v", md)
	}
	data := env["data"].(map[string]any)
	if data["status"] != "success" || data["data"].(map[string]any)["row_count"] != float64(1) {
		t.Fatalf("data %v", data)
	}
	// Omitting manifest_version is allowed.
	if env, _ := call(t, s, anon, "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"}}`); env["mode"] != "result" {
		t.Fatalf("call without manifest_version: %v", env)
	}
}

// TestAuthorizationHidesExistence: a child the caller may not see is
// absent from its manifest, and calling it is indistinguishable from
// calling a name that does not exist. Discovery permission alone does not
// allow execution.
func TestAuthorizationHidesExistence(t *testing.T) {
	rt := newFakeRuntime()
	s := newSurface(t, catalog.Config{}, rt)
	alice := auth.Identity{Method: "token", Subject: "alice", Route: "global", Grants: []string{
		"child:call:doris_catalog:list_tables",
		"child:discover:doris_catalog:list_databases",
	}}
	env, _ := call(t, s, alice, "doris_catalog", `{}`)
	var names []string
	for _, c := range env["children"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "list_databases,list_tables" {
		t.Fatalf("alice sees %v", names)
	}
	full, _ := call(t, s, anon, "doris_catalog", `{}`)
	if env["manifest_version"] == full["manifest_version"] {
		t.Error("manifest_version does not change with the authorized set")
	}
	hidden, _ := call(t, s, alice, "doris_catalog", `{"child_tool":"get_table_size","arguments":{"database":"d","table":"t"}}`)
	unknown, _ := call(t, s, alice, "doris_catalog", `{"child_tool":"no_such_child","arguments":{}}`)
	discoverOnly, _ := call(t, s, alice, "doris_catalog", `{"child_tool":"list_databases","arguments":{}}`)
	for name, e := range map[string]map[string]any{"hidden": hidden, "discover-only": discoverOnly} {
		c1, _, _ := errorOf(t, e)
		c2, _, _ := errorOf(t, unknown)
		m1, _ := json.Marshal(e["error"])
		m2, _ := json.Marshal(unknown["error"])
		if c1 != catalog.CodeToolNotFound || string(m1) != string(m2) {
			t.Errorf("%s child: %s, want the same answer as an unknown name: %s (%s)", name, m1, m2, c2)
		}
	}
	if ok, _ := call(t, s, alice, "doris_catalog", `{"child_tool":"list_tables","arguments":{"database":"demo"}}`); ok["mode"] != "result" {
		t.Fatalf("granted child: %v", ok)
	}
	// Flat mode: the hidden child is not listed and is an unknown tool.
	flat := newSurface(t, catalog.Config{Mode: catalog.Flat}, rt)
	tools, _ := flat.Tools(context.Background(), alice)
	if len(tools) != 2 {
		t.Fatalf("alice sees %d flat tools, want 2", len(tools))
	}
	if _, err := flat.CallTool(context.Background(), alice, "doris_catalog_get_table_size", json.RawMessage(`{}`), nil); !errors.Is(err, catalog.ErrToolNotFound) {
		t.Fatalf("hidden flat child: %v, want ErrToolNotFound", err)
	}
}

// TestOperatorControl: a child the operator disabled is invisible to
// every caller, in both modes.
func TestOperatorControl(t *testing.T) {
	rt := newFakeRuntime()
	s := newSurface(t, catalog.Config{Disabled: []string{"doris_query.execute_query"}}, rt)
	env, _ := call(t, s, anon, "doris_query", `{}`)
	for _, c := range env["children"].([]any) {
		if c.(map[string]any)["name"] == "execute_query" {
			t.Fatal("a disabled child is listed")
		}
	}
	if e, _ := call(t, s, anon, "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"}}`); e["error"].(map[string]any)["code"] != catalog.CodeToolNotFound {
		t.Fatalf("disabled child: %v", e)
	}
	allow := newSurface(t, catalog.Config{Mode: catalog.Flat, Enabled: []string{"doris_catalog.list_tables", "doris_query.execute_query"}}, rt)
	tools, _ := allow.Tools(context.Background(), anon)
	if len(tools) != 2 {
		t.Fatalf("allowlist of 2 exposes %d flat tools", len(tools))
	}
	if _, err := allow.CallTool(context.Background(), anon, "doris_query_explain_query", json.RawMessage(`{"sql":"SELECT 1"}`), nil); !errors.Is(err, catalog.ErrToolNotFound) {
		t.Fatalf("a child outside the allowlist: %v", err)
	}
}

// TestManifestVersion: deterministic, unchanged by time, changed by the
// capability generation.
func TestManifestVersion(t *testing.T) {
	rt := newFakeRuntime()
	s := newSurface(t, catalog.Config{}, rt)
	a, _ := call(t, s, anon, "doris_cluster", `{}`)
	b, _ := call(t, s, anon, "doris_cluster", `{}`)
	if a["manifest_version"] != b["manifest_version"] {
		t.Fatal("two discoveries of the same state differ")
	}
	other := newSurface(t, catalog.Config{}, rt)
	c, _ := call(t, other, anon, "doris_cluster", `{}`)
	if c["manifest_version"] != a["manifest_version"] {
		t.Fatal("manifest_version depends on the process (it must not: replicas share it)")
	}
	rt.snap.TakenAt = rt.snap.TakenAt.Add(time.Hour) // a refresh with the same evidence
	if d, _ := call(t, s, anon, "doris_cluster", `{}`); d["manifest_version"] != a["manifest_version"] {
		t.Fatal("manifest_version changed with time alone")
	}
	rt.snap.Backends = append(rt.snap.Backends, doris.Node{Role: "be", Host: "10.0.0.2", Alive: true, Version: "3.0.8"})
	e, _ := call(t, s, anon, "doris_cluster", `{}`)
	if e["manifest_version"] == a["manifest_version"] {
		t.Fatal("manifest_version did not change with the capability generation")
	}
	// Other domains' probes do not disturb this domain's version.
	call(t, s, anon, "doris_search", `{}`)
	if f, _ := call(t, s, anon, "doris_cluster", `{}`); f["manifest_version"] != e["manifest_version"] {
		t.Fatal("discovering another domain changed this domain's manifest_version")
	}
}

// TestLargeAndEmptyResults: a result far beyond the argument limits (here
// 3000 rows of 10 columns) is validated and returned, and a diagnostic
// child with no evidence still satisfies its required evidence member.
func TestLargeAndEmptyResults(t *testing.T) {
	rt := newFakeRuntime()
	rows := make([]any, 3000)
	for i := range rows {
		row := map[string]any{}
		for c := 0; c < 10; c++ {
			row[string(rune('a'+c))] = i * c
		}
		rows[i] = row
	}
	rt.handlers["doris_query.execute_query"] = func(ctx context.Context, c *doris.Call) (*doris.Result, error) {
		return &doris.Result{Status: "success", Truncated: true, Data: map[string]any{"columns": []any{}, "rows": rows, "row_count": len(rows), "truncated": true}}, nil
	}
	rt.handlers["doris_query.diagnose_query_performance"] = func(ctx context.Context, c *doris.Call) (*doris.Result, error) {
		return &doris.Result{Status: "success", Data: map[string]any{"rule_version": "query-diagnosis-v1", "findings": []any{}}}, nil
	}
	s := newSurface(t, catalog.Config{}, rt)
	env, _ := call(t, s, anon, "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"}}`)
	if env["mode"] != "result" || env["metadata"].(map[string]any)["truncated"] != true {
		t.Fatalf("large result: %v", env["error"])
	}
	env, _ = call(t, s, anon, "doris_query", `{"child_tool":"diagnose_query_performance","arguments":{"sql":"SELECT 1"}}`)
	if env["mode"] != "result" || env["data"].(map[string]any)["evidence"] == nil {
		t.Fatalf("diagnostic without evidence: %v", env)
	}
}
