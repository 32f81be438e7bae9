package doris

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// probeSQL are the capability probes that are one bounded read. Each is
// run at most once per capability generation and read to at most 64 rows.
// Each domain declares its own beside its handlers.
var probeSQL = joinProbes(catalogProbeSQL, queryProbeSQL, clusterProbeSQL, pipelineProbeSQL,
	searchProbeSQL, governanceProbeSQL, lakehouseProbeSQL)

func joinProbes(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range sets {
		for id, q := range s {
			if _, dup := out[id]; dup {
				panic("doris: probe " + id + " declared twice")
			}
			out[id] = q
		}
	}
	return out
}

// probeHTTP are the probes that need the FE or BE web servers.
var probeHTTP = map[string]func(r *Runtime, ctx context.Context, rt *route) error{
	"query.profile_api": (*Runtime).probeProfileAPI,
	"cluster.fe_metrics": func(r *Runtime, ctx context.Context, rt *route) error {
		_, err := r.http.get(ctx, r.http.feBase, "/metrics", rt.user, rt.password)
		return err
	},
	"cluster.be_metrics": (*Runtime).probeBEMetrics,
}

// probeBEMetrics succeeds when any configured BE serves /metrics: one
// dead backend does not make the BE children unavailable.
func (r *Runtime) probeBEMetrics(ctx context.Context, _ *route) error {
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

// probeFuncs are SQL probes that judge what a read returns, not only
// that it ran; a returned error is classified as a SQL probe's is, and
// errNoHistory means NOT_SUPPORTED (nothing to build from yet).
var probeFuncs = map[string]func(r *Runtime, ctx context.Context, rt *route) error{
	"cluster.history_buckets": (*Runtime).probeHistoryBuckets,
	"search.match_explain":    (*Runtime).probeMatchExplain,
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
func (r *Runtime) probe(ctx context.Context, rt *route, id string) (outcome string, retry time.Duration) {
	if f, ok := probeProvider[id]; ok {
		return f(r, ctx)
	}
	if f, ok := governanceProbeFuncs[id]; ok {
		return f(r, ctx, rt)
	}
	var err error
	if f, ok := probeHTTP[id]; ok {
		err = f(r, ctx, rt)
	} else if f, ok := probeFuncs[id]; ok {
		if err = f(r, ctx, rt); errors.Is(err, errNoHistory) {
			return ProbeNotSupported, 0
		}
	} else if q, ok := probeSQL[id]; ok {
		_, err = r.internalText(ctx, rt, q, 64, "PROBE")
	} else {
		return ProbeUnknown, 0
	}
	switch {
	case err == nil:
		return ProbeOK, 0
	case errors.Is(err, errNotConfigured):
		return ProbeNotConfigured, 0
	}
	outcome, retry = r.probeFailure(ctx, err)
	if outcome != ProbeOK {
		r.log.Debug("capability probe failed", "probe", id, "outcome", outcome)
	}
	return outcome, retry
}

// probeFailure classifies a probe's failed read, through the one failure
// mapping (classify).
func (r *Runtime) probeFailure(ctx context.Context, err error) (outcome string, retry time.Duration) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ProbeTimeout, timeoutRetry
	}
	return failedProbe(classify("PROBE", err, ctx))
}

// probeProfileAPI checks that the FE profile API answers for this route:
// an unknown trace id must come back as a REST envelope, not a transport
// failure or an authentication error.
func (r *Runtime) probeProfileAPI(ctx context.Context, rt *route) error {
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
		return &httpStatusError{Status: 401}
	}
	return nil
}
