//go:build unix

package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// The fault mode: a steady moderate load (execute_query with timeout_ms
// 5000, and list_cluster_nodes with include_metrics) runs throughout
// while faults are injected one after another. For each fault the run
// reports the errors seen and their codes, the time to recover (the first
// success of a call sent after the fault was lifted), and hung calls: any
// call that took longer than its own time bound plus one second.

const (
	faultRate      = 20 // calls per second
	faultClusterN  = 10 // every Nth call is list_cluster_nodes
	faultTimeoutMs = 5000
	faultBefore    = 5 * time.Second  // steady load before each fault
	faultStable    = 5 * time.Second  // watched after recovery
	faultGiveUp    = 60 * time.Second // no recovery by then: not recovered
)

// faultCall is one call of the steady load.
type faultCall struct {
	kind  string // "sql" or "cluster"
	sent  time.Time
	lat   time.Duration
	limit time.Duration
	label string
}

func (c faultCall) ok() bool   { return c.label == "ok" }
func (c faultCall) hung() bool { return c.lat > c.limit+time.Second }

// recorder keeps every finished call.
type recorder struct {
	mu    sync.Mutex
	calls []faultCall
}

func (r *recorder) add(c faultCall) {
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
}

// firstOK is the earliest finish of a call of kind sent at or after t
// that succeeded (zero when none has yet).
func (r *recorder) firstOK(kind string, t time.Time) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var first time.Time
	for _, c := range r.calls {
		if c.kind == kind && c.ok() && !c.sent.Before(t) {
			if end := c.sent.Add(c.lat); first.IsZero() || end.Before(first) {
				first = end
			}
		}
	}
	return first
}

// faultSpec is one fault: inject starts it, lift ends it (returning once
// it is over); recoverKind is the call kind whose success means
// recovered.
type faultSpec struct {
	name        string
	inject      func(ctx context.Context) error
	hold        time.Duration
	lift        func(ctx context.Context) error
	recoverKind string
	watch       time.Duration // after recovery; 0 = faultStable
}

// faultWindow is one fault's timeline.
type faultWindow struct {
	spec                         faultSpec
	pre, start, lifted, rec, end time.Time
}

type faultReport struct {
	Name        string         `json:"name"`
	LastedS     float64        `json:"lasted_s"` // inject to lifted
	Calls       int            `json:"calls"`
	Errors      map[string]int `json:"errors"` // by answer, of calls under way at the fault's start or sent until the end of the watch
	RecoverS    *float64       `json:"recover_s"`
	Hung        int            `json:"hung"`
	MaxOverMs   float64        `json:"max_ms_over_own_limit"` // the worst latency minus the call's limit
	ErrorsAfter int            `json:"errors_after_recovery"`
	BeforeErrs  map[string]int `json:"errors_before"` // in the steady load just before the fault
	ReadyNot200 int            `json:"ready_not_200"`
	ReadyPolls  int            `json:"ready_polls"`
	WatchS      float64        `json:"watched_after_recovery_s"`
}

type faultResult struct {
	Machine    string        `json:"machine"`
	LoadAvg    string        `json:"loadavg_at_start"`
	LoadAvgEnd string        `json:"loadavg_at_end"`
	Rate       int           `json:"rate_per_s"`
	Calls      int           `json:"calls"`
	Skipped    int           `json:"skipped_ticks"`
	Faults     []faultReport `json:"faults"`
	Baseline   figures       `json:"baseline"`
	After      figures       `json:"after"`
	Leftover   []string      `json:"left_running_in_mariadb"`
	Log        logSummary    `json:"server_log"`
	Checks     []check       `json:"checks"`
}

