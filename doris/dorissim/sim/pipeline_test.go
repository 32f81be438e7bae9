package sim_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// loadTable creates demo.<prefix>_<random> (id INT PRIMARY KEY, name
// VARCHAR(8) NOT NULL, amount DECIMAL(8,2), ts DATETIME) straight in
// MariaDB and drops it when the test ends.
func loadTable(t *testing.T, in *mariadb.Instance, prefix string) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	if err := in.Exec(context.Background(), "CREATE TABLE demo."+name+
		" (id INT NOT NULL PRIMARY KEY, name VARCHAR(8) NOT NULL, amount DECIMAL(8,2) NULL, ts DATETIME NULL)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Exec(context.Background(), "DROP TABLE IF EXISTS demo."+name) })
	return name
}

// streamResult is the BE's answer, decoded.
type streamResult struct {
	TxnID                  int64 `json:"TxnId"`
	Label, Status, Message string
	ExistingJobStatus      string
	NumberTotalRows        int64
	NumberLoadedRows       int64
	NumberFilteredRows     int64
	NumberUnselectedRows   int64
	LoadBytes, LoadTimeMs  int64
	TwoPhaseCommit         string
	ErrorURL               string
}

// putLoad runs a stream load through the FE with Go's HTTP client, as a
// Doris client library would: Expect: 100-continue, following the 307.
func putLoad(t *testing.T, s *sim.Server, user, pw, table string, body string, headers map[string]string) (streamResult, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, "http://"+s.FEAddr()+"/api/demo/"+table+"/_stream_load", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(user, pw)
	req.Header.Set("Expect", "100-continue")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{ExpectContinueTimeout: 5 * time.Second}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var res streamResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("stream load answer %q: %v", raw, err)
	}
	return res, string(raw)
}

