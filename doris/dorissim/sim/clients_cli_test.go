package sim_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// mariadbCLI finds the Debian mariadb command-line client; under CI its
// absence fails the test.
func mariadbCLI(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"mariadb", "mysql"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if mariadb.UnderCI() {
		t.Fatal("the mariadb command-line client is required under CI=true (apt-get install mariadb-client-core)")
	}
	t.Skip("SKIPPING: the mariadb command-line client is not installed")
	return ""
}

// cliRun runs sql through the mariadb client against the simulator in batch
// mode (tab-separated, no headers suppressed) and returns stdout and stderr.
func cliRun(t *testing.T, cli string, s *sim.Server, user, pw, db, sql string) (string, string, error) {
	t.Helper()
	host, port, _ := strings.Cut(s.Addr(), ":")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"--no-defaults", "--protocol=TCP", "-h", host, "-P", port, "-u", user, "-p" + pw,
		"--batch", "--skip-ssl", "--comments"}
	if db != "" {
		args = append(args, "-D", db)
	}
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Stdin = strings.NewReader(sql)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// TestMariaDBClientInsertOK: the OK packet's info text is a length-encoded
// string (Doris MysqlOkPacket), so libmariadb reads an INSERT's answer
// without "Received malformed packet".
func TestMariaDBClientInsertOK(t *testing.T) {
	cli := mariadbCLI(t)
	for _, prof := range []string{"2.1", "3.0", "4.0", "4.1"} {
		t.Run(prof, func(t *testing.T) {
			s, in := startSim(t, prof)
			db := "cli_ok_" + strings.ReplaceAll(prof, ".", "")
			sql := "CREATE DATABASE IF NOT EXISTS " + db + ";\n" +
				"USE " + db + ";\n" +
				"DROP TABLE IF EXISTS t;\n" +
				"CREATE TABLE t (id INT, name VARCHAR(20)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES (\"replication_num\" = \"1\");\n" +
				"INSERT INTO t VALUES (1, 'a'), (2, 'b');\n" +
				"SELECT id, name FROM t ORDER BY id;\n"
			out, stderr, err := cliRun(t, cli, s, "root", in.RootPassword(), "", sql)
			if err != nil || stderr != "" {
				t.Fatalf("mariadb client: %v\nstderr: %s\nstdout: %s", err, stderr, out)
			}
			if want := "id\tname\n1\ta\n2\tb\n"; out != want {
				t.Fatalf("output %q, want %q", out, want)
			}
		})
	}
}
