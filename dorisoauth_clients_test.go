package main

// Third-party clients against Doris-backed OAuth: the official TypeScript
// SDK v2 client completes the whole flow (testdata/clients/v2-oauth.mjs),
// and headless Chromium drives the sign-in page
// (testdata/clients/oauth-browser.mjs, playwright-core). The server is the
// whole program, run() in process, configured from the environment.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// runServer runs the whole program on a free loopback port with env, and
// returns its base URL. Cleanup stops it and fails the test if it failed.
func runServer(t *testing.T, env func(base string) map[string]string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	e := env(base)
	e["SERVER_PORT"] = strconv.Itoa(port)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--env-file", os.DevNull}, e, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v\n%s", err, stderr.String())
		}
	})
	for i := 0; ; i++ {
		resp, err := http.Get(base + "/live")
		if err == nil {
			resp.Body.Close()
			return base
		}
		select {
		case err := <-done:
			t.Fatalf("server exited: %v\n%s", err, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if i > 600 {
			t.Fatalf("server did not answer /live within 30 s:\n%s", stderr.String())
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDorisOAuthTypeScriptClient: the official TypeScript client completes
// metadata discovery, registration, PKCE, the sign-in page (a wrong
// password first), the token exchange, calls, and a refresh.
func TestDorisOAuthTypeScriptClient(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING end-to-end test in -short mode")
	}
	repo, _ := os.Getwd()
	nt, err := findNodeTools(repo)
	if err != nil {
		requireOrSkip(t, "%v", err)
	}
	d := startOAuthDoris(t)
	base := runServer(t, func(base string) map[string]string { return oauthEnv(d, base, nil) })
	stdout, stderr, err := nt.run(t, t.TempDir(), 90*time.Second, nil, filepath.Join(repo, "testdata", "clients", "v2-oauth.mjs"),
		"--url", base+"/mcp", "--user", "ana", "--password", "ana-pw-1", "--expect-tools", strconv.Itoa(domainCount))
	if err != nil {
		t.Fatalf("v2-oauth.mjs: %v\nstdout: %s\nstderr: %s", err, stdout, lastLines(stderr, 40))
	}
	var sum struct {
		OK       bool
		Events   []string
		Scope    string
		Children []string
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &sum); err != nil || !sum.OK {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	// The challenged scopes are the server's safe set; the allowlisted
	// children, and only they, appear in the manifest.
	if !strings.Contains(sum.Scope, "child:call:doris_catalog:list_tables") || strings.Contains(sum.Scope, "prompt:") {
		t.Errorf("requested scope %q", sum.Scope)
	}
	if !slices.Equal(sum.Children, []string{"list_databases", "list_tables"}) {
		t.Errorf("doris_catalog children %v, want the allowlisted list_databases and list_tables", sum.Children)
	}
	t.Logf("TypeScript client: %s", strings.TrimSpace(stdout))
	writeSummary("doris-oauth ts-client: %s", strings.TrimSpace(stdout))
}

// chromium finds Debian's chromium and playwright-core, or says why not.
func chromium(nt nodeTools) (string, error) {
	bin := os.Getenv("DORIS_MCP_CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(bin); err != nil {
		return "", errors.New("no chromium at " + bin + " (./.ci/setup installs Debian's chromium as root)")
	}
	if v, err := packageVersion(filepath.Join(nt.npmDir, "node_modules", "playwright-core")); err != nil || v != pinnedPlaywright {
		return "", errors.New("playwright-core@" + pinnedPlaywright + " is not installed in " + nt.npmDir + " (run ./.ci/setup)")
	}
	return bin, nil
}

const pinnedPlaywright = "1.65.1"

// TestDorisOAuthBrowser: the sign-in page in headless Chromium: a wrong
// password is refused on the page, the right one sends the browser back
// to the application with a code, and a person without privileges signs
// in too and then sees nothing, as Doris decides. A screenshot of the
// refused attempt is saved (DORIS_MCP_SCREENSHOT_DIR, or the test's temp
// directory).
func TestDorisOAuthBrowser(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING end-to-end test in -short mode")
	}
	repo, _ := os.Getwd()
	nt, err := findNodeTools(repo)
	if err != nil {
		requireOrSkip(t, "%v", err)
	}
	bin, err := chromium(nt)
	if err != nil {
		requireOrSkip(t, "%v", err)
	}
	d := startOAuthDoris(t)
	base := runServer(t, func(base string) map[string]string { return oauthEnv(d, base, nil) })

	// The application's redirect endpoint: records the code it is sent.
	var mu sync.Mutex
	var callbacks []url.Values
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r) // the browser's favicon request
			return
		}
		mu.Lock()
		callbacks = append(callbacks, r.URL.Query())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!DOCTYPE html><title>Application</title><h1 id=done>Signed in</h1>"))
	}))
	t.Cleanup(app.Close)
	b := newBrowser(t, base)
	redirect := app.URL + "/callback"
	client := b.register(redirect)
	verifier := strings.Repeat("browser-verifier-", 4)
	sum := sha256.Sum256([]byte(verifier))
	authorize := base + "/oauth/authorize?" + url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "state": {"browser-state"}}.Encode()

	shots := os.Getenv("DORIS_MCP_SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	stdout, stderr, err := nt.run(t, t.TempDir(), 120*time.Second, map[string]string{"CHROMIUM": bin, "SCREENSHOT_DIR": shots},
		filepath.Join(repo, "testdata", "clients", "oauth-browser.mjs"), "--authorize", authorize,
		"--attempts", `[["ana","wrong-password"],["ana","ana-pw-1"],["nobody","nobody-pw-1"]]`)
	if err != nil {
		t.Fatalf("oauth-browser.mjs: %v\nstdout: %s\nstderr: %s", err, stdout, lastLines(stderr, 40))
	}
	var res struct {
		OK       bool
		Attempts []struct {
			User, Outcome, Error, Screenshot, URL string
			PasswordCleared                       bool
		}
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout)), &res); err != nil || !res.OK || len(res.Attempts) != 3 {
		t.Fatalf("browser result %q: %v", stdout, err)
	}
	if a := res.Attempts[0]; a.Outcome != "refused" || !strings.Contains(a.Error, "did not accept") || !a.PasswordCleared {
		t.Errorf("wrong password: %+v", a)
	}
	for _, a := range res.Attempts[1:] {
		if a.Outcome != "redirected" || !strings.HasPrefix(a.URL, redirect) {
			t.Errorf("%s: %+v", a.User, a)
		}
	}
	mu.Lock()
	got := slices.Clone(callbacks)
	mu.Unlock()
	if len(got) != 2 {
		t.Fatalf("the application received %d callbacks, want 2", len(got))
	}
	seen := map[string][]string{}
	for i, cb := range got {
		if cb.Get("state") != "browser-state" || cb.Get("iss") != base {
			t.Errorf("callback %d: %v", i, cb)
		}
		access, _, a := b.token(url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {cb.Get("code")},
			"code_verifier": {verifier}, "redirect_uri": {redirect}})
		if a.status != 200 {
			t.Fatalf("token for callback %d: %d %s", i, a.status, a.body)
		}
		names, _ := tables(t, base, access)
		seen[res.Attempts[i+1].User] = names
	}
	if !slices.Equal(seen["ana"], []string{"customers", "orders"}) || len(seen["nobody"]) != 0 {
		t.Errorf("what the people see: %v", seen)
	}
	for _, a := range res.Attempts {
		if a.Screenshot != "" {
			t.Logf("screenshot of %s (%s): %s", a.User, a.Outcome, a.Screenshot)
		}
	}
	writeSummary("doris-oauth chromium: %d attempts, screenshots in %s", len(res.Attempts), shots)
}
