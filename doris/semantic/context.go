package semantic

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
)

// get_semantic_context: grounding for a question or for named metrics,
// dimensions and datasets of one model, for one caller, within max_bytes.
// Selection is deterministic: explicit names always, then the concepts
// whose names, labels or synonyms the question mentions, then the
// datasets and join paths they need. Nothing is compiled or run.

// contextRequest is the request argument.
type contextRequest struct {
	Question   string   `json:"question"`
	Metrics    []string `json:"metrics"`
	Dimensions []string `json:"dimensions"`
	Datasets   []string `json:"datasets"`
	MaxBytes   *int     `json:"max_bytes"`
}

// Bounds of what a question selects by itself.
const (
	autoMetrics    = 8
	autoDatasets   = 8
	autoDimensions = 16
)

// candidate is a concept the question selected, with its score.
type candidate struct {
	kind, name string
	score      int
}

// GetSemanticContext runs doris_semantic get_semantic_context.
func GetSemanticContext(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		ModelRef string         `json:"model_ref"`
		Request  contextRequest `json:"request"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	budget := r.OssieConfig().ContextMaxBytes
	if a.Request.MaxBytes != nil {
		budget = *a.Request.MaxBytes
		if budget > r.OssieConfig().ContextHardMaxBytes {
			return nil, doris.ArgError(semanticPrefix, "CONTEXT_LIMIT_EXCEEDED", fmt.Sprintf(
				"max_bytes %d exceeds this server's ceiling of %d (OSSIE_CONTEXT_HARD_MAX_BYTES)", budget, r.OssieConfig().ContextHardMaxBytes))
		}
	}
	v, err := r.model(ctx, c, a.ModelRef)
	if err != nil {
		return nil, err
	}
	if err := usable(v); err != nil {
		return nil, err
	}
	sel, warnings, err := selectConcepts(v, a.Request)
	if err != nil {
		return nil, err
	}
	b := &contextBuilder{v: v, sel: sel, examples: true, descriptions: true}
	truncated := false
	var doc map[string]any
	var size int
	for {
		doc = b.build()
		raw, _ := json.Marshal(doc)
		size = len(raw)
		if size <= budget {
			break
		}
		truncated = true
		// Shed what helps least first: examples, then the concepts the
		// question matched least (keeping its best match), then
		// descriptions, then that best match too.
		switch {
		case b.examples:
			b.examples = false
		case len(sel.auto) > 1:
			sel.drop(sel.auto[len(sel.auto)-1])
			sel.auto = sel.auto[:len(sel.auto)-1]
		case b.descriptions:
			b.descriptions = false
		case len(sel.auto) > 0:
			sel.drop(sel.auto[0])
			sel.auto = nil
		default:
			return nil, doris.ArgError(semanticPrefix, "CONTEXT_TOO_LARGE", fmt.Sprintf(
				"the concepts you named need %d bytes of context even without descriptions; name fewer or raise max_bytes (up to %d)",
				size, r.OssieConfig().ContextHardMaxBytes))
		}
	}
	warnings = append(warnings, omittedWarning(v)...)
	if truncated {
		warnings = append(warnings, fmt.Sprintf("The context was cut to fit max_bytes (%d): examples, the concepts the question matched least, and if need be descriptions were left out.", budget))
	}
	res := &doris.Result{Status: "success", Source: "ossie_registry", Truncated: truncated, Warnings: warnings, Data: map[string]any{
		"model_ref": v.m.Ref, "revision": v.m.Revision, "context": doc, "bytes": size, "truncated": truncated,
		"omitted": nonNil(v.omitted()), "max_bytes": budget,
		"execution_boundary": "Grounding only: nothing was compiled or run. Write SQL against the tables named here and run it with doris_query.",
	}}
	if truncated || len(warnings) > 0 {
		res.Status = "partial"
	}
	return res, nil
}

// selection is what the context will hold.
type selection struct {
	metrics    []*ossie.Metric
	dimensions []ossie.FieldRef
	datasets   []string    // named explicitly or by the question
	auto       []candidate // chosen by the question, best first
}

func (s *selection) drop(cand candidate) {
	switch cand.kind {
	case "metric":
		s.metrics = slices.DeleteFunc(s.metrics, func(x *ossie.Metric) bool { return x.QualifiedName() == cand.name })
	case "dimension":
		s.dimensions = slices.DeleteFunc(s.dimensions, func(f ossie.FieldRef) bool { return f.String() == cand.name })
	case "dataset":
		s.datasets = slices.DeleteFunc(s.datasets, func(d string) bool { return d == cand.name })
	}
}

// selectConcepts resolves the explicit names (an unknown one is an
// argument error; a known one the caller cannot see is left out with a
// warning) and adds what the question mentions.
func selectConcepts(v *view, req contextRequest) (*selection, []string, error) {
	sel := &selection{}
	var hidden []string
	metrics := map[string]*ossie.Metric{}
	for _, x := range allMetrics(v.m) {
		metrics[x.QualifiedName()] = x
	}
	for _, name := range req.Metrics {
		x, ok := metrics[name]
		switch {
		case !ok:
			return nil, nil, unknownConcept("metric", name)
		case v.metricVisible(x):
			sel.metrics = append(sel.metrics, x)
		default:
			hidden = append(hidden, name)
		}
	}
	for _, name := range req.Dimensions {
		ds, field, _ := strings.Cut(name, ".")
		d := v.m.Dataset(ds)
		if d == nil || d.Field(field) == nil {
			return nil, nil, unknownConcept("dimension (dataset.field)", name)
		}
		if v.datasets[ds].fieldVisible(d.Field(field)) {
			sel.dimensions = append(sel.dimensions, ossie.FieldRef{Dataset: ds, Field: field})
		} else {
			hidden = append(hidden, name)
		}
	}
	for _, name := range req.Datasets {
		if v.m.Dataset(name) == nil {
			return nil, nil, unknownConcept("dataset", name)
		}
		if v.datasets[name].visible() {
			sel.datasets = append(sel.datasets, name)
		} else {
			hidden = append(hidden, name)
		}
	}
	var warnings []string
	if len(hidden) > 0 {
		warnings = append(warnings, fmt.Sprintf("Left out %v: they depend on Doris tables that are not visible to you.", hidden))
	}
	if req.Question != "" {
		sel.auto = questionCandidates(v, req.Question, sel)
		for _, cand := range sel.auto {
			switch cand.kind {
			case "metric":
				sel.metrics = append(sel.metrics, metrics[cand.name])
			case "dimension":
				ds, field, _ := strings.Cut(cand.name, ".")
				sel.dimensions = append(sel.dimensions, ossie.FieldRef{Dataset: ds, Field: field})
			case "dataset":
				sel.datasets = append(sel.datasets, cand.name)
			}
		}
		if len(sel.auto) == 0 && len(req.Metrics)+len(req.Dimensions)+len(req.Datasets) == 0 {
			warnings = append(warnings, "The question mentions no metric, dimension or dataset of this model by name, label or synonym; name them explicitly.")
		}
	}
	return sel, warnings, nil
}

func unknownConcept(kind, name string) error {
	if len(name) > 64 {
		name = name[:64] + "..."
	}
	return &doris.Error{Kind: doris.KindArguments, Reason: "SEMANTIC_CONCEPT_NOT_FOUND", Status: 404,
		Message: fmt.Sprintf("this model has no %s %q; get_semantic_model_summary lists them", kind, name)}
}

// questionCandidates scores the visible concepts the caller did not name
// against the question and keeps the best of each kind, best first.
func questionCandidates(v *view, question string, explicit *selection) []candidate {
	q := words(question)
	qs := " " + strings.Join(q, " ") + " "
	score := func(name, label string, ai *ossie.AIContext, description string) int {
		best := 0
		try := func(text string, weight int) {
			w := words(text)
			if len(w) == 0 {
				return
			}
			if strings.Contains(qs, " "+strings.Join(w, " ")+" ") {
				best = max(best, weight+len(w))
				return
			}
			overlap := 0
			for _, x := range w {
				if len(x) > 2 && slices.Contains(q, x) {
					overlap++
				}
			}
			if overlap > 0 {
				best = max(best, weight/4+overlap)
			}
		}
		try(name, 100)
		try(label, 90)
		if ai != nil {
			for _, s := range ai.Synonyms {
				try(s, 80)
			}
		}
		if best == 0 && description != "" {
			try(description, 20)
		}
		return best
	}
	var ms, ds, fs []candidate
	for _, x := range allMetrics(v.m) {
		if v.metricVisible(x) && !slices.Contains(explicit.metrics, x) {
			if s := score(x.Name, "", x.AI, x.Description); s > 0 {
				ms = append(ms, candidate{"metric", x.QualifiedName(), s})
			}
		}
	}
	for _, d := range v.visibleDatasets() {
		if !slices.Contains(explicit.datasets, d.Name) {
			if s := score(d.Name, "", d.AI, d.Description); s > 0 {
				ds = append(ds, candidate{"dataset", d.Name, s})
			}
		}
		for _, f := range d.Fields {
			ref := ossie.FieldRef{Dataset: d.Name, Field: f.Name}
			if v.datasets[d.Name].fieldVisible(f) && !slices.Contains(explicit.dimensions, ref) {
				if s := score(f.Name, f.Label, f.AI, ""); s > 0 {
					fs = append(fs, candidate{"dimension", ref.String(), s})
				}
			}
		}
	}
	top := func(c []candidate, n int) []candidate {
		sort.SliceStable(c, func(i, j int) bool {
			if c[i].score != c[j].score {
				return c[i].score > c[j].score
			}
			return c[i].name < c[j].name
		})
		return c[:min(n, len(c))]
	}
	out := append(append(top(ms, autoMetrics), top(ds, autoDatasets)...), top(fs, autoDimensions)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	// When the question names some concept outright (by name, label or
	// synonym), partial word overlaps and description matches are noise.
	if len(out) > 0 && out[0].score >= strongMatch {
		out = slices.DeleteFunc(out, func(c candidate) bool { return c.score < strongMatch })
	}
	return out
}

// strongMatch is the lowest score of a concept whose name, label or
// synonym appears in the question as a phrase.
const strongMatch = 80

// words lower-cases text and splits it into letters-and-digits words
// (underscores split, so order_count reads as "order count").
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// contextBuilder renders a selection, with or without examples and
// descriptions.
type contextBuilder struct {
	v                      *view
	sel                    *selection
	examples, descriptions bool
}

func (b *contextBuilder) build() map[string]any {
	v, sel := b.v, b.sel
	fields := map[string][]string{} // dataset -> fields to show
	all := map[string]bool{}        // datasets shown with every field
	need := func(ds, field string) {
		if !slices.Contains(fields[ds], field) {
			fields[ds] = append(fields[ds], field)
		}
	}
	for _, d := range sel.datasets {
		all[d] = true
	}
	for _, f := range sel.dimensions {
		need(f.Dataset, f.Field)
	}
	metricsOut := []map[string]any{}
	for _, x := range sel.metrics {
		for _, dep := range x.Dependencies {
			need(dep.Dataset, dep.Field)
		}
		if _, ok := fields[x.Dataset]; !ok && x.Dataset != "" {
			fields[x.Dataset] = nil // the dataset is shown, with its keys
		}
		m := map[string]any{"name": x.QualifiedName(), "expression": expressionOf(x.Expressions), "depends_on": dependencies(x)}
		if x.Datatype != "" {
			m["datatype"] = x.Datatype
		}
		b.annotate(m, x.Description, x.AI)
		metricsOut = append(metricsOut, m)
	}
	required := make([]string, 0, len(fields)+len(all))
	for d := range fields {
		required = append(required, d)
	}
	for d := range all {
		if !slices.Contains(required, d) {
			required = append(required, d)
		}
	}
	rels, unjoined := joinPaths(v, required)
	relsOut := []map[string]any{}
	for _, rel := range rels {
		var on []string
		for i := range rel.FromColumns {
			need(rel.From, rel.FromColumns[i])
			need(rel.To, rel.ToColumns[i])
			on = append(on, rel.From+"."+rel.FromColumns[i]+" = "+rel.To+"."+rel.ToColumns[i])
		}
		m := map[string]any{"name": rel.Name, "from": rel.From, "to": rel.To, "on": strings.Join(on, " AND "), "cardinality": "many_to_one"}
		b.annotate(m, "", rel.AI)
		relsOut = append(relsOut, m)
	}
	datasetsOut := []map[string]any{}
	for _, d := range v.visibleDatasets() {
		want, listed := fields[d.Name]
		if !listed && !all[d.Name] {
			continue
		}
		st := v.datasets[d.Name]
		fs := []map[string]any{}
		for _, f := range d.Fields {
			if !st.fieldVisible(f) || !all[d.Name] && !slices.Contains(want, f.Name) && !slices.Contains(d.PrimaryKey, f.Name) {
				continue
			}
			m := map[string]any{"name": f.Name, "expression": expressionOf(f.Expressions)}
			if f.Datatype != "" {
				m["datatype"] = f.Datatype
			}
			if f.IsTime {
				m["is_time"] = true
			}
			if f.Label != "" {
				m["label"] = f.Label
			}
			b.annotate(m, f.Description, f.AI)
			fs = append(fs, m)
		}
		m := map[string]any{"name": d.Name, "table": d.Binding.Catalog + "." + d.Binding.Database + "." + d.Binding.Object,
			"primary_key": d.PrimaryKey, "fields": fs}
		b.annotate(m, d.Description, d.AI)
		datasetsOut = append(datasetsOut, m)
	}
	doc := map[string]any{"model": v.m.Name, "datasets": datasetsOut, "metrics": metricsOut, "relationships": relsOut}
	if b.descriptions && v.m.AI != nil && v.m.AI.Instructions != "" {
		doc["instructions"] = v.m.AI.Instructions
	}
	if len(v.m.Warnings) > 0 {
		doc["model_warnings"] = v.m.Warnings
	}
	if len(unjoined) > 0 {
		// No visible relationship connects these to the others: a query
		// over all of them has no join path the model vouches for.
		doc["unjoined_datasets"] = unjoined
	}
	return doc
}

// annotate adds a description and the administrator's AI context, as far
// as the builder's budget allows.
func (b *contextBuilder) annotate(m map[string]any, description string, ai *ossie.AIContext) {
	if b.descriptions && description != "" {
		m["description"] = description
	}
	if ai == nil {
		return
	}
	if len(ai.Synonyms) > 0 {
		m["synonyms"] = ai.Synonyms
	}
	if b.descriptions && ai.Instructions != "" {
		m["instructions"] = ai.Instructions
	}
	if b.examples && len(ai.Examples) > 0 {
		m["examples"] = ai.Examples
	}
}

// expressionOf is the ANSI_SQL text, or every dialect's when there is none.
func expressionOf(exprs []ossie.Expression) any {
	if s := ossie.ANSI(exprs); s != "" {
		return s
	}
	out := map[string]string{}
	for _, e := range exprs {
		out[e.Dialect] = e.Text
	}
	return out
}

// joinPaths connects the required datasets through visible relationships:
// from the first (by name), the shortest path to each other one, the path
// chosen by relationship names when several are as short. unjoined are
// the datasets no visible path reaches.
func joinPaths(v *view, required []string) (out []*ossie.Relationship, unjoined []string) {
	slices.Sort(required)
	if len(required) < 2 {
		return nil, nil
	}
	type edge struct {
		to  string
		rel *ossie.Relationship
	}
	adj := map[string][]edge{}
	for _, rel := range v.m.Relationships {
		if v.relationshipVisible(rel) {
			adj[rel.From] = append(adj[rel.From], edge{rel.To, rel})
			adj[rel.To] = append(adj[rel.To], edge{rel.From, rel})
		}
	}
	for k := range adj {
		sort.Slice(adj[k], func(i, j int) bool { return adj[k][i].rel.Name < adj[k][j].rel.Name })
	}
	root := required[0]
	for _, target := range required[1:] {
		prev := map[string]edge{root: {}}
		queue := []string{root}
		for len(queue) > 0 {
			if _, reached := prev[target]; reached {
				break
			}
			n := queue[0]
			queue = queue[1:]
			for _, e := range adj[n] {
				if _, seen := prev[e.to]; !seen {
					prev[e.to] = edge{n, e.rel}
					queue = append(queue, e.to)
				}
			}
		}
		if _, reached := prev[target]; !reached {
			unjoined = append(unjoined, target)
			continue
		}
		for n := target; n != root && prev[n].rel != nil; n = prev[n].to {
			if !slices.Contains(out, prev[n].rel) {
				out = append(out, prev[n].rel)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, unjoined
}
