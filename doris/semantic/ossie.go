package semantic

import (
	"context"
	"fmt"
	"path"
	"slices"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
)

// The four Ossie children. A model is named by its exact model_ref; there
// is no fuzzy selection. Every answer is for the caller: datasets whose
// bound object the caller cannot see or SELECT from are left out, and the
// answer says which.

// ossieModels returns the registry, refusing when Ossie is off.
func (r kit) ossieModels(c *doris.Call) (*ossie.Registry, error) {
	if err := semanticScope(c); err != nil {
		return nil, err
	}
	if r.Ossie() == nil {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "OSSIE_DISABLED", Status: 503,
			Message: "Apache Ossie is off on this server (OSSIE_ENABLED)"}
	}
	return r.Ossie(), nil
}

// routeAllows reports whether the model serves the caller's route.
func routeAllows(m *ossie.Model, c *doris.Call) bool {
	route := c.Identity.Route
	if route == "" {
		route = "global"
	}
	return m.RouteProfile == "" || m.RouteProfile == "*" || m.RouteProfile == route
}

// model resolves one exact model_ref for the caller.
func (r kit) model(ctx context.Context, c *doris.Call, ref string) (*view, error) {
	reg, err := r.ossieModels(c)
	if err != nil {
		return nil, err
	}
	m := reg.Get(ref)
	if m == nil || !routeAllows(m, c) {
		return nil, &doris.Error{Kind: doris.KindArguments, Reason: "SEMANTIC_MODEL_NOT_FOUND", Status: 404,
			Message: "no semantic model has exactly this model_ref; list_semantic_models shows the refs you may use"}
	}
	views, err := r.resolve(ctx, c, []*ossie.Model{m})
	if err != nil {
		return nil, err
	}
	return views[0], nil
}

// usable refuses a model none of whose datasets the caller can see.
func usable(v *view) error {
	if len(v.visibleDatasets()) == 0 {
		return &doris.Error{Kind: doris.KindArguments, Reason: "SEMANTIC_MODEL_NOT_VISIBLE", Status: 403,
			Message: "none of the Doris tables this model is bound to is visible to you; get_semantic_mapping_status shows each binding"}
	}
	return nil
}

// omittedWarning says which datasets were left out and why.
func omittedWarning(v *view) []string {
	o := v.omitted()
	if len(o) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("Left out %s of this model (%v): the Doris tables they are bound to are not visible to you or you may not SELECT from them.",
		doris.Plural(len(o), "dataset", "datasets"), o)}
}

// ListSemanticModels runs doris_semantic list_semantic_models.
func ListSemanticModels(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Namespace string `json:"namespace"`
		Tag       string `json:"tag"`
		Pattern   string `json:"pattern"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	reg, err := r.ossieModels(c)
	if err != nil {
		return nil, err
	}
	if _, err := path.Match(a.Pattern, ""); a.Pattern != "" && err != nil {
		return nil, doris.ArgError(semanticPrefix, "PATTERN_INVALID", "pattern is not a valid glob (use *, ? and [...])")
	}
	var models []*ossie.Model
	for _, m := range reg.Models() {
		if !routeAllows(m, c) || a.Namespace != "" && m.Namespace != a.Namespace || a.Tag != "" && !slices.Contains(m.Tags, a.Tag) {
			continue
		}
		if ok, _ := doris.Glob(semanticPrefix, a.Pattern, m.Name); !ok {
			continue
		}
		models = append(models, m)
	}
	views, err := r.resolve(ctx, c, models)
	if err != nil {
		return nil, err
	}
	items := []map[string]any{}
	hidden := 0
	for _, v := range views {
		visible := v.visibleDatasets()
		if len(visible) == 0 {
			hidden++
			continue
		}
		status := "resolved"
		if len(visible) < len(v.m.Datasets) {
			status = "partial"
		}
		items = append(items, map[string]any{
			"model_ref": v.m.Ref, "name": v.m.Name, "namespace": v.m.Namespace, "version": ossie.SpecVersion,
			"tags": v.m.Tags, "description": doris.StrOrNil(v.m.Description, v.m.Description != ""), "revision": v.m.Revision,
			"datasets": len(v.m.Datasets), "visible_datasets": len(visible), "metrics": len(v.m.Metrics),
			"mapping_status": status,
		})
	}
	res := &doris.Result{Status: "success", Data: doris.Collection{Items: items}, Source: "ossie_registry"}
	if hidden > 0 {
		res.Warnings = []string{fmt.Sprintf("Left out %s: none of the Doris tables they are bound to is visible to you.",
			doris.Plural(hidden, "model", "models"))}
	}
	return res, nil
}

// GetSemanticModelSummary runs doris_semantic get_semantic_model_summary.
func GetSemanticModelSummary(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef        string `json:"model_ref"`
		IncludeBindings bool   `json:"include_bindings"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	v, err := r.model(ctx, c, a.ModelRef)
	if err != nil {
		return nil, err
	}
	if err := usable(v); err != nil {
		return nil, err
	}
	m := v.m
	datasets, dimensions := []map[string]any{}, []map[string]any{}
	var bindings []map[string]any
	for _, d := range v.visibleDatasets() {
		st := v.datasets[d.Name]
		var fields, scoped []string
		for _, f := range d.Fields {
			if !st.fieldVisible(f) {
				continue
			}
			fields = append(fields, f.Name)
			dimensions = append(dimensions, map[string]any{"name": d.Name + "." + f.Name, "datatype": doris.StrOrNil(f.Datatype, f.Datatype != ""), "is_time": f.IsTime})
		}
		for _, x := range d.Metrics {
			if v.metricVisible(x) {
				scoped = append(scoped, x.QualifiedName())
			}
		}
		datasets = append(datasets, map[string]any{"name": d.Name, "description": doris.StrOrNil(d.Description, d.Description != ""),
			"primary_key": d.PrimaryKey, "fields": nonNil(fields), "metrics": nonNil(scoped)})
		if a.IncludeBindings {
			bindings = append(bindings, map[string]any{"dataset": d.Name, "catalog": d.Binding.Catalog, "database": d.Binding.Database,
				"object": d.Binding.Object, "kind": d.Binding.Kind, "status": st.status})
		}
	}
	metrics := []map[string]any{}
	for _, x := range allMetrics(m) {
		if v.metricVisible(x) {
			metrics = append(metrics, map[string]any{"name": x.QualifiedName(), "description": doris.StrOrNil(x.Description, x.Description != ""),
				"datatype": doris.StrOrNil(x.Datatype, x.Datatype != ""), "depends_on": dependencies(x)})
		}
	}
	relationships := []map[string]any{}
	for _, rel := range m.Relationships {
		if v.relationshipVisible(rel) {
			relationships = append(relationships, map[string]any{"name": rel.Name, "from": rel.From, "to": rel.To,
				"from_columns": rel.FromColumns, "to_columns": rel.ToColumns})
		}
	}
	data := map[string]any{
		"model_ref": m.Ref, "name": m.Name, "namespace": m.Namespace, "tags": m.Tags, "revision": m.Revision,
		"spec_version": ossie.SpecVersion, "description": doris.StrOrNil(m.Description, m.Description != ""),
		"instructions": aiInstructions(m.AI), "datasets": datasets, "metrics": metrics, "dimensions": dimensions,
		"relationships": relationships, "omitted": nonNil(v.omitted()), "warnings": nonNil(m.Warnings),
	}
	if a.IncludeBindings {
		data["bindings"] = bindings
	}
	res := &doris.Result{Status: "success", Data: data, Warnings: omittedWarning(v), Source: "ossie_registry"}
	if len(res.Warnings) > 0 {
		res.Status = "partial"
	}
	return res, nil
}

