package main

// The authentication settings read from the environment and checked as at
// startup: the configuration tables of packages auth and dorisoauth, which
// moved here with the reading of their variables (config_auth.go).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

const (
	tokAlice = "alice-0f1e2d3c4b5a69788796a5b4c3d2e1f0XYZ"
	tokBob   = "bob-9a8b7c6d5e4f30211203f4e5d6c7b8a9QRS"
	// oauthSecret is a Doris-backed OAuth secret that passes the policy.
	oauthSecret = "k2P9x-Qv7Lm3Rt8Zw4Yb6Nc1Hd5Jf0Gs+ux"
	// oauthResource is the external OAuth resource of these tests.
	oauthResource = "http://127.0.0.1:3000/mcp"
)

// authConfigErrors returns the problems of the authentication settings of
// env for the bind b, explained as at startup: what the loader cannot read
// and what auth.Config.Validate refuses.
func authConfigErrors(env map[string]string, b auth.Bind) error {
	cfg := DefaultConfig()
	errs := cfg.fromEnv(env)
	errs = append(errs, explain(cfg.Auth.Validate(b), cfg.origin, isSetting))
	return errors.Join(errs...)
}

// externalOAuthEnv is a valid external OAuth configuration against as,
// overlaid with extra.
func externalOAuthEnv(as *authtest.Server, extra map[string]string) map[string]string {
	env := map[string]string{
		"ENABLE_OAUTH_AUTH": "true", "OAUTH_ISSUER": as.Issuer(), "OAUTH_RESOURCE": oauthResource,
		"OAUTH_DISCOVERY_URL":           as.URL + "/.well-known/openid-configuration",
		"OAUTH_INTROSPECTION_CLIENT_ID": as.ClientID, "OAUTH_INTROSPECTION_CLIENT_SECRET": as.ClientSecret,
		"OAUTH_SCOPE":          "tool:list resource:list resource:read child:call:doris_catalog:list_tables",
		"OAUTH_REQUIRED_SCOPE": "tool:list",
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

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
			err := authConfigErrors(env, b)
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

// TestTokenConfigErrors: every token problem is a startup failure naming
// its variable, reported together, and no error quotes a token.
func TestTokenConfigErrors(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	d := tokenDigest(tokBob)
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"no token at all", map[string]string{}, []string{"ENABLE_TOKEN_AUTH", "no active token"}},
		{"short token", map[string]string{"TOKEN_A": "short"}, []string{"TOKEN_A", "at least 32"}},
		{"weak token", map[string]string{"TOKEN_A": "changeme-changeme-changeme-changeme"}, []string{"TOKEN_A", "weak"}},
		{"placeholder token", map[string]string{"TOKEN_A": "<put your long random token in here>"}, []string{"TOKEN_A"}},
		{"low entropy token", map[string]string{"TOKEN_A": strings.Repeat("ab", 20)}, []string{"TOKEN_A", "distinct"}},
		{"reserved Doris OAuth prefix", map[string]string{"TOKEN_A": "doa_" + tokAlice}, []string{"TOKEN_A", "doa_"}},
		{"bad digest", map[string]string{"TOKEN_A": "sha256:abcd"}, []string{"TOKEN_A", "hex"}},
		{"unknown permission", map[string]string{"TOKEN_A": tokAlice, "TOKEN_A_PERMISSIONS": "tool:list,tool:call:exec_query"}, []string{"TOKEN_A_PERMISSIONS", "tool:call:exec_query"}},
		{"expired only", map[string]string{"TOKEN_A": tokAlice, "TOKEN_A_EXPIRES_AT": "2020-01-01T00:00:00Z"}, []string{"no active token"}},
		{"missing named file", map[string]string{"TOKEN_A": tokAlice, "TOKEN_FILE_PATH": filepath.Join(dir, "nope.json")}, []string{"TOKEN_FILE_PATH"}},
		{"world-writable file", map[string]string{"TOKEN_FILE_PATH": file("ww.json", `{"version":2,"tokens":[{"id":"b","digest":"`+d+`"}]}`, 0o666)}, []string{"TOKEN_FILE_PATH", "writable"}},
		{"plaintext in file", map[string]string{"TOKEN_FILE_PATH": file("plain.json", `{"version":2,"tokens":[{"id":"b","digest":"`+d+`","token":"`+tokBob+`"}]}`, 0o600)}, []string{"plaintext"}},
		{"version 1 file", map[string]string{"TOKEN_FILE_PATH": file("v1.json", `{"version":"1.0","tokens":[]}`, 0o600)}, []string{"TOKEN_FILE_PATH"}},
		{"password in clear", map[string]string{"TOKEN_FILE_PATH": file("pw.json", `{"version":2,"tokens":[{"id":"b","digest":"`+d+`","doris":{"user":"u","password":"pw"}}]}`, 0o600)}, []string{"password"}},
		{"unset password variable", map[string]string{"TOKEN_FILE_PATH": file("pwenv.json", `{"version":2,"tokens":[{"id":"b","digest":"`+d+`","doris":{"user":"u","password_env":"NOPE_PW"}}]}`, 0o600)}, []string{"NOPE_PW"}},
		{"duplicate digest", map[string]string{"TOKEN_BOB": tokBob, "TOKEN_FILE_PATH": file("dup.json", `{"version":2,"tokens":[{"id":"b2","digest":"`+d+`"}]}`, 0o600)}, []string{"same digest"}},
		{"token management", map[string]string{"TOKEN_A": tokAlice, "ENABLE_HTTP_TOKEN_MANAGEMENT": "true"}, []string{"ENABLE_HTTP_TOKEN_MANAGEMENT"}},
		{"bad hash algorithm", map[string]string{"TOKEN_A": tokAlice, "TOKEN_HASH_ALGORITHM": "md5"}, []string{"TOKEN_HASH_ALGORITHM"}},
		{"every problem at once", map[string]string{"TOKEN_A": "short", "TOKEN_B": "doa_x", "TOKEN_HASH_ALGORITHM": "md5"}, []string{"TOKEN_A", "TOKEN_B", "TOKEN_HASH_ALGORITHM"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_FILE_PATH": filepath.Join(dir, "absent-default.json")}
			if _, ok := tc.env["TOKEN_FILE_PATH"]; !ok {
				delete(env, "TOKEN_FILE_PATH") // the default tokens.json may be absent
			}
			for k, v := range tc.env {
				env[k] = v
			}
			err := authConfigErrors(env, auth.Bind{Transport: "http", Host: "127.0.0.1"})
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			for _, secret := range []string{tokAlice, tokBob, "changeme-changeme", "abababab"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error quotes a token: %v", err)
				}
			}
		})
	}
}

