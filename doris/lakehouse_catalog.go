package doris

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
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
func (r *Runtime) findCatalog(ctx context.Context, rt *route, name string) (*catalogInfo, error) {
	t, err := r.text(ctx, rt, "SHOW CATALOGS", 10000, lakePrefix)
	if err != nil {
		return nil, classify(lakePrefix, err, ctx)
	}
	for pass := 0; pass < 2; pass++ { // an exact match first, then any case
		for _, row := range t.rows {
			n := t.get(row, "CatalogName")
			if n == name || pass == 1 && strings.EqualFold(n, name) {
				info := &catalogInfo{name: n, reportedType: t.get(row, "Type"), current: strings.EqualFold(t.get(row, "IsCurrent"), "yes"),
					created: nullable(t, row, "CreateTime"), updated: nullable(t, row, "LastUpdateTime"), comment: t.get(row, "Comment")}
				info.typ = canonicalType(info.reportedType)
				if info.typ == "internal" {
					return nil, &Error{Kind: KindArguments, Reason: lakePrefix + "_CATALOG_NOT_EXTERNAL", Status: 409, Object: plainObject(n),
						Message: "internal is Doris's own catalog, not an external one; doris_catalog describes its objects"}
				}
				return info, nil
			}
		}
	}
	return nil, &Error{Kind: KindArguments, Reason: lakePrefix + "_CATALOG_NOT_FOUND", Status: 404, Object: plainObject(name),
		Message: fmt.Sprintf("the catalog %s does not exist or is not visible to this account", name)}
}

// backendSays reports whether Doris's error text contains any of the
// phrases. The text is only inspected to pick a reason, never passed on.
func backendSays(err error, phrases ...string) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	msg := strings.ToLower(me.Message)
	for _, p := range phrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// unreachableCatalog re-reasons a failure that means the catalog's
// metastore or source did not answer Doris. The backend text is only
// inspected, never passed on.
func unreachableCatalog(err error) error {
	if backendSays(err, "meta store", "metastore", "could not connect", "connection refused") {
		return &Error{Kind: KindFailed, Reason: lakePrefix + "_CATALOG_UNREACHABLE", Status: 503, Retryable: true,
			Message: "the external catalog's metastore or source did not answer Doris", Cause: err}
	}
	return err
}

