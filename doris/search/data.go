package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// search_data builds one SELECT from structured arguments only:
//
//	SELECT <return fields>[, <approximate distance> AS `__mcp_vector_distance`]
//	FROM `db`.`table`
//	WHERE (`f1` MATCH_x %(q)s OR `f2` MATCH_x %(q)s) AND <typed filters>
//	[ORDER BY `__mcp_vector_distance` ASC|DESC]
//	LIMIT n
//
// Every identifier is checked against information_schema.columns and
// backtick-quoted; every value (the query text, the vector as JSON, filter
// values) is bound by guard.Bind; operators and functions come from fixed
// tables. Text needs an inverted index on each field (and phrase support
// for the phrase operators); vector needs an ANN index on the vector field
// whose dim equals the vector's length; vector and hybrid need the
// vector_hybrid_search variant (Doris 4.0+).
//
// Hybrid follows the reference server: the text predicate filters and the
// ANN distance ranks (no fused score is invented). Text mode returns the
// matching rows in Doris's order (no relevance score), reading one row
// past top_k to say whether more match.

const (
	maxQueryText    = 16 << 10
	distanceAlias   = "__mcp_vector_distance"
	defaultTopK     = 10
	maxReturnFields = 64
)

var textOperators = map[string]string{"any": "MATCH_ANY", "all": "MATCH_ALL", "phrase": "MATCH_PHRASE", "phrase_prefix": "MATCH_PHRASE_PREFIX"}

var filterOperators = map[string]string{"eq": "=", "ne": "!=", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}

// vectorMetrics maps an ANN metric to its approximate function and order.
var vectorMetrics = map[string][2]string{
	"l2_distance":   {"l2_distance_approximate", "ASC"},
	"inner_product": {"inner_product_approximate", "DESC"},
}

// searchArgs are search_data's arguments (also diagnose_search_query's
// search_request).
type searchArgs struct {
	Database     string                     `json:"database"`
	Table        string                     `json:"table"`
	Mode         string                     `json:"mode"`
	Query        *string                    `json:"query"`
	Fields       []string                   `json:"fields"`
	Vector       []json.Number              `json:"vector"`
	VectorField  string                     `json:"vector_field"`
	TextOperator string                     `json:"text_operator"`
	TopK         *int                       `json:"top_k"`
	Filters      map[string]json.RawMessage `json:"filters"`
	ReturnFields []string                   `json:"return_fields"`
}

func decodeSearchArgs(raw json.RawMessage) (*searchArgs, error) {
	var a searchArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return nil, doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "the search arguments could not be decoded")
	}
	return &a, nil
}

// compiledSearch is a search ready to run: its checked SQL and what it
// was built from.
type compiledSearch struct {
	SQL          string
	Target       *searchTarget
	Mode         string
	TopK         int
	Limit        int
	Operator     string
	TextFields   []string
	VectorField  string
	Metric       string
	Dimension    int
	Ordering     string
	ReturnFields []string
	Filters      []string
	// Problems are the index problems a lenient compile (diagnosis)
	// recorded instead of failing.
	Problems []*doris.Error
}

// compileSearch validates a, reads the target table's columns and
// indexes, and builds the SQL. vectors reports whether the active variant
// allows vector and hybrid modes. With lenient, index problems are
// recorded in Problems and the SQL is built anyway (for diagnosis);
// otherwise they are the error.
func (r kit) compileSearch(ctx context.Context, rt *doris.Route, a *searchArgs, vectors, lenient bool) (*compiledSearch, error) {
	topK, err := a.precheck(vectors, r.Settings().MaxResultRows)
	if err != nil {
		return nil, err
	}
	t, err := r.readTarget(ctx, rt, a.Database, a.Table)
	if err != nil {
		return nil, err
	}
	return buildSearch(t, a, topK, lenient)
}

