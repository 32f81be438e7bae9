package semanticprovider

import (
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
	issues      []string   // what loads but will not compile, for get_status
}

type model struct {
	name        string
	description string
	schema      string
	table       string
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
	name     string
	isTime   bool
	grain    grain // a time dimension's own granularity
	validity bool  // SCD type-2 validity dimension
	expr     *sqlExpr
	err      *Error
	model    *model
	desc     string
}

type measure struct {
	name        string
	agg         string
	expr        *sqlExpr
	err         *Error
	aggTime     string
	model       *model
	nonAdditive bool
}

type timeSpine struct {
	schema, table, column string
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
	var m Manifest
	if msg := decodeStrict(data, &m); msg != "" {
		return nil, fail(ReasonManifestInvalid, msg)
	}
	return buildIndex(&m)
}

func invalid(format string, args ...string) *Error {
	msg := format
	for _, a := range args {
		msg = strings.Replace(msg, "%s", strconv.Quote(a), 1)
	}
	return fail(ReasonManifestInvalid, msg)
}

// buildIndex validates names, uniqueness and enums (structural problems
// refuse the manifest) and parses expressions (an expression outside the
// grammar only makes its users refuse).
func buildIndex(m *Manifest) (*index, *Error) {
	if len(m.SemanticModels) > maxModels || len(m.Metrics) > maxMetrics || len(m.SavedQueries) > maxSavedQueries {
		return nil, invalid("too many semantic models, metrics or saved queries")
	}
	ix := &index{
		modelByName: map[string]*model{},
		measures:    map[string]*measure{},
		metrics:     map[string]*Metric{},
		saved:       map[string]*SavedQuery{},
	}
	for i := range m.SemanticModels {
		sm := &m.SemanticModels[i]
		md, err := ix.addModel(sm)
		if err != nil {
			return nil, err
		}
		ix.models = append(ix.models, md)
	}
	for i := range m.Metrics {
		mt := &m.Metrics[i]
		if !reName().MatchString(mt.Name) {
			return nil, invalid("metric name %s is not a valid name", mt.Name)
		}
		if _, dup := ix.metrics[mt.Name]; dup {
			return nil, invalid("metric %s is defined twice", mt.Name)
		}
		switch mt.Type {
		case "simple", "ratio", "cumulative", "derived", "conversion":
		default:
			return nil, invalid("metric %s has unknown type %s", mt.Name, mt.Type)
		}
		if mp := mt.TypeParams.MetricAggregationParams; mp != nil {
			if !aggKinds[mp.Agg] {
				return nil, invalid("metric %s has unknown aggregation %s", mt.Name, mp.Agg)
			}
		}
		ix.metrics[mt.Name] = mt
		ix.metricOrder = append(ix.metricOrder, mt.Name)
	}
	for i := range m.SavedQueries {
		sq := &m.SavedQueries[i]
		if !reName().MatchString(sq.Name) {
			return nil, invalid("saved query name %s is not a valid name", sq.Name)
		}
		if _, dup := ix.saved[sq.Name]; dup {
			return nil, invalid("saved query %s is defined twice", sq.Name)
		}
		ix.saved[sq.Name] = sq
		ix.savedOrder = append(ix.savedOrder, sq.Name)
	}
	if err := ix.setSpine(m.ProjectConfiguration); err != nil {
		return nil, err
	}
	ix.checkMetrics()
	return ix, nil
}