func count(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func TestStreamLoad(t *testing.T) {
	s, in := startSim(t, "3.0")
	table := loadTable(t, in, "sl")
	direct := in.Root()
	csv := "1,alpha,10.50,2025-01-02 03:04:05\n2,beta,\\N,2025-01-02 03:04:06\n3,gamma,7,\\N\n"

	res, raw := putLoad(t, s, mariadb.WriterUser, mariadb.WriterPassword, table, csv,
		map[string]string{"label": "l1", "column_separator": ","})
	if res.Status != "Success" || res.Message != "OK" || res.NumberTotalRows != 3 || res.NumberLoadedRows != 3 ||
		res.NumberFilteredRows != 0 || res.LoadBytes != int64(len(csv)) || res.TxnID <= 0 || res.Label != "l1" ||
		res.TwoPhaseCommit != "false" || res.ErrorURL != "" {
		t.Fatalf("load: %s", raw)
	}
	// Field names and order as the BE writes them.
	wantOrder := []string{"TxnId", "Label", "Comment", "TwoPhaseCommit", "Status", "Message", "NumberTotalRows",
		"NumberLoadedRows", "NumberFilteredRows", "NumberUnselectedRows", "LoadBytes", "LoadTimeMs", "BeginTxnTimeMs",
		"StreamLoadPutTimeMs", "ReadDataTimeMs", "WriteDataTimeMs", "CommitAndPublishTimeMs"}
	last := -1
	for _, k := range wantOrder {
		i := strings.Index(raw, `"`+k+`"`)
		if i <= last {
			t.Fatalf("field %s missing or out of order in %s", k, raw)
		}
		last = i
	}
	if got := count(t, direct, "SELECT COUNT(*) FROM demo."+table); got != 3 {
		t.Fatalf("MariaDB has %d rows, want 3", got)
	}
	var amount sql.NullString
	direct.QueryRow("SELECT amount FROM demo." + table + " WHERE id = 2").Scan(&amount)
	if amount.Valid {
		t.Fatalf(`\N loaded as %q, want NULL`, amount.String)
	}

	// A reused label is refused and loads nothing.
	res, raw = putLoad(t, s, mariadb.WriterUser, mariadb.WriterPassword, table, "9,zeta,1,\\N\n",
		map[string]string{"label": "l1", "column_separator": ","})
	if res.Status != "Label Already Exists" || res.ExistingJobStatus != "FINISHED" || res.TxnID != -1 ||
		!strings.Contains(res.Message, "Label [l1] has already been used, relate to txn") {
		t.Fatalf("reused label: %s", raw)
	}
	if got := count(t, direct, "SELECT COUNT(*) FROM demo."+table); got != 3 {
		t.Fatalf("a refused load wrote rows: %d", got)
	}

	// Bad rows fail the load (max_filter_ratio 0): nothing is written, and
	// the error log names each reason.
	bad := "4,delta,1,\\N\n5,far-too-long-name,1,\\N\n6,eta\nx,theta,1,\\N\n"
	res, raw = putLoad(t, s, mariadb.WriterUser, mariadb.WriterPassword, table, bad,
		map[string]string{"label": "l2", "column_separator": ","})
	if res.Status != "Fail" || res.Message != "[DATA_QUALITY_ERROR]too many filtered rows" || res.NumberTotalRows != 4 ||
		res.NumberFilteredRows != 3 || res.NumberLoadedRows != 1 || res.ErrorURL == "" {
		t.Fatalf("bad csv: %s", raw)
	}
	if got := count(t, direct, "SELECT COUNT(*) FROM demo."+table); got != 3 {
		t.Fatalf("a failed load wrote rows: %d", got)
	}
	text, _ := getText(t, res.ErrorURL)
	for _, want := range []string{"the length of input is too long than schema", "actual column number in csv file is  less than  schema column number",
		"column(id) values is null while columns is not nullable", "src line [6,eta]"} {
		if !strings.Contains(text, want) {
			t.Fatalf("error log lacks %q:\n%s", want, text)
		}
	}
	// The failed label is free again; with max_filter_ratio the good rows load.
	res, raw = putLoad(t, s, mariadb.WriterUser, mariadb.WriterPassword, table, bad,
		map[string]string{"label": "l2", "column_separator": ",", "max_filter_ratio": "0.8"})
	if res.Status != "Success" || res.NumberLoadedRows != 1 || res.NumberFilteredRows != 3 || res.ErrorURL == "" {
		t.Fatalf("filtered load: %s", raw)
	}
	if got := count(t, direct, "SELECT COUNT(*) FROM demo."+table); got != 4 {
		t.Fatalf("MariaDB has %d rows, want 4", got)
	}

	// The reader has no LOAD privilege: the FE refuses before any BE work.
	req, _ := http.NewRequest(http.MethodPut, "http://"+s.FEAddr()+"/api/demo/"+table+"/_stream_load", strings.NewReader("7,x,1,\\N\n"))
	req.SetBasicAuth(mariadb.ReaderUser, mariadb.ReaderPassword)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"status":"FAILED"`) || !strings.Contains(string(body), "LOAD command denied to user 'mcp_reader'") {
		t.Fatalf("reader load: %s", body)
	}
	// Wrong password: 401 envelope, nothing loaded.
	req, _ = http.NewRequest(http.MethodPut, "http://"+s.FEAddr()+"/api/demo/"+table+"/_stream_load", strings.NewReader("8,x,1,\\N\n"))
	req.SetBasicAuth(mariadb.WriterUser, "nope")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"code":401`) {
		t.Fatalf("bad password: %s", body)
	}
	if got := count(t, direct, "SELECT COUNT(*) FROM demo."+table); got != 4 {
		t.Fatalf("MariaDB has %d rows, want 4", got)
	}

	// SHOW STREAM LOAD lists every load that ran (not the refused one).
	w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	r := mustQuery(t, w, "SHOW STREAM LOAD FROM demo WHERE Label = 'l2' ORDER BY StartTime DESC")
	wantCols(t, "show stream load", r.cols, "Label", "Db", "Table", "ClientIp", "Status", "Message", "Url", "TotalRows",
		"LoadedRows", "FilteredRows", "UnselectedRows", "LoadBytes", "StartTime", "FinishTime", "User", "Comment")
	if len(r.rows) != 2 || r.rows[0][r.col("Status")].String != "Success" || r.rows[1][r.col("Status")].String != "Fail" ||
		r.rows[1][r.col("Message")].String != "[DATA_QUALITY_ERROR]too many filtered rows" || r.rows[0][r.col("LoadedRows")].String != "1" ||
		r.rows[0][r.col("Table")].String != table || r.rows[0][r.col("User")].String != mariadb.WriterUser {
		t.Fatalf("stream loads: %v", r.rows)
	}
	r = mustQuery(t, reader(t, s), "SHOW STREAM LOAD FROM demo WHERE Status = 'SUCCESS' LIMIT 1")
	if len(r.rows) != 1 || r.rows[0][0].String != "l1" {
		t.Fatalf("first successful load: %v", r.rows)
	}
	_, err = query(t, w, "SHOW STREAM LOAD FROM nosuchdb")
	wantErr(t, err, 1049, "Unknown database 'nosuchdb'")
}

