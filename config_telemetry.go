package main

import (
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/mcp/audit"
)

// TelemetryConfig is the configuration of GET /metrics and the invocation
// audit log.
type TelemetryConfig struct {
	// Metrics serves GET /metrics on the MCP listener (ENABLE_METRICS,
	// default true; HTTP transport only).
	Metrics bool
	// MetricsAddr is a separate host:port serving only /metrics
	// (METRICS_ADDR; empty: none). It works with either transport.
	MetricsAddr string

	// AuditPath is the invocation audit log (AUDIT_LOG_PATH; empty: off).
	AuditPath string
	// AuditArguments is "none" (argument names only) or "redacted"
	// (AUDIT_LOG_ARGUMENTS).
	AuditArguments string
	// AuditMaxFileSize rotates the log at this size
	// (AUDIT_LOG_MAX_FILE_SIZE_MB, default 100).
	AuditMaxFileSize int64
	// AuditMaxAge rotates the log once its oldest line is this old
	// (AUDIT_LOG_MAX_AGE_HOURS, default 24).
	AuditMaxAge time.Duration
	// AuditBackupCount is how many rotated files are kept
	// (AUDIT_LOG_BACKUP_COUNT, default 10).
	AuditBackupCount int
}

func defaultTelemetryConfig() TelemetryConfig {
	return TelemetryConfig{Metrics: true, AuditArguments: "none", AuditMaxFileSize: audit.DefaultMaxBytes,
		AuditMaxAge: audit.DefaultMaxAge, AuditBackupCount: audit.DefaultBackups}
}

// fromEnv reads the telemetry variables.
func (t *TelemetryConfig) fromEnv(env map[string]string) []error {
	l := &loader{env: env}
	l.bool("ENABLE_METRICS", &t.Metrics)
	l.str("METRICS_ADDR", &t.MetricsAddr)
	l.str("AUDIT_LOG_PATH", &t.AuditPath)
	l.str("AUDIT_LOG_ARGUMENTS", &t.AuditArguments)
	t.AuditArguments = strings.ToLower(t.AuditArguments)
	mb := int(t.AuditMaxFileSize >> 20)
	l.int("AUDIT_LOG_MAX_FILE_SIZE_MB", &mb)
	t.AuditMaxFileSize = int64(mb) << 20
	hours := int(t.AuditMaxAge / time.Hour)
	l.int("AUDIT_LOG_MAX_AGE_HOURS", &hours)
	t.AuditMaxAge = time.Duration(hours) * time.Hour
	l.int("AUDIT_LOG_BACKUP_COUNT", &t.AuditBackupCount)
	return l.errs
}

// validate reports every problem of t.
func (t *TelemetryConfig) validate() []error {
	var errs []error
	fail := func(field, format string, args ...any) {
		l := &loader{}
		l.fail(field, format, args...)
		errs = append(errs, l.errs...)
	}
	if t.MetricsAddr != "" {
		if _, port, err := net.SplitHostPort(t.MetricsAddr); err != nil {
			fail("METRICS_ADDR", "%q is not host:port", t.MetricsAddr)
		} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
			fail("METRICS_ADDR", "%q has no port in 0..65535", t.MetricsAddr)
		}
	}
	switch t.AuditArguments {
	case "none", "redacted":
	default:
		fail("AUDIT_LOG_ARGUMENTS", "%q is not none or redacted", t.AuditArguments)
	}
	if t.AuditMaxFileSize < 1<<20 || t.AuditMaxFileSize > 1<<40 {
		fail("AUDIT_LOG_MAX_FILE_SIZE_MB", "%d is outside 1..1048576", t.AuditMaxFileSize>>20)
	}
	if t.AuditMaxAge < time.Hour || t.AuditMaxAge > 365*24*time.Hour {
		fail("AUDIT_LOG_MAX_AGE_HOURS", "%d is outside 1..8760", int(t.AuditMaxAge/time.Hour))
	}
	if t.AuditBackupCount < 1 || t.AuditBackupCount > 1000 {
		fail("AUDIT_LOG_BACKUP_COUNT", "%d is outside 1..1000", t.AuditBackupCount)
	}
	return errs
}
