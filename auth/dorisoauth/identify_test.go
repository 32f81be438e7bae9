package dorisoauth_test

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// TestIdentifyRefusals: every way a bearer can be wrong gets its status,
// reason and a challenge that leads the Host back to the metadata.
func TestIdentifyRefusals(t *testing.T) {
	h := newHarness(t)
	client, tok := h.login("alice", "alice-pw-1")
	_ = client
	tampered := []byte(tok.Access)
	tampered[20] = map[bool]byte{true: 'B', false: 'A'}[tampered[20] == 'A']
	for _, tc := range []struct {
		name   string
		header []string // Authorization values
		status int
		reason string
		errStr string // the RFC 6750 error in the challenge, "" for none
	}{
		{"no header", nil, 401, dorisoauth.ReasonMissing, ""},
		{"basic scheme", []string{"Basic YWxpY2U6cHc="}, 401, dorisoauth.ReasonMissing, ""},
		{"two headers", []string{"Bearer " + tok.Access, "Bearer " + tok.Access}, 400, dorisoauth.ReasonMalformed, "invalid_request"},
		{"bad characters", []string{"Bearer doa_a,b"}, 400, dorisoauth.ReasonMalformed, "invalid_request"},
		{"empty bearer", []string{"Bearer "}, 400, dorisoauth.ReasonMalformed, "invalid_request"},
		{"garbage", []string{"Bearer doa_abc"}, 401, dorisoauth.ReasonInvalid, "invalid_token"},
		{"tampered", []string{"Bearer " + string(tampered)}, 401, dorisoauth.ReasonInvalid, "invalid_token"},
		{"refresh token as access token", []string{"Bearer " + tok.Refresh}, 401, dorisoauth.ReasonInvalid, "invalid_token"},
		{"scheme in lower case", []string{"bearer " + tok.Access}, 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := h.with(t)
			req, _ := http.NewRequest("POST", h.base+"/mcp", nil)
			for _, v := range tc.header {
				req.Header.Add("Authorization", v)
			}
			r := h.do(req)
			if tc.status == 200 {
				if r.status != 200 {
					t.Errorf("got %d %s", r.status, r.body)
				}
				return
			}
			wantRefused(t, r, tc.status, tc.reason)
			ch := r.header.Get("WWW-Authenticate")
			if got := strings.Contains(ch, `error="`); got != (tc.errStr != "") || (tc.errStr != "" && !strings.Contains(ch, `error="`+tc.errStr+`"`)) {
				t.Errorf("challenge %q, want error %q", ch, tc.errStr)
			}
			if !strings.Contains(ch, `resource_metadata="`+h.base+`/.well-known/oauth-protected-resource/mcp"`) || !strings.Contains(ch, `scope="`) {
				t.Errorf("challenge %q", ch)
			}
		})
	}

	t.Run("expired", func(t *testing.T) {
		h := h.with(t)
		_, tok := h.login("bob", "bob-pw-1")
		h.clock.Advance(901 * time.Second)
		wantRefused(t, h.call(tok.Access), 401, dorisoauth.ReasonExpired)
	})
	t.Run("another server's secret", func(t *testing.T) {
		o := newHarness(t, func(c *dorisoauth.Config, _ *dorisoauth.Options) { c.Secret = "Zq8-w3Lk5Xv7Bn2Mc4Ht6Yp9Rs1Gd0Jf#e" })
		_, tok := o.login("alice", "alice-pw-1")
		wantRefused(t, h.with(t).call(tok.Access), 401, dorisoauth.ReasonInvalid)
	})
	t.Run("another resource, same secret", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		o := startHarness(t, l, h.clock, h.doris)
		_, tok := o.login("alice", "alice-pw-1")
		wantRefused(t, h.with(t).call(tok.Access), 401, dorisoauth.ReasonAudience)
	})
}

