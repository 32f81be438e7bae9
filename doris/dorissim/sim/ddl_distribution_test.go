package sim_test

import (
	"strings"
	"testing"
)

// TestShowCreateTableDistribution: SHOW CREATE TABLE shows the
// distribution a table was created with, not a fixed BUCKETS 10.
func TestShowCreateTableDistribution(t *testing.T) {
	s, in := startSim(t, "3.0")
	w := root(t, s, in)
	for _, tc := range []struct{ name, clause, want string }{
		{"sim_dist_hash3", "DISTRIBUTED BY HASH(k) BUCKETS 3", "DISTRIBUTED BY HASH(`k`) BUCKETS 3"},
		{"sim_dist_random", "DISTRIBUTED BY RANDOM BUCKETS 7", "DISTRIBUTED BY RANDOM BUCKETS 7"},
		{"sim_dist_auto", "DISTRIBUTED BY HASH(v)", "DISTRIBUTED BY HASH(`v`) BUCKETS AUTO"},
	} {
		mustExec(t, w, "DROP TABLE IF EXISTS "+tc.name)
		mustExec(t, w, "CREATE TABLE "+tc.name+" (k INT, v VARCHAR(10)) DUPLICATE KEY(k) "+tc.clause+` PROPERTIES ("replication_num" = "1")`)
		t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS " + tc.name) })
		ddl := mustQuery(t, w, "SHOW CREATE TABLE "+tc.name).rows[0][1].String
		if !strings.Contains(ddl, tc.want+"\n") || strings.Count(ddl, "DISTRIBUTED BY") != 1 {
			t.Errorf("%s: SHOW CREATE TABLE\n%s\nwant %q", tc.name, ddl, tc.want)
		}
	}
}
