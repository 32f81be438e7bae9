package main

// doctor: connect to Doris with the configuration the server would serve
// with, and say in plain lines what works, what does not, and what to set
// to fix it. It judges the service account (the global route, the
// identity every stdio call and every unauthenticated HTTP call runs as)
// through the same runtime, capability snapshots and catalog manifests a
// Host sees.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

const doctorCommand = "doctor"

// doctorTimeout bounds each step that talks to Doris.
const doctorTimeout = 15 * time.Second

// report prints the doctor's lines: a status word, what was checked, and
// what it found; a fix line follows a problem.
type report struct {
	w        io.Writer
	failures int
	warnings int
}

func (r *report) line(status, what, detail string) {
	fmt.Fprintf(r.w, "%-4s  %-16s %s\n", status, what, detail)
}
func (r *report) ok(what, detail string) { r.line("ok", what, detail) }
func (r *report) warn(what, detail, fix string) {
	r.warnings++
	r.line("WARN", what, detail)
	r.fix(fix)
}
func (r *report) fail(what, detail, fix string) {
	r.failures++
	r.line("FAIL", what, detail)
	r.fix(fix)
}
func (r *report) fix(fix string) {
	if fix != "" {
		fmt.Fprintf(r.w, "      %-16s fix: %s\n", "", fix)
	}
}

// runDoctor is `doris-mcp-server doctor [flags]`: the same flags, .env and
// environment as serving.
func runDoctor(ctx context.Context, args []string, env map[string]string, stdout, stderr io.Writer) error {
	if wantsHelp(args) {
		printHelp(stdout)
		return nil
	}
	flags := newFlagSet(stderr)
	if err := flags.parse(args); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "doris-mcp-server doctor: the configuration the server would use (flags, .env, environment), checked against Doris")
	r := &report{w: stdout}
	cfg, strays, err := loadConfig(flags, env, stderr)
	if err != nil {
		r.fail("configuration", "invalid (every problem is listed on stderr)", "correct the settings named there; --check-config repeats the check offline")
		return errReported
	}
	for _, s := range strays {
		if s.meant != "" {
			r.warn("configuration", s.typo(), "rename it to "+s.meant)
		}
	}
	r.ok("configuration", fmt.Sprintf("valid: transport=%s, Doris FE %s, account %q, database %q",
		cfg.Transport, strings.Join(cfg.Doris.Addrs(), ","), cfg.Doris.User, cfg.Doris.Database))
	if cfg.Auth.Enabled() || cfg.DorisOAuth.Enabled {
		r.ok("scope", "authenticated HTTP callers may run on their own Doris accounts; this checks the service account (DORIS_USER)")
	}
	serve := doctorDoris(ctx, cfg, r)
	switch {
	case !serve:
		fmt.Fprintf(stdout, "\nresult: the server would NOT serve Doris: %d problem(s) above, each with what to set\n", r.failures)
		return errReported
	case r.warnings > 0:
		fmt.Fprintf(stdout, "\nresult: the server would serve; %d warning(s) above name what stays unavailable and why\n", r.warnings)
	default:
		fmt.Fprintln(stdout, "\nresult: the server would serve")
	}
	return nil
}

