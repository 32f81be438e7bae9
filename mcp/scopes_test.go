package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

// TestOperationScopes: every method needs its operation scope (contract
// §4). A missing one is 403 with an insufficient_scope challenge naming
// it, and a JSON-RPC error that echoes the request id; the methods that
// need none, and an unrestricted identity, pass.
func TestOperationScopes(t *testing.T) {
	e := newEnv(t, 100, 0)
	policy, _ := auth.NewHostPolicy("127.0.0.1", nil, nil)
	scopes := map[string][]string{"narrow": {"tool:list"}, "none": {}, "all": nil}
	ts := httptest.NewServer(e.srv.Handler(mcp.HTTPOptions{Policy: policy,
		Identify: func(r *http.Request) (auth.Identity, error) {
			s := r.Header.Get("X-Test-Scopes")
			return auth.Identity{Method: "token", Subject: s, Route: "global", Scopes: scopes[s]}, nil
		},
		ScopeChallenge: func(scope string) string {
			return `Bearer error="insufficient_scope", scope="` + scope + `", resource_metadata="m"`
		},
	}))
	t.Cleanup(ts.Close)
	h := &httpEnv{env: e, ts: ts}
	methods := []struct {
		method, extra, name, scope string
	}{
		{"server/discover", "", "", ""},
		{"tools/list", "", "", "tool:list"},
		{"tools/call", `"name":"tool_000","arguments":{}`, "tool_000", "tool:list"},
		{"resources/list", "", "", "resource:list"},
		{"resources/templates/list", "", "", "resource:list"},
		{"resources/read", `"uri":"doris://table/demo/orders"`, "doris://table/demo/orders", "resource:read"},
		{"prompts/list", "", "", "prompt:list"},
		{"prompts/get", `"name":"sales_analysis"`, "sales_analysis", "prompt:get"},
		{"completion/complete", `"ref":{"type":"ref/prompt","name":"sales_analysis"},"argument":{"name":"x","value":""}`, "", "prompt:get"},
		{"completion/complete", `"ref":{"type":"ref/resource","uri":"doris://table/{db}/{t}"},"argument":{"name":"db","value":""}`, "", "resource:read"},
		{"tools/call", `"name":"doris_semantic","arguments":{}`, "doris_semantic", "tool:list semantic:read"},
		{"tools/call", `"name":"doris_semantic_list_semantic_models","arguments":{}`, "doris_semantic_list_semantic_models", "tool:list semantic:read"},
		{"resources/read", `"uri":"doris://semantic/sales"`, "doris://semantic/sales", "resource:read semantic:read"},
	}
	for _, who := range []string{"narrow", "none", "all"} {
		for _, m := range methods {
			t.Run(who+"/"+m.method+"/"+m.scope, func(t *testing.T) {
				hdr := modernHeaders(m.method, m.name)
				hdr["X-Test-Scopes"] = who
				rep := h.post(t, "/mcp", hdr, req(7, m.method, m.extra), wiretest.Rev20260728, m.method)
				missing := m.scope
				switch who {
				case "all":
					missing = ""
				case "narrow":
					missing = strings.TrimSpace(strings.ReplaceAll(m.scope, "tool:list", ""))
				}
				if missing == "" {
					if rep.status == http.StatusForbidden {
						t.Fatalf("refused: %s", rep.body)
					}
					return
				}
				want := `Bearer error="insufficient_scope", scope="` + missing + `", resource_metadata="m"`
				if rep.status != 403 || rep.header.Get("WWW-Authenticate") != want {
					t.Fatalf("got %d %q, want 403 %q (%s)", rep.status, rep.header.Get("WWW-Authenticate"), want, rep.body)
				}
				errObj, _ := rep.msg["error"].(map[string]any)
				data, _ := errObj["data"].(map[string]any)
				if rep.msg["id"] != float64(7) || data["requiredScope"] != missing {
					t.Fatalf("body %s", rep.body)
				}
			})
		}
	}
}
