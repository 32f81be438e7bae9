package sim

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The governance statements the simulator answers itself: UDF metadata
// (functions.go), column and table statistics (stats.go), roles
// (roles.go) and FE configuration (feconfig.go). Their metadata is kept in
// __doris_sim tables, written through the admin account, so that every
// simulator over the same upstream sees the same catalog, as the FEs of one
// Doris cluster do.

// governanceStatement handles the non-SHOW governance statements; ok is
// false for anything else.
func (c *conn) governanceStatement(sql string, ts []token) (ok bool, err error) {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	switch {
	case at(0).is("CREATE") && c.isFunctionDDL(ts, 1):
		return true, c.createFunction(sql, ts)
	case at(0).is("DROP") && c.isFunctionDDL(ts, 1):
		return true, c.dropFunction(ts)
	case at(0).is("ALTER") && at(1).is("TABLE") && c.isTableSet(ts):
		return true, c.alterTableSet(ts)
	case at(0).is("ANALYZE") && at(1).is("TABLE"):
		return true, c.analyzeTable(ts)
	case at(0).is("CREATE") && at(1).is("ROLE"):
		return true, c.createRole(ts)
	case at(0).is("DROP") && at(1).is("ROLE"):
		return true, c.dropRole(ts)
	case at(0).is("GRANT") && c.isRoleGrant(ts):
		return true, c.grantRole(ts)
	case at(0).is("ADMIN") && at(1).is("SET") && (at(2).is("FRONTEND") || at(3).is("FRONTEND") || at(2).is("FRONTENDS") || at(3).is("FRONTENDS")):
		return true, c.adminSetFrontendConfig(ts)
	}
	return false, nil
}

// showGovernance handles SHOW [GLOBAL] [FULL] FUNCTIONS, SHOW TABLE STATS,
// SHOW COLUMN STATS, SHOW FRONTEND CONFIG and SHOW ROLES; i is the index of
// the word after SHOW [FULL].
func (c *conn) showGovernance(sql string, ts []token, i int, full bool) (ok bool, err error) {
	at := func(k int) token {
		if k < len(ts) {
			return ts[k]
		}
		return token{}
	}
	switch w := at(i); {
	case w.is("FUNCTIONS"), w.is("BUILTIN") && at(i+1).is("FUNCTIONS"):
		return true, c.showFunctions(ts, 1, false)
	case w.is("GLOBAL") && (at(i+1).is("FUNCTIONS") || at(i+1).is("FULL") && at(i+2).is("FUNCTIONS")):
		return true, c.showFunctions(ts, 1, true)
	case w.is("TABLE") && at(i+1).is("STATS"):
		return true, c.showTableStats(ts, i+2)
	case w.is("COLUMN") && (at(i+1).is("STATS") || at(i+1).is("CACHED") && at(i+2).is("STATS")):
		k := i + 2
		if at(i + 1).is("CACHED") {
			k++
		}
		return true, c.showColumnStats(ts, k)
	case w.is("FRONTEND") && at(i+1).is("CONFIG"):
		return true, c.showFrontendConfig(ts, i+2)
	case w.is("ROLES"):
		return true, c.showRoles()
	}
	return false, nil
}

// errNoAdmin reports a simulator without an admin account in Options.Users,
// which cannot keep governance metadata.
var errNoAdmin = errors.New("sim: no admin account configured")

// adminExec runs statements upstream as the first admin account, on a
// connection of its own: metadata writes that the client's own upstream
// account may not make (Doris keeps this metadata in the FE, not in a
// table the user can write).
func (s *Server) adminExec(stmts ...string) error {
	up, err := s.adminConn()
	if err != nil {
		return err
	}
	defer up.close()
	for _, q := range stmts {
		if err := up.exec(q); err != nil {
			return err
		}
	}
	return nil
}

// adminQuery reads metadata as the admin account.
func (s *Server) adminQuery(q string, maxRows int) (*result, error) {
	up, err := s.adminConn()
	if err != nil {
		return nil, err
	}
	defer up.close()
	return up.query(q, maxRows)
}