// precheck validates what needs no metadata: the mode and the arguments
// it takes, top_k, and every identifier. It returns top_k.
func (a *searchArgs) precheck(vectors bool, maxRows int) (int, error) {
	bad := func(msg string) error { return doris.ArgError(searchPrefix, "ARGUMENT_INVALID", msg) }
	text := a.Mode == "text" || a.Mode == "hybrid"
	vector := a.Mode == "vector" || a.Mode == "hybrid"
	switch {
	case !text && !vector:
		return 0, bad("mode must be text, vector or hybrid")
	case vector && !vectors:
		return 0, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_CAPABILITY_UNSUPPORTED", Status: 501,
			Message: "vector and hybrid search need Doris 4.0 or later (ANN indexes and approximate distance functions); use mode text"}
	case text && a.Query == nil:
		return 0, bad("query is required in text and hybrid mode")
	case !text && (a.Query != nil || len(a.Fields) > 0):
		return 0, bad("query and fields apply to text and hybrid mode only")
	case vector && len(a.Vector) == 0:
		return 0, bad("vector is required in vector and hybrid mode")
	case !vector && (len(a.Vector) > 0 || a.VectorField != ""):
		return 0, bad("vector and vector_field apply to vector and hybrid mode only")
	case len(a.Fields) > 32 || len(a.ReturnFields) > maxReturnFields || len(a.Filters) > 32 || len(a.Vector) > 4096:
		return 0, bad("at most 32 fields, 64 return_fields, 32 filters and 4096 vector numbers")
	}
	topK := defaultTopK
	if a.TopK != nil {
		topK = *a.TopK
	}
	if topK < 1 || topK > 1000 {
		return 0, bad("top_k must be 1..1000")
	}
	if topK > maxRows {
		return 0, doris.ArgError(searchPrefix, "ROW_LIMIT_EXCEEDED", fmt.Sprintf("top_k %d exceeds this server's ceiling of %d rows (MAX_RESULT_ROWS)", topK, maxRows))
	}
	if e := doris.CheckIdents(searchPrefix, doris.Arg("database", a.Database), doris.Arg("table", a.Table)); e != nil {
		return 0, e
	}
	for _, group := range [][]string{a.Fields, a.ReturnFields, {a.VectorField}} {
		for _, f := range group {
			if e := doris.CheckOptionalIdents(searchPrefix, doris.Arg("field", f)); e != nil {
				return 0, e
			}
		}
	}
	for f := range a.Filters {
		if e := doris.CheckIdent(searchPrefix, "filter column", f); e != nil {
			return 0, e
		}
	}
	return topK, nil
}

