package dorisoauth

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// Config is the configuration of Doris-backed OAuth, filled by the program
// from its settings (the package reads no environment). DefaultConfig sets
// every default; a zero duration or count is never a silent default.
type Config struct {
	// Enabled is ENABLE_DORIS_OAUTH_AUTH.
	Enabled bool
	// BaseURL is DORIS_OAUTH_BASE_URL: the public origin of the server,
	// the issuer; the protected resource is BaseURL + "/mcp".
	BaseURL string
	// Secret is DORIS_OAUTH_SECRET: the root of every derived key. Empty
	// means a random secret per launch (one replica, nothing survives a
	// restart). PreviousSecret (DORIS_OAUTH_PREVIOUS_SECRET) still opens
	// what it sealed and never seals.
	Secret, PreviousSecret string

	// Peers are DORIS_OAUTH_PEERS: base URLs of the replicas, to exchange
	// the revocation ledger with. PeerSync is DORIS_OAUTH_PEER_SYNC_SECONDS.
	Peers    []string
	PeerSync time.Duration

	AccessTTL  time.Duration // DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS
	RefreshTTL time.Duration // DORIS_OAUTH_REFRESH_TOKEN_EXPIRE_SECONDS
	// IdleTimeout (DORIS_OAUTH_IDLE_TIMEOUT_SECONDS) caps the refresh
	// token lifetime; 0 means unset.
	IdleTimeout time.Duration
	SessionMax  time.Duration // DORIS_OAUTH_SESSION_MAX_SECONDS
	CodeTTL     time.Duration // DORIS_OAUTH_AUTH_CODE_EXPIRE_SECONDS
	// CredentialCheck (DORIS_OAUTH_CREDENTIAL_CHECK_SECONDS) is how often a
	// replica re-checks a person's credential with Doris; 0: every request.
	CredentialCheck time.Duration
	GCInterval      time.Duration // DORIS_OAUTH_GC_INTERVAL_SECONDS
	// SessionDatabase (DORIS_OAUTH_SESSION_DATABASE) is the session
	// database of a person's pool.
	SessionDatabase string
	LoginPageTitle  string // DORIS_OAUTH_LOGIN_PAGE_TITLE

	ChildToolsEnabled  bool     // DORIS_OAUTH_CHILD_TOOLS_ENABLED
	ChildToolAllowlist []string // DORIS_OAUTH_CHILD_TOOL_ALLOWLIST, "domain.child"
	SemanticTools      bool     // DORIS_OAUTH_SEMANTIC_TOOLS_ENABLED
	SemanticResources  bool     // DORIS_OAUTH_SEMANTIC_RESOURCES_ENABLED

	ClientsFile         string   // DORIS_OAUTH_CLIENTS_FILE
	AllowedRedirectURIs []string // DORIS_OAUTH_ALLOWED_REDIRECT_URIS

	DCRMode               string        // DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE: auto, enabled, disabled
	ProductionDCR         bool          // ENABLE_DORIS_OAUTH_PRODUCTION_DCR
	WildcardRedirects     bool          // ENABLE_DORIS_OAUTH_PRODUCTION_WILDCARD_REDIRECTS (refused)
	DCRMaxClients         int           // DORIS_OAUTH_DCR_MAX_CLIENTS (accepted; registrations are stateless)
	DCRClientTTL          time.Duration // DORIS_OAUTH_DCR_CLIENT_TTL_SECONDS; 0: no expiry
	CIMDFetchTimeout      time.Duration // DORIS_OAUTH_CIMD_FETCH_TIMEOUT_SECONDS
	CIMDMaxDocumentBytes  int           // DORIS_OAUTH_CIMD_MAX_DOCUMENT_BYTES
	CIMDDefaultCache      time.Duration // DORIS_OAUTH_CIMD_DEFAULT_CACHE_SECONDS
	CIMDMaxCache          time.Duration // DORIS_OAUTH_CIMD_MAX_CACHE_SECONDS
	CIMDMaxClients        int           // DORIS_OAUTH_CIMD_MAX_CLIENTS
	CIMDAllowPrivateAddrs bool          // DORIS_OAUTH_CIMD_ALLOW_PRIVATE_ADDRESSES

	AllowInsecureHTTP bool           // DORIS_OAUTH_ALLOW_INSECURE_HTTP
	TrustProxyHeaders bool           // DORIS_OAUTH_TRUST_PROXY_HEADERS
	TrustedProxies    []netip.Prefix // DORIS_OAUTH_TRUSTED_PROXY_CIDRS

	RateWindow time.Duration // DORIS_OAUTH_RATE_LIMIT_WINDOW_SECONDS
	Limits     Limits

	// LegacyToolBuckets lists the pre-1.0 tool-bucket settings given
	// (DORIS_OAUTH_QUERY_TOOLS_ENABLED and the like): refused, children
	// are allowed by exact name only.
	LegacyToolBuckets []string

	// Deployment is what this mode needs from the rest of the
	// configuration, as the program resolved it.
	Deployment Deployment
}

