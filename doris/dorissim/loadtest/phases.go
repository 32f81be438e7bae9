//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// phase is one measured stretch of load at a fixed concurrency.
type phase struct {
	Concurrency  int     `json:"concurrency"`
	Calls        int     `json:"calls"`
	Errors       int     `json:"errors"`
	RPS          float64 `json:"rps"`
	P50Ms        float64 `json:"p50_ms"`
	P99Ms        float64 `json:"p99_ms"`
	CPUPerCallUs float64 `json:"cpu_us_per_call"`
	PeakRSSMiB   float64 `json:"peak_rss_mib,omitempty"`
}

// client speaks MCP 2026-07-28 over HTTP as a Host does.
type client struct {
	url string
	tr  *http.Transport
	hc  *http.Client
}

func newClient(base string) *client {
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}
	return &client{url: base + "/mcp", tr: tr, hc: &http.Client{Transport: tr, Timeout: 60 * time.Second}}
}

// closeIdle closes the client's kept-alive connections, so that the
// server's goroutines serving them end too.
func (c *client) closeIdle() { c.tr.CloseIdleConnections() }

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"loadtest","version":"1"}}`

var selectOne = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta +
	`,"name":"doris_query","arguments":{"child_tool":"execute_query","arguments":{"sql":"SELECT 1"}}}}`)

var discoverQuery = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta +
	`,"name":"doris_query","arguments":{}}}`)

// post sends one tools/call and reports whether it came back as a result.
func (c *client) post(ctx context.Context, body []byte, name string) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("MCP-Protocol-Version", "2026-07-28")
	h.Set("Mcp-Method", "tools/call")
	h.Set("Mcp-Name", name)
	resp, err := c.hc.Do(req)
	if err != nil {
		return false, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return false, err
	}
	if resp.StatusCode != 200 {
		return false, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b)
	}
	return bytes.Contains(b, []byte(`\"mode\":\"result\"`)) || bytes.Contains(b, []byte(`\"mode\":\"manifest\"`)), nil
}

func (c *client) warm(ctx context.Context) error {
	for _, b := range [][]byte{discoverQuery, selectOne} {
		ok, err := c.post(ctx, b, "doris_query")
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("the first calls did not succeed")
		}
	}
	return nil
}

// load runs op from c goroutines for warm (unmeasured), then for d, and
// returns the latencies of the measured calls and the error count.
func load(ctx context.Context, c int, d, warm time.Duration, op func(context.Context) error) (lat []time.Duration, errs int, elapsed time.Duration) {
	var mu sync.Mutex
	var nerr atomic.Int64
	var wg sync.WaitGroup
	var recording atomic.Bool
	stop := make(chan struct{})
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for {
				select {
				case <-stop:
					mu.Lock()
					lat = append(lat, local...)
					mu.Unlock()
					return
				default:
				}
				t0 := time.Now()
				err := op(ctx)
				dt := time.Since(t0)
				if recording.Load() {
					if err != nil {
						nerr.Add(1)
					} else {
						local = append(local, dt)
					}
				}
			}
		}()
	}
	time.Sleep(warm)
	recording.Store(true)
	start := time.Now()
	time.Sleep(d)
	recording.Store(false)
	elapsed = time.Since(start)
	close(stop)
	wg.Wait()
	return lat, int(nerr.Load()), elapsed
}

func summarize(c int, lat []time.Duration, errs int, elapsed time.Duration) phase {
	slices.Sort(lat)
	p := phase{Concurrency: c, Calls: len(lat), Errors: errs}
	if len(lat) == 0 {
		return p
	}
	p.RPS = float64(len(lat)) / elapsed.Seconds()
	p.P50Ms = float64(lat[len(lat)/2]) / 1e6
	p.P99Ms = float64(lat[len(lat)*99/100]) / 1e6
	return p
}

