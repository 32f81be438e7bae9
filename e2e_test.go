package main

// End-to-end tests: the built binary, driven by third-party tooling exactly
// as users and Hosts drive it.
//
//   - The official conformance suite (@modelcontextprotocol/conformance,
//     pinned) with --requirements 2026-07-28 against /mcp (hierarchical and
//     flat exposure) and --requirements 2025-11-25 against /mcp/legacy, with
//     the expected-failures baselines in testdata/conformance/. Beyond the
//     suite's own verdict the test also requires every wire-schema check to
//     pass, the (unscored) http-header-validation scenario to pass, every
//     scored scenario to have run, and every baseline entry to match a real
//     failing check of a fixture item.
//   - Real clients (testdata/clients/*.mjs): @modelcontextprotocol/client
//     pinned to 2026-07-28 over Streamable HTTP and stdio, in both exposure
//     modes, walking every page of tools/list (MCP_LIST_PAGE_SIZE=3), and
//     @modelcontextprotocol/sdk (2025-11-25) against /mcp/legacy and stdio.
//
// Doris is the simulator in front of a throwaway MariaDB
// (doris/dorissim). Node 22 and the npm packages come from DORIS_MCP_NODE
// and DORIS_MCP_NPM_DIR, or from .ci/cache (./.ci/setup installs them).
// Without them the tests skip loudly; under CI=true they fail instead.
// With -race the server binary is built with -race as well.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// The contract's tool counts (hierarchical: domains; flat: children).
const (
	domainCount = 8
	childCount  = 55
	e2ePageSize = 3
)

