package main

// The bridge signing a person in with Doris OAuth: the official TypeScript
// SDK v2 client over stdio runs the Host test sequence through `bridge
// --oauth URL`; the bridge discovers the server's metadata, registers
// itself, prints the sign-in URL and opens it with $BROWSER, which here is
// headless Chromium (testdata/clients/oauth-browser.mjs) typing ana's Doris
// password into the sign-in page. The tokens land in a 0600 file under
// the user's configuration directory; the next run reuses them without a
// browser, an expired access token is refreshed (the refresh token
// rotates), and a refused refresh asks for a new sign-in.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBridgeDorisOAuth(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING end-to-end test in -short mode")
	}
	repo, _ := os.Getwd()
	nt, err := findNodeTools(repo)
	if err != nil {
		requireOrSkip(t, "%v", err)
	}
	chrome, err := chromium(nt)
	if err != nil {
		requireOrSkip(t, "%v", err)
	}
	d := startOAuthDoris(t)
	bin := buildServer(t, repo)
	base := runServer(t, func(base string) map[string]string {
		return oauthEnv(d, base, map[string]string{"DORIS_OAUTH_CHILD_TOOL_ALLOWLIST": "doris_catalog.list_databases,doris_catalog.list_tables," +
			"doris_query.execute_query,doris_cluster.get_runtime_capabilities"})
	})
	url := base + "/mcp"

	// $BROWSER: headless Chromium signs ana in; each sign-in is recorded.
	home := t.TempDir()
	signins := filepath.Join(t.TempDir(), "signins.jsonl")
	shots := os.Getenv("DORIS_MCP_SCREENSHOT_DIR")
	if shots == "" {
		shots = t.TempDir()
	}
	browser := filepath.Join(t.TempDir(), "browser.sh")
	script := "#!/bin/sh\nexec '" + nt.node + "' '" + filepath.Join(repo, "testdata", "clients", "oauth-browser.mjs") +
		"' --authorize \"$1\" --attempts '[[\"ana\",\"ana-pw-1\"]]' >>'" + signins + "' 2>>'" + signins + ".err'\n"
	if err := os.WriteFile(browser, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BROWSER": browser, "CHROMIUM": chrome, "SCREENSHOT_DIR": shots}
	logFile := filepath.Join(t.TempDir(), "bridge.log")
	bridgeArgs := []string{"--era", "pin", "--", bin, "bridge", "--oauth", "--log-file", logFile, url}

	first := runHostSeqIn(t, nt, home, env, bridgeArgs...)
	if first.Era != "modern" {
		t.Errorf("era %s", first.Era)
	}
	// The browser script reports after the bridge has its code.
	var attempts []string
	waitFor(60*time.Second, 100*time.Millisecond, func() bool { attempts = readSignins(t, signins); return len(attempts) > 0 })
	if len(attempts) != 1 || attempts[0] != "redirected" {
		t.Fatalf("sign-ins in the browser: %v (%s)", attempts, readFile(signins+".err"))
	}
	files, _ := filepath.Glob(filepath.Join(home, ".config", "doris-mcp-server", "oauth", "tokens-*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	tokenFile := files[0]
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file %s: %v %v, want 0600", tokenFile, fi.Mode(), err)
	}
	if fi, _ := os.Stat(filepath.Dir(tokenFile)); fi.Mode().Perm() != 0o700 {
		t.Errorf("the token directory is %v, want 0700", fi.Mode().Perm())
	}
	saved := readSaved(t, tokenFile)
	if !strings.HasPrefix(saved["access_token"].(string), "doa_") || saved["refresh_token"] == "" || saved["resource"] != url {
		t.Fatalf("the token file holds %v", keys(saved))
	}

	// Again: the stored token serves, no browser.
	runHostSeqIn(t, nt, home, env, bridgeArgs...)
	if n := len(readSignins(t, signins)); n != 1 {
		t.Errorf("a second run signed in again (%d sign-ins) instead of using the stored token", n)
	}

	// The access token expired: the bridge refreshes it (and the refresh
	// token rotates) without the person.
	saved["expires_at"] = time.Now().Add(-time.Minute).Format(time.RFC3339)
	writeSaved(t, tokenFile, saved)
	runHostSeqIn(t, nt, home, env, bridgeArgs...)
	after := readSaved(t, tokenFile)
	if after["access_token"] == saved["access_token"] || after["refresh_token"] == saved["refresh_token"] {
		t.Errorf("no refresh: the tokens did not change")
	}
	if n := len(readSignins(t, signins)); n != 1 {
		t.Errorf("a refresh asked the person to sign in (%d sign-ins)", n)
	}

	// The refresh is refused: the person is asked to sign in again.
	after["expires_at"] = time.Now().Add(-time.Minute).Format(time.RFC3339)
	after["refresh_token"] = "dor_not-a-refresh-token"
	writeSaved(t, tokenFile, after)
	runHostSeqIn(t, nt, home, env, bridgeArgs...)
	var got []string
	waitFor(60*time.Second, 100*time.Millisecond, func() bool { got = readSignins(t, signins); return len(got) > 1 })
	if len(got) != 2 || got[1] != "redirected" {
		t.Errorf("a refused refresh: sign-ins %v, want a second one", got)
	}

	// No token in the bridge's log.
	log := readFile(logFile)
	final := readSaved(t, tokenFile)
	for _, k := range []string{"access_token", "refresh_token"} {
		for _, v := range []any{saved[k], after[k], final[k]} {
			if s, _ := v.(string); s != "" && strings.Contains(log, s) {
				t.Errorf("the bridge's log holds a %s", k)
			}
		}
	}
	if !strings.Contains(log, "signed in with OAuth") || !strings.Contains(log, "refreshed the OAuth access token") {
		t.Errorf("the log does not say what the bridge did:\n%s", lastLines(log, 20))
	}
	writeSummary("bridge --oauth (Doris OAuth, headless Chromium): Host sequence passed; token file 0600; reused, refreshed, re-authenticated")
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// readSignins returns the outcome of each sign-in the browser did.
func readSignins(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(readFile(path)), "\n") {
		var s struct {
			OK       bool
			Attempts []struct{ Outcome string }
		}
		if line == "" || json.Unmarshal([]byte(line), &s) != nil {
			continue
		}
		for _, a := range s.Attempts {
			out = append(out, a.Outcome)
		}
		if !s.OK {
			out = append(out, "failed")
		}
	}
	return out
}

func readSaved(t *testing.T, path string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(readFile(path)), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func writeSaved(t *testing.T, path string, m map[string]any) {
	t.Helper()
	b, _ := json.Marshal(m)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
