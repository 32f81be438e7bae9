package cluster_test

// doris_cluster end to end on every simulated release: each child answers
// or says exactly why it cannot, and what it answers agrees with what the
// test itself did or computes straight from MariaDB.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// The tests below run with the simulator's audit writer off (noAudit):
// they need no audit trail, and the statements they run (some of them
// 4.0-only) would otherwise join the shared audit log that the query
// tests replay on other releases.

// asRoot is the options of an ADMIN account's environment.
func asRoot(o doristest.EnvOpts) doristest.EnvOpts {
	o.User, o.Password = "root", mariadb.DefaultRootPassword
	return o
}

func TestClusterAvailabilityPerProfile(t *testing.T) {
	for _, p := range doristest.Profiles {
		for _, admin := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/admin=%v", p, admin), func(t *testing.T) {
				o := doristest.EnvOpts{Profile: p, NoAudit: true}
				if admin {
					o = asRoot(o)
				}
				e := doristest.NewEnv(t, o)
				m := e.Discover("doris_cluster")
				if len(m.Raw) > 16<<10 {
					t.Errorf("doris_cluster manifest is %d bytes, budget 16384", len(m.Raw))
				}
				for _, c := range m.Children {
					a := c.Availability
					switch {
					case c.Name == "get_compute_group_status":
						want := "DEPLOYMENT_MODE_NOT_SUPPORTED"
						if p == "2.1" {
							want = "VERSION_RANGE_NOT_MATCHED" // compute groups came with 3.0
						}
						if a.Callable || a.ReasonCode != want {
							t.Errorf("%s: %+v, want %s", c.Name, a, want)
						}
						e.Fail("doris_cluster", c.Name, map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", want)
					case !a.Callable:
						t.Errorf("%s is not callable: %+v", c.Name, a)
					default:
						e.Ok("doris_cluster", c.Name, map[string]any{})
					}
				}
				variant := m.Availability(t, "get_compaction_status").Availability.ActiveVariant
				if want := map[bool]string{true: "compaction_task_tracker", false: "legacy_summary"}[p >= "4.0"]; variant != want {
					t.Errorf("get_compaction_status variant %s, want %s", variant, want)
				}
				// The 4.1 variants (4.1.4 here); 4.0.7 keeps the 4.0.7 ones.
				for child, want := range map[string]map[string]string{
					"list_active_tasks":      {"4.0": "legacy_task_views", "4.1": "unified_task_progress"},
					"get_cache_status":       {"4.0": "file_cache_queue_metrics", "4.1": "advanced_cache_types"},
					"get_monitoring_metrics": {"4.0": "observability_4_0_7", "4.1": "base_metrics"},
				} {
					if w, ok := want[p]; ok {
						if got := m.Availability(t, child).Availability.ActiveVariant; got != w {
							t.Errorf("%s variant %s, want %s", child, got, w)
						}
					}
				}
			})
		}
	}
}

