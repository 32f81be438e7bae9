package dorisoauth_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// TestConfig: FromEnv reads the reference's variables with its defaults,
// and Validate reports every startup failure of the contract for this mode
// at once, each naming its variable.
func TestConfig(t *testing.T) {
	ok := map[string]string{
		"ENABLE_DORIS_OAUTH_AUTH": "true", "TRANSPORT": "http", "DORIS_HOST": "fe", "DORIS_USER": "reader",
		"DORIS_OAUTH_BASE_URL": "https://mcp.example.com", "DORIS_OAUTH_SECRET": testSecret,
	}
	cfg := dorisoauth.FromEnv(ok)
	if errs := cfg.Validate(); len(errs) != 0 {
		t.Fatalf("a good configuration: %v", errs)
	}
	if cfg.AccessTTL != 900*time.Second || cfg.RefreshTTL != 86400*time.Second || cfg.CodeTTL != 300*time.Second ||
		cfg.DCRMode != "auto" || cfg.Limits.LoginPerTxn != 5 || cfg.Limits.TokenPerClient != 240 ||
		!slices.Equal(cfg.ChildToolAllowlist, []string{"doris_catalog.list_databases", "doris_query.execute_query", "doris_query.explain_query"}) {
		t.Errorf("defaults: %+v", cfg)
	}
	if off := dorisoauth.FromEnv(map[string]string{"DORIS_OAUTH_BASE_URL": "nonsense"}); len(off.Validate()) != 0 {
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
			cfg := dorisoauth.FromEnv(env)
			errs := cfg.Validate()
			found := false
			for _, err := range errs {
				var fe *dorisoauth.FieldError
				if errors.As(err, &fe) && fe.Field == tc.field {
					found = true
				}
				if strings.Contains(err.Error(), testSecret) || (tc.env["DORIS_OAUTH_SECRET"] != "" && strings.Contains(err.Error(), tc.env["DORIS_OAUTH_SECRET"])) {
					t.Errorf("a problem repeats the secret: %v", err)
				}
			}
			if !found {
				t.Errorf("got %v, want a problem with %s", errs, tc.field)
			}
			if _, err := dorisoauth.New(cfg, dorisoauth.Options{CheckLogin: (&doris{}).CheckLogin}); err == nil {
				t.Error("New accepted it")
			}
		})
	}
	// Every problem at once.
	bad := dorisoauth.FromEnv(map[string]string{"ENABLE_DORIS_OAUTH_AUTH": "true", "TRANSPORT": "stdio", "DORIS_OAUTH_SECRET": "x"})
	if n := len(bad.Validate()); n < 3 {
		t.Errorf("%d problems reported, want every one (at least transport, base URL, secret)", n)
	}
}

// TestImports keeps the package to the standard library and package auth
// (with the JSON layer auth reads its documents with, doris/schema).
func TestImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "github.com/doris-mcp/doris-mcp-server/auth", "github.com/doris-mcp/doris-mcp-server/auth/dorisoauth",
			"github.com/doris-mcp/doris-mcp-server/doris/schema":
		default:
			t.Errorf("auth/dorisoauth depends on %s", p)
		}
	}
}
