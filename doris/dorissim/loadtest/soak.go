//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// The soak mode: a mixed workload at a steady rate, every answer
// classified as expected or not, and the server's resources followed.

const (
	soakRate      = 20 // calls per second
	soakInFlight  = 64 // the most calls outstanding; past it a tick is skipped and counted
	soakHold      = "loadtest_soak_hold"
	soakHoldFor   = 3 * time.Second
	pagingDB      = "soak_paging"
	pagingTables  = 250
	soakSlackFDs  = 5
	defaultCallMs = 30000 // execute_query's default timeout_ms
)

// soakKind is one kind of call in the mix. run sends it (paging sends
// several pages) and says whether every answer was the expected one.
type soakKind struct {
	name   string
	weight int
	// limit is the call's own time bound: its timeout_ms, or the default.
	limit time.Duration
	run   func(s *soak, ctx context.Context) []soakAnswer
}

// soakAnswer is one classified answer.
type soakAnswer struct {
	answer
	expected bool
	why      string // what was unexpected
}

// soak is the state of one soak run.
type soak struct {
	r         *rig
	customers map[int]int // orders per customer, from MariaDB
	orders    int
	tables    []string // the paging database's tables, sorted
}

type soakKindResult struct {
	Name       string         `json:"name"`
	Calls      int            `json:"calls"`
	Unexpected int            `json:"unexpected"`
	Hung       int            `json:"hung"`
	P50Ms      float64        `json:"p50_ms"`
	P99Ms      float64        `json:"p99_ms"`
	MaxMs      float64        `json:"max_ms"`
	Answers    map[string]int `json:"answers"`
	Samples    []string       `json:"unexpected_samples,omitempty"`
}

type soakResult struct {
	Machine    string           `json:"machine"`
	LoadAvg    string           `json:"loadavg_at_start"`
	LoadAvgEnd string           `json:"loadavg_at_end"`
	DurationS  float64          `json:"duration_s"`
	WarmupS    float64          `json:"warmup_s"`
	Rate       int              `json:"rate_per_s"`
	Calls      int              `json:"calls"`
	Unexpected int              `json:"unexpected"`
	Hung       int              `json:"hung"`
	Skipped    int              `json:"skipped_ticks"`
	Kinds      []soakKindResult `json:"kinds"`
	Start      figures          `json:"start"`
	Warm       figures          `json:"after_warmup"`
	End        figures          `json:"end"`
	Settled    figures          `json:"settled"`
	Curve      []figures        `json:"curve"`
	Leftover   []string         `json:"left_running_in_mariadb"`
	OrdersKept bool             `json:"orders_unchanged"`
	Log        logSummary       `json:"server_log"`
	Checks     []check          `json:"checks"`
}

func soakKinds() []soakKind {
	call := time.Duration(defaultCallMs)*time.Millisecond + time.Second
	return []soakKind{
		{"small query", 30, call, (*soak).small},
		{"large result, truncated", 8, call, (*soak).large},
		{"timeout (1 s against a 3 s hold)", 4, 2 * time.Second, (*soak).timeout},
		{"bad input: malformed JSON", 3, call, (*soak).badJSON},
		{"bad input: unknown child", 3, call, (*soak).unknownChild},
		{"bad input: invalid arguments", 3, call, (*soak).invalidArgs},
		{"bad input: write SQL", 3, call, (*soak).writeSQL},
		{"discovery: domain {}", 5, call, (*soak).discover},
		{"discovery: tools/list", 3, call, (*soak).toolsList},
		{"paging: list_tables pages", 4, call, (*soak).paging},
	}
}

func (s *soak) one(ctx context.Context, name string, body []byte, want func(a answer) string) []soakAnswer {
	a := s.r.cl.request(ctx, "tools/call", name, body)
	why := want(a)
	return []soakAnswer{{answer: a, expected: why == "", why: why}}
}

func (s *soak) small(ctx context.Context) []soakAnswer {
	id := 1 + rand.IntN(mariadb.DemoCustomers)
	return s.one(ctx, "doris_query", sqlCall(fmt.Sprintf("SELECT order_id, status, total_amount FROM orders WHERE customer_id = %d", id), 0, 0),
		func(a answer) string {
			if !a.ok() || a.Rows != s.customers[id] || a.Truncated {
				return fmt.Sprintf("%s, %d rows (truncated %v), want ok with %d rows", a.label(), a.Rows, a.Truncated, s.customers[id])
			}
			return ""
		})
}