// TestListActiveTasksSeesSlowQuery: a statement another account runs
// appears while it runs, from whichever source the caller may read, and
// is gone after it ends.
func TestListActiveTasksSeesSlowQuery(t *testing.T) {
	for _, p := range doristest.Profiles {
		for _, tc := range []struct {
			name, source string
			admin        bool
			faults       []sim.Fault
		}{
			{"admin", `SHOW PROC "/current_queries"`, true, nil},
			{"reader", "information_schema.active_queries", false, nil},
			{"processlist", "SHOW FULL PROCESSLIST", true, []sim.Fault{
				{Match: "current_queries", ErrCode: 1227, ErrMsg: "errCode = 2, detailMessage = Access denied"},
				{Match: "information_schema.active_queries", ErrCode: 1051, ErrMsg: "errCode = 2, detailMessage = Unknown table 'active_queries'"}}},
		} {
			t.Run(p+"/"+tc.name, func(t *testing.T) {
				o := doristest.EnvOpts{Profile: p, NoAudit: true}
				if tc.admin {
					o = asRoot(o)
				}
				e := doristest.NewEnv(t, o)
				for _, f := range tc.faults {
					e.Sim.Inject(f)
				}
				w := e.SimDB(mariadb.WriterUser, mariadb.WriterPassword)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				done := make(chan struct{})
				go func() {
					defer close(done)
					w.ExecContext(ctx, doristest.SlowQuery)
				}()
				find := func() (map[string]any, doristest.ChildData) {
					var c doristest.CollectionOf
					cd := e.Ok("doris_cluster", "list_active_tasks", map[string]any{}).Decode(t, &c)
					for _, it := range c.Items {
						if it["statement"] == doristest.SlowQuery {
							return it, cd
						}
					}
					return nil, cd
				}
				var task map[string]any
				doristest.Eventually(t, 20*time.Second, func() string {
					if task, _ = find(); task == nil {
						return "the slow query never appeared in list_active_tasks"
					}
					return ""
				})
				if task["task_type"] != "query" || task["state"] != "RUNNING" || task["database"] != "demo" {
					t.Fatalf("task %v, want a RUNNING query in demo", task)
				}
				if tc.source != "information_schema.active_queries" || p >= "4.0" {
					if task["user"] != mariadb.WriterUser {
						t.Fatalf("task user %v, want %s", task["user"], mariadb.WriterUser)
					}
				}
				if ms, _ := task["elapsed_ms"].(float64); ms < 0 {
					t.Fatalf("elapsed_ms %v", task["elapsed_ms"])
				}
				ev := e.Ok("doris_cluster", "list_active_tasks", map[string]any{})
				if ev.Metadata.Source != tc.source {
					t.Fatalf("source %q, want %q", ev.Metadata.Source, tc.source)
				}
				var c doristest.CollectionOf
				e.Ok("doris_cluster", "list_active_tasks", map[string]any{"states": []string{"QUEUED"}}).Decode(t, &c)
				for _, it := range c.Items {
					if it["statement"] == doristest.SlowQuery {
						t.Fatalf("states [QUEUED] lists the running query: %v", it)
					}
				}
				cancel()
				<-done
				doristest.Eventually(t, 20*time.Second, func() string {
					if task, _ := find(); task != nil {
						return "the ended query is still listed"
					}
					return ""
				})
			})
		}
	}
}

