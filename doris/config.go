package doris

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/metricflow"
	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// Config is the Doris side of the server: where Doris is, who the global
// service account is, and the ceilings every call runs under.
type Config struct {
	Host     string   // DORIS_HOST
	Hosts    []string // DORIS_HOSTS: ordered failover FEs, host:port, at most 16
	Port     int      // DORIS_PORT
	User     string   // DORIS_USER
	Password string   // DORIS_PASSWORD
	Database string   // DORIS_DATABASE

	FEHTTPHost string   // DORIS_FE_HTTP_HOST; empty reuses Host
	FEHTTPPort int      // DORIS_FE_HTTP_PORT; 0 disables the FE HTTP provider
	BEHosts    []string // DORIS_BE_HOSTS; empty disables BE metrics
	BEWebPort  int      // DORIS_BE_WEBSERVER_PORT

	HTTPConnectTimeout   time.Duration
	HTTPReadTimeout      time.Duration
	HTTPTotalTimeout     time.Duration
	HTTPMaxResponseBytes int

	MaxConnections      int           // DORIS_MAX_CONNECTIONS
	ConnectTimeout      time.Duration // DORIS_CONNECTION_TIMEOUT
	HealthCheckInterval time.Duration // DORIS_HEALTH_CHECK_INTERVAL
	MaxConnectionAge    time.Duration // DORIS_MAX_CONNECTION_AGE

	MaxResultRows          int           // MAX_RESULT_ROWS: deployment ceiling, ≤ 100000
	DefaultResultRows      int           // DEFAULT_RESULT_ROWS: when max_rows is omitted
	MaxResultBytes         int           // MAX_RESULT_BYTES: 256..16 MiB of JSON row data
	QueryTimeout           time.Duration // QUERY_TIMEOUT: ceiling, ≤ 300 s
	MaxConcurrentQueries   int           // MAX_CONCURRENT_QUERIES
	MaxResponseContentSize int           // MAX_RESPONSE_CONTENT_SIZE: profile text characters

	EnableMasking bool   // ENABLE_MASKING: mask personal data in result rows (mask.go)
	MaskingRules  string // MASKING_RULES_JSON: operator masking rules (parseMaskRules)

	CapabilityTTL time.Duration // CAPABILITY_SNAPSHOT_TTL_SECONDS
	ProbeTimeout  time.Duration // CAPABILITY_PROBE_TIMEOUT_SECONDS
	StaleGrace    time.Duration // CAPABILITY_STALE_GRACE_SECONDS

	Ossie      ossie.Config      // OSSIE_*: semantic models for doris_semantic
	MetricFlow metricflow.Config // METRICFLOW_*: the MetricFlow provider of doris_semantic
	Governance GovernanceConfig
	Lakehouse  LakehouseLimits // LAKEHOUSE_*

	// AllowedFunctions is EGRESS_ALLOWED_FUNCTIONS: functions the egress
	// policy refuses by default (guard/egress.go) that the operator
	// allows, in lower case. Empty: every such function is refused.
	AllowedFunctions []string
	ADBC             ADBCConfig // ADBC_*, *_ARROW_FLIGHT_SQL_PORT (config_adbc.go)
}

// EgressSetting is the variable that allows functions the egress policy
// refuses.
const EgressSetting = "EGRESS_ALLOWED_FUNCTIONS"

// GovernanceConfig bounds the doris_governance children.
type GovernanceConfig struct {
	MaxSampleRatio     float64 // GOVERNANCE_MAX_SAMPLE_RATIO: analyze_columns sampling ceiling, (0, 1]
	MaxAuditWindowDays int     // GOVERNANCE_MAX_AUDIT_WINDOW_DAYS: audit history a call may read, 1..365
	MaxLineageEdges    int     // GOVERNANCE_MAX_LINEAGE_EDGES: edges of one trace, 1..5000
	// LineageStoreTable is GOVERNANCE_LINEAGE_STORE_TABLE: db.table or
	// catalog.db.table of native lineage events; empty means none.
	LineageStoreTable string
	// RecentEventMinutes is GOVERNANCE_LINEAGE_RECENT_EVENT_MINUTES: how
	// old the newest lineage event may be for the store to count as live.
	RecentEventMinutes int
}