// TestStreamLoadWithCurl runs the documented curl command against the FE:
// basic auth, a label and a separator, a 307 to the BE followed with the
// credentials (--location-trusted).
func TestStreamLoadWithCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if mariadb.UnderCI() {
			t.Fatalf("curl is required under CI=true: %v", err)
		}
		t.Skipf("SKIPPING: curl is not installed: %v", err)
	}
	s, in := startSim(t, "4.0")
	table := loadTable(t, in, "curl")
	dir := t.TempDir()
	file := filepath.Join(dir, "rows.csv")
	var b bytes.Buffer
	const n = 1500 // large enough that curl sends Expect: 100-continue
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d,row%d,%d.25,2025-03-04 05:06:07\n", i, i%1000, i)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(curl, "-sS", "--location-trusted", "-u", mariadb.WriterUser+":"+mariadb.WriterPassword,
		"-H", "label:l1", "-H", "column_separator:,", "-T", file,
		"http://"+s.FEAddr()+"/api/demo/"+table+"/_stream_load").CombinedOutput()
	if err != nil {
		t.Fatalf("curl: %v\n%s", err, out)
	}
	var res streamResult
	if err := json.Unmarshal(out, &res); err != nil || res.Status != "Success" || res.NumberLoadedRows != n || res.Label != "l1" {
		t.Fatalf("curl answer (%v): %s", err, out)
	}
	if got := count(t, in.Root(), "SELECT COUNT(*) FROM demo."+table); got != n {
		t.Fatalf("MariaDB has %d rows, want %d", got, n)
	}
	// The same command again: the label is taken.
	out, _ = exec.Command(curl, "-sS", "--location-trusted", "-u", mariadb.WriterUser+":"+mariadb.WriterPassword,
		"-H", "label:l1", "-H", "column_separator:,", "-T", file,
		"http://"+s.FEAddr()+"/api/demo/"+table+"/_stream_load").CombinedOutput()
	if err := json.Unmarshal(out, &res); err != nil || res.Status != "Label Already Exists" {
		t.Fatalf("second curl: %s", out)
	}
}