// TestResourceGrowthMatchesAuditLog: every bucket of every series equals a
// GROUP BY over the audit log computed here, over exactly the window
// Doris's clock gives, with rows planted at the window's edges.
func TestResourceGrowthMatchesAuditLog(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			// No audit writer: the log holds only what is already there and
			// what this test plants, so the truth cannot move under it.
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
			root := e.RootDB()
			user := fmt.Sprintf("growth_%d", rand.Int64N(1<<40))
			t.Cleanup(func() { root.Exec("DELETE FROM __internal_schema.audit_log WHERE `user` LIKE ?", user+"%") })
			plant := func(offset string, who string) {
				t.Helper()
				_, err := root.Exec("INSERT INTO __internal_schema.audit_log (query_id, `time`, `user`, db, state, stmt, is_query) "+
					"VALUES (?, NOW() - INTERVAL "+offset+", ?, 'demo', 'EOF', 'SELECT 1', 1)", fmt.Sprintf("%x", rand.Int64()), who)
				if err != nil {
					t.Fatal(err)
				}
			}
			for h := 0; h < 80; h += 7 {
				plant(fmt.Sprintf("%d HOUR", h), fmt.Sprintf("%s_%d", user, h%3))
			}
			// Just inside and just outside a 7-day window.
			plant("7 DAY + INTERVAL 20 SECOND", user+"_in")
			plant("7 DAY - INTERVAL 20 SECOND", user+"_out")

			for _, tc := range []struct {
				days int
				gran string
			}{{7, "day"}, {3, "hour"}, {30, "week"}, {7, "hour"}} {
				for _, res := range []struct{ name, value string }{{"query_volume", "COUNT(*)"}, {"user_activity", "COUNT(DISTINCT `user`)"}} {
					var got struct {
						WindowStart string `json:"window_start"`
						WindowEnd   string `json:"window_end"`
						Series      []struct {
							Resource string `json:"resource"`
							Points   []struct {
								Bucket string  `json:"bucket_start"`
								Value  float64 `json:"value"`
							} `json:"points"`
						} `json:"series"`
					}
					e.Ok("doris_cluster", "analyze_resource_growth", map[string]any{"resource": res.name,
						"window_days": tc.days, "granularity": tc.gran}).Decode(t, &got)
					// Exactly window_days, ending at Doris's (MariaDB's) clock.
					start, err1 := time.Parse(time.DateTime, got.WindowStart)
					end, err2 := time.Parse(time.DateTime, got.WindowEnd)
					if err1 != nil || err2 != nil || end.Sub(start) != time.Duration(tc.days)*24*time.Hour {
						t.Fatalf("window %s .. %s is not %d days", got.WindowStart, got.WindowEnd, tc.days)
					}
					var now string
					root.QueryRow("SELECT NOW()").Scan(&now)
					if n, _ := time.Parse(time.DateTime, now); n.Sub(end) < 0 || n.Sub(end) > time.Minute {
						t.Fatalf("window ends %s, MariaDB's clock says %s", got.WindowEnd, now)
					}
					bucket := map[string]string{"hour": "DATE_FORMAT(`time`, '%Y-%m-%d %H:00:00')", "day": "DATE_FORMAT(`time`, '%Y-%m-%d')",
						"week": "DATE_FORMAT(DATE_SUB(`time`, INTERVAL WEEKDAY(`time`) DAY), '%Y-%m-%d')"}[tc.gran]
					rows, err := root.Query("SELECT "+bucket+" AS b, "+res.value+" FROM __internal_schema.audit_log WHERE `time` >= ? AND `time` <= ? GROUP BY b ORDER BY b",
						got.WindowStart, got.WindowEnd)
					if err != nil {
						t.Fatal(err)
					}
					var want []string
					for rows.Next() {
						var b string
						var n int64
						rows.Scan(&b, &n)
						want = append(want, fmt.Sprintf("%s=%d", b, n))
					}
					rows.Close()
					var have []string
					if len(got.Series) == 1 {
						for _, pt := range got.Series[0].Points {
							have = append(have, fmt.Sprintf("%s=%d", pt.Bucket, int64(pt.Value)))
						}
					}
					if strings.Join(have, " ") != strings.Join(want, " ") {
						t.Fatalf("%s %d days by %s:\n got  %v\n want %v", res.name, tc.days, tc.gran, have, want)
					}
				}
			}
			// The window is exact: 7 days keeps the row 20 s inside it and
			// leaves out the one 20 s before it.
			var n int
			if err := root.QueryRow("SELECT COUNT(*) FROM __internal_schema.audit_log WHERE `user` = ? AND `time` >= NOW() - INTERVAL 7 DAY",
				user+"_in").Scan(&n); err != nil || n != 1 {
				t.Fatalf("planted inside row: %d %v", n, err)
			}
			e.Fail("doris_cluster", "analyze_resource_growth", map[string]any{"granularity": "hour", "window_days": 181},
				"CHILD_ARGUMENTS_INVALID", "")
		})
	}
}

