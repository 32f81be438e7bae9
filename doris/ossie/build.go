package ossie

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
	"sync"
)

var (
	nameRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(namePattern) })
	componentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,127}$`) })
	sourceRE    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2}$`)
	})
	columnRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	qualifiedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)\b`)
	})
	// unsafeRE finds statement keywords that have no place in a scalar
	// expression. FROM is allowed: EXTRACT(YEAR FROM d) and TRIM(... FROM
	// s) are scalar; a subquery needs SELECT, which is refused.
	unsafeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9_])(?:select|insert|update|delete|merge|create|alter|drop|truncate|grant|revoke|union|outfile|dumpfile)(?:$|[^A-Za-z0-9_])`)
	})
)

// maxDatasets bounds the datasets of one model: each costs a metadata
// check on the caller's route whenever the model is read.
const maxDatasets = 256

var temporal = []string{"Date", "Time", "DateTime", "DateTimeTz"}

// builder turns one schema-valid semantic model into a Model.
type builder struct {
	file string
	cfg  Config
}

func (b *builder) fail(reason, format string, args ...any) error {
	return fail(reason, b.file, format, args...)
}

// buildModel selects the model of a manifest entry from its file and binds
// its datasets.
func buildModel(ref string, src map[string]any, mf *modelFile, cfg Config) (*Model, error) {
	b := &builder{file: mf.rel, cfg: cfg}
	raws, _ := mf.doc["semantic_model"].([]any)
	var raw map[string]any
	want, named := src["model_name"].(string)
	switch {
	case named:
		n := 0
		for _, r := range raws {
			if m, _ := r.(map[string]any); str(m, "name") == want {
				raw, n = m, n+1
			}
		}
		if n != 1 {
			return nil, b.fail(ReasonModelNotFound, "model_ref %q names model_name %q, which the file holds %d times (want exactly once)", ref, want, n)
		}
	case len(raws) == 1:
		raw, _ = raws[0].(map[string]any)
	default:
		return nil, b.fail(ReasonAmbiguous, "model_ref %q needs a model_name: the file holds %d models", ref, len(raws))
	}
	m, err := b.model(raw)
	if err != nil {
		return nil, err
	}
	m.Ref, m.File, m.SourceDigest = ref, mf.rel, mf.digest
	m.Namespace = "default"
	if ns, ok := src["namespace"].(string); ok {
		m.Namespace = ns
	}
	m.Tags = strs(src, "tags")
	slices.Sort(m.Tags)
	m.RouteProfile, _ = src["route_profile"].(string)
	if err := b.bind(m, src["datasets"].(map[string]any)); err != nil {
		return nil, err
	}
	type bindingJSON struct {
		Dataset, Catalog, Database, Object, Kind string
	}
	bj := struct {
		Ref, Name, Namespace, RouteProfile string
		Tags                               []string
		Bindings                           []bindingJSON
	}{m.Ref, m.Name, m.Namespace, m.RouteProfile, m.Tags, nil}
	for _, d := range m.Datasets {
		bj.Bindings = append(bj.Bindings, bindingJSON{d.Name, d.Binding.Catalog, d.Binding.Database, d.Binding.Object, d.Binding.Kind})
	}
	sum := sha256.Sum256(append([]byte(m.SourceDigest+":"), canonical(bj)...))
	m.Revision = hex.EncodeToString(sum[:])[:16]
	return m, nil
}

// bind attaches the manifest's bindings: exactly one per dataset.
func (b *builder) bind(m *Model, raw map[string]any) error {
	for name := range raw {
		if !slices.ContainsFunc(m.Datasets, func(d *Dataset) bool { return d.Name == name }) {
			return fail(ReasonBindingInvalid, b.file, "model_ref %q binds dataset %q, which model %q does not have", m.Ref, clip(name), m.Name)
		}
	}
	for _, d := range m.Datasets {
		e, ok := raw[d.Name].(map[string]any)
		if !ok {
			return fail(ReasonBindingInvalid, b.file, "model_ref %q does not bind dataset %q to a Doris object", m.Ref, d.Name)
		}
		d.Binding = Binding{Catalog: str(e, "catalog"), Database: str(e, "database"), Object: str(e, "object"), Kind: str(e, "kind")}
	}
	return nil
}