// LakehouseLimits bound what the doris_lakehouse children read. A caller's
// object_limit or sample_rows above a ceiling is an argument error.
type LakehouseLimits struct {
	MaxCatalogObjects    int // LAKEHOUSE_MAX_CATALOG_OBJECTS: tables in a catalog's object sample, 1..500
	MaxCatalogDatabases  int // LAKEHOUSE_MAX_CATALOG_DATABASES: databases in that sample, 1..100
	MaxSnapshots         int // LAKEHOUSE_MAX_SNAPSHOTS: newest snapshots listed, 1..500
	MaxPartitions        int // LAKEHOUSE_MAX_PARTITIONS: partitions listed, 1..1000
	MaxVariantSampleRows int // LAKEHOUSE_MAX_VARIANT_SAMPLE_ROWS: rows a VARIANT profile reads, 1..500
	MaxVariantPaths      int // LAKEHOUSE_MAX_VARIANT_PATHS: paths a VARIANT profile reports, 1..2000
}

// Absolute ceilings no configuration may exceed.
const (
	AbsMaxResultRows  = 100000
	AbsMaxResultBytes = 16 << 20
	MinResultBytes    = 256
	AbsQueryTimeout   = 300 * time.Second
	// DefaultCallTimeout applies when a call gives no timeout_ms.
	DefaultCallTimeout = 30 * time.Second
)

// DefaultConfig returns the reference server's defaults.
func DefaultConfig() Config {
	return Config{
		Host:                   "localhost",
		Port:                   9030,
		User:                   "root",
		Database:               "information_schema",
		FEHTTPPort:             8030,
		BEWebPort:              8040,
		HTTPConnectTimeout:     3 * time.Second,
		HTTPReadTimeout:        15 * time.Second,
		HTTPTotalTimeout:       30 * time.Second,
		HTTPMaxResponseBytes:   4 << 20,
		MaxConnections:         20,
		ConnectTimeout:         30 * time.Second,
		HealthCheckInterval:    60 * time.Second,
		MaxConnectionAge:       3600 * time.Second,
		MaxResultRows:          10000,
		DefaultResultRows:      100,
		MaxResultBytes:         1 << 20,
		QueryTimeout:           300 * time.Second,
		MaxConcurrentQueries:   50,
		MaxResponseContentSize: 4096,
		EnableMasking:          true,
		CapabilityTTL:          300 * time.Second,
		ProbeTimeout:           5 * time.Second,
		StaleGrace:             900 * time.Second,
		Ossie:                  ossie.DefaultConfig(),
		MetricFlow:             metricflow.DefaultConfig(),
		Governance: GovernanceConfig{MaxSampleRatio: 0.25, MaxAuditWindowDays: 30, MaxLineageEdges: 500,
			RecentEventMinutes: 1440},
		Lakehouse: LakehouseLimits{MaxCatalogObjects: 50, MaxCatalogDatabases: 20, MaxSnapshots: 50, MaxPartitions: 100,
			MaxVariantSampleRows: 20, MaxVariantPaths: 200},
		ADBC: DefaultADBCConfig(),
	}
}

