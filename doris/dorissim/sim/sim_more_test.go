package sim_test

import (
	"bufio"
	"context"
	"crypto/sha1"
	"database/sql/driver"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

func TestMillionRowsStreamWithBoundedMemory(t *testing.T) {
	s, _ := startSim(t, "3.0")
	ctx := context.Background()
	db := reader(t, s)
	rows, err := db.QueryContext(ctx, "SELECT seq, REPEAT('x', 100) FROM demo.seq_1_to_1000000")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak uint64
	n := 0
	var seq int64
	var pad []byte
	for rows.Next() {
		if err := rows.Scan(&seq, &pad); err != nil {
			t.Fatal(err)
		}
		n++
		if n%100000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 1000000 || seq != 1000000 {
		t.Fatalf("rows %d last %d", n, seq)
	}
	// ~110 MB passed through; a buffered relay would hold it all.
	if peak > base+64<<20 {
		t.Fatalf("heap grew from %d to %d bytes while streaming", base, peak)
	}
}

// TestFaultReachedAndHold: a fault tells the test that a statement has
// arrived, and holds it until the test releases it.
func TestFaultReachedAndHold(t *testing.T) {
	s, _ := startSim(t, "3.0")
	db := reader(t, s)
	reached, hold := make(chan struct{}), make(chan struct{})
	s.Inject(sim.Fault{Match: "held_marker", Reached: reached, Hold: hold, Times: 1})
	answered := make(chan string, 1)
	go func() {
		var m string
		if err := db.QueryRow("SELECT 'held_marker' AS m").Scan(&m); err != nil {
			m = err.Error()
		}
		answered <- m
	}()
	select {
	case <-reached:
	case m := <-answered:
		t.Fatalf("answered %q without reaching the fault", m)
	case <-time.After(10 * time.Second):
		t.Fatal("the statement did not reach the simulator")
	}
	select {
	case m := <-answered:
		t.Fatalf("answered %q while held", m)
	default:
	}
	close(hold)
	select {
	case m := <-answered:
		if m != "held_marker" {
			t.Fatalf("after the release: %q", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the released statement did not answer")
	}
}

func TestFaults(t *testing.T) {
	s, _ := startSim(t, "3.0")
	ctx := context.Background()
	db := reader(t, s)

	s.Inject(sim.Fault{Match: "from demo.customers", Latency: time.Second, Times: 1})
	t0 := time.Now()
	mustQuery(t, db, "SELECT COUNT(*) FROM demo.customers")
	if d := time.Since(t0); d < time.Second {
		t.Fatalf("latency fault not applied: %v", d)
	}
	t0 = time.Now()
	mustQuery(t, db, "SELECT COUNT(*) FROM demo.customers")
	if d := time.Since(t0); d > 900*time.Millisecond {
		t.Fatalf("Times=1 fault applied twice: %v", d)
	}

	s.Inject(sim.Fault{Match: "PRODUCTS", ErrCode: 1105, ErrState: "HY000", ErrMsg: "errCode = 2, detailMessage = injected", Times: 2})
	for i := 0; i < 2; i++ {
		_, err := query(t, db, "select * from demo.products")
		wantErr(t, err, 1105, "errCode = 2, detailMessage = injected")
	}
	mustQuery(t, db, "select * from demo.products")

	s.Inject(sim.Fault{Match: "order_items", DropAfterRows: 10})
	rows, err := db.QueryContext(ctx, "SELECT * FROM demo.order_items")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	err = rows.Err()
	rows.Close()
	if n != 10 || err == nil {
		t.Fatalf("drop after rows: got %d rows, err %v", n, err)
	}
	// native results honour it too
	s.Inject(sim.Fault{Match: "SHOW PROC", DropAfterRows: 3, Times: 1})
	rt := root(t, s, mariadb.SharedFor(t))
	rows, err = rt.QueryContext(ctx, "SHOW PROC '/'")
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for rows.Next() {
		n++
	}
	if rows.Err() == nil || n != 3 {
		t.Fatalf("native drop: %d rows, %v", n, rows.Err())
	}
	rows.Close()
	s.ClearFaults()
	if r := mustQuery(t, db, "SELECT COUNT(*) FROM demo.order_items"); r.rows[0][0].String == "0" {
		t.Fatal("no items")
	}

	s.Inject(sim.Fault{Match: "select 42", Drop: true, Times: 1})
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = query(t, conn, "SELECT 42")
	if err == nil || !(errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || strings.Contains(err.Error(), "invalid connection") || strings.Contains(err.Error(), "EOF")) {
		t.Fatalf("drop fault: %v", err)
	}
	conn.Close()
	mustQuery(t, db, "SELECT 42")

	s.Inject(sim.Fault{ErrCode: 1203, ErrState: "42000", ErrMsg: "Reach limit of connections. Total: 1024, User: 100, Current: 100", Times: 1})
	_, err = query(t, db, "SELECT 1")
	wantErr(t, err, 1203, "Reach limit of connections")
}

func TestSetProfile(t *testing.T) {
	s, in := startSim(t, "2.1")
	ctx := context.Background()
	conn, err := root(t, s, in).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := mustQuery(t, conn, "SHOW BACKENDS")
	if len(r.cols) != 25 {
		t.Fatalf("2.1 backends %d", len(r.cols))
	}
	if err := s.SetProfile("4.0"); err != nil {
		t.Fatal(err)
	}
	r = mustQuery(t, conn, "SELECT @@version_comment")
	if r.rows[0][0].String != "Doris version doris-4.0.7-rc02-35854e7e92a" {
		t.Fatalf("after upgrade %v", r.rows)
	}
	r = mustQuery(t, conn, "SHOW BACKENDS")
	if len(r.cols) != 28 || r.rows[0][r.col("Version")].String != "doris-4.0.7-rc02-35854e7e92a" {
		t.Fatalf("4.0 backends %v", r.cols)
	}
	if s.Profile() != "4.0.7" {
		t.Fatal(s.Profile())
	}
	if err := s.SetProfile("9.9"); err == nil {
		t.Fatal("unknown profile accepted")
	}
}

func TestSetDownAndRecover(t *testing.T) {
	s, _ := startSim(t, "3.0")
	ctx := context.Background()
	db := reader(t, s)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, conn, "SELECT 1")
	fe := "http://" + s.FEAddr()
	if err := s.SetDown(true); err != nil {
		t.Fatal(err)
	}
	if _, err := query(t, conn, "SELECT 1"); err == nil {
		t.Fatal("open connection survived SetDown")
	}
	conn.Close()
	fresh := reader(t, s)
	if err := fresh.PingContext(ctx); err == nil {
		t.Fatal("new connection accepted while down")
	}
	if resp, err := http.Get(fe + "/api/health"); err == nil {
		resp.Body.Close()
		t.Fatal("FE HTTP answered while down")
	}
	if err := s.SetDown(false); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, fresh, "SELECT 1")
	resp, err := http.Get(fe + "/api/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func getJSON(t *testing.T, url, user, pw string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if user != "" {
		req.SetBasicAuth(user, pw)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%s: HTTP %d", url, resp.StatusCode)
	}
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func getText(t *testing.T, url string) (string, http.Header) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), resp.Header
}

func TestHTTP(t *testing.T) {
	s, in := startSim(t, "3.0")
	ctx := context.Background()
	fe, be := "http://"+s.FEAddr(), "http://"+s.BEAddr()

	if body, _ := getText(t, fe+"/api/bootstrap"); strings.TrimSpace(body) != `{"msg":"OK","code":0,"data":null,"count":0}` {
		t.Fatalf("bootstrap %s", body)
	}
	m := getJSON(t, fe+"/api/health", "", "")
	if m["msg"] != "success" || m["data"].(map[string]any)["online_backend_num"].(float64) != 1 {
		t.Fatalf("health %v", m)
	}
	metrics, hdr := getText(t, fe+"/metrics")
	for _, want := range []string{"# HELP doris_fe_query_total", "# TYPE doris_fe_query_total counter", `doris_fe_query_latency_ms{quantile="0.99"}`,
		"doris_fe_connection_total ", `node_info{type="be_node_num", state="alive"} 1`, `jvm_heap_size_bytes{type="used"}`} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("FE metrics lack %q", want)
		}
	}
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
		t.Fatal(hdr)
	}
	if body, hdr := getText(t, be+"/api/health"); body != `{"status": "OK","msg": "To Be Added"}` || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("BE health %q %v", body, hdr)
	}
	bm, _ := getText(t, be+"/metrics")
	if strings.Contains(bm, "# HELP") || !strings.Contains(bm, "# TYPE doris_be_memory_allocated_bytes gauge") ||
		!strings.Contains(bm, `doris_be_cpu{device="cpu",mode="user"}`) || !strings.Contains(bm, `doris_be_file_cache_hits_ratio{path=`) ||
		!strings.Contains(bm, `doris_be_compaction_bytes_total{type="base"}`) || !strings.Contains(bm, "doris_be_query_scan_rows") {
		t.Fatalf("BE metrics:\n%s", bm)
	}

	// show_proc: admin only, rows as string arrays
	m = getJSON(t, fe+"/api/show_proc?path=/backends", "root", in.RootPassword())
	if m["code"].(float64) != 0 || len(m["data"].([]any)) != 1 {
		t.Fatalf("show_proc %v", m)
	}
	if m = getJSON(t, fe+"/api/show_proc?path=/backends", mariadb.ReaderUser, mariadb.ReaderPassword); m["code"].(float64) != 401 {
		t.Fatalf("reader show_proc %v", m)
	}
	if m = getJSON(t, fe+"/api/show_proc?path=/backends", "root", "bad"); m["code"].(float64) != 401 || m["msg"] != "Unauthorized" {
		t.Fatalf("bad password %v", m)
	}
	if m = getJSON(t, fe+"/api/show_proc?path=/nope", "root", in.RootPassword()); m["code"].(float64) != 403 || !strings.Contains(m["data"].(string), "Invalid proc path") {
		t.Fatalf("bad path %v", m)
	}
	m = getJSON(t, fe+"/rest/v2/manager/node/backends", "root", in.RootPassword())
	if cols := m["data"].(map[string]any)["column_names"].([]any); len(cols) != 28 {
		t.Fatalf("node backends %v", cols)
	}

	// profile flow as the MCP server does it
	conn, err := reader(t, s).Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	trace := "5d0c1c56-7a39-4c59-9a8a-0fa6f3f7a001"
	for _, stmt := range []string{`SET session_context="trace_id:` + trace + `"`, "SET enable_profile=true"} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	mustQuery(t, conn, "SELECT status, COUNT(*) FROM demo.orders GROUP BY status")
	m = getJSON(t, fe+"/rest/v2/manager/query/trace_id/"+trace, mariadb.ReaderUser, mariadb.ReaderPassword)
	qid, _ := m["data"].(string)
	if m["code"].(float64) != 0 || len(qid) != 33 || qid[16] != '-' {
		t.Fatalf("trace lookup %v", m)
	}
	m = getJSON(t, fe+"/rest/v2/manager/query/profile/text/"+qid, mariadb.ReaderUser, mariadb.ReaderPassword)
	prof := m["data"].(map[string]any)["profile"].(string)
	for _, want := range []string{"Summary:", "   - Profile ID: " + qid, "   - Task Type: QUERY", "   - Task State: OK", "   - User: mcp_reader",
		"   - Default Catalog: internal", "   - Default Db: demo", "   - Sql Statement: SELECT status", "Execution Summary:", "MergedProfile:", "OLAP_SCAN_OPERATOR"} {
		if !strings.Contains(prof, want) {
			t.Fatalf("profile lacks %q:\n%s", want, prof)
		}
	}
	m = getJSON(t, fe+"/rest/v2/manager/query/sql/"+qid, mariadb.ReaderUser, mariadb.ReaderPassword)
	if !strings.HasPrefix(m["data"].(map[string]any)["sql"].(string), "SELECT status") {
		t.Fatalf("sql %v", m)
	}
	if m = getJSON(t, fe+"/rest/v2/manager/query/profile/text/0000000000000000-0000000000000000", "root", in.RootPassword()); m["code"].(float64) != 403 || m["msg"] != "Bad Request" {
		t.Fatalf("unknown id %v", m)
	}
	if m = getJSON(t, fe+"/rest/v2/manager/query/trace_id/unknown-trace", "root", in.RootPassword()); m["code"].(float64) != 403 {
		t.Fatalf("unknown trace %v", m)
	}
	if m = getJSON(t, fe+"/rest/v2/manager/query/sql/"+qid, "", ""); m["code"].(float64) != 401 {
		t.Fatalf("no auth %v", m)
	}
}

