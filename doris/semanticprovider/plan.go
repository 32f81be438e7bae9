package semanticprovider

import (
	"strconv"
	"strings"
)

// planner writes the SQL of one compilation once the metric trees (and so
// the leaves) are known.
type planner struct {
	c       *compiler
	q       *query
	base    grain // finest metric_time granularity requested, grainNone if none
	rng     timeRange
	hasTime bool // a metric_time group-by was requested
}

// plan fixes the granularity of metric_time, the output names and the time
// range, and checks every group-by against every leaf.
func (c *compiler) plan(q *query) (*planner, *Error) {
	pl := &planner{c: c, q: q}
	// metric_time without a granularity takes the coarsest of the leaves'
	// aggregation time granularities: the finest valid for all of them.
	def := grainDay
	for i, l := range c.leaves {
		g := l.measure.model.dimBy[l.measure.aggTime].grain
		if i == 0 || g > def {
			def = g
		}
	}
	// A metric's own default (time_granularity, default_granularity in
	// dbt-semantic-interfaces 0.6) is coarser still: the coarsest wins.
	for _, name := range q.metrics {
		if m := c.ix.metrics[name]; m != nil {
			for _, s := range []*string{m.TimeGranularity, m.DefaultGranularity} {
				if s == nil {
					continue
				}
				if g, known := parseGrain(strings.ToLower(*s)); known && g > def {
					def = g
				}
			}
		}
	}
	for i := range q.groupBy {
		r := &q.groupBy[i].r
		if r.element == metricTime && len(r.links) == 0 {
			if r.grain == grainNone {
				r.grain = def
			}
			pl.hasTime = true
			if pl.base == grainNone || r.grain < pl.base {
				pl.base = r.grain
			}
		}
	}
	rg := pl.base
	if rg == grainNone {
		rg = def
	}
	var err *Error
	if pl.rng, err = makeRange(q.start, q.end, rg); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range q.groupBy {
		it := &q.groupBy[i]
		for j, l := range c.leaves {
			el, err := c.ix.resolve(l.measure, it.r)
			if err != nil {
				return nil, err
			}
			name := outName(it.r, el)
			if j == 0 {
				it.name = name
			} else if name != it.name {
				return nil, fail(ReasonGroupByInvalid, it.r.text+" has different granularities for different metrics")
			}
		}
		if seen[it.name] {
			return nil, fail(ReasonGroupByInvalid, "group-by "+it.name+" is requested twice")
		}
		seen[it.name] = true
	}
	// A query without metric_time may group by a measure's own aggregation
	// time dimension, which then stands for metric_time (as in MetricFlow).
	if !pl.hasTime {
		for _, l := range c.leaves {
			if g := pl.ownTime(l); g != grainNone && (pl.base == grainNone || g < pl.base) {
				pl.base = g
			}
		}
	}
	for _, l := range c.leaves {
		axis := pl.hasTime || pl.ownTime(l) != grainNone
		if l.spineJoin && axis {
			if l.offset != nil || l.cum != nil {
				return nil, fail(ReasonTimeSpineJoinUnsupported, "join_to_timespine on an offset or cumulative input")
			}
			if !pl.hasTime {
				return nil, fail(ReasonTimeSpineJoinUnsupported, "join_to_timespine needs metric_time in group_by")
			}
			if pl.base < grainDay {
				return nil, fail(ReasonGrainUnsupported, "join_to_timespine needs metric_time at day or coarser (the time spine is daily)")
			}
			if c.ix.spine == nil {
				if c.ix.spineErr != nil {
					return nil, c.ix.spineErr
				}
				return nil, fail(ReasonTimeSpineRequired, "join_to_timespine needs a time spine in the manifest")
			}
			// MetricFlow applies a filter on a queried group-by again after
			// the join to the spine (dropping the spine's empty periods);
			// this provider does not yet.
			for _, f := range l.filters {
				for _, r := range f.expr.refs {
					if el, err := c.ix.resolve(l.measure, r); err == nil && seen[outName(r, el)] {
						return nil, fail(ReasonTimeSpineJoinUnsupported, "join_to_timespine with a filter on a queried group-by")
					}
				}
			}
		}
		if l.offset == nil && l.cum == nil {
			continue
		}
		if !axis {
			if l.cum != nil && l.cum.count == 0 && l.cum.grainToDate == grainNone {
				// All time and no time to accumulate over: the measure over
				// every row, as MetricFlow compiles it.
				l.cum = nil
				continue
			}
			return nil, fail(ReasonMetricTimeRequired, "offset and windowed cumulative metrics need metric_time (or their aggregation time dimension) in group_by")
		}
		if pl.base < grainDay {
			return nil, fail(ReasonGrainUnsupported, "offset and cumulative metrics need metric_time at day or coarser (the time spine is daily)")
		}
		if l.offset == nil {
			continue // a time filter on a cumulative metric filters its output periods
		}
		for _, f := range l.filters {
			for _, r := range f.expr.refs {
				if r.element == metricTime && len(r.links) == 0 {
					return nil, fail(ReasonWhereInvalid, "filters on metric_time cannot apply to offset metrics; use start_time and end_time")
				}
			}
		}
	}
	return pl, nil
}

