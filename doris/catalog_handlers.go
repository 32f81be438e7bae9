package doris

import (
	"context"
	"slices"
	"strings"
)

// The doris_catalog children: object metadata only.

const catalogPrefix = "CATALOG"

// maxCatalogRows bounds every metadata listing read from Doris.
const maxCatalogRows = 10000

func (r *Runtime) listCatalogs(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		IncludeExternal *bool  `json:"include_external"`
		Pattern         string `json:"pattern"`
		Page            string `json:"page"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.text(ctx, rt, "SHOW CATALOGS", maxCatalogRows, catalogPrefix)
	if err != nil {
		return nil, err
	}
	var items []map[string]any
	for _, row := range t.rows {
		name, typ := t.get(row, "CatalogName"), t.get(row, "Type")
		if a.IncludeExternal != nil && !*a.IncludeExternal && typ != "internal" {
			continue
		}
		ok, err := glob(catalogPrefix, a.Pattern, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		cur := t.get(row, "IsCurrent")
		items = append(items, map[string]any{
			"name": name, "type": typ,
			"is_current": strings.EqualFold(cur, "yes") || strings.EqualFold(cur, "true"),
			"comment":    nullable(t, row, "Comment"),
		})
	}
	return r.collect(c, items, t.truncated, a.Page)
}

func (r *Runtime) listDatabases(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		Catalog string `json:"catalog"`
		Pattern string `json:"pattern"`
		Page    string `json:"page"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	q := "SHOW DATABASES"
	if a.Catalog != "" {
		if e := checkIdent(catalogPrefix, "catalog", a.Catalog); e != nil {
			return nil, e
		}
		q += " FROM " + quoteIdent(a.Catalog)
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.text(ctx, rt, q, maxCatalogRows, catalogPrefix)
	if err != nil {
		return nil, err
	}
	var items []map[string]any
	for _, row := range t.rows {
		name := t.get(row, "Database")
		if name == "" && len(row) > 0 {
			name = row[0].String
		}
		ok, err := glob(catalogPrefix, a.Pattern, name)
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
	return r.collect(c, items, t.truncated, a.Page)
}

func (r *Runtime) listTables(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		Database string   `json:"database"`
		Catalog  string   `json:"catalog"`
		Pattern  string   `json:"pattern"`
		Types    []string `json:"types"`
		Page     string   `json:"page"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := checkIdent(catalogPrefix, "database", a.Database); e != nil {
		return nil, e
	}
	if e := checkOptionalIdents(catalogPrefix, identArg{"catalog", a.Catalog}); e != nil {
		return nil, e
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.text(ctx, rt, "SHOW FULL TABLES FROM "+qualified(a.Catalog, a.Database), maxCatalogRows, catalogPrefix)
	if err != nil {
		return nil, err
	}
	var items []map[string]any
	for _, row := range t.rows {
		if len(row) == 0 {
			continue
		}
		name := row[0].String // Tables_in_<db>
		typ := tableType(t.get(row, "Table_type"))
		if len(a.Types) > 0 && !slices.Contains(a.Types, typ) {
			continue
		}
		ok, err := glob(catalogPrefix, a.Pattern, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		item := map[string]any{"name": name, "type": typ}
		if t.has("Storage_format") {
			item["storage_format"] = nullable(t, row, "Storage_format")
		}
		if t.has("Inverted_index_storage_format") {
			item["inverted_index_storage_format"] = nullable(t, row, "Inverted_index_storage_format")
		}
		items = append(items, item)
	}
	return r.collect(c, items, t.truncated, a.Page)
}

// tableType maps SHOW FULL TABLES' Table_type to the contract's names.
func tableType(s string) string {
	u := strings.ToUpper(s)
	switch {
	case strings.Contains(u, "MATERIALIZED"):
		return "materialized_view"
	case strings.Contains(u, "VIEW"):
		return "view"
	}
	return "table"
}

// collect sorts catalog items by (name, type) case-folded and pages them.
func (r *Runtime) collect(c *Call, items []map[string]any, truncated bool, cursor string) (*Result, error) {
	key := func(it map[string]any) string {
		typ, _ := it["type"].(string)
		return strings.ToLower(it["name"].(string)) + "\x00" + strings.ToLower(typ)
	}
	slices.SortStableFunc(items, func(a, b map[string]any) int { return strings.Compare(key(a), key(b)) })
	pageItems, next, err := r.page(c, catalogPrefix, items, key, cursor)
	if err != nil {
		return nil, err
	}
	if pageItems == nil {
		pageItems = []map[string]any{}
	}
	res := &Result{Status: "success", Data: collection{Items: pageItems, NextCursor: next, Truncated: truncated}, Truncated: truncated}
	if truncated {
		res.Warnings = append(res.Warnings, "Doris returned more objects than the server reads at once; narrow the list with pattern.")
	}
	return res, nil
}

func nullable(t *textRows, row []sqlNullString, col string) any {
	for i, c := range t.cols {
		if strings.EqualFold(c, col) {
			if !row[i].Valid || row[i].String == "NULL" {
				return nil
			}
			return row[i].String
		}
	}
	return nil
}

func (r *Runtime) catalogHandlers() map[string]Handler {
	return map[string]Handler{
		"doris_catalog.list_catalogs":     r.listCatalogs,
		"doris_catalog.list_databases":    r.listDatabases,
		"doris_catalog.list_tables":       r.listTables,
		"doris_catalog.get_table_context": r.getTableContext,
		"doris_catalog.get_table_size":    r.getTableSize,
	}
}

// catalogProbeSQL are the SQL capability probes of doris_catalog.
var catalogProbeSQL = map[string]string{
	"catalog.show_catalogs":                 "SHOW CATALOGS",
	"catalog.show_databases":                "SHOW DATABASES",
	"catalog.information_schema_tables":     "SELECT 1 AS capability_probe FROM information_schema.tables LIMIT 1",
	"catalog.information_schema_columns":    "SELECT COLUMN_NAME, DATA_TYPE FROM information_schema.columns LIMIT 1",
	"catalog.information_schema_partitions": "SELECT PARTITION_NAME, TABLE_ROWS, DATA_LENGTH FROM information_schema.partitions LIMIT 1",
}
