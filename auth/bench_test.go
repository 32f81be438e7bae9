package auth_test

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

// BenchmarkIdentify measures the authentication cost a request pays, per
// mode: a static token among 1000 (every digest compared), a JWT of each
// algorithm with a configured key, and an opaque OAuth token served from
// the introspection cache.
func BenchmarkIdentify(b *testing.B) {
	keys := authtest.NewKeys(b, "bench")
	run := func(b *testing.B, a *auth.Authenticator, token string) {
		r := httptest.NewRequest("POST", "http://127.0.0.1:3000/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		if _, err := a.Identify(r); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			a.Identify(r)
		}
	}
	b.Run("static-token-of-1000", func(b *testing.B) {
		var entries []string
		for i := range 999 {
			d, _ := auth.Digest("sha256", fmt.Sprintf("bench-token-%04d-0123456789abcdefghijkl", i))
			entries = append(entries, fmt.Sprintf(`{"id":"t%d","digest":%q}`, i, d))
		}
		path := filepath.Join(b.TempDir(), "tokens.json")
		os.WriteFile(path, []byte(`{"version":2,"tokens":[`+strings.Join(entries, ",")+`]}`), 0o600)
		a := newAuth(b, auth.Options{Now: fixedNow}, withTokens("last", tokAlice), func(c *auth.Config) { c.TokenFile, c.TokenFileRequired = path, true })
		run(b, a, tokAlice)
	})
	for _, alg := range []string{"RS256", "ES256", "EdDSA", "HS256"} {
		b.Run("jwt-"+alg, func(b *testing.B) {
			key := string(keys.Secret)
			if alg != "HS256" {
				key = keys.PublicPEM(alg)
			}
			a := newAuth(b, auth.Options{Now: fixedNow}, withJWT(key, alg))
			run(b, a, authtest.Sign(map[string]any{"alg": alg}, claims("doris-mcp-server", "doris-mcp-client", nil), keys.Private(alg)))
		})
	}
	b.Run("oauth-opaque-cached", func(b *testing.B) {
		as := authtest.NewServer(b, keys)
		as.AddOpaque("bench-opaque", map[string]any{"sub": "x", "scope": "tool:list", "aud": resource, "exp": t0.Unix() + 3600})
		a := newAuth(b, auth.Options{Now: fixedNow}, withOAuth(as))
		run(b, a, "bench-opaque")
	})
}
