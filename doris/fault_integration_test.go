package doris_test

// Faults injected with the simulator: Doris down at start, connections
// dropped mid-result, a Doris upgrade under a live manifest, probes that
// hang, and the capability cache's TTL, stale grace and failed retry.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// boundChildren are the children this build implements that need no
// optional provider (ADBC and the semantic providers aside), per domain.
var boundChildren = map[string][]string{
	"doris_catalog": {"list_catalogs", "list_databases", "list_tables", "get_table_context", "get_table_size"},
	"doris_query":   {"execute_query", "explain_query", "get_query_profile", "diagnose_query_performance", "list_slow_queries"},
	"doris_cluster": {"get_cluster_overview", "list_cluster_nodes", "list_active_tasks", "get_monitoring_metrics",
		"get_memory_stats", "get_cache_status", "get_compaction_status", "get_workload_group_status",
		"get_compute_group_status", "analyze_resource_growth", "get_runtime_capabilities"},
	"doris_pipeline": {"get_ingestion_status", "diagnose_ingestion", "get_materialized_view_status", "monitor_data_freshness",
		"analyze_data_dependencies"},
	"doris_governance": {"analyze_columns", "analyze_table_storage", "get_lineage_capability_status", "trace_column_lineage",
		"analyze_data_access_patterns", "get_recent_audit_logs", "list_udfs", "get_auth_mapping_status"},
	"doris_search":    {"search_data", "preview_text_analysis", "inspect_search_indexes", "diagnose_search_query"},
	"doris_lakehouse": {"inspect_external_catalog", "inspect_lakehouse_table", "inspect_variant_column"},
}

// cloudOnly are bound children an integrated deployment cannot call.
var cloudOnly = []string{"get_compute_group_status"}

func TestDorisDownAtStartThenUp(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Down: true})
	if err := e.RT.Ping(e.Ctx()); err == nil {
		t.Fatal("ping succeeded with Doris down")
	}
	snap := e.RT.Snapshot(e.Ctx(), e.ID, nil)
	if snap.Unavailable != doris.ReasonConnectionFailed || !strings.Contains(snap.Detail, "not reachable") {
		t.Fatalf("snapshot %+v", snap)
	}
	for domain, children := range boundChildren {
		m := e.Discover(domain)
		for _, c := range m.Children {
			a := c.Availability
			if a.Callable {
				t.Fatalf("%s.%s callable with Doris down", domain, c.Name)
			}
			if slices.Contains(children, c.Name) && (a.Status != "unknown" || a.ReasonCode != doris.ReasonConnectionFailed) {
				t.Fatalf("%s.%s: %+v", domain, c.Name, a)
			}
		}
		for _, child := range children {
			ev := e.Fail(domain, child, doristest.ArgsFor(child), "CHILD_CAPABILITY_UNAVAILABLE", doris.ReasonConnectionFailed)
			if !ev.Error.Retryable || !ev.Error.Details.Rediscover {
				t.Fatalf("%s.%s: %s", domain, child, ev.Raw)
			}
		}
	}
	if err := e.Sim.SetDown(false); err != nil {
		t.Fatal(err)
	}
	// No restart: the next call after the failed-snapshot retry time works.
	start := time.Now()
	doristest.Eventually(t, 5*time.Second, func() string {
		ev := e.Call("doris_query", "execute_query", map[string]any{"sql": "SELECT 1 AS one"})
		if ev.Mode == "result" {
			return ""
		}
		if ev.Error.Details.ReasonCode != doris.ReasonConnectionFailed {
			t.Fatalf("after recovery: %s", ev.Raw)
		}
		return "after recovery: " + string(ev.Raw)
	})
	t.Logf("callable %v after Doris came back", time.Since(start).Round(10*time.Millisecond))
	for domain, children := range boundChildren {
		for _, child := range children {
			if slices.Contains(cloudOnly, child) {
				e.Fail(domain, child, doristest.ArgsFor(child), "CHILD_CAPABILITY_UNAVAILABLE", "DEPLOYMENT_MODE_NOT_SUPPORTED")
				continue
			}
			if reason, ok := readerUnavailable[domain+"."+child]; ok {
				e.Fail(domain, child, doristest.ArgsFor(child), "CHILD_CAPABILITY_UNAVAILABLE", reason)
				continue
			}
			if !needsFixtures[child] {
				e.Ok(domain, child, doristest.ArgsFor(child))
			}
		}
	}
}

