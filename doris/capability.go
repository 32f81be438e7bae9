package doris

import (
	"context"
	"database/sql"
	"maps"
	"strings"
	"sync"
	"time"
)

// capabilities caches capability evidence per route. The base evidence
// (version, nodes, mode) has a TTL and a stale grace; probes run lazily,
// the first time a domain that needs them is discovered in a generation.
// Concurrent requests for the same evidence share one run.
type capabilities struct {
	r *Runtime

	mu      sync.Mutex // protects entries
	entries map[string]*capEntry
}

type capEntry struct {
	mu sync.Mutex // protects the fields below and serialises refreshes

	base      *Snapshot         // nil until the first success
	probes    map[string]string // probe id -> outcome, for base's generation
	failure   *Snapshot         // the last failed attempt, served until retryAt
	retryAt   time.Time
	probeRuns map[string]*flight // in-flight probes
}

// flight is one in-flight run that later callers wait for.
type flight struct {
	done    chan struct{}
	outcome string
}

// failedRetry is how long an unreachable Doris is not asked again: long
// enough to keep a burst of discoveries from each waiting out a connect
// timeout, short enough to notice recovery promptly.
const failedRetry = 2 * time.Second

func newCapabilities(r *Runtime) *capabilities {
	return &capabilities{r: r, entries: map[string]*capEntry{}}
}

func (c *capabilities) entry(key string) *capEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		e = &capEntry{probes: map[string]string{}, probeRuns: map[string]*flight{}}
		c.entries[key] = e
	}
	return e
}

func (c *capabilities) invalidate(key string) {
	c.mu.Lock()
	delete(c.entries, key)
	c.mu.Unlock()
}

// snapshot returns a coherent snapshot for rt with at least probes run.
func (c *capabilities) snapshot(ctx context.Context, rt *route, probes []string) *Snapshot {
	e := c.entry(rt.key)
	base := c.base(ctx, rt, e)
	if base.Unavailable != "" {
		return base
	}
	c.runProbes(ctx, rt, e, base, probes)
	e.mu.Lock()
	defer e.mu.Unlock()
	s := *base
	s.Probes = maps.Clone(e.probes)
	if e.base != base {
		// The base refreshed while probes ran; these outcomes belong to the
		// older generation, which this snapshot still describes.
		for _, p := range probes {
			if _, ok := s.Probes[p]; !ok {
				s.Probes[p] = ProbeUnknown
			}
		}
	}
	return &s
}

// base returns the current base evidence, refreshing it when its TTL has
// passed. The entry's mutex makes concurrent refreshes share one run.
func (c *capabilities) base(ctx context.Context, rt *route, e *capEntry) *Snapshot {
	now := c.r.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.base != nil && now.Sub(e.base.TakenAt) < c.r.cfg.CapabilityTTL {
		return e.base
	}
	if e.failure != nil && now.Before(e.retryAt) {
		if e.base != nil && now.Sub(e.base.TakenAt) < c.r.cfg.CapabilityTTL+c.r.cfg.StaleGrace {
			return staleOf(e.base)
		}
		return e.failure
	}
	fresh := c.r.takeBase(ctx, rt)
	if fresh.Unavailable == "" {
		// Probe outcomes are evidence too: they are taken again, lazily,
		// with every refresh of the base.
		e.base, e.failure, e.probes = fresh, nil, map[string]string{}
		return fresh
	}
	e.failure, e.retryAt = fresh, now.Add(failedRetry)
	if e.base != nil && now.Sub(e.base.TakenAt) < c.r.cfg.CapabilityTTL+c.r.cfg.StaleGrace {
		return staleOf(e.base)
	}
	return fresh
}

func staleOf(s *Snapshot) *Snapshot {
	c := *s
	c.Stale = true
	return &c
}

