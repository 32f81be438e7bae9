package auth_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

const resource = "http://127.0.0.1:3000/mcp"

// withOAuth turns external OAuth on against the authorization server as,
// found by discovery, for resource.
func withOAuth(as *authtest.Server) func(*auth.Config) {
	return func(c *auth.Config) {
		c.OAuthAuth = true
		o := &c.OAuth
		o.Issuer, o.Resource, o.DiscoveryURL = as.Issuer(), resource, as.URL+"/.well-known/openid-configuration"
		o.ClientID, o.ClientSecret = as.ClientID, as.ClientSecret
		o.Scopes = []string{"tool:list", "resource:list", "resource:read", "child:call:doris_catalog:list_tables"}
		o.RequiredScopes = []string{"tool:list"}
	}
}

// TestOAuthResourceServer: JWT access tokens verified with the
// authorization server's JWKS and opaque ones introspected, both bound to
// the canonical resource; scopes exact; challenges per RFC 6750 and 9728.
func TestOAuthResourceServer(t *testing.T) {
	keys := authtest.NewKeys(t, "as")
	as := authtest.NewServer(t, keys)
	now := t0
	a := newAuth(t, auth.Options{Now: func() time.Time { return now }}, withOAuth(as))
	at := func(mod map[string]any) string {
		c := claims(as.Issuer(), resource, map[string]any{"scope": "tool:list resource:read openid child:call:doris_catalog:list_tables", "client_id": "host-app"})
		for k, v := range mod {
			if v == nil {
				delete(c, k)
			} else {
				c[k] = v
			}
		}
		return authtest.Sign(map[string]any{"alg": "ES256", "typ": "at+jwt", "kid": keys.KIDs["ES256"]}, c, keys.EC)
	}
	const meta = `resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"`

	id, e := identify(a, at(nil))
	if e != nil || id.Method != "oauth" || id.Subject != "alice" || !slices.Equal(id.Scopes, []string{"resource:read", "tool:list"}) ||
		!slices.Equal(id.Grants, []string{"child:call:doris_catalog:list_tables"}) {
		t.Fatalf("JWT access token: %+v %+v", id, e)
	}
	if id, e := identify(a, at(map[string]any{"sub": nil})); e != nil || id.Subject != "client:host-app" {
		t.Fatalf("client-credentials token: %+v %+v", id, e)
	}
	for _, tc := range []struct {
		name, token string
		status      int
		code, desc  string
		scope       string
	}{
		{"no token", "", 401, "", "", "tool:list"},
		{"wrong audience (an ID token for the client)", at(map[string]any{"aud": "host-app"}), 401, "invalid_token", "audience", "tool:list"},
		{"another resource", at(map[string]any{"aud": "http://127.0.0.1:3000/other"}), 401, "invalid_token", "audience", "tool:list"},
		{"wrong issuer", at(map[string]any{"iss": "https://evil.test"}), 401, "invalid_token", "issuer", "tool:list"},
		{"expired", at(map[string]any{"exp": t0.Unix() - 60}), 401, "invalid_token", "expired", "tool:list"},
		{"not yet valid", at(map[string]any{"nbf": t0.Unix() + 600}), 401, "invalid_token", "not valid yet", "tool:list"},
		{"tampered", authtest.Tamper(at(nil)), 401, "invalid_token", "signature", "tool:list"},
		{"alg none", authtest.Sign(map[string]any{"alg": "none"}, claims(as.Issuer(), resource, nil), nil), 401, "invalid_token", "algorithm", "tool:list"},
		{"HS256 signed with the public key", authtest.Sign(map[string]any{"alg": "HS256"}, claims(as.Issuer(), resource, nil), []byte(keys.PublicPEM("RS256"))), 401, "invalid_token", "algorithm", "tool:list"},
		{"unknown kid", authtest.Sign(map[string]any{"alg": "ES256", "kid": "nope"}, claims(as.Issuer(), resource, nil), keys.EC), 401, "invalid_token", "unknown key", "tool:list"},
		{"missing the required scope", at(map[string]any{"scope": "resource:read"}), 403, "insufficient_scope", "required scope", "tool:list"},
		{"required scope outside OAUTH_SCOPE does not count", at(map[string]any{"scope": "admin"}), 403, "insufficient_scope", "", "tool:list"},
		{"unknown opaque token", "opaque-unknown-0123456789", 401, "invalid_token", "not active", "tool:list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := identify(a, tc.token)
			if e == nil {
				t.Fatal("accepted")
			}
			if e.Status != tc.status || e.Code != tc.code || !strings.Contains(e.Description, tc.desc) {
				t.Fatalf("got %d %q %q, want %d %q %q", e.Status, e.Code, e.Description, tc.status, tc.code, tc.desc)
			}
			if !strings.Contains(e.Challenge, meta) || !strings.Contains(e.Challenge, `scope="`+tc.scope+`"`) ||
				(tc.code != "" && !strings.Contains(e.Challenge, `error="`+tc.code+`"`)) || (tc.code == "" && strings.Contains(e.Challenge, "error=")) {
				t.Fatalf("challenge %q", e.Challenge)
			}
		})
	}
	if got := a.ScopeChallenge("prompt:get"); got != `Bearer realm="doris-mcp-server", error="insufficient_scope", error_description="the token lacks the scope prompt:get", scope="prompt:get tool:list", `+meta {
		t.Errorf("scope challenge %q", got)
	}
}