func TestWorkloadGroupCreatedIsReported(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, asRoot(doristest.EnvOpts{Profile: p, NoAudit: true}))
			props := map[string]string{"max_concurrency": "7", "max_queue_size": "3", "queue_timeout": "4000"}
			if p >= "4.0" {
				props["max_cpu_percent"], props["min_memory_percent"] = "60%", "10%"
			} else {
				props["cpu_share"], props["memory_limit"] = "640", "15%"
			}
			var kv []string
			for k, v := range props {
				kv = append(kv, fmt.Sprintf("%q=%q", k, v))
			}
			name := fmt.Sprintf("wg_%d", rand.Int64N(1<<30))
			if _, err := e.SimDB("root", mariadb.DefaultRootPassword).Exec("CREATE WORKLOAD GROUP " + name + " PROPERTIES (" + strings.Join(kv, ", ") + ")"); err != nil {
				t.Fatal(err)
			}
			var c doristest.CollectionOf
			e.Ok("doris_cluster", "get_workload_group_status", map[string]any{"name": name, "include_usage": true}).Decode(t, &c)
			if len(c.Items) != 1 || c.Items[0]["name"] != name {
				t.Fatalf("items %v, want %s", c.Items, name)
			}
			got := c.Items[0]["properties"].(map[string]any)
			for k, v := range props {
				if got[k] != v {
					t.Errorf("%s = %v, want %s", k, got[k], v)
				}
			}
			if u := c.Items[0]["usage"].(map[string]any); u["running_query_num"] != float64(0) {
				t.Errorf("usage %v", u)
			}
			// A reader does not see a group it may not use.
			r := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
			cd := r.Ok("doris_cluster", "get_workload_group_status", map[string]any{"name": name}).Decode(t, &c)
			if len(c.Items) != 0 || len(cd.Warnings) == 0 {
				t.Fatalf("reader sees %v (warnings %v)", c.Items, cd.Warnings)
			}
		})
	}
}

func TestComputeGroupStatusCloud(t *testing.T) {
	for _, p := range []string{"3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, asRoot(doristest.EnvOpts{Profile: p, NoAudit: true, Deployment: sim.DeploymentCloud}))
			a := e.Discover("doris_cluster").Availability(t, "get_compute_group_status").Availability
			if !a.Callable || a.ActiveVariant != "compute_group" {
				t.Fatalf("availability %+v", a)
			}
			var c doristest.CollectionOf
			e.Ok("doris_cluster", "get_compute_group_status", map[string]any{"include_nodes": true, "include_usage": true}).Decode(t, &c)
			if len(c.Items) != 1 {
				t.Fatalf("items %v", c.Items)
			}
			g := c.Items[0]
			nodes, _ := g["nodes"].([]any)
			if g["name"] != "compute_cluster" || g["is_current"] != true || g["backend_count"] != float64(1) || g["id"] == nil ||
				len(nodes) != 1 || nodes[0].(map[string]any)["alive"] != true {
				t.Fatalf("compute group %v", g)
			}
			if u := g["usage"].(map[string]any); u["alive_backends"] != float64(1) {
				t.Fatalf("usage %v", u)
			}
			// A reader lists the groups but may not read their members.
			r := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true, Deployment: sim.DeploymentCloud})
			cd := r.Ok("doris_cluster", "get_compute_group_status", map[string]any{"include_nodes": true}).Decode(t, &c)
			if cd.Status != "partial" || len(c.Items) != 1 || c.Items[0]["nodes"] != nil || c.Items[0]["users"] != mariadb.ReaderUser {
				t.Fatalf("reader %s %v", cd.Status, c.Items)
			}
		})
	}
}

