package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// demoDoris is the demo: the simulator, with FE and BE HTTP, in front
// of the shared MariaDB and its demo data set, plus an account that may
// read demo but not the audit log. env is what the demo prints.
func demoDoris(t *testing.T) (env map[string]string, noAudit [2]string) {
	t.Helper()
	in := mariadb.SharedFor(t)
	noAudit = [2]string{"doctor_noaudit", "doctor-noaudit-pw-3Kq"}
	doristest.NewAccount(t, in, noAudit[0], noAudit[1], "SELECT ON demo.*")
	users := in.UserMap()
	users[noAudit[0]] = noAudit[1]
	s, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", BEHTTP: "127.0.0.1:0",
		Upstream: in.Addr(), Users: users, Logger: doristest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	host, port := splitHostPort(t, s.Addr())
	feHost, fePort := splitHostPort(t, s.FEAddr())
	beHost, bePort := splitHostPort(t, s.BEAddr())
	return map[string]string{"DORIS_HOST": host, "DORIS_PORT": port,
		"DORIS_USER": mariadb.ReaderUser, "DORIS_PASSWORD": mariadb.ReaderPassword, "DORIS_DATABASE": mariadb.DemoDatabase,
		"DORIS_FE_HTTP_HOST": feHost, "DORIS_FE_HTTP_PORT": fePort,
		"DORIS_BE_HOSTS": beHost, "DORIS_BE_WEBSERVER_PORT": bePort}, noAudit
}

func with(env map[string]string, kv ...string) map[string]string {
	out := maps.Clone(env)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func doctor(t *testing.T, env map[string]string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"doctor", "--env-file", os.DevNull}, env, nil, &out, &errb)
	t.Logf("doctor:\n%s%s", out.String(), errb.String())
	return out.String(), err
}

// TestDoctor: doctor tells apart a closed port, a wrong password, a
// missing database, an account without the audit privilege and an FE
// HTTP port that does not answer, each with what to set; it exits 0
// (nil) on the demo and whenever the server would serve, else 1.
func TestDoctor(t *testing.T) {
	env, noAudit := demoDoris(t)
	closed := strconv.Itoa(closedPort(t))
	for _, tc := range []struct {
		name  string
		env   map[string]string
		serve bool
		want  []string
		not   []string
	}{
		{"demo", env, true, []string{"ok    login", "Doris 3.0", "FE HTTP          http://", "audit log: allowed", "doris_catalog    5 of 5", "result: the server would serve"}, []string{"\nFAIL"}},
		{"closed port", with(env, "DORIS_PORT", closed), false,
			[]string{"FAIL  FE 127.0.0.1:" + closed, "connection refused: nothing listens", "fix: set DORIS_HOST and DORIS_PORT", "would NOT serve"}, []string{"login"}},
		{"wrong password", with(env, "DORIS_PASSWORD", "not-the-password"), false,
			[]string{"FAIL  login", "Doris refused the account \"mcp_reader\"", "fix: set DORIS_USER and DORIS_PASSWORD", "would NOT serve"}, []string{"FAIL  database", "not-the-password"}},
		{"missing database", with(env, "DORIS_DATABASE", "no_such_db"), false,
			[]string{"FAIL  database", "\"no_such_db\" does not exist or is not visible to \"mcp_reader\"", "set DORIS_DATABASE", "would NOT serve"}, []string{"FAIL  login"}},
		{"no audit privilege", with(env, "DORIS_USER", noAudit[0], "DORIS_PASSWORD", noAudit[1]), true,
			[]string{"WARN  privilege        audit log: DENIED", "GRANT SELECT_PRIV ON internal.__internal_schema.audit_log", "list_slow_queries", "result: the server would serve;"}, []string{"\nFAIL"}},
		{"FE HTTP unreachable", with(env, "DORIS_FE_HTTP_PORT", closed), true,
			[]string{"WARN  FE HTTP", ":" + closed + " does not answer", "DORIS_FE_HTTP_PORT", "result: the server would serve;"}, []string{"\nFAIL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := doctor(t, tc.env)
			if tc.serve != (err == nil) || err != nil && !errors.Is(err, errReported) {
				t.Errorf("err %v, want serve=%v", err, tc.serve)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) {
					t.Errorf("output has %q", n)
				}
			}
		})
	}
}

// TestReadyAndStartupName the cause: /ready's body gives the reason code
// of a refused account apart from an unreachable Doris, and the server
// logs one WARN at start naming it.
func TestReadyAndStartupNameTheCause(t *testing.T) {
	env, _ := demoDoris(t)
	closed := strconv.Itoa(closedPort(t))
	for _, tc := range []struct {
		env    map[string]string
		reason string
	}{
		{with(env, "DORIS_PASSWORD", "not-the-password"), "DORIS_AUTHENTICATION_FAILED"},
		{with(env, "DORIS_PORT", closed), "DORIS_CONNECTION_FAILED"},
		{with(env, "DORIS_DATABASE", "no_such_db"), "DORIS_DATABASE_UNAVAILABLE"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			p := startInProcess(t, tc.env)
			resp, err := http.Get(p.base + "/ready")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var ready struct{ Status, Reason string }
			if err := json.Unmarshal(body, &ready); err != nil || resp.StatusCode != 503 || ready.Reason != tc.reason {
				t.Fatalf("/ready: %d %s, want 503 with reason %s", resp.StatusCode, body, tc.reason)
			}
			if strings.Contains(string(body), "Access denied") || strings.Contains(string(body), "errCode") {
				t.Fatalf("/ready carries backend text: %s", body)
			}

			// At start, over stdio: one WARN with the reason.
			stdin, hold := io.Pipe()
			logs := &lockedBuffer{}
			done := make(chan error, 1)
			go func() {
				done <- run(context.Background(), []string{"--env-file", os.DevNull}, tc.env, stdin, io.Discard, logs)
			}()
			warned := waitFor(20*time.Second, 20*time.Millisecond, func() bool { return strings.Contains(logs.String(), tc.reason) })
			hold.Close()
			if err := <-done; err != nil {
				t.Fatalf("run: %v", err)
			}
			got := logs.String()
			if !warned || strings.Count(got, "Doris cannot serve yet") != 1 || !strings.Contains(got, "doctor") {
				t.Fatalf("startup log lacks one WARN naming %s:\n%s", tc.reason, got)
			}
		})
	}
}

// TestCheckConfigSaysOffline: --check-config says it did not contact
// Doris and points at doctor.
func TestCheckConfigSaysOffline(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"--check-config", "--env-file", os.DevNull}, map[string]string{}, nil, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Doris was not contacted") || !strings.Contains(out.String(), "doris-mcp-server doctor") {
		t.Fatalf("stdout %q", out.String())
	}
}