// ownTime returns the finest granularity at which the query groups by
// l's own aggregation time dimension on its own model, or grainNone.
func (pl *planner) ownTime(l *leaf) grain {
	td := l.measure.model.dimBy[l.measure.aggTime]
	best := grainNone
	for _, it := range pl.q.groupBy {
		el, err := pl.c.ix.resolve(l.measure, it.r)
		if err != nil || el.kind != elemTimeDimension || len(el.hops) > 0 || el.dim != td {
			continue
		}
		if best == grainNone || el.grain < best {
			best = el.grain
		}
	}
	return best
}

// names returns the group-by output columns in request order.
func (pl *planner) names() []string {
	out := make([]string, len(pl.q.groupBy))
	for i, it := range pl.q.groupBy {
		out[i] = it.name
	}
	return out
}

// leafCtx writes one leaf.
type leafCtx struct {
	pl    *planner
	l     *leaf
	p     *params
	joins *joinSet
	spine string // the output time at day (or base) granularity for spine leaves, "" otherwise
}

// trunc writes DATE_TRUNC(CAST(x AS DATETIME), 'g'). The cast makes every
// time column DATETIME whatever the column type, so that the time columns
// of different measures compare and COALESCE alike.
func trunc(p *params, x string, g grain) string {
	return "DATE_TRUNC(CAST(" + x + " AS DATETIME), " + p.str(g.String()) + ")"
}

// interval writes "INTERVAL n UNIT"; weeks and quarters in days and months.
func interval(p *params, n int64, g grain) string {
	switch g {
	case grainWeek:
		n, g = n*7, grainDay
	case grainQuarter:
		n, g = n*3, grainMonth
	}
	return "INTERVAL " + p.int(n) + " " + g.intervalUnit()
}

// exprAt writes a manifest expression over the table with alias.
func (lc *leafCtx) exprAt(e *sqlExpr, alias string) (string, *Error) {
	return renderer{p: lc.p, alias: alias}.render(e)
}

// element writes the SQL of a resolved element in this leaf.
func (lc *leafCtx) element(el element) (string, *Error) {
	if el.kind == elemMetricTime {
		if lc.spine != "" {
			return trunc(lc.p, lc.spine, el.grain), nil
		}
		x, err := lc.exprAt(el.dim.expr, "s0")
		if err != nil {
			return "", err
		}
		return trunc(lc.p, x, el.grain), nil
	}
	if lc.spine != "" && el.kind == elemTimeDimension && len(el.hops) == 0 && el.dim == lc.l.measure.model.dimBy[lc.l.measure.aggTime] {
		return trunc(lc.p, lc.spine, el.grain), nil // the aggregation time stands for metric_time
	}
	alias := lc.joins.aliasFor(el.hops)
	switch el.kind {
	case elemEntity:
		return lc.exprAt(el.ent.expr, alias)
	case elemTimeDimension:
		x, err := lc.exprAt(el.dim.expr, alias)
		if err != nil {
			return "", err
		}
		return trunc(lc.p, x, el.grain), nil
	}
	return lc.exprAt(el.dim.expr, alias)
}

