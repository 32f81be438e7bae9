package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// platforms are the desktop and edge platforms the server is released
// for (.ci/release builds the same six).
var platforms = [][2]string{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

func goCommand(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		if underCI() {
			t.Fatalf("CI=true and the go command is not on PATH: %v", err)
		}
		t.Skipf("SKIPPING: no go command on PATH: %v", err)
	}
	return gobin
}

// TestVetEveryPlatform: every package vets (and so builds, tests
// included) for each of the six platforms, cross-compiled without cgo.
// Platform-specific code comes in file pairs (mcp/metrics/process_*.go,
// doris/dorissim/mariadb/lock_*.go, doris/flightsql/flighttest/lock_*.go);
// the loadtest, a Linux tool, builds on unix only.
func TestVetEveryPlatform(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles six platforms; skipped with -short")
	}
	gobin := goCommand(t)
	for _, p := range platforms {
		t.Run(p[0]+"/"+p[1], func(t *testing.T) {
			args := []string{"vet", "./..."}
			cmd := exec.Command(gobin, args...)
			cmd.Env = append(os.Environ(), "GOOS="+p[0], "GOARCH="+p[1], "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go %s for %s/%s: %v\n%s", args[0], p[0], p[1], err, out)
			}
		})
	}
}

// TestReleaseScript: .ci/release writes the six static binaries, a
// SHA256SUMS that sha256sum -c accepts, and each binary's build
// information, which shows CGO_ENABLED=0 and -trimpath.
func TestReleaseScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds six binaries; skipped with -short")
	}
	gobin := goCommand(t)
	for _, tool := range []string{"bash", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			if underCI() {
				t.Fatalf("CI=true and %s is not on PATH", tool)
			}
			t.Skipf("SKIPPING: %s is not on PATH", tool)
		}
	}
	dir := t.TempDir()
	if out, err := exec.Command("bash", filepath.Join(".ci", "release"), dir).CombinedOutput(); err != nil {
		t.Fatalf(".ci/release: %v\n%s", err, out)
	}
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dir
	out, err := check.CombinedOutput()
	if err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	// The go command stamps VCS information only in a checkout whose .git
	// is a directory (not in a git worktree, where .git is a file).
	st, err := os.Stat(".git")
	inGit := err == nil && st.IsDir()
	for _, p := range platforms {
		name := "doris-mcp-server-" + p[0] + "-" + p[1]
		if p[0] == "windows" {
			name += ".exe"
		}
		if !strings.Contains(string(out), name+": OK") {
			t.Errorf("SHA256SUMS does not vouch for %s:\n%s", name, out)
		}
		info, err := exec.Command(gobin, "version", "-m", filepath.Join(dir, name)).Output()
		if err != nil {
			t.Fatalf("go version -m %s: %v", name, err)
		}
		saved, err := os.ReadFile(filepath.Join(dir, name+".buildinfo"))
		if err != nil || string(saved) != string(info) {
			t.Errorf("%s.buildinfo is not its go version -m output (%v)", name, err)
		}
		for _, want := range []string{"build\tCGO_ENABLED=0", "build\t-trimpath=true", "build\tGOOS=" + p[0], "build\tGOARCH=" + p[1],
			"mod\tgithub.com/doris-mcp/doris-mcp-server"} {
			if !strings.Contains(string(info), want) {
				t.Errorf("%s build information lacks %q:\n%s", name, want, info)
			}
		}
		if inGit && !strings.Contains(string(info), "build\tvcs.revision=") {
			t.Errorf("%s is not stamped with the VCS revision:\n%s", name, info)
		}
	}
}
