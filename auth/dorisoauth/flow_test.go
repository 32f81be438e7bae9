package dorisoauth_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// TestMetadata: RFC 8414 and RFC 9728 documents name this server's
// endpoints, PKCE S256 only, iss in responses, metadata documents, and
// registration only where dynamic registration is on.
func TestMetadata(t *testing.T) {
	h := newHarness(t)
	as := h.get("/.well-known/oauth-authorization-server").json(t)
	for k, want := range map[string]any{
		"issuer": h.base, "authorization_endpoint": h.base + "/oauth/authorize", "token_endpoint": h.base + "/oauth/token",
		"revocation_endpoint": h.base + "/oauth/revoke", "registration_endpoint": h.base + "/oauth/register",
		"authorization_response_iss_parameter_supported": true, "client_id_metadata_document_supported": true,
	} {
		if as[k] != want {
			t.Errorf("AS metadata %s = %v, want %v", k, as[k], want)
		}
	}
	if m := as["code_challenge_methods_supported"].([]any); len(m) != 1 || m[0] != "S256" {
		t.Errorf("code_challenge_methods_supported = %v, want [S256]", m)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		pr := h.get(path).json(t)
		if pr["resource"] != h.base+"/mcp" || pr["authorization_servers"].([]any)[0] != h.base {
			t.Errorf("%s = %v", path, pr)
		}
		for _, s := range pr["scopes_supported"].([]any) {
			if strings.HasPrefix(s.(string), "prompt:") || s == "*" {
				t.Errorf("%s offers %v", path, s)
			}
		}
	}

	off := newHarness(t, func(c *dorisoauth.Config, _ *dorisoauth.Options) { c.DCRMode = "disabled" })
	if _, ok := off.get("/.well-known/oauth-authorization-server").json(t)["registration_endpoint"]; ok {
		t.Error("registration_endpoint advertised with DCR disabled")
	}
	if r := off.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"http://127.0.0.1/cb"}}); r.status != 404 && r.status != 405 {
		t.Errorf("register with DCR disabled: %d, want 404", r.status)
	}
	// The Host header must name this server (DNS rebinding).
	if r := h.get("/.well-known/oauth-authorization-server", "Host", "evil.example"); r.status != 403 {
		t.Errorf("foreign Host: %d, want 403", r.status)
	}
}

