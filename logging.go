package main

import (
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

// asyncLog is the server's log sink: JSON lines on w, formatted and
// written by one goroutine, so that a request pays for cloning a record
// and a channel send, never for formatting it or for a write to stderr
// that a slow reader can stall. When the queue is full the record is
// dropped and counted, never waited for; the count is reported once the
// queue drains, and at Close.
type asyncLog struct {
	q       chan queuedRecord
	dropped atomic.Int64
	// droppedTotal counts every dropped record since start (the metric
	// doris_mcp_log_records_dropped_total); dropped is reset when reported.
	droppedTotal atomic.Int64
	wg           sync.WaitGroup
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
	inner := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	a := &asyncLog{q: make(chan queuedRecord, logQueue)}
	a.wg.Add(1)
	go a.run()
	return slog.New(&asyncHandler{log: a, inner: inner}).With("service", serverName), a
}

func (a *asyncLog) run() {
	defer a.wg.Done()
	for qr := range a.q {
		if qr.done != nil {
			close(qr.done)
			continue
		}
		qr.h.Handle(context.Background(), qr.r)
		if n := a.dropped.Load(); n > 0 && len(a.q) == 0 {
			a.dropped.Add(-n)
			a.report(qr.h, n)
		}
	}
	if n := a.dropped.Load(); n > 0 {
		a.report(nil, n)
	}
}

func (a *asyncLog) report(h slog.Handler, n int64) {
	if h == nil {
		return
	}
	r := slog.NewRecord(time.Now(), slog.LevelWarn, "log records dropped: the log writer fell behind", 0)
	r.AddAttrs(slog.Int64("dropped", n))
	h.Handle(context.Background(), r)
}

// Sync waits until every record logged before it is written.
func (a *asyncLog) Sync() {
	done := make(chan struct{})
	defer func() { recover() }() // closed: everything is written already
	a.q <- queuedRecord{done: done}
	<-done
}

// Close stops accepting records and waits until every queued one is
// written.
func (a *asyncLog) Close() {
	a.once.Do(func() {
		close(a.q)
		a.wg.Wait()
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

func (h *asyncHandler) Handle(ctx context.Context, r slog.Record) (err error) {
	r = r.Clone()
	if t, ok := doris.TraceFrom(ctx); ok && !hasAttr(r, "trace_id") {
		// A line logged with a call's context names the call's trace.
		r.AddAttrs(slog.String("trace_id", t.ID))
	}
	defer func() {
		// A record logged after close (a goroutine outliving run) is
		// dropped, not a panic.
		if recover() != nil {
			h.log.dropped.Add(1)
			h.log.droppedTotal.Add(1)
		}
	}()
	select {
	case h.log.q <- queuedRecord{h: h.inner, r: r}:
	default:
		h.log.dropped.Add(1)
		h.log.droppedTotal.Add(1)
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
