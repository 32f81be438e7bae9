package semanticprovider

import (
	"strings"
)

// QueryRequest is the request of compile_query, as the server forwards it
// from compile_metricflow_query and execute_metricflow_query.
type QueryRequest struct {
	Metrics    []string `json:"metrics"`
	SavedQuery *string  `json:"saved_query"`
	GroupBy    []string `json:"group_by"`
	Where      []string `json:"where"`
	StartTime  *string  `json:"start_time"`
	EndTime    *string  `json:"end_time"`
	OrderBy    []string `json:"order_by"`
	Limit      *int64   `json:"limit"`
}

// Compiled is a compiled statement.
type Compiled struct {
	SQL     string
	Columns []string // output column names, in order
}

// Request bounds (the server's input schema has the same ones).
const (
	maxListItems  = 64
	maxWhere      = 16
	maxWhereBytes = 2048
	maxLimit      = 100000
)

// gbItem is one requested group-by.
type gbItem struct {
	r    ref
	name string // output column
}

// query is a request with its saved query resolved and its parts parsed.
type query struct {
	metrics []string
	groupBy []gbItem
	where   []*filter
	start   *string
	end     *string
	orderBy []ref
	limit   *int64
}

// prepare checks the bounds of req and resolves a saved query into it: the
// saved query gives metrics, group-bys, filters, order and limit; the
// request may add filters and a time range and replace order and limit.
func (c *compiler) prepare(req *QueryRequest) (*query, *Error) {
	q := &query{start: req.StartTime, end: req.EndTime, limit: req.Limit}
	groupBy, orderBy, where := req.GroupBy, req.OrderBy, req.Where
	switch {
	case req.SavedQuery != nil && len(req.Metrics) > 0:
		return nil, fail(ReasonRequestInvalid, "give metrics or saved_query, not both")
	case req.SavedQuery != nil:
		sq := c.ix.saved[*req.SavedQuery]
		if sq == nil {
			return nil, fail(ReasonSavedQueryNotFound, "no saved query "+*req.SavedQuery)
		}
		if len(req.GroupBy) > 0 {
			return nil, fail(ReasonRequestInvalid, "a saved query fixes its group-bys")
		}
		q.metrics = sq.QueryParams.Metrics
		groupBy = sq.QueryParams.GroupBy
		if len(orderBy) == 0 {
			orderBy = sq.QueryParams.OrderBy
		}
		if q.limit == nil {
			q.limit = sq.QueryParams.Limit
		}
		if sq.QueryParams.Where != nil {
			for _, w := range sq.QueryParams.Where.list() {
				f, err := c.parseFilter(w.WhereSQLTemplate)
				if err != nil {
					err.Detail = "where of saved query " + sq.Name + ": " + err.Detail
					return nil, err
				}
				q.where = append(q.where, f)
			}
		}
	default:
		q.metrics = req.Metrics
	}
	if len(q.metrics) == 0 || len(q.metrics) > maxListItems {
		return nil, fail(ReasonRequestInvalid, "give 1 to 64 metrics")
	}
	if len(groupBy) > maxListItems || len(orderBy) > maxListItems || len(where) > maxWhere {
		return nil, fail(ReasonRequestInvalid, "too many group_by, order_by or where items")
	}
	if q.limit != nil && (*q.limit < 1 || *q.limit > maxLimit) {
		return nil, fail(ReasonLimitInvalid, "limit must be 1 to 100000")
	}
	seenMetric := map[string]bool{}
	for _, m := range q.metrics {
		if seenMetric[m] {
			return nil, fail(ReasonRequestInvalid, "metric "+m+" is requested twice")
		}
		seenMetric[m] = true
	}
	for _, w := range where {
		if len(w) > maxWhereBytes {
			return nil, fail(ReasonWhereInvalid, "a where filter is longer than 2048 bytes")
		}
		f, err := c.parseFilter(w)
		if err != nil {
			return nil, err
		}
		q.where = append(q.where, f)
	}
	for _, s := range groupBy {
		if len(s) > 256 {
			return nil, fail(ReasonGroupByInvalid, "a group_by item is longer than 256 bytes")
		}
		r, err := parseItem(s, false)
		if err != nil {
			return nil, err
		}
		if r.kind == refMetric {
			return nil, fail(ReasonGroupByInvalid, "a metric cannot be a group-by")
		}
		q.groupBy = append(q.groupBy, gbItem{r: r})
	}
	for _, s := range orderBy {
		if len(s) > 257 {
			return nil, fail(ReasonOrderByInvalid, "an order_by item is longer than 257 bytes")
		}
		r, err := parseItem(s, true)
		if err != nil {
			return nil, err
		}
		q.orderBy = append(q.orderBy, r)
	}
	return q, nil
}

