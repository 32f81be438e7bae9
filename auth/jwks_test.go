package auth_test

import (
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

// TestJWKSRefresh: keys come from a JWKS URL, cached; a token naming an
// unknown kid triggers one refresh, and further unknown kids within the
// minimum interval trigger none; a rotated key is picked up; an outage
// keeps the cached keys.
func TestJWKSRefresh(t *testing.T) {
	keys := authtest.NewKeys(t, "gen1")
	as := authtest.NewServer(t, keys)
	now := t0
	a := newAuth(t, auth.Options{Now: func() time.Time { return now }}, func(c *auth.Config) {
		c.JWTAuth = true
		j := &c.JWT
		j.Algorithms, j.Issuer, j.Audience = []string{"RS256", "ES256", "EdDSA"}, "iss", "aud"
		j.JWKSURL, j.JWKSCache, j.JWKSMinRefresh = as.URL+"/jwks", 300*time.Second, 30*time.Second
	})
	tok := func(k *authtest.Keys, alg, kid string) string {
		c := claims("iss", "aud", map[string]any{"iat": now.Unix(), "exp": now.Unix() + 60})
		return authtest.Sign(map[string]any{"alg": alg, "kid": kid}, c, k.Private(alg))
	}
	check := func(name, token string, ok bool, fetches int64) {
		t.Helper()
		_, e := identify(a, token)
		if (e == nil) != ok || as.JWKSFetches.Load() != fetches {
			t.Fatalf("%s: error %+v, JWKS fetches %d; want ok=%v and %d fetches", name, e, as.JWKSFetches.Load(), ok, fetches)
		}
	}
	for _, alg := range []string{"RS256", "ES256", "EdDSA"} {
		check("first use of "+alg, tok(keys, alg, keys.KIDs[alg]), true, 1)
	}
	check("unknown kid right after a fetch does not refetch", tok(keys, "RS256", "forged-kid-0"), false, 1)
	now = now.Add(31 * time.Second)
	check("unknown kid refreshes once", tok(keys, "RS256", "forged-kid"), false, 2)
	now = now.Add(10 * time.Second)
	check("another unknown kid within the interval", tok(keys, "RS256", "forged-kid-2"), false, 2)
	_, e := identify(a, tok(keys, "RS256", "forged-kid-3"))
	if e == nil || !strings.Contains(e.Description, "unknown key") {
		t.Fatalf("unknown kid: %+v", e)
	}

	// Rotation: the issuer publishes gen2; its first token refreshes.
	gen2 := authtest.NewKeys(t, "gen2")
	as.SetJWKS(gen2.JWKS())
	now = now.Add(31 * time.Second)
	check("rotated key", tok(gen2, "ES256", gen2.KIDs["ES256"]), true, 3)
	check("old key after rotation", tok(keys, "ES256", keys.KIDs["ES256"]), false, 3)

	// An outage after the cache expired keeps the last keys.
	as.SetDown(true)
	now = now.Add(301 * time.Second)
	check("during an outage", tok(gen2, "EdDSA", gen2.KIDs["EdDSA"]), true, 4)
}

// TestJWKSUnavailable: when no key was ever fetched, a token gets 503 (the
// client should retry, not discard its token), not 401.
func TestJWKSUnavailable(t *testing.T) {
	keys := authtest.NewKeys(t, "k")
	as := authtest.NewServer(t, keys)
	as.SetDown(true)
	a := newAuth(t, auth.Options{}, func(c *auth.Config) {
		c.JWTAuth = true
		c.JWT.Issuer, c.JWT.Audience, c.JWT.JWKSURL = "iss", "aud", as.URL+"/jwks"
	})
	_, e := identify(a, authtest.Sign(map[string]any{"alg": "RS256", "kid": keys.KIDs["RS256"]}, claims("iss", "aud", nil), keys.RSA))
	if e == nil || e.Status != 503 || e.Challenge != "" {
		t.Fatalf("got %+v, want 503 without a challenge", e)
	}
}

// TestParseJWKS: what a key set may and may not contribute.
func TestParseJWKS(t *testing.T) {
	keys := authtest.NewKeys(t, "k")
	good := string(keys.JWKS())
	for _, tc := range []struct {
		name, doc string
		n         int // usable keys; -1: an error
	}{
		{"three keys", good, 3},
		{"skips encryption keys and oct", `{"keys":[{"kty":"oct","k":"c2VjcmV0"},{"kty":"RSA","use":"enc","n":"AQAB","e":"AQAB"},` + good[len(`{"keys":[`):], 3},
		{"only an oct key", `{"keys":[{"kty":"oct","k":"c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}]}`, -1},
		{"small RSA modulus", `{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`, -1},
		{"EC point off the curve", `{"keys":[{"kty":"EC","crv":"P-256","x":"` + strings.Repeat("A", 43) + `","y":"` + strings.Repeat("A", 43) + `"}]}`, -1},
		{"P-384", `{"keys":[{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]}`, -1},
		{"alg mismatch", strings.Replace(good, `"alg":"RS256"`, `"alg":"PS256"`, 1), 2},
		{"no keys member", `{"keys_":[]}`, -1},
		{"duplicate member", `{"keys":[],"keys":[]}`, -1},
		{"not JSON", `keys`, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ks, err := auth.ParseJWKS([]byte(tc.doc))
			if tc.n < 0 {
				if err == nil {
					t.Fatalf("accepted %d keys", len(ks))
				}
				return
			}
			if err != nil || len(ks) != tc.n {
				t.Fatalf("got %d keys, %v; want %d", len(ks), err, tc.n)
			}
		})
	}
}