// TestOAuthConfigErrors: the external OAuth startup failures of contract
// §4, all reported together.
func TestOAuthConfigErrors(t *testing.T) {
	as := authtest.NewServer(t, authtest.NewKeys(t, "as"))
	b := auth.Bind{Transport: "http", Host: "127.0.0.1"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing", map[string]string{"OAUTH_ISSUER": "", "OAUTH_RESOURCE": "", "OAUTH_SCOPE": "", "OAUTH_DISCOVERY_URL": "", "OAUTH_REQUIRED_SCOPE": ""},
			[]string{"OAUTH_ISSUER", "OAUTH_RESOURCE", "OAUTH_SCOPE", "OAUTH_JWKS_URL"}},
		{"required not a subset", map[string]string{"OAUTH_REQUIRED_SCOPE": "tool:list admin"}, []string{"OAUTH_REQUIRED_SCOPE", "admin"}},
		{"plain http off loopback", map[string]string{"OAUTH_JWKS_URL": "http://idp.example.com/jwks"}, []string{"OAUTH_JWKS_URL", "https"}},
		{"resource host not served", map[string]string{"OAUTH_RESOURCE": "https://other.example.com/mcp"}, []string{"OAUTH_RESOURCE", "Host"}},
		{"both OAuth modes", map[string]string{"ENABLE_DORIS_OAUTH_AUTH": "true"}, []string{"ENABLE_OAUTH_AUTH", "ENABLE_DORIS_OAUTH_AUTH"}},
		{"switches disagree", map[string]string{"OAUTH_ENABLED": "false"}, []string{"OAUTH_ENABLED"}},
		{"HS256 for an external server", map[string]string{"OAUTH_ALGORITHMS": "RS256,HS256"}, []string{"OAUTH_ALGORITHMS"}},
		{"role mapping", map[string]string{"OAUTH_ROLE_PERMISSIONS_JSON": `{"admin":["*"]}`}, []string{"OAUTH_ROLE_PERMISSIONS_JSON"}},
		{"introspection without credentials", map[string]string{"OAUTH_INTROSPECTION_URL": as.URL + "/introspect", "OAUTH_INTROSPECTION_CLIENT_SECRET": ""},
			[]string{"OAUTH_INTROSPECTION_CLIENT_ID"}},
		{"trusted proxies without CIDRs", map[string]string{"DORIS_OAUTH_TRUST_PROXY_HEADERS": "true"}, []string{"DORIS_OAUTH_TRUSTED_PROXY_CIDRS"}},
		{"a proxy CIDR of everyone", map[string]string{"DORIS_OAUTH_TRUST_PROXY_HEADERS": "true", "DORIS_OAUTH_TRUSTED_PROXY_CIDRS": "0.0.0.0/0"}, []string{"every address"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := authConfigErrors(externalOAuthEnv(as, tc.env), b)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
		})
	}
	// Discovery runs at New: an issuer that does not match fails startup.
	c := DefaultConfig()
	if errs := c.fromEnv(externalOAuthEnv(as, map[string]string{"OAUTH_ISSUER": "http://127.0.0.1:1/other"})); len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	if _, err := auth.New(context.Background(), c.Auth, b, auth.Options{}); err == nil || !strings.Contains(err.Error(), "issuer") {
		t.Errorf("discovery with a foreign issuer: %v", err)
	}
}

