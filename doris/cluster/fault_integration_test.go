package cluster_test

// Faults of the FE and BE web servers: a dead BE, an FE /metrics slower
// than its time bound and a body over the size cap each make one node's
// (or one section's) part unavailable with its reason, and the rest of
// the answer still arrives. A held answer is never released before the
// call returns, so a call that returns did not wait for it.

import (
	"net"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// deadAddr is a loopback address nothing listens on.
func deadAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

type metricsNodes struct {
	Nodes []struct {
		ID      string           `json:"node_id"`
		Type    string           `json:"node_type"`
		Status  string           `json:"status"`
		Reason  string           `json:"reason_code"`
		Metrics []map[string]any `json:"metrics"`
	} `json:"nodes"`
}

// byID indexes nodes by id.
func (m metricsNodes) byID() map[string]struct{ status, reason string } {
	out := map[string]struct{ status, reason string }{}
	for _, n := range m.Nodes {
		out[n.ID] = struct{ status, reason string }{n.Status, n.Reason}
	}
	return out
}

func TestDeadBackend(t *testing.T) {
	dead := deadAddr(t)
	e := doristest.NewEnv(t, asRoot(doristest.EnvOpts{Profile: "3.0", NoAudit: true, Config: func(c *doris.Config) {
		c.BEHosts = append(c.BEHosts, dead) // after the live one
	}}))
	live := e.Sim.BEAddr()
	var m metricsNodes
	cd := e.Ok("doris_cluster", "get_monitoring_metrics", map[string]any{}).Decode(t, &m)
	nodes := m.byID()
	if cd.Status != "partial" || nodes[dead].status != "unavailable" || nodes[dead].reason != "CLUSTER_NODE_UNREACHABLE" ||
		nodes[live].status != "success" || nodes[e.Sim.FEAddr()].status != "success" {
		t.Fatalf("metrics %s %+v", cd.Status, nodes)
	}
	cd = e.Ok("doris_cluster", "get_memory_stats", map[string]any{}).Decode(t, &m)
	if nodes = m.byID(); cd.Status != "partial" || nodes[dead].reason != "CLUSTER_NODE_UNREACHABLE" || nodes[live].status != "success" {
		t.Fatalf("memory %s %+v", cd.Status, nodes)
	}
	// Only the dead BE named: every node failed, so the call fails.
	e.Fail("doris_cluster", "get_memory_stats", map[string]any{"node_ids": []string{dead}}, "CHILD_EXECUTION_FAILED", "MEMORY_METRICS_UNAVAILABLE")

	var ov struct {
		Summary  map[string]any `json:"summary"`
		Sections map[string]struct {
			Status string         `json:"status"`
			Reason string         `json:"reason_code"`
			Data   map[string]any `json:"data"`
		} `json:"sections"`
	}
	cd = e.Ok("doris_cluster", "get_cluster_overview", map[string]any{}).Decode(t, &ov)
	if cd.Status != "partial" || ov.Sections["memory"].Status != "partial" || ov.Sections["metrics"].Status != "partial" ||
		ov.Sections["nodes"].Status != "success" || ov.Summary["be_alive"] != float64(1) {
		t.Fatalf("overview %s %+v", cd.Status, ov)
	}
}

func TestSlowFEMetrics(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "4.0", NoAudit: true, Config: func(c *doris.Config) { c.HTTPTotalTimeout = time.Second }})
	e.Discover("doris_cluster") // the FE /metrics probe answers before the fault
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	e.Sim.InjectHTTP(sim.HTTPFault{Server: "fe", Path: "/metrics", Hold: hold})
	var m metricsNodes
	cd := e.Ok("doris_cluster", "get_monitoring_metrics", map[string]any{}).Decode(t, &m)
	nodes := m.byID()
	if cd.Status != "partial" || nodes[e.Sim.FEAddr()].reason != "CLUSTER_METRICS_TIMEOUT" || nodes[e.Sim.BEAddr()].status != "success" {
		t.Fatalf("metrics %s %+v", cd.Status, nodes)
	}
	var ov struct {
		Sections map[string]struct {
			Status string `json:"status"`
		} `json:"sections"`
	}
	cd = e.Ok("doris_cluster", "get_cluster_overview", map[string]any{"include": []string{"metrics", "memory"}}).Decode(t, &ov)
	if ov.Sections["metrics"].Status != "partial" || ov.Sections["memory"].Status != "success" || ov.Sections["nodes"].Status == "" {
		t.Fatalf("overview %+v", ov)
	}
	// The FE alone: nothing answered.
	e.Fail("doris_cluster", "get_monitoring_metrics", map[string]any{"node_ids": []string{e.Sim.FEAddr()}},
		"CHILD_EXECUTION_FAILED", "CLUSTER_METRICS_UNAVAILABLE")
}