func (s *soak) large(ctx context.Context) []soakAnswer {
	return s.one(ctx, "doris_query", sqlCall("SELECT seq, seq * 2 AS twice, CONCAT('row-', seq) AS label FROM seq_1_to_100000", 0, 1000),
		func(a answer) string {
			if !a.ok() || a.Rows != 1000 || !a.Truncated {
				return fmt.Sprintf("%s, %d rows (truncated %v), want ok, 1000 rows, truncated", a.label(), a.Rows, a.Truncated)
			}
			return ""
		})
}

func (s *soak) timeout(ctx context.Context) []soakAnswer {
	return s.one(ctx, "doris_query", sqlCall("SELECT '"+soakHold+"' AS held", 1000, 0),
		want("CHILD_EXECUTION_TIMEOUT/QUERY_TIMEOUT"))
}

// want expects exactly this label.
func want(label string) func(a answer) string {
	return func(a answer) string {
		if a.label() != label {
			return fmt.Sprintf("%s, want %s", a.label(), label)
		}
		return ""
	}
}

func (s *soak) badJSON(ctx context.Context) []soakAnswer {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"doris_query","arguments":{"child_tool":`)
	return s.one(ctx, "doris_query", body, want("HTTP 400 rpc -32700"))
}

func (s *soak) unknownChild(ctx context.Context) []soakAnswer {
	return s.one(ctx, "doris_query", childCall("doris_query", "drop_everything", map[string]any{}), want("CHILD_TOOL_NOT_FOUND"))
}

func (s *soak) invalidArgs(ctx context.Context) []soakAnswer {
	return s.one(ctx, "doris_query", childCall("doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "max_rows": "many"}),
		want("CHILD_ARGUMENTS_INVALID"))
}

func (s *soak) writeSQL(ctx context.Context) []soakAnswer {
	return s.one(ctx, "doris_query", sqlCall("DELETE FROM orders WHERE order_id = 1", 0, 0),
		want("CHILD_ARGUMENTS_INVALID/QUERY_READ_ONLY_VIOLATION"))
}

func (s *soak) discover(ctx context.Context) []soakAnswer {
	domains := []string{"doris_catalog", "doris_query", "doris_cluster", "doris_pipeline", "doris_governance",
		"doris_search", "doris_semantic", "doris_lakehouse"}
	d := domains[rand.IntN(len(domains))]
	body := rpc("tools/call", map[string]any{"name": d, "arguments": map[string]any{}})
	return s.one(ctx, d, body, func(a answer) string {
		if a.Mode != "manifest" {
			return fmt.Sprintf("%s from %s {}, want a manifest", a.label(), d)
		}
		return ""
	})
}

func (s *soak) toolsList(ctx context.Context) []soakAnswer {
	a := s.r.cl.request(ctx, "tools/list", "", rpc("tools/list", nil))
	why := ""
	if a.Tools != 8 {
		why = fmt.Sprintf("%s with %d tools, want 8", a.label(), a.Tools)
	}
	return []soakAnswer{{answer: a, expected: why == "", why: why}}
}

// paging walks list_tables of the paging database by next_cursor and
// expects every table exactly once, in order.
func (s *soak) paging(ctx context.Context) []soakAnswer {
	var out []soakAnswer
	var names []string
	args := map[string]any{"database": pagingDB}
	for page := 0; ; page++ {
		a := s.r.cl.request(ctx, "tools/call", "doris_catalog", childCall("doris_catalog", "list_tables", args))
		sa := soakAnswer{answer: a, expected: true}
		if !a.ok() || len(a.Items) == 0 {
			sa.expected, sa.why = false, fmt.Sprintf("page %d: %s with %d items", page, a.label(), len(a.Items))
			return append(out, sa)
		}
		for _, it := range a.Items {
			names = append(names, itemName(it))
		}
		if a.Next == "" || page > pagingTables/100+1 {
			if !slices.Equal(names, s.tables) {
				sa.expected, sa.why = false, fmt.Sprintf("%d pages gave %d names, want the %d tables in order", page+1, len(names), len(s.tables))
			}
			return append(out, sa)
		}
		out = append(out, sa)
		args = map[string]any{"database": pagingDB, "page": a.Next}
	}
}

func runSoak(ctx context.Context, log *slog.Logger, tg target, d time.Duration) (*soakResult, error) {
	setup := []string{"CREATE DATABASE " + pagingDB}
	var tables []string
	for i := range pagingTables {
		t := fmt.Sprintf("t_%03d", i)
		tables = append(tables, t)
		setup = append(setup, fmt.Sprintf("CREATE TABLE %s.%s (id INT PRIMARY KEY)", pagingDB, t))
	}
	setup = append(setup, fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%'", pagingDB, mariadb.ReaderUser))
	r, err := newRig(ctx, log, rigOptions{server: tg, setup: setup,
		sim: simConfig{profile: "3.0", holds: []string{soakHold + "=" + soakHoldFor.String()}}})
	if err != nil {
		return nil, err
	}
	defer r.close()
	s := &soak{r: r, customers: map[int]int{}, tables: tables}
	if err := s.truth(ctx); err != nil {
		return nil, err
	}
	warm := min(max(d/10, 10*time.Second), d/2)
	res := &soakResult{Machine: machine(), LoadAvg: loadavg(), DurationS: d.Seconds(), WarmupS: warm.Seconds(), Rate: soakRate}
	time.Sleep(time.Second)
	res.Start = r.obs.read(ctx)
	fmt.Fprintf(os.Stderr, "soak: %d calls/s for %v (warm-up %v)\n", soakRate, d, warm)

	kinds := soakKinds()
	var deck []int // each kind as often as its weight, shuffled
	for i, k := range kinds {
		for range k.weight {
			deck = append(deck, i)
		}
	}
	tallies := make([]*soakTally, len(kinds))
	for i := range tallies {
		tallies[i] = &soakTally{answers: map[string]int{}}
	}
	curve := r.obs.sample(ctx, 10*time.Second)
	var inFlight, skipped atomic.Int64
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / soakRate)
	t0 := time.Now()
	warmTaken := false
	for n := 0; time.Since(t0) < d && ctx.Err() == nil; n++ {
		<-tick.C
		if !warmTaken && time.Since(t0) >= warm {
			res.Warm, warmTaken = r.obs.read(ctx), true
		}
		if n%len(deck) == 0 {
			rand.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
		}
		if inFlight.Load() >= soakInFlight {
			skipped.Add(1)
			continue
		}
		k := kinds[deck[n%len(deck)]]
		t := tallies[deck[n%len(deck)]]
		inFlight.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer inFlight.Add(-1)
			cctx, cancel := context.WithTimeout(ctx, k.limit+30*time.Second)
			defer cancel()
			for _, a := range k.run(s, cctx) {
				t.add(a, k.limit)
			}
		}()
	}
	tick.Stop()
	res.End = r.obs.read(ctx)
	wg.Wait()
	res.Curve = curve.finish()
	res.Skipped = int(skipped.Load())
	for i, k := range kinds {
		kr := tallies[i].result(k.name)
		res.Kinds = append(res.Kinds, kr)
		res.Calls += kr.Calls
		res.Unexpected += kr.Unexpected
		res.Hung += kr.Hung
	}
	res.Settled, _ = r.settle(ctx, res.Warm.Goroutines+goroutineSlack, 2*time.Second, 15*time.Second)
	if res.Leftover, err = r.leftovers(ctx, 5*time.Second); err != nil {
		return nil, err
	}
	var orders int
	if err := r.db.Root().QueryRowContext(ctx, "SELECT COUNT(*) FROM demo.orders").Scan(&orders); err != nil {
		return nil, err
	}
	res.OrdersKept = orders == s.orders
	res.LoadAvgEnd = loadavg()
	res.Log = r.srv.log.summary()
	res.Checks = soakChecks(res)
	return res, nil
}

// truth reads, straight from MariaDB, what the small queries must return.
func (s *soak) truth(ctx context.Context) error {
	rows, err := s.r.db.Root().QueryContext(ctx, "SELECT customer_id, COUNT(*) FROM demo.orders GROUP BY customer_id")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, n int
		if err := rows.Scan(&id, &n); err != nil {
			return err
		}
		s.customers[id] = n
		s.orders += n
	}
	return rows.Err()
}

// soakTally collects one kind's answers.
type soakTally struct {
	mu         sync.Mutex
	lat        []time.Duration
	answers    map[string]int
	unexpected int
	hung       int
	samples    []string
}

func (t *soakTally) add(a soakAnswer, limit time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lat = append(t.lat, a.Latency)
	t.answers[a.label()]++
	if a.Latency > limit {
		t.hung++
	}
	if !a.expected {
		t.unexpected++
		if len(t.samples) < 5 {
			t.samples = append(t.samples, a.why)
		}
	}
}

func (t *soakTally) result(name string) soakKindResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := soakKindResult{Name: name, Calls: len(t.lat), Unexpected: t.unexpected, Hung: t.hung, Answers: t.answers, Samples: t.samples}
	if len(t.lat) > 0 {
		l := slices.Clone(t.lat)
		slices.Sort(l)
		r.P50Ms, r.P99Ms, r.MaxMs = ms(l[len(l)/2]), ms(l[len(l)*99/100]), ms(l[len(l)-1])
	}
	return r
}

func soakChecks(r *soakResult) []check {
	cs := []check{
		judge("soak: 0 unexpected answers", r.Unexpected == 0, "%d of %d", r.Unexpected, r.Calls),
		judge("soak: 0 hung calls", r.Hung == 0, "%d calls took longer than their timeout plus 1 s", r.Hung),
		judge("soak: the rate was kept", r.Skipped == 0, "%d ticks skipped with %d calls outstanding", r.Skipped, soakInFlight),
		judge("soak: RSS flat after warm-up", r.End.RSSMiB <= r.Warm.RSSMiB*1.1+4, "%.1f MiB after warm-up, %.1f at the end", r.Warm.RSSMiB, r.End.RSSMiB),
		judge("soak: fds flat after warm-up", r.Settled.FDs <= r.Warm.FDs+soakSlackFDs, "%d after warm-up, %d at the end under load, %d settled", r.Warm.FDs, r.End.FDs, r.Settled.FDs),
	}
	if r.Warm.Goroutines < 0 {
		cs = append(cs, unknown("soak: goroutines flat after warm-up", "the server has no /metrics; threads %d -> %d", r.Warm.Threads, r.End.Threads))
	} else {
		cs = append(cs, judge("soak: goroutines flat after warm-up", r.Settled.Goroutines <= r.Warm.Goroutines+goroutineSlack,
			"%d after warm-up, %d at the end under load, %d settled", r.Warm.Goroutines, r.End.Goroutines, r.Settled.Goroutines))
	}
	cs = append(cs, judge("soak: nothing left running in MariaDB", len(r.Leftover) == 0, "%d: %v", len(r.Leftover), r.Leftover))
	cs = append(cs, judge("soak: write SQL changed nothing", r.OrdersKept, "demo.orders row count unchanged: %v", r.OrdersKept))
	return cs
}

func printSoak(w io.Writer, r *soakResult) {
	fmt.Fprintf(w, "machine: %s, load average (1, 5, 15 min) at start %s, at end %s\n\n", r.Machine, r.LoadAvg, r.LoadAvgEnd)
	fmt.Fprintf(w, "soak: %.0f s at %d calls/s (warm-up %.0f s): %d calls, %d unexpected, %d hung, %d ticks skipped\n\n",
		r.DurationS, r.Rate, r.WarmupS, r.Calls, r.Unexpected, r.Hung, r.Skipped)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "kind\tcalls\tunexpected\thung\tp50 ms\tp99 ms\tmax ms\tanswers")
	for _, k := range r.Kinds {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%s\n", k.Name, k.Calls, k.Unexpected, k.Hung, k.P50Ms, k.P99Ms, k.MaxMs, answersText(k.Answers))
	}
	tw.Flush()
	for _, k := range r.Kinds {
		for _, s := range k.Samples {
			fmt.Fprintf(w, "  unexpected %s: %s\n", k.Name, s)
		}
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tat s\tRSS MiB\tgoroutines\tfds\tthreads\t")
	row := func(name string, f figures) {
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%s\t%d\t%d\t\n", name, f.AtS, f.RSSMiB, f.goroutineText(), f.FDs, f.Threads)
	}
	row("start", r.Start)
	row("after warm-up", r.Warm)
	for _, f := range r.Curve {
		row("", f)
	}
	row("end (under load)", r.End)
	row("settled", r.Settled)
	tw.Flush()
	printLog(w, r.Log)
	printChecks(w, r.Checks)
}

// answersText is "label n, label n" sorted by count.
func answersText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return m[b] - m[a] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