func TestE2E(t *testing.T) {
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
	t.Logf("node %s at %s; npm packages in %s", nt.version, nt.node, nt.npmDir)
	bin := buildServer(t, repo)
	doris := startFakeDoris(t)

	serverEnv := func(mode string, pageSize int) map[string]string {
		env := map[string]string{"MCP_TOOL_EXPOSURE_MODE": mode}
		if pageSize > 0 {
			env["MCP_LIST_PAGE_SIZE"] = strconv.Itoa(pageSize)
		}
		for k, v := range doris.env {
			env[k] = v
		}
		return env
	}

	t.Run("conformance", func(t *testing.T) {
		if !doris.live {
			// Reached only outside CI (startFakeDoris fails under CI).
			t.Skip("SKIPPING conformance runs: they need the Doris simulator, which needs MariaDB (./.ci/setup as root installs it)")
		}
		hier := startHTTPServer(t, bin, serverEnv("hierarchical", 0))
		flat := startHTTPServer(t, bin, serverEnv("flat", 0))
		runs := []struct {
			name, url, rev, baseline string
		}{
			{"2026-07-28/hierarchical", hier.base + "/mcp", "2026-07-28", "baseline-2026-07-28.yml"},
			{"2025-11-25/legacy", hier.base + "/mcp/legacy", "2025-11-25", "baseline-2025-11-25.yml"},
			// /mcp serves the handshake era too, on default settings.
			{"2025-11-25/mcp", hier.base + "/mcp", "2025-11-25", "baseline-2025-11-25.yml"},
			{"2026-07-28/flat", flat.base + "/mcp", "2026-07-28", "baseline-2026-07-28.yml"},
		}
		for _, r := range runs {
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				runConformance(t, nt, r.name, r.url, r.rev, filepath.Join(repo, "testdata", "conformance", r.baseline))
			})
		}
	})

	t.Run("clients", func(t *testing.T) {
		hier := startHTTPServer(t, bin, serverEnv("hierarchical", e2ePageSize))
		flat := startHTTPServer(t, bin, serverEnv("flat", e2ePageSize))
		hierArgs := []string{"--expect-tools", strconv.Itoa(domainCount), "--min-pages", strconv.Itoa(pages(domainCount)),
			"--call", "doris_catalog", "--expect-mode", "manifest"}
		flatArgs := []string{"--expect-tools", strconv.Itoa(childCount), "--min-pages", strconv.Itoa(pages(childCount)),
			"--call", "doris_catalog_list_databases"}
		if doris.live {
			flatArgs = append(flatArgs, "--expect-mode", "result")
		} else {
			// An unreachable Doris: the child reports itself not callable.
			flatArgs = append(flatArgs, "--allow-tool-error", "--expect-mode", "error")
		}
		v2HierArgs := hierArgs
		if doris.live {
			// Then a child through the domain, with the manifest_version.
			v2HierArgs = append(slices.Clip(hierArgs), "--child", "list_databases")
		}
		stdio := func(mode string) ([]string, map[string]string) {
			return []string{"--", bin, "--transport", "stdio"}, serverEnv(mode, e2ePageSize)
		}
		hierStdio, hierStdioEnv := stdio("hierarchical")
		flatStdio, flatStdioEnv := stdio("flat")
		cases := []struct {
			name, script string
			args         []string
			env          map[string]string
			version      string
			tools        int
		}{
			{"v2/http/hierarchical", "v2-modern.mjs", append([]string{"--url", hier.base + "/mcp"}, v2HierArgs...), nil, "2026-07-28", domainCount},
			{"v2/http/flat", "v2-modern.mjs", append([]string{"--url", flat.base + "/mcp"}, flatArgs...), nil, "2026-07-28", childCount},
			{"v2/stdio/hierarchical", "v2-modern.mjs", append(slices.Clip(v2HierArgs), hierStdio...), hierStdioEnv, "2026-07-28", domainCount},
			{"v2/stdio/flat", "v2-modern.mjs", append(slices.Clip(flatArgs), flatStdio...), flatStdioEnv, "2026-07-28", childCount},
			{"v1/http-legacy/hierarchical", "v1-legacy.mjs", append([]string{"--url", hier.base + "/mcp/legacy"}, hierArgs...), nil, "2025-11-25", domainCount},
			{"v1/http/hierarchical", "v1-legacy.mjs", append([]string{"--url", hier.base + "/mcp"}, hierArgs...), nil, "2025-11-25", domainCount},
			{"v1/http/flat", "v1-legacy.mjs", append([]string{"--url", flat.base + "/mcp"}, flatArgs...), nil, "2025-11-25", childCount},
			{"v1/http-legacy/flat", "v1-legacy.mjs", append([]string{"--url", flat.base + "/mcp/legacy"}, flatArgs...), nil, "2025-11-25", childCount},
			{"v1/stdio/hierarchical", "v1-legacy.mjs", append(slices.Clip(hierArgs), hierStdio...), hierStdioEnv, "2025-11-25", domainCount},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				env := map[string]string{}
				if c.env != nil {
					env = serverBaseEnv(dir)
					for k, v := range c.env {
						env[k] = v
					}
				}
				script := filepath.Join(repo, "testdata", "clients", c.script)
				start := time.Now()
				stdout, stderr, err := nt.run(t, dir, 90*time.Second, env, append([]string{script}, c.args...)...)
				s, perr := parseSummary(stdout)
				if err != nil || perr != nil || !s.OK {
					t.Fatalf("%s %s: %v %v\nstdout:\n%s\nstderr:\n%s", c.script, strings.Join(c.args, " "), err, perr, stdout, lastLines(stderr, 60))
				}
				if s.ProtocolVersion != c.version || s.Tools != c.tools || s.Pages < pages(c.tools) || !s.Call.OK {
					t.Fatalf("unexpected summary: %s", s.Raw)
				}
				t.Logf("%s (%s): %s", c.name, time.Since(start).Round(time.Millisecond), s.Raw)
				writeSummary("client %-28s %s protocol=%s era=%s tools=%d pages=%d call=%s ok=%v isError=%v mode=%s",
					c.name, s.Client, s.ProtocolVersion, s.Era, s.Tools, s.Pages, s.Call.Name, s.Call.OK, s.Call.IsError, s.Call.Mode)
			})
		}
	})
}