func runFault(ctx context.Context, log *slog.Logger, tg target, hold time.Duration) (*faultResult, error) {
	// The BE of SHOW BACKENDS is the simulator's own web server, so its
	// listener is the one a fault kills; the reader has Doris ADMIN so that
	// SHOW BACKENDS lists it (a monitoring account has it in production).
	r, err := newRig(ctx, log, rigOptions{server: tg,
		sim: simConfig{profile: "3.0", be: true, admins: "root," + mariadb.ReaderUser}})
	if err != nil {
		return nil, err
	}
	defer r.close()
	res := &faultResult{Machine: machine(), LoadAvg: loadavg(), Rate: faultRate}
	// The pool grows to its working size under the faults (callers pile
	// up while Doris is frozen): grow it first, so that the baseline and
	// the figures after the faults compare like with like.
	res.Baseline = r.burst(ctx)
	customers := map[int]int{}
	if err := ordersPerCustomer(ctx, r, customers); err != nil {
		return nil, err
	}

	rec := &recorder{}
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	var loadWG sync.WaitGroup
	var skipped atomic.Int64
	loadWG.Add(1)
	go func() { defer loadWG.Done(); steadyLoad(loadCtx, r, rec, customers, &skipped) }()
	ready := r.pollReady(ctx, 250*time.Millisecond)

	specs := []faultSpec{
		{name: "simulator killed (SIGKILL), restarted 2 s later", hold: 2 * time.Second, recoverKind: "sql",
			inject: func(context.Context) error { r.sim.crash(); return nil },
			lift:   func(ctx context.Context) error { return r.sim.start(ctx) }},
		{name: fmt.Sprintf("simulator frozen (SIGSTOP) for %v", hold), hold: hold, recoverKind: "sql",
			inject: func(context.Context) error { return r.sim.signal(syscall.SIGSTOP) },
			lift:   func(context.Context) error { return r.sim.signal(syscall.SIGCONT) }},
		{name: fmt.Sprintf("BE HTTP port dead for %v", hold), hold: hold, recoverKind: "cluster",
			inject: func(context.Context) error { return r.sim.signal(syscall.SIGUSR1) },
			lift:   func(context.Context) error { return r.sim.signal(syscall.SIGUSR2) }},
		// Last, and watched longer: the simulator keeps one upstream
		// connection per client session, and a session whose upstream died
		// with MariaDB fails its next statement (Doris's own "no backend"
		// error), however long the server's pool kept it idle.
		{name: "MariaDB restarted", recoverKind: "sql", watch: 15 * time.Second,
			inject: func(context.Context) error { return nil },
			lift:   func(ctx context.Context) error { return r.db.Restart(ctx, 0) }},
	}
	var windows []faultWindow
	for _, sp := range specs {
		w := faultWindow{spec: sp, pre: time.Now()}
		sleep(ctx, faultBefore)
		fmt.Fprintf(os.Stderr, "fault: %s\n", sp.name)
		w.start = time.Now()
		if err := sp.inject(ctx); err != nil {
			return nil, fmt.Errorf("%s: inject: %w", sp.name, err)
		}
		sleep(ctx, sp.hold)
		if err := sp.lift(ctx); err != nil {
			return nil, fmt.Errorf("%s: lift: %w", sp.name, err)
		}
		w.lifted = time.Now()
		for deadline := w.lifted.Add(faultGiveUp); time.Now().Before(deadline) && ctx.Err() == nil; {
			if t := rec.firstOK(sp.recoverKind, w.lifted); !t.IsZero() {
				w.rec = t
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		sleep(ctx, cmp.Or(sp.watch, faultStable))
		w.end = time.Now()
		windows = append(windows, w)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	stopLoad()
	loadWG.Wait()
	ready.finish()
	res.Skipped = int(skipped.Load())
	res.Calls = len(rec.calls)
	for _, w := range windows {
		res.Faults = append(res.Faults, w.report(rec, ready))
	}
	res.After, _ = r.settle(ctx, res.Baseline.Goroutines+goroutineSlack, 2*time.Second, 15*time.Second)
	if res.Leftover, err = r.leftovers(ctx, 5*time.Second); err != nil {
		return nil, err
	}
	res.LoadAvgEnd = loadavg()
	res.Log = r.srv.log.summary()
	res.Checks = faultChecks(res)
	return res, nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

func ordersPerCustomer(ctx context.Context, r *rig, out map[int]int) error {
	rows, err := r.db.Root().QueryContext(ctx, "SELECT customer_id, COUNT(*) FROM demo.orders GROUP BY customer_id")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		out[id] = n
	}
	return rows.Err()
}

// steadyLoad sends faultRate calls a second, open loop, until ctx ends:
// execute_query of one customer's orders (timeout_ms 5000), and every
// faultClusterN-th call list_cluster_nodes with include_metrics.
func steadyLoad(ctx context.Context, r *rig, rec *recorder, customers map[int]int, skipped *atomic.Int64) {
	var wg sync.WaitGroup
	defer wg.Wait()
	var inFlight atomic.Int64
	tick := time.NewTicker(time.Second / faultRate)
	defer tick.Stop()
	cluster := childCall("doris_cluster", "list_cluster_nodes", map[string]any{"include_metrics": true})
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if inFlight.Load() >= 400 {
			skipped.Add(1)
			continue
		}
		inFlight.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer inFlight.Add(-1)
			// A call is never cut short by the run: it must end on its own.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			c := faultCall{sent: time.Now()}
			if n%faultClusterN == 0 {
				c.kind, c.limit = "cluster", time.Duration(defaultCallMs)*time.Millisecond
				a := r.cl.request(cctx, "tools/call", "doris_cluster", cluster)
				c.lat, c.label = a.Latency, clusterLabel(a)
			} else {
				id := 1 + rand.IntN(mariadb.DemoCustomers)
				c.kind, c.limit = "sql", faultTimeoutMs*time.Millisecond
				a := r.cl.request(cctx, "tools/call", "doris_query",
					sqlCall(fmt.Sprintf("SELECT order_id, status FROM orders WHERE customer_id = %d", id), faultTimeoutMs, 0))
				c.lat, c.label = a.Latency, a.label()
				if a.ok() && a.Rows != customers[id] {
					c.label = fmt.Sprintf("wrong row count %d, want %d", a.Rows, customers[id])
				}
			}
			rec.add(c)
		}()
	}
}

// clusterLabel is "ok" for a complete list_cluster_nodes whose BE metrics
// arrived, "partial: BE metrics <status> (<reason>)" when they did not, or
// the answer's label.
func clusterLabel(a answer) string {
	l := a.label()
	if l != "ok" && l != "partial" {
		return l
	}
	be := "no BE listed"
	for _, raw := range a.Items {
		var it struct {
			NodeType string `json:"node_type"`
			Metrics  *struct {
				Status string `json:"status"`
				Reason string `json:"reason_code"`
			} `json:"metrics"`
		}
		if json.Unmarshal(raw, &it) != nil || it.NodeType != "be" {
			continue
		}
		switch {
		case it.Metrics == nil:
			be = "BE without metrics"
		case it.Metrics.Status == "success":
			be = ""
		default:
			be = fmt.Sprintf("BE metrics %s (%s)", it.Metrics.Status, it.Metrics.Reason)
		}
		break
	}
	switch {
	case be == "" && l == "ok":
		return "ok"
	case be == "":
		return "partial"
	}
	return "partial: " + be
}

func (w faultWindow) report(rec *recorder, ready *readyPoller) faultReport {
	fr := faultReport{Name: w.spec.name, LastedS: w.lifted.Sub(w.start).Seconds(), Errors: map[string]int{}, BeforeErrs: map[string]int{}}
	if !w.rec.IsZero() {
		s := w.rec.Sub(w.lifted).Seconds()
		fr.RecoverS = &s
		fr.WatchS = w.end.Sub(w.rec).Seconds()
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, c := range rec.calls {
		// A call belongs to the fault when it was still under way as the
		// fault began or was sent while it lasted or was watched.
		end := c.sent.Add(c.lat)
		switch {
		case !c.sent.Before(w.pre) && end.Before(w.start):
			if !c.ok() {
				fr.BeforeErrs[c.kind+": "+c.label]++
			}
		case !end.Before(w.start) && c.sent.Before(w.end):
			fr.Calls++
			if !c.ok() {
				fr.Errors[c.kind+": "+c.label]++
				if !w.rec.IsZero() && c.sent.After(w.rec) {
					fr.ErrorsAfter++
				}
			}
			if c.hung() {
				fr.Hung++
			}
			fr.MaxOverMs = max(fr.MaxOverMs, ms(c.lat-c.limit))
		}
	}
	rs := ready.window(w.start, w.end)
	fr.ReadyPolls, fr.ReadyNot200 = rs.Polls, rs.Not200
	return fr
}

func faultChecks(r *faultResult) []check {
	var cs []check
	for _, f := range r.Faults {
		cs = append(cs, judge(f.Name+": 0 hung calls", f.Hung == 0, "%d calls past their limit + 1 s (worst %+.0f ms against its own limit)", f.Hung, f.MaxOverMs))
		rec := "never"
		if f.RecoverS != nil {
			rec = fmt.Sprintf("%.2f s", *f.RecoverS)
		}
		cs = append(cs, judge(f.Name+": recovered", f.RecoverS != nil, "first success %s after the fault ended; %d errors after it", rec, f.ErrorsAfter))
		answered := true
		for l := range f.Errors {
			if strings.Contains(l, "no answer") || strings.Contains(l, "undecodable") {
				answered = false
			}
		}
		cs = append(cs, judge(f.Name+": every call answered with a structured error", answered, "%v", f.Errors))
		cs = append(cs, judge(f.Name+": no errors before it", len(f.BeforeErrs) == 0, "%v", f.BeforeErrs))
	}
	for _, f := range r.Faults {
		if !strings.HasPrefix(f.Name, "BE HTTP") {
			continue
		}
		partial := 0
		for l, n := range f.Errors {
			if strings.HasPrefix(l, "cluster: partial: BE metrics unavailable") {
				partial += n
			}
		}
		cs = append(cs, judge("BE HTTP port dead: list_cluster_nodes answers partial with the BE unavailable", partial > 0,
			"%d partial answers naming the BE; errors %v", partial, f.Errors))
	}
	cs = append(cs, goroutineCheck("goroutines back to baseline after the faults", r.Baseline, r.After))
	cs = append(cs, judge("nothing left running in MariaDB", len(r.Leftover) == 0, "%d: %v", len(r.Leftover), r.Leftover))
	return cs
}

func printFault(w io.Writer, r *faultResult) {
	fmt.Fprintf(w, "machine: %s, load average (1, 5, 15 min) at start %s, at end %s\n", r.Machine, r.LoadAvg, r.LoadAvgEnd)
	fmt.Fprintf(w, "steady load: %d calls/s (execute_query timeout_ms %d; every %dth list_cluster_nodes include_metrics), %d calls, %d ticks skipped\n\n",
		r.Rate, faultTimeoutMs, faultClusterN, r.Calls, r.Skipped)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\tlasted s\tcalls\terrors\trecover s\thung\tworst vs limit ms\terrors after recovery (watched s)\t/ready not 200")
	for _, f := range r.Faults {
		n := 0
		for _, v := range f.Errors {
			n += v
		}
		rec := "never"
		if f.RecoverS != nil {
			rec = fmt.Sprintf("%.2f", *f.RecoverS)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%s\t%d\t%+.0f\t%d (%.0f)\t%d/%d\n", f.Name, f.LastedS, f.Calls, n, rec, f.Hung, f.MaxOverMs, f.ErrorsAfter, f.WatchS, f.ReadyNot200, f.ReadyPolls)
	}
	tw.Flush()
	for _, f := range r.Faults {
		fmt.Fprintf(w, "\n%s: errors by code\n", f.Name)
		keys := make([]string, 0, len(f.Errors))
		for k := range f.Errors {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return f.Errors[keys[i]] > f.Errors[keys[j]] })
		for _, k := range keys {
			fmt.Fprintf(w, "  %6d  %s\n", f.Errors[k], k)
		}
	}
	fmt.Fprintf(w, "\nserver: baseline %.1f MiB, %s goroutines, %d fds; after %.1f MiB, %s goroutines, %d fds\n",
		r.Baseline.RSSMiB, r.Baseline.goroutineText(), r.Baseline.FDs, r.After.RSSMiB, r.After.goroutineText(), r.After.FDs)
	printLog(w, r.Log)
	printChecks(w, r.Checks)
}