// GetSemanticMappingStatus runs doris_semantic get_semantic_mapping_status.
func GetSemanticMappingStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef   string `json:"model_ref"`
		Datasource string `json:"datasource"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	v, err := r.model(ctx, c, a.ModelRef)
	if err != nil {
		return nil, err
	}
	if a.Datasource != "" && v.m.Dataset(a.Datasource) == nil {
		return nil, &doris.Error{Kind: doris.KindArguments, Reason: "SEMANTIC_DATASOURCE_NOT_FOUND", Status: 404,
			Message: "datasource names no dataset of this model; get_semantic_model_summary lists them"}
	}
	ready := true
	items := []map[string]any{}
	for _, d := range v.m.Datasets {
		if a.Datasource != "" && d.Name != a.Datasource {
			continue
		}
		st := v.datasets[d.Name]
		item := map[string]any{"dataset": d.Name, "status": st.status, "reason_code": nil, "object": nil, "kind": d.Binding.Kind}
		if st.status != bindingReady {
			ready = false
			item["reason_code"] = bindingReasons[st.status]
		}
		if st.visible() || st.status == bindingNoSelect || st.status == bindingUnreadable {
			// Doris lists the object to this caller: naming it discloses nothing.
			item["object"] = d.Binding.Catalog + "." + d.Binding.Database + "." + d.Binding.Object
			item["observed_kind"] = st.kind
		}
		if len(st.missing) > 0 {
			item["missing_columns"] = columnsOf(d, st.missing)
		}
		if len(st.conflict) > 0 {
			item["type_conflicts"] = st.conflict
		}
		var computed []string
		for _, f := range d.Fields {
			if f.Column == "" {
				computed = append(computed, f.Name)
			}
		}
		if len(computed) > 0 {
			item["unchecked_fields"] = computed
		}
		items = append(items, item)
	}
	res := &doris.Result{Status: "success", Source: "ossie_registry, information_schema", Data: map[string]any{
		"model_ref": v.m.Ref, "revision": v.m.Revision, "ready": ready, "bindings": items,
	}}
	if !ready {
		res.Warnings = []string{"Some bindings are not ready; each binding's status and reason_code say why."}
	}
	return res, nil
}

// columnsOf names the physical columns of the named fields.
func columnsOf(d *ossie.Dataset, fields []string) []string {
	out := make([]string, 0, len(fields))
	for _, n := range fields {
		if f := d.Field(n); f != nil {
			out = append(out, f.Column)
		}
	}
	return out
}

// allMetrics are the model-scoped metrics, then the dataset-scoped ones.
func allMetrics(m *ossie.Model) []*ossie.Metric {
	out := slices.Clone(m.Metrics)
	for _, d := range m.Datasets {
		out = append(out, d.Metrics...)
	}
	return out
}

func dependencies(x *ossie.Metric) []string {
	out := make([]string, 0, len(x.Dependencies))
	for _, d := range x.Dependencies {
		out = append(out, d.String())
	}
	return out
}

func aiInstructions(a *ossie.AIContext) any {
	if a == nil || a.Instructions == "" {
		return nil
	}
	return a.Instructions
}

// nonNil renders an empty list as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
