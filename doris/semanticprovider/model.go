package semanticprovider

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// index is a loaded manifest, checked and cross-referenced. It is immutable.
type index struct {
	models      []*model
	modelByName map[string]*model
	measures    map[string]*measure // measure names are global in dbt
	metrics     map[string]*Metric
	metricOrder []string
	saved       map[string]*SavedQuery
	savedOrder  []string
	spine       *timeSpine // the day spine, or nil
	spineErr    *Error     // why the time spine did not load, if so
	issues      []string   // what loads but will not compile, for get_status

	// Elements refused at load, by name: what uses them refuses with the
	// same error.
	refused        []refusal
	modelErr       map[string]*Error
	measureErr     map[string]*Error
	metricErr      map[string]*Error
	savedErr       map[string]*Error
	measureDefined map[string]bool
}

type model struct {
	name        string
	description string
	rel         relation
	primary     string // primary entity name, "" if none
	entities    []*entity
	entityBy    map[string]*entity
	dims        []*dimension
	dimBy       map[string]*dimension
	aggTime     string // defaults.agg_time_dimension
}

type entity struct {
	name  string
	typ   string // primary, unique, foreign, natural
	expr  *sqlExpr
	err   *Error // why expr cannot be compiled, if so
	model *model
}

type dimension struct {
	name      string
	isTime    bool
	grain     grain // a time dimension's own granularity
	validity  bool  // SCD type-2 validity dimension
	partition bool  // is_partition: joins also match it (MetricFlow's partition joins)
	expr      *sqlExpr
	err       *Error
	model     *model
	desc      string
}

type measure struct {
	name      string
	agg       string
	expr      *sqlExpr
	err       *Error
	aggTime   string
	model     *model
	aggParams *AggParams
	nonAdd    *NonAdditiveDimension
}

type timeSpine struct {
	rel    relation
	column string
	custom map[string]string // custom granularity name -> column
}

// Manifest bounds. A real project's semantic manifest is a few megabytes
// at most; these refuse what no dbt project writes.
const (
	MaxManifestBytes = 32 << 20
	maxModels        = 4096
	maxElements      = 1024 // entities, dimensions or measures of one model
	maxMetrics       = 16384
	maxSavedQueries  = 4096
)

var manifestLimits = jsonLimits{maxDepth: 64, maxString: 1 << 20, maxValues: 4 << 20}

var aggKinds = map[string]bool{
	"sum": true, "min": true, "max": true, "count_distinct": true, "sum_boolean": true,
	"average": true, "percentile": true, "median": true, "count": true,
}

// parseManifest checks, decodes and indexes a manifest document.
func parseManifest(data []byte) (*index, *Error) {
	if len(data) > MaxManifestBytes {
		return nil, fail(ReasonManifestTooLarge, "manifest larger than 32 MiB")
	}
	if msg := checkJSON(data, manifestLimits); msg != "" {
		return nil, fail(ReasonManifestInvalid, msg)
	}
	m, issues, err := decodeTop(data)
	if err != nil {
		return nil, err
	}
	ix, err := buildIndex(m)
	if err != nil {
		return nil, err
	}
	ix.issues = append(issues, ix.issues...)
	sort.Strings(ix.issues)
	return ix, nil
}

func invalid(format string, args ...string) *Error {
	msg := format
	for _, a := range args {
		msg = strings.Replace(msg, "%s", strconv.Quote(a), 1)
	}
	return fail(ReasonManifestInvalid, msg)
}

// refuse records an element that does not load; what uses it refuses with
// its error.
func (ix *index) refuse(kind, name string, err *Error) {
	ix.refused = append(ix.refused, refusal{kind: kind, name: name, err: err})
	label := kind
	if name != "" {
		label += " " + name
	}
	ix.issues = append(ix.issues, label+": "+err.Reason+": "+err.Detail)
}

