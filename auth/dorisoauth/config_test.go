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

// TestConfig: DefaultConfig holds the reference's defaults, and Validate
// reports every startup failure of the mode at once, each naming its
// setting, with ranges in the setting's unit. (The settings as variables,
// read by the program's loader, are the root package's
// TestDorisOAuthConfig.)
func TestConfig(t *testing.T) {
	good := func() dorisoauth.Config {
		c := dorisoauth.DefaultConfig()
		c.Enabled, c.BaseURL, c.Secret = true, "https://mcp.example.com", testSecret
		c.Deployment.Transport, c.Deployment.DorisHost, c.Deployment.DorisUser = "http", "fe", "reader"
		return c
	}
	cfg := good()
	if errs := cfg.Validate(); len(errs) != 0 {
		t.Fatalf("a good configuration: %v", errs)
	}
	if cfg.AccessTTL != 900*time.Second || cfg.RefreshTTL != 86400*time.Second || cfg.CodeTTL != 300*time.Second ||
		cfg.DCRMode != "auto" || cfg.Limits.LoginPerTxn != 5 || cfg.Limits.TokenPerClient != 240 ||
		!slices.Equal(cfg.ChildToolAllowlist, []string{"doris_catalog.list_databases", "doris_query.execute_query", "doris_query.explain_query"}) {
		t.Errorf("defaults: %+v", cfg)
	}
	off := dorisoauth.DefaultConfig()
	off.BaseURL = "nonsense"
	if len(off.Validate()) != 0 {
		t.Error("a disabled mode is validated")
	}
	for _, tc := range []struct {
		name, field, msg string
		set              func(*dorisoauth.Config)
	}{
		{"stdio", "ENABLE_DORIS_OAUTH_AUTH", "TRANSPORT=http", func(c *dorisoauth.Config) { c.Deployment.Transport = "stdio" }},
		{"access TTL", "DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS", "must be between 60 and 86400 seconds", func(c *dorisoauth.Config) { c.AccessTTL = 5 * time.Second }},
		{"a fraction of a second", "DORIS_OAUTH_CIMD_FETCH_TIMEOUT_SECONDS", "must be between 1 and 30 seconds",
			func(c *dorisoauth.Config) { c.CIMDFetchTimeout = 500 * time.Millisecond }},
		{"default cache above the maximum", "DORIS_OAUTH_CIMD_DEFAULT_CACHE_SECONDS", "must be between 0 and 60 seconds (DORIS_OAUTH_CIMD_MAX_CACHE_SECONDS)",
			func(c *dorisoauth.Config) { c.CIMDMaxCache, c.CIMDDefaultCache = time.Minute, time.Hour }},
		{"document size", "DORIS_OAUTH_CIMD_MAX_DOCUMENT_BYTES", "must be between 1024 and 65536 bytes", func(c *dorisoauth.Config) { c.CIMDMaxDocumentBytes = 100 }},
		{"rate limit", "DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_TXN", "must be between 1 and 100000", func(c *dorisoauth.Config) { c.Limits.LoginPerTxn = 0 }},
		{"pre-1.0 buckets", "DORIS_OAUTH_QUERY_TOOLS_ENABLED", "DORIS_OAUTH_CHILD_TOOL_ALLOWLIST",
			func(c *dorisoauth.Config) { c.LegacyToolBuckets = []string{"DORIS_OAUTH_QUERY_TOOLS_ENABLED"} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := good()
			tc.set(&cfg)
			var found bool
			for _, err := range cfg.Validate() {
				var fe *dorisoauth.FieldError
				if errors.As(err, &fe) && fe.Field == tc.field && strings.Contains(fe.Err.Error(), tc.msg) {
					found = true
				}
			}
			if !found {
				t.Errorf("got %v, want a problem with %s saying %q", cfg.Validate(), tc.field, tc.msg)
			}
			if _, err := dorisoauth.New(cfg, dorisoauth.Options{CheckLogin: (&doris{}).CheckLogin}); err == nil {
				t.Error("New accepted it")
			}
		})
	}
	// Every problem at once.
	bad := good()
	bad.Deployment.Transport, bad.BaseURL, bad.Secret = "stdio", "", "x"
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
