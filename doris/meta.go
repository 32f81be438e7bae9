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

// systemDatabases are not offered as resources.
var systemDatabases = []string{"information_schema", "mysql", "__internal_schema", "performance_schema", "sys", "__doris_sim"}

// Names lists catalogs, databases of a catalog, or tables of a database,
// filtered by prefix, sorted, at most limit.
func (r *Runtime) Names(ctx context.Context, id auth.Identity, catalog, database, prefix string, limit int) ([]string, error) {
	rt, err := r.route(id)
	if err != nil {
		return nil, err
	}
	var q, col string
	switch {
	case catalog == "":
		q, col = "SHOW CATALOGS", "CatalogName"
	case database == "":
		if e := checkIdent(catalogPrefix, "catalog", catalog); e != nil {
			return nil, e
		}
		q, col = "SHOW DATABASES FROM "+quoteIdent(catalog), "Database"
	default:
		if e := checkIdents(catalogPrefix, identArg{"catalog", catalog}, identArg{"database", database}); e != nil {
			return nil, e
		}
		q = "SHOW TABLES FROM " + qualified(catalog, database)
	}
	t, err := r.text(ctx, rt, q, maxCatalogRows, catalogPrefix)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range t.rows {
		name := ""
		if col != "" {
			name = t.get(row, col)
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
	rt, err := r.route(id)
	if err != nil {
		return nil, err
	}
	exclude := make([]string, len(systemDatabases))
	params := map[string]any{}
	for i, db := range systemDatabases {
		key := "s" + string(rune('a'+i))
		exclude[i] = "%(" + key + ")s"
		params[key] = db
	}
	q, err := bind("SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.tables WHERE TABLE_SCHEMA NOT IN ("+
		strings.Join(exclude, ", ")+") ORDER BY TABLE_SCHEMA, TABLE_NAME", params)
	if err != nil {
		return nil, err
	}
	t, err := r.text(ctx, rt, q, limit, catalogPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]ObjectRef, 0, len(t.rows))
	for _, row := range t.rows {
		out = append(out, ObjectRef{Catalog: "internal", Database: t.get(row, "TABLE_SCHEMA"),
			Name: t.get(row, "TABLE_NAME"), Kind: tableType(t.get(row, "TABLE_TYPE"))})
	}
	return out, nil
}

// ReadObject returns the JSON document of a resource.
func (r *Runtime) ReadObject(ctx context.Context, id auth.Identity, kind, catalog, database, name string) ([]byte, error) {
	a := tableArgs{Catalog: catalog, Database: database, Table: name}
	if a.check() != nil {
		return nil, ErrNotFound
	}
	call := &Call{Identity: id}
	var res *Result
	var err error
	if kind == "stats" {
		call.Args, _ = json.Marshal(map[string]any{"catalog": catalog, "database": database, "table": name})
		res, err = r.getTableSize(ctx, call)
	} else {
		call.Args, _ = json.Marshal(map[string]any{"catalog": catalog, "database": database, "table": name,
			"sections": []string{"schema", "comments"}})
		res, err = r.getTableContext(ctx, call)
	}
	var de *Error
	if errors.As(err, &de) && (de.Status == 404 || de.Kind == KindArguments) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"uri_kind": kind, "catalog": catalog, "database": database, "name": name,
		"status": res.Status, "data": res.Data, "warnings": orEmpty(res.Warnings)})
}
