package sim_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRelease41Shapes: what the 4.1 variants read, made by statements the
// test runs: a table created with "storage_format" = "V3" shows that one
// format in SHOW CREATE TABLE, and a DELETE on an Iceberg format-version 3
// table commits a deletion vector where a v2 table gets a position delete
// file.
func TestRelease41Shapes(t *testing.T) {
	s, in := startSim(t, "4.1")
	rt := session(t, root(t, s, in))
	if v := mustQuery(t, rt, "SELECT @@version_comment").rows[0][0].String; v != "Doris version doris-4.1.4-rc04-ad35a140c7f" {
		t.Fatalf("version_comment %q", v)
	}

	run(t, rt, "DROP TABLE IF EXISTS demo.sim41_v3",
		`CREATE TABLE demo.sim41_v3 (id BIGINT NOT NULL, v VARIANT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1
		 PROPERTIES ("replication_num" = "1", "storage_format" = "V3")`)
	t.Cleanup(func() { in.Root().Exec("DROP TABLE IF EXISTS demo.sim41_v3") })
	ddl := mustQuery(t, rt, "SHOW CREATE TABLE demo.sim41_v3").rows[0][1].String
	if n := strings.Count(ddl, `"storage_format"`); n != 1 || !strings.Contains(ddl, `"storage_format" = "V3"`) {
		t.Fatalf("storage_format shown %d times, want once as V3:\n%s", n, ddl)
	}

	dropBacking(t, in, "sim41_ice", "db")
	run(t, rt, `CREATE CATALOG sim41_ice PROPERTIES ("type" = "iceberg", "warehouse" = "s3://lake/wh")`)
	t.Cleanup(func() { in.Root().Exec("DROP CATALOG IF EXISTS sim41_ice") })
	run(t, rt, "CREATE DATABASE sim41_ice.db")
	for _, tc := range []struct {
		table, props string
		dv           bool
	}{
		{"t3", ` PROPERTIES ("format-version" = "3")`, true},
		{"t2", "", false},
	} {
		fq := "sim41_ice.db." + tc.table
		run(t, rt, "CREATE TABLE "+fq+" (id INT, k STRING)"+tc.props,
			"INSERT INTO "+fq+" VALUES (1, 'a'), (2, 'b'), (3, 'a')", "DELETE FROM "+fq+" WHERE k = 'a'")
		r := mustQuery(t, rt, "SELECT operation, summary FROM "+fq+"$snapshots ORDER BY committed_at DESC LIMIT 1")
		var sum map[string]string
		if err := json.Unmarshal([]byte(r.rows[0][1].String), &sum); err != nil {
			t.Fatal(err)
		}
		wantDVs, wantPosFiles := "", "1"
		if tc.dv {
			wantDVs, wantPosFiles = "1", ""
		}
		if r.rows[0][0].String != "delete" || sum["added-dvs"] != wantDVs || sum["added-position-delete-files"] != wantPosFiles ||
			sum["added-delete-files"] != "1" || sum["added-position-deletes"] != "2" || sum["total-position-deletes"] != "2" {
			t.Errorf("%s: %s %v, want a delete of 2 rows (dv %v)", tc.table, r.rows[0][0].String, sum, tc.dv)
		}
		if n := mustQuery(t, rt, "SELECT COUNT(*) FROM "+fq).rows[0][0].String; n != "1" {
			t.Errorf("%s: %s rows after the delete, want 1", tc.table, n)
		}
	}
}
