package sim

import (
	"errors"
	"strings"
)

// The audit log's column set differs per release; the upstream table
// __internal_schema.audit_log has the 3.0 set. Other releases see it
// through a SELECT that renames, reorders and completes the columns.
//
// Who may read it is decided by the grant on __internal_schema.audit_log
// alone, as in Doris (GRANT SELECT_PRIV ON internal.__internal_schema.audit_log).
// Queries therefore read the SELECT as a derived table over the real table
// (auditSource), never through a view in the simulator's own schema, whose
// separate grant a Doris account would not have.

// auditSelect is the SELECT that presents the audit log in this family's
// column set, or "" for 3.0, whose set the upstream table already has.
func (p profile) auditSelect() string {
	switch p.family {
	case "2.1":
		return "SELECT query_id, `time`, client_ip, `user`, `catalog`, db, state, error_code, error_message, query_time, " +
			"scan_bytes, scan_rows, return_rows, stmt_id, stmt_type, is_query, frontend_ip, cpu_time_ms, sql_hash, sql_digest, " +
			"peak_memory_bytes, workload_group, stmt FROM __internal_schema.audit_log"
	case "4.0":
		return "SELECT query_id, `time`, client_ip, `user`, frontend_ip, `catalog`, db, state, error_code, error_message, " +
			"query_time, CAST(0 AS SIGNED) AS queue_time_ms, cpu_time_ms, peak_memory_bytes, scan_bytes, scan_rows, return_rows, " +
			"shuffle_send_rows, shuffle_send_bytes, CAST(0 AS SIGNED) AS spill_write_bytes_from_local_storage, " +
			"CAST(0 AS SIGNED) AS spill_read_bytes_from_local_storage, scan_bytes_from_local_storage, scan_bytes_from_remote_storage, " +
			"CAST(LEAST(query_time, 3) AS SIGNED) AS parse_time_ms, '{}' AS plan_times_ms, '{}' AS get_meta_times_ms, '{}' AS schedule_times_ms, " +
			"CAST(0 AS SIGNED) AS hit_sql_cache, CAST(0 AS SIGNED) AS handled_in_fe, '[]' AS queried_tables_and_views, '[]' AS chosen_m_views, " +
			"'{}' AS changed_variables, 'ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES' AS sql_mode, stmt_type, stmt_id, sql_hash, sql_digest, " +
			"is_query, is_nereids, CAST(0 AS SIGNED) AS is_internal, workload_group, compute_group, 'MySQL' AS protocol, stmt " +
			"FROM __internal_schema.audit_log"
	}
	return ""
}

// auditSource is what a query's reference to the audit log becomes: the
// family's SELECT as a derived table (the caller adds the alias), or ""
// when the table is read as it is.
func (p profile) auditSource() string {
	if s := p.auditSelect(); s != "" {
		return "(" + s + ")"
	}
	return ""
}

// columnsQuery runs a SHOW [FULL] COLUMNS statement built by showColumns or
// describe. For the audit log's per-release view the caller's privilege is
// checked on the real table, and the view's columns are read as the
// administrator: a Doris account allowed to read the audit log has no
// grant on the simulator's schema, and needs none.
func (c *conn) columnsQuery(stmt, orig string) (*result, bool, error) {
	target := c.s.profile().auditTarget()
	if target == "" || !strings.Contains(stmt, target) {
		return c.upQuery(stmt, orig, 100000)
	}
	if _, sent, err := c.upQuery("SELECT 1 FROM __internal_schema.audit_log LIMIT 0", orig, 1); sent || err != nil {
		return nil, sent, err
	}
	r, err := c.s.adminQuery(stmt, 100000)
	if err != nil {
		var pe *parsedErr
		if errors.As(err, &pe) {
			return nil, true, c.sendMappedErr(pe, stmt, orig)
		}
		return nil, true, c.send(newDorisErr(1105, "HY000", "failed to read the audit log schema"))
	}
	return r, false, nil
}
