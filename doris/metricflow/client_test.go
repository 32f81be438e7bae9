package metricflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/metricflow"
)

// fakeProvider is the path of testdata/fakeprovider, built once.
var fakeProvider string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "metricflow-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code, err := func() (int, error) {
		defer os.RemoveAll(dir)
		fakeProvider = filepath.Join(dir, "fakeprovider")
		gobin, err := exec.LookPath("go")
		if err != nil {
			return 0, fmt.Errorf("no go command to build the fake provider: %w", err)
		}
		if out, err := exec.Command(gobin, "build", "-o", fakeProvider, "./testdata/fakeprovider").CombinedOutput(); err != nil {
			return 0, fmt.Errorf("build the fake provider: %v\n%s", err, out)
		}
		return m.Run(), nil
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(code)
}

// client returns a client for the fake provider in mode, with its extra
// arguments.
func client(t *testing.T, timeout time.Duration, args ...string) *metricflow.Client {
	t.Helper()
	cmd, _ := json.Marshal(append([]string{fakeProvider}, args...))
	cfg := metricflow.DefaultConfig()
	cfg.Enabled, cfg.CommandJSON, cfg.Timeout, cfg.MaxOutputBytes = true, string(cmd), timeout, 64<<10
	cfg.ProjectDirectory = t.TempDir()
	c, err := metricflow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestRequestAndEnvironment: the provider gets the request on stdin, its
// argument boundaries intact, the project directory as its working
// directory, and exactly the fixed environment: nothing of the server's.
func TestRequestAndEnvironment(t *testing.T) {
	t.Setenv("DORIS_PASSWORD", "hunter2")
	t.Setenv("MCP_STATE_HANDLE_SECRET", "not-for-providers")
	c := client(t, 10*time.Second, "env", "a b", `"quoted";$(rm -rf /)`)
	data, err := c.Do(context.Background(), "get_status", map[string]any{"model_ref": "demo/orders"})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Env   []string `json:"env"`
		Args  []string `json:"args"`
		Stdin string   `json:"stdin"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got.Env)
	if want := []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8", "PYTHONUNBUFFERED=1"}; !slices.Equal(got.Env, want) {
		t.Errorf("environment %q, want exactly %q", got.Env, want)
	}
	if want := []string{"env", "a b", `"quoted";$(rm -rf /)`}; !slices.Equal(got.Args, want) {
		t.Errorf("arguments %q, want %q", got.Args, want)
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(got.Stdin), &req); err != nil {
		t.Fatalf("stdin %q: %v", got.Stdin, err)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if req["protocol_version"] != metricflow.Protocol || req["operation"] != "get_status" || !uuid.MatchString(fmt.Sprint(req["request_id"])) {
		t.Errorf("request %v", req)
	}
	if args, _ := req["arguments"].(map[string]any); args["model_ref"] != "demo/orders" {
		t.Errorf("arguments %v", req["arguments"])
	}
}

// TestBrokenProviders: each way a provider can break the protocol gives
// its own reason code, never the provider's text, and leaves no process
// behind.
func TestBrokenProviders(t *testing.T) {
	tests := []struct {
		mode         string
		reason       string
		fromProvider bool
	}{
		{"hang", metricflow.ReasonTimeout, false},
		{"flood", metricflow.ReasonOutputLimit, false},
		{"flood-stderr", metricflow.ReasonOutputLimit, false},
		{"exit1", metricflow.ReasonFailed, false},
		{"wrong-id", metricflow.ReasonProtocolMismatch, false},
		{"wrong-version", metricflow.ReasonProtocolMismatch, false},
		{"bad-utf8", metricflow.ReasonResponseInvalid, false},
		{"not-json", metricflow.ReasonResponseInvalid, false},
		{"two-values", metricflow.ReasonResponseInvalid, false},
		{"duplicate-id", metricflow.ReasonResponseInvalid, false},
		{"data-array", metricflow.ReasonResponseInvalid, false},
		{"stderr-and-fail", metricflow.ReasonRequestFailed, false},
		{"refuse", "METRICFLOW_METRIC_NOT_FOUND", true},
		{"no-such-mode", metricflow.ReasonFailed, false},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "pids")
			c := client(t, 3*time.Second, tt.mode, pidfile)
			_, err := c.Do(context.Background(), "list_models", map[string]any{})
			var me *metricflow.Error
			if !errors.As(err, &me) {
				t.Fatalf("got %v, want %s", err, tt.reason)
			}
			if me.Reason != tt.reason || me.FromProvider != tt.fromProvider {
				t.Fatalf("got %s (from provider %v), want %s (%v): %v", me.Reason, me.FromProvider, tt.reason, tt.fromProvider, err)
			}
			if strings.Contains(me.Message, "hunter2") || strings.Contains(me.Message, "Traceback") {
				t.Errorf("provider text reached the message: %q", me.Message)
			}
			pids := readPIDs(t, pidfile)
			if tt.mode == "hang" && len(pids) != 2 {
				t.Fatalf("hang recorded pids %v, want the provider and its child", pids)
			}
			for _, pid := range pids {
				if alive(pid) {
					t.Errorf("process %d of mode %s outlived the request", pid, tt.mode)
				}
			}
		})
	}
}

// TestOrphanHoldingStdout: a provider that answers and exits while a
// child it started keeps stdout open still gets its answer through, and
// the child is killed.
func TestOrphanHoldingStdout(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	c := client(t, 10*time.Second, "orphan", pidfile)
	if _, err := c.Do(context.Background(), "list_models", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	pids := readPIDs(t, pidfile)
	if len(pids) != 2 {
		t.Fatalf("pids %v, want the provider and its child", pids)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived the request", pid)
		}
	}
}

// TestCancellation: a caller that goes away stops the provider.
func TestCancellation(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pids")
	// The provider connects here once it and its child are running.
	up, err := net.Listen("unix", filepath.Join(dir, "up"))
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	c := client(t, 60*time.Second, "hang", pidfile, up.Addr().String())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if conn, err := up.Accept(); err == nil {
			conn.Close()
			cancel()
		}
	}()
	_, err = c.Do(ctx, "list_models", map[string]any{})
	if !errors.Is(err, &metricflow.Error{Reason: metricflow.ReasonCancelled}) {
		t.Fatalf("got %v, want %s", err, metricflow.ReasonCancelled)
	}
	pids := readPIDs(t, pidfile)
	if len(pids) != 2 {
		t.Fatalf("pids %v, want the provider and its child", pids)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived the cancelled request", pid)
		}
	}
}

// TestSlowProviderGate: in slow mode with a gate, the fake provider
// answers only once the test closes the gate (what tests of a provider
// slower than a probe's timeout use instead of its 2 s sleep).
func TestSlowProviderGate(t *testing.T) {
	dir := t.TempDir()
	gate, err := net.Listen("unix", filepath.Join(dir, "gate"))
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	c := client(t, 60*time.Second, "slow", filepath.Join(dir, "pids"), gate.Addr().String())
	answered := make(chan error, 1)
	go func() {
		_, err := c.Do(context.Background(), "list_models", map[string]any{})
		answered <- err
	}()
	conn, err := gate.Accept()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answered:
		t.Fatalf("answered before the gate opened: %v", err)
	default:
	}
	conn.Close()
	if err := <-answered; err != nil {
		t.Fatalf("after the gate opened: %v", err)
	}
}

func TestStartAndOperationFailures(t *testing.T) {
	cfg := metricflow.DefaultConfig()
	cfg.Enabled, cfg.CommandJSON = true, `["/nonexistent/provider"]`
	c, err := metricflow.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(context.Background(), "list_models", map[string]any{}); !errors.Is(err, &metricflow.Error{Reason: metricflow.ReasonStartFailed}) {
		t.Errorf("missing executable: got %v, want %s", err, metricflow.ReasonStartFailed)
	}
	if _, err := c.Do(context.Background(), "execute_sql", map[string]any{}); !errors.Is(err, &metricflow.Error{Reason: metricflow.ReasonOperation}) {
		t.Errorf("unknown operation: got %v, want %s", err, metricflow.ReasonOperation)
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name, command, dir string
		timeout            time.Duration
		max                int
		want               string
	}{
		{"relative executable", `["provider"]`, "", 30 * time.Second, 1 << 20, metricflow.ReasonCommandInvalid},
		{"not an array", `"/bin/provider --x"`, "", 30 * time.Second, 1 << 20, metricflow.ReasonCommandInvalid},
		{"empty array", `[]`, "", 30 * time.Second, 1 << 20, metricflow.ReasonCommandInvalid},
		{"empty element", `["/bin/p", ""]`, "", 30 * time.Second, 1 << 20, metricflow.ReasonCommandInvalid},
		{"trailing value", `["/bin/p"] ["x"]`, "", 30 * time.Second, 1 << 20, metricflow.ReasonCommandInvalid},
		{"missing command", ``, "", 30 * time.Second, 1 << 20, metricflow.ReasonNotConfigured},
		{"relative project", `["/bin/p"]`, "proj", 30 * time.Second, 1 << 20, "METRICFLOW_PROJECT_DIRECTORY"},
		{"timeout", `["/bin/p"]`, "", 121 * time.Second, 1 << 20, "METRICFLOW_TIMEOUT_SECONDS"},
		{"output bound", `["/bin/p"]`, "", 30 * time.Second, 100, "METRICFLOW_MAX_OUTPUT_BYTES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := metricflow.Config{Enabled: true, CommandJSON: tt.command, ProjectDirectory: tt.dir, Timeout: tt.timeout, MaxOutputBytes: tt.max}
			errs := cfg.Validate()
			if len(errs) == 0 || !strings.Contains(errors.Join(errs...).Error(), tt.want) {
				t.Fatalf("got %v, want a problem naming %s", errs, tt.want)
			}
		})
	}
	cfg := metricflow.Config{Enabled: true, CommandJSON: `["/nonexistent/p"]`, Timeout: time.Second, MaxOutputBytes: 1024}
	if errs := cfg.CheckFiles(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "does not exist") {
		t.Errorf("CheckFiles of a missing executable: %v", errs)
	}
	cfg.CommandJSON = fmt.Sprintf("[%q]", fakeProvider)
	if errs := cfg.CheckFiles(); len(errs) != 0 {
		t.Errorf("CheckFiles of the fake provider: %v", errs)
	}
}

func readPIDs(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("pid file %q", b)
		}
		pids = append(pids, n)
	}
	return pids
}

// alive reports whether pid is a running process: not gone and not a
// zombie waiting to be reaped by whoever inherited it.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	state := s[i+2]
	return state != 'Z' && state != 'X'
}

// BenchmarkRoundTrip measures one request to a provider process: start,
// request, answer, exit and cleanup.
func BenchmarkRoundTrip(b *testing.B) {
	cmd, _ := json.Marshal([]string{fakeProvider, "demo"})
	cfg := metricflow.DefaultConfig()
	cfg.Enabled, cfg.CommandJSON = true, string(cmd)
	c, err := metricflow.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Do(context.Background(), "list_models", map[string]any{}); err != nil {
			b.Fatal(err)
		}
	}
}