func TestInsertLoadJobsAndVersions(t *testing.T) {
	for _, profile := range []string{"2.1", "3.0", "4.0"} {
		t.Run(profile, func(t *testing.T) {
			s, in := startSim(t, profile)
			table := loadTable(t, in, "ins")
			w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
			before := mustQuery(t, w, "SHOW PARTITIONS FROM demo."+table)
			if before.rows[0][before.col("PartitionName")].String != table || before.rows[0][before.col("VisibleVersion")].String != "1" {
				t.Fatalf("new table partitions %v", before.rows)
			}
			if _, err := w.Exec("INSERT INTO " + table + " WITH LABEL ins_l1 (id, name) VALUES (1, 'a'), (2, 'b')"); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Exec("INSERT INTO demo." + table + " VALUES (3, 'c', 1.5, NOW())"); err != nil {
				t.Fatal(err)
			}
			_, err := w.Exec("INSERT INTO " + table + " WITH LABEL ins_l1 (id, name) VALUES (4, 'd')")
			wantErr(t, err, 1105, "Label [ins_l1] has already been used")
			_, err = w.Exec("INSERT INTO " + table + " WITH LABEL ins_bad (id, name) VALUES (1, 'dup')")
			if err == nil {
				t.Fatal("a duplicate primary key inserted")
			}
			r := mustQuery(t, w, "SHOW LOAD FROM demo WHERE Label LIKE 'ins_%' ORDER BY CreateTime")
			wantCols(t, "show load", r.cols, "JobId", "Label", "State", "Progress", "Type", "EtlInfo", "TaskInfo", "ErrorMsg",
				"CreateTime", "EtlStartTime", "EtlFinishTime", "LoadStartTime", "LoadFinishTime", "URL", "JobDetails",
				"TransactionId", "ErrorTablets", "User", "Comment")
			if len(r.rows) != 2 || r.rows[0][1].String != "ins_l1" || r.rows[0][2].String != "FINISHED" || r.rows[0][4].String != "INSERT" ||
				r.rows[1][1].String != "ins_bad" || r.rows[1][2].String != "CANCELLED" ||
				!strings.HasPrefix(r.rows[1][r.col("ErrorMsg")].String, "type:LOAD_RUN_FAIL; msg:") {
				t.Fatalf("load jobs %v", r.rows)
			}
			if !strings.Contains(r.rows[0][r.col("JobDetails")].String, `"ScannedRows":2`) {
				t.Fatalf("job details %v", r.rows[0])
			}
			// The reader has no LOAD privilege: SHOW LOAD hides the jobs.
			r = mustQuery(t, reader(t, s), "SHOW LOAD FROM demo")
			if len(r.rows) != 0 {
				t.Fatalf("reader sees load jobs: %v", r.rows)
			}
			r = mustQuery(t, root(t, s, in), "SHOW LOAD FROM demo WHERE State = 'FINISHED'")
			if len(r.rows) != 2 {
				t.Fatalf("root sees %v", r.rows)
			}
			// Two committed writes: version 1 + 2.
			after := mustQuery(t, w, "SHOW PARTITIONS FROM demo."+table)
			if v := after.rows[0][after.col("VisibleVersion")].String; v != "3" {
				t.Fatalf("version %s after two writes", v)
			}
			vt, err := time.ParseInLocation("2006-01-02 15:04:05", after.rows[0][after.col("VisibleVersionTime")].String, time.Local)
			if err != nil || time.Since(vt) > time.Minute || time.Since(vt) < -time.Second {
				t.Fatalf("visible version time %v (%v)", after.rows[0], err)
			}
			if profile != "2.1" && after.rows[0][after.col("RowCount")].String == "" {
				t.Fatalf("row count %v", after.rows[0])
			}
			if _, err := w.Exec("DELETE FROM " + table + " WHERE id = 3"); err != nil {
				t.Fatal(err)
			}
			after = mustQuery(t, w, "SHOW PARTITIONS FROM `internal`.`demo`.`"+table+"` LIMIT 1000")
			if v := after.rows[0][after.col("VisibleVersion")].String; v != "4" {
				t.Fatalf("version %s after a delete", v)
			}
			_, err = query(t, w, "SHOW PARTITIONS FROM demo.v_daily_sales")
			wantErr(t, err, 1105, "is not a OLAP table")
		})
	}
}

