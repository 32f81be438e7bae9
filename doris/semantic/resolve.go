package semantic

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
)

// The Ossie children answer for one caller: a dataset is shown only when
// its bound Doris object is visible on the caller's own route and the
// caller may SELECT from it. Everything here runs on that route, through
// the guard and the runtime's bounds, and changes nothing.

// Binding states of a dataset, as get_semantic_mapping_status reports them.
const (
	bindingReady          = "ready"
	bindingNotVisible     = "not_visible"       // absent from information_schema for this caller
	bindingNoSelect       = "permission_denied" // listed, but SELECT is refused
	bindingUnreadable     = "unreadable"        // listed, but SELECT fails otherwise (a broken view)
	bindingKindMismatch   = "kind_mismatch"     // a view bound as a table, or the reverse
	bindingColumnsMissing = "columns_missing"   // a field's column is not in the object
	bindingTypeConflict   = "type_conflict"     // a field's datatype does not fit its column
)

var bindingReasons = map[string]string{
	bindingNotVisible:     "SEMANTIC_OBJECT_NOT_VISIBLE",
	bindingNoSelect:       "SEMANTIC_PERMISSION_DENIED",
	bindingUnreadable:     "SEMANTIC_OBJECT_UNREADABLE",
	bindingKindMismatch:   "SEMANTIC_OBJECT_KIND_MISMATCH",
	bindingColumnsMissing: "SEMANTIC_COLUMNS_MISSING",
	bindingTypeConflict:   "SEMANTIC_TYPE_CONFLICT",
}

// objectState is what the caller's route shows of one Doris object.
type objectState struct {
	listed     bool
	kind       string            // table, view or materialized_view
	columns    map[string]string // column name -> lower-case DATA_TYPE
	selectable bool
	unreadable bool // SELECT failed for a reason other than privileges
}

// datasetState is one dataset of a model as this caller sees it.
type datasetState struct {
	ds       *ossie.Dataset
	status   string
	kind     string   // the object's kind, when listed
	missing  []string // fields whose column is absent
	conflict []string // fields whose datatype does not fit
}

// visible reports whether the caller may use the dataset: its object is
// listed and selectable. A binding that is visible may still not be ready.
func (s *datasetState) visible() bool {
	return s.status != bindingNotVisible && s.status != bindingNoSelect && s.status != bindingUnreadable
}

// fieldVisible reports whether a field of a visible dataset can be shown:
// its column exists (computed fields are not checked).
func (s *datasetState) fieldVisible(f *ossie.Field) bool {
	return s.visible() && !slices.Contains(s.missing, f.Name)
}

// view is a model as one caller sees it.
type view struct {
	m        *ossie.Model
	datasets map[string]*datasetState
}

func (v *view) visibleDatasets() []*ossie.Dataset {
	var out []*ossie.Dataset
	for _, d := range v.m.Datasets {
		if v.datasets[d.Name].visible() {
			out = append(out, d)
		}
	}
	return out
}

// omitted are the datasets left out for this caller, in model order.
func (v *view) omitted() []string {
	var out []string
	for _, d := range v.m.Datasets {
		if !v.datasets[d.Name].visible() {
			out = append(out, d.Name)
		}
	}
	return out
}

// metricVisible reports whether every dataset and field a metric depends
// on is visible.
func (v *view) metricVisible(x *ossie.Metric) bool {
	for _, name := range x.Datasets() {
		if st, ok := v.datasets[name]; !ok || !st.visible() {
			return false
		}
	}
	for _, dep := range x.Dependencies {
		st := v.datasets[dep.Dataset]
		if f := st.ds.Field(dep.Field); f == nil || !st.fieldVisible(f) {
			return false
		}
	}
	return true
}

func (v *view) relationshipVisible(rel *ossie.Relationship) bool {
	from, to := v.datasets[rel.From], v.datasets[rel.To]
	if !from.visible() || !to.visible() {
		return false
	}
	for i := range rel.FromColumns {
		if !from.fieldVisible(from.ds.Field(rel.FromColumns[i])) || !to.fieldVisible(to.ds.Field(rel.ToColumns[i])) {
			return false
		}
	}
	return true
}

// maxColumnRows bounds the information_schema.columns read of one
// database.
const maxColumnRows = 65536

