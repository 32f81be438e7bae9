package semanticprovider_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImports keeps the provider to the standard library, the guard and
// the JSON layer (doris/schema, standard library only itself): it runs as
// a separate process from the server and needs nothing else.
func TestImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider": true,
		"github.com/doris-mcp/doris-mcp-server/guard":                  true,
		"github.com/doris-mcp/doris-mcp-server/doris/schema":           true,
	}
	for _, p := range strings.Fields(string(out)) {
		if !allowed[p] {
			t.Errorf("semanticprovider depends on %s; only the standard library, guard and doris/schema are allowed", p)
		}
	}
}
