//go:build unix

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// rig is what the load, soak and fault modes run against: the server
// binary over loopback HTTP, the simulator as its own process, and a
// throwaway MariaDB behind it.
type rig struct {
	tmp   string
	db    *mariadb.Instance
	sim   *simProc
	srv   *serverProc
	cl    *client
	obs   *observer
	start time.Time
}

// rigOptions say how to set the rig up.
type rigOptions struct {
	server    target // bin "" = build the working tree
	sim       simConfig
	serverEnv []string // beyond serverEnv's defaults
	// setup runs as MariaDB root before the simulator starts.
	setup []string
}

func newRig(ctx context.Context, log *slog.Logger, o rigOptions) (r *rig, err error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	r = &rig{start: time.Now()}
	defer func() {
		if err != nil {
			r.close()
			r = nil
		}
	}()
	if r.tmp, err = os.MkdirTemp("", "doris-loadtest-"); err != nil {
		return r, err
	}
	bin := o.server.bin
	if bin == "" {
		bin = filepath.Join(r.tmp, "doris-mcp-server")
		if err := goBuild(root, bin, "."); err != nil {
			return r, err
		}
	}
	simBin := filepath.Join(r.tmp, "dorissim")
	if err := goBuild(root, simBin, "./doris/dorissim"); err != nil {
		return r, err
	}
	if r.db, err = mariadb.Start(ctx, mariadb.Options{Logger: log}); err != nil {
		return r, err
	}
	if err := r.db.Exec(ctx, o.setup...); err != nil {
		return r, err
	}
	if r.sim, err = startSimulator(ctx, simBin, r.db, o.sim); err != nil {
		return r, err
	}
	env := append(slices.Clone(o.server.env), o.serverEnv...)
	if r.sim.beHTTP != "" {
		env = append(env, "DORIS_BE_HOSTS="+r.sim.beHTTP)
	}
	if r.srv, err = startServer(ctx, bin, r.sim, env, o.server.log); err != nil {
		return r, err
	}
	r.cl = newClient(r.srv.url)
	r.obs = newObserver(r.srv.pid(), r.srv.url, r.start)
	// One discovery and one call set up the capability evidence and the
	// pool, as a Host's first steps do.
	if err := r.cl.warm(ctx); err != nil {
		return r, err
	}
	return r, nil
}

func (r *rig) close() {
	if r.srv != nil {
		r.srv.stop()
	}
	if r.sim != nil {
		r.sim.stop()
	}
	if r.db != nil {
		r.db.Stop()
	}
	if r.tmp != "" {
		os.RemoveAll(r.tmp)
	}
}