// TestE2EHostsOfToday drives /mcp on default settings with the clients
// people install today, each in its default mode: the SDK v1 client, the
// SDK v2 client in its default (handshake-era) and auto modes, each
// running the Host test sequence (testdata/clients/hostseq.mjs), and the
// MCP Inspector CLI in its default mode listing the tools and running
// execute_query.
func TestE2EHostsOfToday(t *testing.T) {
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
	bin := buildServer(t, repo)
	doris := startFakeDoris(t)
	if !doris.live {
		t.Skip("SKIPPING the Host sequences: they need the Doris simulator, which needs MariaDB (./.ci/setup as root installs it)")
	}
	env := func(mode string) map[string]string {
		e := map[string]string{"MCP_TOOL_EXPOSURE_MODE": mode}
		for k, v := range doris.env {
			e[k] = v
		}
		return e
	}
	hier := startHTTPServer(t, bin, env("hierarchical"))
	flat := startHTTPServer(t, bin, env("flat"))

	t.Run("host sequence", func(t *testing.T) {
		for _, c := range []struct {
			name string
			args []string
			era  string
		}{
			{"sdk-v1", []string{"--sdk", "v1"}, "legacy"},
			{"sdk-v2-default", []string{"--sdk", "v2", "--era", "legacy"}, "legacy"},
			{"sdk-v2-auto", []string{"--sdk", "v2", "--era", "auto"}, "modern"},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				args := append([]string{filepath.Join(repo, "testdata", "clients", "hostseq.mjs"), "--url", hier.base + "/mcp",
					"--database", mariadb.DemoDatabase, "--forbidden", mariadb.SecretDatabase + ".salaries"}, c.args...)
				stdout, stderr, err := nt.run(t, dir, 120*time.Second, nil, args...)
				var s struct {
					OK     bool   `json:"ok"`
					Client string `json:"client"`
					Era    string `json:"era"`
					Steps  int    `json:"steps"`
				}
				if err != nil || json.Unmarshal([]byte(lastLines(stdout, 1)), &s) != nil || !s.OK {
					t.Fatalf("hostseq %v: %v\nstdout:\n%s\nstderr:\n%s", c.args, err, stdout, lastLines(stderr, 60))
				}
				if s.Era != c.era || s.Steps != 8 {
					t.Fatalf("hostseq %v: era %s, %d steps; want %s and 8: %s", c.args, s.Era, s.Steps, c.era, stdout)
				}
				writeSummary("hostseq %-16s %s era=%s steps=%d on /mcp", c.name, s.Client, s.Era, s.Steps)
			})
		}
	})

	t.Run("inspector cli", func(t *testing.T) {
		launcher := filepath.Join(nt.npmDir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
		if _, err := os.Stat(launcher); err != nil {
			t.Fatalf("the MCP Inspector is not installed (./.ci/setup installs it): %v", err)
		}
		dir := t.TempDir()
		stdout, stderr, err := nt.run(t, dir, 90*time.Second, nil, launcher, "--cli", hier.base+"/mcp", "--method", "tools/list")
		var list struct {
			Tools []struct{ Name string } `json:"tools"`
		}
		if err != nil || json.Unmarshal([]byte(stdout), &list) != nil || len(list.Tools) != domainCount {
			t.Fatalf("inspector tools/list: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, lastLines(stderr, 40))
		}
		stdout, stderr, err = nt.run(t, dir, 90*time.Second, nil, launcher, "--cli", flat.base+"/mcp", "--method", "tools/call",
			"--tool-name", "doris_query_execute_query", "--tool-arg", "sql=SELECT 1 AS one")
		var call struct {
			StructuredContent struct {
				Mode string `json:"mode"`
				Data struct {
					Data struct {
						Rows []map[string]any `json:"rows"`
					} `json:"data"`
				} `json:"data"`
			} `json:"structuredContent"`
		}
		if err != nil || json.Unmarshal([]byte(stdout), &call) != nil || call.StructuredContent.Mode != "result" ||
			len(call.StructuredContent.Data.Data.Rows) != 1 || call.StructuredContent.Data.Data.Rows[0]["one"] != float64(1) {
			t.Fatalf("inspector execute_query: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, lastLines(stderr, 40))
		}
		writeSummary("inspector cli (default mode) on /mcp: tools/list %d tools, execute_query %s", len(list.Tools), call.StructuredContent.Mode)
	})
}

func pages(n int) int { return (n + e2ePageSize - 1) / e2ePageSize }

// runConformance runs one --requirements set against url with baseline and
// judges the results.
func runConformance(t *testing.T, nt nodeTools, label, url, rev, baseline string) {
	t.Helper()
	out := t.TempDir()
	start := time.Now()
	stdout, stderr, runErr := nt.run(t, t.TempDir(), 3*time.Minute, nil,
		filepath.Join(nt.conformance, "dist", "index.js"), "server",
		"--url", url, "--requirements", rev, "--expected-failures", baseline, "-o", out)
	took := time.Since(start).Round(time.Millisecond)

	results, err := readResults(out)
	if err != nil || len(results) == 0 {
		t.Fatalf("conformance %s: no results in %s (%v); run error %v\nstdout:\n%s\nstderr:\n%s", label, out, err, runErr, lastLines(stdout, 80), lastLines(stderr, 40))
	}
	scored, err := readScored(filepath.Join(nt.conformance, "requirements", rev+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := readBaseline(baseline)
	if err != nil {
		t.Fatal(err)
	}
	baselined := map[string]bool{}
	for _, e := range entries {
		baselined[e.Scenario+":"+e.Check] = true
	}

	// Deduplicate each scenario's checks by id, keeping the worst status,
	// as the suite does when it applies a baseline.
	rank := map[string]int{"SUCCESS": 1, "WARNING": 2, "FAILURE": 3}
	type key struct{ scenario, id string }
	worst := map[key]check{}
	var order []key
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.Scenario] = true
		for _, c := range r.Checks {
			k := key{r.Scenario, c.ID}
			prev, seen := worst[k]
			if !seen {
				order = append(order, k)
			}
			if !seen || rank[c.Status] > rank[prev.Status] {
				worst[k] = c
			}
		}
	}
	isScored := func(s string) bool { return slices.Contains(scored, s) }
	count := func(scoredOnly bool) map[string]int {
		m := map[string]int{}
		for _, k := range order {
			if isScored(k.scenario) == scoredOnly {
				m[worst[k].Status]++
			}
		}
		return m
	}
	sc, un := count(true), count(false)

	var problems []string
	for _, s := range scored {
		if !ran[s] {
			problems = append(problems, fmt.Sprintf("scored scenario %s did not run", s))
		}
	}
	failing := map[string]bool{}
	for _, k := range order {
		c := worst[k]
		bad := c.Status == "FAILURE" || c.Status == "WARNING"
		id := k.scenario + ":" + k.id
		switch {
		case k.id == "wire-schema-valid" && c.Status != "SUCCESS":
			problems = append(problems, fmt.Sprintf("%s %s (every message the server sends must match the %s schema): %s", id, c.Status, rev, c.ErrorMessage))
		case k.scenario == "http-header-validation" && bad:
			problems = append(problems, fmt.Sprintf("%s %s (unscored, but passable without fixtures): %s", id, c.Status, c.ErrorMessage))
		case isScored(k.scenario) && bad:
			failing[id] = true
			if !baselined[id] {
				problems = append(problems, fmt.Sprintf("%s %s (not in the baseline): %s", id, c.Status, c.ErrorMessage))
			}
		}
	}
	for _, e := range entries {
		if id := e.Scenario + ":" + e.Check; !failing[id] {
			problems = append(problems, fmt.Sprintf("baseline entry %s (line %d) matches no failing check of this run: stale or inert, remove it", id, e.Line))
		}
	}

	suiteTotal := ""
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "Total:") {
			suiteTotal = strings.TrimSpace(l)
		}
	}
	rc := 0
	if runErr != nil {
		rc = -1
		if ee, ok := runErr.(interface{ ExitCode() int }); ok {
			rc = ee.ExitCode()
		}
	}
	nBaselined := 0
	for id := range failing {
		if baselined[id] {
			nBaselined++
		}
	}
	line := fmt.Sprintf("conformance %-24s rc=%d  scored checks: %d passed, %d failed, %d warnings (%d of these baselined), %d skipped, %d info;  unscored: %d passed, %d failed, %d warnings;  suite %q;  %s",
		label, rc, sc["SUCCESS"], sc["FAILURE"], sc["WARNING"], nBaselined, sc["SKIPPED"], sc["INFO"],
		un["SUCCESS"], un["FAILURE"], un["WARNING"], suiteTotal, took)
	t.Log(line)
	writeSummary("%s", line)

	if runErr != nil {
		summary := stdout
		if i := strings.Index(summary, "=== SUMMARY ==="); i >= 0 {
			summary = summary[i:]
		}
		t.Errorf("conformance %s against %s exited with %v:\n%s\nstderr:\n%s", label, url, runErr, lastLines(summary, 60), lastLines(stderr, 20))
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestConformanceBaselines enforces the baseline policy without running
// anything: entries are per check, name a fixture item in their reason, and
// are not repeated.
func TestConformanceBaselines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "baseline-*.yml"))
	if err != nil || len(files) != 2 {
		t.Fatalf("want the two baselines (2026-07-28, 2025-11-25), found %v (%v)", files, err)
	}
	for _, f := range files {
		entries, err := readBaseline(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(entries) == 0 {
			t.Errorf("%s: empty baseline", f)
		}
		seen := map[string]bool{}
		for _, e := range entries {
			id := e.Scenario + ":" + e.Check
			if seen[id] {
				t.Errorf("%s:%d: %s listed twice", f, e.Line, id)
			}
			seen[id] = true
			// Only checks that need the suite's own fixture items may be
			// baselined; the reason must name the item.
			if !strings.Contains(e.Reason, "fixture") || !(strings.Contains(e.Reason, "test_") || strings.Contains(e.Reason, "test://")) {
				t.Errorf("%s:%d: %s: the reason %q must name the fixture item (test_* tool or prompt, test:// resource) the check needs", f, e.Line, id, e.Reason)
			}
		}
	}
}
