package auth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

// TestJWTConfigErrors: the JWT variables the reference documents are read,
// and every configuration that would weaken verification is refused at
// startup, all problems at once.
func TestJWTConfigErrors(t *testing.T) {
	keys := authtest.NewKeys(t, "k")
	b := auth.Bind{Transport: "http", Host: "127.0.0.1"}
	base := map[string]string{"ENABLE_JWT_AUTH": "true", "JWT_PUBLIC_KEY": keys.PublicPEM("RS256")}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"verification off", map[string]string{"JWT_VERIFY_SIGNATURE": "false", "JWT_VERIFY_EXPIRATION": "false", "JWT_VERIFY_AUDIENCE": "false", "JWT_VERIFY_ISSUER": "false"},
			[]string{"JWT_VERIFY_SIGNATURE", "JWT_VERIFY_EXPIRATION", "JWT_VERIFY_AUDIENCE", "JWT_VERIFY_ISSUER"}},
		{"alg none", map[string]string{"JWT_ALGORITHM": "RS256,none"}, []string{"JWT_ALGORITHM", "none"}},
		{"unsupported alg", map[string]string{"JWT_ALGORITHM": "PS512"}, []string{"JWT_ALGORITHM", "PS512"}},
		{"no key", map[string]string{"JWT_PUBLIC_KEY": ""}, []string{"JWT_PUBLIC_KEY", "no verification key"}},
		{"bad PEM", map[string]string{"JWT_PUBLIC_KEY": "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"}, []string{"JWT_PUBLIC_KEY"}},
		{"allowed alg without a key", map[string]string{"JWT_ALGORITHM": "RS256,ES256"}, []string{"ES256"}},
		{"HS256 without a secret", map[string]string{"JWT_ALGORITHM": "HS256", "JWT_PUBLIC_KEY": ""}, []string{"JWT_SECRET_KEY"}},
		{"secret without HS256", map[string]string{"JWT_SECRET_KEY": string(keys.Secret)}, []string{"JWT_SECRET_KEY", "HS256"}},
		{"weak secret", map[string]string{"JWT_ALGORITHM": "HS256", "JWT_PUBLIC_KEY": "", "JWT_SECRET_KEY": "your-secret-key-here-change-in-production"}, []string{"JWT_SECRET_KEY", "weak"}},
		{"short secret", map[string]string{"JWT_ALGORITHM": "HS256", "JWT_PUBLIC_KEY": "", "JWT_SECRET_KEY": "0123456789abcdef"}, []string{"JWT_SECRET_KEY", "32"}},
		{"refresh", map[string]string{"ENABLE_JWT_REFRESH": "true"}, []string{"ENABLE_JWT_REFRESH"}},
		{"leeway", map[string]string{"JWT_LEEWAY_SECONDS": "3600"}, []string{"JWT_LEEWAY_SECONDS"}},
		{"insecure JWKS URL", map[string]string{"JWT_JWKS_URL": "http://keys.example.com/jwks"}, []string{"JWT_JWKS_URL", "https"}},
		{"missing JWKS file", map[string]string{"JWT_JWKS_FILE": "/nonexistent/jwks.json"}, []string{"JWT_JWKS_FILE"}},
		{"empty issuer", map[string]string{"JWT_ISSUER": ""}, []string{"JWT_ISSUER"}},
		{"not a boolean", map[string]string{"JWT_VERIFY_SIGNATURE": "perhaps"}, []string{"JWT_VERIFY_SIGNATURE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			err := configErrors(env, b)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), string(keys.Secret)) || strings.Contains(err.Error(), "your-secret-key") {
				t.Errorf("the error quotes the secret: %v", err)
			}
		})
	}
}

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
		env   map[string]string
		token string
	}{
		{"public key file", map[string]string{"JWT_ALGORITHM": "EdDSA", "JWT_PUBLIC_KEY_FILE": pubFile}, tok("EdDSA", "")},
		{"escaped newlines", map[string]string{"JWT_ALGORITHM": "ES256", "JWT_PUBLIC_KEY": strings.ReplaceAll(keys.PublicPEM("ES256"), "\n", `\n`)}, tok("ES256", "")},
		{"private key", map[string]string{"JWT_ALGORITHM": "RS256", "JWT_PRIVATE_KEY": keys.PrivatePEM("RS256")}, tok("RS256", "")},
		{"JWKS file", map[string]string{"JWT_ALGORITHM": "RS256,ES256,EdDSA", "JWT_JWKS_FILE": jwksFile}, tok("ES256", keys.KIDs["ES256"])},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"ENABLE_JWT_AUTH": "true"}
			for k, v := range tc.env {
				env[k] = v
			}
			a := newAuth(t, env, auth.Options{})
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
	env := oauthEnv(as, map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_ALICE": tokAlice,
		"ENABLE_JWT_AUTH": "true", "JWT_ALGORITHM": "HS256", "JWT_SECRET_KEY": string(keys.Secret)})
	a := newAuth(t, env, auth.Options{})
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
	err := configErrors(map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_ALICE": tokAlice}, auth.Bind{Transport: "http", Host: "0.0.0.0"})
	if err == nil || !strings.Contains(err.Error(), "MCP_ALLOWED_HOSTS") {
		t.Errorf("wildcard bind: %v", err)
	}
	if err := configErrors(map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_ALICE": tokAlice},
		auth.Bind{Transport: "http", Host: "0.0.0.0", AllowedHosts: []string{"mcp.example.com:*"}}); err != nil {
		t.Errorf("wildcard bind with allowed hosts: %v", err)
	}
}