func (b *builder) model(raw map[string]any) (*Model, error) {
	if raw == nil {
		return nil, b.fail(ReasonModelInvalid, "a semantic_model entry is not an object")
	}
	m := &Model{Name: str(raw, "name"), Description: strings.TrimSpace(str(raw, "description"))}
	if !nameRE().MatchString(m.Name) {
		return nil, b.fail(ReasonModelInvalid, "semantic model name %q is not a name (%s)", clip(m.Name), namePattern)
	}
	var err error
	if m.AI, err = b.ai(raw["ai_context"]); err != nil {
		return nil, err
	}
	datasets := arr(raw, "datasets")
	if len(datasets) > maxDatasets {
		return nil, b.fail(ReasonModelInvalid, "model %q has %d datasets; at most %d", m.Name, len(datasets), maxDatasets)
	}
	for _, r := range datasets {
		d, err := b.dataset(asMap(r))
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(m.Datasets, func(x *Dataset) bool { return x.Name == d.Name }) {
			return nil, b.fail(ReasonModelInvalid, "dataset %q is declared twice", d.Name)
		}
		m.Datasets = append(m.Datasets, d)
	}
	for _, r := range arr(raw, "relationships") {
		rel, err := b.relationship(asMap(r), m)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(m.Relationships, func(x *Relationship) bool { return x.Name == rel.Name }) {
			return nil, b.fail(ReasonModelInvalid, "relationship %q is declared twice", rel.Name)
		}
		m.Relationships = append(m.Relationships, rel)
	}
	taken := map[string]bool{}
	for _, d := range m.Datasets {
		for _, x := range d.Metrics {
			taken[x.QualifiedName()] = true
		}
	}
	for _, r := range arr(raw, "metrics") {
		x, err := b.metric(asMap(r), m, nil)
		if err != nil {
			return nil, err
		}
		if taken[x.Name] {
			return nil, b.fail(ReasonModelInvalid, "metric %q is declared twice", x.Name)
		}
		taken[x.Name] = true
		m.Metrics = append(m.Metrics, x)
	}
	m.Warnings = relationshipWarnings(m)
	return m, nil
}

func (b *builder) dataset(raw map[string]any) (*Dataset, error) {
	d := &Dataset{Name: str(raw, "name"), Source: str(raw, "source"), Description: strings.TrimSpace(str(raw, "description"))}
	if !componentRE().MatchString(d.Name) {
		return nil, b.fail(ReasonModelInvalid, "dataset name %q is not a name (letters, digits, _ and -)", clip(d.Name))
	}
	if !sourceRE().MatchString(d.Source) {
		return nil, b.fail(ReasonQuerySource, "dataset %q: source must name a table (a.b.c), not a query", d.Name)
	}
	var err error
	if d.AI, err = b.ai(raw["ai_context"]); err != nil {
		return nil, err
	}
	for _, r := range arr(raw, "fields") {
		f, err := b.field(asMap(r), d.Name)
		if err != nil {
			return nil, err
		}
		if d.Field(f.Name) != nil {
			return nil, b.fail(ReasonModelInvalid, "dataset %q declares field %q twice", d.Name, f.Name)
		}
		d.Fields = append(d.Fields, f)
	}
	d.PrimaryKey = strs(raw, "primary_key")
	for _, k := range arr(raw, "unique_keys") {
		d.UniqueKeys = append(d.UniqueKeys, strsOf(k))
	}
	for _, key := range append([][]string{d.PrimaryKey}, d.UniqueKeys...) {
		for _, c := range key {
			if d.Field(c) == nil {
				return nil, b.fail(ReasonDependency, "dataset %q: key column %q is not a declared field", d.Name, clip(c))
			}
		}
	}
	for _, r := range arr(raw, "metrics") {
		x, err := b.metric(asMap(r), nil, d)
		if err != nil {
			return nil, err
		}
		if d.Field(x.Name) != nil || slices.ContainsFunc(d.Metrics, func(y *Metric) bool { return y.Name == x.Name }) {
			return nil, b.fail(ReasonModelInvalid, "dataset %q: metric %q collides with a field or another metric", d.Name, x.Name)
		}
		d.Metrics = append(d.Metrics, x)
	}
	return d, nil
}

func (b *builder) field(raw map[string]any, dataset string) (*Field, error) {
	f := &Field{Name: str(raw, "name"), Label: strings.TrimSpace(str(raw, "label")),
		Description: strings.TrimSpace(str(raw, "description")), Datatype: str(raw, "datatype")}
	if !componentRE().MatchString(f.Name) {
		return nil, b.fail(ReasonModelInvalid, "dataset %q: field name %q is not a name (letters, digits, _ and -)", dataset, clip(f.Name))
	}
	var err error
	if f.Expressions, err = b.expressions(raw["expression"], dataset+"."+f.Name); err != nil {
		return nil, err
	}
	for _, ref := range qualified(f.Expressions) {
		if ref.Dataset != dataset {
			return nil, b.fail(ReasonDependency, "field %s.%s refers to another dataset (%s)", dataset, f.Name, ref)
		}
	}
	if c := ANSI(f.Expressions); columnRE().MatchString(c) {
		f.Column = c
	}
	f.IsTime = slices.Contains(temporal, f.Datatype)
	if dim, ok := raw["dimension"].(map[string]any); ok {
		if t, ok := dim["is_time"].(bool); ok {
			f.IsTime = t
		}
	}
	if f.AI, err = b.ai(raw["ai_context"]); err != nil {
		return nil, err
	}
	return f, nil
}

