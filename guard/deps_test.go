package guard_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStdlibOnly keeps guard free of third-party imports: every package in
// its dependency graph must come from the standard library.
func TestStdlibOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/doris-mcp/doris-mcp-server/guard" {
			t.Errorf("guard depends on non-standard package %s", p)
		}
	}
}