// filterSQL writes a where filter in this leaf.
func (lc *leafCtx) filterSQL(f *filter) (string, *Error) {
	r := renderer{p: lc.p, ref: func(i int) (string, *Error) {
		el, err := lc.pl.c.ix.resolve(lc.l.measure, f.expr.refs[i])
		if err != nil {
			if err.Reason == ReasonGroupByInvalid {
				err.Reason = ReasonWhereInvalid
			}
			return "", err
		}
		return lc.element(el)
	}}
	s, err := r.render(f.expr)
	if err != nil {
		return "", err
	}
	return "(" + s + ")", nil
}

// aggregate writes a measure's aggregation.
func (lc *leafCtx) aggregate(me *measure) (string, *Error) {
	x, err := lc.exprAt(me.expr, "s0")
	if err != nil {
		return "", err
	}
	switch me.agg {
	case "sum":
		return "SUM(" + x + ")", nil
	case "count":
		return "COUNT(" + x + ")", nil
	case "count_distinct":
		return "COUNT(DISTINCT " + x + ")", nil
	case "average":
		return "AVG(" + x + ")", nil
	case "min":
		return "MIN(" + x + ")", nil
	case "max":
		return "MAX(" + x + ")", nil
	case "sum_boolean":
		return "SUM(CASE WHEN " + x + " THEN " + lc.p.int(1) + " ELSE " + lc.p.int(0) + " END)", nil
	case "median", "percentile":
		pc, err := percentileOf(me)
		if err != nil {
			return "", err
		}
		fn := "PERCENTILE"
		if pc.approx {
			fn = "PERCENTILE_APPROX"
		}
		return fn + "(" + x + ", " + lc.p.num(strconv.FormatFloat(pc.p, 'f', -1, 64)) + ")", nil
	}
	return "", fail(ReasonAggregationUnsupported, "aggregation "+me.agg)
}

// valueCol is the internal column of leaf i's value; "$" cannot occur in
// a manifest name, so it never collides with an output column.
func valueCol(i int) string { return "$m" + strconv.Itoa(i) }

// scan is a set of leaves read in one pass: measures of the same semantic
// model with the same aggregation time, filters, offset and window, as
// MetricFlow reads them.
type scan struct {
	leaves []*leaf
}

// scans groups the compiler's leaves, in order of first leaf.
func (c *compiler) scans() []*scan {
	var out []*scan
	by := map[string]*scan{}
	for _, l := range c.leaves {
		k := l.measure.model.name + "\x00" + l.measure.aggTime + "\x00" + strings.TrimPrefix(l.key, l.measure.model.name+"."+l.measure.name)
		if l.offset != nil || l.cum != nil {
			k = l.key // a spine leaf is read alone
		}
		if sc, ok := by[k]; ok {
			sc.leaves = append(sc.leaves, l)
			continue
		}
		sc := &scan{leaves: []*leaf{l}}
		by[k] = sc
		out = append(out, sc)
	}
	return out
}

