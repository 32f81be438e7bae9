// Command doris-mcp-server serves Apache Doris to MCP Hosts: MCP 2026-07-28
// over stdio or Streamable HTTP (plus an opt-in handshake-era endpoint),
// eight domain tools with progressive discovery, and only bounded,
// read-only execution under the caller's own Doris identity.
//
// Configuration comes from defaults, a .env file, the environment and
// flags, in rising precedence; run with -check-config to validate it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/handle"
	"github.com/doris-mcp/doris-mcp-server/mcp"
)

const serverName = "doris-mcp-server"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], environ(), os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, errReported) {
			fmt.Fprintln(os.Stderr, "doris-mcp-server:", err)
		}
		os.Exit(1)
	}
}

// errReported marks a failure already printed in full.
var errReported = errors.New("reported")

func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// run is the whole program: flags and environment to Config, validation
// (every problem at once), wiring, serving, graceful shutdown. stdout
// carries only the protocol (stdio) or nothing; logs go to stderr.
func run(ctx context.Context, args []string, env map[string]string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == providerCommand {
		return runMetricFlowProvider(ctx, args[1:], stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == bridgeCommand {
		return runBridge(ctx, args[1:], env, stdin, stdout, stderr)
	}
	if len(args) > 0 && args[0] == clientCommand {
		return runClient(ctx, args[1:], env, stdout, stderr)
	}
	if len(args) > 0 && args[0] == doctorCommand {
		return runDoctor(ctx, args[1:], env, stdout, stderr) // doctor.go
	}
	if wantsHelp(args) {
		printHelp(stdout) // help.go
		return nil
	}
	flags := newFlagSet(stderr)
	if err := flags.parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if flags.version {
		fmt.Fprintln(stdout, versionLine())
		return nil
	}
	cfg, strays, err := loadConfig(flags, env, stderr)
	if err != nil {
		return err
	}
	if flags.checkConfig {
		printTypos(stderr, strays)
		printCheckConfig(stdout, cfg)
		return nil
	}

	log, sink := newLogger(stderr, cfg.LogLevel)
	defer sink.Close()
	logStrays(log, strays)
	if cfg.Transport == "http" && !auth.IsLoopback(cfg.Host) && !cfg.Auth.Enabled() && !cfg.DorisOAuth.Enabled {
		log.Warn("DANGEROUS: serving HTTP on a non-loopback address without authentication (ALLOW_UNAUTHENTICATED_NON_LOOPBACK=true)", "host", cfg.Host)
	}
	srv, rt, err := wire(cfg, log)
	if err != nil {
		return err
	}
	defer rt.Close()
	defer warnUnusableDoris(ctx, rt, log)() // doctor.go: one WARN naming why Doris cannot serve
	// srv.Close flushes the invocation audit log; METRICS_ADDR serves
	// /metrics apart from MCP (main_telemetry.go).
	defer srv.Close()
	stopMetrics, err := serveMetricsAddr(ctx, cfg, srv, log)
	if err != nil {
		return err
	}
	defer stopMetrics()

	if cfg.Transport == "stdio" {
		log.Info("serving MCP on stdio", "protocol", mcp.Version, "exposure", cfg.ExposureMode)
		return srv.ServeStdio(ctx, stdin, stdout)
	}
	return serveHTTP(ctx, cfg, srv, rt, log)
}

func printProblems(w io.Writer, err error) {
	fmt.Fprintln(w, "doris-mcp-server: invalid configuration:")
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintln(w, "  -", line)
	}
}

// printTypos names the variables that are near misses of a setting, for
// a configuration that is not served (invalid, or --check-config).
func printTypos(w io.Writer, strays []stray) {
	for _, s := range strays {
		if s.meant != "" {
			fmt.Fprintln(w, "doris-mcp-server: warning:", s.typo())
		}
	}
}

// logStrays warns of each variable that is a near miss of a setting, and
// names, more quietly and on one line, the other variables with the
// server's prefixes that it ignores (the reference server's own, say).
// Only names are logged: a value may be a secret.
func logStrays(log *slog.Logger, strays []stray) {
	var ignored []string
	for _, s := range strays {
		if s.meant != "" {
			log.Warn(s.typo())
		} else {
			ignored = append(ignored, s.name)
		}
	}
	if len(ignored) > 0 {
		log.Info("ignoring variables that are not settings of this server", "names", ignored)
	}
}

// wire builds the server from a valid Config.
func wire(cfg Config, log *slog.Logger) (*mcp.Server, *doris.Runtime, error) {
	signer, err := newSigner(cfg)
	if err != nil {
		return nil, nil, err
	}
	rt, err := doris.Open(cfg.Doris, doris.Options{Logger: log, Handles: signer, Handlers: catalog.Handlers(), Probes: catalog.Probes()})
	if err != nil {
		return nil, nil, err
	}
	surface, err := catalog.New(catalog.Config{
		Mode:     cfg.ExposureMode,
		Enabled:  cfg.ChildAllowlist,
		Disabled: cfg.ChildDenylist,
		Handles:  signer,
		Logger:   log,

		ValidateResults: cfg.ValidateResults,
		Ceilings:        cfg.Doris.Ceilings(),
	}, rt)
	if err != nil {
		rt.Close()
		return nil, nil, err
	}
	tel := newTelemetry(cfg, rt, log) // metrics and the audit log (main_telemetry.go)
	srv, err := mcp.NewServer(surface, mcp.Options{
		Name:         serverName,
		Version:      moduleVersion(),
		Instructions: instructions,
		PageSize:     cfg.ListPageSize,
		Handles:      signer,
		Logger:       log,
		// Zero grace means no wait: abort at once.
		ShutdownGrace: max(cfg.ShutdownGrace, time.Nanosecond),
		Telemetry:     tel,
	})
	if err != nil {
		rt.Close()
		return nil, nil, err
	}
	return srv, rt, nil
}

// newSigner is the signer of cursors and other state handles: keyed by
// MCP_STATE_HANDLE_SECRET (random per launch without it), and still
// opening what MCP_STATE_HANDLE_PREVIOUS_SECRET signed, so a rotation of
// the secret does not invalidate every cursor in flight at once.
func newSigner(cfg Config) (*handle.Signer, error) {
	opts := []handle.Option{handle.WithTTL(cfg.HandleTTL)}
	if cfg.HandleSecret == "" {
		return handle.NewRandom(opts...)
	}
	if cfg.HandlePreviousSecret != "" {
		opts = append(opts, handle.WithPrevious([]byte(cfg.HandlePreviousSecret)))
	}
	return handle.New([]byte(cfg.HandleSecret), opts...)
}

const instructions = "Read-only access to Apache Doris. Pick the one domain tool that matches the question, " +
	"call it with {} to discover its operations, then call it with child_tool, arguments and manifest_version. " +
	"Results are bounded; read warnings and truncated flags."

// httpOptions builds the HTTP transport's options: the Host/Origin policy,
// and the authentication modes in route-priority order (a person signed in
// through Doris-backed OAuth first, then static tokens, JWT and external
// OAuth). The returned function stops what it started.
func httpOptions(ctx context.Context, cfg Config, rt *doris.Runtime, log *slog.Logger) (mcp.HTTPOptions, func(), error) {
	policy, err := auth.NewHostPolicy(cfg.Host, cfg.AllowedHosts, cfg.AllowedOrigins)
	if err != nil {
		return mcp.HTTPOptions{}, nil, err
	}
	o := mcp.HTTPOptions{Policy: policy, Legacy: cfg.LegacyHTTP, ModernOnly: cfg.ModernOnly, Ready: rt.Ping}
	// Doris OAuth first: it pulls its peers' token ledger before this
	// replica listens, so peers that start at the same time are refused at
	// once instead of waiting for it.
	oauthServer, stop, err := withDorisOAuth(ctx, cfg, rt, policy, log, &o)
	if err != nil {
		return mcp.HTTPOptions{}, nil, err
	}
	if cfg.Auth.Enabled() {
		var first []auth.Method
		if oauthServer != nil {
			first = append(first, auth.MethodFunc(func(ctx context.Context, token string) (auth.Identity, error) {
				if !dorisoauth.IsAccessToken(token) {
					return auth.Identity{}, auth.ErrNotRecognized
				}
				return oauthServer.Verify(ctx, token)
			}))
		}
		authn, err := auth.New(ctx, cfg.Auth, cfg.authBind(), auth.Options{Logger: log, Policy: policy, First: first})
		if err != nil {
			stop()
			return mcp.HTTPOptions{}, nil, err
		}
		o.Identify, o.ScopeChallenge = authn.Identify, authn.ScopeChallenge
		if o.Mount == nil {
			o.Mount = map[string]http.Handler{}
		}
		for pattern, h := range authn.Mount() {
			if _, taken := o.Mount[pattern]; !taken { // Doris OAuth's metadata wins
				o.Mount[pattern] = h
			}
		}
	}
	return o, stop, nil
}

func serveHTTP(ctx context.Context, cfg Config, srv *mcp.Server, rt *doris.Runtime, log *slog.Logger) error {
	opts, stop, err := httpOptions(ctx, cfg, rt, log)
	if err != nil {
		return err
	}
	defer stop()
	mountMetrics(cfg, srv, &opts) // GET /metrics (main_telemetry.go)
	ln, err := net.Listen("tcp", cfg.listenAddr())
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           srv.Handler(opts),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		// A tool call may run up to the query ceiling; the write deadline
		// leaves room for it and for the response.
		WriteTimeout:   cfg.Doris.QueryTimeout + 60*time.Second,
		IdleTimeout:    120 * time.Second,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// Requests outlive the signal: it starts the drain, and only the
		// end of the grace period (srv.Abort) stops the calls in flight.
		BaseContext: srv.BaseContext,
	}
	log.Info("serving MCP over HTTP", "addr", "http://"+ln.Addr().String()+"/mcp", "protocol", mcp.Version,
		"legacy", cfg.LegacyHTTP, "exposure", cfg.ExposureMode, "authentication", opts.Identify != nil)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return drain(hs, srv, cfg.ShutdownGrace, log)
}