func TestMetricsBodyOverCap(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "2.1", NoAudit: true, Config: func(c *doris.Config) { c.HTTPMaxResponseBytes = 64 << 10 }})
	e.Discover("doris_cluster") // the BE /metrics probe answers before the fault
	e.Sim.InjectHTTP(sim.HTTPFault{Server: "be", Path: "/metrics", PadBytes: 128 << 10})
	var m metricsNodes
	cd := e.Ok("doris_cluster", "get_monitoring_metrics", map[string]any{}).Decode(t, &m)
	nodes := m.byID()
	if cd.Status != "partial" || nodes[e.Sim.BEAddr()].reason != "CLUSTER_METRICS_TOO_LARGE" || nodes[e.Sim.FEAddr()].status != "success" {
		t.Fatalf("metrics %s %+v", cd.Status, nodes)
	}
	// The file cache falls back to BE /metrics only when its table fails;
	// here the table answers, so the oversized BE body does not matter.
	e.Ok("doris_cluster", "get_cache_status", map[string]any{})
	e.Fail("doris_cluster", "get_memory_stats", map[string]any{}, "CHILD_EXECUTION_FAILED", "MEMORY_METRICS_UNAVAILABLE")
}

// TestOverviewSections: an optional section that fails is unavailable
// with its reason while the others arrive; the required node section
// failing is the call's error.
func TestOverviewSections(t *testing.T) {
	e := doristest.NewEnv(t, asRoot(doristest.EnvOpts{Profile: "3.0", NoAudit: true}))
	e.Discover("doris_cluster")
	denied := func(match string) sim.Fault {
		return sim.Fault{Match: match, ErrCode: 1227, ErrState: "42000",
			ErrMsg: "errCode = 2, detailMessage = Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation"}
	}
	for _, m := range []string{"current_queries", "active_queries", "processlist"} {
		e.Sim.Inject(denied(m))
	}
	var ov struct {
		Summary  map[string]any `json:"summary"`
		Sections map[string]struct {
			Status string `json:"status"`
			Reason string `json:"reason_code"`
		} `json:"sections"`
	}
	cd := e.Ok("doris_cluster", "get_cluster_overview", map[string]any{}).Decode(t, &ov)
	if cd.Status != "partial" || ov.Sections["tasks"].Status != "unavailable" || ov.Sections["tasks"].Reason != "CLUSTER_PERMISSION_DENIED" {
		t.Fatalf("tasks section %+v (status %s)", ov.Sections["tasks"], cd.Status)
	}
	for _, name := range []string{"nodes", "metrics", "memory", "cache", "compaction"} {
		if ov.Sections[name].Status != "success" {
			t.Fatalf("%s section %+v, want success", name, ov.Sections[name])
		}
	}
	if ov.Summary["fe_total"] != float64(1) || ov.Summary["be_alive"] != float64(1) {
		t.Fatalf("summary %v", ov.Summary)
	}
	e.Sim.ClearFaults()
	for _, m := range []string{"show frontends", "show backends", "show broker"} {
		e.Sim.Inject(denied(m))
	}
	e.Fail("doris_cluster", "get_cluster_overview", map[string]any{"include": []string{"tasks"}},
		"CHILD_EXECUTION_FAILED", "CLUSTER_PERMISSION_DENIED")
}