// scanSQL writes one scan: its measures aggregated per group-by, or with
// distinct set, only the distinct group-by values (for dimension values).
func (pl *planner) scanSQL(sc *scan, distinct bool) (string, *Error) {
	l := sc.leaves[0]
	lc := &leafCtx{pl: pl, l: l, p: pl.c.p, joins: newJoinSet(l.measure.model)}
	me := l.measure
	spineLeaf := !distinct && (l.offset != nil || l.cum != nil)
	var from string
	var where []string
	md := me.model
	table := md.rel.sql() + " AS `s0`"
	aggTime, err := lc.exprAt(md.dimBy[me.aggTime].expr, "s0")
	if err != nil {
		return "", err
	}
	if spineLeaf {
		sp := pl.c.ix.spine
		spineTable := sp.rel.sql() + " AS `$ts`"
		day := "CAST(" + col("$ts", sp.column) + " AS DATETIME)"
		// Built only where used: every placeholder must appear in the text.
		measureDay := func() string { return trunc(lc.p, aggTime, grainDay) }
		switch {
		case l.cum != nil:
			lc.spine = day
			on := []string{measureDay() + " <= " + day}
			switch {
			case l.cum.count > 0:
				on = append(on, measureDay()+" > DATE_SUB("+day+", "+interval(lc.p, l.cum.count, l.cum.window)+")")
			case l.cum.grainToDate != grainNone:
				on = append(on, measureDay()+" >= "+trunc(lc.p, day, l.cum.grainToDate))
			}
			from = spineTable + "\nINNER JOIN " + table + "\n  ON " + strings.Join(on, "\n  AND ")
		case l.offset.toGrain != grainNone:
			lc.spine = day
			from = spineTable + "\nINNER JOIN " + table + "\n  ON " + trunc(lc.p, day, l.offset.toGrain) + " = " + measureDay()
			if pl.base > grainDay {
				where = append(where, trunc(lc.p, day, pl.base)+" = "+day)
			}
		case pl.base.dividesInto(l.offset.window):
			// Shift whole periods of the query's granularity, as MetricFlow
			// does when the offset is a multiple of it.
			t := trunc(lc.p, day, pl.base)
			lc.spine = "`$sp`.`t`"
			from = "(\n  SELECT " + t + " AS `t`\n  FROM " + spineTable + "\n  GROUP BY " + t + "\n) AS `$sp`\nINNER JOIN " + table +
				"\n  ON DATE_SUB(`$sp`.`t`, " + interval(lc.p, l.offset.count, l.offset.window) + ") = " + trunc(lc.p, aggTime, pl.base)
		default:
			lc.spine = day
			from = spineTable + "\nINNER JOIN " + table + "\n  ON DATE_SUB(" + day + ", " + interval(lc.p, l.offset.count, l.offset.window) + ") = " + measureDay()
		}
		where = append(where, pl.rng.conds(lc.p, lc.spine)...)
	} else {
		from = table
		where = append(where, pl.rng.conds(lc.p, aggTime)...)
	}

	// Group-bys, then filters: both may add joins.
	var sel, group []string
	for _, it := range pl.q.groupBy {
		el, err := pl.c.ix.resolve(me, it.r)
		if err != nil {
			return "", err
		}
		x, err := lc.element(el)
		if err != nil {
			return "", err
		}
		sel = append(sel, x+" AS "+quote(it.name))
		group = append(group, x)
	}
	periodAgg := spineLeaf && l.cum != nil && pl.base > grainDay
	if periodAgg {
		x := trunc(lc.p, lc.spine, grainDay)
		sel = append(sel, x+" AS `$day`")
		group = append(group, x)
	}
	for _, f := range l.filters {
		s, err := lc.filterSQL(f)
		if err != nil {
			return "", err
		}
		where = append(where, s)
	}
	if !distinct {
		for _, sl := range sc.leaves {
			agg, err := lc.aggregate(sl.measure)
			if err != nil {
				return "", err
			}
			sel = append(sel, agg+" AS "+quote(valueCol(sl.index)))
		}
	}
	joins, err := lc.joinSQL()
	if err != nil {
		return "", err
	}

	var b strings.Builder
	b.WriteString("SELECT\n  " + strings.Join(sel, "\n  , ") + "\nFROM " + from)
	for _, j := range joins {
		b.WriteString("\n" + j)
	}
	if len(where) > 0 {
		b.WriteString("\nWHERE " + strings.Join(where, "\n  AND "))
	}
	if len(group) > 0 {
		b.WriteString("\nGROUP BY\n  " + strings.Join(group, "\n  , "))
	}
	if periodAgg {
		return pl.periodAgg(b.String(), l), nil
	}
	if !distinct && l.spineJoin && pl.hasTime {
		return pl.spineJoin(b.String(), sc), nil
	}
	return b.String(), nil
}

// spineJoin gives a join_to_timespine scan a row for every period of the
// time spine within the time range, as MetricFlow joins the aggregated
// measure to the spine on metric_time (LEFT OUTER JOIN from the spine):
// the other group-by columns and the value are NULL where the measure has
// no rows, and fill_nulls_with applies to the value.
func (pl *planner) spineJoin(agg string, sc *scan) string {
	p := pl.c.p
	sp := pl.c.ix.spine
	day := "CAST(" + col("$ts", sp.column) + " AS DATETIME)"
	t := trunc(p, day, pl.base)
	spine := "SELECT DISTINCT " + t + " AS `t`\nFROM " + sp.rel.sql() + " AS `$ts`"
	if conds := pl.rng.conds(p, day); len(conds) > 0 {
		spine += "\nWHERE " + strings.Join(conds, "\n  AND ")
	}
	var sel []string
	joinCol := ""
	for _, it := range pl.q.groupBy {
		if it.r.element == metricTime && len(it.r.links) == 0 {
			sel = append(sel, trunc(p, "`$tj`.`t`", it.r.grain)+" AS "+quote(it.name))
			if it.r.grain == pl.base && joinCol == "" {
				joinCol = it.name
			}
			continue
		}
		sel = append(sel, col("$q", it.name)+" AS "+quote(it.name))
	}
	for _, sl := range sc.leaves {
		sel = append(sel, col("$q", valueCol(sl.index))+" AS "+quote(valueCol(sl.index)))
	}
	return "SELECT\n  " + strings.Join(sel, "\n  , ") + "\nFROM (\n" + indent(spine) + "\n) AS `$tj`\nLEFT OUTER JOIN (\n" + indent(agg) +
		"\n) AS `$q`\n  ON " + col("$q", joinCol) + " = `$tj`.`t`"
}

