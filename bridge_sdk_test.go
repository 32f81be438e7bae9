package main

// A desktop Host through the bridge, and through its npm peer: the
// official TypeScript SDK v2 client over stdio runs the Host test sequence
// (testdata/clients/hostseq.mjs) through `doris-mcp-server bridge URL`
// to the server over HTTP with a bearer token, in 2026-07-28 and in the
// handshake era, and through mcp-remote (npm) in the same test; every
// step's answer must be the same through both.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const pinnedMCPRemote = "0.15.1"

// hostSeqSummary is what hostseq.mjs prints.
type hostSeqSummary struct {
	OK              bool                       `json:"ok"`
	Error           string                     `json:"error"`
	Era             string                     `json:"era"`
	ProtocolVersion string                     `json:"protocolVersion"`
	Progress        int                        `json:"progress"`
	Answers         map[string]json.RawMessage `json:"answers"`
}

func runHostSeq(t *testing.T, nt nodeTools, env map[string]string, args ...string) hostSeqSummary {
	t.Helper()
	return runHostSeqIn(t, nt, t.TempDir(), env, args...)
}

// runHostSeqIn runs hostseq.mjs with dir as its working and home
// directory (the bridge it starts inherits both).
func runHostSeqIn(t *testing.T, nt nodeTools, dir string, env map[string]string, args ...string) hostSeqSummary {
	t.Helper()
	repo, _ := os.Getwd()
	script := filepath.Join(repo, "testdata", "clients", "hostseq.mjs")
	stdout, stderr, err := nt.run(t, dir, 160*time.Second, env, append([]string{script}, args...)...)
	var s hostSeqSummary
	if jerr := json.Unmarshal([]byte(lastLines(stdout, 1)), &s); err != nil || jerr != nil || !s.OK {
		t.Fatalf("hostseq.mjs %v: %v\nstdout: %s\nstderr: %s", args, err, lastLines(stdout, 3), lastLines(stderr, 30))
	}
	return s
}

func TestBridgeHostSDK(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING end-to-end test in -short mode")
	}
	repo, _ := os.Getwd()
	nt, err := findNodeTools(repo)
	if err != nil {
		requireOrSkip(t, "%v", err)
	}
	mcpRemote := filepath.Join(nt.npmDir, "node_modules", "mcp-remote")
	if v, err := packageVersion(mcpRemote); err != nil || v != pinnedMCPRemote {
		requireOrSkip(t, "mcp-remote@%s is not installed in %s (run ./.ci/setup)", pinnedMCPRemote, nt.npmDir)
	}
	d := startBridgeDoris(t)
	bin := buildServer(t, repo)
	env := map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_HOST": bridgeToken}
	for k, v := range d.env {
		env[k] = v
	}
	remote := startRemote(t, bin, closedPort(t), env)
	url := remote.base + "/mcp"
	logFile := filepath.Join(t.TempDir(), "bridge.log")
	tokenEnv := map[string]string{bridgeTokenVariable: bridgeToken}

	modern := runHostSeq(t, nt, tokenEnv, "--era", "pin", "--progress", "--", bin, "bridge", "--log-file", logFile, url)
	if modern.Era != "modern" || modern.ProtocolVersion != "2026-07-28" || modern.Progress == 0 {
		t.Errorf("through the bridge, pinned: era %s %s, %d progress notifications", modern.Era, modern.ProtocolVersion, modern.Progress)
	}
	legacy := runHostSeq(t, nt, tokenEnv, "--era", "legacy", "--", bin, "bridge", "--log-file", logFile, url)
	if legacy.Era != "legacy" {
		t.Errorf("through the bridge, legacy: era %s %s", legacy.Era, legacy.ProtocolVersion)
	}
	// The peer: mcp-remote, the token given as its README says, through
	// an environment variable its --header argument names. Its default
	// (--protocol legacy) is refused by /mcp: it sends Mcp-Method on its
	// initialize, which marks a 2026-07-28 request; --protocol auto makes
	// it probe server/discover and speak 2026-07-28.
	peerEnv := map[string]string{"AUTH_HEADER": "Bearer " + bridgeToken}
	peer := runHostSeq(t, nt, peerEnv, "--era", "auto", "--", nt.node, filepath.Join(mcpRemote, "dist", "proxy.js"), url,
		"--header", "Authorization:${AUTH_HEADER}", "--transport", "http-only", "--protocol", "auto")
	t.Logf("bridge: %s %s; legacy %s %s; mcp-remote@%s: %s %s", modern.Era, modern.ProtocolVersion, legacy.Era, legacy.ProtocolVersion,
		pinnedMCPRemote, peer.Era, peer.ProtocolVersion)

	steps := make([]string, 0, len(peer.Answers))
	for k := range peer.Answers {
		steps = append(steps, k)
	}
	slices.Sort(steps)
	if len(steps) != 8 {
		t.Fatalf("mcp-remote answered %d steps", len(steps))
	}
	for _, step := range steps {
		for name, s := range map[string]hostSeqSummary{"the bridge (2026-07-28)": modern, "the bridge (handshake era)": legacy} {
			if string(s.Answers[step]) != string(peer.Answers[step]) {
				t.Errorf("step %s: %s answered\n%s\nmcp-remote answered\n%s", step, name, s.Answers[step], peer.Answers[step])
			}
		}
	}
	writeSummary("bridge vs mcp-remote@%s: the TypeScript SDK v2 Host sequence, %d steps, the same answers (bridge %s and %s, mcp-remote %s)",
		pinnedMCPRemote, len(steps), modern.ProtocolVersion, legacy.ProtocolVersion, peer.ProtocolVersion)

	// The bridge's log: one record per request, no token, no arguments.
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(logFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("the log file is %v, want 0600", fi.Mode().Perm())
	}
	log := string(b)
	if strings.Contains(log, bridgeToken) || strings.Contains(log, "INSERT INTO") || strings.Contains(log, "salaries") {
		t.Errorf("the bridge's log holds the token or an argument:\n%s", lastLines(log, 10))
	}
	if n := strings.Count(log, `"msg":"invocation"`); n < 2*12 {
		t.Errorf("%d invocation records for two runs of the sequence", n)
	}
}
