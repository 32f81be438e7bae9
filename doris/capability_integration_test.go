package doris_test

// Capability detection per simulated Doris release: the same child is
// available, degraded or unavailable as the catalog's version rules say,
// with the reason code, and every probe has a precise outcome.

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

func TestCapabilitiesPerProfile(t *testing.T) {
	for _, tc := range []struct {
		profile, version      string
		explain, tableContext string
		readerSeesFE          bool
		compactionProbe       string
		computeGroupsProbe    string // a reader: 2.1 has no such statement; later ones check ADMIN first
	}{
		{"2.1", "2.1.7", "base_explain", "base_sections", false, doris.ProbeNotSupported, doris.ProbeNotSupported},
		{"3.0", "3.0.4", "base_explain", "base_sections", true, doris.ProbeNotSupported, doris.ProbePermissionDenied},
		{"4.0", "4.0.7", "search_plan_facets", "vector_search_metadata", true, doris.ProbeOK, doris.ProbePermissionDenied},
		{"4.1", "4.1.4", "search_plan_facets", "variant_v3_metadata", true, doris.ProbeOK, doris.ProbePermissionDenied},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: tc.profile})
			q := e.Discover("doris_query")
			for _, child := range boundChildren["doris_query"] {
				a := q.Availability(t, child).Availability
				if !a.Callable || a.Status != "available" || a.ReasonCode != "CAPABILITY_VERIFIED" ||
					!slices.Equal(a.DetectedVersions["master_fe"], []string{tc.version}) {
					t.Fatalf("%s: %+v", child, a)
				}
			}
			if v := q.Availability(t, "explain_query").Availability.ActiveVariant; v != tc.explain {
				t.Fatalf("explain_query variant %s, want %s", v, tc.explain)
			}
			ev := e.Ok("doris_query", "explain_query", map[string]any{"sql": "SELECT 1"})
			if ev.Child(t).Metadata["active_variant"] != tc.explain {
				t.Fatalf("call metadata %v", ev.Child(t).Metadata)
			}
			c := e.Discover("doris_catalog")
			if v := c.Availability(t, "get_table_context").Availability.ActiveVariant; v != tc.tableContext {
				t.Fatalf("get_table_context variant %s, want %s", v, tc.tableContext)
			}
			// ADBC: off until the operator enables it (doris/query's ADBC
			// tests run it with the simulator's Flight SQL endpoints).
			if a := q.Availability(t, "execute_adbc_query").Availability; a.Callable || a.ReasonCode != "PROVIDER_NOT_CONFIGURED" {
				t.Fatalf("adbc %+v", a)
			}

			// Node lists: SHOW FRONTENDS is open to every account from 3.0
			// on; SHOW BACKENDS needs ADMIN. A child judged on every
			// component is degraded when versions must be assumed.
			snap := e.RT.Snapshot(e.Ctx(), e.ID, nil)
			if snap.FEVisible != tc.readerSeesFE || snap.BEVisible || snap.Master.String() != tc.version || snap.Mode != "integrated" {
				t.Fatalf("reader snapshot %+v", snap)
			}
			cl := e.Discover("doris_cluster")
			nodes := cl.Availability(t, "list_cluster_nodes").Availability
			if !nodes.Callable || nodes.Status != "degraded" || nodes.ReasonCode != "CAPABILITY_VERIFIED_DEGRADED" ||
				!strings.Contains(strings.Join(nodes.Limitations, " "), "be versions are not visible") {
				t.Fatalf("reader list_cluster_nodes %+v", nodes)
			}
			var caps struct {
				Versions struct {
					MasterFE  string   `json:"master_fe"`
					Frontends []string `json:"frontends"`
					Backends  []string `json:"backends"`
				} `json:"versions"`
				FEVisible bool              `json:"frontends_visible"`
				BEVisible bool              `json:"backends_visible"`
				Probes    []map[string]any  `json:"probes"`
				Counts    map[string]int    `json:"probe_counts"`
				Cert      map[string]any    `json:"patch_certification"`
				Mode      string            `json:"deployment_mode"`
				Extra     map[string]string `json:"-"`
			}
			e.Ok("doris_cluster", "get_runtime_capabilities", map[string]any{"detail": "full"}).Decode(t, &caps)
			if caps.Versions.MasterFE != tc.version || caps.FEVisible != tc.readerSeesFE || caps.BEVisible ||
				len(caps.Versions.Backends) != 0 || caps.Mode != "integrated" {
				t.Fatalf("runtime capabilities %+v", caps)
			}
			var nl doristest.CollectionOf
			ev = e.Ok("doris_cluster", "list_cluster_nodes", map[string]any{})
			cd := ev.Decode(t, &nl)
			fe := 0
			for _, it := range nl.Items {
				if it["node_type"] == "fe" && it["version"] == tc.version && it["is_master"] == true {
					fe++
				}
			}
			if cd.Status != "partial" || (fe == 1) != tc.readerSeesFE {
				t.Fatalf("reader nodes: %s", ev.Raw)
			}

			// The admin account sees every node: available, not degraded.
			admin := doristest.NewEnv(t, doristest.EnvOpts{Profile: tc.profile, User: "root", Password: e.DB.RootPassword()})
			a := admin.Discover("doris_cluster").Availability(t, "list_cluster_nodes").Availability
			if !a.Callable || a.Status != "available" || !slices.Equal(a.DetectedVersions["be"], []string{tc.version}) {
				t.Fatalf("admin list_cluster_nodes %+v", a)
			}
			ev = admin.Ok("doris_cluster", "list_cluster_nodes", map[string]any{"node_types": []string{"be"}})
			cd = ev.Decode(t, &nl)
			if cd.Status != "success" || len(nl.Items) != 1 || nl.Items[0]["version"] != tc.version || nl.Items[0]["alive"] != true {
				t.Fatalf("admin nodes: %s", ev.Raw)
			}

			// Probe outcomes that differ by release.
			s := e.RT.Snapshot(e.Ctx(), e.ID, []string{"cluster.compaction_tasks", "cluster.compute_groups", "query.profile_api"})
			if s.Probes["cluster.compaction_tasks"] != tc.compactionProbe || s.Probes["cluster.compute_groups"] != tc.computeGroupsProbe ||
				s.Probes["query.profile_api"] != doris.ProbeOK {
				t.Fatalf("probes %v", s.Probes)
			}
		})
	}
}

