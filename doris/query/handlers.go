package query

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// ExecuteQuery runs doris_query execute_query.
func ExecuteQuery(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		SQL        string         `json:"sql"`
		Catalog    string         `json:"catalog"`
		Database   string         `json:"database"`
		Parameters map[string]any `json:"parameters"`
		MaxRows    *int           `json:"max_rows"`
		TimeoutMs  *int           `json:"timeout_ms"`
	}
	dec := json.NewDecoder(bytes.NewReader(c.Args))
	dec.UseNumber() // parameter numbers keep their exact spelling
	if err := dec.Decode(&a); err != nil {
		return nil, doris.ArgError(doris.QueryPrefix, "ARGUMENTS_INVALID", "the arguments could not be decoded")
	}
	maxRows, timeout, err := r.Limits(a.MaxRows, a.TimeoutMs)
	if err != nil {
		return nil, err
	}
	if e := doris.CheckOptionalIdents(doris.QueryPrefix, doris.Arg("catalog", a.Catalog), doris.Arg("database", a.Database)); e != nil {
		return nil, e
	}
	st, err := r.CheckSQL(a.SQL, a.Parameters)
	if err != nil {
		return nil, err
	}
	text := st.SQL
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	caller := ""
	if text == a.SQL {
		caller = a.SQL // unbound: positions Doris reports are positions in the caller's text
	}
	data, warnings, err := r.Query(ctx, rt, doris.Stmt{SQL: text, Catalog: a.Catalog, Database: a.Database, Timeout: timeout,
		Progress: c.Progress, Prefix: doris.QueryPrefix, Caller: caller}, maxRows, r.Settings().MaxResultBytes, "max_rows")
	if err != nil {
		return nil, err
	}
	return &doris.Result{Status: "success", Data: data, Warnings: warnings, Truncated: data.Truncated, Masking: data.Masking}, nil
}

// Probes are the capability probes of this domain's children.
var Probes = map[string]doris.Probe{
	"query.explain":   {SQL: "EXPLAIN SELECT 1"},
	"query.audit_log": {SQL: "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1"},
}