// TestOAuthIntrospection: opaque tokens are introspected once and cached
// until the earlier of exp and the cache bound, so a revocation is seen
// within OAUTH_INTROSPECTION_CACHE_SECONDS and an expired token never
// passes from the cache.
func TestOAuthIntrospection(t *testing.T) {
	as := authtest.NewServer(t, authtest.NewKeys(t, "as"))
	now := t0
	a := newAuth(t, auth.Options{Now: func() time.Time { return now }}, withOAuth(as), func(c *auth.Config) { c.OAuth.IntrospectCache = 60 * time.Second })
	good := func(exp time.Time) map[string]any {
		return map[string]any{"sub": "bob", "scope": "tool:list resource:list", "aud": []string{resource}, "iss": as.Issuer(),
			"exp": exp.Unix(), "token_type": "Bearer", "client_id": "host-app"}
	}
	as.AddOpaque("opaque-long", good(t0.Add(time.Hour)))
	as.AddOpaque("opaque-short", good(t0.Add(20*time.Second)))
	wrongAud := good(t0.Add(time.Hour))
	wrongAud["aud"] = "http://127.0.0.1:3000/other"
	as.AddOpaque("opaque-wrong-aud", wrongAud)
	noAud := good(t0.Add(time.Hour))
	delete(noAud, "aud")
	as.AddOpaque("opaque-no-aud", noAud)
	refresh := good(t0.Add(time.Hour))
	refresh["token_type"] = "refresh_token"
	as.AddOpaque("opaque-refresh", refresh)

	ok := func(tok string) (bool, int64) {
		_, e := identify(a, tok)
		return e == nil, as.Introspections.Load()
	}
	if got, n := ok("opaque-long"); !got || n != 1 {
		t.Fatalf("first use: ok=%v introspections=%d", got, n)
	}
	if got, n := ok("opaque-long"); !got || n != 1 {
		t.Fatalf("cached use: ok=%v introspections=%d", got, n)
	}
	as.Revoke("opaque-long")
	now = now.Add(30 * time.Second)
	if got, _ := ok("opaque-long"); !got {
		t.Fatal("a cached token was refused before the cache bound")
	}
	now = now.Add(31 * time.Second)
	if got, _ := ok("opaque-long"); got {
		t.Fatal("a revoked token still passes after the cache bound")
	}
	now = t0
	if got, _ := ok("opaque-short"); !got {
		t.Fatal("short-lived token refused while valid")
	}
	now = t0.Add(31 * time.Second) // past exp and the 10 s leeway
	n0 := as.Introspections.Load()
	if got, n := ok("opaque-short"); got || n != n0+1 {
		t.Fatalf("expired token: ok=%v, introspections %d -> %d (the cache must end at exp)", got, n0, n)
	}
	for _, tok := range []string{"opaque-wrong-aud", "opaque-no-aud", "opaque-refresh"} {
		if _, e := identify(a, tok); e == nil || e.Status != 401 {
			t.Errorf("%s: %+v", tok, e)
		}
	}
	as.SetDown(true)
	if _, e := identify(a, "opaque-anything"); e == nil || e.Status != 503 {
		t.Errorf("introspection down: %+v, want 503", e)
	}
}

// TestProtectedResourceMetadata: RFC 9728 metadata at the root and the
// path-suffixed well-known URIs, behind the Host policy.
func TestProtectedResourceMetadata(t *testing.T) {
	as := authtest.NewServer(t, authtest.NewKeys(t, "as"))
	policy, _ := auth.NewHostPolicy("127.0.0.1", nil, nil)
	a := newAuth(t, auth.Options{Policy: policy}, withOAuth(as))
	mux := http.NewServeMux()
	for p, h := range a.Mount() {
		mux.Handle(p, h)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		r := httptest.NewRequest("GET", "http://127.0.0.1:3000"+path, nil)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		var md struct {
			Resource string   `json:"resource"`
			AS       []string `json:"authorization_servers"`
			Scopes   []string `json:"scopes_supported"`
			Methods  []string `json:"bearer_methods_supported"`
		}
		body, _ := io.ReadAll(w.Result().Body)
		if w.Code != 200 || json.Unmarshal(body, &md) != nil || md.Resource != resource || !slices.Equal(md.AS, []string{as.Issuer()}) ||
			len(md.Scopes) != 4 || !slices.Equal(md.Methods, []string{"header"}) {
			t.Errorf("%s: %d %s", path, w.Code, body)
		}
		r.Host = "evil.example.com"
		w = httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		if w.Code != 403 {
			t.Errorf("%s with a foreign Host: %d", path, w.Code)
		}
	}
}
