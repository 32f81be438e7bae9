package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestDorisOAuthStartup: the contract's startup failures of Doris-backed
// OAuth are reported with every other problem, and a valid configuration
// passes --check-config, on a non-loopback bind too (Doris OAuth is
// authentication).
func TestDorisOAuthStartup(t *testing.T) {
	good := map[string]string{"TRANSPORT": "http", "SERVER_HOST": "0.0.0.0", "ENABLE_DORIS_OAUTH_AUTH": "true",
		"DORIS_OAUTH_BASE_URL": "https://mcp.example.com", "DORIS_OAUTH_SECRET": "Wq4-Zt8Lp2Xv6Nb0Mc3Hd7Jf1Gs5Ky9Re+a"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want []string
	}{
		{"valid", nil, nil, nil},
		{"stdio", map[string]string{"TRANSPORT": "stdio"}, nil, []string{"ENABLE_DORIS_OAUTH_AUTH", "TRANSPORT=http"}},
		{"stdio by flag", nil, []string{"--transport", "stdio"}, []string{"ENABLE_DORIS_OAUTH_AUTH"}},
		{"no base URL", map[string]string{"DORIS_OAUTH_BASE_URL": ""}, nil, []string{"DORIS_OAUTH_BASE_URL"}},
		{"insecure base URL", map[string]string{"DORIS_OAUTH_BASE_URL": "http://mcp.example.com"}, nil, []string{"DORIS_OAUTH_BASE_URL", "https"}},
		{"weak secret", map[string]string{"DORIS_OAUTH_SECRET": "changeme-changeme-changeme-changeme"}, nil, []string{"DORIS_OAUTH_SECRET"}},
		{"external OAuth too", map[string]string{"ENABLE_OAUTH_AUTH": "true"}, nil, []string{"ENABLE_DORIS_OAUTH_AUTH", "cannot both"}},
		{"empty Doris user", nil, []string{"--doris-user", ""}, []string{"DORIS_USER"}},
		{"unknown child", map[string]string{"DORIS_OAUTH_CHILD_TOOL_ALLOWLIST": "doris_query.drop_everything"}, nil, []string{"drop_everything"}},
		{"every problem", map[string]string{"DORIS_OAUTH_BASE_URL": "ftp://x", "DORIS_OAUTH_SECRET": "short",
			"DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE": "open", "DORIS_OAUTH_TRUST_PROXY_HEADERS": "true"}, nil,
			[]string{"DORIS_OAUTH_BASE_URL", "DORIS_OAUTH_SECRET", "DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE", "DORIS_OAUTH_TRUSTED_PROXY_CIDRS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range good {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			var stdout, stderr bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			args := append([]string{"--env-file", os.DevNull, "--check-config"}, tc.args...)
			err := run(ctx, args, env, strings.NewReader(""), &stdout, &stderr)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("a valid configuration failed: %v\n%s", err, stderr.String())
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %s", stdout.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr does not name %q:\n%s", w, stderr.String())
				}
			}
			if strings.Contains(stderr.String(), env["DORIS_OAUTH_SECRET"]) {
				t.Error("stderr repeats the secret")
			}
		})
	}
}
