package mariadb_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

func TestMain(m *testing.M) {
	code := m.Run()
	mariadb.SkipNotice("doris/dorissim/mariadb")
	if err := mariadb.StopShared(); err != nil {
		println("stop shared mariadb:", err.Error())
	}
	os.Exit(code)
}

func open(t *testing.T, addr, user, pw string) *sql.DB {
	t.Helper()
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd = "tcp", addr, user, pw
	c.InterpolateParams = true
	c.Timeout = 5 * time.Second
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestDemoSchemaAndGrants(t *testing.T) {
	in := mariadb.SharedFor(t)
	ctx := context.Background()
	var n int
	if err := in.Root().QueryRowContext(ctx, "SELECT COUNT(*) FROM demo.orders").Scan(&n); err != nil || n != mariadb.DemoOrders {
		t.Fatalf("orders: %d %v", n, err)
	}
	var ref int64
	if err := in.Root().QueryRowContext(ctx, "SELECT MAX(external_ref) FROM demo.orders").Scan(&ref); err != nil || ref <= 1<<53 {
		t.Fatalf("external_ref: %d %v", ref, err)
	}
	if err := in.Root().QueryRowContext(ctx, "SELECT COUNT(*) FROM __internal_schema.audit_log").Scan(&n); err != nil || n != mariadb.DemoAuditRows {
		t.Fatalf("audit_log: %d %v", n, err)
	}
	reader := open(t, in.Addr(), mariadb.ReaderUser, mariadb.ReaderPassword)
	if err := reader.QueryRowContext(ctx, "SELECT COUNT(*) FROM demo.v_daily_sales").Scan(&n); err != nil || n == 0 {
		t.Fatalf("reader view: %d %v", n, err)
	}
	var me *mysql.MySQLError
	_, err := reader.ExecContext(ctx, "SELECT * FROM secret.salaries")
	if !errors.As(err, &me) || me.Number != 1142 {
		t.Fatalf("reader on secret: %v", err)
	}
	_, err = reader.ExecContext(ctx, "INSERT INTO demo.products (product_id, sku, product_name, category, unit_price) VALUES (999,'x','x','x',1)")
	if !errors.As(err, &me) || me.Number != 1142 {
		t.Fatalf("reader insert: %v", err)
	}
	writer := open(t, in.Addr(), mariadb.WriterUser, mariadb.WriterPassword)
	if _, err := writer.ExecContext(ctx, "CREATE TABLE demo.w_probe (id INT)"); err != nil {
		t.Fatalf("writer create: %v", err)
	}
	writer.ExecContext(ctx, "DROP TABLE demo.w_probe")
	root := open(t, in.Addr(), "root", in.RootPassword())
	if err := root.PingContext(ctx); err != nil {
		t.Fatalf("root tcp: %v", err)
	}
	bad := open(t, in.Addr(), "root", "nope")
	if err := bad.PingContext(ctx); !errors.As(err, &me) || me.Number != 1045 {
		t.Fatalf("bad password: %v", err)
	}
}

func TestStartStop(t *testing.T) {
	mariadb.Require(t)
	in, err := mariadb.Start(context.Background(), mariadb.Options{SkipDemo: true, RootPassword: "x"})
	if err != nil {
		t.Fatal(err)
	}
	dir := in.Socket()
	if err := in.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("datadir left behind: %v", err)
	}
}

// TestOwnTmpdir: an instance keeps its temporary files in its own
// directory, never in a /tmp that another starting instance would clean.
func TestOwnTmpdir(t *testing.T) {
	in := mariadb.SharedFor(t)
	var dir string
	if err := in.Root().QueryRowContext(context.Background(), "SELECT @@tmpdir").Scan(&dir); err != nil {
		t.Fatal(err)
	}
	if dir == os.TempDir() || dir == "/tmp" || filepath.Dir(dir) != filepath.Dir(in.Socket()) {
		t.Fatalf("tmpdir %q, want a directory beside the instance's socket %q", dir, in.Socket())
	}
}

// TestRestart: Restart brings the server back on the same port with the
// data written before it, and connections opened before it work again.
func TestRestart(t *testing.T) {
	mariadb.Require(t)
	ctx := context.Background()
	in, err := mariadb.Start(ctx, mariadb.Options{SkipDemo: true, RootPassword: "x"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop() })
	if err := in.Exec(ctx, "CREATE DATABASE kept", "CREATE TABLE kept.t (id INT)", "INSERT INTO kept.t VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	client := open(t, in.Addr(), "root", "x")
	client.SetMaxIdleConns(1)
	if err := client.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	addr := in.Addr()
	if err := in.Restart(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if in.Addr() != addr {
		t.Fatalf("address after restart %s, want %s", in.Addr(), addr)
	}
	var id int
	if err := in.Root().QueryRowContext(ctx, "SELECT id FROM kept.t").Scan(&id); err != nil || id != 7 {
		t.Fatalf("root after restart: got %d, %v; want 7", id, err)
	}
	// The client's idle connection died with the old server; the pool
	// replaces it.
	var up int
	if err := client.QueryRowContext(ctx, "SELECT 1").Scan(&up); err != nil || up != 1 {
		t.Fatalf("TCP client after restart: got %d, %v; want 1", up, err)
	}
}
