package main

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

// matrixMethod is one MCP request of the matrix and the operation scope it
// needs ("" none).
type matrixMethod struct {
	path, method, name string
	params             map[string]any
	scope              string
}

var matrixMethods = []matrixMethod{
	{"/mcp", "server/discover", "", nil, ""},
	{"/mcp", "tools/list", "", nil, "tool:list"},
	{"/mcp", "tools/call", "doris_catalog", map[string]any{"name": "doris_catalog", "arguments": map[string]any{}}, "tool:list"},
	{"/mcp", "resources/list", "", nil, "resource:list"},
	{"/mcp", "resources/templates/list", "", nil, "resource:list"},
	{"/mcp", "resources/read", "doris://table/internal/demo/customers", map[string]any{"uri": "doris://table/internal/demo/customers"}, "resource:read"},
	{"/mcp", "prompts/list", "", nil, "prompt:list"},
	{"/mcp", "prompts/get", "sales_analysis", map[string]any{"name": "sales_analysis", "arguments": map[string]any{"database": "demo"}}, "prompt:get"},
	{"/mcp", "completion/complete", "", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "sales_analysis"},
		"argument": map[string]any{"name": "database", "value": "de"}}, "prompt:get"},
	{"/mcp/legacy", "initialize", "", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "auth-test", "version": "1"}}, ""},
	{"/mcp/legacy", "tools/list", "", nil, "tool:list"},
}

// outcome is what a credential state must get: "ok", "401" (invalid or
// missing credential), "scope" (403 for methods needing a scope the
// credential lacks, ok otherwise), "403all" (403 on every method: a
// token without OAUTH_REQUIRED_SCOPE), or "400" (a token in the URL:
// invalid_request, whatever the header holds).
type credState struct {
	name, token, outcome string
	desc                 string // part of error_description (401s)
	url                  string // sent as ?access_token= too, when set
}

// urlStates are the URL-token cases of a mode whose valid token is valid:
// beside a valid header, and alone.
func urlStates(valid string) []credState {
	return []credState{
		{name: "valid token also in the URL", token: valid, outcome: "400", url: valid},
		{name: "token only in the URL", outcome: "400", url: valid},
	}
}

// matrixPath is the request path of a state: mm's, with the state's URL
// token.
func matrixPath(mm matrixMethod, st credState) string {
	if st.url == "" {
		return mm.path
	}
	return mm.path + "?access_token=" + url.QueryEscape(st.url)
}

