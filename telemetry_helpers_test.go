package main

// Helpers of the telemetry tests: an in-process server wired as main wires
// it (telemetry included, /metrics mounted), MCP calls with a chosen
// _meta, and a reader of the text exposition format.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// telServer is a server started by startTelemetryServer.
type telServer struct {
	base string
	sim  *sim.Server
	srv  *mcp.Server
	logs *lockedBuffer
	db   *mariadb.Instance
	id   int
}

// startTelemetryServer serves env (on top of a simulator over the shared
// MariaDB) on a loopback listener, built exactly as main builds it.
func startTelemetryServer(t *testing.T, env map[string]string) *telServer {
	t.Helper()
	in := mariadb.SharedFor(t)
	quiet := slog.New(slog.DiscardHandler)
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: in.UserMap(), Profile: "3.0", Logger: quiet})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	host, port, _ := net.SplitHostPort(s.Addr())
	feHost, fePort, _ := net.SplitHostPort(s.FEAddr())
	all := map[string]string{"TRANSPORT": "http", "SERVER_HOST": "127.0.0.1", "DORIS_HOST": host, "DORIS_PORT": port,
		"DORIS_USER": mariadb.ReaderUser, "DORIS_PASSWORD": mariadb.ReaderPassword, "DORIS_DATABASE": mariadb.DemoDatabase,
		"DORIS_FE_HTTP_HOST": feHost, "DORIS_FE_HTTP_PORT": fePort, "MCP_VALIDATE_RESULTS": "true"}
	for k, v := range env {
		all[k] = v
	}
	cfg := DefaultConfig()
	errs := cfg.fromEnv(all)
	if err := errors.Join(append(errs, cfg.Validate())...); err != nil {
		t.Fatalf("configuration: %v", err)
	}
	ts := &telServer{sim: s, logs: &lockedBuffer{}, db: in}
	log, sink := newLogger(ts.logs, slog.LevelInfo)
	t.Cleanup(sink.Close)
	ts.logs.sync = sink.Sync
	srv, rt, err := wire(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	ts.srv = srv
	t.Cleanup(func() { rt.Close() })
	t.Cleanup(func() { srv.Close() })
	opts, stop, err := httpOptions(context.Background(), cfg, rt, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	mountMetrics(cfg, srv, &opts)
	hs := httptest.NewServer(srv.Handler(opts))
	t.Cleanup(hs.Close)
	ts.base = hs.URL
	return ts
}

// reply is one MCP response.
type reply struct {
	status int
	raw    []byte
	// structured is result.structuredContent exactly as sent.
	structured json.RawMessage
	errCode    int
}

// call sends one modern request with extra _meta members (nil: none).
func (ts *telServer) call(t *testing.T, method, name string, params, meta map[string]any) reply {
	t.Helper()
	ts.id++
	m := map[string]any{"io.modelcontextprotocol/protocolVersion": mcp.Version, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	for k, v := range meta {
		m[k] = v
	}
	p := map[string]any{"_meta": m}
	for k, v := range params {
		p[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ts.id, "method": method, "params": p})
	r, _ := http.NewRequest("POST", ts.base+"/mcp", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("MCP-Protocol-Version", mcp.Version)
	r.Header.Set("Mcp-Method", method)
	if name != "" {
		r.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rep := reply{status: resp.StatusCode}
	rep.raw, _ = io.ReadAll(resp.Body)
	var msg struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rep.raw, &msg); err != nil {
		t.Fatalf("%s: reply is not JSON: %s", method, rep.raw)
	}
	rep.structured = msg.Result.StructuredContent
	if msg.Error != nil {
		rep.errCode = msg.Error.Code
	}
	return rep
}

// child calls domain.child with args (hierarchical mode).
func (ts *telServer) child(t *testing.T, domain, child string, args map[string]any, meta map[string]any) reply {
	t.Helper()
	return ts.call(t, "tools/call", domain, map[string]any{"name": domain,
		"arguments": map[string]any{"child_tool": child, "arguments": args}}, meta)
}

// sample is one line of the text exposition format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// exposition is a scraped /metrics page.
type exposition struct {
	samples []sample
	types   map[string]string
}

// scrape reads url's metrics; it fails the test on a line it cannot read.
func scrape(t *testing.T, url, host string) exposition {
	t.Helper()
	r, _ := http.NewRequest("GET", url, nil)
	if host != "" {
		r.Host = host
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s: %s", url, resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	e := exposition{types: map[string]string{}}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(f, " ")
			e.types[name] = typ
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			t.Fatalf("unreadable exposition line %q: %v", line, err)
		}
		e.samples = append(e.samples, s)
	}
	return e
}

func parseSample(line string) (sample, error) {
	s := sample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return s, errors.New("no value")
	}
	s.name, line = line[:i], line[i:]
	if line[0] == '{' {
		line = line[1:]
		for line[0] != '}' {
			eq := strings.Index(line, `="`)
			if eq < 0 {
				return s, errors.New("bad label")
			}
			name := line[:eq]
			line = line[eq+2:]
			var v strings.Builder
			for {
				if line == "" {
					return s, errors.New("unclosed label value")
				}
				c := line[0]
				line = line[1:]
				if c == '"' {
					break
				}
				if c == '\\' {
					switch line[0] {
					case 'n':
						v.WriteByte('\n')
					default:
						v.WriteByte(line[0])
					}
					line = line[1:]
					continue
				}
				v.WriteByte(c)
			}
			s.labels[name] = v.String()
			line = strings.TrimPrefix(line, ",")
		}
		line = line[1:]
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(line), 64)
	s.value = v
	return s, err
}

// value returns the sample of name with exactly these labels (name,
// value pairs), and whether there is one.
func (e exposition) value(name string, labels ...string) (float64, bool) {
	for _, s := range e.samples {
		if s.name != name || len(s.labels) != len(labels)/2 {
			continue
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			if s.labels[labels[i]] != labels[i+1] {
				match = false
			}
		}
		if match {
			return s.value, true
		}
	}
	return 0, false
}

// get is value, 0 when absent.
func (e exposition) get(name string, labels ...string) float64 {
	v, _ := e.value(name, labels...)
	return v
}
