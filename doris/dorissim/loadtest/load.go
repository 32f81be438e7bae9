//go:build unix

package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// The load mode: 64 clients of execute_query for a minute on default
// settings, then 20 slow queries held in the simulator while SELECT 1 and
// /ready are timed.

const (
	loadClients = 64
	slowCalls   = 20
	slowMarker  = "loadtest_slow_marker"
	// slowHold is how long the simulator holds each slow query; the slow
	// callers send the next one as soon as one ends, so 20 stay in flight.
	slowHold   = 10 * time.Second
	fastCalls  = 4 // clients timing SELECT 1 beside the slow queries
	fastP99Max = 50 * time.Millisecond
	// goroutineSlack is how far above its baseline the server's goroutine
	// count may settle: background work (a capability refresh, a pool
	// connection's reader) comes and goes.
	goroutineSlack = 3
)

// loadStatements are what the 64 clients send in turn; rows is the
// row count each must return (computed from MariaDB at the start).
type loadStatement struct {
	sql  string
	rows int
}

type loadResult struct {
	Machine    string       `json:"machine"`
	LoadAvg    string       `json:"loadavg_at_start"`
	LoadAvgEnd string       `json:"loadavg_at_end"`
	Clients    int          `json:"clients"`
	DurationS  float64      `json:"duration_s"`
	Calls      stats        `json:"calls"`
	RPS        float64      `json:"rps"`
	Idle       figures      `json:"idle"`
	Baseline   figures      `json:"baseline"`
	After      figures      `json:"after"`
	SettleS    float64      `json:"settle_s"`
	Curve      []figures    `json:"curve"`
	Leftover   []string     `json:"left_running_in_mariadb"`
	Ready      readySummary `json:"ready"`
	Slow       slowResult   `json:"slow"`
	Log        logSummary   `json:"server_log"`
	Checks     []check      `json:"checks"`
}

type slowResult struct {
	InFlight  int          `json:"slow_in_flight"`
	HoldS     float64      `json:"hold_s"`
	DurationS float64      `json:"duration_s"`
	Fast      stats        `json:"select_1"`
	Slow      stats        `json:"slow_calls"`
	Ready     readySummary `json:"ready"`
	After     figures      `json:"after"`
	SettleS   float64      `json:"settle_s"`
	Leftover  []string     `json:"left_running_in_mariadb"`
}

func runLoad(ctx context.Context, log *slog.Logger, tg target, d time.Duration) (*loadResult, error) {
	r, err := newRig(ctx, log, rigOptions{server: tg,
		sim: simConfig{profile: "3.0", holds: []string{slowMarker + "=" + slowHold.String()}}})
	if err != nil {
		return nil, err
	}
	defer r.close()
	res := &loadResult{Machine: machine(), LoadAvg: loadavg(), Clients: loadClients, DurationS: d.Seconds()}
	stmts, err := loadStatements(ctx, r)
	if err != nil {
		return nil, err
	}
	time.Sleep(time.Second)
	res.Idle = r.obs.read(ctx)

	// The baseline is taken after a burst at full concurrency.
	res.Baseline = r.burst(ctx)

	fmt.Fprintf(os.Stderr, "load: %d clients for %v\n", loadClients, d)
	calls := newTally()
	curve := r.obs.sample(ctx, 2*time.Second)
	ready := r.pollReady(ctx, 250*time.Millisecond)
	t0 := time.Now()
	closedLoop(ctx, loadClients, d, func(ctx context.Context, w, i int) {
		st := stmts[(w+i)%len(stmts)]
		a := r.cl.request(ctx, "tools/call", "doris_query", sqlCall(st.sql, 0, 0))
		good := a.ok() && a.Rows == st.rows
		label := a.label()
		if a.ok() && a.Rows != st.rows {
			label = fmt.Sprintf("wrong row count %d, want %d", a.Rows, st.rows)
		}
		calls.add(a.Latency, label, good)
	})
	elapsed := time.Since(t0)
	ready.finish()
	res.Ready = ready.window(time.Time{}, time.Time{})
	res.Curve = curve.finish()
	res.Calls = calls.stats()
	res.RPS = float64(res.Calls.Calls) / elapsed.Seconds()
	var settle time.Duration
	res.After, settle = r.settle(ctx, res.Baseline.Goroutines+goroutineSlack, 2*time.Second, 15*time.Second)
	res.SettleS = settle.Seconds()
	if res.Leftover, err = r.leftovers(ctx, 5*time.Second); err != nil {
		return nil, err
	}

	fmt.Fprintf(os.Stderr, "load: %d slow queries held %v, %d clients timing SELECT 1, /ready polled\n", slowCalls, slowHold, fastCalls)
	res.Slow, err = slowPhase(ctx, r, min(d, 20*time.Second), res.Baseline.Goroutines)
	if err != nil {
		return nil, err
	}
	res.LoadAvgEnd = loadavg()
	res.Log = r.srv.log.summary()
	res.Checks = loadChecks(res)
	return res, nil
}

