package doris

// lakehouseHandlers binds the children of doris_lakehouse that this build runs.
func (r *Runtime) lakehouseHandlers() map[string]Handler {
	return map[string]Handler{}
}

// lakehouseProbeSQL are the SQL capability probes of doris_lakehouse.
var lakehouseProbeSQL = map[string]string{
	"lakehouse.show_catalogs": "SHOW CATALOGS",
}
