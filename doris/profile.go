package doris

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// MaxPlanRows bounds EXPLAIN output.
const MaxPlanRows = 10000

// ProfileText fetches the FE profile text of a query id, capped at
// MAX_RESPONSE_CONTENT_SIZE characters.
func (r *Runtime) ProfileText(ctx context.Context, rt *Route, queryID string) (string, bool, error) {
	data, err := r.FEGet(ctx, rt, "/rest/v2/manager/query/profile/text/"+queryID)
	if err != nil {
		return "", false, profileError(err)
	}
	var p struct {
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return "", false, &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_INVALID_RESPONSE", Status: 502,
			Message: "the FE returned a profile in an unexpected shape", Cause: err}
	}
	text, cut := CapChars(p.Profile, r.cfg.MaxResponseContentSize)
	return text, cut, nil
}

func profileError(err error) error {
	var se *HTTPStatusError
	if errors.As(err, &se) {
		switch se.Status {
		case 401:
			return &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_PERMISSION_DENIED", Status: 403,
				Message: "the FE refused the profile request for this account", Cause: err}
		case 403, 404:
			return &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_NOT_FOUND", Status: 404,
				Message: "no profile is recorded for this query (profiling may have been off, or it expired)", Cause: err}
		}
	}
	return &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_BACKEND_UNAVAILABLE", Status: 503, Retryable: true,
		Message: "the FE profile API could not be reached", Cause: err}
}

// RunProfiled runs one read-only statement with profiling on, under a
// fresh trace id, and returns the Doris query id the FE recorded for it.
// Its rows are read and dropped; the connection is discarded afterwards.
func (r *Runtime) RunProfiled(ctx context.Context, rt *Route, sqlText string) (queryID, traceID string, err error) {
	st, err := r.CheckSQL(sqlText, nil)
	if err != nil {
		return "", "", err
	}
	text := st.SQL
	traceID = sessionTraceID(ctx) // the call's own trace id (trace.go)
	err = r.Run(ctx, rt, Stmt{SQL: text, Prefix: QueryPrefix, Timeout: min(DefaultCallTimeout, r.cfg.QueryTimeout),
		setup: []string{`SET session_context = "trace_id:` + traceID + `"`, "SET enable_profile = true"}},
		func([]Column, []sql.RawBytes) (bool, error) { return false, nil })
	if err != nil {
		return "", "", err
	}
	data, err := r.FEGet(ctx, rt, "/rest/v2/manager/query/trace_id/"+traceID)
	if err != nil {
		return "", "", profileError(err)
	}
	if err := json.Unmarshal(data, &queryID); err != nil || queryID == "" {
		return "", "", &Error{Kind: KindFailed, Reason: "QUERY_PROFILE_NOT_FOUND", Status: 404,
			Message: "the FE did not record a query id for the profiled statement"}
	}
	return queryID, traceID, nil
}
