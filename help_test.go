package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelp: `help` and --help print, on stdout and with success, what the
// server is, a line per subcommand, where configuration comes from, the
// ten first settings with their defaults and where the full reference
// is.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"doctor", "--help"}} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, map[string]string{}, nil, &out, &errb); err != nil {
			t.Fatalf("%v: %v (a request for help succeeds)", args, err)
		}
		got := out.String()
		for _, want := range []string{
			"serves Apache Doris to MCP Hosts",
			"doris-mcp-server doctor [flags]", "doris-mcp-server metricflow-provider", "doris-mcp-server help",
			"flags win over the environment",
			"DORIS_HOST", "(default localhost)", "DORIS_PORT", "(default 9030)", "DORIS_PASSWORD", "TRANSPORT", "(default stdio)",
			"docs/configuration.md", "--check-config", "-doris-host",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%v: help lacks %q", args, want)
			}
		}
		if n := len(firstSettings()); n != 10 {
			t.Errorf("%d first settings, want ten", n)
		}
		if errb.Len() != 0 {
			t.Errorf("%v: stderr %q", args, errb.String())
		}
	}
	// A mistyped flag fails and points at --help.
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"--no-such-flag"}, map[string]string{}, nil, &out, &errb); err == nil ||
		!strings.Contains(errb.String(), "--help") {
		t.Fatalf("bad flag: err %v, stderr %q", err, errb.String())
	}
}
