// Command dorissim runs the Doris simulator in front of a MySQL-protocol
// upstream (MariaDB):
//
//	go run ./doris/dorissim -listen 127.0.0.1:9030 -fe-http 127.0.0.1:8030 \
//	    -be-http 127.0.0.1:8040 -upstream 127.0.0.1:3306 \
//	    -users root:rootpw,mcp_reader:readerpw -profile 3.0 [-deployment cloud] \
//	    [-hold MARKER=DURATION ...]
//
// -hold delays every statement whose SQL contains MARKER (case-insensitive)
// by DURATION before it runs, without using CPU: a slow query for load and
// fault runs. Closing the client connection ends the wait; the statement
// then never runs.
//
// SIGUSR1 closes the BE web server alone (its port refuses connections;
// the backend stays alive in SHOW BACKENDS) and SIGUSR2 reopens it on the
// same address: a dead BE HTTP port for fault runs.
//
// Every user in -users must exist upstream with the same password. For a
// ready-made upstream with demo data use ./doris/dorissim/demo instead.
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

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:9030", "MySQL-protocol (FE query port) address")
	feHTTP := flag.String("fe-http", "127.0.0.1:8030", "FE HTTP address (empty: off)")
	beHTTP := flag.String("be-http", "127.0.0.1:8040", "BE HTTP address (empty: off)")
	feFlight := flag.String("fe-flight", "", "FE Arrow Flight SQL address, arrow_flight_sql_port (empty: off; Doris 2.1+ profiles)")
	beFlight := flag.String("be-flight", "", "BE Arrow Flight SQL address, arrow_flight_sql_port (empty: off; Doris 2.1+ profiles)")
	upstream := flag.String("upstream", "127.0.0.1:3306", "upstream MariaDB/MySQL host:port")
	users := flag.String("users", "", "comma-separated user:password list the simulator accepts (required)")
	admins := flag.String("admins", "root", "comma-separated users with Doris ADMIN privilege")
	profile := flag.String("profile", "3.0", "simulated Doris release: "+strings.Join(sim.Profiles(), ", "))
	deployment := flag.String("deployment", sim.DeploymentIntegrated, "deployment mode: integrated, or cloud (compute groups; 3.0+)")
	verbose := flag.Bool("v", false, "debug logging")
	var holds holdFlags
	flag.Var(&holds, "hold", "MARKER=DURATION: hold statements containing MARKER for DURATION before running them (repeatable)")
	flag.Parse()

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := run(log, *listen, *feHTTP, *beHTTP, *feFlight, *beFlight, *upstream, *users, *admins, *profile, *deployment, holds); err != nil {
		log.Error("dorissim failed", "err", err)
		os.Exit(1)
	}
}

func parseUsers(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		u, p, ok := strings.Cut(item, ":")
		if !ok || u == "" {
			return nil, fmt.Errorf("bad -users entry %q (want user:password)", item)
		}
		m[u] = p
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("-users is required (user:password,...)")
	}
	return m, nil
}

// holdFlags are the -hold flags, as faults to inject.
type holdFlags []sim.Fault

func (h *holdFlags) String() string {
	var parts []string
	for _, f := range *h {
		parts = append(parts, f.Match+"="+f.Latency.String())
	}
	return strings.Join(parts, ",")
}

func (h *holdFlags) Set(v string) error {
	marker, d, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(marker) == "" {
		return fmt.Errorf("want MARKER=DURATION, e.g. hold_marker=30s")
	}
	dur, err := time.ParseDuration(d)
	if err != nil || dur <= 0 {
		return fmt.Errorf("bad duration %q: want a positive Go duration such as 3s", d)
	}
	*h = append(*h, sim.Fault{Match: marker, Latency: dur})
	return nil
}

func run(log *slog.Logger, listen, feHTTP, beHTTP, feFlight, beFlight, upstream, users, admins, profile, deployment string, holds []sim.Fault) error {
	um, err := parseUsers(users)
	if err != nil {
		return err
	}
	var adm []string
	for _, a := range strings.Split(admins, ",") {
		if a = strings.TrimSpace(a); a != "" {
			adm = append(adm, a)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := sim.Start(ctx, sim.Options{Listen: listen, FEHTTP: feHTTP, BEHTTP: beHTTP, FEFlight: feFlight, BEFlight: beFlight, Upstream: upstream,
		Users: um, Admins: adm, Profile: profile, Deployment: deployment, Logger: log})
	if err != nil {
		return err
	}
	for _, f := range holds {
		s.Inject(f)
		log.Info("holding statements", "marker", f.Match, "for", f.Latency)
	}
	be := make(chan os.Signal, 1)
	sigs := beHTTPSignals()
	if len(sigs) == 2 { // Notify with no signals would relay all of them
		signal.Notify(be, sigs...)
		defer signal.Stop(be)
	}
	for {
		select {
		case <-ctx.Done():
			log.Info("shutting down")
			return s.Close()
		case sig := <-be:
			down := sig == sigs[0]
			if err := s.SetBEHTTPDown(down); err != nil {
				log.Warn("BE web server", "down", down, "err", err)
				continue
			}
			log.Info("BE web server", "down", down)
		}
	}
}
