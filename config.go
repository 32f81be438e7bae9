package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/handle"
	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// Config is the whole server configuration, resolved from defaults, the
// .env file, the environment and flags, in rising precedence. Zero values
// are never defaults: DefaultConfig sets every default explicitly.
type Config struct {
	Transport string // "stdio" or "http"
	Host      string // HTTP bind host
	Port      int    // HTTP bind port; 0 picks a free port

	AllowedHosts   []string // MCP_ALLOWED_HOSTS; empty: bind-derived defaults
	AllowedOrigins []string // MCP_ALLOWED_ORIGINS
	LegacyHTTP     bool     // ENABLE_LEGACY_HTTP_ADAPTER

	ListPageSize int           // MCP_LIST_PAGE_SIZE, 1..1000
	HandleSecret string        // MCP_STATE_HANDLE_SECRET; empty: random per launch
	HandleTTL    time.Duration // MCP_STATE_HANDLE_TTL_SECONDS, 1..3600 s

	ExposureMode      string   // MCP_TOOL_EXPOSURE_MODE
	ValidateResults   bool     // MCP_VALIDATE_RESULTS: check every child result against its output schema
	ChildAllowlist    []string // MCP_CHILD_TOOL_ALLOWLIST ("domain.child")
	ChildDenylist     []string // MCP_CHILD_TOOL_DENYLIST
	AdminDomain       bool     // MCP_ADMIN_DOMAIN_ENABLED (must stay false)
	AdminConfirmation bool     // MCP_ADMIN_REQUIRE_CONFIRMATION (must stay true)

	AllowUnauthenticatedNonLoopback bool // ALLOW_UNAUTHENTICATED_NON_LOOPBACK

	// Auth is the configuration of the authentication modes (package auth).
	Auth auth.Config

	LogLevel slog.Level // LOG_LEVEL, parsed once where it is read

	// ShutdownGrace is SHUTDOWN_GRACE_SECONDS: how long calls running at
	// SIGTERM/SIGINT (or stdio EOF) may take to finish before they are
	// stopped and their queries killed, 0..3600 s.
	ShutdownGrace time.Duration

	Doris doris.Config

	// DorisOAuth is Doris-backed OAuth (ENABLE_DORIS_OAUTH_AUTH).
	DorisOAuth dorisoauth.Config

	// Telemetry is GET /metrics and the invocation audit log
	// (config_telemetry.go).
	Telemetry TelemetryConfig
}

// DefaultConfig returns the reference server's defaults.
func DefaultConfig() Config {
	return Config{
		Transport:         "stdio",
		Host:              "localhost",
		Port:              3000,
		ListPageSize:      100,
		HandleTTL:         handle.DefaultTTL,
		ExposureMode:      "hierarchical",
		AdminConfirmation: true,
		Auth:              auth.DefaultConfig(),
		LogLevel:          slog.LevelInfo,
		ShutdownGrace:     mcp.DefaultShutdownGrace,
		Doris:             doris.DefaultConfig(),
		DorisOAuth:        dorisoauth.DefaultConfig(),
		Telemetry:         defaultTelemetryConfig(),
	}
}

// fieldError is one configuration problem: the variable or flag, and why.
type fieldError struct {
	Field string
	Err   error
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *fieldError) Unwrap() error { return e.Err }

// loader reads typed values from an environment, collecting every problem.
type loader struct {
	env  map[string]string
	errs []error
}

func (l *loader) fail(field, format string, args ...any) {
	l.errs = append(l.errs, &fieldError{Field: field, Err: fmt.Errorf(format, args...)})
}

func (l *loader) str(key string, dst *string) {
	if v, ok := l.env[key]; ok {
		*dst = strings.TrimSpace(v)
	}
}

// secret reads a value verbatim (no trimming).
func (l *loader) secret(key string, dst *string) {
	if v, ok := l.env[key]; ok {
		*dst = v
	}
}

func (l *loader) int(key string, dst *int) {
	v, ok := l.env[key]
	if !ok || strings.TrimSpace(v) == "" {
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		l.fail(key, "%q is not an integer", v)
		return
	}
	*dst = n
}

func (l *loader) seconds(key string, dst *time.Duration) {
	v, ok := l.env[key]
	if !ok || strings.TrimSpace(v) == "" {
		return
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		l.fail(key, "%q is not a number of seconds", v)
		return
	}
	*dst = time.Duration(f * float64(time.Second))
}

