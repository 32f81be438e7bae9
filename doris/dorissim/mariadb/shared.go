package mariadb

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

var shared struct {
	mu   sync.Mutex
	inst *Instance
	err  error
	done bool
}

// Shared starts one instance (default Options, demo loaded) per process on
// first use and returns it on every later call. A failed start is remembered
// and returned again. Call StopShared from TestMain after m.Run (an instance
// that is never stopped dies with the process; its directory is removed by
// the next Start).
func Shared(ctx context.Context) (*Instance, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.done {
		shared.inst, shared.err = Start(ctx, Options{})
		shared.done = true
	}
	return shared.inst, shared.err
}

// freshShared is the per-process instance without the demo data set.
var freshShared struct {
	mu   sync.Mutex
	inst *Instance
	err  error
	done bool
}

// SharedFresh is Shared for an instance without the demo data set (root
// only, Options.SkipDemo): an upstream nobody prepared, as a DBA's own
// MariaDB would be.
func SharedFresh(ctx context.Context) (*Instance, error) {
	freshShared.mu.Lock()
	defer freshShared.mu.Unlock()
	if !freshShared.done {
		freshShared.inst, freshShared.err = Start(ctx, Options{SkipDemo: true})
		freshShared.done = true
	}
	return freshShared.inst, freshShared.err
}

// StopShared stops the instances started by Shared and SharedFresh, if
// any.
func StopShared() error {
	freshShared.mu.Lock()
	var ferr error
	if freshShared.inst != nil {
		ferr = freshShared.inst.Stop()
	}
	freshShared.inst, freshShared.err, freshShared.done = nil, nil, false
	freshShared.mu.Unlock()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.inst == nil {
		return ferr
	}
	err := shared.inst.Stop()
	shared.inst = nil
	shared.err = nil
	shared.done = false
	if err == nil {
		err = ferr
	}
	return err
}

// TB is the part of testing.TB that Require and SharedFor use (kept as an
// interface so that this package does not import testing).
type TB interface {
	Helper()
	Skipf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// UnderCI reports whether the environment says CI=true (or 1/yes).
func UnderCI() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("CI")))
	return v == "true" || v == "1" || v == "yes"
}

// Require skips the test loudly when the MariaDB binaries are missing, and
// fails it instead when running under CI: a missing prerequisite in CI is a
// failure, never a skip.
func Require(t TB) {
	t.Helper()
	if err := Available(); err != nil {
		if UnderCI() {
			t.Fatalf("MariaDB is required under CI=true but unavailable: %v", err)
		}
		t.Skipf("SKIPPING: MariaDB integration test needs the MariaDB server: %v", err)
	}
}

// SharedFor is Require followed by Shared; a start failure fails the test.
func SharedFor(t TB) *Instance {
	t.Helper()
	Require(t)
	in, err := Shared(context.Background())
	if err != nil {
		t.Fatalf("start shared MariaDB: %v", err)
	}
	return in
}

// FreshFor is Require followed by SharedFresh; a start failure fails the
// test.
func FreshFor(t TB) *Instance {
	t.Helper()
	Require(t)
	in, err := SharedFresh(context.Background())
	if err != nil {
		t.Fatalf("start a MariaDB without the demo data set: %v", err)
	}
	return in
}

// AnnounceSkips tells the developer that a package's integration tests
// skipped, and why, in one line. `go test ./...` prints nothing of a
// package that passes unless -v, so the line goes to stderr (what -v and
// a test binary run by hand show) and, when stderr is not itself the
// terminal, to the terminal (/dev/tty) too. The result is also kept out
// of the test cache, so that a rerun says it again instead of printing a
// silent "(cached)". Call it from TestMain after m.Run when a
// prerequisite is missing.
func AnnounceSkips(pkg string, why string) {
	line := "NOTE " + pkg + ": integration tests were SKIPPED: " + why + " (./.ci/setup installs what they need)\n"
	os.Stderr.WriteString(line)
	if !isTerminal(os.Stderr) && !verbose() {
		if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
			tty.WriteString(line)
			tty.Close()
		}
	}
	uncacheable(pkg)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// verbose reports go test -v, whose output already shows stderr.
func verbose() bool {
	fl := flag.Lookup("test.v")
	return fl != nil && fl.Value.String() != "false"
}

// uncacheable makes go test refuse to cache this run: it reads a file
// inside the module written just now (.ci/cache is gitignored), and the go
// command does not cache a result that read a file younger than 2 s.
func uncacheable(pkg string) {
	dir, err := os.Getwd()
	if err != nil {
		return
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
	notes := filepath.Join(dir, ".ci", "cache", "skipped")
	if os.MkdirAll(notes, 0o755) != nil {
		return
	}
	name := filepath.Join(notes, strings.NewReplacer("/", "_", " ", "_", "(", "", ")", "").Replace(pkg))
	if os.WriteFile(name, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644) != nil {
		return
	}
	if f, err := os.Open(name); err == nil {
		f.Close()
	}
}

// SkipNotice announces, for a package whose tests need MariaDB, that they
// skipped because it is missing. It does nothing under CI (where a missing
// prerequisite fails the tests) or when MariaDB is available.
func SkipNotice(pkg string) {
	if UnderCI() {
		return
	}
	if err := Available(); err != nil {
		AnnounceSkips(pkg, "MariaDB is not installed ("+err.Error()+")")
	}
}