// runProbes runs the probes base does not have outcomes for yet. Each
// probe runs once per generation however many callers ask.
func (c *capabilities) runProbes(ctx context.Context, rt *route, e *capEntry, base *Snapshot, probes []string) {
	var wait []*flight
	e.mu.Lock()
	for _, p := range probes {
		if _, done := e.probes[p]; done {
			continue
		}
		if f, running := e.probeRuns[p]; running {
			wait = append(wait, f)
			continue
		}
		f := &flight{done: make(chan struct{})}
		e.probeRuns[p] = f
		wait = append(wait, f)
		go func(id string) {
			pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.r.cfg.ProbeTimeout)
			defer cancel()
			f.outcome = c.r.probe(pctx, rt, id)
			e.mu.Lock()
			if e.base == base {
				e.probes[id] = f.outcome
			}
			delete(e.probeRuns, id)
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
func (r *Runtime) takeBase(ctx context.Context, rt *route) *Snapshot {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.ProbeTimeout)
	defer cancel()
	s := &Snapshot{Route: rt.key, TakenAt: r.now(), Mode: "integrated", Providers: r.providers()}
	rows, err := r.text(ctx, rt, "SELECT @@version_comment", 1, "DORIS")
	if err != nil {
		s.Unavailable, s.Detail = unavailableReason(err)
		return s
	}
	if len(rows.rows) == 1 && len(rows.rows[0]) == 1 {
		s.Brand = rows.rows[0][0].String
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
	if fe, err := r.text(ctx, rt, "SHOW FRONTENDS", 256, "DORIS"); err == nil {
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
	if be, err := r.text(ctx, rt, "SHOW BACKENDS", 1024, "DORIS"); err == nil {
		s.BEVisible = true
		s.Backends = nodes(be, "be")
		for _, row := range be.rows {
			if tag := be.get(row, "Tag"); strings.Contains(tag, "compute_group") || strings.Contains(tag, "cloud_cluster") {
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
func nodes(t *textRows, role string) []Node {
	var out []Node
	for _, row := range t.rows {
		host := t.get(row, "Host")
		if host == "" {
			host = t.get(row, "IP")
		}
		n := Node{Role: role, Host: host, Alive: strings.EqualFold(t.get(row, "Alive"), "true"),
			Master: strings.EqualFold(t.get(row, "IsMaster"), "true")}
		if b, ok := ParseBuild(t.get(row, "Version")); ok {
			n.Version = b.Version.String()
		}
		out = append(out, n)
	}
	return out
}

// providers reports which optional providers the configuration enables.
func (r *Runtime) providers() map[string]bool {
	return map[string]bool{
		"fe_http": r.http.feBase != "",
		"be_http": len(r.http.beBases) > 0,
	}
}

// unavailableReason sanitises why the base evidence could not be taken.
func unavailableReason(err error) (reason, detail string) {
	e := classify("DORIS", err, nil)
	switch e.Reason {
	case "DORIS_AUTHENTICATION_FAILED":
		return ReasonAuthenticationFailed, "Doris refused the configured account (DORIS_USER / DORIS_PASSWORD)"
	case "DORIS_BACKEND_UNAVAILABLE":
		return ReasonConnectionFailed, "Doris is not reachable at the configured FE address"
	case "DORIS_PERMISSION_DENIED":
		return ReasonSnapshotUnavailable, "the Doris account may not read its server version"
	case "DORIS_OBJECT_NOT_FOUND":
		return ReasonSnapshotUnavailable, "the configured DORIS_DATABASE does not exist or is not visible"
	}
	return ReasonSnapshotUnavailable, "Doris did not answer the capability checks"
}

// textRows is a small, fully read result of text values, for metadata and
// probes.
type textRows struct {
	cols      []string
	rows      [][]sql.NullString
	truncated bool
}

// get returns the named column of row ("" for NULL or a missing column).
func (t *textRows) get(row []sql.NullString, name string) string {
	for i, c := range t.cols {
		if strings.EqualFold(c, name) {
			return row[i].String
		}
	}
	return ""
}

func (t *textRows) has(name string) bool {
	for _, c := range t.cols {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// maxTextBytes bounds the total size of a textRows result.
const maxTextBytes = 4 << 20

// text runs a metadata statement and reads at most maxRows rows of text
// (and at most maxTextBytes); truncated reports that more were there.
func (r *Runtime) text(ctx context.Context, rt *route, sqlText string, maxRows int, prefix string) (*textRows, error) {
	out := &textRows{}
	err := r.textInto(ctx, rt, stmt{sql: sqlText, prefix: prefix, timeout: deadlineOr(ctx, r.cfg.QueryTimeout)}, maxRows, out)
	return out, err
}

func (r *Runtime) textInto(ctx context.Context, rt *route, s stmt, maxRows int, out *textRows) error {
	total := 0
	err := r.run(ctx, rt, s,
		func(cols []column, row []sql.RawBytes) (bool, error) {
			if out.cols == nil {
				out.cols = make([]string, len(cols))
				for i, c := range cols {
					out.cols[i] = c.Name
				}
			}
			vals := make([]sql.NullString, len(row))
			for i, v := range row {
				if v != nil {
					vals[i] = sql.NullString{String: string(v), Valid: true}
					total += len(v)
				}
			}
			out.rows = append(out.rows, vals)
			// Read one row past the limit to learn that there is more.
			return len(out.rows) > maxRows || total > maxTextBytes, nil
		})
	if len(out.rows) > maxRows || total > maxTextBytes {
		out.truncated = true
		out.rows = out.rows[:min(len(out.rows), maxRows)]
	}
	return err
}

// deadlineOr is the time left before ctx's deadline, or d.
func deadlineOr(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < d {
			return max(left, time.Second)
		}
	}
	return d
}