// Limits are the per-replica rate limits, counted per window.
type Limits struct {
	LoginPerIP, LoginPerUser, LoginPerClient, LoginPerTxn int
	AuthorizePerIP                                        int
	TokenPerIP, TokenPerClient                            int
	RevokePerIP, RevokePerClient                          int
	APITokenPerIP, APITokenPerUser                        int
	APIRefreshPerIP, APIRefreshPerClient                  int
	DCRPerIP                                              int
}

// Deployment is the part of the server's configuration that Doris OAuth
// depends on.
type Deployment struct {
	Transport     string // TRANSPORT
	DorisHost     string // DORIS_HOST
	DorisUser     string // DORIS_USER
	ExternalOAuth bool   // ENABLE_OAUTH_AUTH or OAUTH_ENABLED
	AuthType      string // AUTH_TYPE (deprecated)
}

// DefaultChildToolAllowlist is the reference's default allowlist.
var defaultChildToolAllowlist = []string{"doris_catalog.list_databases", "doris_query.execute_query", "doris_query.explain_query"}

// DefaultConfig returns the reference server's defaults, plus this
// server's for the variables it adds.
func DefaultConfig() Config {
	return Config{
		PeerSync:             10 * time.Second,
		AccessTTL:            900 * time.Second,
		RefreshTTL:           86400 * time.Second,
		SessionMax:           7 * 24 * time.Hour,
		CodeTTL:              300 * time.Second,
		CredentialCheck:      60 * time.Second,
		GCInterval:           60 * time.Second,
		SessionDatabase:      "information_schema",
		LoginPageTitle:       "Doris MCP Login",
		ChildToolAllowlist:   append([]string(nil), defaultChildToolAllowlist...),
		DCRMode:              "auto",
		DCRMaxClients:        1000,
		DCRClientTTL:         86400 * time.Second,
		CIMDFetchTimeout:     5 * time.Second,
		CIMDMaxDocumentBytes: 5120,
		CIMDDefaultCache:     300 * time.Second,
		CIMDMaxCache:         3600 * time.Second,
		CIMDMaxClients:       1000,
		RateWindow:           300 * time.Second,
		Limits: Limits{
			LoginPerIP: 20, LoginPerUser: 10, LoginPerClient: 30, LoginPerTxn: 5,
			AuthorizePerIP: 120,
			TokenPerIP:     120, TokenPerClient: 240,
			RevokePerIP: 120, RevokePerClient: 240,
			APITokenPerIP: 20, APITokenPerUser: 10,
			APIRefreshPerIP: 120, APIRefreshPerClient: 240,
			DCRPerIP: 30,
		},
		Deployment: Deployment{Transport: "stdio", DorisHost: "localhost", DorisUser: "root", AuthType: "token"},
	}
}

// FieldError is one configuration problem, naming its setting: the one
// type of package auth, so the program explains both alike.
type FieldError = auth.ConfigError