// TestCompactionFollowsWrites: five INSERTs into one table make one
// cumulative compaction of five rowsets and the rows the test wrote.
func TestCompactionFollowsWrites(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
			w := e.SimDB(mariadb.WriterUser, mariadb.WriterPassword)
			tbl := fmt.Sprintf("t_cmp_%d", rand.Int64N(1<<40))
			if _, err := w.Exec("CREATE TABLE " + tbl + " (id INT PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { e.RootDB().Exec("DROP TABLE IF EXISTS demo." + tbl) })
			rows := 0
			for i := 0; i < 5; i++ {
				if _, err := w.Exec(fmt.Sprintf("INSERT INTO %s VALUES (%d), (%d), (%d)", tbl, 3*i, 3*i+1, 3*i+2)); err != nil {
					t.Fatal(err)
				}
				rows += 3
			}
			var got struct {
				Source  string           `json:"source"`
				Tasks   []map[string]any `json:"tasks"`
				Summary map[string]any   `json:"summary"`
			}
			if p < "4.0" {
				cd := e.Ok("doris_cluster", "get_compaction_status", map[string]any{"table": tbl}).Decode(t, &got)
				if got.Source != "metrics_summary" || got.Tasks != nil || len(cd.Warnings) == 0 {
					t.Fatalf("%s: %+v %v, want the metrics summary and a warning about the filter", p, got, cd.Warnings)
				}
				doristest.Eventually(t, 20*time.Second, func() string {
					e.Ok("doris_cluster", "get_compaction_status", map[string]any{}).Decode(t, &got)
					node := got.Summary["nodes"].([]any)[0].(map[string]any)
					if d := node["compaction_deltas_total"].(map[string]any)["cumulative"].(float64); d < 5 {
						return fmt.Sprintf("cumulative deltas %v, want at least the 5 rowsets written", d)
					}
					return ""
				})
				return
			}
			e.Ok("doris_cluster", "get_compaction_status", map[string]any{"database": "demo", "table": tbl}).Decode(t, &got)
			if got.Source != "task_tracker" || len(got.Tasks) != 1 {
				t.Fatalf("tasks %+v", got)
			}
			task := got.Tasks[0]
			if task["table"] != tbl || task["database"] != "demo" || task["compaction_type"] != "cumulative" ||
				task["input_rowsets"] != float64(5) || task["input_rows"] != float64(rows) {
				t.Fatalf("task %v, want a cumulative compaction of 5 rowsets and %d rows of demo.%s", task, rows, tbl)
			}
			if got.Summary["total"] != float64(1) {
				t.Fatalf("summary %v", got.Summary)
			}
			var c doristest.CollectionOf
			e.Ok("doris_cluster", "list_active_tasks", map[string]any{"task_types": []string{"compaction"},
				"states": []string{"PENDING", "RUNNING", "FINISHED"}}).Decode(t, &c)
			if !slices.ContainsFunc(c.Items, func(it map[string]any) bool { return it["tablet_id"] == task["tablet_id"] }) {
				t.Fatalf("list_active_tasks lacks the compaction of %s: %v", tbl, c.Items)
			}
		})
	}
}

// TestCacheStatusSources: the file cache figures are the same from
// information_schema and from the BE /metrics fallback, and move as tables
// are read.
func TestCacheStatusSources(t *testing.T) {
	for _, p := range doristest.Profiles {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
			type caches struct {
				Source string `json:"source"`
				Caches []struct {
					Type  string         `json:"cache_type"`
					Stats map[string]any `json:"stats"`
				} `json:"caches"`
				Queues []map[string]any `json:"queues"`
			}
			ratio := func(c caches) any {
				for _, x := range c.Caches {
					if x.Type == "file_cache" {
						return x.Stats["hits_ratio"]
					}
				}
				return nil
			}
			r := e.SimDB(mariadb.ReaderUser, mariadb.ReaderPassword)
			for i := 0; i < 4; i++ { // one miss, three hits
				if _, err := r.Exec("SELECT product_id FROM products"); err != nil {
					t.Fatal(err)
				}
			}
			var fromTable, fromMetrics caches
			e.Ok("doris_cluster", "get_cache_status", map[string]any{"include_queues": true}).Decode(t, &fromTable)
			if fromTable.Source != "information_schema" || ratio(fromTable) != 0.75 || len(fromTable.Queues) == 0 {
				t.Fatalf("from information_schema: %+v", fromTable)
			}
			e.Sim.Inject(sim.Fault{Match: "file_cache_statistics", ErrCode: 1051, ErrMsg: "errCode = 2, detailMessage = Unknown table 'file_cache_statistics'"})
			cd := e.Ok("doris_cluster", "get_cache_status", map[string]any{"include_queues": true}).Decode(t, &fromMetrics)
			if fromMetrics.Source != "be_metrics" || ratio(fromMetrics) != 0.75 || len(cd.Warnings) == 0 {
				t.Fatalf("from BE metrics: %+v %v", fromMetrics, cd.Warnings)
			}
			e.Ok("doris_cluster", "get_cache_status", map[string]any{"scope": "DataPage"}).Decode(t, &fromMetrics)
			if len(fromMetrics.Caches) != 1 || fromMetrics.Caches[0].Type != "DataPageCache" {
				t.Fatalf("scope DataPage: %+v", fromMetrics.Caches)
			}
		})
	}
}

