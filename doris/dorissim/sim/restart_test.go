package sim_test

import (
	"strings"
	"testing"
)

// TestRestartKeepsDorisMetadata: what the simulator keeps beyond MariaDB's
// own tables survives a restart over the same MariaDB, as an FE's edit log
// makes it survive an FE restart: Doris column types and distribution,
// asynchronous MVs (DROP ... IF EXISTS finds them, CREATE sees them) and
// statistics; and statistics die with their table.
func TestRestartKeepsDorisMetadata(t *testing.T) {
	s1, in := startFresh(t, "3.0")
	db1 := open(t, s1.Addr(), "root", in.RootPassword(), "")
	mustExec(t, db1, "DROP DATABASE IF EXISTS rs")
	mustExec(t, db1, "CREATE DATABASE rs")
	t.Cleanup(func() { db1.Exec("DROP DATABASE IF EXISTS rs") })
	mustExec(t, db1, `CREATE TABLE rs.t (k INT NOT NULL, v VARIANT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db1, `INSERT INTO rs.t VALUES (1, '{"a": 1}'), (2, '{"a": 2}')`)
	mustExec(t, db1, "ANALYZE TABLE rs.t WITH SYNC")
	mustExec(t, db1, "CREATE MATERIALIZED VIEW rs.mv BUILD IMMEDIATE REFRESH AUTO ON MANUAL AS SELECT k, COUNT(*) AS c FROM rs.t GROUP BY k")
	if n := len(mustQuery(t, db1, "SHOW COLUMN STATS rs.t").rows); n == 0 {
		t.Fatal("no column statistics after ANALYZE")
	}
	s1.Close()

	s2, _ := startFresh(t, "3.0")
	db2 := open(t, s2.Addr(), "root", in.RootPassword(), "")
	ddl := mustQuery(t, db2, "SHOW CREATE TABLE rs.t").rows[0][1].String
	if !strings.Contains(ddl, "`v` variant") || !strings.Contains(ddl, "DISTRIBUTED BY HASH(`k`) BUCKETS 4") {
		t.Fatalf("after a restart SHOW CREATE TABLE lost the Doris metadata:\n%s", ddl)
	}
	if n := len(mustQuery(t, db2, "SHOW COLUMN STATS rs.t").rows); n == 0 {
		t.Fatal("column statistics lost in the restart")
	}
	if r := mustQuery(t, db2, "SELECT Name FROM mv_infos('database' = 'rs')"); len(r.rows) != 1 || r.rows[0][0].String != "mv" {
		t.Fatalf("mv_infos after a restart: %v", r.rows)
	}
	if _, err := db2.Exec("CREATE MATERIALIZED VIEW rs.mv BUILD IMMEDIATE REFRESH AUTO ON MANUAL AS SELECT k FROM rs.t"); err == nil ||
		!strings.Contains(err.Error(), "already exists") {
		t.Fatalf("re-creating an existing MV after a restart: %v", err)
	}
	mustExec(t, db2, "DROP MATERIALIZED VIEW IF EXISTS rs.mv")
	mustExec(t, db2, "CREATE MATERIALIZED VIEW rs.mv BUILD IMMEDIATE REFRESH AUTO ON MANUAL AS SELECT k FROM rs.t")

	// Statistics die with their table, and a re-created table has none.
	mustExec(t, db2, "DROP MATERIALIZED VIEW IF EXISTS rs.mv")
	mustExec(t, db2, "DROP TABLE rs.t")
	mustExec(t, db2, `CREATE TABLE rs.t (k INT NOT NULL, v VARIANT NULL) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	if r := mustQuery(t, db2, "SHOW COLUMN STATS rs.t"); len(r.rows) != 0 {
		t.Fatalf("statistics of the dropped table survived: %v", r.rows)
	}
}
