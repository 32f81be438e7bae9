package doris

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// probeSQL are the capability probes that are one bounded read. Each is
// run at most once per capability generation and read to at most 64 rows.
var probeSQL = map[string]string{
	"catalog.show_catalogs":                 "SHOW CATALOGS",
	"catalog.show_databases":                "SHOW DATABASES",
	"catalog.information_schema_tables":     "SELECT 1 AS capability_probe FROM information_schema.tables LIMIT 1",
	"catalog.information_schema_columns":    "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.columns LIMIT 1",
	"catalog.information_schema_partitions": "SELECT PARTITION_NAME, TABLE_ROWS, DATA_LENGTH FROM information_schema.partitions LIMIT 1",
	"query.explain":                         "EXPLAIN SELECT 1",
	"query.audit_log":                       "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1",
	"cluster.current_queries":               `SHOW PROC "/current_queries"`,
	"cluster.active_queries":                "SELECT * FROM information_schema.active_queries LIMIT 1",
	"cluster.processlist":                   "SHOW FULL PROCESSLIST",
	"cluster.file_cache_statistics":         "SELECT * FROM information_schema.file_cache_statistics LIMIT 1",
	"cluster.compaction_tasks":              "SELECT * FROM information_schema.be_compaction_tasks LIMIT 1",
	"cluster.workload_groups":               "SHOW WORKLOAD GROUPS",
	"cluster.compute_groups":                "SHOW COMPUTE GROUPS",
	"pipeline.show_load":                    "SHOW LOAD LIMIT 1",
	"pipeline.show_stream_load":             "SHOW STREAM LOAD LIMIT 1",
	"pipeline.routine_load":                 "SHOW ALL ROUTINE LOAD",
	"pipeline.insert_jobs":                  `SELECT * FROM jobs("type"="insert") LIMIT 1`,
	"pipeline.mv_jobs":                      `SELECT * FROM jobs("type"="mv") LIMIT 1`,
	"pipeline.mv_tasks":                     `SELECT * FROM tasks("type"="mv") LIMIT 1`,
	"pipeline.audit_log":                    "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1",
	"search.show_index":                     "SHOW INDEX FROM information_schema.tables",
	"search.tokenize":                       `SELECT TOKENIZE('Doris search', '"parser"="english"')`,
	"search.vector_functions":               "SELECT l2_distance_approximate([0.0], [0.0])",
	"search.explain":                        "EXPLAIN SELECT 1",
	"governance.information_schema":         "SELECT COLUMN_NAME FROM information_schema.columns LIMIT 1",
	"governance.audit_log":                  "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1",
	"governance.global_functions":           "SHOW GLOBAL FULL FUNCTIONS",
	"governance.ldap_config":                "SHOW FRONTEND CONFIG LIKE 'ldap_authentication_enabled'",
	"governance.lineage_plugin":             "SHOW FRONTEND CONFIG LIKE 'activate_lineage_plugin'",
	"governance.role_mappings":              "SELECT * FROM information_schema.role_mappings LIMIT 1",
	"lakehouse.show_catalogs":               "SHOW CATALOGS",
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
	"search.match_explain":     true,
}

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
	q, ok := probeSQL[id]
	if !ok {
		return ProbeUnknown, 0
	}
	_, err := r.internalText(ctx, rt, q, 64, "PROBE")
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
