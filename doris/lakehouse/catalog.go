package lakehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

const lakePrefix = "LAKEHOUSE"

// catalogInfo is one row of SHOW CATALOGS.
type catalogInfo struct {
	name, typ, reportedType string
	current                 bool
	created, updated        any
	comment                 string
}

// catalogCapabilities are what Doris can do with a catalog of each type,
// as its documentation declares them (not probed per catalog).
var catalogCapabilities = map[string][]string{
	"iceberg": {"metadata_discovery", "partition_pruning", "predicate_pushdown", "snapshots", "system_tables", "time_travel"},
	"paimon":  {"incremental_read", "metadata_discovery", "partition_pruning", "predicate_pushdown", "snapshots", "system_tables", "time_travel"},
	"hms":     {"metadata_discovery", "partition_pruning", "predicate_pushdown", "hudi_and_iceberg_tables"},
	"jdbc":    {"metadata_discovery", "predicate_pushdown"},
	"es":      {"metadata_discovery", "predicate_pushdown"},
}

// canonicalType folds the spellings of a catalog type.
func canonicalType(t string) string {
	t = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(t)), "-", "_")
	switch t {
	case "hive":
		return "hms"
	case "elasticsearch":
		return "es"
	case "deltalake", "delta_lake":
		return "delta"
	}
	return t
}

// findCatalog reads SHOW CATALOGS and returns the external catalog name.
func (r kit) findCatalog(ctx context.Context, rt *doris.Route, name string) (*catalogInfo, error) {
	t, err := r.Text(ctx, rt, "SHOW CATALOGS", 10000, lakePrefix)
	if err != nil {
		return nil, doris.Classify(lakePrefix, err, ctx)
	}
	for pass := 0; pass < 2; pass++ { // an exact match first, then any case
		for _, row := range t.Rows {
			n := t.Get(row, "CatalogName")
			if n == name || pass == 1 && strings.EqualFold(n, name) {
				info := &catalogInfo{name: n, reportedType: t.Get(row, "Type"), current: strings.EqualFold(t.Get(row, "IsCurrent"), "yes"),
					created: doris.Nullable(t, row, "CreateTime"), updated: doris.Nullable(t, row, "LastUpdateTime"), comment: t.Get(row, "Comment")}
				info.typ = canonicalType(info.reportedType)
				if info.typ == "internal" {
					return nil, &doris.Error{Kind: doris.KindArguments, Reason: lakePrefix + "_CATALOG_NOT_EXTERNAL", Status: 409, Object: doris.PlainObject(n),
						Message: "internal is Doris's own catalog, not an external one; doris_catalog describes its objects"}
				}
				return info, nil
			}
		}
	}
	return nil, &doris.Error{Kind: doris.KindArguments, Reason: lakePrefix + "_CATALOG_NOT_FOUND", Status: 404, Object: doris.PlainObject(name),
		Message: fmt.Sprintf("the catalog %s does not exist or is not visible to this account", name)}
}

// unreachableCatalog re-reasons a failure that means the catalog's
// metastore or source did not answer Doris. The backend text is only
// inspected, never passed on.
func unreachableCatalog(err error) error {
	if doris.BackendSays(err, "meta store", "metastore", "could not connect", "connection refused") {
		return &doris.Error{Kind: doris.KindFailed, Reason: lakePrefix + "_CATALOG_UNREACHABLE", Status: 503, Retryable: true,
			Message: "the external catalog's metastore or source did not answer Doris", Cause: err}
	}
	return err
}