// Validate returns every problem of c, each naming its variable; nil when
// c is usable or the mode is off. It is pure and fast (the clients file
// is read by New).
func (c *Config) Validate() []error {
	if !c.Enabled {
		return nil
	}
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Err: fmt.Errorf(format, args...)})
	}
	for _, k := range c.LegacyToolBuckets {
		fail(k, "the pre-1.0 tool buckets are gone; use DORIS_OAUTH_CHILD_TOOLS_ENABLED and DORIS_OAUTH_CHILD_TOOL_ALLOWLIST (domain.child)")
	}
	d := c.Deployment
	if d.Transport != "http" {
		fail("ENABLE_DORIS_OAUTH_AUTH", "Doris-backed OAuth needs TRANSPORT=http (stdio takes its identity from the environment)")
	}
	if d.ExternalOAuth {
		fail("ENABLE_DORIS_OAUTH_AUTH", "external OAuth (ENABLE_OAUTH_AUTH / OAUTH_ENABLED) and Doris-backed OAuth cannot both be enabled")
	}
	if strings.EqualFold(d.AuthType, "oauth") {
		fail("AUTH_TYPE", "AUTH_TYPE=oauth selects external OAuth, which cannot be combined with Doris-backed OAuth")
	}
	if strings.TrimSpace(d.DorisHost) == "" {
		fail("DORIS_HOST", "Doris-backed OAuth needs a Doris FE to sign people in against")
	}
	if strings.TrimSpace(d.DorisUser) == "" {
		fail("DORIS_USER", "Doris-backed OAuth needs the service account for health checks")
	}
	if err := checkBaseURL(c.BaseURL, c.AllowInsecureHTTP); err != nil {
		fail("DORIS_OAUTH_BASE_URL", "%v", err)
	}
	if c.Secret != "" {
		if err := auth.CheckSecret(c.Secret); err != nil {
			fail("DORIS_OAUTH_SECRET", "%v", err)
		}
	}
	if c.PreviousSecret != "" {
		if c.Secret == "" {
			fail("DORIS_OAUTH_PREVIOUS_SECRET", "needs DORIS_OAUTH_SECRET: a previous secret only matters while rotating to a new one")
		} else if err := auth.CheckSecret(c.PreviousSecret); err != nil {
			fail("DORIS_OAUTH_PREVIOUS_SECRET", "%v", err)
		}
	}
	if len(c.Peers) > 0 && c.Secret == "" {
		fail("DORIS_OAUTH_PEERS", "replicas need the same DORIS_OAUTH_SECRET: without it each launch seals with a random key")
	}
	if len(c.Peers) > 64 {
		fail("DORIS_OAUTH_PEERS", "%d peers; at most 64", len(c.Peers))
	}
	for _, p := range c.Peers {
		if err := checkPeerURL(p); err != nil {
			fail("DORIS_OAUTH_PEERS", "%q: %v", withoutUserinfo(p), err)
		}
	}
	between := func(field string, v, lo, hi time.Duration) {
		if v < lo || v > hi {
			fail(field, "must be between %s and %s seconds", seconds(lo), seconds(hi))
		}
	}
	between("DORIS_OAUTH_PEER_SYNC_SECONDS", c.PeerSync, time.Second, time.Hour)
	between("DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS", c.AccessTTL, time.Minute, 24*time.Hour)
	between("DORIS_OAUTH_REFRESH_TOKEN_EXPIRE_SECONDS", c.RefreshTTL, time.Minute, 30*24*time.Hour)
	if c.IdleTimeout != 0 {
		between("DORIS_OAUTH_IDLE_TIMEOUT_SECONDS", c.IdleTimeout, time.Second, 7*24*time.Hour)
	}
	between("DORIS_OAUTH_SESSION_MAX_SECONDS", c.SessionMax, time.Hour, 90*24*time.Hour)
	between("DORIS_OAUTH_AUTH_CODE_EXPIRE_SECONDS", c.CodeTTL, 10*time.Second, 10*time.Minute)
	between("DORIS_OAUTH_CREDENTIAL_CHECK_SECONDS", c.CredentialCheck, 0, time.Hour)
	between("DORIS_OAUTH_GC_INTERVAL_SECONDS", c.GCInterval, time.Second, time.Hour)
	if c.SessionDatabase != "" && !identRE().MatchString(c.SessionDatabase) {
		fail("DORIS_OAUTH_SESSION_DATABASE", "%q is not a plain database name", c.SessionDatabase)
	}
	if len(c.LoginPageTitle) > 200 {
		fail("DORIS_OAUTH_LOGIN_PAGE_TITLE", "is %d bytes; at most 200", len(c.LoginPageTitle))
	}
	if c.ChildToolsEnabled && len(c.ChildToolAllowlist) == 0 {
		fail("DORIS_OAUTH_CHILD_TOOL_ALLOWLIST", "is empty while DORIS_OAUTH_CHILD_TOOLS_ENABLED=true; name each domain.child")
	}
	for _, n := range c.ChildToolAllowlist {
		if !childNameRE().MatchString(n) {
			fail("DORIS_OAUTH_CHILD_TOOL_ALLOWLIST", "%q is not a domain.child name", n)
		}
	}
	for _, u := range c.AllowedRedirectURIs {
		if err := checkRedirectURI(u); err != nil {
			fail("DORIS_OAUTH_ALLOWED_REDIRECT_URIS", "%q: %v", withoutUserinfo(u), err)
		}
	}
	switch c.DCRMode {
	case "auto", "disabled":
	case "enabled":
		if !c.ProductionDCR && !baseIsLoopback(c.BaseURL) {
			fail("DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE",
				"enabled off loopback lets anyone register a client; confirm with ENABLE_DORIS_OAUTH_PRODUCTION_DCR=true")
		}
	default:
		fail("DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE", "%q is not auto, enabled or disabled", c.DCRMode)
	}
	if c.WildcardRedirects {
		fail("ENABLE_DORIS_OAUTH_PRODUCTION_WILDCARD_REDIRECTS", "wildcard redirect URIs are never accepted: redirect URIs match exactly")
	}
	if c.DCRMaxClients < 1 || c.DCRMaxClients > 1_000_000 {
		fail("DORIS_OAUTH_DCR_MAX_CLIENTS", "must be between 1 and 1000000")
	}
	if c.DCRClientTTL != 0 {
		between("DORIS_OAUTH_DCR_CLIENT_TTL_SECONDS", c.DCRClientTTL, time.Minute, 365*24*time.Hour)
	}
	between("DORIS_OAUTH_CIMD_FETCH_TIMEOUT_SECONDS", c.CIMDFetchTimeout, time.Second, 30*time.Second)
	if c.CIMDMaxDocumentBytes < 1024 || c.CIMDMaxDocumentBytes > 65536 {
		fail("DORIS_OAUTH_CIMD_MAX_DOCUMENT_BYTES", "must be between 1024 and 65536 bytes")
	}
	between("DORIS_OAUTH_CIMD_MAX_CACHE_SECONDS", c.CIMDMaxCache, 0, 24*time.Hour)
	if c.CIMDDefaultCache < 0 || c.CIMDDefaultCache > c.CIMDMaxCache {
		fail("DORIS_OAUTH_CIMD_DEFAULT_CACHE_SECONDS", "must be between 0 and %s seconds (DORIS_OAUTH_CIMD_MAX_CACHE_SECONDS)", seconds(c.CIMDMaxCache))
	}
	if c.CIMDMaxClients < 1 || c.CIMDMaxClients > 100_000 {
		fail("DORIS_OAUTH_CIMD_MAX_CLIENTS", "must be between 1 and 100000")
	}
	if c.TrustProxyHeaders && len(c.TrustedProxies) == 0 {
		fail("DORIS_OAUTH_TRUSTED_PROXY_CIDRS", "DORIS_OAUTH_TRUST_PROXY_HEADERS=true needs the proxies' addresses: forwarded headers are never trusted from anyone")
	}
	between("DORIS_OAUTH_RATE_LIMIT_WINDOW_SECONDS", c.RateWindow, time.Second, 24*time.Hour)
	lim := c.Limits
	for _, v := range []struct {
		key string
		n   int
	}{
		{"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_IP", lim.LoginPerIP}, {"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_USER", lim.LoginPerUser},
		{"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_CLIENT", lim.LoginPerClient}, {"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_TXN", lim.LoginPerTxn},
		{"DORIS_OAUTH_AUTHORIZE_RATE_LIMIT_PER_IP", lim.AuthorizePerIP},
		{"DORIS_OAUTH_TOKEN_RATE_LIMIT_PER_IP", lim.TokenPerIP}, {"DORIS_OAUTH_TOKEN_RATE_LIMIT_PER_CLIENT", lim.TokenPerClient},
		{"DORIS_OAUTH_REVOKE_RATE_LIMIT_PER_IP", lim.RevokePerIP}, {"DORIS_OAUTH_REVOKE_RATE_LIMIT_PER_CLIENT", lim.RevokePerClient},
		{"DORIS_OAUTH_API_AUTH_TOKEN_RATE_LIMIT_PER_IP", lim.APITokenPerIP}, {"DORIS_OAUTH_API_AUTH_TOKEN_RATE_LIMIT_PER_USER", lim.APITokenPerUser},
		{"DORIS_OAUTH_API_AUTH_REFRESH_RATE_LIMIT_PER_IP", lim.APIRefreshPerIP},
		{"DORIS_OAUTH_API_AUTH_REFRESH_RATE_LIMIT_PER_CLIENT", lim.APIRefreshPerClient},
		{"DORIS_OAUTH_DCR_RATE_LIMIT_PER_IP", lim.DCRPerIP},
	} {
		if v.n < 1 || v.n > 100_000 {
			fail(v.key, "must be between 1 and 100000")
		}
	}
	return errs
}

