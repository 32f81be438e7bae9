package doris

import (
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// What the runtime tells the server's metrics (GET /metrics). Everything
// here is read when the metrics are scraped, never on a call's path, and
// carries no user name, credential or SQL: pools are labelled by the kind
// of route, never by an identity.

// Route labels of pool statistics.
const (
	// RouteDefault is the global service account's pool.
	RouteDefault = "default"
	// RouteOwnAccount is every pool of an identity's own Doris account,
	// summed: there may be up to 1024 of them, named after people.
	RouteOwnAccount = "own_account"
)

// PoolStats are the connection pool statistics of one kind of route.
type PoolStats struct {
	Route        string // RouteDefault or RouteOwnAccount
	Pools        int    // pools of this kind open now
	MaxOpen      int    // the connection ceiling, summed over the pools
	Open, InUse  int    // connections open, and of those in use
	Idle         int
	WaitCount    int64         // connections waited for, since the pools opened
	WaitDuration time.Duration // total time waited for them
}

// PoolStats returns the pool statistics of both kinds of route, default
// first. Pools closed since (an idle own-account pool) no longer count,
// so the own-account wait totals may go down; the default's never do.
func (r *Runtime) PoolStats() []PoolStats {
	out := []PoolStats{{Route: RouteDefault}, {Route: RouteOwnAccount}}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rt := range r.routes {
		p := &out[0]
		if rt.own {
			p = &out[1]
		}
		s := rt.db.Stats()
		p.Pools++
		p.MaxOpen += s.MaxOpenConnections
		p.Open += s.OpenConnections
		p.InUse += s.InUse
		p.Idle += s.Idle
		p.WaitCount += s.WaitCount
		p.WaitDuration += s.WaitDuration
	}
	return out
}

// QuerySlots returns the MAX_CONCURRENT_QUERIES slots in use and their
// number.
func (r *Runtime) QuerySlots() (inUse, capacity int) {
	return len(r.sem), cap(r.sem)
}

// ProbeStat is one capability probe's current outcome on the default
// route.
type ProbeStat struct {
	Probe, Outcome string
	Age            time.Duration // since the outcome was taken
}

// CapabilityStats returns the age of the default route's capability
// evidence (ok=false before any was taken) and the outcome and age of
// every probe run in its generation, sorted by probe.
func (r *Runtime) CapabilityStats() (age time.Duration, ok bool, probes []ProbeStat) {
	r.caps.mu.Lock()
	e := r.caps.entries["global"]
	r.caps.mu.Unlock()
	if e == nil {
		return 0, false, nil
	}
	now := r.now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gen == nil {
		return 0, false, nil
	}
	for _, id := range slices.Sorted(maps.Keys(e.gen.probes)) {
		o := e.gen.probes[id]
		probes = append(probes, ProbeStat{Probe: id, Outcome: o.value, Age: now.Sub(o.at)})
	}
	return now.Sub(e.gen.snap.TakenAt), true, probes
}

// ProbeNames returns every capability probe this runtime knows, sorted:
// the bounded label set of probe metrics.
func (r *Runtime) ProbeNames() []string {
	ids := map[string]bool{}
	for id := range r.probes {
		ids[id] = true
	}
	for id := range probeHTTP {
		ids[id] = true
	}
	for id := range probeProvider {
		ids[id] = true
	}
	return slices.Sorted(maps.Keys(ids))
}

// ProbeOutcomes returns the probe outcomes a metric may name; any other
// (a provider's own reason code) is reported as "other".
func ProbeOutcomes() []string {
	return []string{ProbeOK, ProbeFailed, ProbePermissionDenied, ProbeNotSupported, ProbeTimeout, ProbeNotConfigured, ProbeUnknown}
}

// ResultRows returns the rows a child result carries: a query's rows or a
// collection's items (0 for other families).
func ResultRows(res *Result) int {
	if res == nil {
		return 0
	}
	switch d := res.Data.(type) {
	case *queryData:
		return d.RowCount
	case Collection:
		return len(d.Items)
	case *Collection:
		return len(d.Items)
	}
	return 0
}

// GuardReason returns the read-only guard's reason code when err is a
// guard refusal (of the caller's SQL, or at the connection boundary),
// else "".
func GuardReason(err error) string {
	var ge *guard.Error
	if errors.As(err, &ge) {
		return ge.Reason
	}
	if errors.Is(err, ErrNotReadOnly) {
		return "CONNECTION_BOUNDARY"
	}
	return ""
}

// GuardReasons returns every reason GuardReason may return: the bounded
// label set of guard refusal metrics.
func GuardReasons() []string {
	return []string{guard.ReasonTooLong, guard.ReasonInvalidUTF8, guard.ReasonNulByte, guard.ReasonEmptyStatement,
		guard.ReasonUnclosedComment, guard.ReasonUnclosedString, guard.ReasonUnclosedIdentifier,
		guard.ReasonUnrecognisedCharacter, guard.ReasonUnopenedComment, guard.ReasonExecutableComment,
		guard.ReasonClientHint, guard.ReasonNestedComment, guard.ReasonCommentContinuation,
		guard.ReasonAmbiguousLetter, guard.ReasonAmbiguousEscape, guard.ReasonAmbiguousNumber,
		guard.ReasonAmbiguousQuote, guard.ReasonMultipleStatements, guard.ReasonWriteStatement,
		guard.ReasonNotAllowed, guard.ReasonExplainTarget, guard.ReasonMalformedWith,
		guard.ReasonSideEffectFunction, guard.ReasonIntoOutfile, guard.ReasonLockingRead, guard.ReasonAssignment,
		guard.ReasonPositionalParameter, guard.ReasonInvalidParameterName, guard.ReasonUnknownParameter,
		guard.ReasonMissingParameter, guard.ReasonInvalidParameterValue,
		guard.ReasonUnknownHint, guard.ReasonEgressFunction, guard.ReasonExternalLocation, "CONNECTION_BOUNDARY"}
}
