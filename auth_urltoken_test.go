package main

import (
	"strings"
	"testing"
)

// TestDorisOAuthURLToken is the URL-token row of the auth matrix for the
// modes TestAuthMatrix cannot reach with its issuers: Doris-backed OAuth
// alone (its own bearer check, which reads only the header, used to serve
// a request that also carried ?access_token=) and Doris OAuth beside
// static tokens (the shared check). Every MCP method, on /mcp and
// /mcp/legacy, answers 400 invalid_request, and the token reaches neither
// the reply nor the log.
func TestDorisOAuthURLToken(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING: starts MariaDB (not in -short mode)")
	}
	d := startOAuthDoris(t)
	const static = "urltoken-static-token-5c4b3a29181706f5e4d3"
	for _, m := range []struct {
		name  string
		extra map[string]string
	}{
		{"doris-oauth", map[string]string{"ENABLE_LEGACY_HTTP_ADAPTER": "true"}},
		{"doris-oauth+token", map[string]string{"ENABLE_LEGACY_HTTP_ADAPTER": "true", "ENABLE_TOKEN_AUTH": "true", "TOKEN_STATIC": static}},
	} {
		t.Run(m.name, func(t *testing.T) {
			srv := startInProcess(t, oauthEnv(d, "{base}", m.extra))
			_, access, _ := newBrowser(t, srv.base).login("ana", "ana-pw-1")
			states := append([]credState{{name: "valid", token: access, outcome: "ok"}}, urlStates(access)...)
			if m.extra["TOKEN_STATIC"] != "" {
				states = append(states, credState{name: "static valid", token: static, outcome: "ok"})
				states = append(states, urlStates(static)...)
			}
			for _, st := range states {
				for _, mm := range matrixMethods {
					t.Run(st.name+"/"+strings.TrimPrefix(mm.path, "/")+"/"+mm.method, func(t *testing.T) {
						rep := mcpCall(t, srv.base, matrixPath(mm, st), st.token, mm.method, mm.name, mm.params)
						if st.outcome == "ok" {
							// A Doris OAuth token carries the scopes the
							// person granted, so a method may be 403; it
							// is never refused for the URL.
							if rep.status == 400 || rep.status == 401 {
								t.Fatalf("got %d %q %s, want the request served", rep.status, rep.challenge, rep.body)
							}
							return
						}
						checkMatrixReply(t, rep, st, mm, false, srv.base)
					})
				}
			}
			logs := srv.logs.String()
			for _, st := range states {
				if st.url != "" && strings.Contains(logs, st.url) {
					t.Errorf("state %q: the token reached the server log", st.name)
				}
			}
		})
	}
}
