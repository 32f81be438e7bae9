package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/mcp/bridge"
)

// bridgeCommand is the first argument that runs the stdio bridge to a
// remote server instead of the server (docs/bridge-and-client.md).
const bridgeCommand = "bridge"

// bridgeTokenVariable holds the bridge's bearer token when --token-file
// does not: never argv, which every user of the machine can read.
const bridgeTokenVariable = "MCP_BRIDGE_TOKEN"

// remoteFlags are the options of a connection to a remote server, shared
// by `bridge` and `client`.
type remoteFlags struct {
	tokenFile  string
	caFile     string
	timeout    time.Duration
	allowHTTP  bool
	oauth      bool
	clientID   string
	scope      string
	noBrowser  bool
	callback   int
	loginFirst bool
}

func (f *remoteFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.tokenFile, "token-file", "", "read the bearer token from `PATH` (else $"+bridgeTokenVariable+")")
	fs.StringVar(&f.caFile, "ca-file", "", "trust the PEM certificates in `PATH` besides the system roots")
	fs.DurationVar(&f.timeout, "timeout", bridge.DefaultTimeout, "bound of one request to the remote, answered with a REMOTE_TIMEOUT error past it")
	fs.BoolVar(&f.allowHTTP, "allow-http", false, "allow plain http:// to a host that is not loopback (the token travels in clear)")
	fs.BoolVar(&f.oauth, "oauth", false, "sign in with OAuth 2.1 (authorization code + PKCE) against the remote's metadata")
	fs.StringVar(&f.clientID, "client-id", "", "OAuth client id registered for the bridge (default: dynamic registration)")
	fs.StringVar(&f.scope, "scope", "", "OAuth scopes to request (default: what the remote's challenge names)")
	fs.BoolVar(&f.noBrowser, "no-browser", false, "print the sign-in URL on stderr without opening a browser")
	fs.IntVar(&f.callback, "callback-port", 0, "loopback `PORT` of the OAuth redirect listener (default: any free port)")
	fs.BoolVar(&f.loginFirst, "login", false, "with --oauth: sign in now (before serving), as `gh auth login` does")
}

// refuseTokenArgs refuses a token on the command line.
func refuseTokenArgs(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "token" || name == "bearer" || name == "header") {
			return fmt.Errorf("--%s: a credential on the command line is readable by every user of the machine (ps); use --token-file PATH or %s", name, bridgeTokenVariable)
		}
	}
	return nil
}

// remote builds the connection to target from the flags and the
// environment (env: only main reads it).
func (f *remoteFlags) remote(ctx context.Context, target string, env map[string]string, stderr io.Writer, log *slog.Logger) (*bridge.Remote, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http:// or https:// URL", target)
	}
	if u.User != nil {
		return nil, errors.New("the URL holds credentials; give the token with --token-file or " + bridgeTokenVariable)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/mcp"
	}
	if u.Scheme == "http" && !auth.IsLoopback(u.Hostname()) && !f.allowHTTP {
		return nil, fmt.Errorf("%s is plain http to a host that is not loopback: the credential and every result would travel in clear; use https, or --allow-http to accept that", u.Redacted())
	}
	tlsConfig, err := bridge.TLSConfig(f.caFile)
	if err != nil {
		return nil, err
	}
	r := &bridge.Remote{URL: u, HTTP: bridge.NewHTTPClient(tlsConfig), Timeout: f.timeout, UserAgent: serverName + "-bridge/" + moduleVersion()}
	token, err := f.staticToken(env)
	if err != nil {
		return nil, err
	}
	switch {
	case token != "" && f.oauth:
		return nil, errors.New("give a bearer token or --oauth, not both")
	case token != "":
		r.Creds = bridge.StaticToken(token)
	case f.oauth:
		store, err := tokenStore(env)
		if err != nil {
			return nil, err
		}
		o := &bridge.OAuth{Resource: u.String(), HTTP: r.HTTP, Store: store, ClientID: f.clientID, Scope: f.scope,
			CallbackPort: f.callback, Prompt: stderr, Log: log, ClientName: serverName + " bridge"}
		if !f.noBrowser {
			o.Open = browserOpener(env)
		}
		if f.loginFirst {
			if err := o.Login(ctx); err != nil {
				return nil, err
			}
		}
		r.Creds = o
	}
	return r, nil
}