// buildIndex decodes and validates each element. Duplicate names and
// case-variant keys refuse the manifest; anything else refuses only the
// element, and what depends on it.
func buildIndex(m *manifestDoc) (*index, *Error) {
	if len(m.SemanticModels) > maxModels || len(m.Metrics) > maxMetrics || len(m.SavedQueries) > maxSavedQueries {
		return nil, invalid("too many semantic models, metrics or saved queries")
	}
	ix := &index{
		modelByName:    map[string]*model{},
		measures:       map[string]*measure{},
		metrics:        map[string]*Metric{},
		saved:          map[string]*SavedQuery{},
		modelErr:       map[string]*Error{},
		measureErr:     map[string]*Error{},
		metricErr:      map[string]*Error{},
		savedErr:       map[string]*Error{},
		measureDefined: map[string]bool{},
	}
	modelSeen := map[string]bool{}
	for i, raw := range m.SemanticModels {
		path := "$.semantic_models[" + strconv.Itoa(i) + "]"
		name := elementName(raw)
		if name != "" {
			if modelSeen[name] {
				return nil, invalid("semantic model %s is defined twice", name)
			}
			modelSeen[name] = true
		}
		var doc semanticModelDoc
		err := decodeElement(raw, &doc, path)
		if err == nil {
			var md *model
			md, err = ix.addModel(&doc, path)
			if err == nil {
				ix.models = append(ix.models, md)
				continue
			}
		}
		if fatal(err) {
			return nil, err
		}
		ix.refuse("semantic model", name, err)
		if name != "" {
			ix.modelErr[name] = err
		}
		for _, ms := range measureNames(raw) {
			if ix.measureDefined[ms] {
				return nil, invalid("measure %s is defined twice", ms)
			}
			ix.measureDefined[ms] = true
			ix.measureErr[ms] = err
		}
	}
	for i, raw := range m.Metrics {
		path := "$.metrics[" + strconv.Itoa(i) + "]"
		name := elementName(raw)
		if name != "" {
			if _, dup := ix.metrics[name]; dup {
				return nil, invalid("metric %s is defined twice", name)
			}
		}
		mt := &Metric{}
		err := decodeElement(raw, mt, path)
		if err == nil {
			err = checkMetric(mt, path)
		}
		if fatal(err) {
			return nil, err
		}
		if err != nil {
			if name == "" {
				ix.refuse("metric", "", err)
				continue
			}
			// Listed, and refused when asked for.
			ix.metricErr[name] = err
			var head struct {
				Type        any `json:"type"`
				Label       any `json:"label"`
				Description any `json:"description"`
			}
			json.Unmarshal(raw, &head)
			mt = &Metric{Name: name}
			mt.Type, _ = head.Type.(string)
			if s, ok := head.Label.(string); ok {
				mt.Label = &s
			}
			if s, ok := head.Description.(string); ok {
				mt.Description = &s
			}
		}
		ix.metrics[name] = mt
		ix.metricOrder = append(ix.metricOrder, name)
	}
	for i, raw := range m.SavedQueries {
		path := "$.saved_queries[" + strconv.Itoa(i) + "]"
		name := elementName(raw)
		if name != "" {
			if _, dup := ix.saved[name]; dup {
				return nil, invalid("saved query %s is defined twice", name)
			}
		}
		sq := &SavedQuery{}
		err := decodeElement(raw, sq, path)
		if err == nil && !reName().MatchString(sq.Name) {
			err = fail(ReasonElementInvalid, path+".name is not a valid name: "+quoteValue(sq.Name))
		}
		if fatal(err) {
			return nil, err
		}
		if err != nil {
			ix.refuse("saved query", name, err)
			if name == "" {
				continue
			}
			ix.savedErr[name] = err
			sq = &SavedQuery{Name: name}
		}
		ix.saved[name] = sq
		ix.savedOrder = append(ix.savedOrder, name)
	}
	if err := ix.setSpine(m.ProjectConfiguration); err != nil {
		return nil, err
	}
	ix.checkMetrics()
	return ix, nil
}

// checkMetric validates what a metric's compilation does not reach on
// its own: its name, type and aggregation.
func checkMetric(mt *Metric, path string) *Error {
	if !reName().MatchString(mt.Name) {
		return fail(ReasonElementInvalid, path+".name is not a valid name: "+quoteValue(mt.Name))
	}
	switch mt.Type {
	case "simple", "ratio", "cumulative", "derived", "conversion":
	default:
		return fail(ReasonElementInvalid, path+".type is not a metric type: "+quoteValue(mt.Type))
	}
	if mp := mt.TypeParams.MetricAggregationParams; mp != nil {
		if !aggKinds[mp.Agg] {
			return fail(ReasonElementInvalid, path+".type_params.metric_aggregation_params.agg is not an aggregation: "+quoteValue(mp.Agg))
		}
	}
	return nil
}

