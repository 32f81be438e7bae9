package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// runProvider starts the built binary as the server starts a provider:
// without a shell, with a fixed environment and no inherited credentials,
// one request on stdin. It returns stdout, stderr and the exit code.
func runProvider(t *testing.T, bin string, args []string, stdin []byte) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"metricflow-provider"}, args...)...)
	cmd.Env = []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run provider: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the provider did not exit")
	}
	return out.String(), errb.String(), code
}

func request(op string, args map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"protocol_version": "doris-mcp-metricflow/v1", "request_id": "req-1", "operation": op, "arguments": args})
	return b
}

// TestMetricFlowProviderProcess runs `doris-mcp-server metricflow-provider`
// as a process: one request on stdin, one response line on stdout, exit 0,
// refusals as reason codes, stdin bounded.
func TestMetricFlowProviderProcess(t *testing.T) {
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	bin := buildServer(t, repo)
	demo := "demo=" + filepath.Join(repo, "doris", "semanticprovider", "testdata", "demo_semantic_manifest.json")

	type response struct {
		ProtocolVersion string         `json:"protocol_version"`
		RequestID       string         `json:"request_id"`
		OK              bool           `json:"ok"`
		Data            map[string]any `json:"data"`
		Error           struct {
			ReasonCode string `json:"reason_code"`
		} `json:"error"`
	}
	decode := func(t *testing.T, stdout string) response {
		t.Helper()
		if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
			t.Fatalf("stdout is not exactly one line: %q", stdout)
		}
		var r response
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("stdout is not JSON: %v: %q", err, stdout)
		}
		if r.ProtocolVersion != "doris-mcp-metricflow/v1" {
			t.Fatalf("protocol_version %q", r.ProtocolVersion)
		}
		return r
	}
	cases := []struct {
		name   string
		args   []string
		stdin  []byte
		reason string // "" for success
		check  func(t *testing.T, r response)
	}{
		{"list_models", []string{"--manifest", demo}, request("list_models", map[string]any{}), "", func(t *testing.T, r response) {
			if r.RequestID != "req-1" || len(r.Data["items"].([]any)) != 1 {
				t.Errorf("got %+v", r)
			}
		}},
		{"compile_query", []string{"--manifest", demo}, request("compile_query", map[string]any{"model_ref": "demo", "dialect": "doris",
			"request": map[string]any{"metrics": []string{"revenue", "orders"}, "group_by": []string{"metric_time__month", "customer__country"}, "limit": 10}}), "", func(t *testing.T, r response) {
			sql, _ := r.Data["sql"].(string)
			if _, err := guard.Check(sql); err != nil || !strings.Contains(sql, "DATE_TRUNC(") {
				t.Errorf("compiled SQL %q: %v", sql, err)
			}
			if r.Data["dialect"] != "doris" || r.Data["model_ref"] != "demo" {
				t.Errorf("got %v", r.Data)
			}
		}},
		{"a refusal is a reason code", []string{"--manifest", demo}, request("compile_query", map[string]any{"model_ref": "demo", "request": map[string]any{"metrics": []string{"nope"}}}), "METRICFLOW_METRIC_NOT_FOUND", nil},
		{"a bad request is refused", []string{"--manifest", demo}, []byte(`{"protocol_version":"doris-mcp-metricflow/v1","request_id":"req-1","operation":"list_models","arguments":{},"extra":1}`), "METRICFLOW_REQUEST_INVALID", nil},
		{"an empty stdin is refused", []string{"--manifest", demo}, nil, "METRICFLOW_REQUEST_INVALID", nil},
		{"stdin is bounded", []string{"--manifest", demo}, append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), 3<<20)...), "METRICFLOW_REQUEST_TOO_LARGE", nil},
		{"no manifest still answers", nil, request("list_models", map[string]any{}), "METRICFLOW_PROVIDER_MISCONFIGURED", nil},
		{"an unknown flag still answers", []string{"--manifest", demo, "--sql", "x"}, request("list_models", map[string]any{}), "METRICFLOW_PROVIDER_MISCONFIGURED", nil},
		{"a missing manifest file", []string{"--manifest", "demo=/nonexistent/semantic_manifest.json"}, request("get_status", map[string]any{"model_ref": "demo"}), "", func(t *testing.T, r response) {
			if r.Data["model_valid"] != false || !strings.Contains(r.Data["issues"].([]any)[0].(string), "METRICFLOW_MANIFEST_UNREADABLE") {
				t.Errorf("got %v", r.Data)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runProvider(t, bin, c.args, c.stdin)
			if code != 0 {
				t.Fatalf("exit code %d, want 0; stderr: %s", code, stderr)
			}
			r := decode(t, stdout)
			if c.reason == "" && !r.OK {
				t.Fatalf("refused with %s; stderr: %s", r.Error.ReasonCode, stderr)
			}
			if c.reason != "" && (r.OK || r.Error.ReasonCode != c.reason) {
				t.Fatalf("got ok=%v %s, want %s", r.OK, r.Error.ReasonCode, c.reason)
			}
			if c.reason != "" && !strings.Contains(stderr, "metricflow-provider") {
				t.Errorf("a refusal leaves no diagnostic on stderr: %q", stderr)
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
	t.Run("--help", func(t *testing.T) {
		stdout, stderr, code := runProvider(t, bin, []string{"--help"}, nil)
		if code != 0 || stdout != "" || !strings.Contains(stderr, "--manifest") {
			t.Fatalf("code %d stdout %q stderr %q", code, stdout, stderr)
		}
	})
}
