package main

// The command-line client (`doris-mcp-server client`) against the demo
// (the simulator over MariaDB): list, discover, call and page over HTTP
// with a bearer token; check, the Host test sequence, passing over HTTP
// and over stdio, and failing, naming the step and its evidence, when
// Doris is down and when the account lacks the privilege a step needs.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// runClientCmd runs `bin client args...` with env and returns stdout,
// stderr and the exit code.
func runClientCmd(t *testing.T, bin string, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	dir := t.TempDir()
	all := serverBaseEnv(dir)
	for k, v := range env {
		all[k] = v
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"client"}, args...)...)
	cmd.Dir, cmd.Env = dir, envList(all)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("client %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

func TestClient(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING: builds the binary and starts MariaDB (not in -short mode)")
	}
	d := startBridgeDoris(t)
	repo, _ := os.Getwd()
	bin := buildServer(t, repo)
	env := map[string]string{"ENABLE_TOKEN_AUTH": "true", "TOKEN_CLIENT": bridgeToken, "MCP_LIST_PAGE_SIZE": "3"}
	for k, v := range d.env {
		env[k] = v
	}
	remote := startRemote(t, bin, closedPort(t), env)
	url := remote.base + "/mcp"
	tokenEnv := map[string]string{bridgeTokenVariable: bridgeToken}

	t.Run("list discover call page", func(t *testing.T) {
		out, errOut, code := runClientCmd(t, bin, tokenEnv, "list", url)
		if code != 0 || !strings.Contains(out, "doris_catalog") || !strings.Contains(out, "8 tools (3 pages)") {
			t.Fatalf("list: %d\n%s\n%s", code, out, errOut)
		}
		out, errOut, code = runClientCmd(t, bin, tokenEnv, "discover", "doris_catalog", url)
		if code != 0 || !strings.Contains(out, "list_tables") || !strings.Contains(out, "[callable]") {
			t.Fatalf("discover: %d\n%s\n%s", code, out, errOut)
		}
		out, errOut, code = runClientCmd(t, bin, tokenEnv, "call", "doris_catalog", "list_tables", "--arg", "database=demo", "--json", url)
		var env map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &env) != nil || env["mode"] != "result" || !strings.Contains(out, `"orders"`) {
			t.Fatalf("call --json: %d\n%s\n%s", code, out, errOut)
		}
		out, errOut, code = runClientCmd(t, bin, tokenEnv, "call", "doris_query", "execute_query", "--json", `{"sql":"SELECT COUNT(*) AS n FROM demo.orders"}`, url)
		if code != 0 || !strings.Contains(out, `"n"`) {
			t.Fatalf("call --json '{...}': %d\n%s\n%s", code, out, errOut)
		}
		// An error envelope exits non-zero and says what it is.
		out, errOut, code = runClientCmd(t, bin, tokenEnv, "call", "doris_query", "execute_query", "--arg", "sql=DROP TABLE demo.orders", url)
		if code == 0 || !strings.Contains(errOut, "QUERY_READ_ONLY_VIOLATION") {
			t.Fatalf("call with write SQL: %d\n%s\n%s", code, out, errOut)
		}
		out, errOut, code = runClientCmd(t, bin, tokenEnv, "page", url)
		if code != 0 || !strings.Contains(out, "page 3:") || !strings.Contains(out, "nextCursor") {
			t.Fatalf("page (tools/list): %d\n%s\n%s", code, out, errOut)
		}
		out, errOut, code = runClientCmd(t, bin, tokenEnv, "page", "doris_catalog", "list_tables", "--arg", "database=demo", "--json", url)
		var pages struct {
			OK    bool
			Pages int
			Items []map[string]any
		}
		if code != 0 || json.Unmarshal([]byte(out), &pages) != nil || !pages.OK || len(pages.Items) < 5 {
			t.Fatalf("page list_tables: %d\n%s\n%s", code, out, errOut)
		}
		// No credential: the refusal is reported, the token never printed.
		_, errOut, code = runClientCmd(t, bin, nil, "list", url)
		if code == 0 || !strings.Contains(errOut, "401") {
			t.Fatalf("no token: %d %s", code, errOut)
		}
	})

	t.Run("check over HTTP", func(t *testing.T) {
		out, errOut, code := runClientCmd(t, bin, tokenEnv, "check", url)
		t.Logf("client check %s:\n%s", url, out)
		if code != 0 || strings.Count(out, "PASS ") != 8 || !strings.Contains(out, "check: all 8 steps passed") {
			t.Fatalf("check over HTTP: exit %d\n%s\n%s", code, out, errOut)
		}
		if strings.Contains(out+errOut, bridgeToken) {
			t.Error("the token appears in the client's output")
		}
		out, _, code = runClientCmd(t, bin, tokenEnv, "check", "--json", url)
		var res struct {
			OK     bool
			Passed int
			Steps  []struct {
				Step     int
				Name     string
				OK       bool
				Evidence string
			}
		}
		if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !res.OK || res.Passed != 8 || len(res.Steps) != 8 || res.Steps[7].Evidence == "" {
			t.Fatalf("check --json: %d %s", code, out)
		}
		writeSummary("client check (HTTP, demo): %d/8 steps passed", res.Passed)
	})

	t.Run("check over stdio", func(t *testing.T) {
		out, errOut, code := runClientCmd(t, bin, d.env, "check", "--", bin, "--transport", "stdio")
		t.Logf("client check -- doris-mcp-server --transport stdio:\n%s", out)
		if code != 0 || !strings.Contains(out, "check: all 8 steps passed") {
			t.Fatalf("check over stdio: exit %d\n%s\n%s", code, out, errOut)
		}
	})

	t.Run("check with Doris down", func(t *testing.T) {
		down := map[string]string{}
		for k, v := range d.env {
			down[k] = v
		}
		closed := strconv.Itoa(closedPort(t))
		down["DORIS_PORT"], down["DORIS_FE_HTTP_PORT"], down["DORIS_BE_WEBSERVER_PORT"] = closed, closed, closed
		down["DORIS_CONNECTION_TIMEOUT"] = "2"
		out, errOut, code := runClientCmd(t, bin, down, "check", "--", bin, "--transport", "stdio")
		t.Logf("client check, Doris down:\n%s", out)
		if code == 0 || !strings.Contains(out, "PASS 1 identity") || !strings.Contains(out, "FAIL 3 catalog tables") {
			t.Fatalf("check with Doris down: exit %d\n%s\n%s", code, out, errOut)
		}
		line := lineWith(out, "FAIL 3 ")
		if !strings.Contains(line, "list_databases") || !strings.Contains(line, "CHILD_") {
			t.Errorf("the failed step names no evidence: %q", line)
		}
	})

	t.Run("check with a privilege missing", func(t *testing.T) {
		// An account with the reader's grants but none on demo.
		ctx := context.Background()
		if err := d.db.Exec(ctx, "CREATE OR REPLACE USER 'check_nopriv'@'%' IDENTIFIED BY 'nopriv-pw-1'",
			"GRANT SELECT ON "+mariadb.SimSchema+".* TO 'check_nopriv'@'%'", "GRANT SELECT ON "+mariadb.InternalDatabase+".* TO 'check_nopriv'@'%'"); err != nil {
			t.Fatal(err)
		}
		d.sim.SetUser("check_nopriv", "nopriv-pw-1")
		weak := map[string]string{}
		for k, v := range d.env {
			weak[k] = v
		}
		weak["DORIS_USER"], weak["DORIS_PASSWORD"], weak["DORIS_DATABASE"] = "check_nopriv", "nopriv-pw-1", "information_schema"
		out, errOut, code := runClientCmd(t, bin, weak, "check", "--database", "demo", "--", bin, "--transport", "stdio")
		t.Logf("client check, no SELECT on demo:\n%s", out)
		if code == 0 || !strings.Contains(out, "FAIL 3 catalog tables") {
			t.Fatalf("check without the privilege: exit %d\n%s\n%s", code, out, errOut)
		}
		if line := lineWith(out, "FAIL 3 "); !strings.Contains(line, "list_tables demo") || !strings.Contains(line, "CATALOG_PERMISSION_DENIED") {
			t.Errorf("the failed step names no evidence: %q", line)
		}
		if !strings.Contains(out, "check: 7 of 8 steps passed; failed: 3 catalog tables") {
			t.Errorf("only the step that needs the privilege should fail:\n%s", out)
		}
	})
}

func lineWith(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
