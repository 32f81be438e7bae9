// Package audit writes the server's invocation audit log: lines of JSON
// appended to a file by one goroutine, rotated by size and by age, with a
// bounded number of rotated files kept.
//
// A call never waits for the log and never fails because of it: Write
// copies the line into a bounded queue and returns; when the queue is full
// the line is dropped and counted. A file that cannot be opened or written
// (a full disk, a read-only or missing directory, a permission) costs the
// lines written meanwhile, which are counted; the failure is logged once,
// its end once, and the file is tried again at most once a second.
package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Log. Zero values take the defaults.
type Options struct {
	// Path is the file lines are appended to. Required.
	Path string
	// MaxBytes rotates the file before a line would take it past this
	// size (default 100 MiB).
	MaxBytes int64
	// MaxAge rotates the file once its oldest line is this old (default
	// 24 h).
	MaxAge time.Duration
	// Backups is how many rotated files are kept (default 10); older
	// ones are deleted.
	Backups int
	// Queue is how many lines may wait for the writer (default 8192).
	Queue int
	// Logger is told when writing fails and when it works again; nil
	// discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Defaults.
const (
	DefaultMaxBytes = 100 << 20
	DefaultMaxAge   = 24 * time.Hour
	DefaultBackups  = 10
	defaultQueue    = 8192
)

// retryAfter is how long a failing file is left alone.
const retryAfter = time.Second

// Stats count what happened to the lines given to Write.
type Stats struct {
	Lines     uint64 // written to the file
	Dropped   uint64 // the queue was full
	Errors    uint64 // lost because the file could not be opened or written
	Rotations uint64 // files rotated
}

// Log is an open audit log. It is safe for concurrent use.
type Log struct {
	o    Options
	q    chan item
	done chan struct{}
	once sync.Once

	lines, dropped, errors, rotations atomic.Uint64

	// The writer goroutine's own state.
	f       *os.File
	w       *bufio.Writer
	pending uint64 // lines buffered in w, not yet flushed
	size    int64
	born    time.Time // when the current file's first line was written
	failing bool
	retryAt time.Time
}

// item is a queued line, or a Sync marker (done set).
type item struct {
	line []byte
	done chan struct{}
}

// Open starts the log. It does not fail: a file that cannot be opened now
// is reported through Options.Logger and tried again as lines arrive.
func Open(o Options) *Log {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.Backups <= 0 {
		o.Backups = DefaultBackups
	}
	if o.Queue <= 0 {
		o.Queue = defaultQueue
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	l := &Log{o: o, q: make(chan item, o.Queue), done: make(chan struct{})}
	go l.run()
	return l
}

// Write queues a copy of line (one JSON object and its newline). It
// never blocks: with the queue full the line is dropped and counted.
func (l *Log) Write(line []byte) {
	defer func() {
		if recover() != nil { // written after Close
			l.dropped.Add(1)
		}
	}()
	select {
	case l.q <- item{line: slices.Clone(line)}:
	default:
		l.dropped.Add(1)
	}
}

// Stats returns the counts so far.
func (l *Log) Stats() Stats {
	return Stats{Lines: l.lines.Load(), Dropped: l.dropped.Load(), Errors: l.errors.Load(), Rotations: l.rotations.Load()}
}

// Sync waits until every line queued before it is written (or counted as
// lost).
func (l *Log) Sync() {
	defer func() { recover() }() // closed: everything was handled
	done := make(chan struct{})
	l.q <- item{done: done}
	<-done
}

// Close writes every queued line and closes the file.
func (l *Log) Close() error {
	l.once.Do(func() { close(l.q) })
	<-l.done
	return nil
}

func (l *Log) run() {
	defer close(l.done)
	defer l.closeFile()
	for it := range l.q {
		if it.line != nil {
			l.write(it.line)
		}
		if len(l.q) == 0 || it.done != nil {
			l.flush()
		}
		if it.done != nil {
			close(it.done)
		}
	}
}

// flush writes the buffered lines out, counting them written or lost.
func (l *Log) flush() {
	if l.w == nil {
		return
	}
	if err := l.w.Flush(); err != nil {
		l.fail(err, 0)
		return
	}
	l.lines.Add(l.pending)
	l.pending = 0
}

// write appends one line, opening and rotating the file as needed.
func (l *Log) write(line []byte) {
	now := l.o.Now()
	if l.f == nil {
		if l.failing && now.Before(l.retryAt) {
			l.errors.Add(1)
			return
		}
		if err := l.open(now); err != nil {
			l.fail(err, 1)
			return
		}
	}
	if l.size > 0 && (l.size+int64(len(line)) > l.o.MaxBytes || now.Sub(l.born) >= l.o.MaxAge) {
		if err := l.rotate(now); err != nil {
			l.fail(err, 1)
			return
		}
	}
	if l.size == 0 {
		l.born = now
	}
	n, err := l.w.Write(line)
	l.size += int64(n)
	if err != nil {
		l.fail(err, 1)
		return
	}
	l.pending++
	if l.failing {
		l.failing = false
		l.o.Logger.Info("audit log writable again", "path", l.o.Path)
	}
}

// open opens (or creates, owner-only) the file for appending and learns
// its size and the time of its first line.
func (l *Log) open(now time.Time) error {
	if err := os.MkdirAll(filepath.Dir(l.o.Path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.o.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.w, l.size, l.born = f, bufio.NewWriterSize(f, 64<<10), st.Size(), now
	if st.Size() > 0 {
		l.born = firstLineTime(l.o.Path, st.ModTime())
	}
	return nil
}

// firstLineTime reads the "time" of a file's first line: how old the file
// is. It falls back to the file's modification time.
func firstLineTime(path string, fallback time.Time) time.Time {
	f, err := os.Open(path)
	if err != nil {
		return fallback
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, 64<<10), 64<<10).ReadSlice('\n')
	if err != nil {
		return fallback
	}
	var first struct {
		Time time.Time `json:"time"`
	}
	if json.Unmarshal(line, &first) != nil || first.Time.IsZero() {
		return fallback
	}
	return first.Time
}

// rotate renames the file to <path>.<UTC time> and starts a new one,
// keeping the newest Backups rotated files.
func (l *Log) rotate(now time.Time) error {
	l.flush()
	if l.f == nil {
		return errors.New("audit: the file failed before rotation")
	}
	l.f.Close()
	l.f, l.w = nil, nil
	// A rotated file is never overwritten: two rotations in the same
	// nanosecond (or a clock that went back) take the next free name.
	stamp := now.UTC()
	name := l.o.Path + "." + stamp.Format(stampLayout)
	for _, err := os.Lstat(name); err == nil; _, err = os.Lstat(name) {
		stamp = stamp.Add(time.Nanosecond)
		name = l.o.Path + "." + stamp.Format(stampLayout)
	}
	if err := os.Rename(l.o.Path, name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	l.rotations.Add(1)
	l.prune()
	return l.open(now)
}

// prune deletes rotated files beyond the newest Backups. Rotated names
// sort by time.
func (l *Log) prune() {
	dir, base := filepath.Dir(l.o.Path), filepath.Base(l.o.Path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var rotated []string
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), base+"."); ok && isStamp(rest) {
			rotated = append(rotated, e.Name())
		}
	}
	slices.Sort(rotated)
	for len(rotated) > l.o.Backups {
		os.Remove(filepath.Join(dir, rotated[0]))
		rotated = rotated[1:]
	}
}

// stampLayout is the rotation suffix: the UTC time of the rotation.
const stampLayout = "20060102T150405.000000000Z"

// isStamp reports a rotation suffix.
func isStamp(s string) bool {
	_, err := time.Parse(stampLayout, s)
	return err == nil
}

// fail counts lost lines and reports the failure once per episode. The
// file is dropped and tried again after retryAfter.
func (l *Log) fail(err error, lost uint64) {
	l.errors.Add(lost + l.pending)
	l.pending = 0
	if l.f != nil {
		l.f.Close()
		l.f, l.w, l.size = nil, nil, 0
	}
	l.retryAt = l.o.Now().Add(retryAfter)
	if !l.failing {
		l.failing = true
		l.o.Logger.Warn("audit log cannot be written; calls go on, and lost lines are counted in doris_mcp_audit_log_errors_total",
			"path", l.o.Path, "err", err)
	}
}

func (l *Log) closeFile() {
	l.flush()
	if l.f != nil {
		l.f.Close()
		l.f, l.w = nil, nil
	}
}