func (r *Runtime) inspectExternalCatalog(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		Catalog        string `json:"catalog"`
		IncludeObjects bool   `json:"include_objects"`
		ObjectLimit    *int   `json:"object_limit"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := checkIdent(lakePrefix, "catalog", a.Catalog); e != nil {
		return nil, e
	}
	lim := r.cfg.Lakehouse
	limit := min(50, lim.MaxCatalogObjects)
	if a.ObjectLimit != nil {
		if *a.ObjectLimit > lim.MaxCatalogObjects {
			return nil, argError(lakePrefix, "OBJECT_LIMIT_EXCEEDED", fmt.Sprintf(
				"object_limit %d exceeds this server's ceiling of %d (LAKEHOUSE_MAX_CATALOG_OBJECTS)", *a.ObjectLimit, lim.MaxCatalogObjects))
		}
		limit = *a.ObjectLimit
	}
	rt, err := r.route(c.Identity)
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
		"capabilities": orEmpty(catalogCapabilities[cat.typ]), "capability_evidence": "declared for the catalog type",
	}
	if cat.comment != "" && safeValue(cat.comment) {
		data["comment"] = cat.comment
	}
	props, err := r.text(ctx, rt, "SHOW CATALOG "+quoteIdent(cat.name), 1000, lakePrefix)
	if err != nil {
		de := classify(lakePrefix, err, ctx)
		status = "partial"
		warnings = append(warnings, "The catalog's properties could not be read ("+de.Reason+").")
		evidence = append(evidence, map[string]any{"source": "SHOW CATALOG", "status": "unavailable", "reason_code": de.Reason})
		data["properties"] = map[string]string{}
	} else {
		var kv [][2]string
		for _, row := range props.rows {
			kv = append(kv, [2]string{props.get(row, "Key"), props.get(row, "Value")})
		}
		s := sanitize(kv, safeCatalogKeys)
		data["properties"], data["withheld_properties"], data["secret_properties"] = s.Shown, orEmpty(s.Withheld), s.Secret
		evidence = append(evidence, map[string]any{"source": "SHOW CATALOG", "status": "success", "rows": len(props.rows),
			"values_shown": len(s.Shown), "values_withheld": len(s.Withheld) + s.Secret})
	}
	truncated := false
	if a.IncludeObjects {
		dbs, objTrunc, ev, warn, err := r.catalogObjects(ctx, rt, cat.name, limit)
		evidence = append(evidence, ev...)
		warnings = append(warnings, warn...)
		if err != nil {
			de := classify(lakePrefix, unreachableCatalog(err), ctx)
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
				limit, r.cfg.Lakehouse.MaxCatalogDatabases))
		}
	}
	data["truncated"] = truncated
	return &Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence, Truncated: truncated}, nil
}

// catalogObjects samples the databases of a catalog and their tables:
// at most LAKEHOUSE_MAX_CATALOG_DATABASES databases and limit objects in
// all, in name order.
func (r *Runtime) catalogObjects(ctx context.Context, rt *route, catalog string, limit int) ([]map[string]any, bool,
	[]map[string]any, []string, error) {
	maxDBs := r.cfg.Lakehouse.MaxCatalogDatabases
	t, err := r.text(ctx, rt, "SHOW DATABASES FROM "+quoteIdent(catalog), maxDBs+1, lakePrefix)
	if err != nil {
		return nil, false, []map[string]any{{"source": "SHOW DATABASES", "status": "unavailable",
			"reason_code": classify(lakePrefix, unreachableCatalog(err), ctx).Reason}}, nil, err
	}
	evidence := []map[string]any{{"source": "SHOW DATABASES", "status": "success", "rows": len(t.rows)}}
	var warnings []string
	truncated := t.truncated || len(t.rows) > maxDBs
	dbs := []map[string]any{}
	objects, skipped := 0, 0
	for i, row := range t.rows {
		if i == maxDBs {
			break
		}
		name := t.get(row, "Database")
		if name == "" && len(row) > 0 {
			name = row[0].String
		}
		if checkIdent(lakePrefix, "database", name) != nil {
			skipped++
			continue
		}
		entry := map[string]any{"name": name, "objects": []map[string]any{}}
		dbs = append(dbs, entry)
		if objects >= limit {
			truncated = true
			continue
		}
		tt, err := r.text(ctx, rt, "SHOW FULL TABLES FROM "+qualified(catalog, name), limit-objects+1, lakePrefix)
		if err != nil {
			de := classify(lakePrefix, err, ctx)
			entry["status"], entry["reason_code"] = "unavailable", de.Reason
			warnings = append(warnings, "The tables of database "+name+" could not be listed ("+de.Reason+").")
			evidence = append(evidence, map[string]any{"source": "SHOW FULL TABLES", "database": name, "status": "unavailable", "reason_code": de.Reason})
			continue
		}
		evidence = append(evidence, map[string]any{"source": "SHOW FULL TABLES", "database": name, "status": "success", "rows": len(tt.rows)})
		var objs []map[string]any
		for _, trow := range tt.rows {
			if objects >= limit {
				truncated = true
				break
			}
			tname := ""
			if len(trow) > 0 {
				tname = trow[0].String
			}
			if checkIdent(lakePrefix, "table", tname) != nil {
				skipped++
				continue
			}
			typ := "table"
			if strings.Contains(strings.ToUpper(tt.get(trow, "Table_type")), "VIEW") {
				typ = "view"
			}
			objs = append(objs, map[string]any{"name": tname, "type": typ})
			objects++
		}
		if tt.truncated {
			truncated = true
		}
		entry["objects"] = orEmpty(objs)
	}
	if skipped > 0 {
		warnings = append(warnings, fmt.Sprintf("%s could not be named safely and were left out.", plural(skipped, "object", "objects")))
		truncated = true
	}
	return dbs, truncated, evidence, warnings, nil
}
