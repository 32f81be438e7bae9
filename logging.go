package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// logLevel reads LOG_LEVEL (DEBUG, INFO, WARNING, ERROR; CRITICAL is
// ERROR): the one place it is parsed, for Validate and for the logger.
func logLevel(s string) (slog.Level, bool) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "DEBUG":
		return slog.LevelDebug, true
	case "INFO":
		return slog.LevelInfo, true
	case "WARNING", "WARN":
		return slog.LevelWarn, true
	case "ERROR", "CRITICAL":
		return slog.LevelError, true
	}
	return slog.LevelInfo, false
}

// logQueue is how many records may wait for the writer.
const logQueue = 8192

// logKeep is the largest backlog buffer the writer keeps for reuse: a
// burst's buffer goes back to the heap once written, so the sink's memory
// follows its backlog, not its cap.
const logKeep = 64

// logLinger is how long the writer rests after writing a batch. Records
// logged meanwhile wait for it without waking it: under steady traffic a
// request never pays for waking another thread (a futex call on the
// request's path, measured at about 10 µs a call at c=1), and the lines of
// a linger go to stderr in one write. A line reaches stderr at most this
// late; Sync and Close cut the rest short.
const logLinger = 10 * time.Millisecond

// logBufKeep is the largest write buffer kept between batches.
const logBufKeep = 64 << 10

// asyncLog is the server's log sink: JSON lines on w, formatted and
// written by one goroutine, so that a request pays for cloning a record
// and an append under a mutex, never for formatting it or for a write to
// stderr that a slow reader can stall. When logQueue records are waiting
// a record is dropped and counted, never waited for; the count is
// reported once the writer catches up, and at Close.
//
// The backlog is a slice the writer swaps for an empty one, not a
// buffered channel: a channel of logQueue records would hold 2.5 MB of
// zeroed slots that the garbage collector scans on every cycle, for a
// queue that is empty nearly all the time.
type asyncLog struct {
	mu      sync.Mutex
	pending []queuedRecord // guarded by mu; at most logQueue records (Sync markers aside)
	closed  bool           // guarded by mu; no record is accepted once set
	wake    chan struct{}  // capacity 1: pending became non-empty, or closed was set
	hurry   chan struct{}  // capacity 1: a Sync or Close waits; end the linger
	stopped chan struct{}  // closed when the writer has written everything and returned

	out io.Writer    // where the lines go
	buf bytes.Buffer // the batch being formatted; the writer goroutine's only

	dropped atomic.Int64
	// droppedTotal counts every dropped record since start (the metric
	// doris_mcp_log_records_dropped_total); dropped is reset when reported.
	droppedTotal atomic.Int64
	once         sync.Once
}

type queuedRecord struct {
	h    slog.Handler
	r    slog.Record
	done chan struct{} // a Sync marker: closed when reached
}

// newLogger returns the server's logger and its sink (Close it before the
// process exits).
func newLogger(w io.Writer, level slog.Level) (*slog.Logger, *asyncLog) {
	a := &asyncLog{wake: make(chan struct{}, 1), hurry: make(chan struct{}, 1), stopped: make(chan struct{}), out: w}
	// The handler formats into the batch buffer; only the writer
	// goroutine calls it.
	inner := slog.NewJSONHandler(&a.buf, &slog.HandlerOptions{Level: level})
	go a.run()
	return slog.New(&asyncHandler{log: a, inner: inner}).With("service", serverName), a
}

// enqueue hands qr to the writer. It reports false, and queues nothing,
// once the sink is closed, or when the backlog is full and qr is a record
// rather than a Sync marker.
func (a *asyncLog) enqueue(qr queuedRecord) bool {
	a.mu.Lock()
	ok := !a.closed && (len(a.pending) < logQueue || qr.done != nil)
	if ok {
		a.pending = append(a.pending, qr)
	}
	first := ok && len(a.pending) == 1
	filling := ok && len(a.pending) == logQueue/2
	a.mu.Unlock()
	if first {
		notify(a.wake)
	}
	if filling {
		notify(a.hurry) // a burst: write now rather than drop at the end of the linger
	}
	return ok
}

