package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryVariableDocumented: every setting the loader reads (all of
// them: it is the one reader of the environment) is named in the
// reference under docs/, so it cannot fall behind the code.
func TestEveryVariableDocumented(t *testing.T) {
	readme := docsText(t)
	known := knownSettings()
	if len(known) < 150 {
		t.Fatalf("the loader reads only %d settings; knownSettings no longer lists them", len(known))
	}
	var missing []string
	for name := range known {
		if !regexp.MustCompile(`\b` + name + `\b`).Match(readme) {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("settings the server reads but docs/ does not name: %s", strings.Join(missing, ", "))
	}
}

// docsText is every page under docs/, joined.
func docsText(t *testing.T) []byte {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	var all []byte
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(append(all, b...), '\n')
	}
	return all
}

// TestReadmeIsShort: the README is for a newcomer; the reference lives
// in docs/.
func TestReadmeIsShort(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 300 {
		t.Errorf("README.md has %d lines; keep it under 300 and move the reference to docs/", n)
	}
}

// TestDocLinksResolve: every relative link in README.md and docs/ names
// a file that exists (anchors are not checked).
func TestDocLinksResolve(t *testing.T) {
	pages, _ := filepath.Glob(filepath.Join("docs", "*.md"))
	pages = append(pages, "README.md")
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllSubmatch(b, -1) {
			target := string(m[1])
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", p, target)
			}
		}
	}
}