func TestMariadbCLI(t *testing.T) {
	s, _ := startSim(t, "3.0")
	cli, err := exec.LookPath("mariadb")
	if err != nil {
		if mariadb.UnderCI() {
			t.Fatalf("mariadb CLI required under CI: %v", err)
		}
		t.Skipf("SKIPPING: mariadb CLI not installed: %v", err)
	}
	host, port, _ := net.SplitHostPort(s.Addr())
	out, err := exec.Command(cli, "--no-defaults", "-h", host, "-P", port, "-u", mariadb.ReaderUser, "-p"+mariadb.ReaderPassword,
		"demo", "--batch", "-e", "SELECT @@version_comment; SHOW FRONTENDS; SELECT COUNT(*) AS n FROM orders").CombinedOutput()
	if err != nil {
		t.Fatalf("mariadb CLI: %v\n%s", err, out)
	}
	for _, want := range []string{"Doris version doris-3.0.4-rc02-39f9074cec", "fe_65a0c6f0_b31f_42ac_bd20_26d851299f1a", "\n5000\n"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("CLI output lacks %q:\n%s", want, out)
		}
	}
	out, err = exec.Command(cli, "--no-defaults", "-h", host, "-P", port, "-u", mariadb.ReaderUser, "-pwrong", "-e", "SELECT 1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ERROR 1045 (28000): Access denied for user 'mcp_reader'@'127.0.0.1' (using password: YES)") {
		t.Fatalf("CLI bad password: %v %s", err, out)
	}
}

