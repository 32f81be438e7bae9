package catalog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

// TestCeilingInDiscovery: flat tools/list and the hierarchical manifest
// both state MAX_RESULT_ROWS as execute_query's max_rows maximum, and a
// call above it is refused by the schema before any handler runs.
func TestCeilingInDiscovery(t *testing.T) {
	cfg := doris.DefaultConfig()
	cfg.MaxResultRows = 1234
	const stated = `"max_rows":{"type":"integer","minimum":1,"maximum":1234`

	flat := newSurface(t, catalog.Config{Mode: catalog.Flat, Ceilings: cfg.Ceilings()}, newFakeRuntime())
	tools, err := flat.Tools(context.Background(), anon)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, tl := range tools {
		text.Write(tl.JSON)
	}
	if !strings.Contains(text.String(), stated) {
		t.Error("flat tools/list does not state max_rows maximum 1234")
	}

	h := newSurface(t, catalog.Config{Ceilings: cfg.Ceilings()}, newFakeRuntime())
	_, res := call(t, h, anon, "doris_query", `{}`)
	if !strings.Contains(string(res.Structured), `"maximum":1234,`) { // the manifest sorts members
		t.Error("the doris_query manifest does not state max_rows maximum 1234")
	}
	env, _ := call(t, h, anon, "doris_query", `{"child_tool":"execute_query","arguments":{"sql":"SELECT 1","max_rows":1235}}`)
	if e, _ := env["error"].(map[string]any); e == nil || e["code"] != "CHILD_ARGUMENTS_INVALID" {
		t.Errorf("max_rows above the ceiling: %v, want CHILD_ARGUMENTS_INVALID", env)
	}
}
