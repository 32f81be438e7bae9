package doris

import (
	"fmt"
	"time"
)

// ADBCConfig is ADBC access over Arrow Flight SQL: doris_query's
// get_adbc_connection_info and execute_adbc_query. The names are the
// reference server's.
type ADBCConfig struct {
	// Enabled is ADBC_ENABLED (default false): the operator's opt-in.
	Enabled bool
	// FEPort is FE_ARROW_FLIGHT_SQL_PORT, the FE's arrow_flight_sql_port
	// (0: unset; ADBC is then not configured). The FE host is the one the
	// route's MySQL connections use.
	FEPort int
	// BEPort is BE_ARROW_FLIGHT_SQL_PORT, the BEs' arrow_flight_sql_port
	// on DORIS_BE_HOSTS, reported and probed by get_adbc_connection_info
	// (0: unset). Results are read wherever Doris's endpoints point.
	BEPort int
	// DefaultMaxRows is ADBC_DEFAULT_MAX_ROWS: execute_adbc_query's
	// max_rows when omitted (default 10000, at most MAX_RESULT_ROWS).
	DefaultMaxRows int
	// DefaultTimeout is ADBC_DEFAULT_TIMEOUT (seconds): its timeout when
	// timeout_ms is omitted (default 60, at most QUERY_TIMEOUT).
	DefaultTimeout time.Duration
	// DefaultReturnFormat is ADBC_DEFAULT_RETURN_FORMAT: result_format
	// when omitted, arrow (default), pandas or dict.
	DefaultReturnFormat string
	// ConnectionTimeout is ADBC_CONNECTION_TIMEOUT (seconds, default 30):
	// how long connecting and the Flight SQL handshake may take.
	ConnectionTimeout time.Duration
}

// DefaultADBCConfig returns the reference server's ADBC defaults.
func DefaultADBCConfig() ADBCConfig {
	return ADBCConfig{DefaultMaxRows: 10000, DefaultTimeout: 60 * time.Second, DefaultReturnFormat: "arrow",
		ConnectionTimeout: 30 * time.Second}
}

func (a *ADBCConfig) validate(c *Config) []error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"FE_ARROW_FLIGHT_SQL_PORT", a.FEPort}, {"BE_ARROW_FLIGHT_SQL_PORT", a.BEPort}} {
		if p.v < 0 || p.v > 65535 {
			fail(p.name, "%d is outside 0..65535", p.v)
		}
	}
	switch a.DefaultReturnFormat {
	case "arrow", "pandas", "dict":
	default:
		fail("ADBC_DEFAULT_RETURN_FORMAT", "%q is not arrow, pandas or dict", a.DefaultReturnFormat)
	}
	if a.ConnectionTimeout <= 0 || a.ConnectionTimeout > 10*time.Minute {
		fail("ADBC_CONNECTION_TIMEOUT", "%s is outside (0, 600] seconds", a.ConnectionTimeout)
	}
	if a.DefaultMaxRows < 1 || a.DefaultTimeout < time.Second {
		fail("ADBC_DEFAULT_MAX_ROWS", "ADBC defaults must be at least 1 row and 1 second")
	}
	// ADBC defaults above the query ceilings refuse to start, as in the
	// reference, but only when ADBC is enabled: a deployment that lowers
	// MAX_RESULT_ROWS without ADBC is not broken by a default it never uses.
	if a.Enabled {
		if a.DefaultMaxRows > c.MaxResultRows {
			fail("ADBC_DEFAULT_MAX_ROWS", "%d exceeds MAX_RESULT_ROWS (%d)", a.DefaultMaxRows, c.MaxResultRows)
		}
		if a.DefaultTimeout > c.QueryTimeout {
			fail("ADBC_DEFAULT_TIMEOUT", "%s exceeds QUERY_TIMEOUT (%s)", a.DefaultTimeout, c.QueryTimeout)
		}
	}
	return errs
}
