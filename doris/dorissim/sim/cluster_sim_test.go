package sim_test

// The simulator's cluster state follows what clients do: statements in
// flight, workload groups created and altered, the backend's caches,
// memory and compaction, and the cloud deployment's compute groups.

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

func startWith(t *testing.T, o sim.Options) (*sim.Server, *mariadb.Instance) {
	t.Helper()
	in := mariadb.SharedFor(t)
	o.Listen, o.FEHTTP, o.BEHTTP = "127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"
	o.Upstream, o.Users, o.Logger = in.Addr(), in.UserMap(), slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := sim.Start(context.Background(), o)
	if err != nil {
		t.Fatalf("start sim: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, in
}

func TestStatementsInFlight(t *testing.T) {
	for _, profile := range []string{"2.1", "3.0", "4.0"} {
		t.Run(profile, func(t *testing.T) {
			s, in := startSim(t, profile)
			rt, rd := root(t, s, in), reader(t, s)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := rd.ExecContext(ctx, slowQuery)
				done <- err
			}()
			// The same statement is listed by all three views while it runs.
			var qid string
			eventually(t, func() string {
				r := mustQuery(t, rt, `SHOW PROC "/current_queries"`)
				for _, row := range r.rows {
					if row[r.col("Statement")].String == slowQuery {
						qid = row[r.col("QueryId")].String
						return ""
					}
				}
				return fmt.Sprintf("slow query not in current_queries: %v", r.rows)
			})
			r := mustQuery(t, rd, "SELECT QUERY_ID, `DATABASE`, QUERY_STATUS FROM information_schema.active_queries WHERE `SQL` = ?", slowQuery)
			if len(r.rows) != 1 || r.rows[0][0].String != qid || r.rows[0][1].String != "demo" || r.rows[0][2].String != "RUNNING" {
				t.Fatalf("active_queries %v, want %s in demo, RUNNING", r.rows, qid)
			}
			r = mustQuery(t, rt, "SHOW FULL PROCESSLIST")
			found := false
			for _, row := range r.rows {
				found = found || row[r.col("QueryId")].String == qid && row[r.col("Info")].String == slowQuery
			}
			if !found {
				t.Fatalf("processlist lacks %s: %v", qid, r.rows)
			}
			// A reader may not run SHOW PROC, as in Doris.
			_, err := query(t, rd, `SHOW PROC "/current_queries"`)
			wantErr(t, err, 1227, "Admin_priv")

			cancel()
			<-done
			eventually(t, func() string {
				r := mustQuery(t, rt, "SELECT COUNT(*) FROM information_schema.active_queries WHERE QUERY_ID = ?", qid)
				if r.rows[0][0].String != "0" {
					return "the ended query is still listed"
				}
				return ""
			})
		})
	}
}

func TestWorkloadGroupDDL(t *testing.T) {
	for _, tc := range []struct {
		profile, exists, missing string
		props                    string
		want                     map[string]string
	}{
		{"3.0", "workload group g_ops already exist", "workload group g_ops does not exist",
			`"cpu_share"="512", "memory_limit"="20%", "max_concurrency"="5"`,
			map[string]string{"cpu_share": "512", "memory_limit": "20%", "max_concurrency": "5", "max_queue_size": "0"}},
		{"4.0", "Compute group default already has workload group g_ops.", "Can not find workload group g_ops in compute group default.",
			`"max_cpu_percent"="40", "max_memory_percent"="30%", "max_concurrency"="5"`,
			map[string]string{"max_cpu_percent": "40%", "max_memory_percent": "30%", "max_concurrency": "5", "min_cpu_percent": "0%"}},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			s, in := startSim(t, tc.profile)
			rt, rd := root(t, s, in), reader(t, s)
			ctx := context.Background()
			if _, err := rt.ExecContext(ctx, "CREATE WORKLOAD GROUP g_ops PROPERTIES ("+tc.props+")"); err != nil {
				t.Fatal(err)
			}
			got := showGroup(t, rt, "g_ops")
			for k, v := range tc.want {
				if got[k] != v {
					t.Fatalf("%s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
			r := mustQuery(t, rt, "SELECT NAME, MAX_CONCURRENCY FROM information_schema.workload_groups WHERE NAME = 'g_ops'")
			if len(r.rows) != 1 || r.rows[0][1].String != "5" {
				t.Fatalf("information_schema.workload_groups %v", r.rows)
			}
			if _, err := rt.ExecContext(ctx, `ALTER WORKLOAD GROUP g_ops PROPERTIES ("max_concurrency"="9")`); err != nil {
				t.Fatal(err)
			}
			if got := showGroup(t, rt, "g_ops"); got["max_concurrency"] != "9" {
				t.Fatalf("after ALTER max_concurrency = %q, want 9", got["max_concurrency"])
			}
			// Only groups a user may use are shown to it.
			if got := showGroup(t, rd, "g_ops"); len(got) != 0 {
				t.Fatalf("a reader sees g_ops: %v", got)
			}
			_, err := rd.ExecContext(ctx, `CREATE WORKLOAD GROUP g2 PROPERTIES ("max_concurrency"="1")`)
			wantErr(t, err, 1227, "Admin_priv")
			_, err = rt.ExecContext(ctx, `CREATE WORKLOAD GROUP g_ops PROPERTIES ("max_concurrency"="1")`)
			wantErr(t, err, 1105, tc.exists)
			_, err = rt.ExecContext(ctx, `CREATE WORKLOAD GROUP g3 PROPERTIES ("no_such_property"="1")`)
			wantErr(t, err, 1105, "Property no_such_property is not supported.")
			_, err = rt.ExecContext(ctx, "DROP WORKLOAD GROUP normal")
			wantErr(t, err, 1105, "normal is not allowed")
			if _, err := rt.ExecContext(ctx, "DROP WORKLOAD GROUP g_ops"); err != nil {
				t.Fatal(err)
			}
			if got := showGroup(t, rt, "g_ops"); len(got) != 0 {
				t.Fatalf("g_ops still shown after DROP: %v", got)
			}
			_, err = rt.ExecContext(ctx, "DROP WORKLOAD GROUP g_ops")
			wantErr(t, err, 1105, tc.missing)
			if _, err := rt.ExecContext(ctx, "DROP WORKLOAD GROUP IF EXISTS g_ops"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// showGroup reads one group's properties from SHOW WORKLOAD GROUPS in
// either shape.
func showGroup(t *testing.T, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, name string) map[string]string {
	t.Helper()
	r := mustQuery(t, db, "SHOW WORKLOAD GROUPS")
	out := map[string]string{}
	for _, row := range r.rows {
		if row[1].String != name {
			continue
		}
		if r.col("Item") >= 0 {
			out[row[2].String] = row[3].String
			continue
		}
		for i, c := range r.cols {
			out[c] = row[i].String
		}
	}
	return out
}

func TestCloudDeployment(t *testing.T) {
	if _, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", Upstream: "127.0.0.1:1",
		Users: map[string]string{"root": ""}, Profile: "2.1", Deployment: sim.DeploymentCloud}); err == nil ||
		!strings.Contains(err.Error(), "3.0 or later") {
		t.Fatalf("cloud on 2.1: %v, want a refusal", err)
	}
	s, in := startWith(t, sim.Options{Profile: "4.0", Deployment: sim.DeploymentCloud})
	rt, rd := root(t, s, in), reader(t, s)
	if v := mustQuery(t, rd, "SELECT @@version_comment").rows[0][0].String; !strings.HasSuffix(v, " (Cloud Mode)") {
		t.Fatalf("version_comment %q", v)
	}
	r := mustQuery(t, rt, "SHOW BACKENDS")
	if tag := r.rows[0][r.col("Tag")].String; !strings.Contains(tag, `"compute_group_name" : "compute_cluster"`) {
		t.Fatalf("Tag %q", tag)
	}
	r = mustQuery(t, rt, "SHOW COMPUTE GROUPS")
	wantCols(t, "compute groups", r.cols, "Name", "IsCurrent", "Users", "BackendNum")
	if len(r.rows) != 1 || r.rows[0][0].String != "compute_cluster" || r.rows[0][1].String != "TRUE" ||
		r.rows[0][3].String != "1" || !strings.Contains(r.rows[0][2].String, "mcp_reader") {
		t.Fatalf("compute groups as root %v", r.rows)
	}
	r = mustQuery(t, rd, "SHOW COMPUTE GROUPS")
	if len(r.rows) != 1 || r.rows[0][2].String != mariadb.ReaderUser {
		t.Fatalf("compute groups as a reader %v (a non-admin sees only itself)", r.rows)
	}
	r = mustQuery(t, rt, "SHOW FULL PROCESSLIST")
	if r.rows[0][r.col("CloudCluster")].String != "compute_cluster" {
		t.Fatalf("CloudCluster %v", r.rows[0])
	}
}

// beMetric reads one series of the BE /metrics body.
func beMetric(t *testing.T, s *sim.Server, series string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + s.BEAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if name, v, ok := strings.Cut(line, " "); ok && name == series {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no series %s in BE /metrics", series)
	return 0
}

func TestBackendActivity(t *testing.T) {
	s, in := startSim(t, "4.0")
	rd := reader(t, s)
	scan := beMetric(t, s, "doris_be_query_scan_rows")
	hits := `doris_be_file_cache_hits_ratio{path="/opt/apache-doris/be/file_cache/"}`
	if v := beMetric(t, s, hits); v != 0 {
		t.Fatalf("hit ratio %v before any read", v)
	}
	// Reads: rows returned are rows scanned; the second read of a table hits the cache.
	mustQuery(t, rd, "SELECT order_id FROM orders LIMIT 700")
	mustQuery(t, rd, "SELECT order_id FROM orders LIMIT 300")
	if got := beMetric(t, s, "doris_be_query_scan_rows") - scan; got != 1000 {
		t.Fatalf("scan rows grew by %v, want 1000", got)
	}
	if v := beMetric(t, s, hits); v != 0.5 {
		t.Fatalf("hit ratio %v after a miss and a hit, want 0.5", v)
	}
	r := mustQuery(t, rd, "SELECT METRIC_VALUE FROM information_schema.file_cache_statistics WHERE METRIC_NAME = 'hits_ratio'")
	if r.rows[0][0].String != "0.5" {
		t.Fatalf("file_cache_statistics hits_ratio %v", r.rows)
	}

	// Writes: five rowsets on one table make a cumulative compaction.
	w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	tbl := fmt.Sprintf("t_compaction_%d", rand.Int64())
	ctx := context.Background()
	if _, err := w.ExecContext(ctx, "CREATE TABLE "+tbl+" (id INT PRIMARY KEY, v INT)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Exec(context.Background(), "DROP TABLE IF EXISTS demo."+tbl) })
	for i := 0; i < 5; i++ {
		if _, err := w.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%d, 1), (%d, 2)", tbl, 2*i, 2*i+1)); err != nil {
			t.Fatal(err)
		}
	}
	r = mustQuery(t, rd, "SELECT t.COMPACTION_TYPE, t.INPUT_ROWSETS_COUNT, t.INPUT_ROW_NUM, n.TABLE_NAME FROM information_schema.be_compaction_tasks t "+
		"JOIN information_schema.metadata_name_ids n ON n.TABLE_ID = t.TABLE_ID WHERE n.TABLE_NAME = ?", tbl)
	if len(r.rows) != 1 || r.rows[0][0].String != "cumulative" || r.rows[0][1].String != "5" || r.rows[0][2].String != "10" {
		t.Fatalf("compaction tasks for %s: %v, want one cumulative of 5 rowsets and 10 rows", tbl, r.rows)
	}
	eventually(t, func() string {
		if v := beMetric(t, s, `doris_be_compaction_deltas_total{type="cumulative"}`); v < 5 {
			return fmt.Sprintf("cumulative deltas %v after the compaction finished", v)
		}
		return ""
	})
}

func TestHTTPFaults(t *testing.T) {
	s, _ := startSim(t, "3.0")
	hold := make(chan struct{})
	s.InjectHTTP(sim.HTTPFault{Server: "fe", Path: "/metrics", Hold: hold, Times: 1})
	s.InjectHTTP(sim.HTTPFault{Server: "be", Path: "/metrics", PadBytes: 1 << 20, Times: 1})
	s.InjectHTTP(sim.HTTPFault{Server: "be", Path: "/api/health", Status: http.StatusServiceUnavailable})
	c := &http.Client{Timeout: 300 * time.Millisecond}
	if _, err := c.Get("http://" + s.FEAddr() + "/metrics"); err == nil {
		t.Fatal("a held FE /metrics answered")
	}
	close(hold)
	resp, err := http.Get("http://" + s.BEAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(b) < 1<<20 || !strings.Contains(string(b), "doris_be_memory_allocated_bytes") {
		t.Fatalf("padded BE /metrics is %d bytes", len(b))
	}
	resp, err = http.Get("http://" + s.BEAddr() + "/api/health")
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("health %v %v", resp, err)
	}
	resp.Body.Close()
	s.ClearHTTPFaults()
	if resp, err = http.Get("http://" + s.FEAddr() + "/metrics"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("FE /metrics after clearing %v %v", resp, err)
	}
	resp.Body.Close()
}