// doctorDoris runs the checks against Doris and reports whether the
// server would serve: the FE reachable, the account accepted, its
// database open and the capability evidence taken.
func doctorDoris(ctx context.Context, cfg Config, r *report) bool {
	reachable := false
	for _, addr := range cfg.Doris.Addrs() {
		if checkFE(ctx, cfg, addr, r) {
			reachable = true
		}
	}
	if !reachable {
		return false
	}
	signer, err := newSigner(cfg)
	if err != nil {
		r.fail("state handles", err.Error(), "check MCP_STATE_HANDLE_SECRET")
		return false
	}
	quiet := slog.New(slog.DiscardHandler)
	rt, err := doris.Open(cfg.Doris, doris.Options{Logger: quiet, Handles: signer, Handlers: catalog.Handlers(), Probes: catalog.Probes()})
	if err != nil {
		r.fail("runtime", err.Error(), "")
		return false
	}
	defer rt.Close()
	pctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	err = rt.Ping(pctx)
	cancel()
	if err != nil {
		reportServiceError(cfg, err, r)
		return false
	}
	r.ok("login", fmt.Sprintf("Doris accepted the account %q (DORIS_USER)", cfg.Doris.User))
	r.ok("database", fmt.Sprintf("%q opens as the session database (DORIS_DATABASE)", cfg.Doris.Database))

	// The catalog's manifests, as a Host discovering each domain sees
	// them: the same surface the server builds, always hierarchical (in
	// flat mode the children are the same, only listed differently).
	surface, err := catalog.New(catalog.Config{Mode: catalog.Hierarchical, Enabled: cfg.ChildAllowlist, Disabled: cfg.ChildDenylist,
		Handles: signer, Logger: quiet, Ceilings: cfg.Doris.Ceilings()}, rt)
	if err != nil {
		r.fail("catalog", err.Error(), "check MCP_CHILD_TOOL_ALLOWLIST and MCP_CHILD_TOOL_DENYLIST")
		return false
	}
	id := auth.Anonymous()
	dctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	domains := discoverAll(dctx, surface, id)
	snap := rt.Snapshot(dctx, id, doctorProbes)
	if snap.Unavailable != "" {
		r.fail("capabilities", fmt.Sprintf("%s: %s", snap.Unavailable, snap.Detail), fixFor(snap.Unavailable, cfg))
		return false
	}
	reportServer(snap, r)
	reportHTTP(rt, cfg, snap, r)
	reportPrivileges(cfg, snap, r)
	reportDomains(domains, cfg, r)
	return true
}

// checkFE dials one FE's query port and says what answered.
func checkFE(ctx context.Context, cfg Config, addr string, r *report) bool {
	what := "FE " + addr
	d := net.Dialer{Timeout: min(cfg.Doris.ConnectTimeout, 10*time.Second)}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		conn.Close()
		r.ok(what, "the port accepts connections")
		return true
	}
	var dnsErr *net.DNSError
	var ne net.Error
	switch {
	case errors.As(err, &dnsErr):
		r.fail(what, "the host name does not resolve", "set DORIS_HOST (or DORIS_HOSTS) to the FE's host name or address")
	case errors.Is(err, syscall.ECONNREFUSED):
		r.fail(what, "connection refused: nothing listens on this port",
			"set DORIS_HOST and DORIS_PORT (or DORIS_HOSTS) to a running FE's MySQL-protocol query port (query_port in fe.conf, 9030 by default)")
	case errors.As(err, &ne) && ne.Timeout():
		r.fail(what, fmt.Sprintf("no answer within %s: a firewall drops the connection, or the host is down", d.Timeout),
			"open the FE's query port to this machine, or set DORIS_HOST to an FE it can reach")
	default:
		r.fail(what, "cannot connect: "+err.Error(), "set DORIS_HOST and DORIS_PORT to a running FE")
	}
	return false
}

// reportServiceError explains why the service account cannot serve,
// from the reason code of the runtime's readiness check.
func reportServiceError(cfg Config, err error, r *report) {
	var de *doris.Error
	if !errors.As(err, &de) {
		r.fail("login", "the check failed: "+err.Error(), "")
		return
	}
	switch de.Reason {
	case doris.ReasonAuthenticationFailed:
		r.fail("login", fmt.Sprintf("Doris refused the account %q: wrong user name or password, a host it may not log in from, or locked or expired", cfg.Doris.User),
			fixFor(de.Reason, cfg))
	case doris.ReasonDatabaseUnavailable:
		r.ok("login", fmt.Sprintf("Doris knows the account %q", cfg.Doris.User))
		r.fail("database", fmt.Sprintf("%q does not exist or is not visible to %q", cfg.Doris.Database, cfg.Doris.User), fixFor(de.Reason, cfg))
	case doris.ReasonTLSRequired:
		r.fail("TLS", "Doris accepts only TLS connections (require_secure_transport); this server connects to Doris without TLS", fixFor(de.Reason, cfg))
	case doris.ReasonConnectionFailed:
		r.fail("protocol", "the port accepts connections but no Doris FE answered on it: "+de.Message,
			fmt.Sprintf("DORIS_PORT must be the FE's MySQL-protocol query port (9030 by default), not its HTTP port (%d)", cfg.Doris.FEHTTPPort))
	default:
		r.fail("login", de.Reason+": "+de.Message, fixFor(de.Reason, cfg))
	}
}

