package pipeline

import (
	"context"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Probes are the capability probes of this domain's children.
var Probes = map[string]doris.Probe{
	"pipeline.show_load":        {SQL: "SHOW LOAD LIMIT 1"},
	"pipeline.show_stream_load": {SQL: "SHOW STREAM LOAD LIMIT 1"},
	"pipeline.routine_load":     {SQL: "SHOW ALL ROUTINE LOAD"},
	"pipeline.insert_jobs":      {SQL: `SELECT * FROM jobs("type"="insert") LIMIT 1`},
	"pipeline.mv_jobs":          {SQL: `SELECT * FROM jobs("type"="mv") LIMIT 1`},
	"pipeline.mv_tasks":         {SQL: `SELECT * FROM tasks("type"="mv") LIMIT 1`},
	"pipeline.audit_log":        {SQL: "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1"},
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
func (r kit) sectionTimeout() time.Duration {
	return min(pipelineSectionTimeout, r.Settings().QueryTimeout)
}

// resolveDatabase returns database, checked, or the session database
// (SELECT DATABASE()) when it is empty.
func (r kit) resolveDatabase(ctx context.Context, rt *doris.Route, database string) (string, error) {
	if database != "" {
		if e := doris.CheckIdent(pipelinePrefix, "database", database); e != nil {
			return "", e
		}
		return database, nil
	}
	t, err := r.Text(ctx, rt, "SELECT DATABASE()", 1, pipelinePrefix)
	if err != nil {
		return "", doris.Classify(pipelinePrefix, err, ctx)
	}
	if len(t.Rows) == 1 && t.Rows[0][0].Valid && t.Rows[0][0].String != "" &&
		doris.CheckIdent(pipelinePrefix, "database", t.Rows[0][0].String) == nil {
		return t.Rows[0][0].String, nil
	}
	return "", doris.ArgError(pipelinePrefix, "DATABASE_REQUIRED", "no database was given and the session has none; pass database")
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
func textOrNil(t *doris.TextRows, row []doris.NullString, col string) any {
	v := doris.Nullable(t, row, col)
	if s, ok := v.(string); ok && (s == "" || s == "N/A" || s == "\\N") {
		return nil
	}
	return v
}

// sourceEvidence describes one evidence source of a pipeline answer.
func sourceEvidence(source string, sec doris.Section, rows int) map[string]any {
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
	var first *doris.Error
	same := true
	for _, err := range errs {
		de := doris.Classify(pipelinePrefix, err, nil)
		if first == nil {
			first = de
		} else if de.Reason != first.Reason {
			same = false
		}
	}
	if first != nil && same {
		return first
	}
	return &doris.Error{Kind: doris.KindFailed, Reason: evidenceReason, Status: 503, Retryable: true, Message: msg}
}