// readerUnavailable are bound children the read-only demo account may not
// call, and why: SHOW FRONTEND CONFIG needs ADMIN in Doris.
var readerUnavailable = map[string]string{
	"doris_governance.get_auth_mapping_status": "CAPABILITY_PROBE_PERMISSION_DENIED",
}

// needsFixtures are bound children whose arguments name objects a test
// makes first (lakehouse_integration_test.go), not the harness.
var needsFixtures = map[string]bool{"inspect_lakehouse_table": true, "inspect_variant_column": true}

func TestConnectionDroppedMidResult(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	e.Sim.Inject(sim.Fault{Match: "drop_marker", DropAfterRows: 10, Times: 1})
	defer e.Sim.ClearFaults()
	args := map[string]any{"sql": "SELECT seq, 'drop_marker' AS m FROM seq_1_to_1000", "max_rows": 1000}
	ev := e.Fail("doris_query", "execute_query", args, "CHILD_EXECUTION_FAILED", "QUERY_BACKEND_UNAVAILABLE")
	if !ev.Error.Retryable || ev.Error.Details.StatusCode != 503 {
		t.Fatalf("dropped: %s", ev.Raw)
	}
	q, _, _ := e.Query(args)
	if q.RowCount != 1000 || q.Truncated {
		t.Fatalf("retry: %d rows", q.RowCount)
	}
	// Every pooled connection dropped at once (an FE restart): the next
	// call gets a fresh connection, not an error.
	if err := e.Sim.SetDown(true); err != nil {
		t.Fatal(err)
	}
	if err := e.Sim.SetDown(false); err != nil {
		t.Fatal(err)
	}
	e.Query(map[string]any{"sql": "SELECT 1 AS one"})
	// A connection dropped before the answer: retryable too.
	e.Sim.Inject(sim.Fault{Match: "drop_early", Drop: true, Times: 1})
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 'drop_early' AS m"}, "CHILD_EXECUTION_FAILED", "QUERY_BACKEND_UNAVAILABLE")
	e.Query(map[string]any{"sql": "SELECT 'drop_early' AS m"})
}

func TestVersionChangeMakesManifestStale(t *testing.T) {
	clock := doristest.NewClock()
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "3.0", Now: clock.Now, Config: func(c *doris.Config) { c.CapabilityTTL = time.Second }})
	m1 := e.Discover("doris_query")
	if v := m1.Availability(t, "explain_query").Availability.ActiveVariant; v != "base_explain" {
		t.Fatalf("3.0 variant %s", v)
	}
	ev := e.CallV("doris_query", "explain_query", m1.ManifestVersion, map[string]any{"sql": "SELECT 1"}, nil)
	if ev.Mode != "result" {
		t.Fatalf("same version: %s", ev.Raw)
	}
	if err := e.Sim.SetProfile("4.0"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(1100 * time.Millisecond) // past the capability TTL
	ev = e.CallV("doris_query", "explain_query", m1.ManifestVersion, map[string]any{"sql": "SELECT 1"}, nil)
	if ev.Error.Code != "CHILD_MANIFEST_STALE" || !ev.Error.Retryable || !ev.Error.Details.Rediscover ||
		ev.ManifestVersion == "" || ev.ManifestVersion == m1.ManifestVersion {
		t.Fatalf("after the upgrade: %s", ev.Raw)
	}
	m2 := e.Discover("doris_query")
	a := m2.Availability(t, "explain_query").Availability
	if m2.ManifestVersion != ev.ManifestVersion || a.ActiveVariant != "search_plan_facets" || a.DetectedVersions["master_fe"][0] != "4.0.7" {
		t.Fatalf("rediscovered %s %+v", m2.ManifestVersion, a)
	}
	ev = e.CallV("doris_query", "explain_query", m2.ManifestVersion, map[string]any{"sql": "SELECT 1"}, nil)
	if ev.Mode != "result" || ev.Child(t).Metadata["active_variant"] != "search_plan_facets" {
		t.Fatalf("with the new manifest: %s", ev.Raw)
	}
}

