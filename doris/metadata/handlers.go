package metadata

import (
	"context"
	"slices"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// The doris_catalog children: object metadata only.

// ListCatalogs runs doris_catalog list_catalogs.
func ListCatalogs(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		IncludeExternal *bool  `json:"include_external"`
		Pattern         string `json:"pattern"`
		Page            string `json:"page"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, "SHOW CATALOGS", doris.MaxCatalogRows, doris.CatalogPrefix)
	if err != nil {
		return nil, err
	}
	var items []map[string]any
	for _, row := range t.Rows {
		name, typ := t.Get(row, "CatalogName"), t.Get(row, "Type")
		if a.IncludeExternal != nil && !*a.IncludeExternal && typ != "internal" {
			continue
		}
		ok, err := doris.Glob(doris.CatalogPrefix, a.Pattern, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		cur := t.Get(row, "IsCurrent")
		items = append(items, map[string]any{
			"name": name, "type": typ,
			"is_current": strings.EqualFold(cur, "yes") || strings.EqualFold(cur, "true"),
			"comment":    doris.Nullable(t, row, "Comment"),
		})
	}
	return r.collect(c, items, t.Truncated, a.Page)
}

// ListDatabases runs doris_catalog list_databases.
func ListDatabases(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Catalog string `json:"catalog"`
		Pattern string `json:"pattern"`
		Page    string `json:"page"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	q := "SHOW DATABASES"
	if a.Catalog != "" {
		if e := doris.CheckIdent(doris.CatalogPrefix, "catalog", a.Catalog); e != nil {
			return nil, e
		}
		q += " FROM " + doris.QuoteIdent(a.Catalog)
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, doris.MaxCatalogRows, doris.CatalogPrefix)
	if err != nil {
		return nil, err
	}
	var items []map[string]any
	for _, row := range t.Rows {
		name := t.Get(row, "Database")
		if name == "" && len(row) > 0 {
			name = row[0].String
		}
		ok, err := doris.Glob(doris.CatalogPrefix, a.Pattern, name)
		if err != nil {
			return nil, err
		}
		if ok {
			item := map[string]any{"name": name, "catalog": nil}
			if a.Catalog != "" {
				item["catalog"] = a.Catalog
			}
			items = append(items, item)
		}
	}
	return r.collect(c, items, t.Truncated, a.Page)
}

// ListTables runs doris_catalog list_tables.
func ListTables(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Database string   `json:"database"`
		Catalog  string   `json:"catalog"`
		Pattern  string   `json:"pattern"`
		Types    []string `json:"types"`
		Page     string   `json:"page"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckIdent(doris.CatalogPrefix, "database", a.Database); e != nil {
		return nil, e
	}
	if e := doris.CheckOptionalIdents(doris.CatalogPrefix, doris.Arg("catalog", a.Catalog)); e != nil {
		return nil, e
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, "SHOW FULL TABLES FROM "+doris.Qualified(a.Catalog, a.Database), doris.MaxCatalogRows, doris.CatalogPrefix)
	if err != nil {
		return nil, err
	}
	var items []map[string]any
	for _, row := range t.Rows {
		if len(row) == 0 {
			continue
		}
		name := row[0].String // Tables_in_<db>
		typ := doris.TableType(t.Get(row, "Table_type"))
		if len(a.Types) > 0 && !slices.Contains(a.Types, typ) {
			continue
		}
		ok, err := doris.Glob(doris.CatalogPrefix, a.Pattern, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		item := map[string]any{"name": name, "type": typ}
		if t.Has("Storage_format") {
			item["storage_format"] = doris.Nullable(t, row, "Storage_format")
		}
		if t.Has("Inverted_index_storage_format") {
			item["inverted_index_storage_format"] = doris.Nullable(t, row, "Inverted_index_storage_format")
		}
		items = append(items, item)
	}
	return r.collect(c, items, t.Truncated, a.Page)
}

// collect sorts catalog items by (name, type) case-folded and pages them.
func (r kit) collect(c *doris.Call, items []map[string]any, truncated bool, cursor string) (*doris.Result, error) {
	key := func(it map[string]any) string {
		typ, _ := it["type"].(string)
		return strings.ToLower(it["name"].(string)) + "\x00" + strings.ToLower(typ)
	}
	slices.SortStableFunc(items, func(a, b map[string]any) int { return strings.Compare(key(a), key(b)) })
	pageItems, next, err := r.Page(c, doris.CatalogPrefix, items, key, cursor)
	if err != nil {
		return nil, err
	}
	if pageItems == nil {
		pageItems = []map[string]any{}
	}
	res := &doris.Result{Status: "success", Data: doris.Collection{Items: pageItems, NextCursor: next, Truncated: truncated}, Truncated: truncated}
	if truncated {
		res.Warnings = append(res.Warnings, "Doris returned more objects than the server reads at once; narrow the list with pattern.")
	}
	return res, nil
}

// Probes are the capability probes of this domain's children.
var Probes = map[string]doris.Probe{
	"catalog.show_catalogs":                 {SQL: "SHOW CATALOGS"},
	"catalog.show_databases":                {SQL: "SHOW DATABASES"},
	"catalog.information_schema_tables":     {SQL: "SELECT 1 AS capability_probe FROM information_schema.tables LIMIT 1"},
	"catalog.information_schema_columns":    {SQL: "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.columns LIMIT 1"},
	"catalog.information_schema_partitions": {SQL: "SELECT PARTITION_NAME, TABLE_ROWS, DATA_LENGTH FROM information_schema.partitions LIMIT 1"},
}