// resolve shows the models to the caller: one tables and one columns read
// per bound database, and one SELECT ... LIMIT 0 per listed object (at
// most four at a time), for every distinct object the models bind.
func (r kit) resolve(ctx context.Context, c *doris.Call, models []*ossie.Model) ([]*view, error) {
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	objects := map[ossie.Binding]*objectState{}
	type database struct{ catalog, name string }
	byDatabase := map[database][]string{}
	for _, m := range models {
		for _, d := range m.Datasets {
			b := objectKey(d.Binding)
			if _, ok := objects[b]; !ok {
				objects[b] = &objectState{}
				k := database{b.Catalog, b.Database}
				byDatabase[k] = append(byDatabase[k], b.Object)
			}
		}
	}
	dbs := make([]database, 0, len(byDatabase))
	for k := range byDatabase {
		dbs = append(dbs, k)
	}
	slices.SortFunc(dbs, func(a, b database) int { return strings.Compare(a.catalog+"."+a.name, b.catalog+"."+b.name) })
	for _, k := range dbs {
		if err := r.listObjects(ctx, rt, k.catalog, k.name, byDatabase[k], objects); err != nil {
			return nil, err
		}
	}
	if err := r.checkSelect(ctx, rt, objects); err != nil {
		return nil, err
	}
	views := make([]*view, len(models))
	for i, m := range models {
		v := &view{m: m, datasets: map[string]*datasetState{}}
		for _, d := range m.Datasets {
			v.datasets[d.Name] = datasetOf(d, objects[objectKey(d.Binding)])
		}
		views[i] = v
	}
	return views, nil
}

// objectKey is a binding without its declared kind: one object, however
// many datasets bind it and as what.
func objectKey(b ossie.Binding) ossie.Binding {
	b.Kind = ""
	return b
}

// listObjects reads which objects of one database the caller can see, and
// their columns, from the information_schema of the object's catalog.
func (r kit) listObjects(ctx context.Context, rt *doris.Route, catalog, db string, names []string, out map[ossie.Binding]*objectState) error {
	params := map[string]any{"db": db}
	in := make([]string, len(names))
	for i, n := range names {
		key := fmt.Sprintf("t%d", i)
		params[key], in[i] = n, "%("+key+")s"
	}
	schema := "information_schema."
	if catalog != "internal" {
		schema = doris.QuoteIdent(catalog) + ".information_schema."
	}
	where := " WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME IN (" + strings.Join(in, ", ") + ")"
	q, err := doris.Bind("SELECT TABLE_NAME, TABLE_TYPE FROM "+schema+"tables"+where, params)
	if err != nil {
		return err
	}
	t, err := r.Text(ctx, rt, q, 2*len(names)+8, semanticPrefix)
	if err != nil {
		return metadataError(err)
	}
	for _, row := range t.Rows {
		if st, ok := out[ossie.Binding{Catalog: catalog, Database: db, Object: t.Get(row, "TABLE_NAME")}]; ok {
			st.listed, st.kind, st.columns = true, doris.TableType(t.Get(row, "TABLE_TYPE")), map[string]string{}
		}
	}
	q, err = doris.Bind("SELECT TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM "+schema+"columns"+where+" ORDER BY TABLE_NAME, ORDINAL_POSITION", params)
	if err != nil {
		return err
	}
	cols, err := r.Text(ctx, rt, q, maxColumnRows, semanticPrefix)
	if err != nil {
		return metadataError(err)
	}
	if cols.Truncated {
		return &doris.Error{Kind: doris.KindFailed, Reason: "SEMANTIC_METADATA_TRUNCATED", Status: 502,
			Message: fmt.Sprintf("the bound tables of database %s have more columns than the server reads at once (%d)", db, maxColumnRows)}
	}
	for _, row := range cols.Rows {
		if st, ok := out[ossie.Binding{Catalog: catalog, Database: db, Object: cols.Get(row, "TABLE_NAME")}]; ok && st.listed {
			st.columns[cols.Get(row, "COLUMN_NAME")] = strings.ToLower(cols.Get(row, "DATA_TYPE"))
		}
	}
	return nil
}