// Validate returns every problem of c, each naming its variable.
func (c *Config) Validate() []error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if strings.TrimSpace(c.Host) == "" && len(c.Hosts) == 0 {
		fail("DORIS_HOST", "is empty")
	}
	if c.Port < 1 || c.Port > 65535 {
		fail("DORIS_PORT", "%d is outside 1..65535", c.Port)
	}
	if len(c.Hosts) > 16 {
		fail("DORIS_HOSTS", "lists %d hosts; at most 16", len(c.Hosts))
	}
	for _, h := range c.Hosts {
		if _, p, err := net.SplitHostPort(h); err != nil || !validPort(p) {
			fail("DORIS_HOSTS", "%q is not host:port", h)
		}
	}
	if c.User == "" {
		fail("DORIS_USER", "is empty")
	}
	for _, f := range c.AllowedFunctions {
		if !guard.ValidFunctionName(f) {
			fail(EgressSetting, "%q is not a function name (letters, digits and _, at most 64)", f)
		}
	}
	if c.FEHTTPPort < 0 || c.FEHTTPPort > 65535 {
		fail("DORIS_FE_HTTP_PORT", "%d is outside 0..65535", c.FEHTTPPort)
	}
	if c.BEWebPort < 1 || c.BEWebPort > 65535 {
		fail("DORIS_BE_WEBSERVER_PORT", "%d is outside 1..65535", c.BEWebPort)
	}
	for _, t := range []struct {
		name string
		d    time.Duration
	}{
		{"DORIS_HTTP_CONNECT_TIMEOUT_SECONDS", c.HTTPConnectTimeout}, {"DORIS_HTTP_READ_TIMEOUT_SECONDS", c.HTTPReadTimeout},
		{"DORIS_HTTP_TOTAL_TIMEOUT_SECONDS", c.HTTPTotalTimeout}, {"DORIS_CONNECTION_TIMEOUT", c.ConnectTimeout},
	} {
		name, d := t.name, t.d
		if d <= 0 || d > 10*time.Minute {
			fail(name, "%s is outside (0, 600] seconds", d)
		}
	}
	if c.HTTPMaxResponseBytes < 1024 || c.HTTPMaxResponseBytes > 64<<20 {
		fail("DORIS_HTTP_MAX_RESPONSE_BYTES", "%d is outside 1024..67108864", c.HTTPMaxResponseBytes)
	}
	if c.MaxConnections < 1 || c.MaxConnections > 1000 {
		fail("DORIS_MAX_CONNECTIONS", "%d is outside 1..1000", c.MaxConnections)
	}
	if c.MaxConnectionAge < time.Second {
		fail("DORIS_MAX_CONNECTION_AGE", "%s is shorter than 1 second", c.MaxConnectionAge)
	}
	if c.HealthCheckInterval < time.Second {
		fail("DORIS_HEALTH_CHECK_INTERVAL", "%s is shorter than 1 second", c.HealthCheckInterval)
	}
	if c.MaxResultRows < 1 || c.MaxResultRows > AbsMaxResultRows {
		fail("MAX_RESULT_ROWS", "%d is outside 1..%d", c.MaxResultRows, AbsMaxResultRows)
	}
	if c.DefaultResultRows < 1 || c.DefaultResultRows > c.MaxResultRows {
		fail("DEFAULT_RESULT_ROWS", "%d is outside 1..MAX_RESULT_ROWS (%d)", c.DefaultResultRows, c.MaxResultRows)
	}
	if c.MaxResultBytes < MinResultBytes || c.MaxResultBytes > AbsMaxResultBytes {
		fail("MAX_RESULT_BYTES", "%d is outside %d..%d", c.MaxResultBytes, MinResultBytes, AbsMaxResultBytes)
	}
	if c.QueryTimeout < time.Second || c.QueryTimeout > AbsQueryTimeout {
		fail("QUERY_TIMEOUT", "%s is outside 1..300 seconds", c.QueryTimeout)
	}
	if c.MaxConcurrentQueries < 1 || c.MaxConcurrentQueries > 10000 {
		fail("MAX_CONCURRENT_QUERIES", "%d is outside 1..10000", c.MaxConcurrentQueries)
	}
	if c.MaxResponseContentSize < 1 || c.MaxResponseContentSize > 1<<20 {
		fail("MAX_RESPONSE_CONTENT_SIZE", "%d is outside 1..1048576", c.MaxResponseContentSize)
	}
	errs = append(errs, c.ADBC.validate(c)...)
	if _, rerrs := parseMaskRules(c.MaskingRules); len(rerrs) > 0 {
		errs = append(errs, rerrs...)
	}
	if c.CapabilityTTL < time.Second || c.CapabilityTTL > 86400*time.Second {
		fail("CAPABILITY_SNAPSHOT_TTL_SECONDS", "%s is outside 1..86400 seconds", c.CapabilityTTL)
	}
	if c.ProbeTimeout < time.Second || c.ProbeTimeout > 60*time.Second {
		fail("CAPABILITY_PROBE_TIMEOUT_SECONDS", "%s is outside 1..60 seconds", c.ProbeTimeout)
	}
	if c.StaleGrace < 0 || c.StaleGrace > 86400*time.Second {
		fail("CAPABILITY_STALE_GRACE_SECONDS", "%s is outside 0..86400 seconds", c.StaleGrace)
	}
	errs = append(errs, c.Ossie.Validate()...)
	errs = append(errs, c.MetricFlow.Validate()...)
	g := c.Governance
	if !(g.MaxSampleRatio > 0 && g.MaxSampleRatio <= 1) {
		fail("GOVERNANCE_MAX_SAMPLE_RATIO", "%v is outside (0, 1]", g.MaxSampleRatio)
	}
	if g.MaxAuditWindowDays < 1 || g.MaxAuditWindowDays > 365 {
		fail("GOVERNANCE_MAX_AUDIT_WINDOW_DAYS", "%d is outside 1..365", g.MaxAuditWindowDays)
	}
	if g.MaxLineageEdges < 1 || g.MaxLineageEdges > 5000 {
		fail("GOVERNANCE_MAX_LINEAGE_EDGES", "%d is outside 1..5000", g.MaxLineageEdges)
	}
	if g.RecentEventMinutes < 1 || g.RecentEventMinutes > 525600 {
		fail("GOVERNANCE_LINEAGE_RECENT_EVENT_MINUTES", "%d is outside 1..525600", g.RecentEventMinutes)
	}
	if g.LineageStoreTable != "" {
		if _, err := LineageStoreParts(g.LineageStoreTable); err != nil {
			fail("GOVERNANCE_LINEAGE_STORE_TABLE", "%q is not db.table or catalog.db.table of plain names", g.LineageStoreTable)
		}
	}
	for _, b := range []struct {
		name   string
		v, max int
	}{
		{"LAKEHOUSE_MAX_CATALOG_OBJECTS", c.Lakehouse.MaxCatalogObjects, 500},
		{"LAKEHOUSE_MAX_CATALOG_DATABASES", c.Lakehouse.MaxCatalogDatabases, 100},
		{"LAKEHOUSE_MAX_SNAPSHOTS", c.Lakehouse.MaxSnapshots, 500},
		{"LAKEHOUSE_MAX_PARTITIONS", c.Lakehouse.MaxPartitions, 1000},
		{"LAKEHOUSE_MAX_VARIANT_SAMPLE_ROWS", c.Lakehouse.MaxVariantSampleRows, 500},
		{"LAKEHOUSE_MAX_VARIANT_PATHS", c.Lakehouse.MaxVariantPaths, 2000},
	} {
		if b.v < 1 || b.v > b.max {
			fail(b.name, "%d is outside 1..%d", b.v, b.max)
		}
	}
	return errs
}