func TestAsyncMaterializedViews(t *testing.T) {
	for _, profile := range []string{"2.1", "3.0", "4.0"} {
		t.Run(profile, func(t *testing.T) {
			s, in := startSim(t, profile)
			table := loadTable(t, in, "mvbase")
			mv := "mv_" + table
			t.Cleanup(func() { in.Exec(context.Background(), "DROP TABLE IF EXISTS demo."+mv) })
			w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
			if _, err := w.Exec("INSERT INTO " + table + " (id, name, amount) VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 5)"); err != nil {
				t.Fatal(err)
			}
			create := "CREATE MATERIALIZED VIEW " + mv + " BUILD IMMEDIATE REFRESH AUTO ON MANUAL DISTRIBUTED BY RANDOM BUCKETS 2 " +
				`PROPERTIES ("replication_num" = "1", "grace_period" = "60") AS SELECT name, SUM(amount) AS total FROM ` + table + " GROUP BY name"
			if _, err := w.Exec(create); err != nil {
				t.Fatal(err)
			}
			_, err := w.Exec(create)
			wantErr(t, err, 1050, "already exists")
			if got := count(t, in.Root(), "SELECT COUNT(*) FROM demo."+mv); got != 2 {
				t.Fatalf("the MV holds %d rows, want 2 (one per name)", got)
			}
			rd := reader(t, s)
			r := mustQuery(t, rd, `SELECT Name, JobName, State, RefreshState, RefreshInfo, QuerySql, MvProperties, SyncWithBaseTables FROM mv_infos("database"="demo") WHERE Name = '`+mv+`'`)
			if len(r.rows) != 1 || r.rows[0][2].String != "NORMAL" || r.rows[0][3].String != "SUCCESS" ||
				r.rows[0][4].String != "BUILD IMMEDIATE REFRESH AUTO ON MANUAL" || r.rows[0][7].String != "1" ||
				!strings.Contains(r.rows[0][5].String, "SUM(amount)") || r.rows[0][6].String != "{grace_period=60, replication_num=1}" {
				t.Fatalf("mv_infos %v", r.rows)
			}
			jobName := r.rows[0][1].String
			r = mustQuery(t, rd, `SELECT Name, MvName, ExecuteType, RecurringStrategy, Status FROM jobs("type"="mv") WHERE MvName = '`+mv+`'`)
			if len(r.rows) != 1 || r.rows[0][0].String != jobName || r.rows[0][2].String != "MANUAL" || r.rows[0][3].String != "MANUAL TRIGGER" {
				t.Fatalf("jobs %v", r.rows)
			}
			// A write to the base table: out of sync until refreshed.
			if _, err := w.Exec("INSERT INTO " + table + " (id, name, amount) VALUES (4, 'c', 7)"); err != nil {
				t.Fatal(err)
			}
			r = mustQuery(t, rd, `SELECT SyncWithBaseTables FROM mv_infos('database'='demo') WHERE Name = '`+mv+`'`)
			if r.rows[0][0].String != "0" {
				t.Fatalf("in sync after a base write: %v", r.rows)
			}
			if _, err := w.Exec("REFRESH MATERIALIZED VIEW " + mv + " AUTO"); err != nil {
				t.Fatal(err)
			}
			if got := count(t, in.Root(), "SELECT COUNT(*) FROM demo."+mv); got != 3 {
				t.Fatalf("the refreshed MV holds %d rows, want 3", got)
			}
			if _, err := w.Exec("REFRESH MATERIALIZED VIEW demo." + mv); err != nil {
				t.Fatal(err)
			}
			r = mustQuery(t, rd, `SELECT Status, RefreshMode, TaskContext, DurationMs, FinishTime, Progress FROM tasks("type"="mv") WHERE MvName = '`+mv+`' ORDER BY TaskId`)
			if len(r.rows) != 3 || r.rows[0][0].String != "SUCCESS" || r.rows[1][1].String != "COMPLETE" || r.rows[2][1].String != "NOT_REFRESH" ||
				!strings.Contains(r.rows[0][2].String, `"triggerMode":"MANUAL"`) || r.rows[1][4].String == "" || r.rows[1][5].String != "100.00% (1/1)" {
				t.Fatalf("tasks %v", r.rows)
			}
			// The reader may not refresh; a failing refresh is a failed task.
			_, err = rd.Exec("REFRESH MATERIALIZED VIEW " + mv)
			wantErr(t, err, 1227, "ALTER")
			if err := in.Exec(context.Background(), "ALTER TABLE demo."+table+" RENAME COLUMN amount TO amt"); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Exec("REFRESH MATERIALIZED VIEW " + mv + " COMPLETE"); err != nil {
				t.Fatal(err)
			}
			r = mustQuery(t, rd, `SELECT Status, ErrorMsg FROM tasks("type"="mv") WHERE MvName = '`+mv+`' ORDER BY TaskId DESC LIMIT 1`)
			if r.rows[0][0].String != "FAILED" || !strings.Contains(r.rows[0][1].String, "amount") {
				t.Fatalf("failed refresh %v", r.rows)
			}
			r = mustQuery(t, rd, `SELECT RefreshState FROM mv_infos("database"="demo") WHERE Name = '`+mv+`'`)
			if r.rows[0][0].String != "FAIL" {
				t.Fatalf("refresh state %v", r.rows)
			}
			r = mustQuery(t, w, "SHOW CREATE MATERIALIZED VIEW "+mv)
			wantCols(t, "show create mv", r.cols, "Materialized View", "Create Materialized View")
			if _, err := w.Exec("DROP MATERIALIZED VIEW " + mv); err != nil {
				t.Fatal(err)
			}
			r = mustQuery(t, rd, `SELECT Name FROM mv_infos("database"="demo") WHERE Name = '`+mv+`'`)
			if len(r.rows) != 0 {
				t.Fatalf("dropped MV listed: %v", r.rows)
			}
			_, err = query(t, rd, `SELECT * FROM mv_infos("database"="secret")`)
			wantErr(t, err, 1044, "Access denied")
		})
	}
}

