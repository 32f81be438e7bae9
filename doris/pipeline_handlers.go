package doris

import (
	"context"
	"strings"
	"time"
)

// pipelineHandlers binds the children of doris_pipeline that this build runs.
func (r *Runtime) pipelineHandlers() map[string]Handler {
	return map[string]Handler{
		"doris_pipeline.get_ingestion_status":         r.getIngestionStatus,
		"doris_pipeline.diagnose_ingestion":           r.diagnoseIngestion,
		"doris_pipeline.get_materialized_view_status": r.getMaterializedViewStatus,
		"doris_pipeline.monitor_data_freshness":       r.monitorDataFreshness,
		"doris_pipeline.analyze_data_dependencies":    r.analyzeDataDependencies,
	}
}

// pipelineProbeSQL are the SQL capability probes of doris_pipeline.
var pipelineProbeSQL = map[string]string{
	"pipeline.show_load":        "SHOW LOAD LIMIT 1",
	"pipeline.show_stream_load": "SHOW STREAM LOAD LIMIT 1",
	"pipeline.routine_load":     "SHOW ALL ROUTINE LOAD",
	"pipeline.insert_jobs":      `SELECT * FROM jobs("type"="insert") LIMIT 1`,
	"pipeline.mv_jobs":          `SELECT * FROM jobs("type"="mv") LIMIT 1`,
	"pipeline.mv_tasks":         `SELECT * FROM tasks("type"="mv") LIMIT 1`,
	"pipeline.audit_log":        "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1",
}

// Runtime caps of the pipeline domain (the reference's pipeline runtime).
const (
	pipelinePrefix        = "PIPELINE"
	pipelineMaxLimit      = 200  // jobs per answer
	pipelineMaxSourceRows = 500  // rows read from one source
	pipelineMaxPartitions = 1000 // partitions read for freshness
	pipelineMaxDepth      = 5    // dependency traversal depth
	pipelineMaxEdges      = 500  // dependency edges
	pipelineMaxStmtChars  = 2000 // statement excerpt in a diagnosis
	// pipelineSectionTimeout bounds each optional section of a diagnosis.
	pipelineSectionTimeout = 15 * time.Second
)

// sectionTimeout bounds each optional section of a composite pipeline
// child: pipelineSectionTimeout, or less under a lower QUERY_TIMEOUT.
func (r *Runtime) sectionTimeout() time.Duration {
	return min(pipelineSectionTimeout, r.cfg.QueryTimeout)
}

// resolveDatabase returns database, checked, or the session database
// (SELECT DATABASE()) when it is empty.
func (r *Runtime) resolveDatabase(ctx context.Context, rt *route, database string) (string, error) {
	if database != "" {
		if e := checkIdent(pipelinePrefix, "database", database); e != nil {
			return "", e
		}
		return database, nil
	}
	t, err := r.text(ctx, rt, "SELECT DATABASE()", 1, pipelinePrefix)
	if err != nil {
		return "", classify(pipelinePrefix, err, ctx)
	}
	if len(t.rows) == 1 && t.rows[0][0].Valid && t.rows[0][0].String != "" &&
		checkIdent(pipelinePrefix, "database", t.rows[0][0].String) == nil {
		return t.rows[0][0].String, nil
	}
	return "", argError(pipelinePrefix, "DATABASE_REQUIRED", "no database was given and the session has none; pass database")
}

// dorisTime turns a Doris datetime cell ("2006-01-02 15:04:05[.000]")
// into ISO 8601 ("2006-01-02T15:04:05[.000]"); empty, NULL and N/A are
// null, anything else is kept as it is.
func dorisTime(s string) any {
	s = strings.TrimSpace(s)
	switch s {
	case "", "NULL", "N/A", "\\N", "0000-00-00 00:00:00":
		return nil
	}
	if len(s) >= 19 && s[10] == ' ' && s[4] == '-' && s[13] == ':' {
		return s[:10] + "T" + s[11:]
	}
	return s
}

// textOrNil is a cell's text, or nil for NULL, "NULL", "N/A" and "".
func textOrNil(t *textRows, row []sqlNullString, col string) any {
	v := nullable(t, row, col)
	if s, ok := v.(string); ok && (s == "" || s == "N/A" || s == "\\N") {
		return nil
	}
	return v
}

// sourceEvidence describes one evidence source of a pipeline answer.
func sourceEvidence(source string, sec section, rows int) map[string]any {
	ev := map[string]any{"source": source, "status": sec.Status}
	if sec.Status == "unavailable" {
		ev["reason_code"] = sec.ReasonCode
	} else {
		ev["rows_observed"] = rows
	}
	return ev
}

// allFailed turns the errors of sources that all failed into the child's
// error: their common reason when they agree, else evidenceReason.
func allFailed(errs []error, evidenceReason, msg string) error {
	var first *Error
	same := true
	for _, err := range errs {
		de := classify(pipelinePrefix, err, nil)
		if first == nil {
			first = de
		} else if de.Reason != first.Reason {
			same = false
		}
	}
	if first != nil && same {
		return first
	}
	return &Error{Kind: KindFailed, Reason: evidenceReason, Status: 503, Retryable: true, Message: msg}
}
