package doris

// lakehouseHandlers binds the children of doris_lakehouse that this build runs.
func (r *Runtime) lakehouseHandlers() map[string]Handler {
	return map[string]Handler{
		"doris_lakehouse.inspect_external_catalog": r.inspectExternalCatalog,
		"doris_lakehouse.inspect_lakehouse_table":  r.inspectLakehouseTable,
		"doris_lakehouse.inspect_variant_column":   r.inspectVariantColumn,
	}
}

// lakehouseProbeSQL are the SQL capability probes of doris_lakehouse.
var lakehouseProbeSQL = map[string]string{
	"lakehouse.show_catalogs": "SHOW CATALOGS",
}
