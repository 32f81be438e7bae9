// Command demo starts a complete fake Doris for people and for the MCP
// server: a throwaway MariaDB with the demo schema plus the Doris simulator
// on the usual ports. It prints the environment the MCP server needs and
// runs until Ctrl-C.
//
//	go run ./doris/dorissim/demo [-profile 4.0]
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9030", "MySQL-protocol (FE query port) address")
	feHTTP := flag.String("fe-http", "127.0.0.1:8030", "FE HTTP address")
	beHTTP := flag.String("be-http", "127.0.0.1:8040", "BE HTTP address")
	profile := flag.String("profile", "3.0", "simulated Doris release: "+strings.Join(sim.Profiles(), ", "))
	verbose := flag.Bool("v", false, "debug logging")
	flag.Parse()
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := run(log, *listen, *feHTTP, *beHTTP, *profile); err != nil {
		log.Error("demo failed", "err", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger, listen, feHTTP, beHTTP, profile string) error {
	if err := mariadb.Available(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := mariadb.Start(ctx, mariadb.Options{Logger: log})
	if err != nil {
		return err
	}
	defer func() {
		if err := db.Stop(); err != nil {
			log.Warn("stop mariadb", "err", err)
		}
		log.Info("mariadb stopped")
	}()
	s, err := sim.Start(ctx, sim.Options{Listen: listen, FEHTTP: feHTTP, BEHTTP: beHTTP, Upstream: db.Addr(),
		Users: db.UserMap(), Profile: profile, Logger: log})
	if err != nil {
		return err
	}
	if err := lakehouse(ctx, s, db); err != nil {
		s.Close()
		return err
	}
	host, port := split(s.Addr())
	feHost, fePort := split(s.FEAddr())
	beHost, bePort := split(s.BEAddr())
	fmt.Printf(`
Fake Doris is up (%s, upstream MariaDB %s).

Environment for the MCP server:
  export DORIS_HOST=%s
  export DORIS_PORT=%s
  export DORIS_USER=%s
  export DORIS_PASSWORD=%s
  export DORIS_DATABASE=%s
  export DORIS_FE_HTTP_HOST=%s
  export DORIS_FE_HTTP_PORT=%s
  export DORIS_BE_HOSTS=%s
  export DORIS_BE_WEBSERVER_PORT=%s

Other accounts: root / %s (ADMIN), %s / %s (may write to demo).
Lakehouse: catalog iceberg_demo (table sales.orders, three snapshots) and demo.events (VARIANT payload).
Try: mariadb -h %s -P %s -u %s -p%s %s -e 'SELECT @@version_comment; SHOW FULL TABLES'

Press Ctrl-C to stop.
`, s.VersionComment(), db.Addr(), host, port, mariadb.ReaderUser, mariadb.ReaderPassword, mariadb.DemoDatabase,
		feHost, fePort, beHost, bePort, db.RootPassword(), mariadb.WriterUser, mariadb.WriterPassword,
		host, port, mariadb.ReaderUser, mariadb.ReaderPassword, mariadb.DemoDatabase)
	<-ctx.Done()
	log.Info("shutting down")
	return s.Close()
}

func split(addr string) (string, string) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return addr, ""
	}
	return addr[:i], addr[i+1:]
}

// lakehouse builds the demo's Iceberg catalog and VARIANT table through the
// simulator, as root, the way they would be made in Doris, and lets the
// reader account read the catalog's database.
func lakehouse(ctx context.Context, s *sim.Server, db *mariadb.Instance) error {
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd, c.DBName = "tcp", s.Addr(), "root", db.RootPassword(), mariadb.DemoDatabase
	c.Timeout = 10 * time.Second
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return err
	}
	pool := sql.OpenDB(conn)
	defer pool.Close()
	for _, q := range sim.DemoLakehouseStatements() {
		if _, err := pool.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("demo lakehouse: %w", err)
		}
	}
	grant := fmt.Sprintf("GRANT SELECT, SHOW VIEW ON `%s`.* TO '%s'@'%%'", sim.BackingDatabase("iceberg_demo", "sales"), mariadb.ReaderUser)
	if _, err := db.Root().ExecContext(ctx, grant); err != nil {
		return fmt.Errorf("demo lakehouse: %w", err)
	}
	return nil
}