// metric builds a model-scoped metric (m set) or a dataset-scoped one (d
// set) and resolves its dataset.field references.
func (b *builder) metric(raw map[string]any, m *Model, d *Dataset) (*Metric, error) {
	x := &Metric{Name: str(raw, "name"), Description: strings.TrimSpace(str(raw, "description")), Datatype: str(raw, "datatype")}
	if !nameRE().MatchString(x.Name) {
		return nil, b.fail(ReasonModelInvalid, "metric name %q is not a name (%s)", clip(x.Name), namePattern)
	}
	var err error
	if x.Expressions, err = b.expressions(raw["expression"], "metric "+x.Name); err != nil {
		return nil, err
	}
	refs := qualified(x.Expressions)
	if d != nil {
		x.Dataset = d.Name
		for _, r := range refs {
			if r.Dataset != d.Name || d.Field(r.Field) == nil {
				return nil, b.fail(ReasonDependency, "metric %s.%s refers to %s, which is not a field of its dataset", d.Name, x.Name, r)
			}
		}
	} else {
		for _, r := range refs {
			i := slices.IndexFunc(m.Datasets, func(ds *Dataset) bool { return ds.Name == r.Dataset })
			if i < 0 || m.Datasets[i].Field(r.Field) == nil {
				return nil, b.fail(ReasonDependency, "metric %s refers to %s, which is not a declared field", x.Name, r)
			}
		}
		if len(refs) == 0 {
			return nil, b.fail(ReasonDependency, "metric %s must refer to at least one dataset.field", x.Name)
		}
	}
	x.Dependencies = refs
	if x.AI, err = b.ai(raw["ai_context"]); err != nil {
		return nil, err
	}
	return x, nil
}

func (b *builder) relationship(raw map[string]any, m *Model) (*Relationship, error) {
	r := &Relationship{Name: str(raw, "name"), From: str(raw, "from"), To: str(raw, "to"),
		FromColumns: strs(raw, "from_columns"), ToColumns: strs(raw, "to_columns")}
	if !nameRE().MatchString(r.Name) {
		return nil, b.fail(ReasonModelInvalid, "relationship name %q is not a name (%s)", clip(r.Name), namePattern)
	}
	find := func(name string) *Dataset {
		if i := slices.IndexFunc(m.Datasets, func(d *Dataset) bool { return d.Name == name }); i >= 0 {
			return m.Datasets[i]
		}
		return nil
	}
	from, to := find(r.From), find(r.To)
	if from == nil || to == nil {
		return nil, b.fail(ReasonDependency, "relationship %s joins a dataset the model does not declare", r.Name)
	}
	if len(r.FromColumns) != len(r.ToColumns) {
		return nil, b.fail(ReasonModelInvalid, "relationship %s: from_columns and to_columns differ in length", r.Name)
	}
	for i := range r.FromColumns {
		if from.Field(r.FromColumns[i]) == nil || to.Field(r.ToColumns[i]) == nil {
			return nil, b.fail(ReasonDependency, "relationship %s joins on a column that is not a declared field", r.Name)
		}
	}
	var err error
	if r.AI, err = b.ai(raw["ai_context"]); err != nil {
		return nil, err
	}
	return r, nil
}

// expressions checks each dialect's text: one per dialect, bounded, and a
// scalar expression (no statement keywords, separators or comments).
func (b *builder) expressions(raw any, what string) ([]Expression, error) {
	var out []Expression
	for _, r := range arr(asMap(raw), "dialects") {
		e := Expression{Dialect: str(asMap(r), "dialect"), Text: strings.TrimSpace(str(asMap(r), "expression"))}
		if slices.ContainsFunc(out, func(x Expression) bool { return x.Dialect == e.Dialect }) {
			return nil, b.fail(ReasonDuplicateDialect, "%s: dialect %s appears twice", what, e.Dialect)
		}
		if len(e.Text) > b.cfg.MaxExpressionBytes {
			return nil, b.fail(ReasonExpressionLimit, "%s: a %s expression of %d bytes exceeds %d (OSSIE_MAX_EXPRESSION_BYTES)", what, e.Dialect, len(e.Text), b.cfg.MaxExpressionBytes)
		}
		if e.Text == "" {
			return nil, b.fail(ReasonModelInvalid, "%s: the %s expression is empty", what, e.Dialect)
		}
		if unsafeRE().MatchString(e.Text) || strings.ContainsAny(e.Text, ";") || strings.Contains(e.Text, "--") ||
			strings.Contains(e.Text, "/*") || strings.Contains(e.Text, "*/") {
			return nil, b.fail(ReasonExpressionUnsafe, "%s: the %s expression is not a scalar expression (statement keywords, ; and comments are refused)", what, e.Dialect)
		}
		out = append(out, e)
	}
	return out, nil
}