// TestReauthentication: when Doris stops accepting the person's password,
// every request after the credential-check interval is refused with the
// re-authentication reason, and refresh fails: the Host must sign the
// person in again. While Doris is unreachable, requests pass (the call
// itself then fails on the person's own pool; nothing falls back).
func TestReauthentication(t *testing.T) {
	h := newHarness(t)
	client, tok := h.login("alice", "alice-pw-1")
	checks := h.doris.checks.Load()
	h.identity(tok.Access)
	h.identity(tok.Access)
	if n := h.doris.checks.Load() - checks; n != 0 {
		t.Errorf("%d Doris checks within the interval after sign-in, want 0", n)
	}
	h.doris.set("alice", "changed-by-admin")
	h.identity(tok.Access) // within the interval: not asked again
	h.clock.Advance(61 * time.Second)
	wantRefused(t, h.call(tok.Access), 401, dorisoauth.ReasonReauth)
	if ch := h.call(tok.Access).header.Get("WWW-Authenticate"); !strings.Contains(ch, `error="invalid_token"`) {
		t.Errorf("challenge %q", ch)
	}
	if _, r := h.refresh(client, tok.Refresh); r.status != 400 || r.json(t)["error"] != "invalid_grant" {
		t.Errorf("refresh: %d %s", r.status, r.body)
	}
	// Signing in again with the new password works.
	_, tok2 := h.login("alice", "changed-by-admin")
	h.identity(tok2.Access)

	h.clock.Advance(61 * time.Second)
	h.doris.down.Store(true)
	h.identity(tok2.Access)
	if _, r := h.refresh(client, tok2.Refresh); r.status != 503 && r.status != 400 {
		t.Errorf("refresh while Doris is down: %d %s", r.status, r.body)
	}
}

// TestCredentialRefused: when a call finds that Doris refuses the
// person's credential before the check interval comes round, the
// transport gets the 401 to answer with, and this replica refuses the
// token at once afterwards, without asking Doris again.
func TestCredentialRefused(t *testing.T) {
	h := newHarness(t)
	_, tok := h.login("alice", "alice-pw-1")
	id, err := h.srv.Verify(t.Context(), tok.Access)
	if err != nil {
		t.Fatal(err)
	}
	ae := h.srv.CredentialRefused(id)
	if ae == nil || ae.Status != 401 || !strings.Contains(ae.Description, dorisoauth.ReasonReauth) || !strings.Contains(ae.Challenge, `error="invalid_token"`) {
		t.Fatalf("refusal %+v", ae)
	}
	checks := h.doris.checks.Load()
	wantRefused(t, h.call(tok.Access), 401, dorisoauth.ReasonReauth)
	if h.doris.checks.Load() != checks {
		t.Error("Doris was asked again")
	}
	if h.srv.CredentialRefused(auth.Anonymous()) != nil {
		t.Error("a refusal for an identity that is not a Doris OAuth person")
	}
}

