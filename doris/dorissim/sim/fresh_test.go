package sim_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// startFresh starts a simulator over the fresh MariaDB.
func startFresh(t *testing.T, profile string) (*sim.Server, *mariadb.Instance) {
	t.Helper()
	in := mariadb.FreshFor(t)
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: map[string]string{"root": in.RootPassword()}, Profile: profile, Logger: discard()})
	if err != nil {
		t.Fatalf("start sim: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, in
}

func scalar(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var v sql.NullString
	if err := db.QueryRow(q).Scan(&v); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return v.String
}

// TestFreshSimulatorAuditLog: on an empty MariaDB the simulator creates
// __internal_schema.audit_log at start, as Doris 2.1+'s
// InternalSchemaInitializer does; enable_audit_plugin is a real global
// that starts false (Doris's default), records nothing while false, is
// refused without GLOBAL, and, once a DBA sets it, records statements and
// survives a restart.
func TestFreshSimulatorAuditLog(t *testing.T) {
	for _, prof := range []string{"2.1", "3.0", "4.0", "4.1"} {
		t.Run(prof, func(t *testing.T) {
			s, in := startFresh(t, prof)
			db := open(t, s.Addr(), "root", in.RootPassword(), "")
			ctx := context.Background()
			if _, err := db.Exec("SET GLOBAL enable_audit_plugin = false"); err != nil {
				t.Fatal(err)
			}
			if got := scalar(t, db, "SELECT @@enable_audit_plugin"); got != "false" {
				t.Fatalf("@@enable_audit_plugin = %q, want false", got)
			}
			marker := "fresh_audit_" + prof + "_" + time.Now().Format("150405.000000")
			if _, err := db.Exec("SELECT '" + marker + "-off'"); err != nil {
				t.Fatal(err)
			}
			if err := s.SyncAudit(ctx); err != nil {
				t.Fatal(err)
			}
			if n := scalar(t, db, "SELECT COUNT(*) FROM __internal_schema.audit_log WHERE stmt LIKE '%"+marker+"-off%' AND stmt NOT LIKE '%COUNT%'"); n != "0" {
				t.Fatalf("%s rows recorded with the plugin off", n)
			}
			_, err := db.Exec("SET enable_audit_plugin = true")
			var me *mysql.MySQLError
			if !errors.As(err, &me) || me.Number != 1229 {
				t.Fatalf("SET without GLOBAL: %v, want error 1229", err)
			}
			if _, err := db.Exec("SET GLOBAL enable_audit_plugin = true"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("SELECT '" + marker + "-on'"); err != nil {
				t.Fatal(err)
			}
			if err := s.SyncAudit(ctx); err != nil {
				t.Fatal(err)
			}
			if n := scalar(t, db, "SELECT COUNT(*) FROM __internal_schema.audit_log WHERE stmt = 'SELECT ''"+marker+"-on'''"); n != "1" {
				t.Fatalf("%s rows recorded with the plugin on, want 1", n)
			}
			// A restart over the same MariaDB keeps the global.
			s2, _ := startFresh(t, prof)
			db2 := open(t, s2.Addr(), "root", in.RootPassword(), "")
			if got := scalar(t, db2, "SELECT @@enable_audit_plugin"); got != "true" {
				t.Fatalf("after a restart @@enable_audit_plugin = %q, want true", got)
			}
			if _, err := db2.Exec("SET GLOBAL enable_audit_plugin = false"); err != nil {
				t.Fatal(err)
			}
		})
	}
}
