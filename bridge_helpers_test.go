package main

// Helpers of the bridge and client tests: a remote server process whose
// port the test picks (so that it can be killed and started again on the
// same address), a bridge process driven line by line over its stdio, and
// the Doris of the tests (MariaDB kept at hand, to watch its processlist).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// bridgeDoris is MariaDB and the simulator, with the server environment
// pointing at them.
type bridgeDoris struct {
	db  *mariadb.Instance
	sim *sim.Server
	env map[string]string
}

func startBridgeDoris(t *testing.T) *bridgeDoris {
	t.Helper()
	mariadb.Require(t)
	quiet := slog.New(slog.DiscardHandler)
	db, err := mariadb.Start(context.Background(), mariadb.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("start MariaDB: %v", err)
	}
	t.Cleanup(func() { db.Stop() })
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: db.Addr(), Users: db.UserMap(), Profile: "3.0", Logger: quiet})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	host, port := splitHostPort(t, s.Addr())
	feHost, fePort := splitHostPort(t, s.FEAddr())
	beHost, bePort := splitHostPort(t, s.BEAddr())
	return &bridgeDoris{db: db, sim: s, env: map[string]string{"DORIS_HOST": host, "DORIS_PORT": port,
		"DORIS_USER": mariadb.ReaderUser, "DORIS_PASSWORD": mariadb.ReaderPassword, "DORIS_DATABASE": mariadb.DemoDatabase,
		"DORIS_FE_HTTP_HOST": feHost, "DORIS_FE_HTTP_PORT": fePort, "DORIS_BE_HOSTS": beHost, "DORIS_BE_WEBSERVER_PORT": bePort}}
}

// remoteProc is a server process on a port of the test's choosing.
type remoteProc struct {
	cmd    *exec.Cmd
	stderr *tailBuffer
	done   chan struct{}
	base   string
}

// startRemote starts bin serving HTTP on 127.0.0.1:port with env and waits
// until it answers /live. Cleanup stops it (SIGTERM) unless the test
// killed it.
func startRemote(t *testing.T, bin string, port int, env map[string]string) *remoteProc {
	t.Helper()
	dir := t.TempDir()
	all := serverBaseEnv(dir)
	for k, v := range env {
		all[k] = v
	}
	all["TRANSPORT"], all["SERVER_HOST"], all["SERVER_PORT"] = "http", "127.0.0.1", strconv.Itoa(port)
	cmd := exec.Command(bin)
	cmd.Dir, cmd.Env = dir, envList(all)
	p := &remoteProc{cmd: cmd, stderr: &tailBuffer{max: 256 << 10}, done: make(chan struct{}), base: "http://127.0.0.1:" + strconv.Itoa(port)}
	cmd.Stderr, cmd.Stdout = p.stderr, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-p.done
		}
		if strings.Contains(p.stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the remote reported a data race:\n%s", p.stderr.String())
		}
	})
	if !waitFor(30*time.Second, 50*time.Millisecond, func() bool {
		select {
		case <-p.done:
			return true
		default:
		}
		resp, err := http.Get(p.base + "/live")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}) {
		t.Fatalf("the remote did not answer /live within 30 s:\n%s", p.stderr.String())
	}
	select {
	case <-p.done:
		t.Fatalf("the remote exited at startup:\n%s", p.stderr.String())
	default:
	}
	return p
}

// kill stops the remote at once (SIGKILL), as a crash does.
func (p *remoteProc) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

// bridgeProc is a running `doris-mcp-server bridge`, driven as a Host
// drives it: JSON-RPC lines on its stdin, answers read from its stdout.
type bridgeProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr *tailBuffer
	argv   []string

	mu      sync.Mutex
	got     map[string][]byte   // responses by id
	notes   map[string][][]byte // progress notifications by progress token
	all     []string            // every line, for the no-credential checks
	changed chan struct{}
	exited  chan struct{}
}

