package semantic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/metricflow"
)

// The eight MetricFlow children. The provider (a separate process, see
// package metricflow) only lists and compiles; SQL it compiles is checked
// by the read-only guard and run by this runtime on the caller's own
// route, within the same ceilings as doris_query.execute_query.

// maxCompiledSQL bounds compiled SQL, as execute_query bounds caller SQL.
const maxCompiledSQL = 1 << 20

// mfDo runs one provider operation for the caller.
func (r kit) mfDo(ctx context.Context, c *doris.Call, op string, args any) (json.RawMessage, error) {
	if err := semanticScope(c); err != nil {
		return nil, err
	}
	if r.MetricFlow() == nil {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "METRICFLOW_DISABLED", Status: 503,
			Message: "MetricFlow is off on this server (METRICFLOW_ENABLED)"}
	}
	data, err := r.MetricFlow().Do(ctx, op, args)
	if err != nil {
		return nil, r.providerError(op, err)
	}
	return data, nil
}

// providerError turns a boundary failure into an *Error. A provider's own
// refusal of an unknown or invalid name is an argument problem; every
// other failure is the provider's.
func (r kit) providerError(op string, err error) error {
	var me *metricflow.Error
	if !errors.As(err, &me) {
		return &doris.Error{Kind: doris.KindFailed, Reason: metricflow.ReasonFailed, Status: 502, Message: "the MetricFlow provider failed", Cause: err}
	}
	if !me.FromProvider {
		r.Logger().Warn("MetricFlow provider request failed", "operation", op, "reason", me.Reason, "err", me.Cause)
	}
	e := &doris.Error{Kind: doris.KindFailed, Reason: me.Reason, Status: 502, Retryable: me.Retryable(), Message: me.Message}
	switch {
	case me.Reason == metricflow.ReasonTimeout:
		e.Kind, e.Status = doris.KindTimeout, 504
	case me.Reason == metricflow.ReasonCancelled:
		e.Status = 499
	case me.FromProvider && strings.HasSuffix(me.Reason, "_NOT_FOUND"):
		e.Kind, e.Status = doris.KindArguments, 404
	case me.FromProvider && (strings.HasSuffix(me.Reason, "_INVALID") || strings.HasSuffix(me.Reason, "_UNKNOWN") ||
		strings.HasSuffix(me.Reason, "_UNSUPPORTED") || strings.HasSuffix(me.Reason, "_AMBIGUOUS")):
		e.Kind, e.Status = doris.KindArguments, 400
	}
	return e
}

func responseInvalid(msg string) error {
	return &doris.Error{Kind: doris.KindFailed, Reason: metricflow.ReasonResponseInvalid, Status: 502,
		Message: "the MetricFlow provider's answer " + msg}
}

// itemSpec says what a collection item must hold: a required string key
// and optional keys that must be strings (or null) and string arrays (or
// null), as the child's output schema has them.
type itemSpec struct {
	key     string
	strs    []string
	strList []string
}

var (
	modelItems = itemSpec{key: "model_ref", strs: []string{"name", "description"}}
	metricItem = itemSpec{key: "name", strs: []string{"type", "label", "description"}, strList: []string{"dimensions"}}
	groupItem  = itemSpec{key: "name", strs: []string{"type", "description"}, strList: []string{"granularities"}}
	savedItem  = itemSpec{key: "name", strs: []string{"description"}, strList: []string{"metrics", "group_by"}}
)

// collectionOf checks a collection answer and keeps at most limit items.
func collectionOf(data json.RawMessage, spec itemSpec, limit int) (*doris.Result, error) {
	var body struct {
		Items     []json.RawMessage `json:"items"`
		Truncated *bool             `json:"truncated"`
	}
	if err := json.Unmarshal(data, &body); err != nil || body.Items == nil {
		return nil, responseInvalid("has no items array")
	}
	items := make([]map[string]any, 0, min(len(body.Items), limit))
	truncated := body.Truncated != nil && *body.Truncated
	for _, raw := range body.Items {
		if len(items) == limit {
			truncated = true
			break
		}
		var it map[string]any
		if err := json.Unmarshal(raw, &it); err != nil || it == nil {
			return nil, responseInvalid("has an item that is not an object")
		}
		if s, ok := it[spec.key].(string); !ok || s == "" {
			return nil, responseInvalid("has an item without its " + spec.key)
		}
		for _, k := range spec.strs {
			if v, ok := it[k]; ok && v != nil {
				if _, isStr := v.(string); !isStr {
					return nil, responseInvalid("has an item whose " + k + " is not a string")
				}
			}
		}
		for _, k := range spec.strList {
			if v, ok := it[k]; ok && v != nil {
				list, isList := v.([]any)
				if !isList {
					return nil, responseInvalid("has an item whose " + k + " is not a list")
				}
				for _, x := range list {
					if _, isStr := x.(string); !isStr {
						return nil, responseInvalid("has an item whose " + k + " holds a non-string")
					}
				}
			}
		}
		items = append(items, it)
	}
	res := &doris.Result{Status: "success", Source: "metricflow", Truncated: truncated, Data: doris.Collection{Items: items, Truncated: truncated}}
	if truncated {
		res.Status = "partial"
		res.Warnings = []string{"The provider's list was cut; narrow it with search or raise limit."}
	}
	return res, nil
}

