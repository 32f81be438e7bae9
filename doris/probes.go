package doris

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Probe is one capability probe, declared by its domain beside the
// handlers of the children that need it (Options.Probes). A probe is
// either SQL, one bounded read (at most 64 rows) that passes when Doris
// runs it, or Run, which judges what Doris answers and returns the
// outcome (ProbeOK, ProbeNotSupported, ...; ProbeOutcome classifies an
// error) and how long it may be trusted (zero: the whole generation).
type Probe struct {
	SQL string
	Run func(ctx context.Context, r *Runtime, rt *Route) (outcome string, retry time.Duration)
}

// probeHTTP are the probes that need the FE or BE web servers.
var probeHTTP = map[string]func(r *Runtime, ctx context.Context, rt *Route) error{
	"query.profile_api": (*Runtime).probeProfileAPI,
	"cluster.fe_metrics": func(r *Runtime, ctx context.Context, rt *Route) error {
		_, err := r.http.get(ctx, r.http.feBase, "/metrics", rt.user, rt.password)
		return err
	},
	"cluster.be_metrics": (*Runtime).probeBEMetrics,
	"query.adbc_flight":  (*Runtime).probeFlight, // flight.go
}

// probeBEMetrics succeeds when any configured BE serves /metrics: one
// dead backend does not make the BE children unavailable.
func (r *Runtime) probeBEMetrics(ctx context.Context, _ *Route) error {
	if len(r.http.beBases) == 0 {
		return errNotConfigured
	}
	errs := make(chan error, len(r.http.beBases))
	for _, base := range r.http.beBases {
		go func() {
			_, err := r.http.get(ctx, base, "/metrics", "", "")
			errs <- err
		}()
	}
	var first error
	for range r.http.beBases {
		err := <-errs
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

var errNotConfigured = errors.New("doris: provider not configured")

// probeProvider are the probes of providers that are not Doris (the
// MetricFlow sidecar). Their outcome is ProbeOK, ProbeNotConfigured, or a
// reason code of their own that ProbeReason passes on.
var probeProvider = map[string]func(r *Runtime, ctx context.Context) (string, time.Duration){
	"semantic.metricflow": (*Runtime).probeMetricFlow,
}

// ProbeReason returns the availability reason of a probe outcome that is
// itself a reason code (a failing MetricFlow provider), or "".
func ProbeReason(outcome string) string {
	if strings.HasPrefix(outcome, "METRICFLOW_") {
		return outcome
	}
	return ""
}

// probe runs one probe and classifies its outcome. retry is zero when the
// outcome holds for the whole capability generation, else how long it
// may be trusted: a probe that failed because Doris or its web server
// could not be reached, or that timed out, is run again later.
func (r *Runtime) probe(ctx context.Context, rt *Route, id string) (outcome string, retry time.Duration) {
	if f, ok := probeProvider[id]; ok {
		return f(r, ctx)
	}
	if f, ok := probeHTTP[id]; ok {
		return r.ProbeOutcome(ctx, f(r, ctx, rt))
	}
	pr, ok := r.probes[id]
	switch {
	case !ok:
		return ProbeUnknown, 0
	case pr.Run != nil:
		outcome, retry = pr.Run(ctx, r, rt)
	default:
		_, err := r.InternalText(ctx, rt, pr.SQL, 64, "PROBE")
		outcome, retry = r.ProbeOutcome(ctx, err)
	}
	if outcome != ProbeOK {
		r.log.Debug("capability probe failed", "probe", id, "outcome", outcome)
	}
	return outcome, retry
}

// ProbeOutcome classifies a probe's error: nil passes, a provider that
// is not configured is ProbeNotConfigured, and a failed read goes
// through the one failure mapping (classify).
func (r *Runtime) ProbeOutcome(ctx context.Context, err error) (outcome string, retry time.Duration) {
	switch {
	case err == nil:
		return ProbeOK, 0
	case errors.Is(err, errNotConfigured):
		return ProbeNotConfigured, 0
	}
	return r.ProbeFailure(ctx, err)
}

// ProbeFailure classifies a probe's failed read, through the one failure
// mapping (classify).
func (r *Runtime) ProbeFailure(ctx context.Context, err error) (outcome string, retry time.Duration) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ProbeTimeout, timeoutRetry
	}
	return failedProbe(Classify("PROBE", err, ctx))
}

// probeProfileAPI checks that the FE profile API answers for this route:
// an unknown trace id must come back as a REST envelope, not a transport
// failure or an authentication error.
func (r *Runtime) probeProfileAPI(ctx context.Context, rt *Route) error {
	if r.http.feBase == "" {
		return errNotConfigured
	}
	body, err := r.http.get(ctx, r.http.feBase, "/rest/v2/manager/query/trace_id/mcp-capability-probe", rt.user, rt.password)
	if err != nil {
		return err
	}
	var env feEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return err
	}
	if env.Code == 401 || env.Code == 403 && env.Msg == "Unauthorized" {
		return &HTTPStatusError{Status: 401}
	}
	return nil
}