// TestProviderAndHandlerReasons: a child whose provider is not configured
// is misconfigured; a child this build does not implement is listed with
// HANDLER_NOT_BOUND; neither can be called.
func TestProviderAndHandlerReasons(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{NoFEHTTP: true})
	q := e.Discover("doris_query")
	a := q.Availability(t, "get_query_profile").Availability
	if a.Callable || a.Status != "misconfigured" || a.ReasonCode != "PROVIDER_NOT_CONFIGURED" ||
		!strings.Contains(strings.Join(a.Limitations, " "), "DORIS_FE_HTTP_PORT") {
		t.Fatalf("get_query_profile without FE HTTP %+v", a)
	}
	ev := e.Fail("doris_query", "get_query_profile", map[string]any{"sql": "SELECT 1"}, "CHILD_CAPABILITY_UNAVAILABLE", "PROVIDER_NOT_CONFIGURED")
	if ev.Error.Retryable {
		t.Fatal("a configuration problem is not retryable")
	}
	if a := q.Availability(t, "execute_query").Availability; !a.Callable {
		t.Fatalf("execute_query %+v", a)
	}
	for domain, children := range map[string][]string{
		"doris_cluster":    nil,
		"doris_pipeline":   nil,
		"doris_governance": nil,
		"doris_search":     nil,
		"doris_lakehouse":  nil,
		"doris_semantic":   nil,
	} {
		m := e.Discover(domain)
		for _, c := range m.Children {
			if slices.Contains(boundChildren[domain], c.Name) {
				continue
			}
			if r := c.Availability.ReasonCode; c.Availability.Callable || r != "HANDLER_NOT_BOUND" && r != "PROVIDER_NOT_AVAILABLE" && r != "PROVIDER_NOT_CONFIGURED" {
				t.Fatalf("%s.%s: %+v", domain, c.Name, c.Availability)
			}
		}
		for _, child := range children {
			e.Fail(domain, child, map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", "HANDLER_NOT_BOUND")
		}
	}
}

// TestEveryProbePrecise discovers every domain on every release and
// checks that each probe the catalog asks for has a precise outcome:
// never unknown, never a generic failure, never a hang.
func TestEveryProbePrecise(t *testing.T) {
	domains := []string{"doris_catalog", "doris_query", "doris_cluster", "doris_pipeline", "doris_search",
		"doris_governance", "doris_lakehouse", "doris_semantic"}
	precise := []string{doris.ProbeOK, doris.ProbeNotSupported, doris.ProbePermissionDenied, doris.ProbeNotConfigured}
	for _, p := range []string{"2.1", "3.0", "4.0", "4.1"} {
		for _, user := range []string{mariadb.ReaderUser, "root"} {
			t.Run(p+"/"+user, func(t *testing.T) {
				o := doristest.EnvOpts{Profile: p}
				if user == "root" {
					o.User, o.Password = "root", mariadb.DefaultRootPassword
				}
				e := doristest.NewEnv(t, o)
				start := time.Now()
				for _, d := range domains {
					e.Discover(d)
				}
				if took := time.Since(start); took > e.Cfg.ProbeTimeout {
					t.Fatalf("discovering every domain took %v", took)
				}
				var caps struct {
					Probes []struct {
						ID     string `json:"id"`
						Status string `json:"status"`
					} `json:"probes"`
				}
				raw := e.Ok("doris_cluster", "get_runtime_capabilities", map[string]any{"detail": "full"}).Child(t).Data
				json.Unmarshal(raw, &caps)
				if len(caps.Probes) < 25 {
					t.Fatalf("only %d probes ran: %s", len(caps.Probes), raw)
				}
				var table []string
				for _, pr := range caps.Probes {
					if !slices.Contains(precise, pr.Status) {
						t.Errorf("probe %s: %s", pr.ID, pr.Status)
					}
					table = append(table, pr.ID+"="+pr.Status)
				}
				sort.Strings(table)
				t.Logf("%s as %s: %s", p, user, strings.Join(table, " "))
			})
		}
	}
}