func TestMemoryAndMetricsChildren(t *testing.T) {
	e := doristest.NewEnv(t, asRoot(doristest.EnvOpts{Profile: "4.0", NoAudit: true}))
	var mem struct {
		Nodes []struct {
			Status   string           `json:"status"`
			Used     float64          `json:"used_bytes"`
			Limit    any              `json:"limit_bytes"`
			Trackers []map[string]any `json:"trackers"`
		} `json:"nodes"`
	}
	e.Ok("doris_cluster", "get_memory_stats", map[string]any{"detail": "top_consumers"}).Decode(t, &mem)
	if len(mem.Nodes) != 1 || mem.Nodes[0].Status != "success" || mem.Nodes[0].Used <= 0 || mem.Nodes[0].Limit != nil ||
		len(mem.Nodes[0].Trackers) == 0 || len(mem.Nodes[0].Trackers) > 20 {
		t.Fatalf("memory %+v", mem)
	}
	for i := 1; i < len(mem.Nodes[0].Trackers); i++ {
		if mem.Nodes[0].Trackers[i-1]["bytes"].(float64) < mem.Nodes[0].Trackers[i]["bytes"].(float64) {
			t.Fatalf("top consumers not largest first: %v", mem.Nodes[0].Trackers)
		}
	}

	var m struct {
		Nodes []struct {
			Type    string `json:"node_type"`
			Metrics []struct {
				Name  string `json:"name"`
				Value any    `json:"value"`
			} `json:"metrics"`
		} `json:"nodes"`
	}
	cd := e.Ok("doris_cluster", "get_monitoring_metrics", map[string]any{"window": "1h",
		"metric_names": []string{"doris_fe_query_total", "doris_be_query_scan_rows", "process_cpu_seconds_total"}}).Decode(t, &m)
	if len(m.Nodes) != 2 || len(cd.Warnings) != 2 {
		t.Fatalf("nodes %+v warnings %v, want FE and BE and warnings for window and the unlisted metric", m, cd.Warnings)
	}
	for _, n := range m.Nodes {
		want := map[string]string{"fe": "doris_fe_query_total", "be": "doris_be_query_scan_rows"}[n.Type]
		if len(n.Metrics) != 1 || n.Metrics[0].Name != want {
			t.Fatalf("%s metrics %+v, want only %s", n.Type, n.Metrics, want)
		}
	}
	e.Fail("doris_cluster", "get_monitoring_metrics", map[string]any{"node_ids": []string{"10.9.9.9:8040"}},
		"CHILD_ARGUMENTS_INVALID", "CLUSTER_NODE_NOT_FOUND")

	// list_cluster_nodes attaches each node's own snapshot.
	var nodes doristest.CollectionOf
	e.Ok("doris_cluster", "list_cluster_nodes", map[string]any{"include_metrics": true}).Decode(t, &nodes)
	for _, it := range nodes.Items {
		mm, _ := it["metrics"].(map[string]any)
		if it["node_type"] != "broker" && (mm == nil || mm["status"] != "success") {
			t.Fatalf("%s node without metrics: %v", it["node_type"], it)
		}
	}
}