// serverPhase loads the server at concurrency c and charges the server
// process's CPU time to the calls.
func serverPhase(ctx context.Context, cl *client, pid, c int, d, warm time.Duration) (phase, error) {
	var peak atomic.Uint64
	stopRSS := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopRSS:
				return
			case <-t.C:
				if r := uint64(rssMiB(pid) * 1024); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	var t0, t1 int64
	var failure error
	var once sync.Once
	op := func(ctx context.Context) error {
		ok, err := cl.post(ctx, selectOne, "doris_query")
		if err == nil && !ok {
			err = fmt.Errorf("a call did not return a result")
		}
		if err != nil {
			once.Do(func() { failure = err })
		}
		return err
	}
	// CPU is read around the measured window only.
	done := make(chan struct{})
	go func() {
		time.Sleep(warm)
		t0, _ = cpuTicks(pid)
		time.Sleep(d)
		t1, _ = cpuTicks(pid)
		close(done)
	}()
	lat, errs, elapsed := load(ctx, c, d, warm, op)
	<-done
	close(stopRSS)
	p := summarize(c, lat, errs, elapsed)
	if p.Calls > 0 {
		p.CPUPerCallUs = float64(time.Duration(t1-t0)*clockTick) / 1e3 / float64(p.Calls)
	}
	p.PeakRSSMiB = float64(peak.Load()) / 1024
	if errs > 0 {
		fmt.Fprintf(os.Stderr, "  c=%d: %d errors, first: %v\n", c, errs, failure)
	}
	fmt.Fprintf(os.Stderr, "  c=%d: %.0f req/s, p50 %.3f ms, p99 %.3f ms, %.1f µs CPU/call\n", c, p.RPS, p.P50Ms, p.P99Ms, p.CPUPerCallUs)
	return p, nil
}

// rawPhase runs SELECT 1 through go-sql-driver straight to the simulator
// and charges this process's CPU time to the calls.
func rawPhase(ctx context.Context, addr string, c int, d, warm time.Duration) (phase, error) {
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr, mc.DBName = mariadb.ReaderUser, mariadb.ReaderPassword, "tcp", addr, mariadb.DemoDatabase
	mc.InterpolateParams = true
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return phase{}, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	db.SetMaxOpenConns(c)
	db.SetMaxIdleConns(c)
	op := func(ctx context.Context) error {
		var n int
		return db.QueryRowContext(ctx, "SELECT 1").Scan(&n)
	}
	if err := op(ctx); err != nil {
		return phase{}, err
	}
	var c0, c1 time.Duration
	done := make(chan struct{})
	go func() {
		time.Sleep(warm)
		c0 = selfCPU()
		time.Sleep(d)
		c1 = selfCPU()
		close(done)
	}()
	lat, errs, elapsed := load(ctx, c, d, warm, op)
	<-done
	p := summarize(c, lat, errs, elapsed)
	if p.Calls > 0 {
		p.CPUPerCallUs = float64(c1-c0) / 1e3 / float64(p.Calls)
	}
	fmt.Fprintf(os.Stderr, "  raw c=%d: %.0f req/s, p50 %.3f ms, p99 %.3f ms, %.1f µs client CPU/call\n", c, p.RPS, p.P50Ms, p.P99Ms, p.CPUPerCallUs)
	return p, nil
}

// coldStarts times n runs of: start the binary on stdio, ask tools/list,
// read the answer, close stdin, wait for the exit. It returns the median
// in milliseconds.
func coldStarts(ctx context.Context, bin string, n int) (float64, error) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{` + meta + `}}` + "\n")
	var ms []float64
	for range n {
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TRANSPORT=stdio", "DORIS_HOST=127.0.0.1", "DORIS_PORT=1"}
		cmd.Dir = os.TempDir()
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return 0, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return 0, err
		}
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		stdin.Write(line)
		r := bufio.NewReader(stdout)
		resp, err := r.ReadBytes('\n')
		if err != nil || !bytes.Contains(resp, []byte(`"tools"`)) {
			cmd.Process.Kill()
			cmd.Wait()
			return 0, fmt.Errorf("cold start: no tools/list answer (%v): %.200s", err, resp)
		}
		stdin.Close()
		io.Copy(io.Discard, r)
		if err := cmd.Wait(); err != nil {
			return 0, fmt.Errorf("cold start: exit: %w", err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	m := median(ms)
	fmt.Fprintf(os.Stderr, "  cold start: median %.1f ms of %d\n", m, n)
	return m, nil
}
