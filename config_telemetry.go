package main

import (
	"errors"
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

// load reads the telemetry variables.
func (t *TelemetryConfig) load(l *loader) {
	l.bool("ENABLE_METRICS", &t.Metrics)
	l.str("METRICS_ADDR", &t.MetricsAddr)
	l.str("AUDIT_LOG_PATH", &t.AuditPath)
	if l.str("AUDIT_LOG_ARGUMENTS", &t.AuditArguments) {
		t.AuditArguments = strings.ToLower(t.AuditArguments)
	}
	mb := t.AuditMaxFileSize >> 20
	l.int64("AUDIT_LOG_MAX_FILE_SIZE_MB", &mb)
	// Out of range either way, but never shifted into range by overflow.
	t.AuditMaxFileSize = min(max(mb, -1), 1<<42) << 20
	l.duration("AUDIT_LOG_MAX_AGE_HOURS", &t.AuditMaxAge, hours)
	l.int("AUDIT_LOG_BACKUP_COUNT", &t.AuditBackupCount)
}

// validate reports every problem of t.
func (t *TelemetryConfig) validate() []error {
	var errs []error
	fail := func(name string, err error) {
		if err != nil {
			errs = append(errs, &SettingError{Name: name, Err: err})
		}
	}
	if t.MetricsAddr != "" {
		if _, port, err := net.SplitHostPort(t.MetricsAddr); err != nil {
			fail("METRICS_ADDR", errors.New("must be host:port"))
		} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
			fail("METRICS_ADDR", errors.New("must be host:port with a port between 0 and 65535"))
		}
	}
	switch t.AuditArguments {
	case "none", "redacted":
	default:
		fail("AUDIT_LOG_ARGUMENTS", errors.New("must be none or redacted"))
	}
	if t.AuditMaxFileSize < 1<<20 || t.AuditMaxFileSize > 1<<40 {
		fail("AUDIT_LOG_MAX_FILE_SIZE_MB", betweenErr(1, 1<<20, "MB"))
	}
	fail("AUDIT_LOG_MAX_AGE_HOURS", durationBetween(t.AuditMaxAge, time.Hour, 365*24*time.Hour, hours))
	fail("AUDIT_LOG_BACKUP_COUNT", intBetween(int64(t.AuditBackupCount), 1, 1000, ""))
	return errs
}
