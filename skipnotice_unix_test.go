//go:build unix

package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// TestSkipNoticeWithoutPrerequisites runs this test binary again, without
// -v, outside CI, detached from any terminal, with Node and MariaDB
// hidden (an empty PATH, DORIS_MCP_MARIADB_PATH at an empty directory,
// DORIS_MCP_NODE at nothing): its plain output has one line naming the
// package, that the end-to-end tests were skipped, and each missing
// prerequisite.
func TestSkipNoticeWithoutPrerequisites(t *testing.T) {
	empty := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = []string{"PATH=" + empty, mariadb.PathVariable + "=" + empty, "HOME=" + empty,
		"DORIS_MCP_NODE=" + empty + "/node", "DORIS_MCP_NPM_DIR=" + empty, "TMPDIR=" + os.TempDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	out := string(b)
	var notes []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "NOTE ") {
			notes = append(notes, l)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("%d NOTE lines, want one:\n%s", len(notes), out)
	}
	for _, want := range []string{"NOTE doris-mcp-server (end-to-end): integration tests were SKIPPED", "MariaDB is not installed", "Node 22"} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("the line lacks %q: %s", want, notes[0])
		}
	}
}