// checkSelect runs SELECT * ... LIMIT 0 on every listed object: Doris
// lists an object to anyone with any privilege on it, and only SELECT
// makes it usable.
func (r kit) checkSelect(ctx context.Context, rt *doris.Route, objects map[ossie.Binding]*objectState) error {
	type job struct {
		b  ossie.Binding
		st *objectState
	}
	jobs := make(chan job)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex // protects firstErr
		firstErr error
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				_, err := r.Text(ctx, rt, "SELECT * FROM "+doris.Qualified(j.b.Catalog, j.b.Database, j.b.Object)+" LIMIT 0", 1, semanticPrefix)
				var de *doris.Error
				switch {
				case err == nil:
					j.st.selectable = true
				case errors.As(err, &de) && (de.Reason == "SEMANTIC_PERMISSION_DENIED" || de.Reason == "SEMANTIC_OBJECT_NOT_FOUND"):
				case errors.As(err, &de) && !de.Retryable:
					// Doris answered, but the object cannot be read (a view
					// over a dropped table): this binding's problem, not
					// the call's.
					j.st.unreadable = true
				default:
					mu.Lock()
					if firstErr == nil {
						firstErr = metadataError(err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	keys := make([]ossie.Binding, 0, len(objects))
	for b, st := range objects {
		if st.listed {
			keys = append(keys, b)
		}
	}
	slices.SortFunc(keys, func(a, b ossie.Binding) int {
		return strings.Compare(a.Catalog+"."+a.Database+"."+a.Object, b.Catalog+"."+b.Database+"."+b.Object)
	})
	for _, b := range keys {
		jobs <- job{b, objects[b]}
	}
	close(jobs)
	wg.Wait()
	return firstErr
}

// metadataError keeps a classified failure and names the semantic layer
// as the one that could not confirm visibility.
func metadataError(err error) error {
	var de *doris.Error
	if errors.As(err, &de) {
		if de.Reason == "SEMANTIC_EXECUTION_FAILED" || de.Reason == "SEMANTIC_BACKEND_UNAVAILABLE" {
			return &doris.Error{Kind: doris.KindFailed, Reason: "SEMANTIC_BACKEND_UNAVAILABLE", Status: 503, Retryable: true,
				Message: "Doris did not confirm which bound tables are visible to you; retry", Cause: err}
		}
		return de
	}
	return err
}

// datasetOf judges one dataset's binding against its object's state.
func datasetOf(d *ossie.Dataset, o *objectState) *datasetState {
	s := &datasetState{ds: d}
	switch {
	case !o.listed:
		s.status = bindingNotVisible
		return s
	case o.unreadable:
		s.status, s.kind = bindingUnreadable, o.kind
		return s
	case !o.selectable:
		s.status, s.kind = bindingNoSelect, o.kind
		return s
	}
	s.kind = o.kind
	for _, f := range d.Fields {
		if f.Column == "" {
			continue
		}
		typ, ok := o.columns[f.Column]
		switch {
		case !ok:
			s.missing = append(s.missing, f.Name)
		case f.Datatype != "" && !typeFits(f.Datatype, typ):
			s.conflict = append(s.conflict, f.Name)
		}
	}
	switch {
	case len(s.missing) > 0:
		s.status = bindingColumnsMissing
	case len(s.conflict) > 0:
		s.status = bindingTypeConflict
	case d.Binding.Kind != o.kind && !(d.Binding.Kind == "view" && o.kind == "materialized_view"):
		s.status = bindingKindMismatch
	default:
		s.status = bindingReady
	}
	return s
}

// typeFamilies are the Doris (and MySQL-protocol) column types each Ossie
// datatype fits, by base name.
var typeFamilies = map[string][]string{
	"String":     {"char", "varchar", "string", "text", "tinytext", "mediumtext", "longtext", "json", "jsonb", "variant", "enum"},
	"Integer":    {"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "largeint"},
	"Decimal":    {"decimal", "decimalv2", "decimalv3", "numeric"},
	"Float":      {"float", "double", "real"},
	"Boolean":    {"boolean", "bool", "tinyint"},
	"Date":       {"date", "datev2"},
	"Time":       {"time", "timev2"},
	"DateTime":   {"datetime", "datetimev2", "timestamp"},
	"DateTimeTz": {"datetime", "datetimev2", "timestamp", "timestamptz"},
}

func typeFits(datatype, column string) bool {
	if datatype == "Opaque" {
		return true
	}
	base, _, _ := strings.Cut(column, "(")
	base = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(base), " unsigned"))
	return slices.Contains(typeFamilies[datatype], base)
}
