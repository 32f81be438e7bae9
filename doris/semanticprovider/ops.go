package semanticprovider

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// Operation arguments, exactly as the server sends them (optional ones
// may be null).
type (
	argsModel struct {
		ModelRef string `json:"model_ref"`
	}
	argsListMetrics struct {
		ModelRef          string  `json:"model_ref"`
		Search            *string `json:"search"`
		IncludeDimensions *bool   `json:"include_dimensions"`
		Limit             *int64  `json:"limit"`
	}
	argsGroupBys struct {
		ModelRef string   `json:"model_ref"`
		Metrics  []string `json:"metrics"`
	}
	argsSavedQueries struct {
		ModelRef string  `json:"model_ref"`
		Search   *string `json:"search"`
		Limit    *int64  `json:"limit"`
	}
	argsDimensionValues struct {
		ModelRef  string   `json:"model_ref"`
		Metrics   []string `json:"metrics"`
		Dimension string   `json:"dimension"`
		StartTime *string  `json:"start_time"`
		EndTime   *string  `json:"end_time"`
		Limit     *int64   `json:"limit"`
	}
	argsCompile struct {
		ModelRef string        `json:"model_ref"`
		Dialect  *string       `json:"dialect"`
		Request  *QueryRequest `json:"request"`
	}
)

// collection is the data of a collection operation.
type collection struct {
	Items     any  `json:"items"`
	Truncated bool `json:"truncated"`
}

const (
	defaultListLimit = 100
	maxListLimit     = 1000
)

func (p *Provider) dispatch(op string, raw json.RawMessage) (any, *Error) {
	switch op {
	case "list_models":
		var a struct{}
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		return p.listModels(), nil
	case "get_status":
		var a argsModel
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		return p.status(a.ModelRef)
	case "list_metrics":
		var a argsListMetrics
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		ix, err := p.model(a.ModelRef)
		if err != nil {
			return nil, err
		}
		limit, err := listLimit(a.Limit)
		if err != nil {
			return nil, err
		}
		return ix.listMetrics(a.Search, a.IncludeDimensions != nil && *a.IncludeDimensions, limit), nil
	case "get_group_bys":
		var a argsGroupBys
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		ix, err := p.model(a.ModelRef)
		if err != nil {
			return nil, err
		}
		return ix.groupBys(a.Metrics)
	case "list_saved_queries":
		var a argsSavedQueries
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		ix, err := p.model(a.ModelRef)
		if err != nil {
			return nil, err
		}
		limit, err := listLimit(a.Limit)
		if err != nil {
			return nil, err
		}
		return ix.listSavedQueries(a.Search, limit), nil
	case "compile_dimension_values":
		var a argsDimensionValues
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		ix, err := p.model(a.ModelRef)
		if err != nil {
			return nil, err
		}
		if a.Dimension == "" {
			return nil, fail(ReasonRequestInvalid, "dimension is required")
		}
		c, err := ix.DimensionValues(&DimensionValuesRequest{Metrics: a.Metrics, Dimension: a.Dimension, StartTime: a.StartTime, EndTime: a.EndTime, Limit: a.Limit})
		if err != nil {
			return nil, err
		}
		return compiledData(a.ModelRef, c), nil
	case "compile_query":
		var a argsCompile
		if err := decodeArgs(raw, &a); err != nil {
			return nil, err
		}
		if a.Dialect != nil && *a.Dialect != Dialect {
			return nil, fail(ReasonDialectUnsupported, "this provider writes Doris SQL only")
		}
		if a.Request == nil {
			return nil, fail(ReasonRequestInvalid, "request is required")
		}
		ix, err := p.model(a.ModelRef)
		if err != nil {
			return nil, err
		}
		c, err := ix.Compile(a.Request)
		if err != nil {
			return nil, err
		}
		return compiledData(a.ModelRef, c), nil
	}
	return nil, fail(ReasonOperationUnsupported, "unknown operation")
}

func compiledData(ref string, c *Compiled) map[string]any {
	return map[string]any{"model_ref": ref, "sql": c.SQL, "dialect": Dialect, "columns": c.Columns}
}

func listLimit(l *int64) (int, *Error) {
	if l == nil {
		return defaultListLimit, nil
	}
	if *l < 1 || *l > maxListLimit {
		return 0, fail(ReasonLimitInvalid, "limit must be 1 to 1000")
	}
	return int(*l), nil
}

// model checks ref and loads its manifest.
func (p *Provider) model(ref string) (*index, *Error) {
	if !ValidModelRef(ref) {
		return nil, fail(ReasonModelRefInvalid, "model_ref does not match the model ref pattern")
	}
	return p.load(ref)
}