// drain shuts the HTTP server down: it stops accepting (new requests on
// open connections are refused with 503), lets the calls in flight finish
// within grace, then stops the rest (each answered with a retryable
// SERVER_SHUTTING_DOWN once its query is killed inside Doris) and waits
// for those answers, bounded. A shutdown is not an error: the program
// exits 0.
func drain(hs *http.Server, srv *mcp.Server, grace time.Duration, log *slog.Logger) error {
	log.Info("shutting down: draining", "grace_seconds", grace.Seconds())
	srv.Drain()
	gctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(gctx); err == nil {
		log.Info("shut down: every call finished")
		return nil
	}
	log.Warn("shutdown grace ended: stopping the calls still running")
	srv.Abort()
	actx, cancelAbort := context.WithTimeout(context.Background(), mcp.AbortWait)
	defer cancelAbort()
	if err := hs.Shutdown(actx); err != nil {
		log.Warn("calls still running after the abort were cut off", "err", err)
		hs.Close()
	}
	log.Info("shut down")
	return nil
}

// moduleVersion is the main module's version from the build info: a tag, a
// pseudo-version stamped from VCS, or "(devel)".
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" {
		return "(devel)"
	}
	return bi.Main.Version
}

// versionLine is what -version prints: module version, VCS revision and
// Go version, all from the build info.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return serverName + " (no build info)"
	}
	rev, modified := "unknown", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified {
		rev += "+dirty"
	}
	return fmt.Sprintf("%s %s (revision %s, %s, MCP %s)", serverName, moduleVersion(), rev, bi.GoVersion, mcp.Version)
}
