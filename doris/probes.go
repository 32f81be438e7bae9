package doris

import (
	"context"
	"encoding/json"
	"errors"
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
	"cluster.be_metrics": func(r *Runtime, ctx context.Context, rt *route) error {
		if len(r.http.beBases) == 0 {
			return errNotConfigured
		}
		_, err := r.http.get(ctx, r.http.beBases[0], "/metrics", "", "")
		return err
	},
}

var errNotConfigured = errors.New("doris: provider not configured")

// probeNotBuilt are probes of children whose provider this build does not
// include (a resource-history store, a lineage store) or whose evidence it
// does not read yet: their outcome is NOT_CONFIGURED, never a guess.
var probeNotBuilt = map[string]bool{
	"cluster.history_buckets":  true,
	"governance.lineage_store": true,
}

// probeSQLFuncs are probes of more than one SQL statement, classified like
// the single-statement ones.
var probeSQLFuncs = searchProbeFuncs

// probe runs one probe and classifies its outcome. retry is zero when the
// outcome holds for the whole capability generation, else how long it
// may be trusted: a probe that failed because Doris or its web server
// could not be reached, or that timed out, is run again later.
func (r *Runtime) probe(ctx context.Context, rt *route, id string) (outcome string, retry time.Duration) {
	if probeNotBuilt[id] {
		return ProbeNotConfigured, 0
	}
	if f, ok := probeHTTP[id]; ok {
		err := f(r, ctx, rt)
		var se *httpStatusError
		switch {
		case err == nil:
			return ProbeOK, 0
		case errors.Is(err, errNotConfigured):
			return ProbeNotConfigured, 0
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return ProbeTimeout, timeoutRetry
		case errors.As(err, &se) && (se.Status == 401 || se.Status == 403):
			return ProbePermissionDenied, 0
		case errors.As(err, &se) && se.Status == 404:
			return ProbeNotSupported, 0
		case errors.As(err, &se) || errors.Is(err, errTooLarge):
			return ProbeFailed, 0
		}
		return ProbeFailed, failedRetry // the web server could not be reached
	}
	var err error
	if f, ok := probeSQLFuncs[id]; ok {
		err = f(r, ctx, rt)
	} else if q, ok := probeSQL[id]; ok {
		_, err = r.internalText(ctx, rt, q, 64, "PROBE")
	} else {
		return ProbeUnknown, 0
	}
	if err == nil {
		return ProbeOK, 0
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ProbeTimeout, timeoutRetry
	}
	var de *Error
	if errors.As(err, &de) {
		switch de.Reason {
		case "PROBE_PERMISSION_DENIED":
			return ProbePermissionDenied, 0
		case "PROBE_OBJECT_NOT_FOUND", "PROBE_SYNTAX_ERROR", "PROBE_NOT_SUPPORTED":
			return ProbeNotSupported, 0
		case "PROBE_TIMEOUT":
			return ProbeTimeout, timeoutRetry
		case "PROBE_BACKEND_UNAVAILABLE", "PROBE_CANCELLED", "PROBE_CONCURRENCY_LIMITED":
			return ProbeFailed, failedRetry
		}
	}
	return ProbeFailed, 0
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
