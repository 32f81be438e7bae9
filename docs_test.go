package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryVariableDocumented: every setting the loader reads (all of
// them: it is the one reader of the environment) is named in README.md,
// so the README's configuration reference cannot fall behind the code.
func TestEveryVariableDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
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
		t.Errorf("settings the server reads but README.md does not name: %s", strings.Join(missing, ", "))
	}
}