// rawHandshake logs in over a raw socket and returns it positioned after OK.
func rawHandshake(t *testing.T, addr, user, pw string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	g := readPkt(t, r)
	if g[0] != 10 || !strings.HasPrefix(string(g[1:]), "5.7.99\x00") {
		t.Fatalf("greeting %q", g)
	}
	p := 1 + len("5.7.99") + 1 + 4
	scramble := append([]byte{}, g[p:p+8]...)
	p += 8 + 1 + 2 + 1 + 2 + 2 + 1 + 10
	scramble = append(scramble, g[p:p+12]...)
	auth := scrambleNative(scramble, pw)
	resp := binary.LittleEndian.AppendUint32(nil, 0x0200|0x8000|0x80000)
	resp = binary.LittleEndian.AppendUint32(resp, 1<<24)
	resp = append(resp, 45)
	resp = append(resp, make([]byte, 23)...)
	resp = append(append(resp, user...), 0, byte(len(auth)))
	resp = append(resp, auth...)
	resp = append(resp, "mysql_native_password\x00"...)
	writePkt(t, c, 1, resp)
	if ok := readPkt(t, r); ok[0] != 0 {
		t.Fatalf("login failed: %q", ok)
	}
	return c
}

func readPkt(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, int(h[0])|int(h[1])<<8|int(h[2])<<16)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func writePkt(t *testing.T, w io.Writer, seq byte, b []byte) {
	t.Helper()
	h := []byte{byte(len(b)), byte(len(b) >> 8), byte(len(b) >> 16), seq}
	if _, err := w.Write(append(h, b...)); err != nil {
		t.Fatal(err)
	}
}