type modelItem struct {
	ModelRef    string `json:"model_ref"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

func (p *Provider) listModels() collection {
	items := []modelItem{}
	for _, s := range p.sources {
		desc := "dbt semantic manifest"
		if ix, err := p.load(s.Ref); err != nil {
			desc += " (does not load: " + err.Reason + ")"
		} else {
			desc += " with " + strconv.Itoa(len(ix.metricOrder)) + " metrics over " + strconv.Itoa(len(ix.models)) + " semantic models"
		}
		items = append(items, modelItem{ModelRef: s.Ref, Name: s.Ref, Description: desc})
	}
	return collection{Items: items}
}

type statusData struct {
	ModelRef        string   `json:"model_ref"`
	ProviderReady   bool     `json:"provider_ready"`
	ModelValid      bool     `json:"model_valid"`
	Dialect         string   `json:"dialect"`
	ProtocolVersion string   `json:"protocol_version"`
	Issues          []string `json:"issues"`
	SemanticModels  int      `json:"semantic_models"`
	Metrics         int      `json:"metrics"`
	SavedQueries    int      `json:"saved_queries"`
	TimeSpine       bool     `json:"time_spine"`
}

// maxIssues bounds the issues get_status lists.
const maxIssues = 100

func (p *Provider) status(ref string) (any, *Error) {
	if !ValidModelRef(ref) {
		return nil, fail(ReasonModelRefInvalid, "model_ref does not match the model ref pattern")
	}
	if _, ok := p.byRef[ref]; !ok {
		return nil, fail(ReasonModelNotFound, "no model "+ref)
	}
	d := statusData{ModelRef: ref, ProviderReady: true, Dialect: Dialect, ProtocolVersion: ProtocolVersion, Issues: []string{}}
	ix, err := p.load(ref)
	if err != nil {
		d.Issues = append(d.Issues, err.Reason+": "+err.Detail)
		return d, nil
	}
	d.ModelValid = true
	d.SemanticModels, d.Metrics, d.SavedQueries, d.TimeSpine = len(ix.models), len(ix.metricOrder), len(ix.savedOrder), ix.spine != nil
	for i, s := range ix.issues {
		if i == maxIssues {
			d.Issues = append(d.Issues, "… "+strconv.Itoa(len(ix.issues)-maxIssues)+" more")
			break
		}
		d.Issues = append(d.Issues, s)
	}
	return d, nil
}

type metricItem struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Label       *string  `json:"label"`
	Description *string  `json:"description"`
	Compilable  bool     `json:"compilable"`
	Dimensions  []string `json:"dimensions,omitempty"`
}

func matches(search *string, texts ...*string) bool {
	if search == nil || *search == "" {
		return true
	}
	s := strings.ToLower(*search)
	for _, t := range texts {
		if t != nil && strings.Contains(strings.ToLower(*t), s) {
			return true
		}
	}
	return false
}

func (ix *index) listMetrics(search *string, withDims bool, limit int) collection {
	names := append([]string(nil), ix.metricOrder...)
	sort.Strings(names)
	items := []metricItem{}
	truncated := false
	for _, n := range names {
		m := ix.metrics[n]
		name := m.Name
		if !matches(search, &name, m.Label, m.Description) {
			continue
		}
		if len(items) == limit {
			truncated = true
			break
		}
		it := metricItem{Name: m.Name, Type: m.Type, Label: m.Label, Description: m.Description}
		gbs, err := ix.groupByItems([]string{n})
		it.Compilable = err == nil
		if withDims && err == nil {
			it.Dimensions = []string{}
			for _, g := range gbs {
				it.Dimensions = append(it.Dimensions, g.Name)
			}
		}
		items = append(items, it)
	}
	return fitCollection(items, truncated)
}

// fitCollection cuts items until the response fits MaxResponseBytes.
func fitCollection[T any](items []T, truncated bool) collection {
	for len(items) > 0 {
		b, err := json.Marshal(items)
		if err == nil && len(b) < MaxResponseBytes-4096 {
			break
		}
		items, truncated = items[:len(items)*3/4], true
	}
	return collection{Items: items, Truncated: truncated}
}

type savedQueryItem struct {
	Name        string   `json:"name"`
	Label       *string  `json:"label"`
	Description *string  `json:"description"`
	Metrics     []string `json:"metrics"`
	GroupBy     []string `json:"group_by"`
	Where       []string `json:"where"`
	OrderBy     []string `json:"order_by"`
	Limit       *int64   `json:"limit"`
}

func (ix *index) listSavedQueries(search *string, limit int) collection {
	names := append([]string(nil), ix.savedOrder...)
	sort.Strings(names)
	items := []savedQueryItem{}
	truncated := false
	for _, n := range names {
		sq := ix.saved[n]
		name := sq.Name
		if !matches(search, &name, sq.Label, sq.Description) {
			continue
		}
		if len(items) == limit {
			truncated = true
			break
		}
		it := savedQueryItem{Name: sq.Name, Label: sq.Label, Description: sq.Description,
			Metrics: nonNil(sq.QueryParams.Metrics), GroupBy: nonNil(sq.QueryParams.GroupBy),
			OrderBy: nonNil(sq.QueryParams.OrderBy), Where: []string{}, Limit: sq.QueryParams.Limit}
		if sq.QueryParams.Where != nil {
			for _, w := range sq.QueryParams.Where.list() {
				it.Where = append(it.Where, w.WhereSQLTemplate)
			}
		}
		items = append(items, it)
	}
	return fitCollection(items, truncated)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