// TestAuthMatrix: every MCP method × every credential state × every mode,
// over real HTTP against the real server, catalog and runtime on the Doris
// simulator: each answer's status, WWW-Authenticate challenge and error
// code, and no credential in any reply or log line.
func TestAuthMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MariaDB")
	}
	_, _, denv := authDoris(t, nil)
	keys := authtest.NewKeys(t, "mx")
	as := authtest.NewServer(t, keys)
	now := time.Now()
	const jwtIss, jwtAud = "https://jwt-issuer.test", "doris-mcp-client"
	full := "tool:list resource:list resource:read prompt:list prompt:get"
	sign := func(alg, kid string, c map[string]any) string {
		h := map[string]any{"alg": alg, "typ": "JWT"}
		if kid != "" {
			h["kid"] = kid
		}
		return authtest.Sign(h, c, keys.Private(alg))
	}
	claimsFor := func(iss, aud, scope string, mod map[string]any) map[string]any {
		c := map[string]any{"iss": iss, "aud": aud, "sub": "matrix-user", "iat": now.Unix() - 30, "exp": now.Unix() + 600, "scope": scope}
		for k, v := range mod {
			c[k] = v
		}
		return c
	}
	jwtStates := func(iss, aud string, alg string) []credState {
		kid := keys.KIDs[alg]
		valid := sign(alg, kid, claimsFor(iss, aud, full, nil))
		return append([]credState{
			{"none", "", "401", "", ""},
			{"valid", valid, "ok", "", ""},
			{"expired", sign(alg, kid, claimsFor(iss, aud, full, map[string]any{"exp": now.Unix() - 3600})), "401", "expired", ""},
			{"not yet valid", sign(alg, kid, claimsFor(iss, aud, full, map[string]any{"nbf": now.Unix() + 3600})), "401", "not valid yet", ""},
			{"wrong audience", sign(alg, kid, claimsFor(iss, "https://other.test/mcp", full, nil)), "401", "audience", ""},
			{"wrong issuer", sign(alg, kid, claimsFor("https://evil.test", aud, full, nil)), "401", "", ""},
			{"tampered signature", authtest.Tamper(valid), "401", "signature", ""},
			{"alg none", authtest.Sign(map[string]any{"alg": "none"}, claimsFor(iss, aud, full, nil), nil), "401", "", ""},
			{"HS256 with the RS256 public key", authtest.Sign(map[string]any{"alg": "HS256", "kid": keys.KIDs["RS256"]},
				claimsFor(iss, aud, full, nil), []byte(keys.PublicPEM("RS256"))), "401", "", ""},
			{"unknown token", "an-opaque-string-nobody-issued-0123456789", "401", "", ""},
			{"unknown kid", sign(alg, "kid-nobody-published", claimsFor(iss, aud, full, nil)), "401", "unknown key", ""},
			{"insufficient scope", sign(alg, kid, claimsFor(iss, aud, "tool:list", map[string]any{"permissions": []string{"tool:list"}})), "scope", "", ""},
		}, urlStates(valid)...)
	}

	// Static tokens: the states a digest can have, and every JWT-shaped
	// state, which is simply an unknown token to this mode.
	tokValid := "matrix-valid-token-7f3a9c1e5b2d4068aa11"
	tokNarrow := "matrix-narrow-token-0b1c2d3e4f5a6978bb22"
	tokExpired := "matrix-expired-token-9e8d7c6b5a4f3021cc33"
	tokRevoked := "matrix-revoked-token-1a2b3c4d5e6f7089dd44"
	dg := func(s string) string { d, _ := auth.Digest("sha256", s); return d }
	tokensFile := writeTokensFile(t, fmt.Sprintf(`{"version":2,"tokens":[
		{"id":"expired","digest":%q,"expires_at":"2020-01-01T00:00:00Z"},
		{"id":"revoked","digest":%q,"disabled":true},
		{"id":"narrow","digest":%q,"permissions":["tool:list"]}]}`, dg(tokExpired), dg(tokRevoked), dg(tokNarrow)))
	tokenStates := append([]credState{
		{"none", "", "401", "", ""},
		{"valid", tokValid, "ok", "", ""},
		{"expired", tokExpired, "401", "expired", ""},
		{"revoked", tokRevoked, "401", "revoked", ""},
		{"insufficient scope", tokNarrow, "scope", "", ""},
	}, urlStates(tokValid)...)
	for _, s := range jwtStates(jwtIss, jwtAud, "RS256")[2:] {
		if s.outcome == "401" && s.name != "expired" {
			s.desc = "not valid"
			tokenStates = append(tokenStates, s)
		}
	}

	// External OAuth: JWT access tokens and opaque ones.
	resource := "{base}/mcp"
	oauthStates := func(base string) []credState {
		res := base + "/mcp"
		st := jwtStates(as.Issuer(), res, "ES256")
		st = append(st, credState{"missing the required scope", sign("ES256", keys.KIDs["ES256"], claimsFor(as.Issuer(), res, "resource:read", nil)), "403all", "", ""})
		opaque := func(tok string, mod map[string]any) string {
			r := map[string]any{"sub": "opaque-user", "scope": full, "aud": res, "iss": as.Issuer(), "exp": now.Unix() + 600, "token_type": "Bearer"}
			for k, v := range mod {
				r[k] = v
			}
			as.AddOpaque(tok, r)
			return tok
		}
		revoked := opaque("opaque-revoked-0123456789abcdef", nil)
		as.Revoke(revoked)
		valid := opaque("opaque-valid-0123456789abcdef", nil)
		st = append(st, urlStates(valid)...)
		return append(st,
			credState{"opaque valid", valid, "ok", "", ""},
			credState{"opaque revoked", revoked, "401", "not active", ""},
			credState{"opaque wrong audience", opaque("opaque-aud-0123456789abcdef", map[string]any{"aud": "https://other.test/mcp"}), "401", "audience", ""},
			credState{"opaque expired", opaque("opaque-exp-0123456789abcdef", map[string]any{"exp": now.Unix() - 3600}), "401", "expired", ""},
			credState{"opaque insufficient scope", opaque("opaque-narrow-0123456789abcdef", map[string]any{"scope": "tool:list"}), "scope", "", ""},
		)
	}

	modes := []struct {
		name   string
		env    map[string]string
		states func(base string) []credState
		oauth  bool
	}{
		{"token", map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_VALID": tokValid, "TOKEN_FILE_PATH": tokensFile},
			func(string) []credState { return tokenStates }, false},
		{"jwt", map[string]string{"ENABLE_JWT_AUTH": "true", "JWT_ALGORITHM": "RS256,ES256,EdDSA", "JWT_ISSUER": jwtIss, "JWT_AUDIENCE": jwtAud,
			"JWT_JWKS_URL": as.URL + "/jwks", "JWT_JWKS_MIN_REFRESH_SECONDS": "1"},
			func(string) []credState { return jwtStates(jwtIss, jwtAud, "RS256") }, false},
		{"oauth", map[string]string{"ENABLE_OAUTH_AUTH": "true", "OAUTH_ISSUER": as.Issuer(), "OAUTH_RESOURCE": resource,
			"OAUTH_JWKS_URL": as.URL + "/jwks", "OAUTH_INTROSPECTION_URL": as.URL + "/introspect",
			"OAUTH_INTROSPECTION_CLIENT_ID": as.ClientID, "OAUTH_INTROSPECTION_CLIENT_SECRET": as.ClientSecret,
			"OAUTH_SCOPE": full + " child:call:doris_catalog:list_tables", "OAUTH_REQUIRED_SCOPE": "tool:list"}, oauthStates, true},
	}
	requests := 0
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range denv {
				env[k] = v
			}
			for k, v := range m.env {
				env[k] = v
			}
			srv := startInProcess(t, env)
			states := m.states(srv.base)
			for _, st := range states {
				for _, mm := range matrixMethods {
					t.Run(st.name+"/"+strings.TrimPrefix(mm.path, "/")+"/"+mm.method, func(t *testing.T) {
						requests++
						rep := mcpCall(t, srv.base, matrixPath(mm, st), st.token, mm.method, mm.name, mm.params)
						checkMatrixReply(t, rep, st, mm, m.oauth, srv.base)
					})
				}
			}
			logs := srv.logs.String()
			for _, st := range states {
				if st.token != "" && strings.Contains(logs, st.token) || st.url != "" && strings.Contains(logs, st.url) {
					t.Errorf("state %q: the token reached the server log", st.name)
				}
			}
			if !strings.Contains(logs, `"msg":"authentication refused"`) {
				t.Error("refusals are not logged")
			}
		})
	}
	t.Logf("%d requests", requests)
}

