package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// The doris_pipeline domain against the simulator: every answer is
// compared with what the test itself did (loads, statements, DDL) or with
// MariaDB directly.

var pipelineProfiles = []string{"2.1", "3.0", "4.0", "4.1"}

// writerEnv is a runtime logged in as the writer, which holds LOAD_PRIV
// on demo (SHOW LOAD lists only jobs of tables the account may load).
func writerEnv(t *testing.T, profile string) *doristest.Env {
	t.Helper()
	return doristest.NewEnv(t, doristest.EnvOpts{Profile: profile, User: mariadb.WriterUser, Password: mariadb.WriterPassword})
}

// streamLoad PUTs body to the FE as user, following the 307 to the BE.
func streamLoad(t *testing.T, e *doristest.Env, user, pw, table, body string, headers map[string]string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, "http://"+e.Sim.FEAddr()+"/api/demo/"+table+"/_stream_load", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(user, pw)
	req.Header.Set("Expect", "100-continue")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("stream load answer %s: %v", raw, err)
	}
	return out
}

// eventuallyTrue polls cond until it holds or 20 s pass.
func eventuallyTrue(t *testing.T, what string, cond func() bool) {
	t.Helper()
	doristest.Eventually(t, 20*time.Second, func() string {
		if cond() {
			return ""
		}
		return what + ": not within 20 s"
	})
}

type jobItem struct {
	JobType      string  `json:"job_type"`
	JobID        *string `json:"job_id"`
	Label        *string `json:"label"`
	Database     *string `json:"database"`
	Table        *string `json:"table"`
	State        *string `json:"state"`
	Error        *string `json:"error"`
	ErrorURL     *string `json:"error_url"`
	LoadType     *string `json:"load_type"`
	TotalRows    *int64  `json:"total_rows"`
	LoadedRows   *int64  `json:"loaded_rows"`
	FilteredRows *int64  `json:"filtered_rows"`
	ScannedRows  *int64  `json:"scanned_rows"`
	CreatedAt    *string `json:"created_at"`
}

