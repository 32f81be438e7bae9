package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStartupFailures: every invalid configuration fails before serving,
// naming each problem, all at once.
func TestStartupFailures(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string // each must appear in stderr
	}{
		{"non-loopback bind without auth", map[string]string{"TRANSPORT": "http", "SERVER_HOST": "0.0.0.0"}, nil,
			[]string{"SERVER_HOST", "ALLOW_UNAUTHENTICATED_NON_LOOPBACK"}},
		{"non-loopback bind via flag", nil, []string{"--transport", "http", "--host", "10.1.2.3"},
			[]string{"SERVER_HOST"}},
		{"short handle secret", map[string]string{"MCP_STATE_HANDLE_SECRET": "short-secret"}, nil,
			[]string{"MCP_STATE_HANDLE_SECRET", "at least 32"}},
		{"weak handle secret", map[string]string{"MCP_STATE_HANDLE_SECRET": "changeme-changeme-changeme-changeme-42"}, nil,
			[]string{"MCP_STATE_HANDLE_SECRET", "weak"}},
		{"placeholder handle secret", map[string]string{"MCP_STATE_HANDLE_SECRET": "<put a long random secret here please>"}, nil,
			[]string{"MCP_STATE_HANDLE_SECRET", "placeholder"}},
		{"low-entropy handle secret", map[string]string{"MCP_STATE_HANDLE_SECRET": strings.Repeat("ab", 20)}, nil,
			[]string{"MCP_STATE_HANDLE_SECRET", "distinct"}},
		{"TTL zero", map[string]string{"MCP_STATE_HANDLE_TTL_SECONDS": "0"}, nil, []string{"MCP_STATE_HANDLE_TTL_SECONDS"}},
		{"TTL above an hour", map[string]string{"MCP_STATE_HANDLE_TTL_SECONDS": "3601"}, nil, []string{"MCP_STATE_HANDLE_TTL_SECONDS"}},
		{"page size zero", map[string]string{"MCP_LIST_PAGE_SIZE": "0"}, nil, []string{"MCP_LIST_PAGE_SIZE"}},
		{"page size 1001", map[string]string{"MCP_LIST_PAGE_SIZE": "1001"}, nil, []string{"MCP_LIST_PAGE_SIZE"}},
		{"unknown exposure mode", map[string]string{"MCP_TOOL_EXPOSURE_MODE": "tree"}, nil, []string{"MCP_TOOL_EXPOSURE_MODE"}},
		{"admin domain", map[string]string{"MCP_ADMIN_DOMAIN_ENABLED": "true"}, nil, []string{"MCP_ADMIN_DOMAIN_ENABLED", "reserved"}},
		{"admin confirmation off", map[string]string{"MCP_ADMIN_REQUIRE_CONFIRMATION": "false"}, nil, []string{"MCP_ADMIN_REQUIRE_CONFIRMATION"}},
		{"wildcard allowed host", map[string]string{"TRANSPORT": "http", "MCP_ALLOWED_HOSTS": "*"}, nil, []string{"MCP_ALLOWED_HOSTS"}},
		{"token auth without any token", map[string]string{"ENABLE_TOKEN_AUTH": "true"}, nil, []string{"ENABLE_TOKEN_AUTH"}},
		{"not a number", map[string]string{"SERVER_PORT": "eighty"}, nil, []string{"SERVER_PORT"}},
		{"not a boolean", map[string]string{"ENABLE_LEGACY_HTTP_ADAPTER": "maybe"}, nil, []string{"ENABLE_LEGACY_HTTP_ADAPTER"}},
		{"unknown transport", map[string]string{"TRANSPORT": "carrier-pigeon"}, nil, []string{"TRANSPORT"}},
		{"row ceiling too high", map[string]string{"MAX_RESULT_ROWS": "100001"}, nil, []string{"MAX_RESULT_ROWS"}},
		{"default rows above ceiling", map[string]string{"MAX_RESULT_ROWS": "10", "DEFAULT_RESULT_ROWS": "11"}, nil, []string{"DEFAULT_RESULT_ROWS"}},
		{"byte ceiling too low", map[string]string{"MAX_RESULT_BYTES": "100"}, nil, []string{"MAX_RESULT_BYTES"}},
		{"query timeout too long", map[string]string{"QUERY_TIMEOUT": "301"}, nil, []string{"QUERY_TIMEOUT"}},
		{"lakehouse bounds", map[string]string{"LAKEHOUSE_MAX_SNAPSHOTS": "501", "LAKEHOUSE_MAX_VARIANT_PATHS": "0"}, nil,
			[]string{"LAKEHOUSE_MAX_SNAPSHOTS", "LAKEHOUSE_MAX_VARIANT_PATHS"}},
		{"bad DORIS_HOSTS entry", map[string]string{"DORIS_HOSTS": "fe1:9030,fe2"}, nil, []string{"DORIS_HOSTS"}},
		{"unknown child in the denylist", map[string]string{"MCP_CHILD_TOOL_DENYLIST": "doris_query.drop_everything"}, nil, []string{"doris_query.drop_everything"}},
		{"every problem at once", map[string]string{
			"TRANSPORT": "http", "SERVER_HOST": "0.0.0.0", "MCP_STATE_HANDLE_SECRET": "tiny", "MCP_STATE_HANDLE_TTL_SECONDS": "0",
			"MCP_LIST_PAGE_SIZE": "5000", "MCP_TOOL_EXPOSURE_MODE": "tree", "MCP_ADMIN_DOMAIN_ENABLED": "true",
			"MCP_CHILD_TOOL_DENYLIST": "doris_query.nope", "QUERY_TIMEOUT": "0",
		}, nil, []string{"SERVER_HOST", "MCP_STATE_HANDLE_SECRET", "MCP_STATE_HANDLE_TTL_SECONDS", "MCP_LIST_PAGE_SIZE",
			"MCP_TOOL_EXPOSURE_MODE", "MCP_ADMIN_DOMAIN_ENABLED", "MCP_CHILD_TOOL_DENYLIST", "QUERY_TIMEOUT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := map[string]string{}
			for k, v := range tt.env {
				env[k] = v
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := run(ctx, append([]string{"--env-file", os.DevNull}, tt.args...), env, strings.NewReader(""), &stdout, &stderr)
			if err == nil {
				t.Fatalf("started with %v", tt.env)
			}
			msg := stderr.String() + err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr does not name %q:\n%s", w, msg)
				}
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout must stay protocol-only, got %q", stdout.String())
			}
			for _, secret := range []string{"changeme-changeme", "<put a long"} {
				if strings.Contains(msg, secret) {
					t.Errorf("the error output echoes the secret: %s", msg)
				}
			}
		})
	}
}

