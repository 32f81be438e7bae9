// Command demo starts a complete fake Doris for people and for the MCP
// server: a throwaway MariaDB with the demo schema plus the Doris simulator
// on the usual ports. It prints the environment the MCP server needs,
// including the demo Apache Ossie model of testdata/semantic (and, given
// -server, the built-in MetricFlow provider), and runs until Ctrl-C.
//
//	go run ./doris/dorissim/demo [-profile 4.0] [-deployment cloud] [-server ./doris-mcp-server]
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
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
	deployment := flag.String("deployment", sim.DeploymentIntegrated, "deployment mode: integrated, or cloud (compute groups; 3.0+)")
	verbose := flag.Bool("v", false, "debug logging")
	server := flag.String("server", "", "path of a built doris-mcp-server, to configure its MetricFlow provider")
	envFile := flag.String("env", "", "also write every setting it prints to this file (mode 0600), which the server reads as its .env")
	flag.Parse()
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := run(log, *listen, *feHTTP, *beHTTP, *profile, *deployment, *server, *envFile); err != nil {
		log.Error("demo failed", "err", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger, listen, feHTTP, beHTTP, profile, deployment, server, envFile string) error {
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
		Users: db.UserMap(), Profile: profile, Deployment: deployment, Logger: log})
	if err != nil {
		return err
	}
	pipeline := "Ingestion history: 3 stream loads and an INSERT job into demo.web_events, and the\n" +
		"materialized view demo.mv_event_counts (left out of sync by the last successful load)."
	if err := s.LoadDemoPipeline(ctx, mariadb.WriterUser); err != nil {
		log.Warn("demo ingestion history not loaded", "err", err)
		pipeline = "Ingestion history: not loaded (see the log)."
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
	if err := lakehouse(ctx, s, db); err != nil {
		s.Close()
		return err
	}
	host, port := split(s.Addr())
	feHost, fePort := split(s.FEAddr())
	beHost, bePort := split(s.BEAddr())
	semantic := semanticEnv(log, server)
	settings := fmt.Sprintf(`  export DORIS_HOST=%s
  export DORIS_PORT=%s
  export DORIS_USER=%s
  export DORIS_PASSWORD=%s
  export DORIS_DATABASE=%s
  export DORIS_FE_HTTP_HOST=%s
  export DORIS_FE_HTTP_PORT=%s
  export DORIS_BE_HOSTS=%s
  export DORIS_BE_WEBSERVER_PORT=%s
`, host, port, mariadb.ReaderUser, mariadb.ReaderPassword, mariadb.DemoDatabase, feHost, fePort, beHost, bePort)
	if envFile != "" {
		if err := writeEnvFile(envFile, settings+semantic); err != nil {
			s.Close()
			return err
		}
	}
	fmt.Printf(`
Fake Doris is up (%s, upstream MariaDB %s).

Environment for the MCP server:
%s
%s
Other accounts: root / %s (ADMIN), %s / %s (may write to demo).
Lakehouse: catalog iceberg_demo (table sales.orders, three snapshots) and demo.events (VARIANT payload).
Try: mariadb -h %s -P %s -u %s -p%s %s -e 'SELECT @@version_comment; SHOW FULL TABLES'

%s
Stream Load: printf '9001,2025-01-01 00:00:00,1,view,/\n' > rows.csv
  curl --location-trusted -u %s:%s -H "label:try_1" -H "column_separator:," -T rows.csv http://%s/api/demo/web_events/_stream_load

Press Ctrl-C to stop.
`, s.VersionComment(), db.Addr(), settings, semantic, db.RootPassword(), mariadb.WriterUser, mariadb.WriterPassword,
		host, port, mariadb.ReaderUser, mariadb.ReaderPassword, mariadb.DemoDatabase,
		pipeline, mariadb.WriterUser, mariadb.WriterPassword, s.FEAddr())
	<-ctx.Done()
	log.Info("shutting down")
	return s.Close()
}

// writeEnvFile writes the demo's settings (its "  export K=V" lines) to
// path as a .env file, readable by the owner only: it holds a password.
func writeEnvFile(path, settings string) error {
	var b strings.Builder
	b.WriteString("# Written by the Doris simulator's demo (go run ./doris/dorissim/demo -env); doris-mcp-server reads it as .env.\n")
	for _, line := range strings.Split(settings, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "export ") {
			b.WriteString(line + "\n")
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// Semantic layer of the demo, relative to the repository root.
const (
	demoOssieModels   = "testdata/semantic/ossie/models"
	demoOssieBindings = "testdata/semantic/ossie/bindings.json"
	// demoDBTManifest is the dbt semantic manifest over the demo schema that
	// the built-in MetricFlow provider (doris-mcp-server metricflow-provider)
	// ships with. Until it is in the tree the demo prints no MetricFlow
	// settings.
	demoDBTManifest = "doris/semanticprovider/testdata/demo_semantic_manifest.json"
)

// semanticEnv is the environment that turns on the semantic layer over the
// demo: the Ossie model when the repository's testdata is found from the
// working directory, and MetricFlow when metricflowProviderCommand finds a
// provider.
func semanticEnv(log *slog.Logger, server string) string {
	root, ok := repoRoot()
	if !ok {
		return "\n(Run from the repository to get the demo Ossie model's settings.)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Semantic layer (doris_semantic):\n  export OSSIE_ENABLED=true\n  export OSSIE_MODEL_DIRECTORY=%s\n  export OSSIE_BINDING_MANIFEST=%s\n",
		filepath.Join(root, demoOssieModels), filepath.Join(root, demoOssieBindings))
	if cmd := metricflowProviderCommand(log, server, root); cmd != nil {
		j, _ := json.Marshal(cmd)
		fmt.Fprintf(&b, "  export METRICFLOW_ENABLED=true\n  export METRICFLOW_PROVIDER_COMMAND_JSON='%s'\n", j)
	}
	return b.String()
}

// metricflowProviderCommand is the METRICFLOW_PROVIDER_COMMAND_JSON of the
// demo: the server binary's own provider subcommand, ["<server>",
// "metricflow-provider", "--manifest", "<demo manifest>"], both paths
// absolute. It is nil unless -server names a binary that has the
// subcommand and the demo manifest exists.
func metricflowProviderCommand(log *slog.Logger, server, root string) []string {
	if server == "" {
		return nil
	}
	bin, err := filepath.Abs(server)
	if err != nil {
		return nil
	}
	manifest := filepath.Join(root, demoDBTManifest)
	if _, err := os.Stat(manifest); err != nil {
		log.Warn("no demo dbt manifest; MetricFlow is not configured", "path", manifest)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := exec.CommandContext(ctx, bin, "metricflow-provider", "--help").Run(); err != nil {
		log.Warn("the server binary has no metricflow-provider subcommand; MetricFlow is not configured", "server", bin)
		return nil
	}
	return []string{bin, "metricflow-provider", "--manifest", manifest}
}

// repoRoot finds the repository from the working directory: the nearest
// ancestor that holds go.mod and the demo Ossie bindings.
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, demoOssieBindings)); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
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
