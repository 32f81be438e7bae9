package mariadb_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// TestSkipNoticeWithoutMariaDB runs this test binary again, without -v,
// with MariaDB hidden (DORIS_MCP_MARIADB_PATH at an empty directory, an
// empty PATH) and outside CI: its plain output names the package, that
// its integration tests were skipped, and the missing prerequisite.
func TestSkipNoticeWithoutMariaDB(t *testing.T) {
	out := RunHidden(t, os.Args[0])
	want := "NOTE doris/dorissim/mariadb: integration tests were SKIPPED: MariaDB is not installed"
	if !strings.Contains(out, want) {
		t.Fatalf("output lacks %q:\n%s", want, out)
	}
}

// RunHidden runs a test binary with no test selected and the
// prerequisites hidden, detached from any terminal, and returns its
// output.
func RunHidden(t *testing.T, bin string) string {
	t.Helper()
	empty := t.TempDir()
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = []string{"PATH=" + empty, mariadb.PathVariable + "=" + empty, "HOME=" + empty, "TMPDIR=" + os.TempDir()}
	detach(cmd)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	return string(out)
}
