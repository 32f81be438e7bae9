package dorisoauth

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// ErrLoginRejected is what CheckLogin wraps when Doris refuses the user
// name and password (as opposed to Doris being unreachable).
var ErrLoginRejected = errors.New("dorisoauth: Doris rejected the user name or password")

// Options are the server's collaborators.
type Options struct {
	// CheckLogin opens one connection to Doris as user with password and
	// closes it. It returns nil when Doris accepts them, an error wrapping
	// ErrLoginRejected when Doris refuses them, and any other error when
	// Doris could not be asked. Required.
	CheckLogin func(ctx context.Context, user, password string) error
	// Hosts, when set, is the Host policy of the transport: the browser
	// and client endpoints answer only requests whose Host it allows (the
	// base URL's host is always allowed). Peer endpoints authenticate by
	// MAC instead.
	Hosts *auth.HostPolicy
	// Logger receives events; never a password, token, code or secret.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand is the randomness source; nil means crypto/rand.
	Rand io.Reader
	// Resolver resolves the hosts of client metadata documents; nil means
	// the system resolver.
	Resolver Resolver
	// CIMDRootCAs verify client metadata document servers; nil means the
	// system roots.
	CIMDRootCAs *x509.CertPool
	// PeerTransport carries peer messages; nil means a private
	// http.Transport with no proxy.
	PeerTransport http.RoundTripper
}

// Resolver is the part of *net.Resolver that metadata fetches use.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Server is the authorization server of one replica. It is safe for
// concurrent use.
type Server struct {
	cfg      Config
	opt      Options
	log      *slog.Logger
	now      func() time.Time
	keys     *keyring
	scopes   *scopePolicy
	ledger   *ledger
	limits   *limiter
	checks   *credChecks
	cimd     *cimdCache
	clients  map[string]*client // preconfigured, by id
	peers    *peerSet
	issuer   string // BaseURL without a trailing slash
	resource string // issuer + "/mcp"
	host     string // the base URL's host[:port], lower case
	dcr      bool
	secure   bool // the base URL is https

	mu      sync.Mutex // protects started, cancel
	started bool
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// New validates cfg, reads the clients file, derives the keys and returns
// the server. It does not contact Doris or the peers: Start does.
func New(cfg Config, o Options) (*Server, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if o.CheckLogin == nil {
		return nil, errors.New("dorisoauth: Options.CheckLogin is required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Reader
	}
	secret := []byte(cfg.Secret)
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := io.ReadFull(o.Rand, secret); err != nil {
			return nil, fmt.Errorf("dorisoauth: random secret: %w", err)
		}
		o.Logger.Warn("DORIS_OAUTH_SECRET is not set: sign-ins last only until this process stops and work on this replica only")
	}
	keys, err := newKeyring(secret, []byte(cfg.PreviousSecret), o.Rand)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(cfg.BaseURL)
	s := &Server{
		cfg:    cfg,
		opt:    o,
		log:    o.Logger,
		now:    o.Now,
		keys:   keys,
		scopes: newScopePolicy(&cfg),
		ledger: newLedger(maxLedgerEntries),
		limits: newLimiter(cfg.RateWindow, 100_000),
		issuer: strings.TrimSuffix(cfg.BaseURL, "/"),
		host:   strings.ToLower(u.Host),
		secure: u.Scheme == "https",
	}
	s.resource = s.issuer + "/mcp"
	s.dcr = cfg.DCRMode == "enabled" || (cfg.DCRMode == "auto" && baseIsLoopback(cfg.BaseURL))
	if s.checks, err = newCredChecks(keys); err != nil {
		return nil, err
	}
	s.cimd = newCIMDCache(s)
	if s.clients, err = loadClients(cfg.ClientsFile, s.scopes); err != nil {
		return nil, err
	}
	s.peers, err = newPeerSet(s)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Issuer is the issuer identifier (the base URL).
func (s *Server) Issuer() string { return s.issuer }

// Resource is the canonical resource that access tokens are bound to.
func (s *Server) Resource() string { return s.resource }

// Start pulls the ledger from every peer (waiting a few seconds at most,
// so that a restarted replica knows every revocation before it serves),
// then keeps syncing with the peers and sweeping expired state in the
// background until ctx ends or Close is called.
func (s *Server) Start(ctx context.Context) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started = true
	ctx, s.cancel = context.WithCancel(ctx)
	s.mu.Unlock()
	s.peers.pullAll(ctx, startupPullTimeout)
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		s.peers.run(ctx)
	}()
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.cfg.GCInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				s.sweep()
			}
		}
	}()
}

// Close stops the background work started by Start.
func (s *Server) Close() error {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	s.wg.Wait()
	return nil
}

// sweep drops expired ledger entries, rate-limit windows, credential
// checks and cached metadata documents.
func (s *Server) sweep() {
	now := s.now()
	s.ledger.sweep(now.Unix())
	s.limits.sweep(now)
	s.checks.sweep(now)
	s.cimd.sweep(now)
}

// Mount returns the handlers to serve beside /mcp, keyed by
// http.ServeMux pattern (for mcp.HTTPOptions.Mount).
func (s *Server) Mount() map[string]http.Handler {
	m := map[string]http.Handler{
		"GET /.well-known/oauth-authorization-server":   s.public(s.serveASMetadata),
		"GET /.well-known/oauth-protected-resource":     s.public(s.servePRMetadata),
		"GET /.well-known/oauth-protected-resource/mcp": s.public(s.servePRMetadata),
		// Handshake-era clients of /mcp/legacy look here first.
		"GET /.well-known/oauth-protected-resource/mcp/legacy": s.public(s.servePRMetadata),
		"GET /oauth/authorize":                                 s.public(s.serveAuthorize),
		"GET /doris-login":                                     s.public(s.serveLoginPage),
		"POST /doris-login":                                    s.public(s.serveLoginPost),
		"POST /oauth/token":                                    s.public(s.serveToken),
		"POST /oauth/revoke":                                   s.public(s.serveRevoke),
		"POST /api/auth/token":                                 s.public(s.serveAPIToken),
		"POST /api/auth/refresh":                               s.public(s.serveAPIRefresh),
		"GET " + peerPath:                                      http.HandlerFunc(s.peers.servePull),
		"POST " + peerPath:                                     http.HandlerFunc(s.peers.servePush),
	}
	if s.dcr {
		m["POST /oauth/register"] = s.public(s.serveRegister)
	}
	return m
}

// public wraps a browser or client endpoint: the Host must be this
// server's, and no response is cached.
func (s *Server) public(h func(http.ResponseWriter, *http.Request)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := strings.ToLower(r.Host)
		if host != s.host && (s.opt.Hosts == nil || !s.opt.Hosts.AllowHost(r.Host)) {
			writeOAuthError(w, http.StatusForbidden, "invalid_request", "the Host header does not name this server")
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h(w, r)
	})
}
