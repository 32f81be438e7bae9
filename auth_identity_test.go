package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// toolEnvelope calls a tool with token and returns its structuredContent.
func toolEnvelope(t *testing.T, base, token, tool string, args map[string]any) (map[string]any, mcpReply) {
	t.Helper()
	rep := mcpCall(t, base, "/mcp", token, "tools/call", tool, map[string]any{"name": tool, "arguments": args})
	if rep.status != 200 {
		return nil, rep
	}
	var r struct {
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(rep.msg.Result, &r); err != nil {
		t.Fatalf("%s: %s", tool, rep.body)
	}
	return r.StructuredContent, rep
}

func tokenDigest(tok string) string { d, _ := auth.Digest("sha256", tok); return d }

// TestNoChildLeak: a caller learns nothing about children it may not see:
// they are absent from discovery and from flat tools/list, and calling one
// (existing but ungranted, or discover-only) gets exactly the answer an
// unknown child gets.
func TestNoChildLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	_, _, denv := authDoris(t, nil)
	const tokNarrow = "leak-narrow-token-5d4c3b2a1f0e9d8c7b6a"
	file := writeTokensFile(t, fmt.Sprintf(`{"version":2,"tokens":[{"id":"narrow","digest":%q,
		"permissions":["tool:list","child:call:doris_catalog:list_tables","child:discover:doris_catalog:list_databases"]}]}`, tokenDigest(tokNarrow)))
	for _, mode := range []string{"hierarchical", "flat"} {
		t.Run(mode, func(t *testing.T) {
			env := map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_FILE_PATH": file, "MCP_TOOL_EXPOSURE_MODE": mode}
			for k, v := range denv {
				env[k] = v
			}
			srv := startInProcess(t, env)
			if mode == "flat" {
				rep := mcpCall(t, srv.base, "/mcp", tokNarrow, "tools/list", "", nil)
				var r struct {
					Tools []struct{ Name string } `json:"tools"`
				}
				json.Unmarshal(rep.msg.Result, &r)
				var names []string
				for _, tl := range r.Tools {
					names = append(names, tl.Name)
				}
				if !slices.Equal(names, []string{"doris_catalog_list_databases", "doris_catalog_list_tables"}) {
					t.Fatalf("flat tools/list shows %v", names)
				}
				unknown := func(tool string) string {
					rep := mcpCall(t, srv.base, "/mcp", tokNarrow, "tools/call", tool, map[string]any{"name": tool, "arguments": map[string]any{}})
					if rep.status == 200 && rep.msg.Error == nil {
						return "ran: " + string(rep.body)
					}
					return strings.ReplaceAll(string(rep.body), tool, "NAME")
				}
				want := unknown("doris_query_no_such_child")
				// (doris_catalog_list_databases is discover-only: visible,
				// so not part of this comparison.)
				for _, tool := range []string{"doris_query_execute_query", "doris_catalog_get_table_schema", "doris_pipeline_get_ingestion_status"} {
					if got := unknown(tool); got != want {
						t.Errorf("%s: got\n%s\nwant the unknown-tool answer\n%s", tool, got, want)
					}
				}
				return
			}
			disc, _ := toolEnvelope(t, srv.base, tokNarrow, "doris_catalog", map[string]any{})
			var children []string
			for _, c := range disc["children"].([]any) {
				children = append(children, c.(map[string]any)["name"].(string))
			}
			if !slices.Equal(children, []string{"list_databases", "list_tables"}) {
				t.Fatalf("discovery shows %v", children)
			}
			if qd, _ := toolEnvelope(t, srv.base, tokNarrow, "doris_query", map[string]any{}); len(qd["children"].([]any)) != 0 {
				t.Fatalf("a domain without grants discloses children: %v", qd)
			}
			call := func(domain, child string) string {
				env, rep := toolEnvelope(t, srv.base, tokNarrow, domain, map[string]any{"child_tool": child, "arguments": map[string]any{}})
				if env == nil {
					t.Fatalf("%s.%s: %s", domain, child, rep.body)
				}
				if e, ok := env["error"].(map[string]any); ok {
					delete(e, "trace_id") // each call's own, by design
				}
				b, _ := json.Marshal(env)
				return strings.ReplaceAll(string(b), `"`+child+`"`, `"NAME"`)
			}
			for _, d := range []string{"doris_query", "doris_catalog"} {
				want := call(d, "no_such_child")
				if !strings.Contains(want, `"CHILD_TOOL_NOT_FOUND"`) && !strings.Contains(want, "NOT_FOUND") {
					t.Fatalf("unknown child: %s", want)
				}
				for _, child := range map[string][]string{"doris_query": {"execute_query", "explain_query"}, "doris_catalog": {"get_table_schema", "list_databases"}}[d] {
					if got := call(d, child); got != want {
						t.Errorf("%s.%s: got\n%s\nwant the unknown-child answer\n%s", d, child, got, want)
					}
				}
			}
		})
	}
}

