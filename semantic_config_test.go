package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSemanticConfiguration: the OSSIE_* and METRICFLOW_* settings are
// read, and a semantic model or provider that cannot be used fails the
// configuration check with its variable and reason code, reported with
// the other problems; the demo model passes.
func TestSemanticConfiguration(t *testing.T) {
	demo, err := filepath.Abs("testdata/semantic/ossie")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ossieOn := map[string]string{"OSSIE_ENABLED": "true", "OSSIE_MODEL_DIRECTORY": filepath.Join(demo, "models"),
		"OSSIE_BINDING_MANIFEST": filepath.Join(demo, "bindings.json")}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	check := func(env map[string]string) (string, error) {
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"--check-config", "--env-file", os.DevNull}, env, nil, &out, &errb)
		return errb.String() + out.String(), err
	}
	if msg, err := check(with(ossieOn, "METRICFLOW_ENABLED", "true", "METRICFLOW_PROVIDER_COMMAND_JSON", `["`+exe+`", "metricflow-provider"]`)); err != nil {
		t.Fatalf("the demo model and an executable provider: %v\n%s", err, msg)
	}
	for _, tt := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"Ossie without paths", map[string]string{"OSSIE_ENABLED": "true"}, []string{"OSSIE_CONFIGURATION_INCOMPLETE"}},
		{"missing model directory", with(ossieOn, "OSSIE_MODEL_DIRECTORY", filepath.Join(t.TempDir(), "nope")),
			[]string{"OSSIE_MODEL_DIRECTORY", "OSSIE_MODEL_DIRECTORY_INVALID"}},
		{"manifest missing, with another problem", with(ossieOn, "OSSIE_BINDING_MANIFEST", filepath.Join(t.TempDir(), "b.json"), "MCP_LIST_PAGE_SIZE", "0"),
			[]string{"OSSIE_BINDING_MANIFEST", "OSSIE_BINDING_FILE_INVALID", "MCP_LIST_PAGE_SIZE"}},
		{"context bound", with(ossieOn, "OSSIE_CONTEXT_MAX_BYTES", "100"), []string{"OSSIE_CONTEXT_MAX_BYTES"}},
		{"not a number", map[string]string{"OSSIE_MAX_DEPTH": "deep"}, []string{"OSSIE_MAX_DEPTH"}},
		{"relative provider", map[string]string{"METRICFLOW_ENABLED": "true", "METRICFLOW_PROVIDER_COMMAND_JSON": `["provider"]`},
			[]string{"METRICFLOW_PROVIDER_COMMAND_JSON", "METRICFLOW_PROVIDER_COMMAND_INVALID"}},
		{"provider missing", map[string]string{"METRICFLOW_ENABLED": "true", "METRICFLOW_PROVIDER_COMMAND_JSON": `["/nonexistent/provider"]`},
			[]string{"METRICFLOW_PROVIDER_COMMAND_JSON", "does not exist"}},
		{"provider without a command", map[string]string{"METRICFLOW_ENABLED": "true"}, []string{"METRICFLOW_PROVIDER_NOT_CONFIGURED"}},
		{"provider timeout", map[string]string{"METRICFLOW_TIMEOUT_SECONDS": "600"}, []string{"METRICFLOW_TIMEOUT_SECONDS"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := check(tt.env)
			if !errors.Is(err, errReported) {
				t.Fatalf("accepted: %v\n%s", err, msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the problems do not name %s:\n%s", w, msg)
				}
			}
		})
	}
}