// queryTotal reads the simulator's count of statements received.
func queryTotal(t testing.TB, s *sim.Server) int64 {
	t.Helper()
	resp, err := http.Get("http://" + s.FEAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "doris_fe_query_total "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no doris_fe_query_total in the FE metrics")
	return 0
}

// TestSnapshotConcurrentCallersShareOneRun counts the statements the
// simulator receives: 64 concurrent callers cost what one does.
func TestSnapshotConcurrentCallersShareOneRun(t *testing.T) {
	one := doristest.NewEnv(t, doristest.EnvOpts{})
	before := queryTotal(t, one.Sim)
	ref := one.RT.Snapshot(one.Ctx(), one.ID, nil)
	single := queryTotal(t, one.Sim) - before
	if ref.Unavailable != "" || single < 3 {
		t.Fatalf("single snapshot: %+v, %d statements", ref, single)
	}

	many := doristest.NewEnv(t, doristest.EnvOpts{})
	statements, reset := doristest.GeneralLog(t, many.DB)
	reset()
	before = queryTotal(t, many.Sim)
	const n = 64
	snaps := make([]*doris.Snapshot, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			snaps[i] = many.RT.Snapshot(context.Background(), many.ID, nil)
		}()
	}
	close(start)
	wg.Wait()
	if got := queryTotal(t, many.Sim) - before; got != single {
		t.Fatalf("%d concurrent snapshots sent %d statements; one sends %d", n, got, single)
	}
	for _, s := range snaps {
		if s.Unavailable != "" || !s.TakenAt.Equal(snaps[0].TakenAt) || s.Generation(nil) != snaps[0].Generation(nil) {
			t.Fatalf("snapshots differ: %+v vs %+v", s, snaps[0])
		}
	}
	// Probes too: each runs once however many callers ask for it.
	probes := []string{"catalog.show_catalogs", "catalog.information_schema_tables", "catalog.show_databases"}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			snaps[i] = many.RT.Snapshot(context.Background(), many.ID, probes)
		}()
	}
	wg.Wait()
	for _, s := range snaps {
		for _, p := range probes {
			if s.Probes[p] != doris.ProbeOK {
				t.Fatalf("probe %s: %v", p, s.Probes)
			}
		}
	}
	count := 0
	for _, s := range statements(mariadb.ReaderUser) {
		if strings.Contains(s, "capability_probe FROM information_schema.tables") {
			count++
		}
	}
	if count != 1 {
		t.Fatalf("the information_schema probe ran %d times for %d callers", count, n)
	}
}