func TestMalformedClientsDoNotHurt(t *testing.T) {
	s, in := startSim(t, "3.0")
	before := runtime.NumGoroutine()
	// 1. garbage instead of a handshake response
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	readPkt(t, r)
	writePkt(t, c, 1, []byte{1, 2, 3})
	c.Close()
	// 2. an oversized packet header after login
	c = rawHandshake(t, s.Addr(), "root", in.RootPassword())
	_, _ = c.Write([]byte{0xff, 0xff, 0xff, 0, 0x03})
	_, _ = c.Write(make([]byte, 1<<16))
	c.Close()
	// 3. unknown command and prepared statements get a clean ERR
	c = rawHandshake(t, s.Addr(), "root", in.RootPassword())
	r = bufio.NewReader(c)
	writePkt(t, c, 0, append([]byte{0x16}, "SELECT 1"...))
	if e := readPkt(t, r); e[0] != 0xff || binary.LittleEndian.Uint16(e[1:]) != 1047 {
		t.Fatalf("prepare: %q", e)
	}
	writePkt(t, c, 0, []byte{0x0e}) // ping still works
	if e := readPkt(t, r); e[0] != 0 {
		t.Fatalf("ping: %q", e)
	}
	// 4. a client that vanishes in the middle of a large result
	writePkt(t, c, 0, append([]byte{0x03}, "SELECT seq FROM demo.seq_1_to_1000000"...))
	readPkt(t, r)
	c.Close()
	// the server still serves others
	mustQuery(t, reader(t, s), "SELECT 1")
	pollUntil(5*time.Second, 50*time.Millisecond, func() bool { return runtime.NumGoroutine() <= before+8 })
	if g := runtime.NumGoroutine(); g > before+8 {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines grew from %d to %d\n%s", before, g, buf[:runtime.Stack(buf, true)])
	}
}

