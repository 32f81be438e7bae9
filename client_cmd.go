package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/mcp/client"
)

// clientCommand is the first argument that runs the command-line MCP
// client instead of the server (docs/bridge-and-client.md).
const clientCommand = "client"

// listFlag collects repeated values.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// runClient is `doris-mcp-server client COMMAND [ARGS] [flags] TARGET`,
// TARGET being a URL or `--` and a command line speaking stdio.
func runClient(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) error {
	var serverArgv []string
	for i, a := range args {
		if a == "--" {
			args, serverArgv = args[:i], args[i+1:]
			break
		}
	}
	// --json '{...}' gives a child's arguments; --json alone, JSON output.
	var rewritten []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--json" && i+1 < len(args) && strings.HasPrefix(strings.TrimSpace(args[i+1]), "{") {
			rewritten = append(rewritten, "--args-json", args[i+1])
			i++
			continue
		}
		if v, ok := strings.CutPrefix(args[i], "--json="); ok && strings.HasPrefix(strings.TrimSpace(v), "{") {
			rewritten = append(rewritten, "--args-json", v)
			continue
		}
		rewritten = append(rewritten, args[i])
	}
	fs := flag.NewFlagSet(clientCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf remoteFlags
	rf.register(fs)
	var o client.Options
	var pairs listFlag
	fs.BoolVar(&o.JSON, "json", false, "print JSON for scripts (followed by a JSON object: a child's arguments)")
	fs.Var(&pairs, "arg", "a child argument `key=value`, typed by the child's input schema (repeatable)")
	fs.StringVar(&o.ArgsJSON, "args-json", "", "the child's arguments as a JSON object (also --json '{...}')")
	fs.IntVar(&o.MaxPages, "max-pages", 100, "page: follow at most this many cursors")
	fs.StringVar(&o.Database, "database", "", "check: the database to list tables of (default: the first that is not a system database)")
	fs.StringVar(&o.DeniedTable, "denied-table", client.DefaultDeny, "check: an object the account may not read")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doris-mcp-server %s COMMAND [ARGS] [flags] URL\n       doris-mcp-server %s COMMAND [ARGS] [flags] -- SERVER-COMMAND [ARGS]\n\n%s\nflags:\n", clientCommand, clientCommand, client.Usage)
		fs.PrintDefaults()
	}
	if err := refuseTokenArgs(args); err != nil {
		fmt.Fprintln(stderr, "client:", err)
		return errReported
	}
	var positional []string
	rest := rewritten
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return errReported
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	o.Args = pairs
	o.Out, o.Err = stdout, stderr
	if len(positional) == 0 || (serverArgv == nil && len(positional) < 2) {
		fs.Usage()
		return errReported
	}
	var conn client.Conn
	if serverArgv != nil {
		c, err := client.StartStdio(serverArgv, nil, rf.timeout)
		if err != nil {
			fmt.Fprintln(stderr, "client:", err)
			return errReported
		}
		conn = c
	} else {
		target := positional[len(positional)-1]
		positional = positional[:len(positional)-1]
		log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		r, err := rf.remote(ctx, target, env, stderr, log)
		if err != nil {
			fmt.Fprintln(stderr, "client:", err)
			return errReported
		}
		conn = &client.HTTPConn{Remote: r}
	}
	defer conn.Close()
	if code := client.Run(ctx, conn, positional[0], positional[1:], o); code != client.ExitOK {
		return errReported
	}
	return nil
}
