// Package doris is the server's side of Apache Doris: connection routes and
// pools keyed by identity, failover across FEs, the read-only connection
// boundary, capability detection (versions, nodes, deployment mode, lazy
// per-domain probes), the query runtime (ceilings, streaming, typed values,
// Doris-side timeouts, KILL on cancellation), the FE/BE HTTP client,
// masking and redaction.
//
// The handlers of the catalog's children live in one package per domain
// beneath this one (metadata, query, cluster, pipeline, search,
// governance, lakehouse, semantic). They reach Doris only through the
// kit this package exports on *Runtime (Text, Query, RunPlan, FEGet,
// NodeGet, Settings, ...), which takes an opaque *Route and hands out no
// credential, no *sql.DB and no connection: the only way to Doris is
// through the boundary.
//
// A request runs on its own route and never falls back to another, more
// privileged one. Every statement that reaches Doris passes the guard at
// the connection boundary, whatever code path built it.
package doris

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/guard"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// Options are the runtime's collaborators.
type Options struct {
	Logger *slog.Logger
	// Handles signs page cursors of collection children.
	Handles *handle.Signer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Handlers are the children's handlers by "domain.child" (the catalog
	// table names them: catalog.Handlers). A child without one is listed
	// but never callable (HANDLER_NOT_BOUND).
	Handlers map[string]Handler
	// Probes are the domains' capability probes by id (catalog.Probes).
	Probes map[string]Probe
}

// Runtime is the Doris access layer. It is safe for concurrent use.
type Runtime struct {
	cfg      Config
	settings Config // cfg without the password (Settings)
	log      *slog.Logger
	handles  *handle.Signer
	now      func() time.Time
	http     *httpClient
	caps     *capabilities
	sem      chan struct{}      // MAX_CONCURRENT_QUERIES slots
	handlers map[string]Handler // Options.Handlers, bound to this runtime
	probes   map[string]Probe
	semantic *semanticProviders // Ossie registry and MetricFlow client, when enabled
	mask     *masker            // nil: masking off (mask.go)
	policy   *guard.Policy      // the egress policy (EGRESS_ALLOWED_FUNCTIONS); nil: nothing allowed
	flight   *flights           // Arrow Flight SQL clients and sessions (flight.go)

	mu     sync.Mutex // protects routes
	routes map[string]*Route
}

// Route is one identity's way into Doris: its own pool, never shared with
// another identity.
type Route struct {
	key       string // the pool's key: name, plus a digest of an own credential
	name      string // the identity's route name, shown in capability evidence
	user      string
	password  string
	db        *sql.DB
	connector *connector
	own       bool      // an identity's own account, not the global one
	lastUsed  time.Time // guarded by Runtime.mu
}

// Open prepares the runtime. It does not connect: a server started while
// Doris is down starts anyway and reports every child unavailable until
// Doris answers.
func Open(cfg Config, o Options) (*Runtime, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Handles == nil {
		return nil, errors.New("doris: Options.Handles is required")
	}
	hc, err := newHTTPClient(&cfg)
	if err != nil {
		return nil, err
	}
	r := &Runtime{
		cfg:      cfg,
		settings: cfg,
		log:      o.Logger,
		handles:  o.Handles,
		now:      o.Now,
		http:     hc,
		sem:      make(chan struct{}, cfg.MaxConcurrentQueries),
		routes:   map[string]*Route{},
	}
	r.settings.Password = ""
	if len(cfg.AllowedFunctions) > 0 {
		r.policy = &guard.Policy{AllowFunctions: cfg.AllowedFunctions}
	}
	if r.mask, err = newMasker(&cfg); err != nil {
		return nil, err
	}
	r.caps = newCapabilities(r)
	r.flight = newFlights(&cfg.ADBC)
	if r.semantic, err = openSemantic(&cfg); err != nil {
		return nil, err
	}
	r.probes = o.Probes
	r.handlers = make(map[string]Handler, len(o.Handlers))
	for name, h := range o.Handlers {
		r.handlers[name] = r.bind(h)
	}
	if _, err := r.Route(auth.Anonymous()); err != nil {
		return nil, err
	}
	return r, nil
}