// addModel indexes one decoded semantic model. An error refuses the
// model (and its measures); measures are decoded and refused one by one.
func (ix *index) addModel(doc *semanticModelDoc, path string) (*model, *Error) {
	sm := &doc.SemanticModel
	bad := func(sub, msg string) *Error { return fail(ReasonElementInvalid, path+sub+": "+msg) }
	if !reName().MatchString(sm.Name) {
		return nil, bad(".name", "not a valid name: "+quoteValue(sm.Name))
	}
	rel, err := nodeRelation(sm.NodeRelation, path+".node_relation")
	if err != nil {
		return nil, err
	}
	if len(sm.Entities) > maxElements || len(sm.Dimensions) > maxElements || len(doc.Measures) > maxElements {
		return nil, bad("", "too many entities, dimensions or measures")
	}
	md := &model{
		name:     sm.Name,
		rel:      rel,
		entityBy: map[string]*entity{},
		dimBy:    map[string]*dimension{},
	}
	if sm.Description != nil {
		md.description = *sm.Description
	}
	if sm.Defaults != nil && sm.Defaults.AggTimeDimension != nil {
		md.aggTime = *sm.Defaults.AggTimeDimension
	}
	for i := range sm.Entities {
		e := &sm.Entities[i]
		ep := ".entities[" + strconv.Itoa(i) + "]"
		if !validElementName(e.Name) || e.Name == metricTime {
			return nil, bad(ep+".name", "not a valid entity name: "+quoteValue(e.Name))
		}
		if md.entityBy[e.Name] != nil {
			return nil, bad(ep+".name", "entity "+e.Name+" is defined twice")
		}
		switch e.Type {
		case "primary", "unique", "foreign", "natural":
		default:
			return nil, bad(ep+".type", "not an entity type: "+quoteValue(e.Type))
		}
		en := &entity{name: e.Name, typ: e.Type, model: md}
		en.expr, en.err = columnExpr(e.Name, e.Expr)
		md.entities = append(md.entities, en)
		md.entityBy[e.Name] = en
		if e.Type == "primary" {
			if md.primary != "" {
				return nil, bad(ep+".type", "a second primary entity")
			}
			md.primary = e.Name
		}
	}
	if sm.PrimaryEntity != nil {
		if md.primary != "" && md.primary != *sm.PrimaryEntity {
			return nil, bad(".primary_entity", "differs from the primary entity "+md.primary)
		}
		if !validElementName(*sm.PrimaryEntity) {
			return nil, bad(".primary_entity", "not a valid name: "+quoteValue(*sm.PrimaryEntity))
		}
		md.primary = *sm.PrimaryEntity
	}
	for i := range sm.Dimensions {
		d := &sm.Dimensions[i]
		dp := ".dimensions[" + strconv.Itoa(i) + "]"
		if !validElementName(d.Name) || d.Name == metricTime {
			return nil, bad(dp+".name", "not a valid dimension name: "+quoteValue(d.Name))
		}
		if md.dimBy[d.Name] != nil || md.entityBy[d.Name] != nil {
			return nil, bad(dp+".name", "element "+d.Name+" is defined twice")
		}
		dm := &dimension{name: d.Name, model: md, partition: d.IsPartition != nil && *d.IsPartition}
		if d.Description != nil {
			dm.desc = *d.Description
		}
		switch d.Type {
		case "categorical":
		case "time":
			dm.isTime = true
			dm.grain = grainDay
			if d.TypeParams != nil {
				if len(d.TypeParams.ValidityParams) > 0 && string(d.TypeParams.ValidityParams) != "null" {
					dm.validity = true
				}
				if d.TypeParams.TimeGranularity != nil {
					g, known := parseGrain(strings.ToLower(*d.TypeParams.TimeGranularity))
					if !known {
						// A custom granularity: the dimension loads, grouping by it refuses.
						dm.err = fail(ReasonGrainUnsupported, path+dp+".type_params.time_granularity: "+quoteValue(*d.TypeParams.TimeGranularity)+" is not a standard granularity")
					} else if g == grainNone {
						dm.err = fail(ReasonGrainUnsupported, path+dp+".type_params.time_granularity: sub-second granularity")
					} else {
						dm.grain = g
					}
				}
			}
		default:
			return nil, bad(dp+".type", "not a dimension type: "+quoteValue(d.Type))
		}
		expr, err := columnExpr(d.Name, d.Expr)
		dm.expr = expr
		if dm.err == nil {
			dm.err = err
		}
		md.dims = append(md.dims, dm)
		md.dimBy[d.Name] = dm
	}
	ix.modelByName[md.name] = md
	for i, raw := range doc.Measures {
		mp := path + ".measures[" + strconv.Itoa(i) + "]"
		name := elementName(raw)
		if name != "" {
			if ix.measureDefined[name] {
				return nil, invalid("measure %s is defined twice", name)
			}
			ix.measureDefined[name] = true
		}
		var ms Measure
		err := decodeElement(raw, &ms, mp)
		if err == nil {
			switch {
			case !reName().MatchString(ms.Name):
				err = fail(ReasonElementInvalid, mp+".name is not a valid name: "+quoteValue(ms.Name))
			case !aggKinds[ms.Agg]:
				err = fail(ReasonElementInvalid, mp+".agg is not an aggregation: "+quoteValue(ms.Agg))
			}
		}
		if fatal(err) {
			return nil, err
		}
		if err != nil {
			ix.refuse("measure", name, err)
			if name != "" {
				ix.measureErr[name] = err
			}
			continue
		}
		me := &measure{name: ms.Name, agg: ms.Agg, model: md, aggTime: md.aggTime, aggParams: ms.AggParams, nonAdd: ms.NonAdditiveDimension}
		if ms.AggTimeDimension != nil {
			me.aggTime = *ms.AggTimeDimension
		}
		me.expr, me.err = columnExpr(ms.Name, ms.Expr)
		ix.measures[ms.Name] = me
	}
	return md, nil
}

