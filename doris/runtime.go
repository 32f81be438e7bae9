// Package doris is the server's side of Apache Doris: connection routes and
// pools keyed by identity, failover across FEs, the read-only connection
// boundary, capability detection (versions, nodes, deployment mode, lazy
// per-domain probes), the query runtime (ceilings, streaming, typed values,
// Doris-side timeouts, KILL on cancellation), the FE/BE HTTP client, and
// the handlers of the catalog's children.
//
// A request runs on its own route and never falls back to another, more
// privileged one. Every statement that reaches Doris passes the guard at
// the connection boundary, whatever code path built it.
package doris

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// Options are the runtime's collaborators.
type Options struct {
	Logger *slog.Logger
	// Handles signs page cursors of collection children.
	Handles *handle.Signer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Runtime is the Doris access layer. It is safe for concurrent use.
type Runtime struct {
	cfg      Config
	log      *slog.Logger
	handles  *handle.Signer
	now      func() time.Time
	http     *httpClient
	caps     *capabilities
	sem      chan struct{} // MAX_CONCURRENT_QUERIES slots
	handlers map[string]Handler

	mu     sync.Mutex // protects routes
	routes map[string]*route
}

// route is one identity's way into Doris: its own pool, never shared with
// another identity.
type route struct {
	key       string
	user      string
	password  string
	db        *sql.DB
	connector *connector
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
		cfg:     cfg,
		log:     o.Logger,
		handles: o.Handles,
		now:     o.Now,
		http:    hc,
		sem:     make(chan struct{}, cfg.MaxConcurrentQueries),
		routes:  map[string]*route{},
	}
	r.caps = newCapabilities(r)
	r.handlers = r.handlerTable()
	if _, err := r.route(auth.Anonymous()); err != nil {
		return nil, err
	}
	return r, nil
}

// route returns the identity's route. Only the global service-account
// route exists in this build; an identity bound to another route gets an
// error, never the global pool.
func (r *Runtime) route(id auth.Identity) (*route, error) {
	key := id.Route
	if key == "" {
		key = "global"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.routes[key]; ok {
		return rt, nil
	}
	if key != "global" {
		return nil, &Error{Kind: KindFailed, Reason: "ROUTE_UNAVAILABLE", Status: 403,
			Message: "no Doris route is configured for this identity"}
	}
	c, err := newConnector(&r.cfg, r.cfg.User, r.cfg.Password, r.log)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(r.cfg.MaxConnections)
	db.SetMaxIdleConns(min(r.cfg.MaxConnections, 8))
	db.SetConnMaxLifetime(r.cfg.MaxConnectionAge)
	db.SetConnMaxIdleTime(r.cfg.HealthCheckInterval)
	rt := &route{key: key, user: r.cfg.User, password: r.cfg.Password, db: db, connector: c}
	r.routes[key] = rt
	return rt, nil
}

// Close closes every pool.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, rt := range r.routes {
		errs = append(errs, rt.db.Close())
	}
	return errors.Join(errs...)
}

// Ping is the readiness check: can the global route reach Doris now.
func (r *Runtime) Ping(ctx context.Context) error {
	rt, err := r.route(auth.Anonymous())
	if err != nil {
		return err
	}
	return rt.db.PingContext(ctx)
}

// Handler returns the handler bound to domain.child, or nil.
func (r *Runtime) Handler(domain, child string) Handler {
	return r.handlers[domain+"."+child]
}

// Snapshot returns the capability generation for the identity's route with
// at least the given probes run.
func (r *Runtime) Snapshot(ctx context.Context, id auth.Identity, probes []string) *Snapshot {
	rt, err := r.route(id)
	if err != nil {
		return &Snapshot{Route: id.Route, Unavailable: "ROUTE_UNAVAILABLE", Detail: "no Doris route is configured for this identity"}
	}
	return r.caps.snapshot(ctx, rt, probes)
}

// Invalidate drops the cached capability evidence of the identity's route,
// so the next discovery takes it afresh.
func (r *Runtime) Invalidate(id auth.Identity) {
	if rt, err := r.route(id); err == nil {
		r.caps.invalidate(rt.key)
	}
}

func (r *Runtime) String() string { return fmt.Sprintf("doris.Runtime(%v)", r.cfg.addrs()) }