// joinSQL writes the LEFT OUTER JOINs the leaf's elements asked for.
func (lc *leafCtx) joinSQL() ([]string, *Error) {
	var out []string
	for _, k := range lc.joins.order {
		h := lc.joins.hop[k]
		from := h.from.entityBy[h.entity]
		to := h.to.entityBy[h.entity]
		if from.err != nil {
			return nil, from.err
		}
		if to.err != nil {
			return nil, to.err
		}
		parent := "s0"
		if i := strings.LastIndex(k, "__"); i >= 0 {
			parent = lc.joins.alias[k[:i]]
		}
		alias := lc.joins.alias[k]
		l, err := lc.exprAt(from.expr, parent)
		if err != nil {
			return nil, err
		}
		r, err := lc.exprAt(to.expr, alias)
		if err != nil {
			return nil, err
		}
		on := []string{l + " = " + r}
		// Partition dimensions of the same name on both sides are joined
		// too (MetricFlow's PartitionJoinResolver), time partitions at each
		// side's own granularity.
		for _, pd := range h.from.dims {
			qd := h.to.dimBy[pd.name]
			if !pd.partition || qd == nil || !qd.partition || pd.isTime != qd.isTime {
				continue
			}
			for _, d := range []*dimension{pd, qd} {
				if d.err != nil {
					return nil, d.err
				}
			}
			pl, err := lc.exprAt(pd.expr, parent)
			if err != nil {
				return nil, err
			}
			pr, err := lc.exprAt(qd.expr, alias)
			if err != nil {
				return nil, err
			}
			if pd.isTime {
				pl, pr = trunc(lc.p, pl, pd.grain), trunc(lc.p, pr, qd.grain)
			}
			on = append(on, pl+" = "+pr)
		}
		out = append(out, "LEFT OUTER JOIN "+h.to.rel.sql()+" AS "+quote(alias)+"\n  ON "+strings.Join(on, "\n  AND "))
	}
	return out, nil
}

// periodAgg reduces a cumulative leaf's daily rows to the query's coarser
// granularity with the metric's period_agg: the value of the first or last
// day of each period that has one, or the average over its days.
func (pl *planner) periodAgg(daily string, l *leaf) string {
	names := pl.names()
	var qn []string
	for _, n := range names {
		qn = append(qn, quote(n))
	}
	v := quote(valueCol(l.index))
	gb := strings.Join(qn, ", ")
	if l.cum.periodAgg == "average" {
		return "SELECT " + gb + ", AVG(" + v + ") AS " + v + "\nFROM (\n" + indent(daily) + "\n) AS `$d`\nGROUP BY " + gb
	}
	fn := "FIRST_VALUE"
	if l.cum.periodAgg == "last" {
		fn = "LAST_VALUE"
	}
	win := "SELECT " + gb + ", " + fn + "(" + v + ") OVER (PARTITION BY " + gb + " ORDER BY `$day` ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS " + v +
		"\nFROM (\n" + indent(daily) + "\n) AS `$d`"
	return "SELECT " + gb + ", MAX(" + v + ") AS " + v + "\nFROM (\n" + indent(win) + "\n) AS `$w`\nGROUP BY " + gb
}

