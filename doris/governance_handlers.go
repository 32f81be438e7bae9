package doris

// governanceHandlers binds the children of doris_governance that this build runs.
func (r *Runtime) governanceHandlers() map[string]Handler {
	return map[string]Handler{}
}

// governanceProbeSQL are the SQL capability probes of doris_governance.
var governanceProbeSQL = map[string]string{
	"governance.information_schema": "SELECT COLUMN_NAME FROM information_schema.columns LIMIT 1",
	"governance.audit_log":          "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1",
	"governance.global_functions":   "SHOW GLOBAL FULL FUNCTIONS",
	"governance.ldap_config":        "SHOW FRONTEND CONFIG LIKE 'ldap_authentication_enabled'",
	"governance.lineage_plugin":     "SHOW FRONTEND CONFIG LIKE 'activate_lineage_plugin'",
	"governance.role_mappings":      "SELECT * FROM information_schema.role_mappings LIMIT 1",
}