func (l *loader) float(key string, dst *float64) {
	v, ok := l.env[key]
	if !ok || strings.TrimSpace(v) == "" {
		return
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		l.fail(key, "%q is not a number", v)
		return
	}
	*dst = f
}

func (l *loader) bool(key string, dst *bool) {
	v, ok := l.env[key]
	if !ok || strings.TrimSpace(v) == "" {
		return
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		*dst = true
	case "0", "false", "no", "off":
		*dst = false
	default:
		l.fail(key, "%q is not a boolean (true/false)", v)
	}
}

func (l *loader) list(key string, dst *[]string) {
	v, ok := l.env[key]
	if !ok {
		return
	}
	*dst = splitList(v)
}

func splitList(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// fromEnv overlays the environment on c.
func (c *Config) fromEnv(env map[string]string) []error {
	l := &loader{env: env}
	l.str("TRANSPORT", &c.Transport)
	l.str("SERVER_HOST", &c.Host)
	l.int("SERVER_PORT", &c.Port)
	l.list("MCP_ALLOWED_HOSTS", &c.AllowedHosts)
	l.list("MCP_ALLOWED_ORIGINS", &c.AllowedOrigins)
	l.bool("ENABLE_LEGACY_HTTP_ADAPTER", &c.LegacyHTTP)
	l.int("MCP_LIST_PAGE_SIZE", &c.ListPageSize)
	l.secret("MCP_STATE_HANDLE_SECRET", &c.HandleSecret)
	l.seconds("MCP_STATE_HANDLE_TTL_SECONDS", &c.HandleTTL)
	l.str("MCP_TOOL_EXPOSURE_MODE", &c.ExposureMode)
	l.bool("MCP_VALIDATE_RESULTS", &c.ValidateResults)
	l.list("MCP_CHILD_TOOL_ALLOWLIST", &c.ChildAllowlist)
	l.list("MCP_CHILD_TOOL_DENYLIST", &c.ChildDenylist)
	l.bool("MCP_ADMIN_DOMAIN_ENABLED", &c.AdminDomain)
	l.bool("MCP_ADMIN_REQUIRE_CONFIRMATION", &c.AdminConfirmation)
	l.bool("ALLOW_UNAUTHENTICATED_NON_LOOPBACK", &c.AllowUnauthenticatedNonLoopback)
	l.seconds("SHUTDOWN_GRACE_SECONDS", &c.ShutdownGrace)
	if v, ok := env["LOG_LEVEL"]; ok && strings.TrimSpace(v) != "" {
		if lv, good := logLevel(v); good {
			c.LogLevel = lv
		} else {
			l.fail("LOG_LEVEL", "%q is not DEBUG, INFO, WARNING, ERROR or CRITICAL", v)
		}
	}
	l.errs = append(l.errs, c.Auth.FromEnv(env)...)

	d := &c.Doris
	l.str("DORIS_HOST", &d.Host)
	l.list("DORIS_HOSTS", &d.Hosts)
	l.int("DORIS_PORT", &d.Port)
	l.str("DORIS_USER", &d.User)
	l.secret("DORIS_PASSWORD", &d.Password)
	l.str("DORIS_DATABASE", &d.Database)
	l.str("DORIS_FE_HTTP_HOST", &d.FEHTTPHost)
	l.int("DORIS_FE_HTTP_PORT", &d.FEHTTPPort)
	l.list("DORIS_BE_HOSTS", &d.BEHosts)
	l.int("DORIS_BE_WEBSERVER_PORT", &d.BEWebPort)
	l.seconds("DORIS_HTTP_CONNECT_TIMEOUT_SECONDS", &d.HTTPConnectTimeout)
	l.seconds("DORIS_HTTP_READ_TIMEOUT_SECONDS", &d.HTTPReadTimeout)
	l.seconds("DORIS_HTTP_TOTAL_TIMEOUT_SECONDS", &d.HTTPTotalTimeout)
	l.int("DORIS_HTTP_MAX_RESPONSE_BYTES", &d.HTTPMaxResponseBytes)
	l.int("DORIS_MAX_CONNECTIONS", &d.MaxConnections)
	l.seconds("DORIS_CONNECTION_TIMEOUT", &d.ConnectTimeout)
	l.seconds("DORIS_HEALTH_CHECK_INTERVAL", &d.HealthCheckInterval)
	l.seconds("DORIS_MAX_CONNECTION_AGE", &d.MaxConnectionAge)
	l.int("MAX_RESULT_ROWS", &d.MaxResultRows)
	l.int("DEFAULT_RESULT_ROWS", &d.DefaultResultRows)
	l.int("MAX_RESULT_BYTES", &d.MaxResultBytes)
	l.seconds("QUERY_TIMEOUT", &d.QueryTimeout)
	l.int("MAX_CONCURRENT_QUERIES", &d.MaxConcurrentQueries)
	l.int("MAX_RESPONSE_CONTENT_SIZE", &d.MaxResponseContentSize)
	l.bool("ENABLE_MASKING", &d.EnableMasking)
	l.str("MASKING_RULES_JSON", &d.MaskingRules)
	l.seconds("CAPABILITY_SNAPSHOT_TTL_SECONDS", &d.CapabilityTTL)
	l.seconds("CAPABILITY_PROBE_TIMEOUT_SECONDS", &d.ProbeTimeout)
	l.seconds("CAPABILITY_STALE_GRACE_SECONDS", &d.StaleGrace)

	o := &d.Ossie
	l.bool("OSSIE_ENABLED", &o.Enabled)
	l.str("OSSIE_MODEL_DIRECTORY", &o.ModelDirectory)
	l.str("OSSIE_BINDING_MANIFEST", &o.BindingManifest)
	l.int("OSSIE_MAX_FILE_BYTES", &o.MaxFileBytes)
	l.int("OSSIE_MAX_TOTAL_BYTES", &o.MaxTotalBytes)
	l.int("OSSIE_MAX_MODELS", &o.MaxModels)
	l.int("OSSIE_MAX_DEPTH", &o.MaxDepth)
	l.int("OSSIE_MAX_ALIASES", &o.MaxAliases)
	l.int("OSSIE_MAX_STRING_BYTES", &o.MaxStringBytes)
	l.int("OSSIE_MAX_EXPRESSION_BYTES", &o.MaxExpressionBytes)
	l.int("OSSIE_CONTEXT_MAX_BYTES", &o.ContextMaxBytes)
	l.int("OSSIE_CONTEXT_HARD_MAX_BYTES", &o.ContextHardMaxBytes)
	mf := &d.MetricFlow
	l.bool("METRICFLOW_ENABLED", &mf.Enabled)
	l.str("METRICFLOW_PROVIDER_COMMAND_JSON", &mf.CommandJSON)
	l.str("METRICFLOW_PROJECT_DIRECTORY", &mf.ProjectDirectory)
	l.seconds("METRICFLOW_TIMEOUT_SECONDS", &mf.Timeout)
	l.int("METRICFLOW_MAX_OUTPUT_BYTES", &mf.MaxOutputBytes)
	c.DorisOAuth = dorisoauth.FromEnv(env)
	l.float("GOVERNANCE_MAX_SAMPLE_RATIO", &d.Governance.MaxSampleRatio)
	l.int("GOVERNANCE_MAX_AUDIT_WINDOW_DAYS", &d.Governance.MaxAuditWindowDays)
	l.int("GOVERNANCE_MAX_LINEAGE_EDGES", &d.Governance.MaxLineageEdges)
	l.str("GOVERNANCE_LINEAGE_STORE_TABLE", &d.Governance.LineageStoreTable)
	l.int("GOVERNANCE_LINEAGE_RECENT_EVENT_MINUTES", &d.Governance.RecentEventMinutes)
	l.int("LAKEHOUSE_MAX_CATALOG_OBJECTS", &d.Lakehouse.MaxCatalogObjects)
	l.int("LAKEHOUSE_MAX_CATALOG_DATABASES", &d.Lakehouse.MaxCatalogDatabases)
	l.int("LAKEHOUSE_MAX_SNAPSHOTS", &d.Lakehouse.MaxSnapshots)
	l.int("LAKEHOUSE_MAX_PARTITIONS", &d.Lakehouse.MaxPartitions)
	l.int("LAKEHOUSE_MAX_VARIANT_SAMPLE_ROWS", &d.Lakehouse.MaxVariantSampleRows)
	l.int("LAKEHOUSE_MAX_VARIANT_PATHS", &d.Lakehouse.MaxVariantPaths)
	// ADBC over Arrow Flight SQL (doris/config_adbc.go).
	a := &d.ADBC
	l.bool("ADBC_ENABLED", &a.Enabled)
	l.int("FE_ARROW_FLIGHT_SQL_PORT", &a.FEPort)
	l.int("BE_ARROW_FLIGHT_SQL_PORT", &a.BEPort)
	l.int("ADBC_DEFAULT_MAX_ROWS", &a.DefaultMaxRows)
	l.seconds("ADBC_DEFAULT_TIMEOUT", &a.DefaultTimeout)
	l.str("ADBC_DEFAULT_RETURN_FORMAT", &a.DefaultReturnFormat)
	l.seconds("ADBC_CONNECTION_TIMEOUT", &a.ConnectionTimeout)
	l.errs = append(l.errs, c.Telemetry.fromEnv(env)...)
	return l.errs
}

// flagSet declares the command-line flags; each overrides its variable.
type flagSet struct {
	fs                                  *flag.FlagSet
	transport, host, logLevel, envFile  string
	port, dorisPort, workers            int
	dorisHost, dorisUser, dorisPassword string
	dorisDatabase                       string
	version, checkConfig                bool
	set                                 map[string]bool
}

func newFlagSet(out io.Writer) *flagSet {
	f := &flagSet{fs: flag.NewFlagSet("doris-mcp-server", flag.ContinueOnError), set: map[string]bool{}}
	f.fs.SetOutput(out)
	// The flags' own defaults are empty so that an unset flag never hides
	// its variable; their help shows the real defaults instead.
	d := DefaultConfig()
	f.fs.StringVar(&f.transport, "transport", "", "transport: stdio or http (TRANSPORT; default "+d.Transport+")")
	f.fs.StringVar(&f.host, "host", "", "HTTP bind host (SERVER_HOST; default "+d.Host+")")
	f.fs.IntVar(&f.port, "port", 0, fmt.Sprintf("HTTP bind port, 0 for any free port (SERVER_PORT; default %d)", d.Port))
	f.fs.StringVar(&f.dorisHost, "doris-host", "", "Doris FE host (DORIS_HOST; default "+d.Doris.Host+")")
	f.fs.StringVar(&f.dorisHost, "db-host", "", "alias of -doris-host")
	f.fs.IntVar(&f.dorisPort, "doris-port", 0, fmt.Sprintf("Doris FE MySQL port (DORIS_PORT; default %d)", d.Doris.Port))
	f.fs.StringVar(&f.dorisUser, "doris-user", "", "Doris user (DORIS_USER; default "+d.Doris.User+")")
	f.fs.StringVar(&f.dorisPassword, "doris-password", "", "Doris password (DORIS_PASSWORD; default empty; prefer the variable: flags are visible to other local users)")
	f.fs.StringVar(&f.dorisDatabase, "doris-database", "", "default Doris database (DORIS_DATABASE; default "+d.Doris.Database+")")
	f.fs.StringVar(&f.logLevel, "log-level", "", "DEBUG, INFO, WARNING or ERROR (LOG_LEVEL; default INFO)")
	f.fs.StringVar(&f.envFile, "env-file", "", "read variables from this file (default: ./.env when present); set variables win")
	f.fs.IntVar(&f.workers, "workers", 0, "accepted for compatibility with the reference server and ignored: one process serves every request concurrently (WORKERS)")
	f.fs.BoolVar(&f.version, "version", false, "print the version and exit")
	f.fs.BoolVar(&f.checkConfig, "check-config", false, "validate the configuration, print every problem, exit 1 or 0")
	return f
}

func (f *flagSet) parse(args []string) error {
	if err := f.fs.Parse(args); err != nil {
		return err
	}
	if f.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", f.fs.Arg(0))
	}
	f.fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return nil
}