// fixFor is what to set for a reason code.
func fixFor(reason string, cfg Config) string {
	switch reason {
	case doris.ReasonAuthenticationFailed:
		return "set DORIS_USER and DORIS_PASSWORD to an account Doris accepts from this host"
	case doris.ReasonDatabaseUnavailable:
		return fmt.Sprintf("create the database, GRANT SELECT_PRIV ON %s.* TO '%s'@'%%', or set DORIS_DATABASE to one the account may use (information_schema always opens)",
			cfg.Doris.Database, cfg.Doris.User)
	case doris.ReasonTLSRequired:
		return "let this account connect without TLS (require_secure_transport=OFF, or a plain port); this server does not open TLS connections to Doris"
	case doris.ReasonConnectionFailed:
		return "check DORIS_HOST and DORIS_PORT"
	case doris.ReasonNotDoris:
		return "DORIS_HOST and DORIS_PORT must name an Apache Doris FE, not another MySQL-protocol server"
	}
	return ""
}

// domain is one domain's manifest as discovery returns it.
type domainManifest struct {
	Name     string
	Err      string
	Children []struct {
		Name         string               `json:"name"`
		Availability catalog.Availability `json:"availability"`
	} `json:"children"`
}

// discoverAll calls every domain with {} (discovery) at once, as a Host
// does when it first looks at them.
func discoverAll(ctx context.Context, s *catalog.Surface, id auth.Identity) []domainManifest {
	tools, err := s.Tools(ctx, id)
	if err != nil {
		return []domainManifest{{Name: "tools/list", Err: err.Error()}}
	}
	out := make([]domainManifest, len(tools))
	var wg sync.WaitGroup
	for i, t := range tools {
		wg.Go(func() {
			out[i].Name = t.Name
			res, err := s.CallTool(ctx, id, t.Name, json.RawMessage(`{}`), nil)
			switch {
			case err != nil:
				out[i].Err = err.Error()
			case res.IsError:
				out[i].Err = "discovery failed: " + string(res.Structured)
			default:
				if err := json.Unmarshal(res.Structured, &out[i]); err != nil {
					out[i].Err = err.Error()
				}
				out[i].Name = t.Name
			}
		})
	}
	wg.Wait()
	return out
}

// The probes behind the privilege and endpoint lines (each domain's
// discovery has run them already; the snapshot only reads them back).
const (
	probeAudit    = "query.audit_log"
	probeMetadata = "catalog.information_schema_tables"
	probeDatabase = "catalog.show_databases"
	probeQuery    = "query.explain"
	probeFEHTTP   = "cluster.fe_metrics"
	probeBEHTTP   = "cluster.be_metrics"
)

var doctorProbes = []string{probeAudit, probeMetadata, probeDatabase, probeQuery, probeFEHTTP, probeBEHTTP}