type jobList struct {
	Items     []jobItem `json:"items"`
	Truncated bool      `json:"truncated"`
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestPipelineIngestionStatus(t *testing.T) {
	for _, profile := range pipelineProfiles {
		t.Run(profile, func(t *testing.T) {
			e := writerEnv(t, profile)
			table := doristest.PipeTable(t, e, "ing", "id INT NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL, ts DATETIME NULL")
			const n = 37
			var csv strings.Builder
			for i := 1; i <= n; i++ {
				fmt.Fprintf(&csv, "%d,name%d,2025-05-06 07:08:09\n", i, i)
			}
			ok := streamLoad(t, e, mariadb.WriterUser, mariadb.WriterPassword, table, csv.String(),
				map[string]string{"label": table + "_ok", "column_separator": ","})
			if ok["Status"] != "Success" {
				t.Fatalf("load: %v", ok)
			}
			bad := streamLoad(t, e, mariadb.WriterUser, mariadb.WriterPassword, table, "x,broken\n",
				map[string]string{"label": table + "_bad", "column_separator": ","})
			if bad["Status"] != "Fail" {
				t.Fatalf("bad load: %v", bad)
			}
			again := streamLoad(t, e, mariadb.WriterUser, mariadb.WriterPassword, table, "99,late,\\N\n",
				map[string]string{"label": table + "_ok", "column_separator": ","})
			if again["Status"] != "Label Already Exists" {
				t.Fatalf("reused label: %v", again)
			}
			doristest.SQLAs(t, e, mariadb.WriterUser, mariadb.WriterPassword,
				"INSERT INTO "+table+" WITH LABEL "+table+"_ins (id, name) VALUES (1000, 'x'), (1001, 'y')")
			var rows int
			if err := e.RootDB().QueryRow("SELECT COUNT(*) FROM demo." + table).Scan(&rows); err != nil || rows != n+2 {
				t.Fatalf("MariaDB holds %d rows (%v), want %d", rows, err, n+2)
			}

			var got jobList
			ev := e.Ok("doris_pipeline", "get_ingestion_status", map[string]any{"database": "demo", "table": table})
			cd := ev.Decode(t, &got)
			byLabel := map[string]jobItem{}
			for _, it := range got.Items {
				byLabel[str(it.Label)] = it
			}
			good := byLabel[table+"_ok"]
			if good.JobType != "stream_load" || str(good.State) != "Success" || good.LoadedRows == nil || *good.LoadedRows != n ||
				*good.TotalRows != n || *good.FilteredRows != 0 || str(good.Table) != table || good.Error != nil || good.CreatedAt == nil {
				t.Fatalf("good load %+v in %s", good, ev.Raw)
			}
			failed := byLabel[table+"_bad"]
			if str(failed.State) != "Fail" || str(failed.Error) != "[DATA_QUALITY_ERROR]too many filtered rows" ||
				failed.ErrorURL == nil || !strings.Contains(*failed.ErrorURL, "/api/_load_error_log?file=") || *failed.FilteredRows != 1 {
				t.Fatalf("failed load %+v", failed)
			}
			// The refused request is not a load: two stream loads only. The
			// INSERT job has no table in SHOW LOAD, so a table filter leaves
			// it out and says so.
			if len(got.Items) != 2 || cd.Status != "success" || !strings.Contains(strings.Join(cd.Warnings, " "), "without a recorded target table") {
				t.Fatalf("items %d, status %s, warnings %v", len(got.Items), cd.Status, cd.Warnings)
			}
			// Without the table filter the INSERT job appears, with its rows.
			ev = e.Ok("doris_pipeline", "get_ingestion_status", map[string]any{"job_types": []string{"batch_load"}})
			ev.Decode(t, &got)
			var ins *jobItem
			for i, it := range got.Items {
				if str(it.Label) == table+"_ins" {
					ins = &got.Items[i]
				}
			}
			if ins == nil || str(ins.State) != "FINISHED" || str(ins.LoadType) != "INSERT" || ins.ScannedRows == nil || *ins.ScannedRows != 2 ||
				str(ins.Database) != "demo" {
				t.Fatalf("insert job %+v in %s", ins, ev.Raw)
			}
			// States filter, case-insensitively; limit.
			ev = e.Ok("doris_pipeline", "get_ingestion_status", map[string]any{"table": table, "states": []string{"FAIL"}})
			ev.Decode(t, &got)
			if len(got.Items) != 1 || str(got.Items[0].Label) != table+"_bad" {
				t.Fatalf("failed only: %s", ev.Raw)
			}
			ev = e.Ok("doris_pipeline", "get_ingestion_status", map[string]any{"job_types": []string{"stream_load"}, "limit": 1})
			cd = ev.Decode(t, &got)
			if len(got.Items) != 1 || !got.Truncated || !ev.Metadata.Truncated {
				t.Fatalf("limit 1: %s", ev.Raw)
			}
			// Continuous loads need 4.1; there the test made none.
			if profile >= "4.1" {
				ev = e.Ok("doris_pipeline", "get_ingestion_status", map[string]any{"job_types": []string{"continuous_load"}})
				ev.Decode(t, &got)
				if len(got.Items) != 0 || len(ev.Warnings) != 0 {
					t.Fatalf("continuous loads on %s: %s", profile, ev.Raw)
				}
			} else {
				e.Fail("doris_pipeline", "get_ingestion_status", map[string]any{"job_types": []string{"continuous_load"}},
					"CHILD_EXECUTION_FAILED", "PIPELINE_JOB_TYPE_NOT_SUPPORTED")
			}
			// Bad input changes nothing and says why.
			e.Fail("doris_pipeline", "get_ingestion_status", map[string]any{"database": "demo`; DROP TABLE x"},
				"CHILD_ARGUMENTS_INVALID", "PIPELINE_IDENTIFIER_INVALID")
			e.Fail("doris_pipeline", "get_ingestion_status", map[string]any{"database": "no_such_db"},
				"CHILD_EXECUTION_FAILED", "PIPELINE_OBJECT_NOT_FOUND")

			// The reader: stream loads are listed, INSERT jobs are not
			// (Doris shows SHOW LOAD jobs only with LOAD_PRIV), with a
			// warning that says so.
			rd := e.As(mariadb.ReaderUser, mariadb.ReaderPassword)
			ev = rd.Ok("doris_pipeline", "get_ingestion_status", map[string]any{"database": "demo"})
			cd = ev.Decode(t, &got)
			seen := map[string]bool{}
			for _, it := range got.Items {
				seen[str(it.Label)] = true
			}
			if !seen[table+"_ok"] || seen[table+"_ins"] || !strings.Contains(strings.Join(cd.Warnings, " "), "LOAD_PRIV") {
				t.Fatalf("reader view: %s", ev.Raw)
			}
		})
	}
}

func TestPipelineFreshness(t *testing.T) {
	for _, profile := range pipelineProfiles {
		t.Run(profile, func(t *testing.T) {
			e := writerEnv(t, profile)
			table := doristest.PipeTable(t, e, "fr", "id INT NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL, ts DATETIME NULL")
			// Event times a while ago.
			if err := e.DB.Exec(context.Background(), "INSERT INTO demo."+table+
				" VALUES (1, 'a', NOW() - INTERVAL 3 HOUR), (2, 'b', NOW() - INTERVAL 95 MINUTE)"); err != nil {
				t.Fatal(err)
			}
			type fresh struct {
				Method   string  `json:"method"`
				Last     *string `json:"last_update_time"`
				Lag      *int64  `json:"lag_seconds"`
				Status   string  `json:"status"`
				Version  *int64  `json:"visible_version"`
				Database string  `json:"database"`
			}
			var f fresh
			e.Ok("doris_pipeline", "monitor_data_freshness", map[string]any{"database": "demo", "table": table, "time_column": "ts",
				"threshold_seconds": 3600}).Decode(t, &f)
			var truth int64
			if err := e.RootDB().QueryRow("SELECT TIMESTAMPDIFF(SECOND, MAX(ts), NOW()) FROM demo." + table).Scan(&truth); err != nil {
				t.Fatal(err)
			}
			if f.Method != "time_column" || f.Lag == nil || *f.Lag < truth-2 || *f.Lag > truth+2 || f.Status != "stale" {
				t.Fatalf("time column freshness %+v, MariaDB lag %d", f, truth)
			}
			e.Ok("doris_pipeline", "monitor_data_freshness", map[string]any{"database": "demo", "table": table, "time_column": "ts",
				"threshold_seconds": 7200}).Decode(t, &f)
			if f.Status != "fresh" {
				t.Fatalf("within a 2 h threshold: %+v", f)
			}
			e.Fail("doris_pipeline", "monitor_data_freshness", map[string]any{"database": "demo", "table": table, "time_column": "nope"},
				"CHILD_EXECUTION_FAILED", "PIPELINE_OBJECT_NOT_FOUND")

			// Without a time column: the last committed load. A stream load
			// through the simulator moves the visible version and its time.
			res := streamLoad(t, e, mariadb.WriterUser, mariadb.WriterPassword, table, "3\tc\t\\N\n", nil)
			if res["Status"] != "Success" {
				t.Fatalf("load %v", res)
			}
			loadedAt := time.Now()
			ev := e.Ok("doris_pipeline", "monitor_data_freshness", map[string]any{"database": "demo", "table": table})
			ev.Decode(t, &f)
			if f.Method != "partition_visible_time" || f.Lag == nil || *f.Lag > int64(time.Since(loadedAt).Seconds())+2 || *f.Lag < 0 ||
				f.Status != "fresh" || f.Version == nil || *f.Version < 2 {
				t.Fatalf("partition freshness %s", ev.Raw)
			}
			e.Fail("doris_pipeline", "monitor_data_freshness", map[string]any{"database": "demo", "table": "no_such_table"},
				"CHILD_EXECUTION_FAILED", "PIPELINE_OBJECT_NOT_FOUND")
		})
	}
}

type mvItem struct {
	Name           string           `json:"name"`
	Kind           string           `json:"kind"`
	State          *string          `json:"state"`
	RefreshState   *string          `json:"refresh_state"`
	RefreshInfo    *string          `json:"refresh_info"`
	Sync           any              `json:"sync_with_base_tables"`
	Properties     map[string]any   `json:"properties"`
	QuerySQL       *string          `json:"query_sql"`
	Jobs           []map[string]any `json:"jobs"`
	RefreshHistory []map[string]any `json:"refresh_history"`
	LastRefresh    map[string]any   `json:"last_refresh"`
	BaseTable      *string          `json:"base_table"`
}

func TestPipelineMaterializedViewStatus(t *testing.T) {
	for _, profile := range pipelineProfiles {
		t.Run(profile, func(t *testing.T) {
			e := writerEnv(t, profile)
			table := doristest.PipeTable(t, e, "mvs", "id INT NOT NULL PRIMARY KEY, grp VARCHAR(8) NOT NULL, amount DECIMAL(10,2) NULL")
			mv := "mv_" + table
			doristest.SQLAs(t, e, mariadb.WriterUser, mariadb.WriterPassword,
				"INSERT INTO "+table+" VALUES (1, 'a', 1.5), (2, 'b', 2.5)",
				"CREATE MATERIALIZED VIEW "+mv+" BUILD IMMEDIATE REFRESH AUTO ON SCHEDULE EVERY 1 HOUR "+
					`PROPERTIES ("grace_period" = "120", "custom.secret_key" = "mvprop_SECRET_7Q") AS SELECT grp, SUM(amount) AS total FROM `+table+" GROUP BY grp",
				"INSERT INTO "+table+" VALUES (3, 'c', 4)",
				"REFRESH MATERIALIZED VIEW "+mv+" COMPLETE",
				"CREATE MATERIALIZED VIEW sync_"+table+" AS SELECT grp, SUM(amount) FROM "+table+" GROUP BY grp")
			var got struct {
				Items []mvItem `json:"items"`
			}
			ev := e.Ok("doris_pipeline", "get_materialized_view_status", map[string]any{"database": "demo", "view": mv,
				"include_refresh_history": true})
			ev.Decode(t, &got)
			if len(got.Items) != 1 {
				t.Fatalf("items: %s", ev.Raw)
			}
			it := got.Items[0]
			if it.Name != mv || it.Kind != "async" || str(it.State) != "NORMAL" || str(it.RefreshState) != "SUCCESS" || it.Sync != true ||
				!strings.HasPrefix(str(it.RefreshInfo), "BUILD IMMEDIATE REFRESH AUTO ON SCHEDULE EVERY 1 HOUR STARTS ") ||
				it.Properties["grace_period"] != "120" || it.Properties["custom.secret_key"] != "***" || len(it.Jobs) != 1 ||
				it.Jobs[0]["execute_type"] != "RECURRING" || !strings.Contains(str(it.QuerySQL), "SUM(amount)") {
				t.Fatalf("mv %+v", it)
			}
			// Two refreshes ran: the build and the complete refresh, newest first.
			if len(it.RefreshHistory) != 2 || it.RefreshHistory[0]["status"] != "SUCCESS" || it.RefreshHistory[0]["refresh_mode"] != "COMPLETE" ||
				it.RefreshHistory[0]["trigger"] != "MANUAL" || it.LastRefresh["task_id"] != it.RefreshHistory[0]["task_id"] ||
				it.RefreshHistory[0]["duration_ms"] == nil {
				t.Fatalf("history %v", it.RefreshHistory)
			}
			var truth int
			e.RootDB().QueryRow("SELECT COUNT(*) FROM demo." + mv).Scan(&truth)
			if truth != 3 {
				t.Fatalf("MV rows %d, want 3", truth)
			}
			// A write makes it stale: sync is false, and a state filter
			// on its refresh state still finds it.
			doristest.SQLAs(t, e, mariadb.WriterUser, mariadb.WriterPassword, "INSERT INTO "+table+" VALUES (4, 'd', 1)")
			ev = e.Ok("doris_pipeline", "get_materialized_view_status", map[string]any{"view": mv, "states": []string{"success"}})
			ev.Decode(t, &got)
			if len(got.Items) != 1 || got.Items[0].Sync != false || got.Items[0].RefreshHistory != nil {
				t.Fatalf("stale mv: %s", ev.Raw)
			}
			// The synchronous MV build job.
			ev = e.Ok("doris_pipeline", "get_materialized_view_status", map[string]any{"view": "sync_" + table})
			ev.Decode(t, &got)
			if len(got.Items) != 1 || got.Items[0].Kind != "sync" || str(got.Items[0].BaseTable) != table || str(got.Items[0].State) != "FINISHED" {
				t.Fatalf("sync mv: %s", ev.Raw)
			}
			if strings.Contains(string(ev.Raw), "SECRET") {
				t.Fatalf("secret in %s", ev.Raw)
			}
		})
	}
}

type depEdge struct {
	Source, Target, Relation string
	EvidenceSource           string `json:"evidence_source"`
	Direction                string
	Hop                      int
}

func TestPipelineDependencies(t *testing.T) {
	for _, profile := range pipelineProfiles {
		t.Run(profile, func(t *testing.T) {
			e := writerEnv(t, profile)
			base := doristest.PipeTable(t, e, "dep", "id INT NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL")
			copyTable := "copy_" + base
			if err := e.DB.Exec(context.Background(), "CREATE TABLE demo."+copyTable+" (id INT, name VARCHAR(16))"); err != nil {
				t.Fatal(err)
			}
			doristest.SQLAs(t, e, mariadb.WriterUser, mariadb.WriterPassword,
				"CREATE VIEW v_"+base+" AS SELECT id, name FROM "+base+" WHERE name <> 'x'",
				"CREATE MATERIALIZED VIEW mv_"+base+" BUILD DEFERRED REFRESH AUTO ON MANUAL AS SELECT COUNT(*) AS n FROM demo."+base,
				"INSERT INTO "+copyTable+" SELECT id, name FROM "+base+" WHERE id > 0 /* FROM not_a_table */")
			want := map[string]string{ // source -> target: evidence
				"internal.demo." + base + "->internal.demo.v_" + base:    "views",
				"internal.demo." + base + "->internal.demo.mv_" + base:   "mv_infos",
				"internal.demo." + base + "->internal.demo." + copyTable: "audit_log",
			}
			var got struct {
				Root            string    `json:"root"`
				EvidenceQuality string    `json:"evidence_quality"`
				Edges           []depEdge `json:"edges"`
				Truncated       bool      `json:"truncated"`
			}
			eventuallyTrue(t, "the INSERT ... SELECT reaches the audit log", func() bool {
				ev := e.Ok("doris_pipeline", "analyze_data_dependencies", map[string]any{"object": "demo." + base, "direction": "downstream"})
				ev.Decode(t, &got)
				n := 0
				for _, ed := range got.Edges {
					if w, ok := want[ed.Source+"->"+ed.Target]; ok && ed.EvidenceSource == w && ed.Direction == "downstream" && ed.Hop == 1 {
						n++
					}
				}
				return n == len(want)
			})
			if got.Root != "internal.demo."+base || got.EvidenceQuality != "inferred" {
				t.Fatalf("%+v", got)
			}
			for _, ed := range got.Edges {
				if strings.Contains(ed.Source, "not_a_table") {
					t.Fatalf("a comment became an edge: %+v", ed)
				}
			}
			// Upstream of the view is the base table; depth 1 stops there.
			var up struct {
				Edges []depEdge `json:"edges"`
			}
			e.Ok("doris_pipeline", "analyze_data_dependencies", map[string]any{"object": "v_" + base, "database": "demo",
				"direction": "upstream", "depth": 1}).Decode(t, &up)
			if len(up.Edges) != 1 || up.Edges[0].Source != "internal.demo."+base || up.Edges[0].Relation != "view" {
				t.Fatalf("upstream of the view: %+v", up)
			}
			e.Fail("doris_pipeline", "analyze_data_dependencies", map[string]any{"object": "a.b.c.d"},
				"CHILD_ARGUMENTS_INVALID", "PIPELINE_OBJECT_INVALID")
		})
	}
}

// diagEnv starts a simulator that also knows the account pipe_ops, which
// may load demo but not read the audit log.
func diagEnv(t *testing.T, config func(*doris.Config)) *doristest.Env {
	t.Helper()
	doristest.NewAccount(t, mariadb.SharedFor(t), "pipe_ops", "opspw",
		"SELECT, INSERT, UPDATE, DELETE, SHOW VIEW ON demo.*", "SELECT ON `__doris_sim`.*")
	return doristest.NewEnv(t, doristest.EnvOpts{User: "pipe_ops", Password: "opspw", Users: map[string]string{"pipe_ops": "opspw"}, Config: config})
}

type ingestionDiagnosis struct {
	RuleVersion string `json:"rule_version"`
	Target      struct {
		JobID    *string `json:"job_id"`
		Database string  `json:"database"`
		Table    *string `json:"table"`
	} `json:"target"`
	Findings []struct {
		Code, Severity, Message string
	} `json:"findings"`
	Sections map[string]struct {
		Status     string         `json:"status"`
		ReasonCode string         `json:"reason_code"`
		Data       map[string]any `json:"data"`
	} `json:"sections"`
	Summary map[string]any `json:"summary"`
}

func (d ingestionDiagnosis) has(code string) bool {
	for _, f := range d.Findings {
		if f.Code == code {
			return true
		}
	}
	return false
}

func TestPipelineDiagnoseIngestion(t *testing.T) {
	for _, profile := range pipelineProfiles {
		t.Run(profile, func(t *testing.T) {
			e := writerEnv(t, profile)
			table := doristest.PipeTable(t, e, "diag", "id INT NOT NULL PRIMARY KEY, name VARCHAR(16) NOT NULL")
			res := streamLoad(t, e, mariadb.WriterUser, mariadb.WriterPassword, table, "1,a\n2\n", map[string]string{
				"label": table + "_l1", "column_separator": ","})
			if res["Status"] != "Fail" {
				t.Fatalf("%v", res)
			}
			doristest.SQLAs(t, e, mariadb.WriterUser, mariadb.WriterPassword, "INSERT INTO "+table+" WITH LABEL "+table+"_l2 VALUES (5, 'e')")
			var d ingestionDiagnosis
			eventuallyTrue(t, "the INSERT reaches the audit log", func() bool {
				ev := e.Ok("doris_pipeline", "diagnose_ingestion", map[string]any{"database": "demo", "table": table,
					"window_minutes": 5, "include_dependencies": true})
				ev.Decode(t, &d)
				stmts, _ := d.Sections["audit"].Data["statements"].([]any)
				return len(stmts) == 1
			})
			if d.RuleVersion != "ingestion-diagnosis-v1" || !d.has("INGESTION_JOB_FAILED") || d.has("TARGET_TABLE_STALE") {
				t.Fatalf("findings %+v", d.Findings)
			}
			for _, s := range []string{"ingestion", "freshness", "dependencies", "audit"} {
				if d.Sections[s].Status != "success" {
					t.Fatalf("section %s: %+v", s, d.Sections[s])
				}
			}
			stmt := d.Sections["audit"].Data["statements"].([]any)[0].(map[string]any)
			if stmt["operation"] != "insert" || stmt["target"] != "internal.demo."+table || strings.Contains(fmt.Sprint(stmt["statement"]), "'e'") {
				t.Fatalf("audit statement %v", stmt)
			}
			// By label: the failed stream load, and its table found from it.
			ev := e.Ok("doris_pipeline", "diagnose_ingestion", map[string]any{"job_id": table + "_l1", "database": "demo"})
			ev.Decode(t, &d)
			if str(d.Target.Table) != table || d.Summary["matched_jobs"] != float64(1) || d.Summary["failed_jobs"] != float64(1) {
				t.Fatalf("by label: %s", ev.Raw)
			}
			e.Fail("doris_pipeline", "diagnose_ingestion", map[string]any{"database": "demo"}, "CHILD_ARGUMENTS_INVALID", "")
		})
	}
}

// TestPipelineDiagnoseOptionalSectionFails: an account that may not read
// the audit log, and an audit log slower than the section's bound, each
// leave that section unavailable with the reason; the rest still answers.
func TestPipelineDiagnoseOptionalSectionFails(t *testing.T) {
	e := diagEnv(t, func(c *doris.Config) { c.QueryTimeout = 2 * time.Second })
	table := doristest.PipeTable(t, e, "diagf", "id INT NOT NULL PRIMARY KEY")
	res := streamLoad(t, e, "pipe_ops", "opspw", table, "1\n2\n", nil)
	if res["Status"] != "Success" {
		t.Fatalf("%v", res)
	}
	var d ingestionDiagnosis
	ev := e.Ok("doris_pipeline", "diagnose_ingestion", map[string]any{"database": "demo", "table": table})
	cd := ev.Decode(t, &d)
	if d.Sections["audit"].Status != "unavailable" || d.Sections["audit"].ReasonCode != "PIPELINE_PERMISSION_DENIED" ||
		d.Sections["ingestion"].Status != "success" || d.Sections["freshness"].Status != "success" || cd.Status != "partial" ||
		d.Summary["matched_jobs"] != float64(1) {
		t.Fatalf("audit denied: %s", ev.Raw)
	}
	// A slow audit log: the section runs out of its own time.
	e2 := writerEnv(t, "3.0")
	e2.Cfg.QueryTimeout = 2 * time.Second
	e2.Open()
	e2.Sim.Inject(sim.Fault{Match: "audit_log", Latency: 6 * time.Second})
	start := time.Now()
	ev = e2.Ok("doris_pipeline", "diagnose_ingestion", map[string]any{"database": "demo", "table": table})
	took := time.Since(start)
	ev.Decode(t, &d)
	if d.Sections["audit"].Status != "unavailable" || d.Sections["audit"].ReasonCode != "SECTION_TIMEOUT" ||
		d.Sections["ingestion"].Status != "success" {
		t.Fatalf("slow audit: %s", ev.Raw)
	}
	t.Logf("the diagnosis with a section past its 2 s bound answered in %v", took)
}

// TestPipelineSecretsNeverLeave plants secrets in audit statements, a view
// definition, an MV query and a failed load, then searches every byte of
// every pipeline answer for them.
func TestPipelineSecretsNeverLeave(t *testing.T) {
	e := writerEnv(t, "4.0")
	table := doristest.PipeTable(t, e, "sec", "id INT NOT NULL PRIMARY KEY, note VARCHAR(64) NULL")
	secrets := []string{"pw_SECRET_A1", "sk_live_SECRET_B2", "tok_SECRET_C3", "mvq_SECRET_D4", "ak_SECRET_E5"}
	doristest.SQLAs(t, e, mariadb.WriterUser, mariadb.WriterPassword,
		"INSERT INTO "+table+" VALUES (1, 'sk_live_SECRET_B2')",
		"INSERT INTO "+table+" SELECT id + 10, note FROM "+table+" WHERE note = 'sk_live_SECRET_B2' /* password=pw_SECRET_A1 */",
		"CREATE VIEW v_"+table+" AS SELECT id FROM "+table+" WHERE note <> 'tok_SECRET_C3'",
		"CREATE MATERIALIZED VIEW mv_"+table+` BUILD IMMEDIATE REFRESH AUTO ON MANUAL PROPERTIES ("s3.access_key" = "ak_SECRET_E5") AS SELECT id FROM `+
			table+" WHERE note <> 'mvq_SECRET_D4'")
	root := doristest.Direct(t, e.Sim.Addr(), "root", e.DB.RootPassword(), "demo")
	root.Exec("CREATE USER IF NOT EXISTS 'sec_probe'@'%' IDENTIFIED BY 'pw_SECRET_A1'")
	t.Cleanup(func() { e.DB.Exec(context.Background(), "DROP USER IF EXISTS 'sec_probe'@'%'") })
	streamLoad(t, e, mariadb.WriterUser, mariadb.WriterPassword, table, "x,tok_SECRET_C3\n", map[string]string{"column_separator": ","})
	eventuallyTrue(t, "the planted statements reach the audit log", func() bool {
		var n int
		e.RootDB().QueryRow("SELECT COUNT(*) FROM __internal_schema.audit_log WHERE stmt LIKE '%" + table + "%SECRET%'").Scan(&n)
		return n >= 3
	})
	calls := []struct {
		child string
		args  map[string]any
	}{
		{"get_ingestion_status", map[string]any{"database": "demo"}},
		{"get_ingestion_status", map[string]any{"database": "demo", "table": table}},
		{"diagnose_ingestion", map[string]any{"database": "demo", "table": table, "include_dependencies": true, "window_minutes": 30}},
		{"get_materialized_view_status", map[string]any{"database": "demo", "include_refresh_history": true}},
		{"monitor_data_freshness", map[string]any{"database": "demo", "table": table}},
		{"analyze_data_dependencies", map[string]any{"object": "demo." + table}},
		{"analyze_data_dependencies", map[string]any{"object": "mv_" + table, "database": "demo", "depth": 5}},
	}
	for _, c := range calls {
		ev := e.Ok("doris_pipeline", c.child, c.args)
		for _, s := range secrets {
			if strings.Contains(string(ev.Raw), s) || strings.Contains(strings.ToLower(string(ev.Raw)), strings.ToLower(s)) {
				t.Fatalf("%s(%v) leaks %s:\n%s", c.child, c.args, s, ev.Raw)
			}
		}
	}
	// The evidence is still there, only redacted.
	var d ingestionDiagnosis
	e.Ok("doris_pipeline", "diagnose_ingestion", map[string]any{"database": "demo", "table": table, "window_minutes": 30}).Decode(t, &d)
	stmts, _ := d.Sections["audit"].Data["statements"].([]any)
	if len(stmts) < 2 || !strings.Contains(fmt.Sprint(stmts), "'***'") {
		t.Fatalf("redacted statements %v", stmts)
	}
}

// TestPipelineDemoFirstTry runs the demo's ingestion history and asks each
// pipeline child what a DBA would ask first, as the demo's read-only
// account: every answer finds something true.
func TestPipelineDemoFirstTry(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "3.0"})
	t.Cleanup(func() {
		e.DB.Exec(context.Background(), "DROP TABLE IF EXISTS demo.mv_event_counts", "DROP TABLE IF EXISTS demo.web_events")
	})
	if err := e.Sim.LoadDemoPipeline(context.Background(), mariadb.WriterUser); err != nil {
		t.Fatal(err)
	}
	var jobs jobList
	ev := e.Ok("doris_pipeline", "get_ingestion_status", map[string]any{})
	ev.Decode(t, &jobs)
	states := map[string]int{}
	for _, it := range jobs.Items {
		if it.JobType == "stream_load" && str(it.Table) == "web_events" {
			states[str(it.State)]++
		}
	}
	if states["Success"] != 2 || states["Fail"] != 1 {
		t.Fatalf("demo loads %v: %s", states, ev.Raw)
	}
	t.Logf("get_ingestion_status {} -> %s", ev.Data)

	var d ingestionDiagnosis
	e.Ok("doris_pipeline", "diagnose_ingestion", map[string]any{"database": "demo", "table": "web_events"}).Decode(t, &d)
	if !d.has("INGESTION_JOB_FAILED") || !d.has("INGESTION_ROWS_FILTERED") || d.Sections["freshness"].Data["status"] != "fresh" {
		t.Fatalf("demo diagnosis %+v", d)
	}
	var mvs struct {
		Items []mvItem `json:"items"`
	}
	e.Ok("doris_pipeline", "get_materialized_view_status", map[string]any{}).Decode(t, &mvs)
	if len(mvs.Items) != 1 || mvs.Items[0].Name != "mv_event_counts" || mvs.Items[0].Sync != false {
		t.Fatalf("demo MVs %+v", mvs.Items)
	}
	var f struct {
		Method, Status string
	}
	ev = e.Ok("doris_pipeline", "monitor_data_freshness", map[string]any{"database": "demo", "table": "web_events"})
	ev.Decode(t, &f)
	if f.Method != "partition_visible_time" || f.Status != "fresh" {
		t.Fatalf("demo freshness %+v", f)
	}
	t.Logf("monitor_data_freshness {database: demo, table: web_events} -> %s", ev.Data)
	eventuallyTrue(t, "the backfill reaches the audit log", func() bool {
		var g struct {
			Edges []depEdge `json:"edges"`
		}
		ev = e.Ok("doris_pipeline", "analyze_data_dependencies", map[string]any{"object": "web_events"})
		ev.Decode(t, &g)
		found := map[string]bool{}
		for _, ed := range g.Edges {
			found[ed.Source+"->"+ed.Target] = true
		}
		return found["internal.demo.orders->internal.demo.web_events"] && found["internal.demo.web_events->internal.demo.mv_event_counts"]
	})
	t.Logf("analyze_data_dependencies {object: web_events} -> %s", ev.Raw)
}