// notify leaves a token in ch (capacity 1) unless one is there already.
// Sending to a buffered channel nobody waits on wakes no thread.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func (a *asyncLog) run() {
	defer close(a.stopped)
	var batch []queuedRecord
	var last slog.Handler // where a drop count is reported
	linger := time.NewTimer(logLinger)
	for range a.wake {
		a.mu.Lock()
		batch, a.pending = a.pending, batch[:0]
		closed := a.closed
		a.mu.Unlock()
		for _, qr := range batch {
			if qr.done != nil {
				a.reportDrops(last) // drops before Sync are reported before it returns
				a.flush()
				close(qr.done)
				continue
			}
			qr.h.Handle(context.Background(), qr.r)
			last = qr.h
		}
		clear(batch) // the records' attributes are garbage now
		if cap(batch) > logKeep {
			batch = nil
		}
		if a.caughtUp() || closed {
			a.reportDrops(last)
		}
		a.flush()
		if closed {
			return
		}
		linger.Reset(logLinger)
		select {
		case <-linger.C:
		case <-a.hurry:
			linger.Stop()
		}
	}
}

// flush writes the formatted batch in one Write.
func (a *asyncLog) flush() {
	if a.buf.Len() > 0 {
		a.out.Write(a.buf.Bytes()) // a failed write to stderr has nowhere to be reported
	}
	a.buf.Reset()
	if a.buf.Cap() > logBufKeep {
		a.buf = bytes.Buffer{}
	}
}

// caughtUp reports whether nothing waits for the writer: the moment to
// report drops, after the records that were queued before them.
func (a *asyncLog) caughtUp() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending) == 0
}

// reportDrops writes one line counting the records dropped since the
// last report, through h (the handler of the last record written).
func (a *asyncLog) reportDrops(h slog.Handler) {
	if h == nil {
		return
	}
	if n := a.dropped.Swap(0); n > 0 {
		r := slog.NewRecord(time.Now(), slog.LevelWarn, "log records dropped: the log writer fell behind", 0)
		r.AddAttrs(slog.Int64("dropped", n))
		h.Handle(context.Background(), r)
	}
}

// drop counts a record that was not queued.
func (a *asyncLog) drop() {
	a.dropped.Add(1)
	a.droppedTotal.Add(1)
}

// Sync waits until every record logged before it is written.
func (a *asyncLog) Sync() {
	done := make(chan struct{})
	if a.enqueue(queuedRecord{done: done}) {
		notify(a.hurry)
		<-done
	}
	// Not queued: the sink is closed, and Close wrote everything.
}

// Close stops accepting records and waits until every queued one is
// written.
func (a *asyncLog) Close() {
	a.once.Do(func() {
		a.mu.Lock()
		a.closed = true
		a.mu.Unlock()
		notify(a.wake)
		notify(a.hurry)
		<-a.stopped
	})
}

// asyncHandler is the slog.Handler in front of asyncLog.
type asyncHandler struct {
	log   *asyncLog
	inner slog.Handler
}

func (h *asyncHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *asyncHandler) Handle(ctx context.Context, r slog.Record) error {
	r = r.Clone()
	if t, ok := doris.TraceFrom(ctx); ok && !hasAttr(r, "trace_id") {
		// A line logged with a call's context names the call's trace.
		r.AddAttrs(slog.String("trace_id", t.ID))
	}
	if !h.log.enqueue(queuedRecord{h: h.inner, r: r}) {
		h.log.drop()
	}
	return nil
}

func hasAttr(r slog.Record, key string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}

func (h *asyncHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &asyncHandler{log: h.log, inner: h.inner.WithAttrs(attrs)}
}

func (h *asyncHandler) WithGroup(name string) slog.Handler {
	return &asyncHandler{log: h.log, inner: h.inner.WithGroup(name)}
}
