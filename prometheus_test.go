package main

// GET /metrics of the real binary, checked by real Prometheus: promtool
// check metrics lints the page, and a Prometheus server started here
// scrapes the binary over loopback until its query API returns the
// counters of the calls this test made. Debian's prometheus package
// (./.ci/setup) provides both; under CI=true a missing one fails.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// requirePrometheus returns the path of a Prometheus tool, or skips the
// test loudly (fails it under CI=true).
func requirePrometheus(t *testing.T, tool string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		if underCI() {
			t.Fatalf("CI=true and %s is missing: ./.ci/setup installs Debian's prometheus package", tool)
		}
		t.Skipf("\n*** SKIPPING: %s is not installed.\n*** Install it with ./.ci/setup as root (Debian's prometheus package).", tool)
	}
	return p
}

// binaryWithDoris builds the server and starts it over HTTP in front of a
// simulator on the shared MariaDB.
func binaryWithDoris(t *testing.T, env map[string]string) (*httpServer, *telServer) {
	t.Helper()
	in := mariadb.SharedFor(t)
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: "3.0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	host, port, _ := net.SplitHostPort(s.Addr())
	feHost, fePort, _ := net.SplitHostPort(s.FEAddr())
	all := map[string]string{"DORIS_HOST": host, "DORIS_PORT": port, "DORIS_USER": mariadb.ReaderUser,
		"DORIS_PASSWORD": mariadb.ReaderPassword, "DORIS_DATABASE": mariadb.DemoDatabase,
		"DORIS_FE_HTTP_HOST": feHost, "DORIS_FE_HTTP_PORT": fePort}
	for k, v := range env {
		all[k] = v
	}
	srv := startHTTPServer(t, buildServer(t, "."), all)
	return srv, &telServer{base: srv.base, sim: s, db: in}
}

func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := requirePrometheus(t, "promtool")
	srv, ts := binaryWithDoris(t, nil)
	var w workload
	w.run(t, ts)
	resp, err := http.Get(srv.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(string(page))
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s\n--- the page:\n%s", err, out, page)
	}
	version, _ := exec.Command(promtool, "--version").CombinedOutput()
	if os.Getenv("SHOW_METRICS") != "" {
		t.Logf("%s", page)
	}
	t.Logf("promtool check metrics: no problems in %d bytes (%s)", len(page), strings.SplitN(string(version), "\n", 2)[0])
}

// TestPrometheusScrapesTheBinary: a Prometheus server scrapes the binary's
// METRICS_ADDR every second; its query API must return exactly the calls
// this test made.
func TestPrometheusScrapesTheBinary(t *testing.T) {
	prom := requirePrometheus(t, "prometheus")
	metricsPort := closedPort(t)
	metricsAddr := "127.0.0.1:" + strconv.Itoa(metricsPort)
	_, ts := binaryWithDoris(t, map[string]string{"METRICS_ADDR": metricsAddr})
	var w workload
	w.run(t, ts)

	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: doris-mcp
    static_configs:
      - targets: [%q]
`, metricsAddr)), 0o600)
	webAddr := "127.0.0.1:" + strconv.Itoa(closedPort(t))
	cmd := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+webAddr, "--log.level=warn")
	logs := &tailBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prometheus: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})

	query := func(q string) (float64, bool) {
		resp, err := http.Get("http://" + webAddr + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return 0, false
		}
		defer resp.Body.Close()
		var r struct {
			Status string `json:"status"`
			Data   struct {
				Result []struct {
					Value [2]any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" || len(r.Data.Result) != 1 {
			return 0, false
		}
		s, _ := r.Data.Result[0].Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	}
	checks := []struct {
		q    string
		want int
	}{
		{`up{job="doris-mcp"}`, 1},
		{`doris_mcp_tool_calls_total{child="doris_query.execute_query",outcome="OK"}`, w.ok},
		{`doris_mcp_tool_calls_total{child="doris_query.execute_query",outcome="CHILD_ARGUMENTS_INVALID"}`, w.refused},
		{`doris_mcp_tool_calls_total{child="other",outcome="CHILD_TOOL_NOT_FOUND"}`, w.hostile},
		{`doris_mcp_guard_refusals_total{reason="WRITE_STATEMENT"}`, w.refused},
		{`doris_mcp_tool_discoveries_total{domain="doris_query"}`, w.discoveries},
		{`sum(doris_mcp_requests_total{code="ok"})`, w.calls()},
		{`doris_mcp_tool_call_duration_seconds_count{child="doris_query.execute_query"}`, w.ok + w.refused},
	}
	// Prometheus scrapes on its own schedule: its answers are polled.
	deadline := time.Now().Add(60 * time.Second)
	for _, c := range checks {
		var got float64
		var ok bool
		if !waitFor(time.Until(deadline), 200*time.Millisecond, func() bool {
			select {
			case err := <-exited:
				t.Fatalf("prometheus exited (%v):\n%s", err, logs.String())
			default:
			}
			got, ok = query(c.q)
			return ok && int(got) == c.want
		}) {
			t.Fatalf("Prometheus says %s = %v (answered %v), the test made %d\nprometheus log:\n%s", c.q, got, ok, c.want, logs.String())
		}
	}
}