// TestPipelineManifestGoldens pins what a Host discovers of doris_pipeline
// on each simulated release (availability, variant, reasons), and checks
// the live manifest's byte budget. Run with -update-pipeline after an
// intended change.
func TestPipelineManifestGoldens(t *testing.T) {
	for _, profile := range pipelineProfiles {
		t.Run(profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile})
			m := e.Discover("doris_pipeline")
			if n := len(m.Raw); n > 16<<10 {
				t.Fatalf("manifest is %d bytes, budget 16384", n)
			}
			var doc struct {
				Children []map[string]any `json:"children"`
			}
			if err := json.Unmarshal(m.Raw, &doc); err != nil {
				t.Fatal(err)
			}
			var got []map[string]any
			for _, c := range doc.Children {
				got = append(got, map[string]any{"name": c["name"], "availability": c["availability"],
					"version_support": c["version_support"]})
			}
			b, _ := json.MarshalIndent(got, "", "  ")
			b = append(b, '\n')
			path := filepath.Join("..", "..", "testdata", "golden", "pipeline-availability-"+profile+".json")
			if *doristest.UpdateGoldens {
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./doris -run TestPipelineManifestGoldens -update-pipeline)", err)
			}
			if string(want) != string(b) {
				t.Fatalf("%s differs from the live manifest:\n%s", path, b)
			}
			t.Logf("doris_pipeline manifest on %s: %d bytes (budget 16384)", profile, len(m.Raw))
		})
	}
}