// TestFlow: the whole code flow with PKCE, then the token at the resource,
// refresh with rotation, reuse detection and revocation.
func TestFlow(t *testing.T) {
	h := newHarness(t)
	redirect := "http://127.0.0.1:9/callback"
	client := h.register(redirect)
	verifier, challenge := pkce("a")

	f := h.openLogin(authParams(client, redirect, challenge))
	if !strings.Contains(f.page.body, "Test Host") || !strings.Contains(f.page.body, "127.0.0.1:9") ||
		!strings.Contains(f.page.body, "program on this computer") {
		t.Errorf("the sign-in page does not name the client, its redirect host and the loopback warning:\n%s", f.page.body)
	}
	if csp := f.page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") ||
		!strings.Contains(csp, "form-action 'self' http://127.0.0.1:9") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP = %q", csp)
	}
	// "no-referrer" would make browsers send Origin: null with the form.
	if rp := f.page.header.Get("Referrer-Policy"); rp != "same-origin" {
		t.Errorf("Referrer-Policy = %q", rp)
	}
	// Wrong password: the form again, with an error, and no redirect.
	r := h.submit(f, "alice", "wrong")
	if r.status != 401 || r.location != nil || !strings.Contains(pageError(r), "did not accept") {
		t.Fatalf("wrong password: %d %v %q", r.status, r.location, pageError(r))
	}
	if strings.Contains(r.body, "wrong") {
		t.Error("the page repeats the password")
	}
	f = h.parseLogin(r)
	r = h.submit(f, "alice", "alice-pw-1")
	if r.status != 303 {
		t.Fatalf("right password: %d %s", r.status, pageError(r))
	}
	q := r.location.Query()
	if r.location.Host != "127.0.0.1:9" || q.Get("state") != "st-123" || q.Get("iss") != h.base || strings.Contains(q.Get("code"), "alice-pw-1") {
		t.Fatalf("redirect: %s", r.location)
	}
	tok, tr := h.exchange(client, q.Get("code"), verifier, redirect)
	if tr.status != 200 || tok.ExpiresIn != 900 || tr.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: %d %s %s", tr.status, tr.body, tr.header.Get("Cache-Control"))
	}
	for _, s := range []string{tok.Access, tok.Refresh} {
		if strings.Contains(s, "alice") {
			t.Errorf("a token shows its contents: %s", s)
		}
	}
	if !strings.HasPrefix(tok.Access, "doa_") || !strings.HasPrefix(tok.Refresh, "dor_") {
		t.Errorf("token prefixes: %.8s %.8s", tok.Access, tok.Refresh)
	}
	id := h.identity(tok.Access)
	if id.Method != "doris_oauth" || id.Subject != "alice" || id.Route != "doris-oauth:alice" || id.Credential == nil ||
		id.Credential.User != "alice" || id.Credential.Database != "information_schema" {
		t.Fatalf("identity: %+v %+v", id, id.Credential)
	}
	if id.Grants == nil || len(id.Grants) != 0 || !slices.Equal(id.Scopes, []string{"resource:list", "resource:read", "tool:list"}) {
		t.Errorf("grants %v scopes %v: want no children (child tools are off) and the safe operations", id.Grants, id.Scopes)
	}

	// Refresh rotates: the new pair works, the old access token is
	// superseded, and using the old refresh token again revokes the family.
	tok2, rr := h.refresh(client, tok.Refresh)
	if rr.status != 200 || tok2.Access == tok.Access || tok2.Refresh == tok.Refresh {
		t.Fatalf("refresh: %d %s", rr.status, rr.body)
	}
	h.identity(tok2.Access)
	wantRefused(t, h.call(tok.Access), 401, dorisoauth.ReasonRevoked)
	if _, rr = h.refresh(client, tok.Refresh); rr.status != 400 || !strings.Contains(rr.body, "already used") {
		t.Fatalf("reused refresh token: %d %s", rr.status, rr.body)
	}
	wantRefused(t, h.call(tok2.Access), 401, dorisoauth.ReasonRevoked)
	if _, rr = h.refresh(client, tok2.Refresh); rr.status != 400 {
		t.Fatalf("refresh of a revoked family: %d %s", rr.status, rr.body)
	}

	// Revocation (RFC 7009): a new sign-in, revoked by its refresh token;
	// unknown tokens are answered 200.
	_, tok3 := h.loginAs(client, redirect, "alice", "alice-pw-1")
	h.identity(tok3.Access)
	if r := h.postForm("/oauth/revoke", url.Values{"client_id": {client}, "token": {tok3.Refresh}, "token_type_hint": {"refresh_token"}}); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	wantRefused(t, h.call(tok3.Access), 401, dorisoauth.ReasonRevoked)
	if r := h.postForm("/oauth/revoke", url.Values{"client_id": {client}, "token": {"doa_nonsense"}}); r.status != 200 {
		t.Errorf("revoking an unknown token: %d, want 200", r.status)
	}
	other := h.register("http://127.0.0.1:9/other")
	_, tok4 := h.loginAs(other, "http://127.0.0.1:9/other", "bob", "bob-pw-1")
	if r := h.postForm("/oauth/revoke", url.Values{"client_id": {client}, "token": {tok4.Access}}); r.status != 400 {
		t.Errorf("revoking another client's token: %d %s, want 400", r.status, r.body)
	}
	h.identity(tok4.Access)
}

// loginAs runs the flow for an existing client.
func (h *harness) loginAs(client, redirect, user, password string) (string, tokens) {
	h.t.Helper()
	verifier, challenge := pkce("z")
	code := h.signIn(client, redirect, challenge, user, password)
	tok, r := h.exchange(client, code, verifier, redirect)
	if r.status != 200 {
		h.t.Fatalf("token: %d %s", r.status, r.body)
	}
	return code, tok
}

