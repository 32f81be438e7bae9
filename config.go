package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
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
	ModernOnly     bool     // MCP_MODERN_ONLY: /mcp serves 2026-07-28 only

	ListPageSize int           // MCP_LIST_PAGE_SIZE, 1..1000
	HandleSecret string        // MCP_STATE_HANDLE_SECRET; empty: random per launch
	HandleTTL    time.Duration // MCP_STATE_HANDLE_TTL_SECONDS, 1..3600 s
	// HandlePreviousSecret is MCP_STATE_HANDLE_PREVIOUS_SECRET: the secret
	// before the last rotation. Cursors it signed still open; it never
	// signs. Empty: none.
	HandlePreviousSecret string

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

	// origin is where each setting that was given came from (fromEnv,
	// flagSet.apply), for the messages of Validate.
	origin map[string]origin
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

// fromEnv overlays the environment on c and returns the values it could
// not read, each a *SettingError. It is the one reader of the environment:
// the auth, Doris-backed OAuth and Doris settings are read here too, by
// the rules of settings.go, into the packages' typed configurations.
func (c *Config) fromEnv(env map[string]string) []error {
	l := newLoader(env)
	c.load(l)
	c.origin = l.origin
	return l.errs
}

// load reads every setting through l. Every name is looked up whatever
// the others say, so a load of an empty environment lists every setting
// (knownSettings).
func (c *Config) load(l *loader) {
	l.str("TRANSPORT", &c.Transport)
	l.str("SERVER_HOST", &c.Host)
	l.int("SERVER_PORT", &c.Port)
	l.list("MCP_ALLOWED_HOSTS", &c.AllowedHosts)
	l.list("MCP_ALLOWED_ORIGINS", &c.AllowedOrigins)
	l.bool("ENABLE_LEGACY_HTTP_ADAPTER", &c.LegacyHTTP)
	l.bool("MCP_MODERN_ONLY", &c.ModernOnly)
	l.int("MCP_LIST_PAGE_SIZE", &c.ListPageSize)
	l.secret("MCP_STATE_HANDLE_SECRET", &c.HandleSecret)
	l.secret("MCP_STATE_HANDLE_PREVIOUS_SECRET", &c.HandlePreviousSecret)
	l.seconds("MCP_STATE_HANDLE_TTL_SECONDS", &c.HandleTTL)
	l.str("MCP_TOOL_EXPOSURE_MODE", &c.ExposureMode)
	l.bool("MCP_VALIDATE_RESULTS", &c.ValidateResults)
	l.list("MCP_CHILD_TOOL_ALLOWLIST", &c.ChildAllowlist)
	l.list("MCP_CHILD_TOOL_DENYLIST", &c.ChildDenylist)
	l.bool("MCP_ADMIN_DOMAIN_ENABLED", &c.AdminDomain)
	l.bool("MCP_ADMIN_REQUIRE_CONFIRMATION", &c.AdminConfirmation)
	l.bool("ALLOW_UNAUTHENTICATED_NON_LOOPBACK", &c.AllowUnauthenticatedNonLoopback)
	l.seconds("SHUTDOWN_GRACE_SECONDS", &c.ShutdownGrace)
	if v, ok := l.value("LOG_LEVEL"); ok {
		if lv, good := logLevel(v); good {
			c.LogLevel = lv
		} else {
			l.fail("LOG_LEVEL", v, errLogLevel)
		}
	}
	// WORKERS is the reference's; one process serves every request here.
	l.lookup("WORKERS")

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
	l.document("MASKING_RULES_JSON", &d.MaskingRules)
	l.list("EGRESS_ALLOWED_FUNCTIONS", &d.AllowedFunctions)
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
	l.document("METRICFLOW_PROVIDER_COMMAND_JSON", &mf.CommandJSON)
	l.str("METRICFLOW_PROJECT_DIRECTORY", &mf.ProjectDirectory)
	l.seconds("METRICFLOW_TIMEOUT_SECONDS", &mf.Timeout)
	l.int("METRICFLOW_MAX_OUTPUT_BYTES", &mf.MaxOutputBytes)
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

	c.loadAuth(l)       // config_auth.go
	c.loadDorisOAuth(l) // config_auth.go
	c.Telemetry.load(l) // config_telemetry.go
}

var errLogLevel = errors.New("must be DEBUG, INFO, WARNING, ERROR or CRITICAL")

// knownSettings are the names load looks up: every setting.
var knownSettings = sync.OnceValue(func() map[string]bool {
	l := newLoader(nil)
	c := DefaultConfig()
	c.load(l)
	return l.read
})

