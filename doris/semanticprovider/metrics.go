package semanticprovider

import (
	"sort"
	"strconv"
	"strings"
)

// A metric compiles to a tree: leaves are aggregated measure inputs (with
// the filters that apply to them, and an offset or cumulative window), and
// inner nodes are ratio and derived metrics computed over the leaves'
// values in the combined row.

type nodeKind int

const (
	nodeLeaf nodeKind = iota
	nodeRatio
	nodeDerived
)

type node struct {
	kind nodeKind
	// nodeLeaf
	leaf *leaf
	fill *int64 // fill_nulls_with
	// nodeRatio
	num, den *node
	// nodeDerived
	expr   *sqlExpr
	inputs map[string]*node
}

// leaf is one aggregated measure input. Leaves with equal keys are
// computed once.
type leaf struct {
	key     string
	measure *measure
	filters []*filter
	offset  *offset
	cum     *cumulative
	// spineJoin: join_to_timespine, every period of the time spine gets a
	// row (applied when the query groups by metric_time).
	spineJoin bool
	index     int // position in the compiler's leaf list
}

type filter struct {
	text string
	expr *sqlExpr
}

// offset shifts an input metric in time (derived metrics' offset_window
// and offset_to_grain).
type offset struct {
	count   int64
	window  grain // grainNone with toGrain set
	toGrain grain
}

// cumulative is a cumulative metric's accumulation window.
type cumulative struct {
	count       int64 // window size, 0 for none
	window      grain
	grainToDate grain
	periodAgg   string // first, last, average
}

func (o *offset) key() string {
	if o == nil {
		return ""
	}
	return "|o" + strconv.FormatInt(o.count, 10) + o.window.String() + "/" + o.toGrain.String()
}

func (c *cumulative) key() string {
	if c == nil {
		return ""
	}
	return "|c" + strconv.FormatInt(c.count, 10) + c.window.String() + "/" + c.grainToDate.String() + "/" + c.periodAgg
}

// compiler holds the state of one compilation.
type compiler struct {
	ix      *index
	leaves  []*leaf
	leafBy  map[string]*leaf
	filters map[string]*filter
	p       *params
}

func newCompiler(ix *index) *compiler {
	return &compiler{ix: ix, leafBy: map[string]*leaf{}, filters: map[string]*filter{}, p: newParams()}
}

// maxMetricDepth bounds ratio and derived nesting, and so cycles.
const maxMetricDepth = 16

// maxLeaves bounds the aggregated subqueries of one statement.
const maxLeaves = 64

// parseFilter parses (once per compilation) a where filter.
func (c *compiler) parseFilter(text string) (*filter, *Error) {
	if f, ok := c.filters[text]; ok {
		return f, nil
	}
	e, err := parseExpr(text, modeFilter, nil, ReasonWhereInvalid)
	if err != nil {
		return nil, err
	}
	f := &filter{text: text, expr: e}
	c.filters[text] = f
	return f, nil
}

// manifestFilters parses filters written in the manifest: one outside the
// grammar is the manifest's problem, not the request's.
func (c *compiler) manifestFilters(w *WhereFilters, what string) ([]*filter, *Error) {
	fs, err := c.whereFilters(w)
	if err != nil {
		err.Detail = "filter of " + what + ": " + err.Detail
		if err.Reason == ReasonWhereInvalid {
			err.Reason = ReasonExpressionUnsupported
		}
		return nil, err
	}
	return fs, nil
}