func checkMatrixReply(t *testing.T, rep mcpReply, st credState, mm matrixMethod, oauth bool, base string) {
	t.Helper()
	if st.token != "" && strings.Contains(string(rep.body), st.token) || st.url != "" && strings.Contains(string(rep.body), st.url) {
		t.Fatalf("the reply echoes the token: %s", rep.body)
	}
	meta := `resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
	outcome := st.outcome
	if outcome == "scope" && (mm.scope == "" || mm.scope == "tool:list") {
		outcome = "ok"
	}
	switch outcome {
	case "ok":
		if rep.status != 200 || rep.msg.Error != nil || rep.msg.Result == nil || rep.challenge != "" {
			t.Fatalf("got %d %q %s, want 200 with a result", rep.status, rep.challenge, rep.body)
		}
	case "401":
		if rep.status != 401 || !strings.HasPrefix(rep.challenge, `Bearer realm="doris-mcp-server"`) || rep.msg.Error == nil {
			t.Fatalf("got %d %q %s, want 401 with a Bearer challenge", rep.status, rep.challenge, rep.body)
		}
		hasCode := strings.Contains(rep.challenge, `error="invalid_token"`)
		if (st.token == "") == hasCode || (st.token == "" && strings.Contains(rep.challenge, "error")) {
			t.Fatalf("challenge %q: an error code must appear exactly when a token was sent", rep.challenge)
		}
		if !strings.Contains(rep.challenge, st.desc) {
			t.Fatalf("challenge %q does not say %q", rep.challenge, st.desc)
		}
		if oauth != strings.Contains(rep.challenge, meta) || oauth != strings.Contains(rep.challenge, `scope="tool:list"`) {
			t.Fatalf("challenge %q: resource_metadata and scope must appear exactly under OAuth", rep.challenge)
		}
	case "400":
		if rep.status != 400 || !strings.HasPrefix(rep.challenge, "Bearer ") || !strings.Contains(rep.challenge, `error="invalid_request"`) ||
			!strings.Contains(rep.challenge, "query string") || rep.msg.Error == nil {
			t.Fatalf("got %d %q %s, want 400 invalid_request refusing the token in the query string", rep.status, rep.challenge, rep.body)
		}
	case "scope", "403all":
		want := mm.scope
		if outcome == "403all" {
			want = "tool:list"
		}
		if rep.status != 403 || !strings.Contains(rep.challenge, `error="insufficient_scope"`) || oauth != strings.Contains(rep.challenge, meta) {
			t.Fatalf("got %d %q %s, want 403 insufficient_scope", rep.status, rep.challenge, rep.body)
		}
		scopes := strings.Fields(between(rep.challenge, `scope="`, `"`))
		if !slices.Contains(scopes, want) || (oauth && !slices.Contains(scopes, "tool:list")) {
			t.Fatalf("challenge %q does not name the scope %s", rep.challenge, want)
		}
		if outcome == "scope" && (rep.msg.Error == nil || rep.msg.Error.Data["requiredScope"] != want || rep.msg.ID != float64(42)) {
			t.Fatalf("body %s: want the JSON-RPC error naming %s with the request id", rep.body, want)
		}
	}
}

func between(s, from, to string) string {
	_, rest, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, to)
	return v
}