// ListMetricFlowModels runs doris_semantic list_metricflow_models.
func ListMetricFlowModels(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	data, err := r.mfDo(ctx, c, "list_models", map[string]any{})
	if err != nil {
		return nil, err
	}
	return collectionOf(data, modelItems, 1000)
}

// GetMetricFlowStatus runs doris_semantic get_metricflow_status.
func GetMetricFlowStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef string `json:"model_ref"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	data, err := r.mfDo(ctx, c, "get_status", map[string]any{"model_ref": a.ModelRef})
	if err != nil {
		return nil, err
	}
	var status map[string]any
	if err := json.Unmarshal(data, &status); err != nil {
		return nil, responseInvalid("is not an object")
	}
	// What the server knows first hand wins over what the provider says.
	status["model_ref"], status["provider_ready"], status["protocol_version"] = a.ModelRef, true, metricflow.Protocol
	if v, ok := status["model_valid"]; ok && v != nil {
		if _, isBool := v.(bool); !isBool {
			return nil, responseInvalid("has a model_valid that is not a boolean")
		}
	}
	if d, ok := status["dialect"]; ok && d != nil && d != "doris" {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "METRICFLOW_DIALECT_MISMATCH", Status: 502,
			Message: "the MetricFlow provider compiles for another dialect than Doris"}
	}
	if _, ok := status["issues"]; !ok {
		status["issues"] = []string{}
	} else if _, err := stringList(status["issues"]); err != nil {
		return nil, responseInvalid("has issues that are not a list of strings")
	}
	return &doris.Result{Status: "success", Source: "metricflow", Data: status}, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("not a list")
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, errors.New("not a string")
		}
		out = append(out, s)
	}
	return out, nil
}

// ListMetricFlowMetrics runs doris_semantic list_metricflow_metrics.
func ListMetricFlowMetrics(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef          string  `json:"model_ref"`
		Search            *string `json:"search"`
		IncludeDimensions bool    `json:"include_dimensions"`
		Limit             *int    `json:"limit"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	limit := intOr(a.Limit, 100)
	data, err := r.mfDo(ctx, c, "list_metrics", map[string]any{"model_ref": a.ModelRef, "search": a.Search,
		"include_dimensions": a.IncludeDimensions, "limit": limit})
	if err != nil {
		return nil, err
	}
	res, err := collectionOf(data, metricItem, limit)
	if err == nil && !a.IncludeDimensions {
		for _, it := range res.Data.(doris.Collection).Items {
			delete(it, "dimensions")
		}
	}
	return res, err
}

