package sim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// What the simulator keeps beyond MariaDB's own tables lives in one
// metadata schema, __doris_sim (simSchema), in sim_* tables that are
// created if missing at every start and never replaced, so that the state
// survives a restart over the same MariaDB as Doris's edit log makes it
// survive an FE restart:
//
//	sim_globals       persisted global variables (enable_audit_plugin, ...)
//	sim_tables        Doris-only table metadata: column types (VARIANT, ARRAY,
//	                  ...), key model, distribution, properties
//	sim_mvs           asynchronous materialized views
//	sim_column_stats, sim_table_stats, sim_roles, sim_role_grants,
//	sim_functions     statistics, roles and grants, UDFs (governance.go)
//
// Not yet persisted (they start empty, as before): load jobs and labels,
// stream load records, MV refresh tasks, synchronous MVs, workload groups
// changed at run time (pipeline.go, workload.go).

// metaTable names a metadata table.
func metaTable(name string) string { return "`" + simSchema + "`.`" + name + "`" }

// InternalSchemaStatements create, if missing, what Doris's
// InternalSchemaInitializer creates when the FE starts (2.1 and later):
// the __internal_schema database and its audit_log table. The upstream
// table has the 3.0 column set; the other families read it through their
// own SELECT (auditview.go).
func InternalSchemaStatements() []string {
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
		persistentMetaStatements()[0], persistentMetaStatements()[1],
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

// Doris-only table metadata (doris_ddl.go tableMeta: Doris column types,
// key model, distribution, properties) and asynchronous materialized
// views (mtmv.go) are kept in sim_tables and sim_mvs as well as in memory,
// and read back at start.
func persistentMetaStatements() []string {
	return []string{
		"CREATE TABLE IF NOT EXISTS " + metaTable("sim_tables") + " (db VARCHAR(128) NOT NULL, tbl VARCHAR(128) NOT NULL, " +
			"meta LONGTEXT NOT NULL, PRIMARY KEY (db, tbl)) COMMENT 'Doris-only table metadata'",
		"CREATE TABLE IF NOT EXISTS " + metaTable("sim_mvs") + " (db VARCHAR(128) NOT NULL, name VARCHAR(128) NOT NULL, " +
			"id BIGINT NOT NULL, job_id BIGINT NOT NULL, definer VARCHAR(128) NOT NULL, create_sql LONGTEXT NOT NULL, " +
			"created DATETIME NOT NULL, refresh_state VARCHAR(16) NOT NULL, PRIMARY KEY (db, name)) COMMENT 'asynchronous materialized views'",
	}
}

// storedMeta is tableMeta as sim_tables stores it.
type storedMeta struct {
	Catalog, DB, Table, Format string
	PartCols                   []string    `json:",omitempty"`
	Props                      [][2]string `json:",omitempty"`
	Types                      map[string]string
	KeyModel                   string
	KeyCols                    []string `json:",omitempty"`
	DistKind, Buckets          string
	DistCols                   []string `json:",omitempty"`
	Comment                    string
	Created                    time.Time
}

// saveTableMeta records (m != nil) or forgets a table's metadata.
func (s *Server) saveTableMeta(udb, utbl string, m *tableMeta) error {
	key := "db = " + quoteString(strings.ToLower(udb)) + " AND tbl = " + quoteString(strings.ToLower(utbl))
	if m == nil {
		return s.adminExec("DELETE FROM " + metaTable("sim_tables") + " WHERE " + key)
	}
	b, err := json.Marshal(storedMeta{m.catalog, m.db, m.table, m.format, m.partCols, m.props, m.types, m.keyModel,
		m.keyCols, m.distKind, m.buckets, m.distCols, m.comment, m.created})
	if err != nil {
		return err
	}
	return s.adminExec("REPLACE INTO " + metaTable("sim_tables") + " VALUES (" + quoteString(strings.ToLower(udb)) + ", " +
		quoteString(strings.ToLower(utbl)) + ", " + quoteString(string(b)) + ")")
}

// forgetTableStats drops the statistics of a dropped table: Doris deletes
// a table's column statistics with the table, so a re-created table of the
// same name starts without any.
func (s *Server) forgetTableStats(udb, utbl string) error {
	key := " WHERE LOWER(db) = " + quoteString(strings.ToLower(udb)) + " AND LOWER(tbl) = " + quoteString(strings.ToLower(utbl))
	return s.adminExec("DELETE FROM `"+simSchema+"`.sim_column_stats"+key, "DELETE FROM `"+simSchema+"`.sim_table_stats"+key)
}

// saveMV records an asynchronous MV's definition and refresh state.
func (s *Server) saveMV(mv *mtmv) error {
	return s.adminExec(fmt.Sprintf("REPLACE INTO %s VALUES (%s, %s, %d, %d, %s, %s, %s, %s)", metaTable("sim_mvs"),
		quoteString(strings.ToLower(mv.db)), quoteString(strings.ToLower(mv.name)), mv.id, mv.jobID, quoteString(mv.definer),
		quoteString(mv.create), quoteString(fmtTime(mv.created)), quoteString(mv.refreshState)))
}

// forgetMV deletes a dropped MV's record.
func (s *Server) forgetMV(db, name string) error {
	return s.adminExec("DELETE FROM " + metaTable("sim_mvs") + " WHERE db = " + quoteString(strings.ToLower(db)) +
		" AND name = " + quoteString(strings.ToLower(name)))
}

// loadMetadata reads the persisted table metadata and MVs (after the
// pipeline exists).
func (s *Server) loadMetadata(up *upstream) error {
	r, err := up.query("SELECT db, tbl, meta FROM "+metaTable("sim_tables"), 1_000_000)
	if err != nil {
		return err
	}
	for _, row := range r.rows {
		var sm storedMeta
		if err := json.Unmarshal([]byte(deref(row[2])), &sm); err != nil {
			s.log.Warn("sim: unreadable table metadata skipped", "db", deref(row[0]), "table", deref(row[1]), "err", err)
			continue
		}
		s.lake.setTable(deref(row[0]), deref(row[1]), &tableMeta{catalog: sm.Catalog, db: sm.DB, table: sm.Table, format: sm.Format,
			partCols: sm.PartCols, props: sm.Props, types: sm.Types, keyModel: sm.KeyModel, keyCols: sm.KeyCols,
			distKind: sm.DistKind, buckets: sm.Buckets, distCols: sm.DistCols, comment: sm.Comment, created: sm.Created})
	}
	r, err = up.query("SELECT db, name, id, job_id, definer, create_sql, created, refresh_state FROM "+metaTable("sim_mvs")+" ORDER BY id", 100_000)
	if err != nil {
		return err
	}
	for _, row := range r.rows {
		mv := &mtmv{db: deref(row[0]), name: deref(row[1]), definer: deref(row[4]), refreshState: deref(row[7])}
		mv.id, _ = strconv.ParseInt(deref(row[2]), 10, 64)
		mv.jobID, _ = strconv.ParseInt(deref(row[3]), 10, 64)
		mv.created, _ = time.ParseInLocation("2006-01-02 15:04:05", deref(row[6]), time.Local)
		create := deref(row[5])
		ts := sig(lex(create))
		i := 3
		if i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
			i += 3
		}
		_, next := parseChain(ts, i)
		if _, derr := mv.parseClauses(create, ts, next); derr != nil {
			s.log.Warn("sim: unreadable materialized view skipped", "db", mv.db, "name", mv.name, "err", derr.msg)
			continue
		}
		mv.bases = baseTables(mv.query, mv.db)
		if mv.trigger == "SCHEDULE" {
			now := time.Now()
			for mv.nextRun = mv.starts; mv.nextRun.Before(now); {
				mv.nextRun = mv.nextRun.Add(mv.interval())
			}
		}
		p := s.pipe
		p.mu.Lock()
		p.mvs = append(p.mvs, mv)
		p.nextID = max(p.nextID, mv.id, mv.jobID)
		p.mu.Unlock()
	}
	return nil
}

// loadPersisted reads the metadata schema's table metadata and MVs through
// the admin account (none: nothing to read).
func (s *Server) loadPersisted() error {
	if _, _, ok := s.adminAccount(); !ok {
		return nil
	}
	up, err := s.adminConn()
	if err != nil {
		return fmt.Errorf("sim: read the metadata schema: %w", err)
	}
	defer up.close()
	if err := s.loadMetadata(up); err != nil {
		return fmt.Errorf("sim: read the metadata schema: %w", err)
	}
	return nil
}

// saveMVState records an MV's refresh state after a refresh.
func (s *Server) saveMVState(db, name, state string) error {
	return s.adminExec("UPDATE " + metaTable("sim_mvs") + " SET refresh_state = " + quoteString(state) + " WHERE db = " +
		quoteString(strings.ToLower(db)) + " AND name = " + quoteString(strings.ToLower(name)))
}