func reportServer(s *doris.Snapshot, r *report) {
	version := "unknown version"
	if !s.Master.IsZero() {
		version = "Doris " + s.Master.String()
	}
	shape := s.Mode + " deployment"
	if s.Mode == "cloud" {
		shape = "cloud (compute-storage decoupled) deployment"
	}
	nodes := func(visible bool, ns []doris.Node, role string) string {
		if !visible {
			return role + "s not visible to this account"
		}
		alive := 0
		for _, n := range ns {
			if n.Alive {
				alive++
			}
		}
		return fmt.Sprintf("%d %s(s), %d alive", len(ns), role, alive)
	}
	r.ok("server", fmt.Sprintf("%s, %s; %s; %s", version, shape, nodes(s.FEVisible, s.Frontends, "FE"), nodes(s.BEVisible, s.Backends, "BE")))
	if s.Mixed {
		r.warn("server", "the live nodes run different Doris versions", "finish the rolling upgrade; children no capability path covers stay unavailable until then")
	}
	if !s.FEVisible || !s.BEVisible {
		r.warn("server", "SHOW FRONTENDS / SHOW BACKENDS are refused to this account: versions are judged from the FE alone",
			"grant the account ADMIN_PRIV or NODE_PRIV to see the nodes (optional)")
	}
}

func reportHTTP(rt *doris.Runtime, cfg Config, s *doris.Snapshot, r *report) {
	if base := rt.FEBase(); base == "" {
		r.warn("FE HTTP", "not configured (DORIS_FE_HTTP_PORT=0): profile and FE metrics children are unavailable",
			"set DORIS_FE_HTTP_HOST and DORIS_FE_HTTP_PORT to the FE's http_port (8030 by default)")
	} else {
		switch out := s.Probes[probeFEHTTP]; out {
		case doris.ProbeOK:
			r.ok("FE HTTP", base+" answers")
		case doris.ProbePermissionDenied:
			r.warn("FE HTTP", base+" answers but refuses the account", "grant the account ADMIN_PRIV, or accept that the FE metrics children stay unavailable")
		default:
			r.warn("FE HTTP", fmt.Sprintf("%s does not answer (%s): the children that read it are unavailable", base, outcomeWords(out)),
				"set DORIS_FE_HTTP_HOST and DORIS_FE_HTTP_PORT to the FE's http_port (8030 by default), or DORIS_FE_HTTP_PORT=0 to turn them off")
		}
	}
	if bases := rt.BEBases(); len(bases) == 0 {
		r.ok("BE HTTP", "not configured (DORIS_BE_HOSTS is empty): the BE metrics children are off")
	} else {
		switch out := s.Probes[probeBEHTTP]; out {
		case doris.ProbeOK:
			r.ok("BE HTTP", strings.Join(bases, ", ")+" answer")
		default:
			r.warn("BE HTTP", fmt.Sprintf("no BE of %s answers (%s)", strings.Join(bases, ", "), outcomeWords(out)),
				"set DORIS_BE_HOSTS and DORIS_BE_WEBSERVER_PORT to the BEs' webserver_port (8040 by default)")
		}
	}
}

func reportPrivileges(cfg Config, s *doris.Snapshot, r *report) {
	user := fmt.Sprintf("'%s'@'%%'", cfg.Doris.User)
	for _, p := range []struct{ probe, what, fix string }{
		{probeMetadata, "metadata (information_schema)", "GRANT SELECT_PRIV ON the databases it should see TO " + user},
		{probeDatabase, "databases (SHOW DATABASES)", "GRANT SELECT_PRIV ON the databases it should see TO " + user},
		{probeQuery, "query (EXPLAIN)", "GRANT SELECT_PRIV ON the databases it should query TO " + user},
		{probeAudit, "audit log", "GRANT SELECT_PRIV ON internal.__internal_schema.audit_log TO " + user + " (slow queries, audit and ingestion history need it)"},
	} {
		switch out := s.Probes[p.probe]; out {
		case doris.ProbeOK:
			r.ok("privilege", p.what+": allowed")
		case doris.ProbePermissionDenied:
			r.warn("privilege", p.what+": DENIED to "+user, p.fix)
		default:
			r.warn("privilege", p.what+": not checked ("+outcomeWords(out)+")", "")
		}
	}
}