// loadStatements are a constant, a small ordered read and a grouped
// aggregate over one customer's demo orders (index reads: the server,
// not MariaDB, should be what the load measures), with their row counts
// from MariaDB.
func loadStatements(ctx context.Context, r *rig) ([]loadStatement, error) {
	var groups int
	if err := r.db.Root().QueryRowContext(ctx, "SELECT COUNT(DISTINCT status) FROM demo.orders WHERE customer_id = 42").Scan(&groups); err != nil {
		return nil, err
	}
	return []loadStatement{
		{"SELECT 1", 1},
		{"SELECT order_id, customer_id, status FROM orders ORDER BY order_id LIMIT 20", 20},
		{"SELECT status, COUNT(*) AS n, SUM(total_amount) AS total FROM orders WHERE customer_id = 42 GROUP BY status", groups},
	}, nil
}

// closedLoop runs op from c workers, each calling again as soon as its
// last call ended, for d; op gets the worker's number and its call count.
// Calls under way when d ends are waited for.
func closedLoop(ctx context.Context, c int, d time.Duration, op func(ctx context.Context, w, i int)) {
	var wg sync.WaitGroup
	var stop atomic.Bool
	for w := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && ctx.Err() == nil; i++ {
				op(ctx, w, i)
			}
		}()
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	stop.Store(true)
	wg.Wait()
}

// slowPhase keeps slowCalls held queries in flight while fastCalls
// clients time SELECT 1 and /ready is polled every 100 ms, for d. Then
// it cancels the slow calls (the clients go away) and checks that the
// server and MariaDB let go of them.
func slowPhase(ctx context.Context, r *rig, d time.Duration, baseline int) (slowResult, error) {
	res := slowResult{InFlight: slowCalls, HoldS: slowHold.Seconds(), DurationS: d.Seconds()}
	slowCtx, cancelSlow := context.WithCancel(ctx)
	slow := newTally()
	var slowWG sync.WaitGroup
	for range slowCalls {
		slowWG.Add(1)
		go func() {
			defer slowWG.Done()
			body := sqlCall("SELECT '"+slowMarker+"' AS slow", 60000, 0)
			for slowCtx.Err() == nil {
				a := r.cl.request(slowCtx, "tools/call", "doris_query", body)
				if slowCtx.Err() == nil {
					slow.add(a.Latency, a.label(), a.ok())
				}
			}
		}()
	}
	time.Sleep(time.Second) // the slow queries reach the simulator
	fast := newTally()
	ready := r.pollReady(ctx, 100*time.Millisecond)
	one := sqlCall("SELECT 1", 0, 0)
	closedLoop(ctx, fastCalls, d, func(ctx context.Context, _, _ int) {
		a := r.cl.request(ctx, "tools/call", "doris_query", one)
		fast.add(a.Latency, a.label(), a.ok() && a.Rows == 1)
	})
	ready.finish()
	cancelSlow()
	slowWG.Wait()
	res.Fast, res.Slow = fast.stats(), slow.stats()
	res.Ready = ready.window(time.Time{}, time.Time{})
	var settle time.Duration
	res.After, settle = r.settle(ctx, baseline+goroutineSlack, 2*time.Second, 15*time.Second)
	res.SettleS = settle.Seconds()
	var err error
	res.Leftover, err = r.leftovers(ctx, 5*time.Second)
	return res, err
}

func loadChecks(res *loadResult) []check {
	var cs []check
	cs = append(cs, judge("load: 0 errors", res.Calls.Bad == 0, "%d of %d calls failed or returned wrong rows: %v", res.Calls.Bad, res.Calls.Calls, res.Calls.Labels))
	cs = append(cs, goroutineCheck("load: goroutines back to baseline", res.Baseline, res.After))
	cs = append(cs, judge("load: nothing left running in MariaDB", len(res.Leftover) == 0, "%d: %v", len(res.Leftover), res.Leftover))
	cs = append(cs, rssCheck("load: RSS stops growing", res.Baseline, res.Curve, res.After))
	cs = append(cs, judge("load: /ready stays 200", res.Ready.Polls > 0 && res.Ready.Not200 == 0, "%d of %d polls not 200, slowest %.1f ms", res.Ready.Not200, res.Ready.Polls, res.Ready.SlowMs))
	s := res.Slow
	cs = append(cs, judge("slow: SELECT 1 p99 < 50 ms", s.Fast.Bad == 0 && s.Fast.P99Ms < float64(fastP99Max.Milliseconds()),
		"p99 %.1f ms (p50 %.1f, max %.1f) over %d calls, %d failed", s.Fast.P99Ms, s.Fast.P50Ms, s.Fast.MaxMs, s.Fast.Calls, s.Fast.Bad))
	cs = append(cs, judge("slow: /ready stays 200", s.Ready.Polls > 0 && s.Ready.Not200 == 0, "%d of %d polls not 200, slowest %.1f ms", s.Ready.Not200, s.Ready.Polls, s.Ready.SlowMs))
	cs = append(cs, judge("slow: held queries answered", s.Slow.Bad == 0, "%d completed, %d not ok: %v", s.Slow.Calls, s.Slow.Bad, s.Slow.Labels))
	cs = append(cs, goroutineCheck("slow: goroutines back to baseline after the slow clients leave", res.Baseline, s.After))
	cs = append(cs, judge("slow: nothing left running in MariaDB", len(s.Leftover) == 0, "%d: %v", len(s.Leftover), s.Leftover))
	return cs
}