// ai reads an ai_context: a string (instructions) or an object with
// instructions, synonyms and examples (at most 64 of each; other members,
// which the schema allows, are ignored).
func (b *builder) ai(raw any) (*AIContext, error) {
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case string:
		if s := strings.TrimSpace(v); s != "" {
			return &AIContext{Instructions: s}, nil
		}
		return nil, nil
	case map[string]any:
		a := &AIContext{Instructions: strings.TrimSpace(str(v, "instructions"))}
		for _, list := range []struct {
			key string
			dst *[]string
		}{{"synonyms", &a.Synonyms}, {"examples", &a.Examples}} {
			items := strs(v, list.key)
			if len(items) > 64 {
				return nil, b.fail(ReasonModelInvalid, "ai_context %s has %d entries; at most 64", list.key, len(items))
			}
			for _, s := range items {
				if s = strings.TrimSpace(s); s != "" && !slices.Contains(*list.dst, s) {
					*list.dst = append(*list.dst, s)
				}
			}
		}
		return a, nil
	}
	return nil, b.fail(ReasonModelInvalid, "ai_context is neither a string nor an object")
}

// qualified returns the dataset.field references of the ANSI_SQL text (or
// of the only text when there is no ANSI_SQL one), in order, without
// repeats. Text inside single-quoted literals is not a reference.
func qualified(exprs []Expression) []FieldRef {
	text := ANSI(exprs)
	if text == "" && len(exprs) > 0 {
		text = exprs[0].Text
	}
	text = stripLiterals(text)
	var out []FieldRef
	for _, m := range qualifiedRE().FindAllStringSubmatch(text, -1) {
		r := FieldRef{m[1], m[2]}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// stripLiterals blanks single-quoted SQL string literals (a doubled quote
// escapes one), so that 'a.b' is not read as a reference.
func stripLiterals(s string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' && in && i+1 < len(s) && s[i+1] == '\'':
			i++
		case c == '\'':
			in = !in
			b.WriteByte(' ')
		case in:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// relationshipWarnings flags join paths a Host should treat with care.
func relationshipWarnings(m *Model) []string {
	var w []string
	seen := map[[2]string]bool{}
	parallel := false
	for _, r := range m.Relationships {
		to := m.dataset(r.To)
		unique := slices.Equal(to.PrimaryKey, r.ToColumns)
		for _, k := range to.UniqueKeys {
			unique = unique || slices.Equal(k, r.ToColumns)
		}
		if !unique && !slices.Contains(w, "SEMANTIC_RELATIONSHIP_TARGET_NOT_DECLARED_UNIQUE") {
			w = append(w, "SEMANTIC_RELATIONSHIP_TARGET_NOT_DECLARED_UNIQUE")
		}
		pair := [2]string{min(r.From, r.To), max(r.From, r.To)}
		parallel = parallel || seen[pair]
		seen[pair] = true
	}
	if parallel {
		w = append(w, "SEMANTIC_AMBIGUOUS_JOIN_PATH")
	}
	if hasCycle(m) {
		w = append(w, "SEMANTIC_RELATIONSHIP_CYCLE")
	}
	return w
}

// dataset returns the dataset of that name, or nil.
func (m *Model) dataset(name string) *Dataset {
	if i := slices.IndexFunc(m.Datasets, func(d *Dataset) bool { return d.Name == name }); i >= 0 {
		return m.Datasets[i]
	}
	return nil
}

// Dataset returns the dataset of that name, or nil.
func (m *Model) Dataset(name string) *Dataset { return m.dataset(name) }

// hasCycle reports whether the relationships, as an undirected graph with
// parallel edges folded, contain a cycle.
func hasCycle(m *Model) bool {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		if p, ok := parent[x]; ok && p != x {
			r := find(p)
			parent[x] = r
			return r
		}
		parent[x] = x
		return x
	}
	seen := map[[2]string]bool{}
	for _, r := range m.Relationships {
		pair := [2]string{min(r.From, r.To), max(r.From, r.To)}
		if seen[pair] {
			continue
		}
		seen[pair] = true
		a, b := find(r.From), find(r.To)
		if a == b {
			return true
		}
		parent[a] = b
	}
	return false
}

// Tree accessors: the schema has already checked the shapes.

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func arr(m map[string]any, key string) []any {
	a, _ := m[key].([]any)
	return a
}

func strs(m map[string]any, key string) []string {
	return strsOf(m[key])
}

func strsOf(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