// TestAuthorizeFailures: before the client and redirect are known to be
// genuine, errors are shown and never redirected; after, they go back to
// the client with state and iss.
func TestAuthorizeFailures(t *testing.T) {
	h := newHarness(t)
	redirect := "http://127.0.0.1:9/callback"
	client := h.register(redirect)
	_, challenge := pkce("b")
	mod := func(kv ...string) url.Values {
		p := authParams(client, redirect, challenge)
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "-" {
				p.Del(kv[i])
			} else {
				p.Set(kv[i], kv[i+1])
			}
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		query   string
		status  int
		errCode string // "" = a page, not a redirect; "login" = the sign-in page
	}{
		{"good", mod().Encode(), 302, "login"},
		{"loopback redirect on another port", mod("redirect_uri", "http://127.0.0.1:4711/callback").Encode(), 302, "login"},
		{"no redirect_uri with one registered", mod("redirect_uri", "-").Encode(), 302, "login"},
		{"unknown client", mod("client_id", "nobody").Encode(), 400, ""},
		{"forged registration", mod("client_id", "dcr_"+strings.Repeat("A", 80)).Encode(), 400, ""},
		{"unregistered redirect", mod("redirect_uri", "http://127.0.0.1:9/elsewhere").Encode(), 400, ""},
		{"redirect to another host", mod("redirect_uri", "https://evil.example/callback").Encode(), 400, ""},
		{"redirect with a fragment", mod("redirect_uri", redirect+"#x").Encode(), 400, ""},
		{"repeated parameter", mod().Encode() + "&client_id=" + url.QueryEscape(client), 400, ""},
		{"no PKCE", mod("code_challenge", "-", "code_challenge_method", "-").Encode(), 302, "invalid_request"},
		{"plain PKCE", mod("code_challenge_method", "plain").Encode(), 302, "invalid_request"},
		{"short challenge", mod("code_challenge", "abc").Encode(), 302, "invalid_request"},
		{"token response type", mod("response_type", "token").Encode(), 302, "unsupported_response_type"},
		{"another resource", mod("resource", "https://other.example/mcp").Encode(), 302, "invalid_target"},
		{"prompt scope", mod("scope", "tool:list prompt:get").Encode(), 302, "invalid_scope"},
		{"wildcard scope", mod("scope", "*").Encode(), 302, "invalid_scope"},
		{"admin scope", mod("scope", "scope:admin").Encode(), 302, "invalid_scope"},
		{"child not allowlisted", mod("scope", "child:call:doris_query:execute_query").Encode(), 302, "invalid_scope"},
		{"state too long", mod("state", strings.Repeat("s", 1025)).Encode(), 302, "invalid_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.with(t).get("/oauth/authorize?" + tc.query)
			if r.status != tc.status {
				t.Fatalf("got %d %s, want %d", r.status, r.body, tc.status)
			}
			switch tc.errCode {
			case "":
				if r.location != nil || !strings.Contains(r.header.Get("Content-Type"), "text/html") {
					t.Errorf("a refusal before the redirect is trusted went to %v", r.location)
				}
			case "login":
				if r.location.Path != "/doris-login" {
					t.Errorf("went to %v, want the sign-in page", r.location)
				}
			default:
				q := r.location.Query()
				wantState := "st-123"
				if tc.name == "state too long" {
					wantState = "" // never echoed
				}
				if r.location.Host != "127.0.0.1:9" || q.Get("error") != tc.errCode || q.Get("iss") != h.base || q.Get("state") != wantState {
					t.Errorf("error redirect %v, want %s with state %q and iss", r.location, tc.errCode, wantState)
				}
			}
		})
	}
}