// rssCheck judges a curve bounded when the peak of its last third is
// within 10 % (and 4 MiB) of the peak of its first third: a working set
// that has stopped growing, whatever its size.
func rssCheck(name string, base figures, curve []figures, after figures) check {
	if len(curve) < 3 {
		return unknown(name, "too few samples (%d)", len(curve))
	}
	peak := func(fs []figures) float64 {
		p := 0.0
		for _, f := range fs {
			p = max(p, f.RSSMiB)
		}
		return p
	}
	n := len(curve) / 3
	first, last, all := peak(curve[:n]), peak(curve[len(curve)-n:]), peak(curve)
	return judge(name, last <= first*1.1+4, "baseline %.1f MiB, peak of first third %.1f, of last third %.1f, overall %.1f, settled %.1f",
		base.RSSMiB, first, last, all, after.RSSMiB)
}

func goroutineCheck(name string, base, after figures) check {
	if base.Goroutines < 0 || after.Goroutines < 0 {
		return unknown(name, "the server has no /metrics; threads %d -> %d, fds %d -> %d", base.Threads, after.Threads, base.FDs, after.FDs)
	}
	return judge(name, after.Goroutines <= base.Goroutines+goroutineSlack, "%d -> %d (slack %d); fds %d -> %d",
		base.Goroutines, after.Goroutines, goroutineSlack, base.FDs, after.FDs)
}

func printLoad(w io.Writer, r *loadResult) {
	fmt.Fprintf(w, "machine: %s, load average (1, 5, 15 min) at start %s, at end %s\n\n", r.Machine, r.LoadAvg, r.LoadAvgEnd)
	fmt.Fprintf(w, "load: %d clients, %.0f s of execute_query: %d calls, %.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.1f ms, %d errors\n",
		r.Clients, r.DurationS, r.Calls.Calls, r.RPS, r.Calls.P50Ms, r.Calls.P99Ms, r.Calls.MaxMs, r.Calls.Bad)
	fmt.Fprintf(w, "  /ready: %d polls, %d not 200, slowest %.1f ms\n", r.Ready.Polls, r.Ready.Not200, r.Ready.SlowMs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tat s\tRSS MiB\tgoroutines\tfds\tthreads\tsource\t")
	row := func(name string, f figures) {
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%s\t%d\t%d\t%s\t\n", name, f.AtS, f.RSSMiB, f.goroutineText(), f.FDs, f.Threads, f.Source)
	}
	row("idle", r.Idle)
	row("baseline (after warm-up)", r.Baseline)
	for _, f := range r.Curve {
		row("under load", f)
	}
	row(fmt.Sprintf("after (settled %.1f s)", r.SettleS), r.After)
	row(fmt.Sprintf("after slow part (settled %.1f s)", r.Slow.SettleS), r.Slow.After)
	tw.Flush()
	s := r.Slow
	fmt.Fprintf(w, "\nslow: %d queries held %.0f s in the simulator, %.0f s measured:\n", s.InFlight, s.HoldS, s.DurationS)
	fmt.Fprintf(w, "  SELECT 1 (%d clients): %d calls, p50 %.2f ms, p99 %.2f ms, max %.1f ms, %d failed\n",
		fastCalls, s.Fast.Calls, s.Fast.P50Ms, s.Fast.P99Ms, s.Fast.MaxMs, s.Fast.Bad)
	fmt.Fprintf(w, "  /ready: %d polls, %d not 200, slowest %.1f ms\n", s.Ready.Polls, s.Ready.Not200, s.Ready.SlowMs)
	fmt.Fprintf(w, "  slow calls completed: %d (%v)\n", s.Slow.Calls, s.Slow.Labels)
	printLog(w, r.Log)
	printChecks(w, r.Checks)
}

func printLog(w io.Writer, l logSummary) {
	fmt.Fprintf(w, "\nserver log lines by level: %v\n", l.Levels)
	keys := make([]string, 0, len(l.Warnings))
	for k := range l.Warnings {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(l.Warnings[b]-l.Warnings[a], strings.Compare(a, b)) })
	for _, k := range keys {
		fmt.Fprintf(w, "  %6d  %s\n", l.Warnings[k], k)
	}
}

func printChecks(w io.Writer, cs []check) {
	fmt.Fprintln(w)
	for _, c := range cs {
		fmt.Fprintf(w, "%-7s %s: %s\n", c.verdict(), c.Name, c.Detail)
	}
}
