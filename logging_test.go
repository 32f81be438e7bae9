package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// gatedWriter blocks every Write until open is closed, and says on
// entered when the first Write began.
type gatedWriter struct {
	entered chan struct{}
	open    chan struct{}
	once    sync.Once
	mu      sync.Mutex
	b       bytes.Buffer
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.once.Do(func() { close(g.entered) })
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.b.Write(p)
}

// TestLogSinkDropsRatherThanBlocks: while the writer is stalled (a stderr
// nobody reads), logging never blocks; the first logQueue records wait and
// the rest are dropped and counted; once the writer moves again every
// waiting record is written, followed by one line with the drop count.
func TestLogSinkDropsRatherThanBlocks(t *testing.T) {
	w := &gatedWriter{entered: make(chan struct{}), open: make(chan struct{})}
	log, sink := newLogger(w, slog.LevelInfo)
	if n := cap(sink.pending); n != 0 {
		t.Fatalf("a new sink holds room for %d records, want none until something is logged", n)
	}
	log.Info("first") // the writer takes it and stalls in Write
	<-w.entered
	const extra = 10
	for range logQueue + extra {
		log.Info("burst")
	}
	if got := sink.droppedTotal.Load(); got != extra {
		t.Fatalf("dropped %d records, want %d", got, extra)
	}
	close(w.open)
	sink.Sync()

	lines := strings.Split(strings.TrimSpace(w.b.String()), "\n")
	if want := 1 + logQueue + 1; len(lines) != want {
		t.Fatalf("%d lines written, want %d", len(lines), want)
	}
	var last struct {
		Msg     string
		Dropped int
		Service string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(last.Msg, "log records dropped") || last.Dropped != extra || last.Service != serverName {
		t.Errorf("last line %s, want the drop report naming %d records and the service", lines[len(lines)-1], extra)
	}
	sink.mu.Lock()
	kept := cap(sink.pending)
	sink.mu.Unlock()
	if kept > logKeep {
		t.Errorf("after the burst the sink keeps room for %d records, want at most %d", kept, logKeep)
	}

	sink.Close()
	log.Info("after close")
	sink.Sync() // returns at once: nothing is queued after Close
	if got := sink.droppedTotal.Load(); got != extra+1 {
		t.Errorf("a record logged after Close: %d dropped in all, want %d", got, extra+1)
	}
}

// countingWriter counts Write calls.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	b      bytes.Buffer
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes++
	return c.b.Write(p)
}

// TestLogSinkWritesBatches: lines logged while the writer lingers reach
// stderr together, in one write, not one syscall per line; every line is
// complete and in order.
func TestLogSinkWritesBatches(t *testing.T) {
	w := &countingWriter{}
	log, sink := newLogger(w, slog.LevelInfo)
	defer sink.Close()
	log.Info("line", "n", 0)
	sink.Sync() // the writer has written a batch, and lingers
	const n = 200
	for i := 1; i <= n; i++ {
		log.Info("line", "n", i)
	}
	sink.Sync()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writes > 4 {
		t.Errorf("%d lines took %d writes, want them batched", n+1, w.writes)
	}
	lines := strings.Split(strings.TrimSpace(w.b.String()), "\n")
	if len(lines) != n+1 {
		t.Fatalf("%d lines, want %d", len(lines), n+1)
	}
	for i, l := range lines {
		var rec struct{ N int }
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.N != i {
			t.Fatalf("line %d is %q, want n=%d", i, l, i)
		}
	}
}
