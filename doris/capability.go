package doris

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"time"
)

// capabilities caches capability evidence per route. The base evidence
// (version, nodes, mode) has a TTL and a stale grace; probes run lazily,
// the first time a domain that needs them is discovered in a generation.
// Concurrent requests for the same evidence share one run, which does not
// depend on any one caller: a caller that gives up stops waiting, the run
// goes on (bounded by CAPABILITY_PROBE_TIMEOUT_SECONDS) and serves the
// next caller.
type capabilities struct {
	r *Runtime

	mu      sync.Mutex // protects entries
	entries map[string]*capEntry
}

type capEntry struct {
	mu sync.Mutex // protects the fields below and those of gen

	gen     *generation // the current generation; nil until the first success
	failure *Snapshot   // the last failed refresh, served until retryAt
	retryAt time.Time
	refresh *flight // the base refresh under way, if any
}

// generation is one successful base snapshot and the probe outcomes
// taken under it.
type generation struct {
	snap   *Snapshot
	probes map[string]probeOutcome
	runs   map[string]*flight // probes under way
	// views are the snapshots already composed for a probe set, valid
	// while epoch (bumped by every probe outcome written) is unchanged:
	// concurrent calls share one immutable snapshot instead of each
	// copying the probe outcomes and hashing the generation again.
	views map[string]snapView
	epoch uint64
}

// snapView is a composed snapshot and the epoch it was composed at.
type snapView struct {
	snap  *Snapshot
	epoch uint64
}

// probeOutcome is one probe's result. A transient one (Doris unreachable
// for a moment, a probe that timed out) is retried after until; the
// others hold for the whole generation.
type probeOutcome struct {
	value string
	until time.Time
	at    time.Time // when it was taken (telemetry.go reports its age)
}

func (o probeOutcome) valid(now time.Time) bool { return o.until.IsZero() || now.Before(o.until) }

// flight is one run that later callers wait for.
type flight struct {
	done chan struct{}
	// Set before done is closed, for base refreshes.
	gen  *generation
	snap *Snapshot
}

// failedRetry is how long an unreachable Doris is not asked again: long
// enough to keep a burst of discoveries from each waiting out a connect
// timeout, short enough to notice recovery promptly. A probe that failed
// because Doris could not be reached is retried after the same time.
const failedRetry = 2 * time.Second

// timeoutRetry is how long a probe that timed out is not run again, so
// that a statement Doris never answers does not hold up every discovery.
const timeoutRetry = 30 * time.Second

func newCapabilities(r *Runtime) *capabilities {
	return &capabilities{r: r, entries: map[string]*capEntry{}}
}

func (c *capabilities) entry(key string) *capEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		e = &capEntry{}
		c.entries[key] = e
	}
	return e
}

func (c *capabilities) invalidate(key string) {
	c.mu.Lock()
	delete(c.entries, key)
	c.mu.Unlock()
}

// snapshot returns a coherent snapshot for rt with at least probes run
// (or marked ProbeUnknown when the caller gave up first, or when the
// evidence is stale and Doris is not answering).
func (c *capabilities) snapshot(ctx context.Context, rt *Route, probes []string) *Snapshot {
	e := c.entry(rt.key)
	g, snap := c.base(ctx, rt, e)
	if g == nil {
		return snap
	}
	if !snap.Stale {
		c.runProbes(ctx, rt, e, g, probes)
	}
	key := probeKey(probes)
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := g.views[key]; ok && v.epoch == g.epoch && !snap.Stale {
		return v.snap
	}
	s := *snap
	s.Probes = make(map[string]string, len(g.probes)+len(probes))
	for id, o := range g.probes {
		s.Probes[id] = o.value
	}
	for _, p := range probes {
		if _, ok := s.Probes[p]; !ok {
			s.Probes[p] = ProbeUnknown
		}
	}
	s.gen, s.genKey = s.generation(probes), key
	if !snap.Stale {
		if g.views == nil || len(g.views) > 64 {
			g.views = map[string]snapView{}
		}
		g.views[key] = snapView{snap: &s, epoch: g.epoch}
	}
	return &s
}

// base returns the current generation and the snapshot to serve: the
// generation's own when fresh, a stale copy within the grace, or the
// failure (with a nil generation). An expired generation is refreshed by
// one run that every concurrent caller waits for.
func (c *capabilities) base(ctx context.Context, rt *Route, e *capEntry) (*generation, *Snapshot) {
	now := c.r.now()
	e.mu.Lock()
	if e.gen != nil && now.Sub(e.gen.snap.TakenAt) < c.r.cfg.CapabilityTTL {
		g := e.gen
		e.mu.Unlock()
		return g, g.snap
	}
	if e.failure != nil && now.Before(e.retryAt) {
		g, s := c.fallbackLocked(e, now)
		e.mu.Unlock()
		return g, s
	}
	f := e.refresh
	if f == nil {
		f = &flight{done: make(chan struct{})}
		e.refresh = f
		go c.refreshBase(context.WithoutCancel(ctx), rt, e, f)
	}
	e.mu.Unlock()
	select {
	case <-f.done:
		return f.gen, f.snap
	case <-ctx.Done():
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.gen != nil && c.r.now().Sub(e.gen.snap.TakenAt) < c.r.cfg.CapabilityTTL+c.r.cfg.StaleGrace {
			return e.gen, staleOf(e.gen.snap)
		}
		return nil, &Snapshot{Route: rt.name, Unavailable: ReasonSnapshotUnavailable,
			Detail: "the request ended before Doris answered the capability checks"}
	}
}