// GetMetricFlowGroupBys runs doris_semantic get_metricflow_group_bys.
func GetMetricFlowGroupBys(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef string   `json:"model_ref"`
		Metrics  []string `json:"metrics"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	data, err := r.mfDo(ctx, c, "get_group_bys", map[string]any{"model_ref": a.ModelRef, "metrics": a.Metrics})
	if err != nil {
		return nil, err
	}
	return collectionOf(data, groupItem, 10000)
}

// ListMetricFlowSavedQueries runs doris_semantic list_metricflow_saved_queries.
func ListMetricFlowSavedQueries(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef string  `json:"model_ref"`
		Search   *string `json:"search"`
		Limit    *int    `json:"limit"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	limit := intOr(a.Limit, 100)
	data, err := r.mfDo(ctx, c, "list_saved_queries", map[string]any{"model_ref": a.ModelRef, "search": a.Search, "limit": limit})
	if err != nil {
		return nil, err
	}
	return collectionOf(data, savedItem, limit)
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// compiled checks compile data: one non-empty, bounded statement for
// Doris that the read-only guard accepts. It returns the statement to run.
func (r kit) compiled(data json.RawMessage) (sql string, extra map[string]any, err error) {
	if err := json.Unmarshal(data, &extra); err != nil {
		return "", nil, responseInvalid("is not an object")
	}
	sql, _ = extra["sql"].(string)
	if strings.TrimSpace(sql) == "" || len(sql) > maxCompiledSQL || !utf8.ValidString(sql) {
		return "", nil, &doris.Error{Kind: doris.KindFailed, Reason: "METRICFLOW_COMPILED_SQL_INVALID", Status: 502,
			Message: fmt.Sprintf("the MetricFlow provider returned no SQL, or more than %d bytes of it", maxCompiledSQL)}
	}
	if d, ok := extra["dialect"]; ok && d != nil && d != "doris" {
		return "", nil, &doris.Error{Kind: doris.KindFailed, Reason: "METRICFLOW_DIALECT_MISMATCH", Status: 502,
			Message: "the MetricFlow provider compiled for another dialect than Doris"}
	}
	st, err := r.CheckSQL(sql, nil)
	if err != nil {
		e := &doris.Error{Kind: doris.KindFailed, Reason: "METRICFLOW_COMPILED_SQL_REJECTED", Status: 502,
			Message: "the read-only guard refused the SQL the MetricFlow provider compiled", Cause: err}
		var ge *doris.Error
		if errors.As(err, &ge) {
			e.Message += ": " + strings.TrimPrefix(ge.Message, "refused by the read-only guard ")
		}
		return "", nil, e
	}
	return st.SQL, extra, nil
}

// runCompiled executes checked compiled SQL on the caller's route, as
// execute_query runs caller SQL.
func (r kit) runCompiled(ctx context.Context, c *doris.Call, sqlText string, maxRows, timeoutMs *int, rowsArg string) (*doris.Result, error) {
	rows, timeout, err := r.Limits(maxRows, timeoutMs)
	if err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	data, warnings, err := r.Query(ctx, rt, doris.Stmt{SQL: sqlText, Timeout: timeout, Progress: c.Progress, Prefix: doris.QueryPrefix},
		rows, r.Settings().MaxResultBytes, rowsArg)
	if err != nil {
		return nil, err
	}
	data.SQL = sqlText
	res := &doris.Result{Status: "success", Source: "metricflow, doris_mysql", Warnings: warnings, Truncated: data.Truncated, Data: data}
	if data.Truncated {
		res.Status = "partial"
	}
	return res, nil
}

// GetMetricFlowDimensionValues runs doris_semantic get_metricflow_dimension_values.
func GetMetricFlowDimensionValues(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef  string   `json:"model_ref"`
		Metrics   []string `json:"metrics"`
		Dimension string   `json:"dimension"`
		StartTime *string  `json:"start_time"`
		EndTime   *string  `json:"end_time"`
		Limit     *int     `json:"limit"`
		TimeoutMs *int     `json:"timeout_ms"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	limit := intOr(a.Limit, 100)
	if _, _, err := r.Limits(&limit, a.TimeoutMs); err != nil {
		return nil, err
	}
	data, err := r.mfDo(ctx, c, "compile_dimension_values", map[string]any{"model_ref": a.ModelRef, "metrics": a.Metrics,
		"dimension": a.Dimension, "start_time": a.StartTime, "end_time": a.EndTime, "limit": limit})
	if err != nil {
		return nil, err
	}
	sqlText, _, err := r.compiled(data)
	if err != nil {
		return nil, err
	}
	return r.runCompiled(ctx, c, sqlText, &limit, a.TimeoutMs, "limit")
}

// compileRequest is the request of the compile and execute children. It
// is passed to the provider as the caller sent it.
type mfRequest struct {
	ModelRef  string          `json:"model_ref"`
	Request   json.RawMessage `json:"request"`
	MaxRows   *int            `json:"max_rows"`
	TimeoutMs *int            `json:"timeout_ms"`
}

func (r kit) compileRequest(ctx context.Context, c *doris.Call, a *mfRequest) (string, map[string]any, error) {
	data, err := r.mfDo(ctx, c, "compile_query", map[string]any{"model_ref": a.ModelRef, "request": a.Request, "dialect": "doris"})
	if err != nil {
		return "", nil, err
	}
	return r.compiled(data)
}

// CompileMetricFlowQuery runs doris_semantic compile_metricflow_query.
func CompileMetricFlowQuery(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a mfRequest
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	sqlText, extra, err := r.compileRequest(ctx, c, &a)
	if err != nil {
		return nil, err
	}
	extra["model_ref"], extra["sql"], extra["dialect"] = a.ModelRef, sqlText, "doris"
	return &doris.Result{Status: "success", Source: "metricflow", Data: extra}, nil
}

// ExecuteMetricFlowQuery runs doris_semantic execute_metricflow_query.
func ExecuteMetricFlowQuery(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a mfRequest
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if _, _, err := r.Limits(a.MaxRows, a.TimeoutMs); err != nil {
		return nil, err
	}
	sqlText, _, err := r.compileRequest(ctx, c, &a)
	if err != nil {
		return nil, err
	}
	return r.runCompiled(ctx, c, sqlText, a.MaxRows, a.TimeoutMs, "max_rows")
}