func (ix *index) addModel(sm *SemanticModel) (*model, *Error) {
	if !reName().MatchString(sm.Name) {
		return nil, invalid("semantic model name %s is not a valid name", sm.Name)
	}
	if _, dup := ix.modelByName[sm.Name]; dup {
		return nil, invalid("semantic model %s is defined twice", sm.Name)
	}
	if sm.NodeRelation == nil {
		return nil, invalid("semantic model %s has no node_relation", sm.Name)
	}
	if !validRelationPart(sm.NodeRelation.SchemaName) || !validRelationPart(sm.NodeRelation.Alias) {
		return nil, invalid("semantic model %s has an invalid node_relation", sm.Name)
	}
	if len(sm.Entities) > maxElements || len(sm.Dimensions) > maxElements || len(sm.Measures) > maxElements {
		return nil, invalid("semantic model %s has too many elements", sm.Name)
	}
	md := &model{
		name:     sm.Name,
		schema:   sm.NodeRelation.SchemaName,
		table:    sm.NodeRelation.Alias,
		entityBy: map[string]*entity{},
		dimBy:    map[string]*dimension{},
	}
	if sm.Description != nil {
		md.description = *sm.Description
	}
	if sm.Defaults != nil && sm.Defaults.AggTimeDimension != nil {
		md.aggTime = *sm.Defaults.AggTimeDimension
	}
	ix.modelByName[md.name] = md
	for i := range sm.Entities {
		e := &sm.Entities[i]
		if !validElementName(e.Name) || e.Name == metricTime {
			return nil, invalid("entity name %s in "+sm.Name+" is not a valid name", e.Name)
		}
		if md.entityBy[e.Name] != nil {
			return nil, invalid("entity %s is defined twice in "+sm.Name, e.Name)
		}
		switch e.Type {
		case "primary", "unique", "foreign", "natural":
		default:
			return nil, invalid("entity %s has unknown type %s", e.Name, e.Type)
		}
		en := &entity{name: e.Name, typ: e.Type, model: md}
		en.expr, en.err = columnExpr(e.Name, e.Expr)
		md.entities = append(md.entities, en)
		md.entityBy[e.Name] = en
		if e.Type == "primary" {
			if md.primary != "" {
				return nil, invalid("semantic model %s has two primary entities", sm.Name)
			}
			md.primary = e.Name
		}
	}
	if sm.PrimaryEntity != nil {
		if md.primary != "" && md.primary != *sm.PrimaryEntity {
			return nil, invalid("semantic model %s has primary_entity and a different primary entity", sm.Name)
		}
		if !validElementName(*sm.PrimaryEntity) {
			return nil, invalid("primary_entity of %s is not a valid name", sm.Name)
		}
		md.primary = *sm.PrimaryEntity
	}
	for i := range sm.Dimensions {
		d := &sm.Dimensions[i]
		if !validElementName(d.Name) || d.Name == metricTime {
			return nil, invalid("dimension name %s in "+sm.Name+" is not a valid name", d.Name)
		}
		if md.dimBy[d.Name] != nil || md.entityBy[d.Name] != nil {
			return nil, invalid("element %s is defined twice in "+sm.Name, d.Name)
		}
		dm := &dimension{name: d.Name, model: md}
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
					g, known := parseGrain(*d.TypeParams.TimeGranularity)
					if !known {
						// A custom granularity: the dimension loads, grouping by it refuses.
						dm.err = fail(ReasonGrainUnsupported, "dimension "+d.Name+" has a custom granularity")
					} else if g == grainNone {
						dm.err = fail(ReasonGrainUnsupported, "dimension "+d.Name+" has a sub-second granularity")
					} else {
						dm.grain = g
					}
				}
			}
		default:
			return nil, invalid("dimension %s has unknown type %s", d.Name, d.Type)
		}
		expr, err := columnExpr(d.Name, d.Expr)
		dm.expr = expr
		if dm.err == nil {
			dm.err = err
		}
		md.dims = append(md.dims, dm)
		md.dimBy[d.Name] = dm
	}
	for i := range sm.Measures {
		ms := &sm.Measures[i]
		if !reName().MatchString(ms.Name) {
			return nil, invalid("measure name %s is not a valid name", ms.Name)
		}
		if ix.measures[ms.Name] != nil {
			return nil, invalid("measure %s is defined twice", ms.Name)
		}
		if !aggKinds[ms.Agg] {
			return nil, invalid("measure %s has unknown aggregation %s", ms.Name, ms.Agg)
		}
		me := &measure{name: ms.Name, agg: ms.Agg, model: md, aggTime: md.aggTime}
		if ms.AggTimeDimension != nil {
			me.aggTime = *ms.AggTimeDimension
		}
		me.nonAdditive = ms.NonAdditiveDimension != nil
		me.expr, me.err = columnExpr(ms.Name, ms.Expr)
		ix.measures[ms.Name] = me
	}
	return md, nil
}

// validRelationPart accepts a Doris database or table name: non-empty, at
// most 256 bytes, no backquote, NUL or control character.
func validRelationPart(s string) bool {
	if s == "" || len(s) > 256 {
		return false
	}
	for _, r := range s {
		if r == '`' || r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
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
// legacy time_spine_table_configurations.
func (ix *index) setSpine(pc *ProjectConfiguration) *Error {
	if pc == nil {
		return nil
	}
	for _, ts := range pc.TimeSpines {
		if ts.PrimaryColumn.TimeGranularity != "day" {
			continue
		}
		r := ts.NodeRelation
		if !validRelationPart(r.SchemaName) || !validRelationPart(r.Alias) || !validRelationPart(ts.PrimaryColumn.Name) {
			return invalid("time spine has an invalid relation")
		}
		ix.spine = &timeSpine{schema: r.SchemaName, table: r.Alias, column: ts.PrimaryColumn.Name}
		return nil
	}
	for _, tc := range pc.TimeSpineTableConfigurations {
		if tc.Grain != "day" {
			continue
		}
		parts := strings.Split(tc.Location, ".")
		if len(parts) < 2 || len(parts) > 3 {
			return invalid("time spine location %s is not schema.table or database.schema.table", tc.Location)
		}
		schema, table := parts[len(parts)-2], parts[len(parts)-1]
		if !validRelationPart(schema) || !validRelationPart(table) || !validRelationPart(tc.ColumnName) {
			return invalid("time spine has an invalid relation")
		}
		ix.spine = &timeSpine{schema: schema, table: table, column: tc.ColumnName}
		return nil
	}
	return nil
}

// checkMetrics records, for get_status, the metrics that will refuse.
func (ix *index) checkMetrics() {
	for _, name := range ix.metricOrder {
		c := newCompiler(ix)
		if _, err := c.metricNode(name, 0); err != nil {
			ix.issues = append(ix.issues, "metric "+name+": "+err.Reason)
		}
	}
	sort.Strings(ix.issues)
}