// refreshBase takes the base evidence afresh and publishes the outcome.
func (c *capabilities) refreshBase(ctx context.Context, rt *Route, e *capEntry, f *flight) {
	fresh := c.r.takeBase(ctx, rt)
	now := c.r.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	defer close(f.done)
	e.refresh = nil
	if fresh.Unavailable == "" {
		// Probe outcomes are evidence too: they are taken again, lazily,
		// with every refresh of the base.
		g := &generation{snap: fresh, probes: map[string]probeOutcome{}, runs: map[string]*flight{}}
		e.gen, e.failure = g, nil
		f.gen, f.snap = g, fresh
		return
	}
	e.failure, e.retryAt = fresh, now.Add(failedRetry)
	f.gen, f.snap = c.fallbackLocked(e, now)
}

// fallbackLocked is what a failed refresh serves: the last generation
// marked stale while within the stale grace, else the failure.
func (c *capabilities) fallbackLocked(e *capEntry, now time.Time) (*generation, *Snapshot) {
	if e.gen != nil && now.Sub(e.gen.snap.TakenAt) < c.r.cfg.CapabilityTTL+c.r.cfg.StaleGrace {
		return e.gen, staleOf(e.gen.snap)
	}
	return nil, e.failure
}

func staleOf(s *Snapshot) *Snapshot {
	c := *s
	c.Stale = true
	c.gen, c.genKey = "", ""
	return &c
}

// runProbes runs the probes g does not have valid outcomes for yet. Each
// probe runs once per generation however many callers ask; transient
// outcomes are retried once they expire.
func (c *capabilities) runProbes(ctx context.Context, rt *Route, e *capEntry, g *generation, probes []string) {
	var wait []*flight
	now := c.r.now()
	e.mu.Lock()
	for _, p := range probes {
		if o, done := g.probes[p]; done && o.valid(now) {
			continue
		}
		if f, running := g.runs[p]; running {
			wait = append(wait, f)
			continue
		}
		f := &flight{done: make(chan struct{})}
		g.runs[p] = f
		wait = append(wait, f)
		go func(id string) {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.r.cfg.ProbeTimeout)
			defer cancel()
			value, retry := c.r.probe(pctx, rt, id)
			o := probeOutcome{value: value, at: c.r.now()}
			if retry > 0 {
				o.until = c.r.now().Add(retry)
			}
			e.mu.Lock()
			g.probes[id] = o
			g.epoch++
			delete(g.runs, id)
			e.mu.Unlock()
			close(f.done)
		}(p)
	}
	e.mu.Unlock()
	for _, f := range wait {
		select {
		case <-f.done:
		case <-ctx.Done():
			return
		}
	}
}

// takeBase reads the base evidence: @@version_comment, SHOW FRONTENDS and
// SHOW BACKENDS. Only the first is required; the node lists need
// privileges a reader may not have, and their absence is recorded.
func (r *Runtime) takeBase(ctx context.Context, rt *Route) *Snapshot {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.ProbeTimeout)
	defer cancel()
	s := &Snapshot{Route: rt.name, TakenAt: r.now(), Mode: "integrated", Providers: r.providers()}
	rows, err := r.InternalText(ctx, rt, "SELECT @@version_comment", 1, "DORIS")
	if err != nil {
		s.Unavailable, s.Detail = unavailableReason(err)
		return s
	}
	if len(rows.Rows) == 1 && len(rows.Rows[0]) == 1 {
		s.Brand = rows.Rows[0][0].String
	}
	b, ok := ParseBuild(s.Brand)
	if !ok {
		s.Unavailable, s.Detail = ReasonNotDoris, "the server at DORIS_HOST does not report a Doris version in @@version_comment"
		return s
	}
	s.Master = b.Version
	if b.Cloud {
		s.Mode = "cloud"
	}
	if fe, err := r.InternalText(ctx, rt, "SHOW FRONTENDS", 256, "DORIS"); err == nil {
		s.FEVisible = true
		s.Frontends = nodes(fe, "fe")
		for _, n := range s.Frontends {
			if n.Master && n.Version != "" {
				if v, err := ParseVersion(n.Version); err == nil {
					s.Master = v
				}
			}
		}
	}
	if be, err := r.InternalText(ctx, rt, "SHOW BACKENDS", 1024, "DORIS"); err == nil {
		s.BEVisible = true
		s.Backends = nodes(be, "be")
		for _, row := range be.Rows {
			if tag := be.Get(row, "Tag"); strings.Contains(tag, "compute_group") || strings.Contains(tag, "cloud_cluster") {
				s.Mode = "cloud"
			}
		}
	}
	versions := map[string]bool{}
	for _, n := range append(append([]Node{}, s.Frontends...), s.Backends...) {
		if n.Alive && n.Version != "" {
			versions[n.Version] = true
		}
	}
	s.Mixed = len(versions) > 1
	return s
}