func TestCloseWaitsForConnections(t *testing.T) {
	in := mariadb.SharedFor(t)
	before := runtime.NumGoroutine()
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: "2.1.11", Logger: discard()})
	if err != nil {
		t.Fatal(err)
	}
	db := open(t, s.Addr(), mariadb.ReaderUser, mariadb.ReaderPassword, "demo")
	db.SetMaxIdleConns(4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = query(t, db, slowQuery)
	}()
	mustQuery(t, db, "SELECT 1")
	// Close comes while the slow query runs: the simulator lists it.
	rt := root(t, s, in)
	waitFor(t, func() bool {
		r := mustQuery(t, rt, `SHOW PROC "/current_queries"`)
		for _, row := range r.rows {
			if row[r.col("Statement")].String == slowQuery {
				return true
			}
		}
		return false
	})
	rt.Close() // its connections are not the ones Close must end
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("query did not end on Close")
	}
	db.Close()
	http.DefaultClient.CloseIdleConnections()
	pollUntil(5*time.Second, 50*time.Millisecond, func() bool { return runtime.NumGoroutine() <= before+2 })
	if g := runtime.NumGoroutine(); g > before+2 {
		t.Fatalf("goroutines %d -> %d after Close", before, g)
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// scrambleNative is the mysql_native_password client computation.
func scrambleNative(scramble []byte, pw string) []byte {
	h1 := sha1.Sum([]byte(pw))
	h2 := sha1.Sum(h1[:])
	h := sha1.New()
	h.Write(scramble)
	h.Write(h2[:])
	out := h.Sum(nil)
	for i := range out {
		out[i] ^= h1[i]
	}
	return out
}

func TestProfilesList(t *testing.T) {
	got := strings.Join(sim.Profiles(), ",")
	for _, want := range []string{"2.1", "3.0", "4.0", "4.1", "2.1.7", "3.0.4", "4.0.7", "4.1.1", "4.1.3", "4.1.4"} {
		if !strings.Contains(","+got+",", ","+want+",") {
			t.Fatalf("profiles %s lack %s", got, want)
		}
	}
}

func TestAuditLogAppend(t *testing.T) {
	s, _ := startSim(t, "3.0")
	db := reader(t, s)
	marker := "SELECT 'audit-marker-" + time.Now().Format("150405.000000") + "' AS m"
	mustQuery(t, db, marker)
	_, _ = query(t, db, "SELECT * FROM secret.salaries")
	if err := s.SyncAudit(t.Context()); err != nil {
		t.Fatal(err)
	}
	r := mustQuery(t, db, "SELECT query_id, `user`, state, is_query, stmt_type FROM __internal_schema.audit_log WHERE stmt = ?", marker)
	if len(r.rows) != 1 {
		t.Fatalf("the statement is in the audit log %d times, want once", len(r.rows))
	}
	if r.rows[0][1].String != mariadb.ReaderUser || r.rows[0][2].String != "EOF" || r.rows[0][3].String != "1" || len(r.rows[0][0].String) != 33 {
		t.Fatalf("audit row %v", r.rows[0])
	}
	r = mustQuery(t, db, "SELECT state, error_code, error_message FROM __internal_schema.audit_log WHERE stmt = 'SELECT * FROM secret.salaries' AND `user` = ?", mariadb.ReaderUser)
	if len(r.rows) == 0 {
		t.Fatal("the failed statement is not in the audit log")
	}
	if r.rows[0][0].String != "ERR" || !strings.Contains(r.rows[0][2].String, "Permission denied") {
		t.Fatalf("audit error row %v", r.rows[0])
	}
}

func TestAuthSwitchForOtherPlugins(t *testing.T) {
	s, _ := startSim(t, "3.0")
	c, err := net.DialTimeout("tcp", s.Addr(), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	readPkt(t, r)
	resp := binary.LittleEndian.AppendUint32(nil, 0x0200|0x8000|0x80000)
	resp = binary.LittleEndian.AppendUint32(resp, 1<<24)
	resp = append(resp, 45)
	resp = append(resp, make([]byte, 23)...)
	resp = append(append(resp, mariadb.ReaderUser...), 0, 32)
	resp = append(resp, make([]byte, 32)...)
	resp = append(resp, "caching_sha2_password\x00"...)
	writePkt(t, c, 1, resp)
	sw := readPkt(t, r)
	if sw[0] != 0xfe || !strings.HasPrefix(string(sw[1:]), "mysql_native_password\x00") {
		t.Fatalf("no auth switch: %q", sw)
	}
	seed := sw[1+len("mysql_native_password\x00"):]
	seed = seed[:20]
	writePkt(t, c, 3, scrambleNative(seed, mariadb.ReaderPassword))
	if ok := readPkt(t, r); ok[0] != 0 {
		t.Fatalf("after auth switch: %q", ok)
	}
}
