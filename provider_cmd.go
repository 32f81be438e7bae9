package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
)

// providerCommand is the first argument that runs the built-in MetricFlow
// provider instead of the server.
const providerCommand = "metricflow-provider"

// manifestFlags collects repeated --manifest values.
type manifestFlags []semanticprovider.Source

func (m *manifestFlags) String() string {
	var parts []string
	for _, s := range *m {
		parts = append(parts, s.Ref+"="+s.Path)
	}
	return strings.Join(parts, ",")
}

func (m *manifestFlags) Set(v string) error {
	s, err := semanticprovider.ParseSource(v)
	if err != nil {
		return err
	}
	*m = append(*m, s)
	return nil
}

// runMetricFlowProvider is `doris-mcp-server metricflow-provider --manifest
// [REF=]PATH ...`: it answers one doris-mcp-metricflow/v1 request from stdin
// on stdout and exits. The server starts it once per request, from
// METRICFLOW_PROVIDER_COMMAND_JSON. A wrong command line still gets a
// protocol answer (METRICFLOW_PROVIDER_MISCONFIGURED) when a request
// arrives, so the server reports a reason code rather than a failed
// process; the explanation goes to stderr.
func runMetricFlowProvider(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(providerCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var manifests manifestFlags
	fs.Var(&manifests, "manifest", "a dbt semantic manifest to serve, as `[REF=]PATH` (repeatable); "+
		"without REF, <project>/target/semantic_manifest.json is served as <project>")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doris-mcp-server %s --manifest [REF=]PATH [--manifest ...]\n\n", providerCommand)
		fmt.Fprintf(stderr, "Answers one %s request on stdin with one response on stdout,\n", semanticprovider.ProtocolVersion)
		fmt.Fprintln(stderr, "compiling dbt semantic manifests to Doris SQL. It never connects to Doris.")
		fs.PrintDefaults()
	}
	var p *semanticprovider.Provider
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case err != nil:
		p = semanticprovider.Misconfigured(err.Error())
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "metricflow-provider: unexpected argument %q\n", fs.Arg(0))
		p = semanticprovider.Misconfigured("unexpected argument")
	default:
		if p, err = semanticprovider.New(manifests); err != nil {
			fmt.Fprintln(stderr, "metricflow-provider:", err)
			p = semanticprovider.Misconfigured(err.Error())
		}
	}
	return p.Serve(ctx, stdin, stdout, stderr)
}