// nodes reads SHOW FRONTENDS / SHOW BACKENDS rows by column name.
func nodes(t *TextRows, role string) []Node {
	var out []Node
	for _, row := range t.Rows {
		host := t.Get(row, "Host")
		if host == "" {
			host = t.Get(row, "IP")
		}
		n := Node{Role: role, Host: host, Alive: strings.EqualFold(t.Get(row, "Alive"), "true"),
			Master: strings.EqualFold(t.Get(row, "IsMaster"), "true")}
		if b, ok := ParseBuild(t.Get(row, "Version")); ok {
			n.Version = b.Version.String()
		}
		out = append(out, n)
	}
	return out
}

// providers reports which optional providers the configuration enables.
func (r *Runtime) providers() map[string]bool {
	return map[string]bool{
		"fe_http":    r.http.feBase != "",
		"be_http":    len(r.http.beBases) > 0,
		"ossie":      r.semantic.ossie != nil,
		"metricflow": r.semantic.mf != nil,
		"adbc":       r.FlightEnabled(),
	}
}

// TextRows is a small, fully read result of text values, for metadata and
// probes.
type TextRows struct {
	Cols      []string
	Rows      [][]sql.NullString
	Truncated bool
}

// Get returns the named column of row ("" for NULL or a missing column).
func (t *TextRows) Get(row []sql.NullString, name string) string {
	for i, c := range t.Cols {
		if strings.EqualFold(c, name) {
			return row[i].String
		}
	}
	return ""
}

func (t *TextRows) Has(name string) bool {
	for _, c := range t.Cols {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// maxTextBytes bounds the total size of a textRows result.
const maxTextBytes = 4 << 20

// drainRows and drainBytes bound how much of a result beyond a metadata
// read's limit is read and dropped to reach its end. A little more than
// the limit is cheaper to read than to kill (a side connection, and the
// pooled connection discarded); more than this is killed.
const (
	drainRows  = 1024
	drainBytes = 256 << 10
)

// Text runs a metadata statement of a child and reads at most maxRows
// rows of text (and at most maxTextBytes); truncated reports that more
// were there.
func (r *Runtime) Text(ctx context.Context, rt *Route, sqlText string, maxRows int, prefix string) (*TextRows, error) {
	out := &TextRows{}
	err := r.TextInto(ctx, rt, Stmt{SQL: sqlText, Prefix: prefix, Timeout: DeadlineOr(ctx, r.cfg.QueryTimeout)}, maxRows, out)
	return out, err
}

// InternalText is text for the server's own capability evidence, which
// takes no MAX_CONCURRENT_QUERIES slot.
func (r *Runtime) InternalText(ctx context.Context, rt *Route, sqlText string, maxRows int, prefix string) (*TextRows, error) {
	out := &TextRows{}
	err := r.TextInto(ctx, rt, Stmt{SQL: sqlText, Prefix: prefix, Timeout: DeadlineOr(ctx, r.cfg.QueryTimeout),
		internal: true}, maxRows, out)
	return out, err
}

// TextInto reads up to maxRows rows (maxTextBytes in all) into out. Rows
// past the limit are read and dropped, up to drainRows/drainBytes, so
// that a result slightly over the limit ends normally and keeps its
// connection; a larger one is stopped (killed). Either way out.truncated
// tells that rows were left out.
func (r *Runtime) TextInto(ctx context.Context, rt *Route, s Stmt, maxRows int, out *TextRows) error {
	total, extraRows, extraBytes := 0, 0, 0
	return r.Run(ctx, rt, s, func(cols []Column, row []sql.RawBytes) (bool, error) {
		if out.Cols == nil {
			out.Cols = make([]string, len(cols))
			for i, c := range cols {
				out.Cols[i] = c.Name
			}
		}
		size := 0
		for _, v := range row {
			size += len(v)
		}
		if out.Truncated || len(out.Rows) >= maxRows || total+size > maxTextBytes {
			out.Truncated = true
			extraRows++
			extraBytes += size
			return extraRows > drainRows || extraBytes > drainBytes, nil
		}
		vals := make([]sql.NullString, len(row))
		for i, v := range row {
			if v != nil {
				vals[i] = sql.NullString{String: string(v), Valid: true}
			}
		}
		total += size
		out.Rows = append(out.Rows, vals)
		return false, nil
	})
}

// DeadlineOr is the time left before ctx's deadline, or d.
func DeadlineOr(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < d {
			return max(left, time.Second)
		}
	}
	return d
}