// leftovers lists the statements still running in MariaDB (other than
// this check's own), as "user Ns: sql prefix", after waiting up to wait
// for them to end: a statement that outlives the wait was left running.
func (r *rig) leftovers(ctx context.Context, wait time.Duration) ([]string, error) {
	deadline := time.Now().Add(wait)
	for {
		rows, err := r.db.Root().QueryContext(ctx, `SELECT USER, TIME, COMMAND, LEFT(COALESCE(INFO, ''), 80)
			FROM information_schema.processlist
			WHERE COMMAND IN ('Query', 'Execute', 'Killed') AND ID <> CONNECTION_ID()`)
		if err != nil {
			return nil, err
		}
		out := []string{}
		for rows.Next() {
			var user, cmd, info string
			var secs int
			if err := rows.Scan(&user, &secs, &cmd, &info); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, fmt.Sprintf("%s %s %ds: %s", user, cmd, secs, strings.Join(strings.Fields(info), " ")))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(out) == 0 || time.Now().After(deadline) {
			return out, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// settle closes the client's idle connections and waits until the
// server's goroutines are at most want (or maxWait passes; at least
// minWait), then reads the figures. It reports how long it waited.
func (r *rig) settle(ctx context.Context, want int, minWait, maxWait time.Duration) (figures, time.Duration) {
	r.cl.closeIdle()
	t0 := time.Now()
	time.Sleep(minWait)
	for {
		f := r.obs.read(ctx)
		if f.Goroutines < 0 || f.Goroutines <= want || time.Since(t0) >= maxWait {
			return f, time.Since(t0)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// burst runs loadClients clients of SELECT 1 for a few seconds, which
// grows the pool and the server's caches to their working size, then
// settles and returns the figures: a baseline that figures taken after a
// run can be compared with.
func (r *rig) burst(ctx context.Context) figures {
	fmt.Fprintf(os.Stderr, "warm-up burst, %d clients\n", loadClients)
	one := sqlCall("SELECT 1", 0, 0)
	closedLoop(ctx, loadClients, 5*time.Second, func(ctx context.Context, _, _ int) {
		r.cl.request(ctx, "tools/call", "doris_query", one)
	})
	f, _ := r.settle(ctx, -1, 3*time.Second, 3*time.Second)
	return f
}

// readyPoller polls GET /ready at a fixed interval and keeps every
// answer with its time.
type readyPoller struct {
	mu    sync.Mutex
	polls []readyPoll
	stop  context.CancelFunc
	done  chan struct{}
}

type readyPoll struct {
	at     time.Time
	status int // 0: no answer
	lat    time.Duration
}

// readySummary is what the polls in a window saw.
type readySummary struct {
	Polls  int     `json:"polls"`
	Not200 int     `json:"not_200"`
	SlowMs float64 `json:"slowest_ms"`
}

func (r *rig) pollReady(ctx context.Context, every time.Duration) *readyPoller {
	ctx, cancel := context.WithCancel(ctx)
	p := &readyPoller{stop: cancel, done: make(chan struct{})}
	base := strings.TrimSuffix(r.cl.url, "/mcp")
	go func() {
		defer close(p.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			t0 := time.Now()
			st := r.cl.ready(pctx, base)
			cancel()
			if ctx.Err() != nil {
				return
			}
			p.mu.Lock()
			p.polls = append(p.polls, readyPoll{t0, st, time.Since(t0)})
			p.mu.Unlock()
		}
	}()
	return p
}

// finish stops the polling.
func (p *readyPoller) finish() {
	p.stop()
	<-p.done
}

// window summarizes the polls sent in [from, to); zero times are open.
func (p *readyPoller) window(from, to time.Time) readySummary {
	p.mu.Lock()
	defer p.mu.Unlock()
	var s readySummary
	for _, q := range p.polls {
		if q.at.Before(from) || !to.IsZero() && !q.at.Before(to) {
			continue
		}
		s.Polls++
		if q.status != 200 {
			s.Not200++
		}
		s.SlowMs = max(s.SlowMs, ms(q.lat))
	}
	return s
}

// tally collects the answers of many calls.
type tally struct {
	mu     sync.Mutex
	lat    []time.Duration
	labels map[string]int
	calls  int
	bad    int
}

func newTally() *tally { return &tally{labels: map[string]int{}} }

// add records one answer; good says whether it was what was expected.
func (t *tally) add(lat time.Duration, label string, good bool) {
	t.mu.Lock()
	t.calls++
	t.lat = append(t.lat, lat)
	t.labels[label]++
	if !good {
		t.bad++
	}
	t.mu.Unlock()
}

// stats are a tally's figures.
type stats struct {
	Calls  int            `json:"calls"`
	Bad    int            `json:"bad"`
	Labels map[string]int `json:"answers"`
	P50Ms  float64        `json:"p50_ms"`
	P99Ms  float64        `json:"p99_ms"`
	MaxMs  float64        `json:"max_ms"`
}

func (t *tally) stats() stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := stats{Calls: t.calls, Bad: t.bad, Labels: map[string]int{}}
	for k, v := range t.labels {
		s.Labels[k] = v
	}
	if len(t.lat) > 0 {
		l := slices.Clone(t.lat)
		slices.Sort(l)
		s.P50Ms = ms(l[len(l)/2])
		s.P99Ms = ms(l[len(l)*99/100])
		s.MaxMs = ms(l[len(l)-1])
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// check is one pass/fail judgement of a run. Pass is nil when the run
// could not tell (a figure the server does not expose).
type check struct {
	Name   string `json:"name"`
	Pass   *bool  `json:"pass"`
	Detail string `json:"detail"`
}

func judge(name string, pass bool, format string, args ...any) check {
	return check{Name: name, Pass: &pass, Detail: fmt.Sprintf(format, args...)}
}

func unknown(name, format string, args ...any) check {
	return check{Name: name, Detail: fmt.Sprintf(format, args...)}
}

func (c check) verdict() string {
	switch {
	case c.Pass == nil:
		return "UNKNOWN"
	case *c.Pass:
		return "PASS"
	}
	return "FAIL"
}

// failed reports whether any check failed.
func failed(cs []check) bool {
	for _, c := range cs {
		if c.Pass != nil && !*c.Pass {
			return true
		}
	}
	return false
}

// loadavg is the machine's load average as /proc/loadavg has it.
func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
