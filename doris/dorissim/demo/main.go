// Command demo starts a complete fake Doris for people and for the MCP
// server: a throwaway MariaDB with the demo schema plus the Doris simulator
// on the usual ports. It prints the environment the MCP server needs and
// runs until Ctrl-C.
//
//	go run ./doris/dorissim/demo [-profile 4.0]
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

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
	// Two weeks of believable history, then today's real activity run
	// through the simulator, so that every governance child finds
	// something true on a first try.
	n, err := s.SeedAuditHistory(ctx, time.Now(), 14)
	if err != nil {
		s.Close()
		return err
	}
	if err := s.DemoActivity(ctx); err != nil {
		s.Close()
		return err
	}
	log.Info("demo activity recorded", "audit_history_rows", n)
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