// combine joins the scans on the group-by columns: FULL OUTER JOIN, so
// that a group present for one measure only keeps its row, then GROUP BY
// the coalesced keys (a NULL key never matches, so its rows meet there),
// as MetricFlow combines aggregated outputs. Without group-bys every leaf
// is one row, and a CROSS JOIN puts them side by side.
func (pl *planner) combine(scans []*scan, leafSQL []string) string {
	if len(leafSQL) == 1 {
		return leafSQL[0]
	}
	names := pl.names()
	q := func(i int) string { return "q" + strconv.Itoa(i) }
	coalesce := func(n string, upto int) string {
		if upto == 1 {
			return col(q(0), n)
		}
		var xs []string
		for i := 0; i < upto; i++ {
			xs = append(xs, col(q(i), n))
		}
		return "COALESCE(" + strings.Join(xs, ", ") + ")"
	}
	var sel, group []string
	for _, n := range names {
		x := coalesce(n, len(leafSQL))
		sel = append(sel, x+" AS "+quote(n))
		group = append(group, x)
	}
	for i, sc := range scans {
		for _, l := range sc.leaves {
			v := valueCol(l.index)
			if len(names) == 0 {
				sel = append(sel, col(q(i), v)+" AS "+quote(v))
			} else {
				sel = append(sel, "MAX("+col(q(i), v)+") AS "+quote(v))
			}
		}
	}
	var b strings.Builder
	b.WriteString("SELECT\n  " + strings.Join(sel, "\n  , ") + "\nFROM (\n" + indent(leafSQL[0]) + "\n) AS " + quote(q(0)))
	for i := 1; i < len(leafSQL); i++ {
		if len(names) == 0 {
			b.WriteString("\nCROSS JOIN (\n" + indent(leafSQL[i]) + "\n) AS " + quote(q(i)))
			continue
		}
		var on []string
		for _, n := range names {
			on = append(on, coalesce(n, i)+" = "+col(q(i), n))
		}
		b.WriteString("\nFULL OUTER JOIN (\n" + indent(leafSQL[i]) + "\n) AS " + quote(q(i)) + "\n  ON " + strings.Join(on, "\n  AND "))
	}
	if len(group) > 0 {
		b.WriteString("\nGROUP BY\n  " + strings.Join(group, "\n  , "))
	}
	return b.String()
}

// metricExpr writes a metric over the combined row.
func (pl *planner) metricExpr(n *node) (string, *Error) {
	p := pl.c.p
	switch n.kind {
	case nodeLeaf:
		x := col("c", valueCol(n.leaf.index))
		if n.fill != nil {
			x = "COALESCE(" + x + ", " + p.int(*n.fill) + ")"
		}
		return x, nil
	case nodeRatio:
		num, err := pl.metricExpr(n.num)
		if err != nil {
			return "", err
		}
		den, err := pl.metricExpr(n.den)
		if err != nil {
			return "", err
		}
		return "CAST(" + num + " AS DOUBLE) / CAST(NULLIF(" + den + ", " + p.int(0) + ") AS DOUBLE)", nil
	}
	r := renderer{p: p, metric: func(name string) (string, *Error) {
		x, err := pl.metricExpr(n.inputs[name])
		if err != nil {
			return "", err
		}
		return "(" + x + ")", nil
	}}
	s, err := r.render(n.expr)
	if err != nil {
		return "", err
	}
	return "(" + s + ")", nil
}

// orderColumn finds the output column an order_by item names: a metric, a
// group-by by its full name, or a group-by given without its granularity
// when exactly one matches.
func (pl *planner) orderColumn(r ref, metrics []string) (string, *Error) {
	if len(r.links) == 0 && r.grain == grainNone && r.kind != refDimension && r.kind != refTimeDim && r.kind != refEntity {
		for _, m := range metrics {
			if m == r.element {
				return m, nil
			}
		}
	}
	if r.kind == refMetric {
		return "", fail(ReasonOrderByInvalid, "order_by names metric "+r.element+", which is not requested")
	}
	want := r.dunder()
	match := ""
	for _, it := range pl.q.groupBy {
		if it.name == want {
			return it.name, nil
		}
		if r.grain == grainNone && it.r.element == r.element && strings.Join(it.r.links, "__") == strings.Join(r.links, "__") {
			if match != "" {
				return "", fail(ReasonOrderByInvalid, "order_by "+r.text+" matches more than one group-by")
			}
			match = it.name
		}
	}
	if match == "" {
		return "", fail(ReasonOrderByInvalid, "order_by "+r.text+" is neither a requested metric nor a group-by")
	}
	return match, nil
}