// buildSearch builds the search of a over the table t (which holds the
// columns and indexes Doris reported).
func buildSearch(t *searchTarget, a *searchArgs, topK int, lenient bool) (*compiledSearch, error) {
	cs := &compiledSearch{Mode: a.Mode, TopK: topK, Target: t}
	problem := func(e *doris.Error) error {
		if lenient {
			cs.Problems = append(cs.Problems, e)
			return nil
		}
		return e
	}
	bad := func(msg string) error { return doris.ArgError(searchPrefix, "ARGUMENT_INVALID", msg) }
	text := a.Mode == "text" || a.Mode == "hybrid"
	vector := a.Mode == "vector" || a.Mode == "hybrid"
	params := map[string]any{}
	col := func(name string) (columnInfo, error) {
		c, ok := t.column(name)
		if !ok {
			return c, searchNotFound("COLUMN_NOT_FOUND", "the table has no column of that name (or this account cannot see it)", t.object(name))
		}
		return c, nil
	}
	var where []string

	if text {
		q := strings.TrimSpace(*a.Query)
		if q == "" || len(q) > maxQueryText {
			return nil, bad("query must be 1 byte to 16 KiB of text")
		}
		op := a.TextOperator
		if op == "" {
			op = "any"
		}
		if cs.Operator = textOperators[op]; cs.Operator == "" {
			return nil, bad("text_operator must be any, all, phrase or phrase_prefix")
		}
		fields := a.Fields
		if len(fields) == 0 {
			// Default: every column with a tokenizing inverted index.
			for _, ix := range t.Indexes {
				if ix.Type == "INVERTED" && ix.wire()["tokenized"] == true {
					fields = append(fields, ix.Columns...)
				}
			}
			if len(fields) == 0 {
				if err := problem(&doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_TEXT_INDEX_REQUIRED", Status: 409,
					Message: "the table has no tokenizing inverted index to search; name fields that have one"}); err != nil {
					return nil, err
				}
			}
		}
		var preds []string
		for _, f := range fields {
			c, err := col(f)
			if err != nil {
				return nil, err
			}
			ix, ok := t.index("INVERTED", c.Name)
			switch {
			case !ok:
				err = problem(&doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_TEXT_INDEX_REQUIRED", Status: 409, Object: t.object(c.Name),
					Message: "every text field needs an inverted index; this field has none (see inspect_search_indexes)"})
			case (cs.Operator == "MATCH_PHRASE" || cs.Operator == "MATCH_PHRASE_PREFIX") && ix.wire()["tokenized"] == true &&
				ix.Properties["support_phrase"] != "true":
				err = problem(&doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_PHRASE_SUPPORT_REQUIRED", Status: 409, Object: t.object(c.Name),
					Message: "phrase operators need an inverted index created with \"support_phrase\" = \"true\" on every field"})
			}
			if err != nil {
				return nil, err
			}
			cs.TextFields = append(cs.TextFields, c.Name)
			preds = append(preds, doris.QuoteIdent(c.Name)+" "+cs.Operator+" %(q)s")
		}
		params["q"] = q
		if len(preds) > 0 {
			where = append(where, "("+strings.Join(preds, " OR ")+")")
		}
	}

	var selectDistance, order string
	if vector {
		field := a.VectorField
		if field == "" {
			var cands []string
			for _, ix := range t.Indexes {
				if ix.Type == "ANN" {
					cands = append(cands, ix.Columns...)
				}
			}
			switch len(cands) {
			case 0:
				return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_ANN_INDEX_REQUIRED", Status: 409, Object: t.object(""),
					Message: "the table has no ANN index; vector search needs one"}
			case 1:
				field = cands[0]
			default:
				return nil, bad("the table has several ANN-indexed columns; name vector_field")
			}
		}
		c, err := col(field)
		if err != nil {
			return nil, err
		}
		cs.VectorField = c.Name
		ix, ok := t.index("ANN", c.Name)
		if !ok {
			return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_ANN_INDEX_REQUIRED", Status: 409, Object: t.object(c.Name),
				Message: "the vector field needs an ANN index (see inspect_search_indexes)"}
		}
		cs.Metric = strings.ToLower(ix.Properties["metric_type"])
		fn, ok := vectorMetrics[cs.Metric]
		if !ok {
			return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_ANN_METRIC_UNSUPPORTED", Status: 501, Object: t.object(c.Name),
				Message: "the ANN index's metric_type is not l2_distance or inner_product"}
		}
		dim, err := strconv.Atoi(ix.Properties["dim"])
		if err != nil || dim < 1 {
			return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_ANN_DIMENSION_UNKNOWN", Status: 409, Object: t.object(c.Name),
				Message: "the ANN index does not state a valid dim"}
		}
		cs.Dimension = dim
		if len(a.Vector) != dim {
			err := &doris.Error{Kind: doris.KindArguments, Reason: searchPrefix + "_VECTOR_DIMENSION_MISMATCH", Status: 400, Object: t.object(c.Name),
				Message: fmt.Sprintf("the vector has %d numbers; the ANN index on this field has dim %d", len(a.Vector), dim)}
			if !lenient {
				return nil, err
			}
			cs.Problems = append(cs.Problems, err)
		}
		vec, err := vectorJSON(a.Vector)
		if err != nil {
			return nil, err
		}
		params["vec"] = vec
		selectDistance = fn[0] + "(" + doris.QuoteIdent(c.Name) + ", CAST(%(vec)s AS ARRAY<FLOAT>)) AS " + doris.QuoteIdent(distanceAlias)
		order = " ORDER BY " + doris.QuoteIdent(distanceAlias) + " " + fn[1]
		cs.Ordering = fn[0] + " " + fn[1]
		if _, clash := t.column(distanceAlias); clash {
			return nil, &doris.Error{Kind: doris.KindFailed, Reason: searchPrefix + "_RESULT_ALIAS_CONFLICT", Status: 409, Object: t.object(distanceAlias),
				Message: "the table has a column named " + distanceAlias + ", the name search_data gives the distance"}
		}
	}

	filterSQL, filterCols, err := compileFilters(t, a.Filters, params)
	if err != nil {
		return nil, err
	}
	where = append(where, filterSQL...)
	cs.Filters = filterCols

	if len(a.ReturnFields) > 0 {
		for _, f := range a.ReturnFields {
			c, err := col(f)
			if err != nil {
				return nil, err
			}
			cs.ReturnFields = append(cs.ReturnFields, c.Name)
		}
	} else {
		for _, c := range t.Columns {
			if _, isVec := t.index("ANN", c.Name); isVec || strings.HasPrefix(c.DataType, "array") {
				continue
			}
			if cs.ReturnFields = append(cs.ReturnFields, c.Name); len(cs.ReturnFields) == maxReturnFields {
				break
			}
		}
		if len(cs.ReturnFields) == 0 {
			return nil, bad("the table has no scalar column to return; name return_fields")
		}
	}
	sel := make([]string, 0, len(cs.ReturnFields)+1)
	for _, f := range cs.ReturnFields {
		sel = append(sel, doris.QuoteIdent(f))
	}
	if selectDistance != "" {
		sel = append(sel, selectDistance)
	}
	cs.Limit = cs.TopK
	if !vector {
		cs.Limit = cs.TopK + 1 // one more tells whether more rows match
	}
	sqlText := "SELECT " + strings.Join(sel, ", ") + " FROM " + doris.Qualified(t.Database, t.Table)
	if len(where) > 0 {
		sqlText += " WHERE " + strings.Join(where, " AND ")
	}
	sqlText += order + " LIMIT " + strconv.Itoa(cs.Limit)
	st, err := doris.Bind(sqlText, params)
	if err != nil {
		return nil, searchGuardError(err)
	}
	cs.SQL = st
	return cs, nil
}

