package query

import (
	"context"
	"encoding/json"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// ExecuteADBCQuery runs one read-only statement over Arrow Flight SQL.
// The statement passes the same guard as execute_query before anything
// is sent, and its rows come back in execute_query's shape: the same
// columns, values, budgets, warnings, masking and error codes.
//
// result_format says how the rows are presented over MCP: "arrow" adds
// each column's Arrow type (arrow_type) beside its type; "pandas" and
// "dict" return the rows as records (objects keyed by column name), as a
// DataFrame's to_dict("records") or a list of dicts would hold them.
func ExecuteADBCQuery(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ExplicitADBC bool   `json:"explicit_adbc"`
		SQL          string `json:"sql"`
		MaxRows      *int   `json:"max_rows"`
		TimeoutMs    *int   `json:"timeout_ms"`
		ResultFormat string `json:"result_format"`
	}
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return nil, doris.ArgError(doris.QueryPrefix, "ARGUMENTS_INVALID", "the arguments could not be decoded")
	}
	if !a.ExplicitADBC {
		return nil, doris.ArgError("ADBC", "EXPLICIT_USER_INTENT_REQUIRED", "explicit_adbc must be true: ADBC runs only when the user asked for it")
	}
	cfg := r.Settings().ADBC
	if a.MaxRows == nil {
		n := cfg.DefaultMaxRows
		a.MaxRows = &n
	}
	if a.TimeoutMs == nil {
		ms := int(cfg.DefaultTimeout.Milliseconds())
		a.TimeoutMs = &ms
	}
	if a.ResultFormat == "" {
		a.ResultFormat = cfg.DefaultReturnFormat
	}
	maxRows, timeout, err := r.Limits(a.MaxRows, a.TimeoutMs)
	if err != nil {
		return nil, err
	}
	st, err := r.CheckSQL(a.SQL, nil)
	if err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	data, warnings, err := r.FlightQuery(ctx, rt, doris.Stmt{SQL: st.SQL, Timeout: timeout, Progress: c.Progress,
		Prefix: doris.QueryPrefix}, maxRows, r.Settings().MaxResultBytes, "max_rows")
	if err != nil {
		return nil, err
	}
	data.Format = a.ResultFormat
	if a.ResultFormat != "arrow" {
		for i := range data.Columns {
			data.Columns[i].ArrowType = ""
		}
	}
	return &doris.Result{Status: "success", Data: data, Warnings: warnings, Truncated: data.Truncated,
		Masking: data.Masking, Source: "doris_arrow_flight_sql"}, nil
}

// GetADBCConnectionInfo reports ADBC readiness for the caller's route:
// whether the operator enabled it, the configured Flight SQL ports, and
// whether the FE accepts this route's handshake and the BEs answer. It
// returns no credential and no token.
func GetADBCConnectionInfo(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	info := r.ADBCReadiness(ctx, rt)
	return &doris.Result{Status: "success", Data: info, Source: "doris_arrow_flight_sql"}, nil
}