// staticToken reads the bearer token of --token-file or MCP_BRIDGE_TOKEN.
func (f *remoteFlags) staticToken(env map[string]string) (string, error) {
	fromEnv := env[bridgeTokenVariable]
	if f.tokenFile == "" {
		return strings.TrimSpace(fromEnv), nil
	}
	if fromEnv != "" {
		return "", errors.New("give the token with --token-file or " + bridgeTokenVariable + ", not both")
	}
	b, err := os.ReadFile(f.tokenFile)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, "\r\n\t ") {
		return "", fmt.Errorf("--token-file %s must hold one token on one line", f.tokenFile)
	}
	return tok, nil
}

// tokenStore is where OAuth tokens are kept: the user's configuration
// directory (XDG_CONFIG_HOME, else ~/.config, as os.UserConfigDir says),
// doris-mcp-server/oauth.
func tokenStore(env map[string]string) (string, error) {
	dir := env["XDG_CONFIG_HOME"]
	if dir == "" || !filepath.IsAbs(dir) {
		home := env["HOME"]
		if home == "" {
			return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: no configuration directory for the OAuth tokens")
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, serverName, "oauth"), nil
}

// browserOpener opens a URL in the person's browser: $BROWSER when set
// (a command, given the URL), else xdg-open; nil when neither exists.
func browserOpener(env map[string]string) func(string) error {
	cmd := env["BROWSER"]
	if cmd == "" {
		cmd = "xdg-open"
		if env["DISPLAY"] == "" && env["WAYLAND_DISPLAY"] == "" {
			return nil // no desktop: print the URL only
		}
	}
	return bridge.CommandOpener(cmd)
}

// runBridge is `doris-mcp-server bridge [flags] URL`.
func runBridge(ctx context.Context, args []string, env map[string]string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(bridgeCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rf remoteFlags
	rf.register(fs)
	logFile := fs.String("log-file", "", "append the bridge's log to `PATH` (0600) instead of stderr")
	drainTimeout := fs.Duration("drain-timeout", 10*time.Second, "how long requests in flight get to answer after the Host closes stdin")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doris-mcp-server %s [flags] URL\n\n", bridgeCommand)
		fmt.Fprintln(stderr, "A stdio MCP server for a Host that can only start a local process: every message")
		fmt.Fprintln(stderr, "is forwarded to the remote Streamable HTTP endpoint URL (…/mcp), with the credential.")
		fmt.Fprintf(stderr, "The bearer token comes from --token-file or $%s, never from the command line.\n\n", bridgeTokenVariable)
		fs.PrintDefaults()
	}
	if err := refuseTokenArgs(args); err != nil {
		fmt.Fprintln(stderr, "bridge:", err)
		return errReported
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errReported
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errReported
	}
	logOut := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("--log-file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	log := slog.New(slog.NewJSONHandler(logOut, nil)).With("service", serverName+"-bridge")
	r, err := rf.remote(ctx, fs.Arg(0), env, stderr, log)
	if err != nil {
		fmt.Fprintln(stderr, "bridge:", err)
		return errReported
	}
	log.Info("bridging stdio to the remote", "remote", r.Redacted(), "timeout_seconds", r.Timeout.Seconds(), "credential", credentialKind(r))
	b := &bridge.Bridge{Remote: r, Log: log, DrainTimeout: *drainTimeout}
	return b.Serve(ctx, stdin, stdout)
}

func credentialKind(r *bridge.Remote) string {
	switch r.Creds.(type) {
	case nil:
		return "none"
	case bridge.StaticToken:
		return "bearer token"
	default:
		return "oauth"
	}
}
