package guard_test

import (
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

func TestSessionControl(t *testing.T) {
	yes := []string{
		"SET query_timeout = 30",
		"set QUERY_TIMEOUT=300",
		"SET  sql_select_limit  =  1000",
		"SET enable_profile = true",
		"SET enable_profile = FALSE",
		`SET session_context = "trace_id:8f14e45f-ceea-4167-a36d-6f7a9a1b2c3d"`,
		`SET session_context = "trace_id:4bf92f3577b34da6a3ce929d0e0e4736"`,
		"USE `sales_db`",
		"use `internal`.`sales db`",
		"SWITCH `hive_catalog`",
		"KILL QUERY 42",
		`KILL QUERY "a1b2c3d4e5f60718-0123456789abcdef"`,
		"KILL QUERY '1f-2e'",
		"kill query 9223372036854775807",
	}
	no := []string{
		"",
		"SELECT 1",
		"SET query_timeout = 0",
		"SET query_timeout = -1",
		"SET query_timeout = 030",
		"SET query_timeout = 1.5",
		"SET query_timeout = '30'",
		"SET query_timeout = 30;",
		"SET query_timeout = 30; DROP TABLE t",
		"SET query_timeout = 30 -- x",
		"SET /* x */ query_timeout = 30",
		"SET GLOBAL query_timeout = 30",
		"SET @@query_timeout = 30",
		"SET query_timeout := 30",
		"SET sql_mode = 30",
		"SET enable_profile = 1",
		"SET enable_profile = yes",
		"SET enable_nereids_planner = false",
		"SET query_timeout = 99999999999999999999",
		`SET session_context = 'trace_id:8f14e45f-ceea-4167-a36d-6f7a9a1b2c3d'`,
		`SET session_context = "trace_id:8F14E45F-CEEA-4167-A36D-6F7A9A1B2C3D"`,
		`SET session_context = "trace_id:8f14e45f-ceea-1167-a36d-6f7a9a1b2c3d"`,
		`SET session_context = "trace_id:8f14e45f-ceea-4167-c36d-6f7a9a1b2c3d"`,
		`SET session_context = "trace_id:8f14e45f-ceea-4167-a36d-6f7a9a1b2c3"`,
		`SET session_context = "x"`,
		`SET session_context = "trace_id:00000000000000000000000000000000"`,
		`SET session_context = "trace_id:4BF92F3577B34DA6A3CE929D0E0E4736"`,
		`SET session_context = "trace_id:4bf92f3577b34da6a3ce929d0e0e473"`,
		`SET session_context = "trace_id:4bf92f3577b34da6a3ce929d0e0e47366"`,
		`SET session_context = "trace_id:4bf92f3577b34da6a3ce929d0e0e473g"`,
		`SET session_context = "trace_id:4bf92f3577b34da6a3ce929d0e0e4736;x:y"`,
		"USE sales_db",
		"USE ``",
		"USE `a``b`",
		"USE `a`.`b`.`c`",
		"USE `a` . `b` `c`",
		"USE `a\nb`",
		"SWITCH hive",
		"SWITCH `a`.`b`",
		"KILL 42",
		"KILL QUERY 0",
		"KILL QUERY 'abc'",
		`KILL QUERY "A1-B2"`,
		`KILL QUERY "a1-b2-c3"`,
		`KILL QUERY "a1-"`,
		`KILL QUERY "0123456789abcdef0-1"`,
		`KILL QUERY "a1-b2" x`,
		"KILL CONNECTION 1",
		"SET query_timeout = 30\x00",
		"/*+ x */ SET query_timeout = 30",
	}
	for _, s := range yes {
		if !guard.SessionControl(s) {
			t.Errorf("SessionControl(%q) = false, want true", s)
		}
		if _, err := guard.Check(s); err == nil {
			t.Errorf("Check(%q) accepted a session statement", s)
		}
	}
	for _, s := range no {
		if guard.SessionControl(s) {
			t.Errorf("SessionControl(%q) = true, want false", s)
		}
	}
}