// vectorJSON renders the query vector as the JSON text CAST reads.
func vectorJSON(v []json.Number) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, n := range v {
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return "", doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "vector values must be finite numbers")
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	}
	b.WriteByte(']')
	return b.String(), nil
}

// compileFilters turns typed filters into predicates with bound values,
// in column order of the filter names (sorted) so the SQL is stable.
func compileFilters(t *searchTarget, filters map[string]json.RawMessage, params map[string]any) ([]string, []string, error) {
	names := make([]string, 0, len(filters))
	for n := range filters {
		names = append(names, n)
	}
	slices.Sort(names)
	var preds, cols []string
	bad := func(col, msg string) error {
		e := doris.ArgError(searchPrefix, "ARGUMENT_INVALID", "filter on "+col+": "+msg)
		e.Object = t.object(col)
		return e
	}
	for k, n := range names {
		c, ok := t.column(n)
		if !ok {
			return nil, nil, searchNotFound("COLUMN_NOT_FOUND", "a filter names a column the table does not have (or this account cannot see)", t.object(n))
		}
		q := doris.QuoteIdent(c.Name)
		cols = append(cols, c.Name)
		key := "f" + strconv.Itoa(k)
		raw := bytes.TrimSpace(filters[n])
		if len(raw) == 0 || raw[0] != '{' {
			v, err := filterScalar(raw)
			if err != nil {
				return nil, nil, bad(c.Name, "the value must be a string, number or boolean")
			}
			params[key] = v
			preds = append(preds, q+" = %("+key+")s")
			continue
		}
		var f struct {
			Operator string            `json:"operator"`
			Value    json.RawMessage   `json:"value"`
			Values   []json.RawMessage `json:"values"`
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			return nil, nil, bad(c.Name, "the condition must be {operator, value} or {operator, values}")
		}
		switch op := f.Operator; {
		case filterOperators[op] != "":
			if f.Value == nil || f.Values != nil {
				return nil, nil, bad(c.Name, op+" takes one value and no values")
			}
			v, err := filterScalar(f.Value)
			if err != nil {
				return nil, nil, bad(c.Name, "the value must be a string, number or boolean")
			}
			params[key] = v
			preds = append(preds, q+" "+filterOperators[op]+" %("+key+")s")
		case op == "in" || op == "not_in":
			if len(f.Values) == 0 || len(f.Values) > 100 || f.Value != nil {
				return nil, nil, bad(c.Name, op+" takes 1 to 100 values and no value")
			}
			ph := make([]string, len(f.Values))
			for j, raw := range f.Values {
				v, err := filterScalar(raw)
				if err != nil {
					return nil, nil, bad(c.Name, "the values must be strings, numbers or booleans")
				}
				name := key + "_" + strconv.Itoa(j)
				params[name] = v
				ph[j] = "%(" + name + ")s"
			}
			kw := "IN"
			if op == "not_in" {
				kw = "NOT IN"
			}
			preds = append(preds, q+" "+kw+" ("+strings.Join(ph, ", ")+")")
		case op == "is_null" || op == "is_not_null":
			if f.Value != nil || f.Values != nil {
				return nil, nil, bad(c.Name, op+" takes no value")
			}
			preds = append(preds, q+map[string]string{"is_null": " IS NULL", "is_not_null": " IS NOT NULL"}[op])
		default:
			return nil, nil, bad(c.Name, "the operator must be eq, ne, gt, gte, lt, lte, in, not_in, is_null or is_not_null")
		}
	}
	return preds, cols, nil
}

