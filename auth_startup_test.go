package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestAuthStartup: authentication problems are reported with every other
// configuration problem, at once; with a mode on, a non-loopback bind
// needs no ALLOW_UNAUTHENTICATED_NON_LOOPBACK; stdio keeps serving the
// local principal without a token.
func TestAuthStartup(t *testing.T) {
	runWith := func(args []string, env map[string]string, stdin string) (string, string, error) {
		var out, errb bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := run(ctx, append([]string{"--env-file", os.DevNull}, args...), env, strings.NewReader(stdin), &out, &errb)
		return out.String(), errb.String(), err
	}
	const weak = "short-token"
	_, stderr, err := runWith(nil, map[string]string{"TRANSPORT": "http", "SERVER_HOST": "0.0.0.0",
		"ENABLE_TOKEN_AUTH": "true", "TOKEN_A": weak,
		"ENABLE_JWT_AUTH": "true", "JWT_VERIFY_SIGNATURE": "false", "JWT_ALGORITHM": "none",
		"ENABLE_OAUTH_AUTH": "true", "MCP_LIST_PAGE_SIZE": "0"}, "")
	if err == nil {
		t.Fatal("started")
	}
	for _, w := range []string{"TOKEN_A", "JWT_VERIFY_SIGNATURE", "JWT_ALGORITHM", "OAUTH_ISSUER", "OAUTH_RESOURCE", "OAUTH_SCOPE",
		"MCP_ALLOWED_HOSTS", "MCP_LIST_PAGE_SIZE"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not name %s:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, weak) || strings.Contains(stderr, "ALLOW_UNAUTHENTICATED_NON_LOOPBACK=true to accept") {
		t.Errorf("stderr quotes the token, or asks for ALLOW_UNAUTHENTICATED_NON_LOOPBACK with a mode on:\n%s", stderr)
	}

	out, stderr, err := runWith([]string{"--check-config"}, map[string]string{"TRANSPORT": "http", "SERVER_HOST": "10.1.2.3",
		"ENABLE_TOKEN_AUTH": "true", "TOKEN_OPS": "ops-token-5e6f7a8b9c0d1e2f3a4b5c6d7e"}, "")
	if err != nil || !strings.Contains(out, "configuration OK") {
		t.Errorf("a non-loopback bind with token auth: %v\n%s%s", err, out, stderr)
	}

	line := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	out, stderr, err = runWith(nil, map[string]string{"TRANSPORT": "stdio", "DORIS_HOST": "127.0.0.1", "DORIS_PORT": "1",
		"ENABLE_TOKEN_AUTH": "true", "TOKEN_OPS": "ops-token-5e6f7a8b9c0d1e2f3a4b5c6d7e"}, line)
	var resp struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err != nil || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &resp) != nil || len(resp.Result.Tools) != 8 {
		t.Errorf("stdio with token auth configured: %v\nstdout %s\nstderr %s", err, out, lastLines(stderr, 10))
	}
}
