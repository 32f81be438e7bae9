package dorisoauth_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// TestSignInForm: the form refuses forged, cross-site and stale
// submissions, checks names, and tells a wrong password from Doris being
// unreachable.
func TestSignInForm(t *testing.T) {
	h := newHarness(t)
	redirect := "http://127.0.0.1:9/callback"
	client := h.register(redirect)
	_, challenge := pkce("d")
	open := func(t *testing.T) (*harness, loginForm) {
		hh := h.with(t)
		return hh, hh.openLogin(authParams(client, redirect, challenge))
	}

	t.Run("no cookie", func(t *testing.T) {
		h, f := open(t)
		h.http.Jar.SetCookies(mustURL(h.base+"/doris-login"), []*http.Cookie{{Name: "doris_login_csrf", Value: "x", Path: "/doris-login", MaxAge: -1}})
		if r := h.submit(f, "alice", "alice-pw-1"); r.status != 403 || r.location != nil {
			t.Errorf("got %d %v, want 403", r.status, r.location)
		}
	})
	t.Run("token of another transaction", func(t *testing.T) {
		h, f1 := open(t)
		f2 := h.openLogin(authParams(client, redirect, challenge)) // the newer cookie
		f1.csrf = f2.csrf
		if r := h.submit(f1, "alice", "alice-pw-1"); r.status != 403 {
			t.Errorf("got %d, want 403", r.status)
		}
	})
	t.Run("cross-site origin", func(t *testing.T) {
		h, f := open(t)
		if r := h.submit(f, "alice", "alice-pw-1", "Origin", "https://evil.example"); r.status != 403 {
			t.Errorf("got %d, want 403", r.status)
		}
		if r := h.submit(f, "alice", "alice-pw-1", "Sec-Fetch-Site", "cross-site"); r.status != 403 {
			t.Errorf("Sec-Fetch-Site cross-site: got %d, want 403", r.status)
		}
	})
	t.Run("expired transaction", func(t *testing.T) {
		h, f := open(t)
		h.clock.Advance(301 * time.Second)
		if r := h.submit(f, "alice", "alice-pw-1"); r.status != 400 || !strings.Contains(pageError(r), "expired") {
			t.Errorf("got %d %q", r.status, pageError(r))
		}
		if r := h.get("/doris-login?txn_id=" + url.QueryEscape(f.txn)); r.status != 400 {
			t.Errorf("opening an expired link: %d", r.status)
		}
	})
	t.Run("tampered transaction", func(t *testing.T) {
		h, f := open(t)
		b := []byte(f.txn)
		b[len(b)-5] = map[bool]byte{true: 'B', false: 'A'}[b[len(b)-5] == 'A']
		f.txn = string(b)
		if r := h.submit(f, "alice", "alice-pw-1"); r.status != 400 && r.status != 403 {
			t.Errorf("got %d", r.status)
		}
	})
	t.Run("bad user name", func(t *testing.T) {
		h, f := open(t)
		for _, u := range []string{"", "a b", "x'; DROP", strings.Repeat("u", 65)} {
			if r := h.submit(f, u, "pw"); r.status != 400 || pageError(r) == "" {
				t.Errorf("user %q: %d %q", u, r.status, pageError(r))
			}
		}
	})
	t.Run("Doris unreachable", func(t *testing.T) {
		h, f := open(t)
		h.doris.down.Store(true)
		defer h.doris.down.Store(false)
		r := h.submit(f, "alice", "alice-pw-1")
		if r.status != 503 || !strings.Contains(pageError(r), "could not be reached") {
			t.Errorf("got %d %q", r.status, pageError(r))
		}
	})
	t.Run("GET without a transaction", func(t *testing.T) {
		h := h.with(t)
		if r := h.get("/doris-login"); r.status != 400 {
			t.Errorf("got %d", r.status)
		}
	})
}

// TestSignInRateLimits: attempts per transaction, per user and per
// address are bounded; a trusted proxy's X-Forwarded-For decides the
// address only when the proxy is trusted.
func TestSignInRateLimits(t *testing.T) {
	h := newHarness(t, func(c *dorisoauth.Config, _ *dorisoauth.Options) {
		c.Limits.LoginPerTxn, c.Limits.LoginPerUser, c.Limits.LoginPerIP = 3, 5, 1000
	})
	redirect := "http://127.0.0.1:9/callback"
	client := h.register(redirect)
	_, challenge := pkce("e")
	f := h.openLogin(authParams(client, redirect, challenge))
	for i := 1; i <= 4; i++ {
		r := h.submit(f, "alice", "wrong")
		want := 401
		if i > 3 {
			want = 429
		}
		if r.status != want {
			t.Fatalf("attempt %d: %d %q, want %d", i, r.status, pageError(r), want)
		}
	}
	// Per user, across transactions: 5 in the window.
	for i := 0; i < 2; i++ {
		f = h.openLogin(authParams(client, redirect, challenge))
		if r := h.submit(f, "alice", "wrong"); r.status != 401 && i == 0 {
			t.Fatalf("got %d", r.status)
		}
	}
	if r := h.submit(h.openLogin(authParams(client, redirect, challenge)), "alice", "alice-pw-1"); r.status != 429 {
		t.Errorf("sixth attempt for alice: %d, want 429", r.status)
	}
	h.clock.Advance(301 * time.Second)
	if r := h.submit(h.openLogin(authParams(client, redirect, challenge)), "alice", "alice-pw-1"); r.status != 303 {
		t.Errorf("after the window: %d %q", r.status, pageError(r))
	}

	// Per address: behind a trusted proxy, the forwarded address counts.
	for _, tc := range []struct {
		trusted  netip.Prefix
		separate bool
	}{{netip.MustParsePrefix("127.0.0.1/32"), true}, {netip.MustParsePrefix("10.0.0.0/8"), false}} {
		p := newHarness(t, func(c *dorisoauth.Config, _ *dorisoauth.Options) {
			c.Limits.TokenPerIP = 2
			c.TrustProxyHeaders = true
			c.TrustedProxies = []netip.Prefix{tc.trusted}
		})
		limited := 0
		for i := 0; i < 6; i++ {
			xff := "203.0.113.7, 198.51.100." + string(rune('1'+i))
			r := p.postForm("/oauth/token", url.Values{"grant_type": {"x"}}, "X-Forwarded-For", xff)
			if r.status == 429 {
				limited++
			}
		}
		if tc.separate && limited != 0 || !tc.separate && limited != 4 {
			t.Errorf("trusted %s: %d of 6 limited", tc.trusted, limited)
		}
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