// TestCheckConfig: -check-config prints every problem and exits 1, or
// confirms and exits 0, without serving.
func TestCheckConfig(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"--check-config", "--env-file", os.DevNull}, map[string]string{}, nil, &out, &errb); err != nil {
		t.Fatalf("default configuration: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "configuration OK") {
		t.Fatalf("stdout %q", out.String())
	}
	out.Reset()
	errb.Reset()
	err := run(context.Background(), []string{"--check-config", "--env-file", os.DevNull},
		map[string]string{"MCP_LIST_PAGE_SIZE": "0", "QUERY_TIMEOUT": "999"}, nil, &out, &errb)
	if !errors.Is(err, errReported) || !strings.Contains(errb.String(), "MCP_LIST_PAGE_SIZE") || !strings.Contains(errb.String(), "QUERY_TIMEOUT") {
		t.Fatalf("err %v, stderr %s", err, errb.String())
	}
}

// TestConfigPrecedence: defaults < .env file < environment < flags, and
// the file never overrides a set variable.
func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "prod.env")
	os.WriteFile(envFile, []byte("# comment\nexport DORIS_HOST=file-host\nDORIS_PORT=9031\nDORIS_USER='file user'\nLOG_LEVEL=DEBUG # trailing\n"), 0o600)
	merged, err := withEnvFile(map[string]string{"DORIS_PORT": "9032"}, envFile, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if errs := cfg.fromEnv(merged); len(errs) > 0 {
		t.Fatal(errs)
	}
	f := newFlagSet(&bytes.Buffer{})
	if err := f.parse([]string{"--doris-host", "flag-host"}); err != nil {
		t.Fatal(err)
	}
	if errs := f.apply(&cfg); len(errs) > 0 {
		t.Fatal(errs)
	}
	if cfg.Doris.Host != "flag-host" || cfg.Doris.Port != 9032 || cfg.Doris.User != "file user" || cfg.LogLevel != slog.LevelDebug {
		t.Fatalf("host %q port %d user %q level %v", cfg.Doris.Host, cfg.Doris.Port, cfg.Doris.User, cfg.LogLevel)
	}
	if _, err := withEnvFile(nil, filepath.Join(dir, "missing.env"), true); err == nil {
		t.Fatal("an explicitly named env file that does not exist was ignored")
	}
	os.WriteFile(envFile, []byte("NOT A PAIR\n"), 0o600)
	if _, err := withEnvFile(nil, envFile, true); err == nil {
		t.Fatal("a malformed env file was accepted")
	}
}

// TestExitCode runs the real binary: a bad configuration exits 1 with
// every problem on stderr; -version prints the build info.
func TestExitCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "doris-mcp-server")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "MCP_LIST_PAGE_SIZE=0", "MCP_TOOL_EXPOSURE_MODE=tree")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want code 1", err)
	}
	for _, w := range []string{"MCP_LIST_PAGE_SIZE", "MCP_TOOL_EXPOSURE_MODE"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr does not name %s: %s", w, stderr.String())
		}
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "doris-mcp-server ") || !strings.Contains(string(out), "revision ") {
		t.Fatalf("--version: %q %v", out, err)
	}
}