func (s *Server) adminConn() (*upstream, error) {
	user, pw, ok := s.adminAccount()
	if !ok {
		return nil, errNoAdmin
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	up, err := dialUpstream(ctx, s.opts.Upstream, user, pw, "", 45)
	if err != nil {
		return nil, err
	}
	_ = up.conn.SetDeadline(time.Now().Add(30 * time.Second))
	return up, nil
}

// metaFailed is the error a client sees when the simulator could not keep
// metadata (no admin account, upstream trouble).
func metaFailed() *dorisErr {
	return newDorisErr(1105, "HY000", "failed to persist the metadata change")
}

// governanceSeed creates the __doris_sim tables that hold governance
// metadata.
func governanceSeed() []string {
	return []string{
		"CREATE TABLE IF NOT EXISTS `" + simSchema + "`.sim_functions (db VARCHAR(128) NOT NULL, name VARCHAR(128) NOT NULL, " +
			"arg_types VARCHAR(400) NOT NULL, id BIGINT NOT NULL, kind VARCHAR(16) NOT NULL, binary_type VARCHAR(32) NOT NULL, " +
			"return_type VARCHAR(256) NOT NULL, intermediate_type VARCHAR(256) NULL, properties TEXT NOT NULL, " +
			"created DATETIME NOT NULL, PRIMARY KEY (db, name, arg_types))",
		"CREATE TABLE IF NOT EXISTS `" + simSchema + "`.sim_column_stats (db VARCHAR(128) NOT NULL, tbl VARCHAR(128) NOT NULL, " +
			"col VARCHAR(128) NOT NULL, ord INT NOT NULL, cnt BIGINT NOT NULL, ndv BIGINT NOT NULL, num_null BIGINT NOT NULL, " +
			"data_size BIGINT NOT NULL, min_value TEXT NULL, max_value TEXT NULL, method VARCHAR(16) NOT NULL, " +
			"updated DATETIME NOT NULL, PRIMARY KEY (db, tbl, col))",
		"CREATE TABLE IF NOT EXISTS `" + simSchema + "`.sim_table_stats (db VARCHAR(128) NOT NULL, tbl VARCHAR(128) NOT NULL, " +
			"row_count BIGINT NOT NULL, cols TEXT NOT NULL, job_type VARCHAR(16) NOT NULL, updated DATETIME NOT NULL, " +
			"job_id BIGINT NOT NULL, PRIMARY KEY (db, tbl))",
		"CREATE TABLE IF NOT EXISTS `" + simSchema + "`.sim_roles (name VARCHAR(128) NOT NULL PRIMARY KEY, comment TEXT NULL, " +
			"created DATETIME NOT NULL)",
		"CREATE TABLE IF NOT EXISTS `" + simSchema + "`.sim_role_grants (role VARCHAR(128) NOT NULL, kind VARCHAR(8) NOT NULL, " +
			"target VARCHAR(300) NOT NULL, privs VARCHAR(512) NOT NULL, PRIMARY KEY (role, kind, target))",
		tablePropsSeed(),
	}
}

// isTableSet reports ALTER TABLE [db.]t SET (...).
func (c *conn) isTableSet(ts []token) bool {
	_, next, ok := parseTableRef(ts, 2)
	return ok && next+1 < len(ts) && ts[next].is("SET") && ts[next+1].isP("(")
}

// tablePropsSeed holds properties set with ALTER TABLE ... SET.
func tablePropsSeed() string {
	return "CREATE TABLE IF NOT EXISTS `" + simSchema + "`.sim_table_properties (db VARCHAR(128) NOT NULL, tbl VARCHAR(128) NOT NULL, " +
		"k VARCHAR(256) NOT NULL, v TEXT NOT NULL, PRIMARY KEY (db, tbl, k))"
}

// alterTableSet: ALTER TABLE [db.]t SET ("k" = "v", ...). The simulator
// keeps any key (Doris checks each against the properties it knows) and
// SHOW CREATE TABLE lists them with the table's own. It needs ALTER on the
// database.
func (c *conn) alterTableSet(ts []token) error {
	q, next, ok := parseTableRef(ts, 2)
	if !ok || next >= len(ts) || !ts[next].is("SET") {
		return c.send(syntaxAt(ts, next, syntaxExpectName))
	}
	db := q.db
	if db == "" {
		db, _, _ = c.snapshot()
	}
	props, ok := keyValueProperties(ts, next+1)
	if !ok || len(props) == 0 {
		return c.send(syntaxAt(ts, next+1, syntaxExpectName))
	}
	if !c.admin {
		r, err := c.upstreamConn().query("SELECT COUNT(*) FROM information_schema.SCHEMA_PRIVILEGES WHERE TABLE_SCHEMA = "+
			quoteString(db)+" AND PRIVILEGE_TYPE = 'ALTER'", 1)
		if err != nil || r == nil || len(r.rows) != 1 || deref(r.rows[0][0]) == "0" {
			return c.send(&dorisErr{1142, "42000", fmt.Sprintf("errCode = 2, detailMessage = Access denied; you need (at least one of) the (ALTER) privilege(s) on table %s.%s for this operation", db, q.table)})
		}
	}
	if _, derr := c.statsColumns(db, q.table, nil); derr != nil {
		return c.send(derr)
	}
	var stmts []string
	for k, v := range props {
		stmts = append(stmts, fmt.Sprintf("REPLACE INTO `%s`.sim_table_properties VALUES (%s, %s, %s, %s)", simSchema,
			quoteString(db), quoteString(q.table), quoteString(k), quoteString(v)))
	}
	if err := c.s.adminExec(stmts...); err != nil {
		return c.send(metaFailed())
	}
	return c.sendOK(0, "")
}

// alteredTableProperties are the properties ALTER TABLE ... SET stored,
// as key-value pairs ordered by key.
func (c *conn) alteredTableProperties(db, table string) [][2]string {
	r, err := c.s.adminQuery(fmt.Sprintf("SELECT k, v FROM `%s`.sim_table_properties WHERE db = %s AND tbl = %s ORDER BY k",
		simSchema, quoteString(db), quoteString(table)), 1000)
	if err != nil {
		return nil
	}
	var out [][2]string
	for _, row := range r.rows {
		out = append(out, [2]string{deref(row[0]), deref(row[1])})
	}
	return out
}
