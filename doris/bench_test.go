//go:build unix

package doris_test

// Benchmarks against the simulator over real MariaDB:
//
//	go test ./doris -run '^$' -bench . -benchtime 2000x
//
// BenchmarkExecuteQuerySelect1 and BenchmarkRawDriverSelect1 give the
// overhead of the whole stack (catalog dispatch, runtime, guard, session,
// typed values, envelopes) over the bare driver on the same path, and the
// simulator's own cost over MariaDB. BenchmarkStream1MRows shows that a
// million-row result costs memory bounded by MAX_RESULT_BYTES.

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

func BenchmarkExecuteQuerySelect1(b *testing.B) {
	e := doristest.NewEnv(b, doristest.EnvOpts{NoAudit: true})
	args := map[string]any{"sql": "SELECT 1"}
	e.Ok("doris_query", "execute_query", args) // capability evidence and a pooled connection
	b.Run("catalog", func(b *testing.B) {
		outer, _ := json.Marshal(map[string]any{"child_tool": "execute_query", "arguments": args})
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			res, err := e.SF.CallTool(ctx, e.ID, "doris_query", outer, nil)
			if err != nil || res.IsError {
				b.Fatalf("%v %s", err, res.Structured)
			}
		}
	})
	b.Run("runtime_handler", func(b *testing.B) {
		h := e.RT.Handler("doris_query", "execute_query")
		call := &doris.Call{Domain: "doris_query", Child: "execute_query", Identity: e.ID, Args: json.RawMessage(`{"sql":"SELECT 1"}`)}
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h(ctx, call); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkRawDriverSelect1(b *testing.B) {
	e := doristest.NewEnv(b, doristest.EnvOpts{NoAudit: true})
	for _, target := range []struct{ name, addr string }{
		{"via_simulator", e.Sim.Addr()},
		{"direct_mariadb", e.DB.Addr()},
	} {
		b.Run(target.name, func(b *testing.B) {
			db := doristest.Direct(b, target.addr, mariadb.ReaderUser, mariadb.ReaderPassword, "demo")
			db.SetMaxIdleConns(4)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				var one int
				if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
					b.Fatal(err)
				}
			}
		})
	}
}

// heapPeak samples the live heap while running.
type heapPeak struct {
	peak atomic.Uint64
	stop chan struct{}
	wg   sync.WaitGroup
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > h.peak.Load() {
				h.peak.Store(v)
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

func (h *heapPeak) done() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak.Load()
}

// BenchmarkStream1MRows runs a query of 1,000,000 rows (about 110 MB on
// the wire) under two MAX_RESULT_BYTES budgets: the server keeps what
// fits, then kills the query and drops the connection instead of draining
// it. It reports the rows kept, the peak heap during the call over the
// heap before it (live and not yet swept objects, sampled every 2 ms, the
// in-process simulator included), what the call allocated, and the
// process's peak RSS. Memory follows the budget, not the result.
func BenchmarkStream1MRows(b *testing.B) {
	for _, budget := range []int{1 << 20, 8 << 20} {
		b.Run(fmt.Sprintf("budget_%dMiB", budget>>20), func(b *testing.B) { benchStream(b, budget) })
	}
}

func benchStream(b *testing.B, budget int) {
	e := doristest.NewEnv(b, doristest.EnvOpts{NoAudit: true, Config: func(c *doris.Config) {
		c.MaxResultRows, c.MaxResultBytes = doris.AbsMaxResultRows, budget
	}})
	h := e.RT.Handler("doris_query", "execute_query")
	call := &doris.Call{Domain: "doris_query", Child: "execute_query", Identity: e.ID,
		Args: json.RawMessage(`{"sql":"SELECT seq, REPEAT('x', 100) AS pad FROM seq_1_to_1000000","max_rows":100000,"timeout_ms":120000}`)}
	ctx := context.Background()
	var rows int
	var peakOver, allocated uint64
	var ms runtime.MemStats
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		base, alloc0 := ms.HeapAlloc, ms.TotalAlloc
		hp := startHeapPeak()
		b.StartTimer()
		res, err := h(ctx, call)
		b.StopTimer()
		peak := hp.done()
		runtime.ReadMemStats(&ms)
		allocated += ms.TotalAlloc - alloc0
		if err != nil {
			b.Fatal(err)
		}
		if !res.Truncated {
			b.Fatal("not truncated")
		}
		data, _ := json.Marshal(res.Data)
		var q struct {
			RowCount int `json:"row_count"`
		}
		json.Unmarshal(data, &q)
		rows = q.RowCount
		if peak > base {
			peakOver = max(peakOver, peak-base)
		}
		b.StartTimer()
	}
	b.StopTimer()
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(rows), "rows-kept")
	b.ReportMetric(float64(peakOver)/(1<<20), "peak-heap-over-base-MiB")
	b.ReportMetric(float64(allocated)/float64(b.N)/(1<<20), "alloc-MiB/op")
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB")
	if rows <= 0 || rows >= 1_000_000 {
		b.Fatalf("kept %d rows", rows)
	}
	// A bounded call holds little more than its budget: the rows kept,
	// GC lag, driver and simulator buffers; never the result.
	if peakOver > uint64(3*budget+16<<20) {
		b.Fatalf("peak heap %d MiB over base for a %d MiB budget", peakOver>>20, budget>>20)
	}
}
