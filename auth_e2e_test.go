package main

// End-to-end tests of authentication: the built binary, with tokens and
// clients from independent implementations.
//
//   - jose (npm) mints RS256, ES256, EdDSA and HS256 tokens that the
//     server verifies (and refuses once expired), and verifies the tokens
//     our test minter (auth/authtest) signs;
//   - the official TypeScript client (@modelcontextprotocol/client)
//     connects with a bearer token through its AuthProvider;
//   - oidc-provider (npm), a real OAuth 2.1 authorization server started by
//     the test, issues JWT and opaque access tokens with resource
//     indicators; the server discovers it, verifies JWTs with its JWKS and
//     introspects opaque tokens, and sees a revocation.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

// Pins of the npm packages these tests drive (see .ci/setup).
const (
	pinnedJose         = "6.2.17"
	pinnedOIDCProvider = "9.13.3"
)

func TestAuthE2E(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING end-to-end tests in -short mode")
	}
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	nt, err := findNodeTools(repo)
	if err != nil {
		requireOrSkip(t, "%v", err)
	}
	for name, want := range map[string]string{"jose": pinnedJose, "oidc-provider": pinnedOIDCProvider} {
		if got, err := packageVersion(filepath.Join(nt.npmDir, "node_modules", name)); err != nil || got != want {
			requireOrSkip(t, "%s is %q in %s, want %s (%v)", name, got, nt.npmDir, want, err)
		}
	}
	bin := buildServer(t, repo)
	_, _, denv := authDoris(t, nil)
	serverEnv := func(extra map[string]string) map[string]string {
		env := map[string]string{}
		for k, v := range denv {
			env[k] = v
		}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	clients := filepath.Join(repo, "testdata", "clients")

	t.Run("jose", func(t *testing.T) {
		dir := t.TempDir()
		const iss, aud = "https://jose-issuer.test", "doris-mcp-client"
		out, stderr, err := nt.run(t, dir, 60*time.Second, nil, filepath.Join(clients, "jose-interop.mjs"), "mint", "--iss", iss, "--aud", aud)
		var minted struct {
			OK      bool              `json:"ok"`
			JWKS    json.RawMessage   `json:"jwks"`
			Secret  string            `json:"secret"`
			Tokens  map[string]string `json:"tokens"`
			Expired map[string]string `json:"expired"`
		}
		if err != nil || json.Unmarshal([]byte(lastLines(out, 1)), &minted) != nil || !minted.OK || len(minted.Tokens) != 4 {
			t.Fatalf("jose mint: %v\n%s\n%s", err, out, stderr)
		}
		jwksFile := filepath.Join(dir, "jwks.json")
		os.WriteFile(jwksFile, minted.JWKS, 0o600)
		srv := startHTTPServer(t, bin, serverEnv(map[string]string{"ENABLE_JWT_AUTH": "true", "JWT_ALGORITHM": "RS256,ES256,EdDSA,HS256",
			"JWT_ISSUER": iss, "JWT_AUDIENCE": aud, "JWT_JWKS_FILE": jwksFile, "JWT_SECRET_KEY": minted.Secret}))
		for alg, tok := range minted.Tokens {
			if rep := mcpCall(t, srv.base, "/mcp", tok, "tools/list", "", nil); rep.status != 200 || rep.msg.Result == nil {
				t.Errorf("a jose %s token: %d %s", alg, rep.status, rep.body)
			}
			if rep := mcpCall(t, srv.base, "/mcp", minted.Expired[alg], "tools/list", "", nil); rep.status != 401 || !strings.Contains(rep.challenge, "expired") {
				t.Errorf("an expired jose %s token: %d %q", alg, rep.status, rep.challenge)
			}
		}

		// The other direction: jose verifies what our test minter signs.
		keys := authtest.NewKeys(t, "ours")
		ours := map[string]string{}
		for _, alg := range []string{"RS256", "ES256", "EdDSA", "HS256"} {
			h := map[string]any{"alg": alg, "typ": "JWT"}
			if alg != "HS256" {
				h["kid"] = keys.KIDs[alg]
			}
			ours[alg] = authtest.Sign(h, map[string]any{"iss": iss, "aud": aud, "sub": "ours-" + alg,
				"iat": time.Now().Unix(), "exp": time.Now().Unix() + 300}, keys.Private(alg))
		}
		in, _ := json.Marshal(map[string]any{"jwks": json.RawMessage(keys.JWKS()), "secret": string(keys.Secret), "tokens": ours})
		cmd := exec.Command(nt.node, filepath.Join(clients, "jose-interop.mjs"), "verify", "--iss", iss, "--aud", aud)
		cmd.Env = append(os.Environ(), "CLIENTS_DIR="+nt.npmDir)
		cmd.Stdin = strings.NewReader(string(in))
		vout, verr := cmd.Output()
		var verified struct {
			OK       bool              `json:"ok"`
			Verified map[string]string `json:"verified"`
		}
		if verr != nil || json.Unmarshal([]byte(lastLines(string(vout), 1)), &verified) != nil || !verified.OK {
			t.Fatalf("jose verify: %v %s", verr, vout)
		}
		for alg := range ours {
			if verified.Verified[alg] != "ours-"+alg {
				t.Errorf("jose did not verify our %s token: %v", alg, verified.Verified)
			}
		}
		writeSummary("auth e2e: jose verified our RS256/ES256/EdDSA/HS256 tokens; we verified jose's (and refused them expired)")
	})

	t.Run("client with a bearer token", func(t *testing.T) {
		const tok = "e2e-client-token-8c7b6a5f4e3d2c1b0a99"
		srv := startHTTPServer(t, bin, serverEnv(map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_E2E": tok, "MCP_LIST_PAGE_SIZE": "3"}))
		dir := t.TempDir()
		args := []string{filepath.Join(clients, "v2-modern.mjs"), "--url", srv.base + "/mcp", "--bearer", tok,
			"--expect-tools", "8", "--min-pages", "3", "--call", "doris_catalog", "--expect-mode", "manifest", "--child", "list_databases"}
		out, stderr, err := nt.run(t, dir, 90*time.Second, nil, args...)
		if s, perr := parseSummary(out); err != nil || perr != nil || !s.OK {
			t.Fatalf("the TypeScript client with a valid token: %v %v\n%s\n%s", err, perr, out, lastLines(stderr, 30))
		}
		args[4] = "e2e-wrong-token-000000000000000000000000"
		out, stderr, err = nt.run(t, dir, 90*time.Second, nil, args...)
		if err == nil || !strings.Contains(out+stderr, "nauthorized") {
			t.Fatalf("the TypeScript client with a wrong token did not fail as unauthorized: %v\n%s\n%s", err, out, lastLines(stderr, 30))
		}
		writeSummary("auth e2e: @modelcontextprotocol/client %s connected with a bearer token (and was refused with a wrong one)", pinnedClient)
	})

	t.Run("oidc-provider", func(t *testing.T) {
		testOIDCProvider(t, nt, bin, clients, serverEnv)
	})
}

// testOIDCProvider runs the external-OAuth mode against oidc-provider.
func testOIDCProvider(t *testing.T, nt nodeTools, bin, clients string, serverEnv func(map[string]string) map[string]string) {
	opPort, mcpPort := closedPort(t), closedPort(t)
	resource := fmt.Sprintf("http://127.0.0.1:%d/mcp", mcpPort)
	scopes := "tool:list resource:list resource:read prompt:list prompt:get"
	issuer := startNodeServer(t, nt, filepath.Join(clients, "oidc-provider.mjs"), "--port", strconv.Itoa(opPort), "--resource", resource, "--scopes", scopes)
	srv := startHTTPServer(t, bin, serverEnv(map[string]string{"SERVER_PORT": strconv.Itoa(mcpPort),
		"ENABLE_OAUTH_AUTH": "true", "OAUTH_ISSUER": issuer, "OAUTH_RESOURCE": resource,
		"OAUTH_DISCOVERY_URL":           issuer + "/.well-known/openid-configuration",
		"OAUTH_INTROSPECTION_CLIENT_ID": "doris-mcp", "OAUTH_INTROSPECTION_CLIENT_SECRET": "doris-mcp-secret-0123456789",
		"OAUTH_SCOPE": scopes, "OAUTH_REQUIRED_SCOPE": "tool:list",
		"OAUTH_INTROSPECTION_CACHE_SECONDS": "0", "OAUTH_LEEWAY_SECONDS": "0"}))
	token := func(client, scope, res string) string {
		t.Helper()
		form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}, "resource": {res}}
		req, _ := http.NewRequest("POST", issuer+"/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(client, client+"-secret-0123456789")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var tr struct {
			AccessToken string `json:"access_token"`
		}
		if json.Unmarshal(b, &tr) != nil || tr.AccessToken == "" {
			t.Fatalf("token for %s: %d %s", client, resp.StatusCode, b)
		}
		return tr.AccessToken
	}
	meta := `resource_metadata="` + srv.base + `/.well-known/oauth-protected-resource/mcp"`
	jwtTok := token("jwt-host", scopes, resource)
	opaqueTok := token("opaque-host", scopes, resource)
	if strings.Count(jwtTok, ".") != 2 || strings.Contains(opaqueTok, ".") {
		t.Fatalf("the provider did not issue one JWT and one opaque token: %q %q", jwtTok, opaqueTok)
	}
	for _, tc := range []struct {
		name, token string
		status      int
		want        string // in the challenge
	}{
		{"JWT access token", jwtTok, 200, ""},
		{"opaque access token", opaqueTok, 200, ""},
		{"no token", "", 401, meta},
		{"JWT for another resource", token("jwt-host", scopes, "https://other.example/mcp"), 401, "audience"},
		{"opaque for another resource", token("opaque-host", scopes, "https://other.example/mcp"), 401, "audience"},
		{"JWT without the required scope", token("jwt-host", "resource:list", resource), 403, `error="insufficient_scope"`},
		{"opaque without resource:read", token("opaque-host", "tool:list", resource), 200, ""},
	} {
		rep := mcpCall(t, srv.base, "/mcp", tc.token, "tools/list", "", nil)
		if rep.status != tc.status || !strings.Contains(rep.challenge, tc.want) {
			t.Errorf("%s: got %d %q, want %d with %q", tc.name, rep.status, rep.challenge, tc.status, tc.want)
		}
	}
	narrow := token("opaque-host", "tool:list", resource)
	if rep := mcpCall(t, srv.base, "/mcp", narrow, "resources/list", "", nil); rep.status != 403 || !strings.Contains(rep.challenge, `scope="resource:list tool:list"`) {
		t.Errorf("resources/list without resource:list: %d %q", rep.status, rep.challenge)
	}

	// Revocation at the authorization server stops the opaque token.
	form := url.Values{"token": {opaqueTok}}
	req, _ := http.NewRequest("POST", issuer+"/token/revocation", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("opaque-host", "opaque-host-secret-0123456789")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("revocation: %v %v", resp, err)
	}
	if rep := mcpCall(t, srv.base, "/mcp", opaqueTok, "tools/list", "", nil); rep.status != 401 || !strings.Contains(rep.challenge, "not active") {
		t.Errorf("a revoked token: %d %q", rep.status, rep.challenge)
	}

	// A token past its exp (60 s lifetime, no leeway) is refused: it works,
	// the provider's clock moves past its exp, and introspection reports it
	// inactive.
	short := token("short-host", scopes, resource)
	if rep := mcpCall(t, srv.base, "/mcp", short, "tools/list", "", nil); rep.status != 200 {
		t.Errorf("a token within its lifetime: %d %q", rep.status, rep.challenge)
	}
	advanceProviderClock(t, issuer, 61)
	if rep := mcpCall(t, srv.base, "/mcp", short, "tools/list", "", nil); rep.status != 401 || !strings.Contains(rep.challenge, "not active") {
		t.Errorf("an expired token: %d %q", rep.status, rep.challenge)
	}
	advanceProviderClock(t, issuer, -61) // the tokens below are checked against the server's clock

	// RFC 9728 metadata names the provider.
	resp, err := http.Get(srv.base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var md struct {
		Resource string   `json:"resource"`
		AS       []string `json:"authorization_servers"`
	}
	if json.Unmarshal(b, &md) != nil || md.Resource != resource || len(md.AS) != 1 || md.AS[0] != issuer {
		t.Errorf("metadata %s", b)
	}

	// The TypeScript client, with an access token from the provider.
	out, stderr, err := nt.run(t, t.TempDir(), 90*time.Second, nil, filepath.Join(clients, "v2-modern.mjs"), "--url", srv.base+"/mcp",
		"--bearer", token("jwt-host", scopes, resource), "--expect-tools", "8", "--call", "doris_catalog", "--expect-mode", "manifest")
	if s, perr := parseSummary(out); err != nil || perr != nil || !s.OK {
		t.Fatalf("the TypeScript client with an oidc-provider token: %v %v\n%s\n%s", err, perr, out, lastLines(stderr, 30))
	}
	writeSummary("auth e2e: oidc-provider %s: JWT (JWKS) and opaque (introspection) access tokens, audience, scope, revocation, expiry", pinnedOIDCProvider)
}

// advanceProviderClock moves the clock of oidc-provider.mjs at issuer by
// seconds.
func advanceProviderClock(t *testing.T, issuer string, seconds int) {
	t.Helper()
	resp, err := http.Post(issuer+"/_test/clock?advance="+strconv.Itoa(seconds), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("advance the provider's clock: %d", resp.StatusCode)
	}
}

// startNodeServer runs a Node script that prints {"ready": URL} when it
// listens, and stops it at cleanup.
func startNodeServer(t *testing.T, nt nodeTools, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command(nt.node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "CLIENTS_DIR="+nt.npmDir, "NODE_ENV=test")
	cmd.Dir = t.TempDir()
	stderr := &tailBuffer{max: 64 << 10}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var m struct{ Ready string }
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.Ready != "" {
				ready <- m.Ready
			}
		}
	}()
	select {
	case u := <-ready:
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start:\n%s", filepath.Base(script), stderr.String())
	}
	return ""
}