// TestDorisOAuthConfig: the loader reads the reference's variables of
// Doris-backed OAuth with its defaults, and the loader and
// dorisoauth.Config.Validate report every startup failure of the contract
// for this mode at once, each naming its variable.
func TestDorisOAuthConfig(t *testing.T) {
	ok := map[string]string{
		"ENABLE_DORIS_OAUTH_AUTH": "true", "TRANSPORT": "http", "DORIS_HOST": "fe", "DORIS_USER": "reader",
		"DORIS_OAUTH_BASE_URL": "https://mcp.example.com", "DORIS_OAUTH_SECRET": oauthSecret,
	}
	load := func(env map[string]string) (loaded, problems []error, cfg dorisoauth.Config) {
		c := DefaultConfig()
		loaded = c.fromEnv(env)
		problems = append(slices.Clone(loaded), c.dorisOAuthProblems()...)
		if err := explain(errors.Join(problems...), c.origin, isSetting); err != nil {
			problems = err.(interface{ Unwrap() []error }).Unwrap()
		}
		return loaded, problems, c.DorisOAuth
	}
	_, errs, cfg := load(ok)
	if len(errs) != 0 {
		t.Fatalf("a good configuration: %v", errs)
	}
	if cfg.AccessTTL != 900*time.Second || cfg.RefreshTTL != 86400*time.Second || cfg.CodeTTL != 300*time.Second ||
		cfg.DCRMode != "auto" || cfg.Limits.LoginPerTxn != 5 || cfg.Limits.TokenPerClient != 240 ||
		!slices.Equal(cfg.ChildToolAllowlist, []string{"doris_catalog.list_databases", "doris_query.execute_query", "doris_query.explain_query"}) {
		t.Errorf("defaults: %+v", cfg)
	}
	if _, errs, _ := load(map[string]string{"DORIS_OAUTH_BASE_URL": "nonsense"}); len(errs) != 0 {
		t.Error("a disabled mode is validated")
	}

	for _, tc := range []struct {
		name  string
		env   map[string]string
		field string
	}{
		{"stdio", map[string]string{"TRANSPORT": "stdio"}, "ENABLE_DORIS_OAUTH_AUTH"},
		{"external OAuth too", map[string]string{"ENABLE_OAUTH_AUTH": "true"}, "ENABLE_DORIS_OAUTH_AUTH"},
		{"legacy OAuth switch", map[string]string{"OAUTH_ENABLED": "true"}, "ENABLE_DORIS_OAUTH_AUTH"},
		{"AUTH_TYPE oauth", map[string]string{"AUTH_TYPE": "oauth"}, "AUTH_TYPE"},
		{"no Doris host", map[string]string{"DORIS_HOST": ""}, "DORIS_HOST"},
		{"no Doris user", map[string]string{"DORIS_USER": " "}, "DORIS_USER"},
		{"no base URL", map[string]string{"DORIS_OAUTH_BASE_URL": ""}, "DORIS_OAUTH_BASE_URL"},
		{"relative base URL", map[string]string{"DORIS_OAUTH_BASE_URL": "/mcp"}, "DORIS_OAUTH_BASE_URL"},
		{"http off loopback", map[string]string{"DORIS_OAUTH_BASE_URL": "http://mcp.example.com"}, "DORIS_OAUTH_BASE_URL"},
		{"base URL with a path", map[string]string{"DORIS_OAUTH_BASE_URL": "https://mcp.example.com/doris"}, "DORIS_OAUTH_BASE_URL"},
		{"base URL with a query", map[string]string{"DORIS_OAUTH_BASE_URL": "https://mcp.example.com/?a=b"}, "DORIS_OAUTH_BASE_URL"},
		{"base URL with user info", map[string]string{"DORIS_OAUTH_BASE_URL": "https://u:p@mcp.example.com"}, "DORIS_OAUTH_BASE_URL"},
		{"short secret", map[string]string{"DORIS_OAUTH_SECRET": "short"}, "DORIS_OAUTH_SECRET"},
		{"placeholder secret", map[string]string{"DORIS_OAUTH_SECRET": "<generate-a-long-random-secret-here>"}, "DORIS_OAUTH_SECRET"},
		{"weak secret", map[string]string{"DORIS_OAUTH_SECRET": "my-password-is-long-enough-1234567"}, "DORIS_OAUTH_SECRET"},
		{"repetitive secret", map[string]string{"DORIS_OAUTH_SECRET": strings.Repeat("ab", 20)}, "DORIS_OAUTH_SECRET"},
		{"weak previous secret", map[string]string{"DORIS_OAUTH_PREVIOUS_SECRET": "changeme"}, "DORIS_OAUTH_PREVIOUS_SECRET"},
		{"peers without a secret", map[string]string{"DORIS_OAUTH_SECRET": "", "DORIS_OAUTH_PEERS": "http://10.0.0.2:3000"}, "DORIS_OAUTH_PEERS"},
		{"bad peer", map[string]string{"DORIS_OAUTH_PEERS": "10.0.0.2:3000"}, "DORIS_OAUTH_PEERS"},
		{"DCR mode", map[string]string{"DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE": "open"}, "DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE"},
		{"production DCR unconfirmed", map[string]string{"DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE": "enabled"}, "DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE"},
		{"wildcard redirects", map[string]string{"ENABLE_DORIS_OAUTH_PRODUCTION_WILDCARD_REDIRECTS": "true"}, "ENABLE_DORIS_OAUTH_PRODUCTION_WILDCARD_REDIRECTS"},
		{"trusted proxies without CIDRs", map[string]string{"DORIS_OAUTH_TRUST_PROXY_HEADERS": "true"}, "DORIS_OAUTH_TRUSTED_PROXY_CIDRS"},
		{"bad CIDR", map[string]string{"DORIS_OAUTH_TRUSTED_PROXY_CIDRS": "10.0.0.0/33"}, "DORIS_OAUTH_TRUSTED_PROXY_CIDRS"},
		{"CIMD timeout", map[string]string{"DORIS_OAUTH_CIMD_FETCH_TIMEOUT_SECONDS": "31"}, "DORIS_OAUTH_CIMD_FETCH_TIMEOUT_SECONDS"},
		{"CIMD size", map[string]string{"DORIS_OAUTH_CIMD_MAX_DOCUMENT_BYTES": "100"}, "DORIS_OAUTH_CIMD_MAX_DOCUMENT_BYTES"},
		{"CIMD cache", map[string]string{"DORIS_OAUTH_CIMD_DEFAULT_CACHE_SECONDS": "7200"}, "DORIS_OAUTH_CIMD_DEFAULT_CACHE_SECONDS"},
		{"rate limit", map[string]string{"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_TXN": "0"}, "DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_TXN"},
		{"rate window", map[string]string{"DORIS_OAUTH_RATE_LIMIT_WINDOW_SECONDS": "x"}, "DORIS_OAUTH_RATE_LIMIT_WINDOW_SECONDS"},
		{"idle timeout", map[string]string{"DORIS_OAUTH_IDLE_TIMEOUT_SECONDS": "604801"}, "DORIS_OAUTH_IDLE_TIMEOUT_SECONDS"},
		{"access TTL", map[string]string{"DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS": "5"}, "DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS"},
		{"code TTL", map[string]string{"DORIS_OAUTH_AUTH_CODE_EXPIRE_SECONDS": "3600"}, "DORIS_OAUTH_AUTH_CODE_EXPIRE_SECONDS"},
		{"child allowlist", map[string]string{"DORIS_OAUTH_CHILD_TOOL_ALLOWLIST": "get_db_list"}, "DORIS_OAUTH_CHILD_TOOL_ALLOWLIST"},
		{"pre-1.0 buckets", map[string]string{"DORIS_OAUTH_QUERY_TOOLS_ENABLED": "true"}, "DORIS_OAUTH_QUERY_TOOLS_ENABLED"},
		{"bad boolean", map[string]string{"DORIS_OAUTH_CHILD_TOOLS_ENABLED": "maybe"}, "DORIS_OAUTH_CHILD_TOOLS_ENABLED"},
		{"session database", map[string]string{"DORIS_OAUTH_SESSION_DATABASE": "a`b"}, "DORIS_OAUTH_SESSION_DATABASE"},
		{"allowed redirect", map[string]string{"DORIS_OAUTH_ALLOWED_REDIRECT_URIS": "http://evil.example/cb"}, "DORIS_OAUTH_ALLOWED_REDIRECT_URIS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range ok {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			loaded, errs, cfg := load(env)
			found := false
			for _, err := range errs {
				var se *SettingError
				if errors.As(err, &se) && se.Name == tc.field {
					found = true
				}
				if strings.Contains(err.Error(), oauthSecret) || (tc.env["DORIS_OAUTH_SECRET"] != "" && strings.Contains(err.Error(), tc.env["DORIS_OAUTH_SECRET"])) {
					t.Errorf("a problem repeats the secret: %v", err)
				}
			}
			if !found {
				t.Errorf("got %v, want a problem with %s", errs, tc.field)
			}
			// A value the loader cannot read never reaches the package,
			// which then holds the default; startup stops at the loader.
			if len(loaded) == 0 {
				if _, err := dorisoauth.New(cfg, dorisoauth.Options{CheckLogin: func(context.Context, string, string) error { return nil }}); err == nil {
					t.Error("New accepted it")
				}
			}
		})
	}
	// Every problem at once.
	if _, bad, _ := load(map[string]string{"ENABLE_DORIS_OAUTH_AUTH": "true", "TRANSPORT": "stdio", "DORIS_OAUTH_SECRET": "x"}); len(bad) < 3 {
		t.Errorf("%d problems reported, want every one (at least transport, base URL, secret)", len(bad))
	}
}
