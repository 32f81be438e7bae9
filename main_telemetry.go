package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/audit"
	"github.com/doris-mcp/doris-mcp-server/mcp/metrics"
)

// Wiring of GET /metrics and the invocation audit log (README:
// "Metrics, audit log and trace ids").

// newTelemetry builds the metrics registry (call metrics, the pull
// collectors over the Doris runtime, the process) and the audit log.
func newTelemetry(cfg Config, rt *doris.Runtime, log *slog.Logger) *mcp.Telemetry {
	reg := metrics.NewRegistry()
	o := mcp.TelemetryOptions{Registry: reg}
	tc := cfg.Telemetry
	var al *audit.Log
	if tc.AuditPath != "" {
		al = audit.Open(audit.Options{Path: tc.AuditPath, MaxBytes: tc.AuditMaxFileSize, MaxAge: tc.AuditMaxAge,
			Backups: tc.AuditBackupCount, Logger: log})
		o.Audit, o.AuditArguments, o.Redact = al, tc.AuditArguments == "redacted", doris.RedactArguments
	}
	tel := mcp.NewTelemetry(o)
	collectDoris(reg, rt)
	reg.Collect("audit_log", func(w *metrics.Writer) {
		var s audit.Stats
		if al != nil {
			s = al.Stats()
		}
		for _, f := range []struct {
			name, help string
			v          uint64
		}{
			{"doris_mcp_audit_log_lines_total", "Invocation audit log lines written.", s.Lines},
			{"doris_mcp_audit_log_errors_total", "Invocation audit log lines lost because the file could not be opened or written.", s.Errors},
			{"doris_mcp_audit_log_dropped_total", "Invocation audit log lines dropped because the writer fell behind.", s.Dropped},
			{"doris_mcp_audit_log_rotations_total", "Invocation audit log files rotated.", s.Rotations},
		} {
			w.Family(f.name, f.help, "counter")
			w.Sample(f.name, float64(f.v))
		}
	})
	if h, ok := log.Handler().(*asyncHandler); ok {
		sink := h.log
		reg.Collect("log", func(w *metrics.Writer) {
			w.Family("doris_mcp_log_records_dropped_total", "Server log records dropped because the log writer fell behind.", "counter")
			w.Sample("doris_mcp_log_records_dropped_total", float64(sink.droppedTotal.Load()))
		})
	}
	reg.ProcessCollector(processStart, buildInfo())
	return tel
}

// processStart is when this process started (close enough: package
// initialisation).
var processStart = time.Now()