// isSetting reports whether name is a setting (a TOKEN_<ID> too).
func isSetting(name string) bool { return knownSettings()[name] || isTokenVar(name) }

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
	f.fs.Usage = func() { shortUsage(f.fs.Output()) } // help.go; --help itself prints printHelp
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
	if c.origin == nil {
		c.origin = map[string]origin{}
	}
	set := func(flag, name string, value any, dst func()) {
		if !f.set[flag] {
			return
		}
		dst()
		o := origin{flag: "--" + flag}
		if name != "DORIS_PASSWORD" {
			o.value = fmt.Sprint(value)
		}
		c.origin[name] = o
	}
	set("transport", "TRANSPORT", f.transport, func() { c.Transport = f.transport })
	set("host", "SERVER_HOST", f.host, func() { c.Host = f.host })
	set("port", "SERVER_PORT", f.port, func() { c.Port = f.port })
	set("doris-host", "DORIS_HOST", f.dorisHost, func() { c.Doris.Host = f.dorisHost })
	set("db-host", "DORIS_HOST", f.dorisHost, func() { c.Doris.Host = f.dorisHost })
	set("doris-port", "DORIS_PORT", f.dorisPort, func() { c.Doris.Port = f.dorisPort })
	set("doris-user", "DORIS_USER", f.dorisUser, func() { c.Doris.User = f.dorisUser })
	set("doris-password", "DORIS_PASSWORD", "", func() { c.Doris.Password = f.dorisPassword })
	set("doris-database", "DORIS_DATABASE", f.dorisDatabase, func() { c.Doris.Database = f.dorisDatabase })
	set("log-level", "LOG_LEVEL", f.logLevel, func() {
		if lv, ok := logLevel(f.logLevel); ok {
			c.LogLevel = lv
		} else {
			errs = append(errs, &SettingError{Name: "LOG_LEVEL", Value: f.logLevel, Flag: "--log-level", Err: errLogLevel})
		}
	})
	return errs
}

// Validate returns every problem of c at once (errors.Join), each a
// *SettingError naming the variable, the value as given and the allowed
// range in the variable's unit. It is fast; it reads only the files the
// configuration names (doris.Config.CheckFiles).
func (c *Config) Validate() error {
	var errs []error
	fail := func(name string, err error) {
		if err != nil {
			errs = append(errs, &SettingError{Name: name, Err: err})
		}
	}
	failf := func(name, format string, args ...any) { fail(name, fmt.Errorf(format, args...)) }
	switch c.Transport {
	case "stdio", "http":
	default:
		failf("TRANSPORT", "must be stdio or http")
	}
	fail("SERVER_PORT", intBetween(int64(c.Port), 0, 65535, ""))
	if c.Transport == "http" {
		if _, err := auth.NewHostPolicy(c.Host, c.AllowedHosts, c.AllowedOrigins); err != nil {
			errs = append(errs, err)
		}
		if !auth.IsLoopback(c.Host) && !c.AllowUnauthenticatedNonLoopback && !c.Auth.Enabled() && !c.DorisOAuth.Enabled {
			failf("SERVER_HOST", "binding HTTP to the non-loopback address %q needs authentication: enable ENABLE_TOKEN_AUTH, ENABLE_JWT_AUTH, ENABLE_OAUTH_AUTH or ENABLE_DORIS_OAUTH_AUTH, "+
				"bind to 127.0.0.1 behind an authenticating proxy, or set ALLOW_UNAUTHENTICATED_NON_LOOPBACK=true to accept the risk", c.Host)
		}
	}
	if err := c.Auth.Validate(c.authBind()); err != nil {
		errs = append(errs, err)
	}
	fail("SHUTDOWN_GRACE_SECONDS", durationBetween(c.ShutdownGrace, 0, time.Hour, seconds))
	fail("MCP_LIST_PAGE_SIZE", intBetween(int64(c.ListPageSize), 1, 1000, ""))
	if c.HandleSecret != "" {
		fail("MCP_STATE_HANDLE_SECRET", checkSecret(c.HandleSecret))
	}
	if c.HandlePreviousSecret != "" {
		if c.HandleSecret == "" {
			failf("MCP_STATE_HANDLE_PREVIOUS_SECRET", "needs MCP_STATE_HANDLE_SECRET: a previous secret only matters while rotating to a new one")
		} else {
			fail("MCP_STATE_HANDLE_PREVIOUS_SECRET", checkSecret(c.HandlePreviousSecret))
		}
	}
	fail("MCP_STATE_HANDLE_TTL_SECONDS", durationBetween(c.HandleTTL, time.Second, handle.MaxTTL, seconds))
	switch c.ExposureMode {
	case "hierarchical", "flat":
	default:
		failf("MCP_TOOL_EXPOSURE_MODE", "must be hierarchical or flat")
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"MCP_CHILD_TOOL_ALLOWLIST", c.ChildAllowlist}, {"MCP_CHILD_TOOL_DENYLIST", c.ChildDenylist}} {
		fail(l.field, catalog.CheckNames(l.names))
	}
	if c.AdminDomain {
		failf("MCP_ADMIN_DOMAIN_ENABLED", "the doris_admin domain is reserved and cannot be enabled")
	}
	if !c.AdminConfirmation {
		failf("MCP_ADMIN_REQUIRE_CONFIRMATION", "confirmation for administrative operations cannot be disabled")
	}
	errs = append(errs, c.Doris.Validate()...)
	// The files the configuration names (the Ossie models, the MetricFlow
	// executable) are read too: a model that does not load is a
	// configuration problem like any other, reported with the rest.
	errs = append(errs, c.Doris.CheckFiles()...)
	errs = append(errs, c.dorisOAuthProblems()...)
	errs = append(errs, c.Telemetry.validate()...)
	return explain(errors.Join(errs...), c.origin, isSetting)
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