var (
	identRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`) })
	childNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^doris_[a-z]+\.[a-z][a-z0-9_]{0,63}$`) })
)

// checkBaseURL applies the DORIS_OAUTH_BASE_URL rules: an absolute http(s)
// origin without path, query, fragment or user info; https unless the
// host is loopback or insecure HTTP is explicitly allowed.
func checkBaseURL(s string, allowInsecure bool) error {
	if s == "" {
		return errors.New("is required: the public origin of this server, e.g. https://doris-mcp.example.com")
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("%q is not an absolute URL", s)
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("%q is not http or https", s)
	case u.User != nil:
		return errors.New("must not contain user information")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#"):
		return errors.New("must not contain a query or fragment")
	case u.Path != "" && u.Path != "/":
		return errors.New("must be an origin without a path: the endpoints are served at the root")
	case u.Scheme == "http" && !auth.IsLoopback(u.Hostname()) && !allowInsecure:
		return errors.New("must use https outside loopback (or set DORIS_OAUTH_ALLOW_INSECURE_HTTP=true behind a TLS-terminating proxy)")
	}
	if _, err := strconv.Atoi(u.Port()); u.Port() != "" && err != nil {
		return fmt.Errorf("%q has a bad port", s)
	}
	return nil
}

func checkPeerURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return errors.New("is not an http(s) base URL without path, query or user information")
	}
	return nil
}

// withoutUserinfo is s without the credentials of its user information,
// for messages: a URL refused for carrying them must not print them.
func withoutUserinfo(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		return strings.Replace(u.String(), "://", "://…@", 1)
	}
	return s
}

// baseIsLoopback reports whether the base URL's host is loopback.
func baseIsLoopback(base string) bool {
	u, err := url.Parse(base)
	return err == nil && auth.IsLoopback(u.Hostname())
}

// seconds prints d in seconds, the unit of the duration settings.
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }
