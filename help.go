package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// subcommands are the commands besides serving, one help line each; a
// new subcommand adds its line here and its dispatch line in run.
var subcommands = []struct{ usage, what string }{
	{doctorCommand + " [flags]", "connect to Doris with this configuration and say, line by line, what works and what to set to fix the rest; exit 0 only when the server would serve"},
	{bridgeCommand + " [flags] URL", "a stdio server for a Host that can only start a process, forwarding to a remote /mcp with a bearer token or OAuth (docs/bridge-and-client.md)"},
	{clientCommand + " COMMAND [ARGS] TARGET", "a command-line MCP client: list, discover, call, page, and check (the Host test sequence) against a URL or -- a command"},
	{providerCommand, "the built-in MetricFlow provider; the server starts it itself (METRICFLOW_ENABLED), a person does not"},
	{"help", "print this help"},
}

// firstSettings are the settings people set first; printHelp shows each
// with its default, read from DefaultConfig so that it cannot drift.
func firstSettings() [][3]string {
	d := DefaultConfig()
	orNone := func(s string) string {
		if s == "" {
			return "empty"
		}
		return s
	}
	return [][3]string{
		{"DORIS_HOST", "the Doris FE to connect to (DORIS_HOSTS lists failover FEs)", d.Doris.Host},
		{"DORIS_PORT", "the FE's MySQL-protocol query port", strconv.Itoa(d.Doris.Port)},
		{"DORIS_USER", "the Doris account the server uses", d.Doris.User},
		{"DORIS_PASSWORD", "its password (prefer the variable or .env to the flag)", orNone(d.Doris.Password)},
		{"DORIS_DATABASE", "the session database", d.Doris.Database},
		{"DORIS_FE_HTTP_PORT", "the FE's HTTP port (0 turns the FE HTTP children off)", strconv.Itoa(d.Doris.FEHTTPPort)},
		{"TRANSPORT", "stdio (a Host starts the server) or http", d.Transport},
		{"SERVER_PORT", "the HTTP port (with TRANSPORT=http; SERVER_HOST is the bind host)", strconv.Itoa(d.Port)},
		{"MCP_STATE_HANDLE_SECRET", "signs list cursors; set it (32+ bytes) so they survive a restart", "random per launch"},
		{"LOG_LEVEL", "DEBUG, INFO, WARNING or ERROR (logs go to stderr)", "INFO"},
	}
}

// wantsHelp reports a request for help: `help`, -h, -help or --help
// anywhere among the flags.
func wantsHelp(args []string) bool {
	if len(args) > 0 && args[0] == "help" {
		return true
	}
	return slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" })
}

// printHelp is what --help and `help` print: what the server is, its
// subcommands, where configuration comes from, the first settings and
// where every other one is described, then the flags.
func printHelp(w io.Writer) {
	fmt.Fprint(w, `doris-mcp-server serves Apache Doris to MCP Hosts (Claude Desktop, Cursor, VS Code, agents):
eight domain tools (catalog, query, cluster, pipeline, search, governance, lakehouse, semantic),
each discovering its operations as the Host asks, and only bounded, read-only statements run
under the caller's own Doris identity. It speaks MCP over stdio (the default: the Host starts
it) or Streamable HTTP (TRANSPORT=http). It is one static binary with no other dependency.

Usage:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  doris-mcp-server [flags]\t%s\n", "serve MCP (stdio, or HTTP with TRANSPORT=http)")
	for _, c := range subcommands {
		fmt.Fprintf(tw, "  doris-mcp-server %s\t%s\n", c.usage, c.what)
	}
	tw.Flush()
	fmt.Fprint(w, `
Configuration comes from the environment, a .env file (./.env, or --env-file) and flags;
flags win over the environment, and the environment over .env. The settings people set first:
`)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range firstSettings() {
		fmt.Fprintf(tw, "  %s\t%s\t(default %s)\n", s[0], s[1], s[2])
	}
	tw.Flush()
	fmt.Fprint(w, `
Every setting, with its range and default: docs/configuration.md.
--check-config validates the configuration offline; doctor checks it against Doris.

Flags:
`)
	fs := newFlagSet(w).fs
	fs.PrintDefaults()
}

// shortUsage is what a mistyped flag prints after the flag package's own
// line.
func shortUsage(w io.Writer) {
	fmt.Fprintln(w, "run `doris-mcp-server --help` for the subcommands, the first settings and the flags")
}

// printCheckConfig is --check-config's report: valid, and what it did not
// check.
func printCheckConfig(w io.Writer, cfg Config) {
	fmt.Fprintf(w, "configuration OK: transport=%s exposure=%s doris=%s\n", cfg.Transport, cfg.ExposureMode, strings.Join(cfg.Doris.Addrs(), ","))
	fmt.Fprintln(w, "offline check only: Doris was not contacted; run `doris-mcp-server doctor` to check the connection, the account and what it may read")
}