// filterScalar decodes a filter value: a string, a number (exact
// spelling) or a boolean.
func filterScalar(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	switch v.(type) {
	case string, json.Number, bool:
		return v, nil
	}
	return nil, fmt.Errorf("not a scalar")
}

// SearchData runs doris_search search_data.
func SearchData(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a, err := decodeSearchArgs(c.Args)
	if err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	cs, err := r.compileSearch(ctx, rt, a, vectorSearch(c), false)
	if err != nil {
		return nil, err
	}
	data, warnings, err := r.Query(ctx, rt, doris.Stmt{SQL: cs.SQL, Prefix: searchPrefix, Timeout: min(doris.DefaultCallTimeout, r.Settings().QueryTimeout),
		Progress: c.Progress}, cs.TopK, r.Settings().MaxResultBytes, "top_k")
	if err != nil {
		return nil, err
	}
	if data.Truncated && data.RowCount == cs.TopK {
		warnings = slices.DeleteFunc(warnings, func(w string) bool { return strings.HasPrefix(w, "The result was cut at") })
		warnings = append(warnings, fmt.Sprintf("More rows match than top_k (%d); raise top_k (at most 1000) or add filters to see the rest.", cs.TopK))
	}
	used := []string{}
	for _, ix := range cs.Target.Indexes {
		for _, f := range append(slices.Clone(cs.TextFields), cs.VectorField) {
			if f != "" && slices.Contains(ix.Columns, f) && (ix.Type == "INVERTED" || ix.Type == "ANN") && !slices.Contains(used, ix.Name) {
				used = append(used, ix.Name)
			}
		}
	}
	return &doris.Result{Status: "success", Data: data, Warnings: warnings, Truncated: data.Truncated, Masking: data.Masking,
		Evidence: []map[string]any{
			{"source": "SHOW INDEX", "kind": "target_index_metadata", "indexes": used},
			{"source": "doris_sql", "kind": "bounded_search", "mode": cs.Mode, "top_k": cs.TopK,
				"text_fields": doris.OrEmpty(cs.TextFields), "text_operator": doris.StrOrNil(cs.Operator, cs.Operator != ""),
				"vector_field": doris.StrOrNil(cs.VectorField, cs.VectorField != ""), "vector_metric": doris.StrOrNil(cs.Metric, cs.Metric != ""),
				"vector_dimension": intOrNil(cs.Dimension), "ordering": doris.StrOrNil(cs.Ordering, cs.Ordering != ""),
				"filters": doris.OrEmpty(cs.Filters), "return_fields": cs.ReturnFields, "invented_scores": false},
		}}, nil
}

func intOrNil(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

// searchGuardError reports a guard refusal under the search prefix (a
// value the guard cannot bind, such as text that is not UTF-8).
func searchGuardError(err error) error {
	if e, ok := doris.GuardError(err).(*doris.Error); ok {
		e.Reason = searchPrefix + strings.TrimPrefix(e.Reason, doris.QueryPrefix)
		return e
	}
	return err
}

// vectorSearch reports whether the call may search by vector: search_data
// runs in its vector_hybrid_search variant, or (for a diagnosis) Doris is
// 4.0 or later and its approximate distance probe passed.
func vectorSearch(c *doris.Call) bool {
	if c.Variant == "vector_hybrid_search" {
		return true
	}
	s := c.Snapshot
	return s != nil && s.Master.Compare(doris.Version{Major: 4}) >= 0 && s.Probes["search.vector_functions"] == doris.ProbeOK
}
