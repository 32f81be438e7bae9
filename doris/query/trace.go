package query

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// get_query_profile by trace id: the profile of a query an MCP call sent,
// found from the call's trace id (the envelope's trace_id, the audit
// log's trace_id, or the traceparent the Host sent).
//
// Doris knows a query's trace two ways, and both are asked:
//   - the FE's trace-id API (/rest/v2/manager/query/trace_id/{id}) maps a
//     session_context trace id to the last query id run under it; the
//     server sets session_context whenever it turns profiling on, so a
//     call that profiled is found here at once;
//   - the audit log keeps every statement as it was sent, behind the
//     call's /*traceparent='00-<id>-...'*/ comment (trace.go), so any
//     call's queries are found there once Doris has loaded them (the
//     audit loader writes in batches, up to about a minute behind).
//
// The newest query of the trace that has a profile wins. Doris records a
// profile only for statements run with enable_profile (or past
// auto_profile_threshold_ms); a trace whose queries ran without is
// QUERY_PROFILE_NOT_FOUND, saying so.

// maxTraceQueries bounds the queries of one trace read from the audit log.
const maxTraceQueries = 20

// traceQueries returns the query ids of the trace, newest first, without
// duplicates: the FE's trace-id answer first, then the audit log's. An
// audit log the caller cannot read is not an error when the FE answered.
func (r kit) traceQueries(ctx context.Context, rt *doris.Route, traceID string, windowMinutes int) ([]string, error) {
	var ids []string
	if data, err := r.FEGet(ctx, rt, "/rest/v2/manager/query/trace_id/"+traceID); err == nil {
		var id string
		if json.Unmarshal(data, &id) == nil && validQueryID(id) {
			ids = append(ids, id)
		}
	}
	if len(traceID) != 32 {
		return ids, nil // a UUID trace id is only ever a session_context one
	}
	q, err := doris.Bind("SELECT query_id FROM "+doris.AuditTable+" WHERE `time` >= DATE_SUB(NOW(), INTERVAL %(window)s MINUTE)"+
		" AND stmt LIKE %(pattern)s ORDER BY `time` DESC LIMIT %(limit)s",
		map[string]any{"window": json.Number(strconv.Itoa(windowMinutes)), "pattern": "/*traceparent='00-" + traceID + "-%",
			"limit": json.Number(strconv.Itoa(maxTraceQueries))})
	if err != nil {
		return ids, err
	}
	t, err := r.Text(ctx, rt, q, maxTraceQueries, doris.QueryPrefix)
	if err != nil {
		if len(ids) > 0 {
			return ids, nil
		}
		return nil, err
	}
	for _, row := range t.Rows {
		if id := t.Get(row, "query_id"); validQueryID(id) && !doris.ContainsStr(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// profileForTrace returns the newest profiled query of the trace, its
// profile text (capped) and every query id of the trace found.
func (r kit) profileForTrace(ctx context.Context, rt *doris.Route, traceID string, windowMinutes int) (queryID, text string, cut bool, all []string, err error) {
	all, err = r.traceQueries(ctx, rt, traceID, windowMinutes)
	if err != nil {
		var de *doris.Error
		if errors.As(err, &de) && de.Kind == doris.KindTimeout {
			return "", "", false, nil, err
		}
		return "", "", false, nil, &doris.Error{Kind: doris.KindFailed, Reason: "QUERY_PROFILE_NOT_FOUND", Status: 404,
			Message: "the FE knows no query for this trace id, and the audit log could not be read to look further", Cause: err}
	}
	if len(all) == 0 {
		return "", "", false, nil, &doris.Error{Kind: doris.KindFailed, Reason: "QUERY_PROFILE_NOT_FOUND", Status: 404, Retryable: true,
			Message: "no query of this trace id was found in the window (Doris loads its audit log in batches; a call made moments ago may appear shortly)"}
	}
	for _, id := range all {
		text, cut, err = r.ProfileText(ctx, rt, id)
		if err == nil && text != "" {
			return id, text, cut, all, nil
		}
		var de *doris.Error
		if err != nil && (!errors.As(err, &de) || de.Reason != "QUERY_PROFILE_NOT_FOUND") {
			return "", "", false, nil, err
		}
	}
	return "", "", false, nil, &doris.Error{Kind: doris.KindFailed, Reason: "QUERY_PROFILE_NOT_FOUND", Status: 404,
		Message: "the trace's " + doris.Plural(len(all), "query", "queries") + " ran without a profile (Doris records one with enable_profile, or past auto_profile_threshold_ms)"}
}

// validQueryID reports a Doris query id shape (hex halves joined by a
// dash, as Doris prints them): nothing else is passed on.
func validQueryID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
