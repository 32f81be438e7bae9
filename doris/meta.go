package doris

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// Metadata for resources and completions. Everything here runs through
// the same route, guard and limits as the children.

// SystemDatabases are not offered as resources.
var SystemDatabases = []string{"information_schema", "mysql", "__internal_schema", "performance_schema", "sys", "__doris_sim"}

// Names lists catalogs, databases of a catalog, or tables of a database,
// filtered by prefix, sorted, at most limit.
func (r *Runtime) Names(ctx context.Context, id auth.Identity, catalog, database, prefix string, limit int) ([]string, error) {
	rt, err := r.Route(id)
	if err != nil {
		return nil, err
	}
	var q, col string
	switch {
	case catalog == "":
		q, col = "SHOW CATALOGS", "CatalogName"
	case database == "":
		if e := CheckIdent(CatalogPrefix, "catalog", catalog); e != nil {
			return nil, e
		}
		q, col = "SHOW DATABASES FROM "+QuoteIdent(catalog), "Database"
	default:
		if e := CheckIdents(CatalogPrefix, IdentArg{"catalog", catalog}, IdentArg{"database", database}); e != nil {
			return nil, e
		}
		q = "SHOW TABLES FROM " + Qualified(catalog, database)
	}
	t, err := r.Text(ctx, rt, q, MaxCatalogRows, CatalogPrefix)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range t.Rows {
		name := ""
		if col != "" {
			name = t.Get(row, col)
		} else if len(row) > 0 {
			name = row[0].String
		}
		if name != "" && strings.HasPrefix(strings.ToLower(name), strings.ToLower(prefix)) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Objects lists up to limit tables and views of the internal catalog
// visible to the identity, from information_schema in one bounded query.
func (r *Runtime) Objects(ctx context.Context, id auth.Identity, limit int) ([]ObjectRef, error) {
	rt, err := r.Route(id)
	if err != nil {
		return nil, err
	}
	exclude := make([]string, len(SystemDatabases))
	params := map[string]any{}
	for i, db := range SystemDatabases {
		key := "s" + string(rune('a'+i))
		exclude[i] = "%(" + key + ")s"
		params[key] = db
	}
	q, err := Bind("SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.tables WHERE TABLE_SCHEMA NOT IN ("+
		strings.Join(exclude, ", ")+") ORDER BY TABLE_SCHEMA, TABLE_NAME", params)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, limit, CatalogPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]ObjectRef, 0, len(t.Rows))
	for _, row := range t.Rows {
		out = append(out, ObjectRef{Catalog: "internal", Database: t.Get(row, "TABLE_SCHEMA"),
			Name: t.Get(row, "TABLE_NAME"), Kind: TableType(t.Get(row, "TABLE_TYPE"))})
	}
	return out, nil
}

// ReadObject returns the JSON document of a resource.
func (r *Runtime) ReadObject(ctx context.Context, id auth.Identity, kind, catalog, database, name string) ([]byte, error) {
	if CheckIdents(CatalogPrefix, IdentArg{"database", database}, IdentArg{"table", name}) != nil ||
		CheckOptionalIdents(CatalogPrefix, IdentArg{"catalog", catalog}) != nil {
		return nil, ErrNotFound
	}
	call := &Call{Domain: "doris_catalog", Identity: id}
	args := map[string]any{"catalog": catalog, "database": database, "table": name}
	if kind == "stats" {
		call.Child = "get_table_size"
	} else {
		call.Child = "get_table_context"
		args["sections"] = []string{"schema", "comments"}
	}
	call.Args, _ = json.Marshal(args)
	h := r.Handler(call.Domain, call.Child)
	if h == nil {
		return nil, ErrNotFound
	}
	res, err := h(ctx, call)
	var de *Error
	if errors.As(err, &de) && (de.Status == 404 || de.Kind == KindArguments) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"uri_kind": kind, "catalog": catalog, "database": database, "name": name,
		"status": res.Status, "data": res.Data, "warnings": OrEmpty(res.Warnings)})
}
