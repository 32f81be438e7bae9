package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryVariableDocumented: every environment variable the
// configuration reads (config.go, auth/config.go,
// auth/dorisoauth/config.go) is named in README.md, so the README's
// configuration reference cannot fall behind the code.
func TestEveryVariableDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// A read is l.<kind>("NAME", ...), env["NAME"] or get("NAME").
	read := regexp.MustCompile(`(?:\bl\.\w+\(|env\[|\bget\w*\()"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"`)
	var missing []string
	seen := 0
	for _, f := range []string{"config.go", "auth/config.go", "auth/dorisoauth/config.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range read.FindAllStringSubmatch(string(src), -1) {
			seen++
			if name := m[1]; !regexp.MustCompile(`\b`+name+`\b`).Match(readme) && !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
	}
	if seen < 50 {
		t.Fatalf("found only %d variable reads; the pattern no longer matches the loaders", seen)
	}
	if len(missing) > 0 {
		t.Errorf("variables the server reads but README.md does not name: %s", strings.Join(missing, ", "))
	}
}