// columnExpr parses an element's expr; no expr means the column of the
// element's own name.
func columnExpr(name string, expr *string) (*sqlExpr, *Error) {
	if expr == nil {
		return &sqlExpr{parts: []part{{kind: partColumn, text: name}}}, nil
	}
	e, err := parseExpr(*expr, modeColumns, nil, ReasonExpressionUnsupported)
	if err != nil {
		err.Detail = "expr of " + name + ": " + err.Detail
		return nil, err
	}
	return e, nil
}

// setSpine picks the day-grain time spine, from time_spines or from the
// legacy time_spine_table_configurations. A spine that does not load
// refuses only the metrics that need one.
func (ix *index) setSpine(raw json.RawMessage) *Error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var pc projectConfigurationDoc
	if err := decodeElement(raw, &pc, "$.project_configuration"); err != nil {
		if fatal(err) {
			return err
		}
		ix.spineErr = err
		ix.refuse("time spine", "", err)
		return nil
	}
	var firstErr *Error
	note := func(err *Error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	for i, r := range pc.TimeSpines {
		path := "$.project_configuration.time_spines[" + strconv.Itoa(i) + "]"
		var ts TimeSpine
		if err := decodeElement(r, &ts, path); err != nil {
			if fatal(err) {
				return err
			}
			note(err)
			continue
		}
		if ts.PrimaryColumn.TimeGranularity != "day" {
			continue
		}
		rel, err := nodeRelation(&ts.NodeRelation, path+".node_relation")
		if err == nil && !validRelationPart(ts.PrimaryColumn.Name) {
			err = fail(ReasonRelationInvalid, path+".primary_column.name is not a valid column name: "+quoteValue(ts.PrimaryColumn.Name))
		}
		if err != nil {
			note(err)
			continue
		}
		sp := &timeSpine{rel: rel, column: ts.PrimaryColumn.Name, custom: map[string]string{}}
		for j, cg := range ts.CustomGranularities {
			col := cg.Name
			if cg.ColumnName != nil && *cg.ColumnName != "" {
				col = *cg.ColumnName
			}
			if !validElementName(cg.Name) || !validRelationPart(col) {
				note(fail(ReasonElementInvalid, path+".custom_granularities["+strconv.Itoa(j)+"]: not a valid granularity name or column: "+quoteValue(cg.Name)))
				continue
			}
			sp.custom[strings.ToLower(cg.Name)] = col
		}
		ix.spine = sp
		return nil
	}
	for i, r := range pc.TimeSpineTableConfigurations {
		path := "$.project_configuration.time_spine_table_configurations[" + strconv.Itoa(i) + "]"
		var tc TimeSpineTableConfiguration
		if err := decodeElement(r, &tc, path); err != nil {
			if fatal(err) {
				return err
			}
			note(err)
			continue
		}
		if tc.Grain != "day" {
			continue
		}
		parts, msg := parseRelationName(tc.Location)
		if msg != "" {
			note(fail(ReasonRelationInvalid, path+".location: "+msg+": "+quoteValue(tc.Location)))
			continue
		}
		if !validRelationPart(tc.ColumnName) {
			note(fail(ReasonRelationInvalid, path+".column_name is not a valid column name: "+quoteValue(tc.ColumnName)))
			continue
		}
		ix.spine = &timeSpine{rel: mapRelation(parts), column: tc.ColumnName, custom: map[string]string{}}
		return nil
	}
	if firstErr != nil {
		ix.spineErr = firstErr
		ix.refuse("time spine", "", firstErr)
	}
	return nil
}

// checkMetrics records, for get_status, the metrics that will refuse.
func (ix *index) checkMetrics() {
	for _, name := range ix.metricOrder {
		c := newCompiler(ix)
		if _, err := c.metricNode(name, 0); err != nil {
			ix.issues = append(ix.issues, "metric "+name+": "+err.Reason+": "+err.Detail)
		}
	}
	sort.Strings(ix.issues)
}
