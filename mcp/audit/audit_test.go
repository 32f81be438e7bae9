package audit

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func line(c *clock, i int) []byte {
	return []byte(fmt.Sprintf(`{"time":%q,"n":%d,"pad":"%s"}`+"\n", c.now().UTC().Format("2006-01-02T15:04:05.000000000Z07:00"), i, strings.Repeat("x", 60)))
}

// files returns the log's files: the live one and the rotated ones, with
// their line counts.
func files(t *testing.T, path string) (live int, rotated []int) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	count := func(name string) int {
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(path), name))
		return bytes.Count(b, []byte("\n"))
	}
	for _, e := range entries {
		switch {
		case e.Name() == filepath.Base(path):
			live = count(e.Name())
		case strings.HasPrefix(e.Name(), filepath.Base(path)+"."):
			rotated = append(rotated, count(e.Name()))
		default:
			t.Errorf("unexpected file %s", e.Name())
		}
	}
	return live, rotated
}

func TestRotationBySizeKeepsBackups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	c := &clock{t: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)}
	l := Open(Options{Path: path, MaxBytes: 1000, Backups: 3, Now: c.now})
	for i := 0; i < 100; i++ {
		l.Write(line(c, i))
		c.add(time.Millisecond)
	}
	l.Close()
	live, rotated := files(t, path)
	if len(rotated) != 3 {
		t.Fatalf("%d rotated files kept, want 3 (AUDIT_LOG_BACKUP_COUNT)", len(rotated))
	}
	perFile := 1000 / len(line(c, 0)) // whole lines that fit
	for _, n := range rotated {
		if n != perFile {
			t.Errorf("a rotated file holds %d lines, want %d (each file stays within 1000 bytes)", n, perFile)
		}
	}
	s := l.Stats()
	if s.Lines != 100 || s.Errors != 0 || s.Dropped != 0 || s.Rotations != uint64((100-1)/perFile) {
		t.Errorf("stats %+v", s)
	}
	if want := 100 - (100-1)/perFile*perFile; live != want {
		t.Errorf("the live file holds %d lines, want %d", live, want)
	}
}

func TestRotationByAge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	c := &clock{t: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)}
	l := Open(Options{Path: path, MaxAge: time.Hour, Backups: 5, Now: c.now})
	for i := 0; i < 3; i++ {
		l.Write(line(c, i))
	}
	l.Sync()
	c.add(59 * time.Minute)
	l.Write(line(c, 3))
	l.Sync()
	if _, rotated := files(t, path); len(rotated) != 0 {
		t.Fatalf("rotated before the oldest line was an hour old: %v", rotated)
	}
	c.add(time.Minute)
	l.Write(line(c, 4))
	l.Close()
	live, rotated := files(t, path)
	if len(rotated) != 1 || rotated[0] != 4 || live != 1 {
		t.Fatalf("live %d lines, rotated %v; want 1 and [4]", live, rotated)
	}

	// Reopened, the log knows its file's age from the first line.
	c.add(30 * time.Minute)
	l = Open(Options{Path: path, MaxAge: time.Hour, Backups: 5, Now: c.now})
	l.Write(line(c, 5))
	l.Sync()
	if _, rotated := files(t, path); len(rotated) != 1 {
		t.Fatalf("a 30-minute-old file rotated on reopen: %v", rotated)
	}
	c.add(31 * time.Minute)
	l.Write(line(c, 6))
	l.Close()
	if live, rotated := files(t, path); len(rotated) != 2 || live != 1 {
		t.Fatalf("after an hour since its first line: live %d, rotated %v", live, rotated)
	}
}

// TestUnwritableNeverBlocks: lines for a path that cannot be written are
// counted, the failure logged once and its end once, and Write returns at
// once throughout.
func TestUnwritableNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-dir")
	os.WriteFile(blocker, []byte("x"), 0o600)
	path := filepath.Join(blocker, "audit.log")
	var logs bytes.Buffer
	var mu sync.Mutex
	c := &clock{t: time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)}
	l := Open(Options{Path: path, Now: c.now, Logger: slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logs}, nil))})
	for i := 0; i < 50; i++ {
		l.Write(line(c, i))
	}
	l.Sync()
	if s := l.Stats(); s.Errors != 50 || s.Lines != 0 {
		t.Fatalf("stats %+v, want 50 errors", s)
	}
	// The disk comes back: the path becomes writable and, past the retry
	// delay, lines are written again.
	os.Remove(blocker)
	c.add(2 * time.Second)
	l.Write(line(c, 50))
	l.Close()
	if s := l.Stats(); s.Lines != 1 || s.Errors != 50 {
		t.Fatalf("after recovery: stats %+v", s)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "audit log cannot be written"); n != 1 {
		t.Errorf("the failure was logged %d times:\n%s", n, logs.String())
	}
	if n := strings.Count(logs.String(), "audit log writable again"); n != 1 {
		t.Errorf("the recovery was logged %d times:\n%s", n, logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// TestFullQueueDrops: with the writer stalled behind a full queue, Write
// drops and counts instead of waiting.
func TestFullQueueDrops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l := Open(Options{Path: path, Queue: 4})
	for i := 0; i < 10000; i++ {
		l.Write([]byte(`{"n":1}` + "\n"))
	}
	l.Close()
	l.Write([]byte(`{"after":"close"}` + "\n"))
	s := l.Stats()
	if s.Lines+s.Dropped != 10001 || s.Dropped == 0 {
		t.Fatalf("stats %+v: every line is written or dropped", s)
	}
	f, _ := os.Open(path)
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
	}
	if uint64(n) != s.Lines {
		t.Errorf("%d lines in the file, %d counted written", n, s.Lines)
	}
}
