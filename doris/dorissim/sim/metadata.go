package sim

import (
	"fmt"
	"strings"
)

// What the simulator keeps beyond MariaDB's own tables lives in one
// metadata schema, __doris_sim (simSchema), in sim_* tables that are
// created if missing at every start and never replaced, so that the state
// survives a restart over the same MariaDB as Doris's edit log makes it
// survive an FE restart:
//
//	sim_globals       persisted global variables (enable_audit_plugin, ...)
//
// The rest of that state (materialized views, Doris column types,
// statistics) is listed where its own file keeps it.

// metaTable names a metadata table.
func metaTable(name string) string { return "`" + simSchema + "`.`" + name + "`" }

// internalSchemaStatements create, if missing, what Doris's
// InternalSchemaInitializer creates when the FE starts (2.1 and later):
// the __internal_schema database and its audit_log table. The upstream
// table has the 3.0 column set; the other families read it through their
// own SELECT (auditview.go).
func internalSchemaStatements() []string {
	return []string{
		"CREATE DATABASE IF NOT EXISTS `__internal_schema` DEFAULT CHARACTER SET utf8mb4 COMMENT 'Doris internal schema (audit log)'",
		`CREATE TABLE IF NOT EXISTS __internal_schema.audit_log (
  query_id VARCHAR(48) NULL,
  ` + "`time`" + ` DATETIME(3) NULL,
  client_ip VARCHAR(128) NULL,
  ` + "`user`" + ` VARCHAR(128) NULL,
  ` + "`catalog`" + ` VARCHAR(128) NULL,
  db VARCHAR(128) NULL,
  state VARCHAR(128) NULL,
  error_code INT NULL,
  error_message TEXT NULL,
  query_time BIGINT NULL,
  scan_bytes BIGINT NULL,
  scan_rows BIGINT NULL,
  return_rows BIGINT NULL,
  shuffle_send_rows BIGINT NULL,
  shuffle_send_bytes BIGINT NULL,
  scan_bytes_from_local_storage BIGINT NULL,
  scan_bytes_from_remote_storage BIGINT NULL,
  stmt_id BIGINT NULL,
  stmt_type VARCHAR(48) NULL,
  is_query TINYINT NULL,
  is_nereids TINYINT NULL,
  frontend_ip VARCHAR(128) NULL,
  cpu_time_ms BIGINT NULL,
  sql_hash VARCHAR(128) NULL,
  sql_digest VARCHAR(128) NULL,
  peak_memory_bytes BIGINT NULL,
  workload_group TEXT NULL,
  compute_group TEXT NULL,
  stmt TEXT NULL,
  KEY idx_time (` + "`time`" + `),
  KEY idx_query_id (query_id)
) ENGINE=InnoDB COMMENT='Doris audit log (3.0 column set)'`,
	}
}

// metadataStatements create the metadata tables if missing.
func metadataStatements() []string {
	return []string{
		fmt.Sprintf("CREATE DATABASE IF NOT EXISTS `%s` DEFAULT CHARACTER SET utf8mb4 COMMENT 'Doris simulator: Doris-only system tables and FE state'", simSchema),
		"CREATE TABLE IF NOT EXISTS " + metaTable("sim_globals") + " (name VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL) COMMENT 'persisted global variables'",
	}
}

// persistentGlobals are the global variables whose SET GLOBAL the
// simulator persists, with their defaults. Doris persists every global
// variable (GlobalVariable.getPersistentGlobalVarNames); the simulator
// keeps only the audit loader's here, so that one test's SET GLOBAL
// enable_profile does not reach another simulator over the same MariaDB.
//
// enable_audit_plugin defaults to false in every release the profiles
// cover (fe-core qe/GlobalVariable.java, enableAuditLoader = false, since
// the built-in audit loader of 2.1.0); audit_plugin_max_batch_interval_sec
// is 60, which is why the audit log may run up to a minute behind.
var persistentGlobals = map[string]string{
	"enable_audit_plugin":                 "false",
	"audit_plugin_max_batch_interval_sec": "60",
	"audit_plugin_max_batch_bytes":        "52428800",
	"audit_plugin_max_sql_length":         "4096",
}

// globalOnly are variables Doris accepts only with SET GLOBAL
// (VariableMgr.GLOBAL flag).
func globalOnly(name string) bool {
	_, ok := persistentGlobals[name]
	return ok
}

// loadGlobals reads the persisted global variables.
func (s *Server) loadGlobals(up *upstream) error {
	r, err := up.query("SELECT name, value FROM "+metaTable("sim_globals"), 1000)
	if err != nil {
		return err
	}
	for _, row := range r.rows {
		name := strings.ToLower(deref(row[0]))
		if _, ok := persistentGlobals[name]; ok {
			s.setGlobal(name, deref(row[1]))
		}
	}
	return nil
}

// persistGlobal writes a persistent global's new value.
func (s *Server) persistGlobal(name, value string) error {
	if _, ok := persistentGlobals[name]; !ok {
		return nil
	}
	return s.adminExec("REPLACE INTO " + metaTable("sim_globals") + " VALUES (" + quoteString(name) + ", " + quoteString(value) + ")")
}

// globalValue is a global variable's value, or def when never set.
func (s *Server) globalValue(name, def string) string {
	g := &s.globals
	g.mu.Lock()
	defer g.mu.Unlock()
	if v, ok := g.m[name]; ok {
		return v
	}
	return def
}

// auditPluginOn reports the global enable_audit_plugin: while it is
// false, Doris's audit loader writes nothing to the audit log.
func (s *Server) auditPluginOn() bool {
	return truthy(s.globalValue("enable_audit_plugin", persistentGlobals["enable_audit_plugin"]))
}