func (c *compiler) whereFilters(w *WhereFilters) ([]*filter, *Error) {
	if w == nil {
		return nil, nil
	}
	var out []*filter
	for _, wf := range w.list() {
		f, err := c.parseFilter(wf.WhereSQLTemplate)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// metricNode builds the tree of a metric with no inherited context.
func (c *compiler) metricNode(name string, depth int) (*node, *Error) {
	return c.metric(name, nil, nil, depth)
}

// metric builds the tree of metric name; inherited are filters from the
// query and from enclosing metrics, off an offset from an enclosing
// derived metric.
func (c *compiler) metric(name string, inherited []*filter, off *offset, depth int) (*node, *Error) {
	if depth > maxMetricDepth {
		return nil, fail(ReasonMetricCycle, "metric "+name+" nests deeper than 16 levels or refers to itself")
	}
	m := c.ix.metrics[name]
	if m == nil {
		return nil, fail(ReasonMetricNotFound, "no metric "+name)
	}
	if err := c.ix.metricErr[name]; err != nil {
		return nil, err
	}
	own, err := c.manifestFilters(m.Filter, "metric "+name)
	if err != nil {
		return nil, err
	}
	filters := append(append([]*filter(nil), inherited...), own...)
	tp := &m.TypeParams
	switch m.Type {
	case "simple":
		return c.simple(m, filters, off)
	case "cumulative":
		return c.cumulative(m, filters, off)
	case "ratio":
		if tp.Numerator == nil || tp.Denominator == nil {
			return nil, elementInvalid("ratio metric %s needs a numerator and a denominator", name)
		}
		num, err := c.input(tp.Numerator, filters, off, depth)
		if err != nil {
			return nil, err
		}
		den, err := c.input(tp.Denominator, filters, off, depth)
		if err != nil {
			return nil, err
		}
		return &node{kind: nodeRatio, num: num, den: den}, nil
	case "derived":
		if tp.Expr == nil || len(tp.Metrics) == 0 {
			return nil, elementInvalid("derived metric %s needs expr and metrics", name)
		}
		n := &node{kind: nodeDerived, inputs: map[string]*node{}}
		names := map[string]bool{}
		for i := range tp.Metrics {
			in := &tp.Metrics[i]
			key := in.Name
			if in.Alias != nil && *in.Alias != "" {
				key = *in.Alias
			}
			if names[key] {
				return nil, elementInvalid("derived metric %s names input %s twice", name, key)
			}
			names[key] = true
			sub, err := c.input(in, filters, off, depth)
			if err != nil {
				return nil, err
			}
			n.inputs[key] = sub
		}
		e, perr := parseExpr(*tp.Expr, modeMetrics, names, ReasonExpressionUnsupported)
		if perr != nil {
			perr.Detail = "expr of metric " + name + ": " + perr.Detail
			return nil, perr
		}
		n.expr = e
		return n, nil
	case "conversion":
		return nil, fail(ReasonConversionUnsupported, "conversion metric "+name)
	}
	return nil, elementInvalid("metric %s has unknown type %s", name, m.Type)
}

// input builds an input metric of a ratio or derived metric, with its own
// filter and offset.
func (c *compiler) input(in *MetricInput, filters []*filter, off *offset, depth int) (*node, *Error) {
	own, err := c.manifestFilters(in.Filter, "input "+in.Name)
	if err != nil {
		return nil, err
	}
	if in.OffsetWindow != nil || in.OffsetToGrain != nil {
		if off != nil {
			return nil, fail(ReasonOffsetUnsupported, "an offset inside an offset input")
		}
		off = &offset{}
		if in.OffsetWindow != nil {
			g, ok := parseWindowGrain(in.OffsetWindow.Granularity)
			if !ok || in.OffsetWindow.Count < 0 || in.OffsetWindow.Count > 100000 {
				return nil, fail(ReasonOffsetUnsupported, "offset_window of input "+in.Name)
			}
			off.count, off.window = in.OffsetWindow.Count, g
		}
		if in.OffsetToGrain != nil {
			if in.OffsetWindow != nil {
				return nil, fail(ReasonOffsetUnsupported, "offset_window with offset_to_grain")
			}
			g, known := parseGrain(strings.ToLower(*in.OffsetToGrain))
			if !known || g == grainNone {
				return nil, fail(ReasonOffsetUnsupported, "offset_to_grain of input "+in.Name)
			}
			off.toGrain = g
		}
	}
	return c.metric(in.Name, append(append([]*filter(nil), filters...), own...), off, depth+1)
}

// simple builds a simple metric's leaf.
func (c *compiler) simple(m *Metric, filters []*filter, off *offset) (*node, *Error) {
	return c.measureLeaf(m, filters, off, nil)
}

// measureLeaf is the leaf of a metric over one measure (simple and
// cumulative metrics): the measure with its own input filter added to
// filters.
func (c *compiler) measureLeaf(m *Metric, filters []*filter, off *offset, cum *cumulative) (*node, *Error) {
	me, fill, spineJoin, err := c.measureOf(m)
	if err != nil {
		return nil, err
	}
	if in := m.TypeParams.Measure; in != nil {
		own, err := c.manifestFilters(in.Filter, "measure input "+in.Name)
		if err != nil {
			return nil, err
		}
		filters = append(append([]*filter(nil), filters...), own...)
	}
	l, err := c.leaf(me, filters, off, cum, spineJoin)
	if err != nil {
		return nil, err
	}
	return &node{kind: nodeLeaf, leaf: l, fill: fill}, nil
}

// measureOf returns the measure of a simple or cumulative metric: its
// measure input, or one made from metric_aggregation_params.
func (c *compiler) measureOf(m *Metric) (*measure, *int64, bool, *Error) {
	me, fill, err := c.measureOf1(m)
	tp := &m.TypeParams
	spineJoin := tp.JoinToTimespine != nil && *tp.JoinToTimespine
	if tp.Measure != nil && tp.Measure.JoinToTimespine != nil && *tp.Measure.JoinToTimespine {
		spineJoin = true
	}
	return me, fill, spineJoin, err
}

func (c *compiler) measureOf1(m *Metric) (*measure, *int64, *Error) {
	tp := &m.TypeParams
	fill := tp.FillNullsWith
	if tp.Measure != nil {
		if tp.Measure.FillNullsWith != nil {
			fill = tp.Measure.FillNullsWith
		}
		me := c.ix.measures[tp.Measure.Name]
		if me == nil {
			if err := c.ix.measureErr[tp.Measure.Name]; err != nil {
				return nil, nil, err
			}
			return nil, nil, fail(ReasonElementInvalid, "metric "+m.Name+" refers to missing measure "+tp.Measure.Name)
		}
		return me, fill, nil
	}
	mp := tp.MetricAggregationParams
	if mp == nil {
		return nil, nil, elementInvalid("metric %s has neither a measure nor metric_aggregation_params", m.Name)
	}
	md := c.ix.modelByName[mp.SemanticModel]
	if md == nil {
		if err := c.ix.modelErr[mp.SemanticModel]; err != nil {
			return nil, nil, err
		}
		return nil, nil, fail(ReasonElementInvalid, "metric "+m.Name+" refers to missing semantic model "+mp.SemanticModel)
	}
	me := &measure{name: m.Name, agg: mp.Agg, model: md, aggTime: md.aggTime, aggParams: mp.AggParams, nonAdd: mp.NonAdditiveDimension}
	if mp.AggTimeDimension != nil {
		me.aggTime = *mp.AggTimeDimension
	}
	expr := tp.Expr
	if mp.Expr != nil { // dbt Fusion writes the expression here
		expr = mp.Expr
	}
	me.expr, me.err = columnExpr(m.Name, expr)
	return me, fill, nil
}

// cumulative builds a cumulative metric's leaf.
func (c *compiler) cumulative(m *Metric, filters []*filter, off *offset) (*node, *Error) {
	if off != nil {
		return nil, fail(ReasonOffsetUnsupported, "an offset input that is cumulative")
	}
	tp := &m.TypeParams
	cum := &cumulative{periodAgg: "first"}
	window, gtd := tp.Window, tp.GrainToDate
	if ct := tp.CumulativeTypeParams; ct != nil {
		if ct.Window != nil {
			window = ct.Window
		}
		if ct.GrainToDate != nil {
			gtd = ct.GrainToDate
		}
		if ct.PeriodAgg != nil {
			cum.periodAgg = *ct.PeriodAgg
		}
		if ct.Metric != nil {
			return nil, fail(ReasonAggregationUnsupported, "cumulative metric "+m.Name+" over a metric input")
		}
	}
	switch cum.periodAgg {
	case "first", "last", "average":
	default:
		return nil, elementInvalid("cumulative metric %s has unknown period_agg %s", m.Name, cum.periodAgg)
	}
	if window != nil && gtd != nil {
		return nil, elementInvalid("cumulative metric %s has both window and grain_to_date", m.Name)
	}
	if window != nil {
		g, ok := parseWindowGrain(window.Granularity)
		if !ok || window.Count <= 0 || window.Count > 100000 {
			return nil, fail(ReasonGrainUnsupported, "window of cumulative metric "+m.Name)
		}
		cum.count, cum.window = window.Count, g
	}
	if gtd != nil {
		g, known := parseGrain(strings.ToLower(*gtd))
		if !known || g == grainNone {
			return nil, fail(ReasonGrainUnsupported, "grain_to_date of cumulative metric "+m.Name)
		}
		cum.grainToDate = g
	}
	return c.measureLeaf(m, filters, nil, cum)
}

// leaf returns the leaf for a measure under filters, offset and window,
// creating it on first use. A measure the compiler cannot aggregate
// faithfully is refused here.
func (c *compiler) leaf(me *measure, filters []*filter, off *offset, cum *cumulative, spineJoin bool) (*leaf, *Error) {
	if me.err != nil {
		return nil, me.err
	}
	if _, err := percentileOf(me); err != nil {
		return nil, err
	}
	if me.nonAdd != nil {
		return nil, fail(ReasonNonAdditiveUnsupported, "measure "+me.name+" is semi-additive")
	}
	if me.aggTime == "" {
		return nil, elementInvalid("measure %s has no agg_time_dimension", me.name)
	}
	td := me.model.dimBy[me.aggTime]
	if td == nil || !td.isTime {
		return nil, elementInvalid("agg_time_dimension of measure %s is not a time dimension of its model", me.name)
	}
	if td.err != nil {
		return nil, td.err
	}
	if (off != nil || cum != nil) && c.ix.spine == nil {
		if c.ix.spineErr != nil {
			return nil, c.ix.spineErr
		}
		return nil, fail(ReasonTimeSpineRequired, "offsets and cumulative metrics need a time spine in the manifest")
	}
	// The key identifies the aggregation: filters are sorted and deduplicated,
	// since their order does not change the rows.
	texts := make([]string, 0, len(filters))
	seen := map[string]bool{}
	var fs []*filter
	for _, f := range filters {
		if !seen[f.text] {
			seen[f.text] = true
			texts = append(texts, f.text)
			fs = append(fs, f)
		}
	}
	sort.Strings(texts)
	sort.Slice(fs, func(i, j int) bool { return fs[i].text < fs[j].text })
	key := me.model.name + "." + me.name + "|" + strings.Join(texts, "\x00") + off.key() + cum.key()
	if spineJoin {
		key += "|j"
	}
	if l, ok := c.leafBy[key]; ok {
		return l, nil
	}
	if len(c.leaves) >= maxLeaves {
		return nil, fail(ReasonQueryTooComplex, "more than 64 measure inputs")
	}
	l := &leaf{key: key, measure: me, filters: fs, offset: off, cum: cum, spineJoin: spineJoin, index: len(c.leaves)}
	c.leaves = append(c.leaves, l)
	c.leafBy[key] = l
	return l, nil
}

// percentile is how a median or percentile measure aggregates.
type percentile struct {
	p      float64
	approx bool
}

// percentileOf returns the percentile of a median or percentile measure
// (nil for other aggregations), as MetricFlow reads agg_params: a median
// is the continuous 50th percentile. Doris computes continuous
// percentiles exactly (PERCENTILE) or approximately (PERCENTILE_APPROX);
// it has no discrete percentile, so use_discrete_percentile is refused.
func percentileOf(me *measure) (*percentile, *Error) {
	ap := me.aggParams
	switch me.agg {
	case "median":
		pc := &percentile{p: 0.5}
		if ap != nil {
			pc.approx = ap.UseApproximatePercentile != nil && *ap.UseApproximatePercentile
			if ap.UseDiscretePercentile != nil && *ap.UseDiscretePercentile {
				return nil, fail(ReasonAggregationUnsupported, "measure "+me.name+": Doris has no discrete percentile")
			}
		}
		return pc, nil
	case "percentile":
		if ap == nil || ap.Percentile == nil || *ap.Percentile < 0 || *ap.Percentile > 1 {
			return nil, fail(ReasonElementInvalid, "measure "+me.name+": agg_params.percentile must be between 0 and 1")
		}
		if ap.UseDiscretePercentile != nil && *ap.UseDiscretePercentile {
			return nil, fail(ReasonAggregationUnsupported, "measure "+me.name+": Doris has no discrete percentile")
		}
		return &percentile{p: *ap.Percentile, approx: ap.UseApproximatePercentile != nil && *ap.UseApproximatePercentile}, nil
	}
	return nil, nil
}
