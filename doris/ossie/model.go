package ossie

import (
	"slices"
	"strings"
)

// SpecVersion is the Ossie specification version this build reads.
const SpecVersion = "0.2.0.dev0"

// BindingAPIVersion is the api_version of the binding manifest, the same
// as the reference server's.
const BindingAPIVersion = "doris-mcp.apache.org/ossie-binding/v1alpha1"

// Model is one loaded semantic model under its exact model_ref. It is
// immutable once loaded.
type Model struct {
	Ref           string // the exact model_ref, the key of model_sources
	Name          string // semantic_model[].name
	Namespace     string // "default" when the manifest names none
	Tags          []string
	Description   string
	AI            *AIContext
	Datasets      []*Dataset
	Relationships []*Relationship
	Metrics       []*Metric // model-scoped metrics
	// RouteProfile restricts the model to one Doris route ("global",
	// "person:..."); empty means every route.
	RouteProfile string
	File         string // the model file, relative to the model directory
	SourceDigest string // sha256 of the model file, hex
	Revision     string // 16 hex digits over the file and its bindings
	Warnings     []string
}

// Dataset is a logical dataset and the Doris object it is bound to.
type Dataset struct {
	Name        string
	Source      string
	Description string
	PrimaryKey  []string
	UniqueKeys  [][]string
	Fields      []*Field
	Metrics     []*Metric // dataset-scoped metrics
	AI          *AIContext
	Binding     Binding
}

// Field returns the field of that name, or nil.
func (d *Dataset) Field(name string) *Field {
	for _, f := range d.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Binding is where a dataset lives in Doris.
type Binding struct {
	Catalog, Database, Object string
	Kind                      string // "table" or "view"
}

// Field is a row-level attribute of a dataset: a dimension candidate.
type Field struct {
	Name        string
	Label       string
	Description string
	Datatype    string // an Ossie DataType, or ""
	IsTime      bool
	Expressions []Expression
	AI          *AIContext
	// Column is the physical column when the ANSI_SQL expression is a
	// bare column name; "" for computed fields.
	Column string
}

// Metric is a quantitative measure, model-scoped (Dataset "") or
// dataset-scoped.
type Metric struct {
	Name        string
	Dataset     string
	Description string
	Datatype    string
	Expressions []Expression
	AI          *AIContext
	// Dependencies are the dataset.field references of the ANSI_SQL
	// expression (for a dataset-scoped metric, at least its dataset).
	Dependencies []FieldRef
}

// QualifiedName is how callers name the metric: "name" for a model-scoped
// metric, "dataset.name" for a dataset-scoped one.
func (m *Metric) QualifiedName() string {
	if m.Dataset == "" {
		return m.Name
	}
	return m.Dataset + "." + m.Name
}

// Datasets returns the datasets the metric depends on, sorted.
func (m *Metric) Datasets() []string {
	var out []string
	if m.Dataset != "" {
		out = append(out, m.Dataset)
	}
	for _, d := range m.Dependencies {
		if !slices.Contains(out, d.Dataset) {
			out = append(out, d.Dataset)
		}
	}
	slices.Sort(out)
	return out
}

// FieldRef names dataset.field.
type FieldRef struct{ Dataset, Field string }

func (f FieldRef) String() string { return f.Dataset + "." + f.Field }

// Expression is one dialect's text of an expression.
type Expression struct {
	Dialect string
	Text    string
}

// ANSI returns the ANSI_SQL text of exprs, or "".
func ANSI(exprs []Expression) string {
	for _, e := range exprs {
		if e.Dialect == "ANSI_SQL" {
			return e.Text
		}
	}
	return ""
}

// Relationship joins the many side (From) to the one side (To).
type Relationship struct {
	Name        string
	From, To    string
	FromColumns []string
	ToColumns   []string
	AI          *AIContext
}

// AIContext is administrator-written guidance. It is shown to Hosts as an
// annotation, never executed.
type AIContext struct {
	Instructions string
	Synonyms     []string
	Examples     []string
}

// Registry is the set of loaded models, keyed by exact model_ref. There is
// no fuzzy lookup: a ref matches exactly or not at all.
type Registry struct {
	models []*Model
	byRef  map[string]*Model
}

// Models returns the models sorted by model_ref.
func (r *Registry) Models() []*Model {
	if r == nil {
		return nil
	}
	return r.models
}

// Get returns the model with exactly this ref, or nil.
func (r *Registry) Get(ref string) *Model {
	if r == nil {
		return nil
	}
	return r.byRef[ref]
}

func newRegistry(models []*Model) *Registry {
	slices.SortFunc(models, func(a, b *Model) int { return strings.Compare(a.Ref, b.Ref) })
	r := &Registry{models: models, byRef: make(map[string]*Model, len(models))}
	for _, m := range models {
		r.byRef[m.Ref] = m
	}
	return r
}
