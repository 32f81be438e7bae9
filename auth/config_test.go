package auth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

// TestKeySources: PEM from a file, the public half of a private key (the
// reference's JWT_PRIVATE_KEY), "\n"-escaped PEM from a .env file, and a
// JWKS file all verify.
func TestKeySources(t *testing.T) {
	keys := authtest.NewKeys(t, "k")
	dir := t.TempDir()
	pubFile := filepath.Join(dir, "pub.pem")
	os.WriteFile(pubFile, []byte(keys.PublicPEM("EdDSA")), 0o600)
	jwksFile := filepath.Join(dir, "jwks.json")
	os.WriteFile(jwksFile, keys.JWKS(), 0o600)
	tok := func(alg string, kid string) string {
		return authtest.Sign(map[string]any{"alg": alg, "kid": kid}, claims("doris-mcp-server", "doris-mcp-client", nil), keys.Private(alg))
	}
	for _, tc := range []struct {
		name  string
		set   func(*auth.JWTConfig)
		token string
	}{
		{"public key file", func(j *auth.JWTConfig) { j.Algorithms, j.PublicKeyFile = []string{"EdDSA"}, pubFile }, tok("EdDSA", "")},
		{"escaped newlines", func(j *auth.JWTConfig) {
			j.Algorithms, j.PublicKey = []string{"ES256"}, strings.ReplaceAll(keys.PublicPEM("ES256"), "\n", `\n`)
		}, tok("ES256", "")},
		{"private key", func(j *auth.JWTConfig) { j.Algorithms, j.PrivateKey = []string{"RS256"}, keys.PrivatePEM("RS256") }, tok("RS256", "")},
		{"JWKS file", func(j *auth.JWTConfig) { j.Algorithms, j.JWKSFile = []string{"RS256", "ES256", "EdDSA"}, jwksFile }, tok("ES256", keys.KIDs["ES256"])},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newAuth(t, auth.Options{}, func(c *auth.Config) { c.JWTAuth = true; tc.set(&c.JWT) })
			if id, e := identify(a, tc.token); e != nil || id.Subject != "alice" {
				t.Fatalf("%+v %+v", id, e)
			}
		})
	}
}

// TestModeCombinations: several modes at once, each token verified by its
// own mode; a wildcard bind needs MCP_ALLOWED_HOSTS.
func TestModeCombinations(t *testing.T) {
	keys := authtest.NewKeys(t, "k")
	as := authtest.NewServer(t, keys)
	a := newAuth(t, auth.Options{}, withOAuth(as), withTokens("alice", tokAlice), withJWT(string(keys.Secret), "HS256"))
	jwtTok := authtest.Sign(map[string]any{"alg": "HS256"}, claims("doris-mcp-server", "doris-mcp-client", map[string]any{"sub": "jay"}), keys.Secret)
	oauthTok := authtest.Sign(map[string]any{"alg": "RS256", "kid": keys.KIDs["RS256"]},
		claims(as.Issuer(), resource, map[string]any{"sub": "olga", "scope": "tool:list"}), keys.RSA)
	for tok, want := range map[string]string{tokAlice: "token/alice", jwtTok: "jwt/jay", oauthTok: "oauth/olga"} {
		if id, e := identify(a, tok); e != nil || id.Method+"/"+id.Subject != want {
			t.Errorf("want %s, got %+v %+v", want, id, e)
		}
	}
	// A JWT from an unknown issuer is refused by OAuth (the last mode),
	// never accepted by another.
	forged := authtest.Sign(map[string]any{"alg": "HS256"}, claims("https://evil.test", "doris-mcp-client", nil), keys.Secret)
	if _, e := identify(a, forged); e == nil || e.Status != 401 {
		t.Errorf("a JWT of another issuer: %+v", e)
	}
	c := config(withTokens("alice", tokAlice))
	err := c.Validate(auth.Bind{Transport: "http", Host: "0.0.0.0"})
	if err == nil || !strings.Contains(err.Error(), "MCP_ALLOWED_HOSTS") {
		t.Errorf("wildcard bind: %v", err)
	}
	if err := c.Validate(auth.Bind{Transport: "http", Host: "0.0.0.0", AllowedHosts: []string{"mcp.example.com:*"}}); err != nil {
		t.Errorf("wildcard bind with allowed hosts: %v", err)
	}
}