// TestHandlesBoundToPrincipal (ADR 0002): a list cursor minted for one
// token never opens for another, even with the same permissions, and a
// manifest_version reflects the caller's authorized children, so another
// caller's is stale for them.
func TestHandlesBoundToPrincipal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	_, _, denv := authDoris(t, nil)
	const alice, bob, carol = "principal-alice-token-0a9b8c7d6e5f4a3b", "principal-bob-token-1b2c3d4e5f6a7b8c9d", "principal-carol-token-2c3d4e5f6a7b8c9d0e"
	env := map[string]string{"ENABLE_TOKEN_AUTH": "true", "MCP_LIST_PAGE_SIZE": "2", "MCP_STATE_HANDLE_SECRET": "state-handle-secret-4f9e8d7c6b5a49382716",
		"TOKEN_ALICE": alice, "TOKEN_ALICE_PERMISSIONS": "tool:list,child:call:doris_catalog:list_tables",
		"TOKEN_BOB": bob, "TOKEN_BOB_PERMISSIONS": "tool:list,child:call:doris_catalog:list_tables",
		"TOKEN_CAROL": carol, "TOKEN_CAROL_PERMISSIONS": "tool:list,child:call:doris_catalog:list_tables,child:call:doris_catalog:list_databases"}
	for k, v := range denv {
		env[k] = v
	}
	srv := startInProcess(t, env)
	page := func(token, cursor string) mcpReply {
		p := map[string]any{}
		if cursor != "" {
			p["cursor"] = cursor
		}
		return mcpCall(t, srv.base, "/mcp", token, "tools/list", "", p)
	}
	var first struct{ NextCursor string }
	json.Unmarshal(page(alice, "").msg.Result, &first)
	if first.NextCursor == "" {
		t.Fatal("no cursor on the first page")
	}
	if rep := page(alice, first.NextCursor); rep.msg.Error != nil {
		t.Fatalf("alice's own cursor: %s", rep.body)
	}
	for _, other := range []string{bob, carol} {
		rep := page(other, first.NextCursor)
		if rep.msg.Error == nil || rep.msg.Error.Data["cursorError"] != "authorization_context_changed" {
			t.Errorf("another principal used alice's cursor: %s", rep.body)
		}
	}

	disc, _ := toolEnvelope(t, srv.base, alice, "doris_catalog", map[string]any{})
	mv := disc["manifest_version"].(string)
	args := map[string]any{"child_tool": "list_tables", "arguments": map[string]any{"database": "demo"}, "manifest_version": mv}
	if res, rep := toolEnvelope(t, srv.base, alice, "doris_catalog", args); res["mode"] != "result" {
		t.Fatalf("alice with her manifest_version: %s", rep.body)
	}
	res, rep := toolEnvelope(t, srv.base, carol, "doris_catalog", args)
	if res["mode"] != "error" || res["error"].(map[string]any)["code"] != "CHILD_MANIFEST_STALE" {
		t.Fatalf("carol (other children) with alice's manifest_version: %s", rep.body)
	}
}