// collectDoris registers the runtime's readings, taken at scrape time:
// pools per kind of route, query slots, capability evidence.
func collectDoris(reg *metrics.Registry, rt *doris.Runtime) {
	probes := metrics.NewLabels("probe", rt.ProbeNames())
	outcomes := metrics.NewLabels("outcome", doris.ProbeOutcomes())
	reg.Collect("doris", func(w *metrics.Writer) {
		pools := rt.PoolStats()
		gauge := func(name, help string, v func(p doris.PoolStats) float64) {
			w.Family(name, help, "gauge")
			for _, p := range pools {
				w.Sample(name, v(p), "route", p.Route)
			}
		}
		gauge("doris_mcp_pools", "Doris connection pools open, by route (default: the service account; own_account: identities' own accounts, summed).",
			func(p doris.PoolStats) float64 { return float64(p.Pools) })
		gauge("doris_mcp_pool_max_connections", "The connection ceiling of the pools, by route.",
			func(p doris.PoolStats) float64 { return float64(p.MaxOpen) })
		w.Family("doris_mcp_pool_connections", "Doris connections open, by route and state (in_use or idle).", "gauge")
		for _, p := range pools {
			w.Sample("doris_mcp_pool_connections", float64(p.InUse), "route", p.Route, "state", "in_use")
			w.Sample("doris_mcp_pool_connections", float64(p.Idle), "route", p.Route, "state", "idle")
		}
		w.Family("doris_mcp_pool_waits_total", "Connections a query had to wait for because its pool was at its ceiling, by route.", "counter")
		for _, p := range pools {
			w.Sample("doris_mcp_pool_waits_total", float64(p.WaitCount), "route", p.Route)
		}
		w.Family("doris_mcp_pool_wait_seconds_total", "Time spent waiting for a connection, by route, in seconds.", "counter")
		for _, p := range pools {
			w.Sample("doris_mcp_pool_wait_seconds_total", p.WaitDuration.Seconds(), "route", p.Route)
		}
		inUse, capacity := rt.QuerySlots()
		w.Family("doris_mcp_query_slots_in_use", "MAX_CONCURRENT_QUERIES slots held by running queries.", "gauge")
		w.Sample("doris_mcp_query_slots_in_use", float64(inUse))
		w.Family("doris_mcp_query_slots", "MAX_CONCURRENT_QUERIES: queries the server runs at once.", "gauge")
		w.Sample("doris_mcp_query_slots", float64(capacity))

		age, ok, ps := rt.CapabilityStats()
		if ok {
			w.Family("doris_mcp_capability_snapshot_age_seconds", "Age of the default route's capability evidence (versions, nodes, mode), in seconds.", "gauge")
			w.Sample("doris_mcp_capability_snapshot_age_seconds", age.Seconds())
		}
		w.Family("doris_mcp_capability_probe", "Capability probe outcomes on the default route: 1 for each probe's current outcome.", "gauge")
		for _, p := range ps {
			w.Sample("doris_mcp_capability_probe", 1, "probe", probes.Value(probes.Index(p.Probe)),
				"outcome", outcomes.Value(outcomes.Index(p.Outcome)))
		}
		w.Family("doris_mcp_capability_probe_age_seconds", "Age of each capability probe's outcome on the default route, in seconds.", "gauge")
		for _, p := range ps {
			w.Sample("doris_mcp_capability_probe_age_seconds", p.Age.Seconds(), "probe", probes.Value(probes.Index(p.Probe)))
		}
	})
}

func buildInfo() metrics.Build {
	b := metrics.Build{Version: moduleVersion(), Revision: "unknown", GoVersion: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				b.Revision = s.Value
			}
		}
	}
	return b
}

// metricsHandler is GET /metrics behind the Host/Origin policy.
func metricsHandler(reg *metrics.Registry, policy *auth.HostPolicy) http.Handler {
	h := reg.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := policy.Check(r); err != nil {
			http.Error(w, "forbidden: Host or Origin not allowed", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// mountMetrics adds GET /metrics to the MCP listener (ENABLE_METRICS).
func mountMetrics(cfg Config, srv *mcp.Server, o *mcp.HTTPOptions) {
	reg := srv.Telemetry().Registry()
	if !cfg.Telemetry.Metrics || reg == nil {
		return
	}
	if o.Mount == nil {
		o.Mount = map[string]http.Handler{}
	}
	o.Mount["GET /metrics"] = metricsHandler(reg, o.Policy)
}

// serveMetricsAddr serves /metrics alone on METRICS_ADDR, with either
// transport, until ctx ends; the returned function stops it.
func serveMetricsAddr(ctx context.Context, cfg Config, srv *mcp.Server, log *slog.Logger) (func(), error) {
	addr := cfg.Telemetry.MetricsAddr
	reg := srv.Telemetry().Registry()
	if addr == "" || reg == nil {
		return func() {}, nil
	}
	host, _, _ := net.SplitHostPort(addr)
	policy, err := auth.NewHostPolicy(host, cfg.AllowedHosts, cfg.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metricsHandler(reg, policy))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn), BaseContext: func(net.Listener) context.Context { return ctx }}
	log.Info("serving metrics", "addr", "http://"+ln.Addr().String()+"/metrics")
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("the metrics listener stopped", "err", err)
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}, nil
}