// CheckFiles reads what the configuration names on disk and returns every
// problem, each with its variable and reason code: the Ossie model
// directory, binding manifest and model files (loaded in full), and the
// MetricFlow executable and project directory. Validate stays pure; a
// server must not start when CheckFiles fails, and -check-config reports
// it.
func (c *Config) CheckFiles() []error {
	var errs []error
	if c.Ossie.Enabled && len(c.Ossie.Validate()) == 0 {
		if _, err := ossie.Load(c.Ossie); err != nil {
			errs = append(errs, ossieProblem(err))
		}
	}
	return append(errs, c.MetricFlow.CheckFiles()...)
}

// ossieProblem names the variable an Ossie load failure is about.
func ossieProblem(err error) error {
	field := "OSSIE_MODEL_DIRECTORY"
	if oe, ok := err.(*ossie.Error); ok && strings.HasPrefix(oe.Reason, "OSSIE_BINDING") {
		field = "OSSIE_BINDING_MANIFEST"
	}
	return fmt.Errorf("%s: %w", field, err)
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535
}

// Addrs returns the FE query addresses in failover order: DORIS_HOST
// first, then DORIS_HOSTS, without duplicates.
func (c *Config) Addrs() []string { return c.addrs() }

func (c *Config) addrs() []string {
	var out []string
	add := func(a string) {
		for _, x := range out {
			if x == a {
				return
			}
		}
		out = append(out, a)
	}
	if strings.TrimSpace(c.Host) != "" {
		add(net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	}
	for _, h := range c.Hosts {
		add(h)
	}
	return out
}

// LineageStoreParts splits GOVERNANCE_LINEAGE_STORE_TABLE into 2 or 3
// checked names.
func LineageStoreParts(s string) ([]string, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, errors.New("want db.table or catalog.db.table")
	}
	for _, p := range parts {
		if e := CheckIdent("GOVERNANCE", "lineage store", p); e != nil {
			return nil, e
		}
	}
	return parts, nil
}