// apply overlays the flags that were given on c, and reports the values
// it cannot read.
func (f *flagSet) apply(c *Config) []error {
	var errs []error
	if f.set["transport"] {
		c.Transport = f.transport
	}
	if f.set["host"] {
		c.Host = f.host
	}
	if f.set["port"] {
		c.Port = f.port
	}
	if f.set["doris-host"] || f.set["db-host"] {
		c.Doris.Host = f.dorisHost
	}
	if f.set["doris-port"] {
		c.Doris.Port = f.dorisPort
	}
	if f.set["doris-user"] {
		c.Doris.User = f.dorisUser
	}
	if f.set["doris-password"] {
		c.Doris.Password = f.dorisPassword
	}
	if f.set["doris-database"] {
		c.Doris.Database = f.dorisDatabase
	}
	if f.set["log-level"] {
		if lv, ok := logLevel(f.logLevel); ok {
			c.LogLevel = lv
		} else {
			errs = append(errs, &fieldError{Field: "--log-level", Err: fmt.Errorf("%q is not DEBUG, INFO, WARNING, ERROR or CRITICAL", f.logLevel)})
		}
	}
	return errs
}

// Validate returns every problem of c at once (errors.Join), naming the
// variable of each. It is fast; it reads only the files the configuration
// names (doris.Config.CheckFiles).
func (c *Config) Validate() error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, &fieldError{Field: field, Err: fmt.Errorf(format, args...)})
	}
	switch c.Transport {
	case "stdio", "http":
	default:
		fail("TRANSPORT", "%q is not stdio or http", c.Transport)
	}
	if c.Port < 0 || c.Port > 65535 {
		fail("SERVER_PORT", "%d is outside 0..65535", c.Port)
	}
	if c.Transport == "http" {
		if _, err := auth.NewHostPolicy(c.Host, c.AllowedHosts, c.AllowedOrigins); err != nil {
			errs = append(errs, err)
		}
		if !auth.IsLoopback(c.Host) && !c.AllowUnauthenticatedNonLoopback && !c.Auth.Enabled() && !c.DorisOAuth.Enabled {
			fail("SERVER_HOST", "binding HTTP to the non-loopback address %q needs authentication: enable ENABLE_TOKEN_AUTH, ENABLE_JWT_AUTH, ENABLE_OAUTH_AUTH or ENABLE_DORIS_OAUTH_AUTH, "+
				"bind to 127.0.0.1 behind an authenticating proxy, or set ALLOW_UNAUTHENTICATED_NON_LOOPBACK=true to accept the risk", c.Host)
		}
	}
	if err := c.Auth.Validate(c.authBind()); err != nil {
		errs = append(errs, err)
	}
	if c.ShutdownGrace < 0 || c.ShutdownGrace > time.Hour {
		fail("SHUTDOWN_GRACE_SECONDS", "%s is outside 0..3600 seconds", c.ShutdownGrace)
	}
	if c.ListPageSize < 1 || c.ListPageSize > 1000 {
		fail("MCP_LIST_PAGE_SIZE", "%d is outside 1..1000", c.ListPageSize)
	}
	if c.HandleSecret != "" {
		if err := checkSecret(c.HandleSecret); err != nil {
			fail("MCP_STATE_HANDLE_SECRET", "%v", err)
		}
	}
	if c.HandleTTL < time.Second || c.HandleTTL > handle.MaxTTL {
		fail("MCP_STATE_HANDLE_TTL_SECONDS", "%s is outside 1..3600 seconds", c.HandleTTL)
	}
	switch c.ExposureMode {
	case "hierarchical", "flat":
	default:
		fail("MCP_TOOL_EXPOSURE_MODE", "%q is not hierarchical or flat", c.ExposureMode)
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"MCP_CHILD_TOOL_ALLOWLIST", c.ChildAllowlist}, {"MCP_CHILD_TOOL_DENYLIST", c.ChildDenylist}} {
		if err := catalog.CheckNames(l.names); err != nil {
			fail(l.field, "%v", err)
		}
	}
	if c.AdminDomain {
		fail("MCP_ADMIN_DOMAIN_ENABLED", "the doris_admin domain is reserved and cannot be enabled")
	}
	if !c.AdminConfirmation {
		fail("MCP_ADMIN_REQUIRE_CONFIRMATION", "confirmation for administrative operations cannot be disabled")
	}
	errs = append(errs, c.Doris.Validate()...)
	// The files the configuration names (the Ossie models, the MetricFlow
	// executable) are read too: a model that does not load is a
	// configuration problem like any other, reported with the rest.
	errs = append(errs, c.Doris.CheckFiles()...)
	errs = append(errs, c.dorisOAuthProblems()...)
	errs = append(errs, c.Telemetry.validate()...)
	return errors.Join(errs...)
}

// checkSecret applies the reference's weak-secret policy (auth.CheckSecret:
// at least 32 bytes, not a <placeholder>, no well-known substring, and at
// least 10 distinct characters).
func checkSecret(s string) error { return auth.CheckSecret(s) }

// authBind is what the authentication configuration needs of the
// transport.
func (c *Config) authBind() auth.Bind {
	return auth.Bind{Transport: c.Transport, Host: c.Host, AllowedHosts: c.AllowedHosts}
}

// listenAddr is the HTTP bind address.
func (c *Config) listenAddr() string {
	return net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}