// TestPipelineDiagnoseWindowIsExact: window_minutes is applied in minutes
// by Doris's clock, never rounded up: a load audited 10 minutes ago is
// outside a 9-minute window and inside an 11-minute one.
func TestPipelineDiagnoseWindowIsExact(t *testing.T) {
	for _, profile := range pipelineProfiles {
		t.Run(profile, func(t *testing.T) {
			e := writerEnv(t, profile)
			table := doristest.PipeTable(t, e, "win", "id INT NOT NULL PRIMARY KEY")
			if err := e.DB.Exec(context.Background(), "INSERT INTO __internal_schema.audit_log (query_id, `time`, `user`, `catalog`, db, state, "+
				"query_time, is_query, stmt) VALUES ('"+table+"-q', NOW() - INTERVAL 10 MINUTE, 'etl', 'internal', 'demo', 'OK', 12, 0, "+
				"'INSERT INTO "+table+" SELECT id FROM staging_"+table+"')"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				e.DB.Exec(context.Background(), "DELETE FROM __internal_schema.audit_log WHERE query_id = '"+table+"-q'")
			})
			for _, tc := range []struct {
				window int
				want   int
			}{{9, 0}, {11, 1}} {
				var d ingestionDiagnosis
				e.Ok("doris_pipeline", "diagnose_ingestion", map[string]any{"database": "demo", "table": table,
					"window_minutes": tc.window}).Decode(t, &d)
				stmts, _ := d.Sections["audit"].Data["statements"].([]any)
				if len(stmts) != tc.want {
					t.Fatalf("window %d min: %d statements, want %d", tc.window, len(stmts), tc.want)
				}
			}
		})
	}
}