// Compile compiles a compile_query request against the manifest.
func (ix *index) Compile(req *QueryRequest) (*Compiled, *Error) {
	c := newCompiler(ix)
	q, err := c.prepare(req)
	if err != nil {
		return nil, err
	}
	var roots []*node
	for _, name := range q.metrics {
		n, err := c.metric(name, q.where, nil, 0)
		if err != nil {
			return nil, err
		}
		roots = append(roots, n)
	}
	pl, err := c.plan(q)
	if err != nil {
		return nil, err
	}
	scans := c.scans()
	var scanSQL []string
	for _, sc := range scans {
		s, err := pl.scanSQL(sc, false)
		if err != nil {
			return nil, err
		}
		scanSQL = append(scanSQL, s)
	}
	names := pl.names()
	combined := pl.combine(scans, scanSQL)

	var sel []string
	cols := append([]string(nil), names...)
	for _, n := range names {
		sel = append(sel, col("c", n)+" AS "+quote(n))
	}
	for i, n := range roots {
		x, err := pl.metricExpr(n)
		if err != nil {
			return nil, err
		}
		sel = append(sel, x+" AS "+quote(q.metrics[i]))
		cols = append(cols, q.metrics[i])
	}
	if dup := firstDuplicate(cols); dup != "" {
		return nil, fail(ReasonGroupByInvalid, "output column "+dup+" appears twice")
	}
	var b strings.Builder
	b.WriteString("SELECT\n  " + strings.Join(sel, "\n  , ") + "\nFROM (\n" + indent(combined) + "\n) AS `c`")
	if len(q.orderBy) > 0 {
		var ob []string
		for _, r := range q.orderBy {
			name, err := pl.orderColumn(r, q.metrics)
			if err != nil {
				return nil, err
			}
			if r.descending {
				ob = append(ob, quote(name)+" DESC")
			} else {
				ob = append(ob, quote(name))
			}
		}
		b.WriteString("\nORDER BY " + strings.Join(ob, ", "))
	}
	if q.limit != nil {
		b.WriteString("\nLIMIT " + c.p.int(*q.limit))
	}
	sql, err := c.p.bind(b.String())
	if err != nil {
		return nil, err
	}
	return &Compiled{SQL: sql, Columns: cols}, nil
}

// DimensionValuesRequest is the request of compile_dimension_values.
type DimensionValuesRequest struct {
	Metrics   []string
	Dimension string
	StartTime *string
	EndTime   *string
	Limit     *int64
}

// DimensionValues compiles the distinct values of one group-by among the
// rows of the given metrics' measures (within the time range, under the
// metrics' filters), in ascending order.
func (ix *index) DimensionValues(req *DimensionValuesRequest) (*Compiled, *Error) {
	c := newCompiler(ix)
	qr := &QueryRequest{Metrics: req.Metrics, GroupBy: []string{req.Dimension}, StartTime: req.StartTime, EndTime: req.EndTime, Limit: req.Limit}
	q, err := c.prepare(qr)
	if err != nil {
		if err.Reason == ReasonGroupByInvalid {
			err.Reason = ReasonDimensionInvalid
		}
		return nil, err
	}
	for _, name := range q.metrics {
		if _, err := c.metric(name, nil, nil, 0); err != nil {
			return nil, err
		}
	}
	pl, err := c.plan(q)
	if err != nil {
		if err.Reason == ReasonGroupByInvalid {
			err.Reason = ReasonDimensionInvalid
		}
		return nil, err
	}
	var parts []string
	seen := map[string]bool{}
	for _, sc := range c.scans() {
		s, err := pl.scanSQL(sc, true)
		if err != nil {
			return nil, err
		}
		if !seen[s] { // leaves that differ only in offset or window read the same rows
			seen[s] = true
			parts = append(parts, s)
		}
	}
	name := pl.names()[0]
	inner := parts[0]
	for _, s := range parts[1:] {
		inner += "\nUNION\n" + s
	}
	sql := "SELECT\n  " + col("v", name) + " AS " + quote(name) + "\nFROM (\n" + indent(inner) + "\n) AS `v`\nORDER BY " + quote(name)
	if q.limit != nil {
		sql += "\nLIMIT " + c.p.int(*q.limit)
	}
	out, err := c.p.bind(sql)
	if err != nil {
		return nil, err
	}
	return &Compiled{SQL: out, Columns: []string{name}}, nil
}

func firstDuplicate(names []string) string {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return n
		}
		seen[n] = true
	}
	return ""
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
