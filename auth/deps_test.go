package auth_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStdlibOnly keeps auth and authtest on the standard library and the
// JSON layer (doris/schema, itself standard library only): no third-party
// package and none of the packages that consume auth.
func TestStdlibOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".", "./authtest").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		switch p {
		case "github.com/doris-mcp/doris-mcp-server/auth", "github.com/doris-mcp/doris-mcp-server/auth/authtest",
			"github.com/doris-mcp/doris-mcp-server/doris/schema":
		default:
			t.Errorf("auth depends on non-standard package %s", p)
		}
	}
}
