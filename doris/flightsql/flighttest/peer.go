// Package flighttest builds and runs the independent Arrow Flight SQL
// peer: Apache Arrow Go's Flight SQL client and its example SQLite Flight
// SQL server, in the module of their own at testdata/arrowpeer (outside
// the project's go.mod). Tests use it to check the project's client and
// the simulator's server against another implementation.
//
// The programs are built with `go build` in that directory, once per test
// process, into DORIS_MCP_ARROWPEER_DIR (CI builds them there in
// .ci/setup) or a directory under the system temp dir. When they cannot
// be built the test is skipped, except under CI=true, where it fails.
package flighttest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/doris-mcp/doris-mcp-server\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("flighttest: the project's go.mod was not found")
		}
		dir = parent
	}
}

// Peer returns the paths of the built peerserver and peerclient programs.
func Peer(t testing.TB) (server, client string) {
	t.Helper()
	buildOnce.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		binDir = os.Getenv("DORIS_MCP_ARROWPEER_DIR")
		if binDir == "" {
			binDir = filepath.Join(os.TempDir(), "doris-mcp-arrowpeer")
		}
		if err := os.MkdirAll(binDir, 0o755); err != nil {
			buildErr = err
			return
		}
		// Test processes of several packages build into the same place at
		// once: one at a time, so none overwrites a binary another runs
		// (an up-to-date binary is left as it is).
		lockFile, err := os.OpenFile(filepath.Join(binDir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			buildErr = err
			return
		}
		defer lockFile.Close()
		unlock, err := lock(lockFile)
		if err != nil {
			buildErr = err
			return
		}
		defer unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", binDir+string(os.PathSeparator), "./...")
		cmd.Dir = filepath.Join(root, "testdata", "arrowpeer")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=readonly -buildvcs=false", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New("flighttest: building testdata/arrowpeer: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the Arrow Go peer is required under CI=true: %v", buildErr)
		}
		t.Skipf("the Arrow Go peer could not be built: %v", buildErr)
	}
	return filepath.Join(binDir, "peerserver"), filepath.Join(binDir, "peerclient")
}

// Server is a running peerserver.
type Server struct {
	Addr           string
	User, Password string
	mu             sync.Mutex
	lines          []string
	changed        chan struct{}
}

// StartServer starts Arrow Go's example SQLite Flight SQL server on a free
// loopback port, stopped when the test ends.
func StartServer(t testing.TB) *Server {
	t.Helper()
	bin, _ := Peer(t)
	s := &Server{User: "peer", Password: "peer-secret", changed: make(chan struct{}, 1)}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-user", s.User, "-password", s.Password)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "LISTENING "); ok {
				ready <- a
				continue
			}
			s.mu.Lock()
			s.lines = append(s.lines, line)
			s.mu.Unlock()
			select {
			case s.changed <- struct{}{}:
			default:
			}
		}
	}()
	select {
	case s.Addr = <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the peer server did not start")
	}
	return s
}

// WaitLine waits until the server printed a line with prefix, and
// returns how many such lines it printed.
func (s *Server) WaitLine(t testing.TB, prefix string, timeout time.Duration) int {
	t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		n := 0
		for _, l := range s.lines {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
		s.mu.Unlock()
		if n > 0 {
			return n
		}
		select {
		case <-s.changed:
		case <-deadline:
			t.Fatalf("the peer server never printed %q", prefix)
		}
	}
}

// RunClient runs Arrow Go's Flight SQL client against addr and returns
// its JSON output (the result, or the error with its gRPC code).
func RunClient(t testing.TB, addr, user, password, sql string) []byte {
	t.Helper()
	_, bin := Peer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "-addr", addr, "-user", user, "-password", password, "-sql", sql).Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("peerclient: %v", err)
	}
	return out
}