// fakeClock is a settable clock for the runtime.
type fakeClock struct{ ns atomic.Int64 }

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.ns.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	return c
}
func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// TestSnapshotTTLStaleGraceAndRetry walks the capability cache through
// its states with a fake clock.
func TestSnapshotTTLStaleGraceAndRetry(t *testing.T) {
	clock := newFakeClock()
	e := doristest.NewEnv(t, doristest.EnvOpts{Now: clock.now, Config: func(c *doris.Config) {
		c.CapabilityTTL, c.StaleGrace = 300*time.Second, 900*time.Second
	}})
	snap := func() *doris.Snapshot { return e.RT.Snapshot(e.Ctx(), e.ID, nil) }
	s0 := snap()
	if p := e.RT.Snapshot(e.Ctx(), e.ID, []string{"catalog.show_catalogs"}); p.Probes["catalog.show_catalogs"] != doris.ProbeOK {
		t.Fatalf("probe %v", p.Probes)
	}
	if s0.Unavailable != "" || s0.Stale || !s0.TakenAt.Equal(clock.now()) {
		t.Fatalf("first %+v", s0)
	}
	// Within the TTL: cached, nothing sent.
	clock.advance(299 * time.Second)
	before := queryTotal(t, e.Sim)
	if s := snap(); !s.TakenAt.Equal(s0.TakenAt) || s.Stale {
		t.Fatalf("cached %+v", s)
	}
	if got := queryTotal(t, e.Sim) - before; got != 0 {
		t.Fatalf("a cached snapshot sent %d statements", got)
	}
	// Past the TTL with Doris down: the old evidence, marked stale, with a
	// generation of its own.
	e.Sim.SetDown(true)
	clock.advance(2 * time.Second)
	s1 := snap()
	if s1.Unavailable != "" || !s1.Stale || !s1.TakenAt.Equal(s0.TakenAt) || s1.Generation(nil) == s0.Generation(nil) {
		t.Fatalf("stale %+v", s1)
	}
	// Stale evidence runs no probes (Doris is not answering): outcomes
	// taken before are kept, the others are pending.
	start := time.Now()
	sp := e.RT.Snapshot(e.Ctx(), e.ID, []string{"catalog.show_catalogs", "catalog.show_databases"})
	if !sp.Stale || sp.Probes["catalog.show_catalogs"] != doris.ProbeOK || sp.Probes["catalog.show_databases"] != doris.ProbeUnknown ||
		time.Since(start) > 200*time.Millisecond {
		t.Fatalf("stale probes %+v after %v", sp.Probes, time.Since(start))
	}
	// Past TTL + grace: unavailable.
	clock.advance(900 * time.Second)
	if s := snap(); s.Unavailable != doris.ReasonConnectionFailed {
		t.Fatalf("past the grace %+v", s)
	}
	// Doris is back, but the failure is served for 2 s (no reconnect storm)...
	e.Sim.SetDown(false)
	clock.advance(time.Second)
	before = queryTotal(t, e.Sim)
	if s := snap(); s.Unavailable != doris.ReasonConnectionFailed {
		t.Fatalf("within the retry time %+v", s)
	}
	if got := queryTotal(t, e.Sim) - before; got != 0 {
		t.Fatalf("retried early: %d statements", got)
	}
	// ... and then taken afresh.
	clock.advance(1500 * time.Millisecond)
	s2 := snap()
	if s2.Unavailable != "" || s2.Stale || !s2.TakenAt.Equal(clock.now()) || s2.Generation(nil) != s0.Generation(nil) {
		t.Fatalf("recovered %+v", s2)
	}
}

// TestSnapshotCallerGivesUp: a caller whose context ends stops waiting
// for a slow capability check at once; the check goes on and serves the
// next caller, and the cancelled caller poisons nothing.
func TestSnapshotCallerGivesUp(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	// The check is held until the test releases it: a caller that returns
	// meanwhile did not wait for it.
	release := make(chan struct{})
	e.Sim.Inject(sim.Fault{Match: "@@version_comment", Hold: release, Times: 1})
	again := make(chan struct{}, 8) // any later capability check
	e.Sim.Inject(sim.Fault{Match: "@@version_comment", Reached: again})
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	got := make(chan *doris.Snapshot, 1)
	go func() { got <- e.RT.Snapshot(ctx, e.ID, nil) }()
	var s *doris.Snapshot
	select {
	case s = <-got:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("the caller whose context ended waited for the held capability check")
	}
	if s.Unavailable != doris.ReasonSnapshotUnavailable {
		t.Fatalf("gave up: %+v", s)
	}
	close(release)
	s = e.RT.Snapshot(context.Background(), e.ID, nil)
	if s.Unavailable != "" || s.Master.String() != "3.0.4" {
		t.Fatalf("the shared run: %+v", s)
	}
	if n := len(again); n > 0 {
		t.Fatalf("the second caller started %d capability checks of its own, want the shared one", n)
	}
}