// Route returns the identity's route: the global service account for the
// "global" route, else a pool of the identity's own Doris account. An
// identity bound to a route of its own but without its credential gets an
// error, never the global pool: a request never falls back to a more
// privileged account.
//
// Pools of own-account routes are keyed by the route and a digest of the
// credential, so a changed password opens a new pool; pools unused for
// routeIdleTimeout are closed, and at most maxRoutes exist at once.
func (r *Runtime) Route(id auth.Identity) (*Route, error) {
	name := id.Route
	if name == "" {
		name = "global"
	}
	if name == "global" && id.Credential != nil || name != "global" && id.Credential == nil {
		return nil, &Error{Kind: KindFailed, Reason: "ROUTE_UNAVAILABLE", Status: 403,
			Message: "no Doris route is configured for this identity"}
	}
	key := name
	if id.Credential != nil {
		key = name + "#" + credentialDigest(id.Credential)
	}
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.routes[key]; ok {
		rt.lastUsed = now
		return rt, nil
	}
	r.evictRoutesLocked(now)
	cfg := r.cfg
	user, password := cfg.User, cfg.Password
	if c := id.Credential; c != nil {
		if len(r.routes) >= maxRoutes {
			return nil, &Error{Kind: KindFailed, Reason: "ROUTE_CAPACITY_EXHAUSTED", Status: 503, Retryable: true,
				Message: "the server holds connection pools for too many accounts at once; retry shortly"}
		}
		user, password = c.User, c.Password
		if len(c.Addrs) > 0 {
			cfg.Host, cfg.Hosts = "", c.Addrs
		}
		if c.Database != "" {
			cfg.Database = c.Database
		}
	}
	conn, err := newConnector(&cfg, user, password, r.log)
	if err != nil {
		return nil, err
	}
	conn.policy = r.policy
	db := sql.OpenDB(conn)
	// Every admitted statement gets a connection at once: admission
	// (MAX_CONCURRENT_QUERIES) is the only queue, so fast work never waits
	// for a connection behind slow work, and the server's own bounded
	// reads have a reserve beside it. DORIS_MAX_CONNECTIONS raises the
	// pool further. A connection goes back to the pool rather than being
	// closed (a new one costs a handshake); one unused for
	// DORIS_HEALTH_CHECK_INTERVAL is closed.
	size := max(cfg.MaxConnections, cfg.MaxConcurrentQueries) + internalReserve
	db.SetMaxOpenConns(size)
	db.SetConnMaxLifetime(cfg.MaxConnectionAge)
	if id.Credential == nil {
		db.SetMaxIdleConns(size)
		db.SetConnMaxIdleTime(cfg.HealthCheckInterval)
	} else {
		// A person's pool is used in bursts: keep little idle.
		db.SetMaxIdleConns(2)
		db.SetConnMaxIdleTime(min(cfg.HealthCheckInterval, time.Minute))
	}
	rt := &Route{key: key, name: name, user: user, password: password, db: db, connector: conn, lastUsed: now, own: id.Credential != nil}
	r.routes[key] = rt
	return rt, nil
}

// internalReserve is the connections each route keeps beyond its share of
// MAX_CONCURRENT_QUERIES for the server's own reads (capability evidence,
// probes), which take no admission slot.
const internalReserve = 4

// Bounds on own-account routes.
const (
	maxRoutes        = 1024
	routeIdleTimeout = 15 * time.Minute
)

// evictRoutesLocked closes own-account pools unused for routeIdleTimeout,
// and drops their capability evidence. The global route stays.
func (r *Runtime) evictRoutesLocked(now time.Time) {
	for key, rt := range r.routes {
		if rt.own && now.Sub(rt.lastUsed) > routeIdleTimeout {
			delete(r.routes, key)
			r.caps.invalidate(key)
			go rt.db.Close() // waits for connections in use to be returned
		}
	}
}

// credentialDigest identifies a credential without keeping it readable.
func credentialDigest(c *auth.Credential) string {
	h := sha256.New()
	for _, part := range append([]string{c.User, c.Password, c.Database}, c.Addrs...) {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Close closes every pool.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, rt := range r.routes {
		errs = append(errs, rt.db.Close())
	}
	r.flight.close()
	return errors.Join(errs...)
}

// Ping is the readiness check: can the global route reach Doris now, log
// in as the service account and open its session database.
//
// It opens a connection of its own rather than taking one from the pool:
// a pool busy with slow queries is a healthy server under load, and
// readiness must not queue behind user queries. A failure is an *Error
// whose Reason says why (serviceError), never with backend text.
func (r *Runtime) Ping(ctx context.Context) error {
	rt, err := r.Route(auth.Anonymous())
	if err != nil {
		return err
	}
	dc, err := connectWithin(ctx, rt.connector)
	if err != nil {
		return serviceError(ctx, err)
	}
	defer dc.Close()
	if p, ok := dc.(driver.Pinger); ok {
		if err := p.Ping(ctx); err != nil {
			return serviceError(ctx, err)
		}
	}
	return nil
}

// bind returns h running on r: the call it is given reaches the runtime
// through Call.Runtime.
func (r *Runtime) bind(h Handler) Handler {
	return func(ctx context.Context, c *Call) (*Result, error) {
		c.rt = r
		return h(ctx, c)
	}
}

// Handler returns the handler bound to domain.child, or nil.
func (r *Runtime) Handler(domain, child string) Handler {
	return r.handlers[domain+"."+child]
}

// Snapshot returns the capability generation for the identity's route with
// at least the given probes run.
func (r *Runtime) Snapshot(ctx context.Context, id auth.Identity, probes []string) *Snapshot {
	rt, err := r.Route(id)
	if err != nil {
		return &Snapshot{Route: id.Route, Unavailable: "ROUTE_UNAVAILABLE", Detail: "no Doris route is configured for this identity"}
	}
	return r.caps.snapshot(ctx, rt, probes)
}

func (r *Runtime) String() string { return fmt.Sprintf("doris.Runtime(%v)", r.cfg.addrs()) }

// Settings is the runtime's configuration as handlers read it: limits
// and domain settings, with the service account's password removed.
func (r *Runtime) Settings() *Config { return &r.settings }

// Now is the runtime's clock.
func (r *Runtime) Now() time.Time { return r.now() }

// Logger is the server's log. Handlers log outcomes, never SQL text,
// arguments or backend error text.
func (r *Runtime) Logger() *slog.Logger { return r.log }

// MaskingEnabled reports whether result masking is configured.
func (r *Runtime) MaskingEnabled() bool { return r.mask != nil }