// InspectExternalCatalog runs doris_lakehouse inspect_external_catalog.
func InspectExternalCatalog(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Catalog        string `json:"catalog"`
		IncludeObjects bool   `json:"include_objects"`
		ObjectLimit    *int   `json:"object_limit"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckIdent(lakePrefix, "catalog", a.Catalog); e != nil {
		return nil, e
	}
	lim := r.Settings().Lakehouse
	limit := min(50, lim.MaxCatalogObjects)
	if a.ObjectLimit != nil {
		if *a.ObjectLimit > lim.MaxCatalogObjects {
			return nil, doris.ArgError(lakePrefix, "OBJECT_LIMIT_EXCEEDED", fmt.Sprintf(
				"object_limit %d exceeds this server's ceiling of %d (LAKEHOUSE_MAX_CATALOG_OBJECTS)", *a.ObjectLimit, lim.MaxCatalogObjects))
		}
		limit = *a.ObjectLimit
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	cat, err := r.findCatalog(ctx, rt, a.Catalog)
	if err != nil {
		return nil, err
	}
	evidence := []map[string]any{{"source": "SHOW CATALOGS", "status": "success"}}
	var warnings []string
	status := "success"
	data := map[string]any{
		"name": cat.name, "type": cat.typ, "reported_type": cat.reportedType, "state": nil, "is_current": cat.current,
		"created_at": cat.created, "last_updated_at": cat.updated,
		"capabilities": doris.OrEmpty(catalogCapabilities[cat.typ]), "capability_evidence": "declared for the catalog type",
	}
	if cat.comment != "" && safeValue(cat.comment) {
		data["comment"] = cat.comment
	}
	props, err := r.Text(ctx, rt, "SHOW CATALOG "+doris.QuoteIdent(cat.name), 1000, lakePrefix)
	if err != nil {
		de := doris.Classify(lakePrefix, err, ctx)
		status = "partial"
		warnings = append(warnings, "The catalog's properties could not be read ("+de.Reason+").")
		evidence = append(evidence, map[string]any{"source": "SHOW CATALOG", "status": "unavailable", "reason_code": de.Reason})
		data["properties"] = map[string]string{}
	} else {
		var kv [][2]string
		for _, row := range props.Rows {
			kv = append(kv, [2]string{props.Get(row, "Key"), props.Get(row, "Value")})
		}
		s := sanitize(kv, safeCatalogKeys)
		data["properties"], data["withheld_properties"], data["secret_properties"] = s.Shown, doris.OrEmpty(s.Withheld), s.Secret
		evidence = append(evidence, map[string]any{"source": "SHOW CATALOG", "status": "success", "rows": len(props.Rows),
			"values_shown": len(s.Shown), "values_withheld": len(s.Withheld) + s.Secret})
	}
	truncated := false
	if a.IncludeObjects {
		dbs, objTrunc, ev, warn, err := r.catalogObjects(ctx, rt, cat.name, limit)
		evidence = append(evidence, ev...)
		warnings = append(warnings, warn...)
		if err != nil {
			de := doris.Classify(lakePrefix, unreachableCatalog(err), ctx)
			status = "partial"
			data["state"] = "unreachable"
			if de.Reason == lakePrefix+"_PERMISSION_DENIED" {
				data["state"] = "not_permitted"
			}
			warnings = append(warnings, "The catalog's databases could not be listed ("+de.Reason+").")
			data["databases"] = nil
		} else {
			data["state"], data["databases"] = "reachable", dbs
			truncated = objTrunc
			if len(warn) > 0 {
				status = "partial"
			}
		}
		if truncated {
			warnings = append(warnings, fmt.Sprintf("The object sample stops at object_limit %d and %d databases (LAKEHOUSE_MAX_CATALOG_DATABASES).",
				limit, r.Settings().Lakehouse.MaxCatalogDatabases))
		}
	}
	data["truncated"] = truncated
	return &doris.Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence, Truncated: truncated}, nil
}

// catalogObjects samples the databases of a catalog and their tables:
// at most LAKEHOUSE_MAX_CATALOG_DATABASES databases and limit objects in
// all, in name order.
func (r kit) catalogObjects(ctx context.Context, rt *doris.Route, catalog string, limit int) ([]map[string]any, bool,
	[]map[string]any, []string, error) {
	maxDBs := r.Settings().Lakehouse.MaxCatalogDatabases
	t, err := r.Text(ctx, rt, "SHOW DATABASES FROM "+doris.QuoteIdent(catalog), maxDBs+1, lakePrefix)
	if err != nil {
		return nil, false, []map[string]any{{"source": "SHOW DATABASES", "status": "unavailable",
			"reason_code": doris.Classify(lakePrefix, unreachableCatalog(err), ctx).Reason}}, nil, err
	}
	evidence := []map[string]any{{"source": "SHOW DATABASES", "status": "success", "rows": len(t.Rows)}}
	var warnings []string
	truncated := t.Truncated || len(t.Rows) > maxDBs
	dbs := []map[string]any{}
	objects, skipped := 0, 0
	for i, row := range t.Rows {
		if i == maxDBs {
			break
		}
		name := t.Get(row, "Database")
		if name == "" && len(row) > 0 {
			name = row[0].String
		}
		if doris.CheckIdent(lakePrefix, "database", name) != nil {
			skipped++
			continue
		}
		entry := map[string]any{"name": name, "objects": []map[string]any{}}
		dbs = append(dbs, entry)
		if objects >= limit {
			truncated = true
			continue
		}
		tt, err := r.Text(ctx, rt, "SHOW FULL TABLES FROM "+doris.Qualified(catalog, name), limit-objects+1, lakePrefix)
		if err != nil {
			de := doris.Classify(lakePrefix, err, ctx)
			entry["status"], entry["reason_code"] = "unavailable", de.Reason
			warnings = append(warnings, "The tables of database "+name+" could not be listed ("+de.Reason+").")
			evidence = append(evidence, map[string]any{"source": "SHOW FULL TABLES", "database": name, "status": "unavailable", "reason_code": de.Reason})
			continue
		}
		evidence = append(evidence, map[string]any{"source": "SHOW FULL TABLES", "database": name, "status": "success", "rows": len(tt.Rows)})
		var objs []map[string]any
		for _, trow := range tt.Rows {
			if objects >= limit {
				truncated = true
				break
			}
			tname := ""
			if len(trow) > 0 {
				tname = trow[0].String
			}
			if doris.CheckIdent(lakePrefix, "table", tname) != nil {
				skipped++
				continue
			}
			typ := "table"
			if strings.Contains(strings.ToUpper(tt.Get(trow, "Table_type")), "VIEW") {
				typ = "view"
			}
			objs = append(objs, map[string]any{"name": tname, "type": typ})
			objects++
		}
		if tt.Truncated {
			truncated = true
		}
		entry["objects"] = doris.OrEmpty(objs)
	}
	if skipped > 0 {
		warnings = append(warnings, fmt.Sprintf("%s could not be named safely and were left out.", doris.Plural(skipped, "object", "objects")))
		truncated = true
	}
	return dbs, truncated, evidence, warnings, nil
}