// TestProbesNeverHang: a probe statement Doris never answers ends at the
// probe timeout with a precise outcome, and discovery goes on.
func TestProbesNeverHang(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.ProbeTimeout = time.Second }})
	e.Sim.Inject(sim.Fault{Match: "SHOW CATALOGS", Latency: time.Minute})
	defer e.Sim.ClearFaults()
	start := time.Now()
	m := e.Discover("doris_catalog")
	if took := time.Since(start); took > 2500*time.Millisecond {
		t.Fatalf("discovery took %v", took)
	}
	a := m.Availability(t, "list_catalogs").Availability
	if a.Callable || a.ReasonCode != "CAPABILITY_PROBE_TIMEOUT" {
		t.Fatalf("list_catalogs %+v", a)
	}
	if a := m.Availability(t, "list_tables").Availability; !a.Callable {
		t.Fatalf("list_tables %+v", a)
	}
	e.Fail("doris_catalog", "list_catalogs", map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", "CAPABILITY_PROBE_TIMEOUT")
}

// TestTransientProbeFailureIsRetried: a probe that failed because Doris
// dropped the connection is not held against the child for the whole
// generation: it runs again after a short while.
func TestTransientProbeFailureIsRetried(t *testing.T) {
	clock := newFakeClock()
	e := doristest.NewEnv(t, doristest.EnvOpts{Now: clock.now})
	e.RT.Snapshot(e.Ctx(), e.ID, nil)
	e.Sim.Inject(sim.Fault{Match: "SHOW CATALOGS", Drop: true, Times: 1})
	probe := []string{"catalog.show_catalogs"}
	if s := e.RT.Snapshot(e.Ctx(), e.ID, probe); s.Probes[probe[0]] != doris.ProbeFailed {
		t.Fatalf("dropped probe %v", s.Probes)
	}
	clock.advance(time.Second)
	if s := e.RT.Snapshot(e.Ctx(), e.ID, probe); s.Probes[probe[0]] != doris.ProbeFailed {
		t.Fatalf("within the retry time %v", s.Probes)
	}
	clock.advance(1500 * time.Millisecond)
	if s := e.RT.Snapshot(e.Ctx(), e.ID, probe); s.Probes[probe[0]] != doris.ProbeOK {
		t.Fatalf("after the retry time %v", s.Probes)
	}
	// A definite outcome (here: not supported) holds for the generation.
	e.Sim.Inject(sim.Fault{Match: "SHOW DATABASES", ErrCode: 1105, ErrMsg: "errCode = 2, detailMessage = Unknown table 'x'", Times: 1})
	probe = []string{"catalog.show_databases"}
	if s := e.RT.Snapshot(e.Ctx(), e.ID, probe); s.Probes[probe[0]] != doris.ProbeNotSupported {
		t.Fatalf("not supported %v", s.Probes)
	}
	clock.advance(60 * time.Second)
	if s := e.RT.Snapshot(e.Ctx(), e.ID, probe); s.Probes[probe[0]] != doris.ProbeNotSupported {
		t.Fatalf("re-run within the generation %v", s.Probes)
	}
}

// TestNoFallbackRoute: an identity bound to a route this server has no
// pool for is refused, never served by the global service account.
func TestNoFallbackRoute(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	e.ID.Route, e.ID.Subject = "user:alice", "alice"
	if s := e.RT.Snapshot(e.Ctx(), e.ID, nil); s.Unavailable != "ROUTE_UNAVAILABLE" {
		t.Fatalf("snapshot %+v", s)
	}
	a := e.Discover("doris_query").Availability(t, "execute_query").Availability
	if a.Callable || a.ReasonCode != "ROUTE_UNAVAILABLE" {
		t.Fatalf("availability %+v", a)
	}
	ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1"}, "CHILD_CAPABILITY_UNAVAILABLE", "ROUTE_UNAVAILABLE")
	if ev.Error.Retryable {
		t.Fatal("no route is not retryable")
	}
	_, err := e.RT.Handler("doris_query", "execute_query")(e.Ctx(), &doris.Call{Identity: e.ID, Args: json.RawMessage(`{"sql":"SELECT 1"}`)})
	var de *doris.Error
	if !errors.As(err, &de) || de.Reason != "ROUTE_UNAVAILABLE" || de.Status != 403 {
		t.Fatalf("handler %v", err)
	}
}