// TestTokenRoute: a token bound to a Doris account of its own runs on that
// account, so Doris's grants decide what it sees; with a wrong password it
// fails with an authentication error and never runs as the service
// account; an unbound token runs as the service account.
func TestTokenRoute(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	const user, pw = "tok_narrow", "tok-narrow-pw-81"
	db, _, denv := authDoris(t, map[string]string{user: pw})
	if err := db.Exec(t.Context(),
		"CREATE USER '"+user+"'@'%' IDENTIFIED BY '"+pw+"'",
		"GRANT SELECT ON demo.customers TO '"+user+"'@'%'",
		"GRANT SELECT ON __internal_schema.* TO '"+user+"'@'%'",
		"GRANT SELECT ON __doris_sim.* TO '"+user+"'@'%'"); err != nil {
		t.Fatal(err)
	}
	const tokGlobal, tokNarrow, tokBroken = "route-global-token-3e4f5a6b7c8d9e0f1a2b", "route-narrow-token-4f5a6b7c8d9e0f1a2b3c", "route-broken-token-5a6b7c8d9e0f1a2b3c4d"
	file := writeTokensFile(t, fmt.Sprintf(`{"version":2,"tokens":[
		{"id":"narrow","digest":%q,"doris":{"user":%q,"password_env":"NARROW_DORIS_PASSWORD"}},
		{"id":"broken","digest":%q,"doris":{"user":%q,"password_env":"BROKEN_DORIS_PASSWORD"}}]}`,
		tokenDigest(tokNarrow), user, tokenDigest(tokBroken), user))
	env := map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_FILE_PATH": file, "TOKEN_GLOBAL": tokGlobal,
		"NARROW_DORIS_PASSWORD": pw, "BROKEN_DORIS_PASSWORD": "not-the-password"}
	for k, v := range denv {
		env[k] = v
	}
	srv := startInProcess(t, env)
	call := func(token, child string, args map[string]any) map[string]any {
		res, rep := toolEnvelope(t, srv.base, token, "doris_"+strings.SplitN(child, ".", 2)[0],
			map[string]any{"child_tool": strings.SplitN(child, ".", 2)[1], "arguments": args})
		if res == nil {
			t.Fatalf("%s: %s", child, rep.body)
		}
		return res
	}
	tables := func(token string) []string {
		res := call(token, "catalog.list_tables", map[string]any{"database": "demo"})
		var names []string
		outer, _ := res["data"].(map[string]any)
		data, _ := outer["data"].(map[string]any)
		items, ok := data["items"].([]any)
		if !ok {
			t.Fatalf("list_tables: %v", res)
		}
		{
			for _, it := range items {
				names = append(names, it.(map[string]any)["name"].(string))
			}
		}
		return names
	}
	if g, n := tables(tokGlobal), tables(tokNarrow); len(g) < 4 || !slices.Equal(n, []string{"customers"}) {
		t.Fatalf("the global token sees %v, the narrow token %v; want every demo table vs only customers", g, n)
	}
	reason := func(res map[string]any) string {
		e, _ := res["error"].(map[string]any)
		d, _ := e["details"].(map[string]any)
		s, _ := d["reason_code"].(string)
		return s
	}
	q := map[string]any{"sql": "SELECT COUNT(*) AS n FROM demo.orders"}
	if r := call(tokNarrow, "query.execute_query", q); reason(r) != "QUERY_PERMISSION_DENIED" {
		t.Errorf("the narrow token read orders: %v", r)
	}
	if r := call(tokGlobal, "query.execute_query", q); r["mode"] != "result" {
		t.Errorf("the global token: %v", r)
	}
	for _, args := range []map[string]any{q, {"sql": "SELECT 1"}} {
		if r := call(tokBroken, "query.execute_query", args); r["mode"] != "error" || reason(r) != "DORIS_AUTHENTICATION_FAILED" {
			t.Errorf("a token whose own account fails must not run as anyone else: %v", r)
		}
	}
	if strings.Contains(srv.logs.String(), pw) || strings.Contains(srv.logs.String(), "not-the-password") {
		t.Error("a Doris password reached the log")
	}
}