func TestMaterializedViewSchedulesAndSyncBuilds(t *testing.T) {
	s, in := startSim(t, "3.0")
	table := loadTable(t, in, "mvsched")
	w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	for _, q := range []string{
		"CREATE MATERIALIZED VIEW mvc_" + table + " BUILD DEFERRED REFRESH COMPLETE ON COMMIT AS SELECT id, name FROM " + table,
		"CREATE MATERIALIZED VIEW mvs_" + table + " BUILD DEFERRED REFRESH AUTO ON SCHEDULE EVERY 1 MINUTE STARTS '" +
			time.Now().Add(2*time.Second).Format("2006-01-02 15:04:05") + "' AS SELECT COUNT(*) AS n FROM " + table,
		"CREATE MATERIALIZED VIEW sync_" + table + " AS SELECT name, SUM(amount) FROM " + table + " GROUP BY name",
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		in.Exec(context.Background(), "DROP TABLE IF EXISTS demo.mvc_"+table, "DROP TABLE IF EXISTS demo.mvs_"+table)
	})
	r := mustQuery(t, w, `SELECT Name, RefreshState, RefreshInfo FROM mv_infos("database"="demo") WHERE Name LIKE '%`+table+`' ORDER BY Name`)
	if len(r.rows) != 2 || r.rows[0][1].String != "INIT" || !strings.HasPrefix(r.rows[1][2].String, "BUILD DEFERRED REFRESH AUTO ON SCHEDULE EVERY 1 MINUTE STARTS 20") {
		t.Fatalf("deferred MVs %v", r.rows)
	}
	// ON COMMIT: a write to the base table refreshes the view.
	if _, err := w.Exec("INSERT INTO " + table + " (id, name) VALUES (1, 'x')"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return count(t, in.Root(), "SELECT COUNT(*) FROM demo.mvc_"+table) == 1 })
	r = mustQuery(t, w, `SELECT ExecuteType, RecurringStrategy FROM jobs("type"="mv") WHERE MvName = 'mvs_`+table+`'`)
	if len(r.rows) != 1 || r.rows[0][0].String != "RECURRING" || !strings.HasPrefix(r.rows[0][1].String, "EVERY 1 MINUTE STARTS ") {
		t.Fatalf("scheduled job %v", r.rows)
	}
	// The schedule starts two seconds after creation: the first task runs then.
	waitFor(t, func() bool {
		r := mustQuery(t, w, `SELECT Status FROM tasks("type"="mv") WHERE MvName = 'mvs_`+table+`'`)
		return len(r.rows) > 0 && r.rows[0][0].String == "SUCCESS"
	})
	r = mustQuery(t, w, "SHOW ALTER TABLE MATERIALIZED VIEW FROM demo WHERE TableName = '"+table+"'")
	if len(r.rows) != 1 || r.rows[0][r.col("RollupIndexName")].String != "sync_"+table || r.rows[0][r.col("State")].String != "FINISHED" {
		t.Fatalf("sync MV jobs %v %v", r.cols, r.rows)
	}
	if _, err := w.Exec("DROP MATERIALIZED VIEW sync_" + table + " ON " + table); err != nil {
		t.Fatal(err)
	}
}

func TestViewsAreListed(t *testing.T) {
	s, in := startSim(t, "3.0")
	table := loadTable(t, in, "vbase")
	w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	if _, err := w.Exec("CREATE VIEW v_" + table + " AS SELECT id, name FROM " + table + " WHERE name <> 'secret'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Exec(context.Background(), "DROP VIEW IF EXISTS demo.v_"+table) })
	r := mustQuery(t, reader(t, s), "SELECT TABLE_NAME, VIEW_DEFINITION FROM information_schema.views WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = 'v_"+table+"'")
	if len(r.rows) != 1 || !strings.Contains(r.rows[0][1].String, table) {
		t.Fatalf("views %v", r.rows)
	}
}

// TestInformationSchemaPartitionsMove: information_schema.partitions is
// answered by the upstream, whose UPDATE_TIME moves when data is written
// through the simulator.
func TestInformationSchemaPartitionsMove(t *testing.T) {
	s, in := startSim(t, "4.0")
	table := loadTable(t, in, "isp")
	w := open(t, s.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	q := "SELECT UPDATE_TIME FROM information_schema.partitions WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = '" + table + "'"
	before := mustQuery(t, w, q)
	if _, err := w.Exec("INSERT INTO " + table + " (id, name) VALUES (1, 'a')"); err != nil {
		t.Fatal(err)
	}
	after := mustQuery(t, w, q)
	if len(after.rows) != 1 || !after.rows[0][0].Valid {
		t.Fatalf("partitions after a write %v (before %v)", after.rows, before.rows)
	}
	at, err := time.ParseInLocation("2006-01-02 15:04:05", after.rows[0][0].String, time.Local)
	if err != nil || time.Since(at) > time.Minute {
		t.Fatalf("UPDATE_TIME %v: %v", after.rows[0][0].String, err)
	}
}