// TestTokenFailures: each way a code exchange can be wrong fails with the
// RFC 6749 error, and a code used twice revokes what it issued.
func TestTokenFailures(t *testing.T) {
	h := newHarness(t)
	redirect := "http://127.0.0.1:9/callback"
	client := h.register(redirect)
	other := h.register(redirect)
	verifier, challenge := pkce("c")

	for _, tc := range []struct {
		name   string
		client string
		extra  []string
		status int
		code   string
	}{
		{"wrong verifier", client, []string{"code_verifier", strings.Repeat("x", 64)}, 400, "invalid_grant"},
		{"short verifier", client, []string{"code_verifier", "abc"}, 400, "invalid_grant"},
		{"no verifier", client, []string{"code_verifier", ""}, 400, "invalid_request"},
		{"another client", other, nil, 400, "invalid_grant"},
		{"unknown client", "nobody", nil, 401, "invalid_client"},
		{"no client", "", []string{"client_id", ""}, 401, "invalid_client"},
		{"public client with a secret", client, []string{"client_secret", "x"}, 401, "invalid_client"},
		{"another redirect", client, []string{"redirect_uri", "http://127.0.0.1:9/elsewhere"}, 400, "invalid_grant"},
		{"another resource", client, []string{"resource", "https://other.example/mcp"}, 400, "invalid_target"},
		{"wider scope", client, []string{"scope", "tool:list prompt:list"}, 400, "invalid_scope"},
		{"bad grant", client, []string{"grant_type", "password"}, 400, "unsupported_grant_type"},
		{"forged code", client, []string{"code", "doc_" + strings.Repeat("A", 100)}, 400, "invalid_grant"},
		{"refresh token as code", client, []string{"code", "dor_" + strings.Repeat("A", 100)}, 400, "invalid_grant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			extra := append([]string{"client_id", tc.client}, tc.extra...)
			_, r := h.exchange(client, h.signIn(client, redirect, challenge, "alice", "alice-pw-1"), verifier, redirect, extra...)
			if r.status != tc.status || r.json(t)["error"] != tc.code {
				t.Errorf("got %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
		})
	}
	t.Run("expired code", func(t *testing.T) {
		h := h.with(t)
		code := h.signIn(client, redirect, challenge, "alice", "alice-pw-1")
		h.clock.Advance(301 * time.Second)
		_, r := h.exchange(client, code, verifier, redirect)
		if r.status != 400 || r.json(t)["error"] != "invalid_grant" {
			t.Errorf("got %d %s", r.status, r.body)
		}
	})
	t.Run("code replay", func(t *testing.T) {
		h := h.with(t)
		code := h.signIn(client, redirect, challenge, "alice", "alice-pw-1")
		tok, r := h.exchange(client, code, verifier, redirect)
		if r.status != 200 {
			t.Fatalf("first exchange: %d %s", r.status, r.body)
		}
		h.identity(tok.Access)
		if _, r = h.exchange(client, code, verifier, redirect); r.status != 400 || !strings.Contains(r.body, "already used") {
			t.Errorf("second exchange: %d %s", r.status, r.body)
		}
		wantRefused(t, h.call(tok.Access), 401, dorisoauth.ReasonRevoked)
		if _, r = h.refresh(client, tok.Refresh); r.status != 400 {
			t.Errorf("refresh after replay: %d %s", r.status, r.body)
		}
	})
	t.Run("malformed bodies", func(t *testing.T) {
		h := h.with(t)
		for _, body := range []string{"grant_type=authorization_code&grant_type=refresh_token", "a=%zz", "x=\x01"} {
			if r := h.postRaw("/oauth/token", "application/x-www-form-urlencoded", body); r.status != 400 {
				t.Errorf("%q: %d", body, r.status)
			}
		}
		if r := h.postRaw("/oauth/token", "application/json", `{"grant_type":"authorization_code"}`); r.status != 400 {
			t.Errorf("JSON body: %d", r.status)
		}
	})
}

// TestCommandLineEndpoints: the reference's /api/auth/token (a password
// grant for the built-in "cli" client) and /api/auth/refresh.
func TestCommandLineEndpoints(t *testing.T) {
	h := newHarness(t)
	if r := h.postJSON("/api/auth/token", map[string]any{"username": "alice", "password": "wrong"}); r.status != 401 || r.json(t)["error"] != "invalid_grant" {
		t.Errorf("wrong password: %d %s", r.status, r.body)
	}
	if r := h.postJSON("/api/auth/token", map[string]any{"username": "alice", "password": "alice-pw-1", "scope": "prompt:list"}); r.status != 400 {
		t.Errorf("prompt scope: %d %s", r.status, r.body)
	}
	r := h.postJSON("/api/auth/token", map[string]any{"username": "alice", "password": "alice-pw-1"})
	tok := parseTokens(r)
	if r.status != 200 || tok.Access == "" {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	if id := h.identity(tok.Access); id.Subject != "alice" {
		t.Errorf("identity %+v", id)
	}
	r = h.postJSON("/api/auth/refresh", map[string]any{"refresh_token": tok.Refresh})
	if tok2 := parseTokens(r); r.status != 200 || tok2.Access == "" {
		t.Fatalf("refresh: %d %s", r.status, r.body)
	}
	// The same refresh token again: reuse, the family is revoked.
	if r = h.postJSON("/api/auth/refresh", map[string]any{"refresh_token": tok.Refresh}); r.status != 400 {
		t.Errorf("reuse: %d %s", r.status, r.body)
	}
	// Another client's refresh token is not the command line's.
	_, other := h.login("alice", "alice-pw-1")
	if r = h.postJSON("/api/auth/refresh", map[string]any{"refresh_token": other.Refresh}); r.status != 400 {
		t.Errorf("a browser client's token through the command-line refresh: %d %s", r.status, r.body)
	}
}