// TestScopesAndChildren: with child tools on, the default grant is the
// allowlist's call scopes; an explicit request may narrow it; narrowing
// the allowlist takes effect for tokens already issued.
func TestScopesAndChildren(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, d := newClock(), &doris{users: map[string]string{"alice": "alice-pw-1"}}
	wide := func(cfg *dorisoauth.Config, _ *dorisoauth.Options) {
		cfg.ChildToolsEnabled = true
		cfg.ChildToolAllowlist = []string{"doris_catalog.list_tables", "doris_query.execute_query"}
		cfg.SemanticTools = true
	}
	h := startHarness(t, l, c, d, wide)
	client, tok := h.login("alice", "alice-pw-1")
	id := h.identity(tok.Access)
	want := []string{"child:call:doris_catalog:list_tables", "child:call:doris_query:execute_query"}
	if !slices.Equal(id.Grants, want) || !slices.Contains(id.Scopes, "semantic:read") || slices.ContainsFunc(id.Scopes, func(s string) bool {
		return strings.HasPrefix(s, "prompt:")
	}) {
		t.Fatalf("grants %v scopes %v", id.Grants, id.Scopes)
	}
	if tok.Scope != "child:call:doris_catalog:list_tables child:call:doris_query:execute_query resource:list resource:read semantic:read tool:list" {
		t.Errorf("granted scope %q", tok.Scope)
	}
	// Explicit and narrower, including a discover-only scope.
	p := authParams(client, "http://127.0.0.1:9/callback", "")
	verifier, challenge := pkce("s")
	p.Set("code_challenge", challenge)
	p.Set("scope", "tool:list child:discover:doris_query:execute_query")
	r := h.submit(h.openLogin(p), "alice", "alice-pw-1")
	narrow, tr := h.exchange(client, r.location.Query().Get("code"), verifier, "http://127.0.0.1:9/callback")
	if tr.status != 200 || narrow.Scope != "child:discover:doris_query:execute_query tool:list" {
		t.Fatalf("narrow grant: %d %s", tr.status, tr.body)
	}
	// Refresh may narrow further, never widen.
	if _, rr := h.refresh(client, narrow.Refresh, "scope", "tool:list resource:read"); rr.status != 400 || rr.json(t)["error"] != "invalid_scope" {
		t.Errorf("widening refresh: %d %s", rr.status, rr.body)
	}
	if n, rr := h.refresh(client, narrow.Refresh, "scope", "tool:list"); rr.status != 200 || n.Scope != "tool:list" {
		t.Errorf("narrowing refresh: %d %s", rr.status, rr.body)
	}

	// The operator narrows the allowlist: same secret, same port, restarted.
	h.ts.Close()
	h.srv.Close()
	l2, err := net.Listen("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	h2 := startHarness(t, l2, c, d, wide, func(cfg *dorisoauth.Config, _ *dorisoauth.Options) {
		cfg.ChildToolAllowlist = []string{"doris_catalog.list_tables"}
	})
	if id := h2.identity(tok.Access); !slices.Equal(id.Grants, []string{"child:call:doris_catalog:list_tables"}) {
		t.Errorf("after narrowing the allowlist: grants %v", id.Grants)
	}
}

// syncBuf is a log sink safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogsHoldNoSecrets: through sign-in (wrong and right), token,
// refresh, revocation, re-authentication and Doris down, the log never
// holds a password, a token, a code or the secret, yet records events.
func TestLogsHoldNoSecrets(t *testing.T) {
	var logs syncBuf
	h := newHarness(t, func(_ *dorisoauth.Config, o *dorisoauth.Options) {
		o.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	redirect := "http://127.0.0.1:9/callback"
	client := h.register(redirect)
	verifier, challenge := pkce("l")
	f := h.openLogin(authParams(client, redirect, challenge))
	h.submit(h.parseLogin(h.submit(f, "alice", "wrong-pw-XYZ")), "bob", "bob-pw-1")
	code := h.signIn(client, redirect, challenge, "alice", "alice-pw-1")
	tok, _ := h.exchange(client, code, verifier, redirect)
	tok2, _ := h.refresh(client, tok.Refresh)
	h.refresh(client, tok.Refresh) // reuse: the family is revoked
	_, tok3 := h.loginAs(client, redirect, "alice", "alice-pw-1")
	h.doris.set("alice", "alice-pw-2")
	h.clock.Advance(61 * time.Second)
	h.call(tok3.Access)
	h.doris.down.Store(true)
	h.postJSON("/api/auth/token", map[string]any{"username": "bob", "password": "bob-pw-1"})
	out := logs.String()
	for _, secret := range []string{"wrong-pw-XYZ", "alice-pw-1", "alice-pw-2", "bob-pw-1", testSecret, code, tok.Access, tok.Refresh,
		tok2.Access, tok2.Refresh, tok3.Access, tok3.Refresh, verifier, client} {
		if secret != "" && strings.Contains(out, secret) {
			t.Errorf("the log holds %.12s...", secret)
		}
	}
	for _, event := range []string{"sign-in refused by Doris", "signed in", "tokens issued", "refresh token used twice", "access refused"} {
		if !strings.Contains(out, event) {
			t.Errorf("the log lacks %q", event)
		}
	}
}