func startBridge(t *testing.T, bin string, env map[string]string, args ...string) *bridgeProc {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"PATH": os.Getenv("PATH"), "HOME": dir, "GORACE": "halt_on_error=1"}
	for k, v := range env {
		all[k] = v
	}
	argv := append([]string{"bridge"}, args...)
	cmd := exec.Command(bin, argv...)
	cmd.Dir, cmd.Env = dir, envList(all)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	b := &bridgeProc{t: t, cmd: cmd, in: in, stderr: &tailBuffer{max: 1 << 20}, argv: cmd.Args, got: map[string][]byte{},
		notes: map[string][][]byte{}, changed: make(chan struct{}), exited: make(chan struct{})}
	cmd.Stderr = b.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 32<<20)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"params"`
			}
			json.Unmarshal(line, &m)
			b.mu.Lock()
			b.all = append(b.all, string(line))
			if m.Method != "" {
				b.notes[string(m.Params.ProgressToken)] = append(b.notes[string(m.Params.ProgressToken)], line)
			} else {
				b.got[string(m.ID)] = line
			}
			close(b.changed)
			b.changed = make(chan struct{})
			b.mu.Unlock()
		}
		cmd.Wait()
		close(b.exited)
	}()
	t.Cleanup(func() { b.close() })
	return b
}

// close ends the bridge's stdin and waits for it to exit.
func (b *bridgeProc) close() {
	b.in.Close()
	select {
	case <-b.exited:
	case <-time.After(20 * time.Second):
		b.cmd.Process.Kill()
		<-b.exited
		b.t.Error("the bridge did not exit within 20 s of EOF")
	}
	if strings.Contains(b.stderr.String(), "WARNING: DATA RACE") {
		b.t.Errorf("the bridge reported a data race:\n%s", b.stderr.String())
	}
}

func (b *bridgeProc) send(msg any) {
	b.t.Helper()
	line, ok := msg.([]byte)
	if !ok {
		line, _ = json.Marshal(msg)
	}
	if _, err := b.in.Write(append(line, '\n')); err != nil {
		b.t.Fatalf("write to the bridge: %v", err)
	}
}

// await waits up to limit for the response with id (its JSON text).
func (b *bridgeProc) await(id string, limit time.Duration) (map[string]any, bool) {
	b.t.Helper()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		line, ok := b.got[id]
		ch := b.changed
		b.mu.Unlock()
		if ok {
			var m map[string]any
			json.Unmarshal(line, &m)
			return m, true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return nil, false
		case <-b.exited:
			return nil, false
		}
	}
}

// awaitNote waits for the first notification with a progress token.
func (b *bridgeProc) awaitNote(token string, limit time.Duration) bool {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		n := len(b.notes[token])
		ch := b.changed
		b.mu.Unlock()
		if n > 0 {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

// request sends a 2026-07-28 request and waits for its response.
func (b *bridgeProc) request(id int, method string, params map[string]any, limit time.Duration) map[string]any {
	b.t.Helper()
	b.send(hsBody(id, method, params))
	m, ok := b.await(strconv.Itoa(id), limit)
	if !ok {
		b.t.Fatalf("%s (id %d): no answer within %s; bridge stderr:\n%s", method, id, limit, lastLines(b.stderr.String(), 20))
	}
	return m
}

// invocations are the bridge's invocation log records.
func (b *bridgeProc) invocations() []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(b.stderr.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "invocation" {
			out = append(out, m)
		}
	}
	return out
}

// outputs is everything the bridge wrote and was given, for the
// no-credential checks.
func (b *bridgeProc) outputs() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.all, "\n") + "\n" + b.stderr.String() + "\n" + strings.Join(b.argv, " ")
}

// rpcError is a response's error member, or nil.
func rpcError(m map[string]any) map[string]any {
	e, _ := m["error"].(map[string]any)
	return e
}

// scOf is a tool result's structuredContent, or nil.
func scOf(m map[string]any) map[string]any {
	r, _ := m["result"].(map[string]any)
	sc, _ := r["structuredContent"].(map[string]any)
	return sc
}

func writeTokenFile(t *testing.T, token string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func toolCall(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return fmt.Sprintf("%.600s", b)
}