func reportDomains(domains []domainManifest, cfg Config, r *report) {
	total, callable := 0, 0
	for _, d := range domains {
		if d.Err != "" {
			r.fail(d.Name, d.Err, "")
			continue
		}
		n := 0
		var off []string
		for _, ch := range d.Children {
			if ch.Availability.Callable {
				n++
			} else {
				off = append(off, ch.Name)
			}
		}
		total += len(d.Children)
		callable += n
		if len(off) == 0 {
			r.ok(d.Name, fmt.Sprintf("%d of %d operations callable", n, len(d.Children)))
			continue
		}
		r.line("WARN", d.Name, fmt.Sprintf("%d of %d operations callable", n, len(d.Children)))
		r.warnings++
		// One line per distinct reason, naming its children.
		var whys []string
		names := map[string][]string{}
		fixes := map[string]string{}
		for _, ch := range d.Children {
			a := ch.Availability
			if a.Callable {
				continue
			}
			why := a.ReasonCode
			if len(a.Limitations) > 0 {
				why += ": " + strings.Join(a.Limitations, "; ")
			}
			if _, seen := names[why]; !seen {
				whys = append(whys, why)
				if fix := childFix(a, cfg); fix != "" && !strings.HasSuffix(why, fix) {
					fixes[why] = fix
				}
			}
			names[why] = append(names[why], ch.Name)
		}
		for _, why := range whys {
			fmt.Fprintf(r.w, "      %-16s %s: %s\n", "", strings.Join(names[why], ", "), why)
			if fix := fixes[why]; fix != "" {
				fmt.Fprintf(r.w, "      %-16s   fix: %s\n", "", fix)
			}
		}
	}
	r.ok("operations", fmt.Sprintf("%d of %d callable for the service account", callable, total))
}

// childFix is what to set for a child that is not callable, when a
// setting or a grant can change it.
func childFix(a catalog.Availability, cfg Config) string {
	switch a.ReasonCode {
	case "CAPABILITY_PROBE_PERMISSION_DENIED":
		return fmt.Sprintf("grant '%s' the privilege this operation's capability check needs (the privilege lines above name the common ones; docs/doctor.md lists each)", cfg.Doris.User)
	case "PROVIDER_NOT_CONFIGURED":
		if len(a.Limitations) > 0 {
			return a.Limitations[len(a.Limitations)-1]
		}
	case "CAPABILITY_PROBE_FAILED", "CAPABILITY_PROBE_TIMEOUT":
		return "Doris did not answer this check; run doctor again, or raise CAPABILITY_PROBE_TIMEOUT_SECONDS"
	case "DORIS_VERSION_BELOW_MINIMUM", "VERSION_RANGE_NOT_MATCHED", "DEPLOYMENT_MODE_NOT_SUPPORTED", "CAPABILITY_PROBE_NOT_SUPPORTED":
		return "" // this Doris does not offer it: nothing to set
	}
	return ""
}

func outcomeWords(outcome string) string {
	switch outcome {
	case doris.ProbeFailed:
		return "the check failed"
	case doris.ProbeTimeout:
		return "the check timed out"
	case doris.ProbeNotSupported:
		return "not supported here"
	case doris.ProbeNotConfigured:
		return "not configured"
	case "", doris.ProbeUnknown:
		return "not run"
	}
	return outcome
}

// warnUnusableDoris checks, in the background, that the service account
// can reach Doris, log in and open its database, and logs one WARN naming
// the cause when it cannot (the reason code, and what to run). The server
// serves anyway: every child reports itself unavailable until Doris
// answers. The returned function stops the check and waits for it.
func warnUnusableDoris(ctx context.Context, rt *doris.Runtime, log *slog.Logger) func() {
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := rt.Ping(ctx)
		if err == nil || ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return
		}
		var de *doris.Error
		reason, msg := doris.ReasonConnectionFailed, "Doris did not answer"
		if errors.As(err, &de) {
			reason, msg = de.Reason, de.Message
		}
		log.Warn("Doris cannot serve yet: "+msg+"; every operation reports itself unavailable until it can; run `doris-mcp-server doctor` for what to set",
			"reason", reason, "doris", slices.Clone(rt.Settings().Addrs()))
	}()
	return func() {
		cancel()
		<-done
	}
}
