package dorisoauth

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// preferred by MCP 2026-07-28): a client_id that is an https URL names a
// JSON document describing the client. Fetching a URL a stranger chose is
// server-side request forgery waiting to happen, so the fetch is bounded
// in every direction:
//   - https only, a path, no user info, query, fragment or dot segments;
//   - the host is resolved once, every address must be a public unicast
//     address (unless DORIS_OAUTH_CIMD_ALLOW_PRIVATE_ADDRESSES), and the
//     connection goes to exactly those addresses: the name cannot
//     re-resolve elsewhere between the check and the connection;
//   - no redirects, no proxy, a total time limit, a byte limit, JSON only;
//   - results are cached per replica within DORIS_OAUTH_CIMD_MAX_CACHE_SECONDS
//     and DORIS_OAUTH_CIMD_MAX_CLIENTS entries; concurrent resolutions of one
//     URL share one fetch; failures are not cached.

type cimdCache struct {
	s      *Server
	client *http.Client

	mu       sync.Mutex // protects entries, inflight
	entries  map[string]cimdEntry
	inflight map[string]*cimdCall
}

type cimdEntry struct {
	c   *client
	exp time.Time
}

type cimdCall struct {
	done chan struct{}
	c    *client
	err  error
}

func newCIMDCache(s *Server) *cimdCache {
	cc := &cimdCache{s: s, entries: map[string]cimdEntry{}, inflight: map[string]*cimdCall{}}
	t := &http.Transport{
		Proxy:                  nil,
		DialContext:            cc.dial,
		TLSClientConfig:        &tls.Config{RootCAs: s.opt.CIMDRootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    s.cfg.CIMDFetchTimeout,
		ResponseHeaderTimeout:  s.cfg.CIMDFetchTimeout,
		MaxResponseHeaderBytes: 16 << 10,
		DisableKeepAlives:      true,
		DisableCompression:     true,
	}
	cc.client = &http.Client{
		Transport:     t,
		Timeout:       s.cfg.CIMDFetchTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return cc
}

// errCIMD is any failure to use a metadata document; the details go to
// the log, not to the client.
var errCIMD = errors.New("the client metadata document could not be fetched or is not acceptable")

// resolve returns the client described by the document at id.
func (cc *cimdCache) resolve(ctx context.Context, id string) (*client, error) {
	if err := checkCIMDURL(id); err != nil {
		cc.s.log.Info("client metadata document refused", "reason", err.Error())
		return nil, errCIMD
	}
	now := cc.s.now()
	cc.mu.Lock()
	if e, ok := cc.entries[id]; ok && now.Before(e.exp) {
		cc.mu.Unlock()
		return e.c, nil
	}
	call, ok := cc.inflight[id]
	if !ok {
		call = &cimdCall{done: make(chan struct{})}
		cc.inflight[id] = call
		go cc.fetch(id, call)
	}
	cc.mu.Unlock()
	select {
	case <-call.done:
		return call.c, call.err
	case <-ctx.Done():
		return nil, errCIMD
	}
}

// fetch runs one resolution on its own deadline (not the first caller's),
// caches the result, and wakes every waiter.
func (cc *cimdCache) fetch(id string, call *cimdCall) {
	ctx, cancel := context.WithTimeout(context.Background(), cc.s.cfg.CIMDFetchTimeout)
	defer cancel()
	c, ttl, err := cc.get(ctx, id)
	if err != nil {
		cc.s.log.Info("client metadata document refused", "reason", err.Error())
		err = errCIMD
	}
	cc.mu.Lock()
	delete(cc.inflight, id)
	if err == nil && ttl > 0 {
		now := cc.s.now()
		if len(cc.entries) >= cc.s.cfg.CIMDMaxClients {
			cc.evictLocked(now)
		}
		cc.entries[id] = cimdEntry{c: c, exp: now.Add(ttl)}
	}
	cc.mu.Unlock()
	call.c, call.err = c, err
	close(call.done)
}

func (cc *cimdCache) evictLocked(now time.Time) {
	var oldest string
	var oldestExp time.Time
	for k, e := range cc.entries {
		if !now.Before(e.exp) {
			delete(cc.entries, k)
			continue
		}
		if oldest == "" || e.exp.Before(oldestExp) {
			oldest, oldestExp = k, e.exp
		}
	}
	if len(cc.entries) >= cc.s.cfg.CIMDMaxClients && oldest != "" {
		delete(cc.entries, oldest)
	}
}

func (cc *cimdCache) sweep(now time.Time) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	for k, e := range cc.entries {
		if !now.Before(e.exp) {
			delete(cc.entries, k)
		}
	}
}

var dotSegment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(^|/)(\.|%2e){1,2}(/|$)`) })

// checkCIMDURL applies the client identifier URL rules.
func checkCIMDURL(id string) error {
	if len(id) > 2048 || !cleanText(id) || strings.ContainsAny(id, " \\") {
		return errors.New("client identifier URL is malformed")
	}
	u, err := url.Parse(id)
	switch {
	case err != nil:
		return errors.New("client identifier URL is malformed")
	case u.Scheme != "https" || u.Host == "" || u.Hostname() == "":
		return errors.New("client identifier URL must be https with a host")
	case u.User != nil:
		return errors.New("client identifier URL must not contain user information")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(id, "#"):
		return errors.New("client identifier URL must not contain a query or fragment")
	case u.Path == "" || u.Path == "/":
		return errors.New("client identifier URL must contain a path")
	case dotSegment().MatchString(u.EscapedPath()) || dotSegment().MatchString(u.Path):
		return errors.New("client identifier URL must not contain dot segments")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("client identifier URL has a bad port")
		}
	}
	return nil
}

// dial resolves the host once, refuses it unless every address is
// allowed, and connects to those addresses only.
func (cc *cimdCache) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		var r Resolver = net.DefaultResolver
		if cc.s.opt.Resolver != nil {
			r = cc.s.opt.Resolver
		}
		addrs, err = r.LookupNetIP(ctx, "ip", host)
		if err != nil || len(addrs) == 0 {
			return nil, fmt.Errorf("resolving the client metadata host failed")
		}
	}
	for _, a := range addrs {
		if !addressAllowed(a.Unmap(), cc.s.cfg.CIMDAllowPrivateAddrs) {
			return nil, fmt.Errorf("the client metadata host resolves to a refused address (%s)", a.Unmap())
		}
	}
	var d net.Dialer
	var lastErr error
	for _, a := range addrs {
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

// refusedPrefixes are not public unicast destinations, beyond what
// netip.Addr reports as private, loopback, link-local or multicast.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("255.255.255.255/32"),
	netip.MustParsePrefix("64:ff9b::/96"), netip.MustParsePrefix("64:ff9b:1::/48"), netip.MustParsePrefix("100::/64"),
	netip.MustParsePrefix("2001::/32"), netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// addressAllowed reports whether a metadata document may be fetched from
// a: a public unicast address, or with allowPrivate also a private or
// loopback one (never unspecified, multicast or link-local: the cloud
// metadata services live there).
func addressAllowed(a netip.Addr, allowPrivate bool) bool {
	if !a.IsValid() || a.IsUnspecified() || a.IsMulticast() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() {
		return false
	}
	if allowPrivate && (a.IsLoopback() || a.IsPrivate()) {
		return true
	}
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() {
		return false
	}
	for _, p := range refusedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// cimdDoc is the part of a metadata document this server reads.
type cimdDoc struct {
	ClientID                string          `json:"client_id"`
	ClientName              *string         `json:"client_name"`
	RedirectURIs            []string        `json:"redirect_uris"`
	TokenEndpointAuthMethod *string         `json:"token_endpoint_auth_method"`
	GrantTypes              []string        `json:"grant_types"`
	ResponseTypes           []string        `json:"response_types"`
	Scope                   *string         `json:"scope"`
	ClientSecret            json.RawMessage `json:"client_secret"`
	ClientSecretExpiresAt   json.RawMessage `json:"client_secret_expires_at"`
	JWKS                    *struct {
		Keys []map[string]json.RawMessage `json:"keys"`
	} `json:"jwks"`
}

// get fetches and validates one document and returns how long to cache it.
func (cc *cimdCache) get(ctx context.Context, id string) (*client, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := cc.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, 0, fmt.Errorf("fetch failed: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("fetch answered %d", resp.StatusCode)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "application/json" && !(strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil, 0, errors.New("the document is not JSON")
	}
	max := int64(cc.s.cfg.CIMDMaxDocumentBytes)
	if resp.ContentLength > max {
		return nil, 0, errors.New("the document is too large")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, 0, errors.New("reading the document failed")
	}
	if int64(len(body)) > max {
		return nil, 0, errors.New("the document is too large")
	}
	c, err := cc.s.validateCIMD(id, body)
	if err != nil {
		return nil, 0, err
	}
	return c, cc.cacheFor(resp.Header), nil
}

// validateCIMD checks a metadata document against its URL and this
// server's rules.
func (s *Server) validateCIMD(id string, body []byte) (*client, error) {
	var doc cimdDoc
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, errors.New("the document is not a JSON object")
	}
	if doc.ClientID != id {
		return nil, errors.New("the document's client_id is not its URL")
	}
	if doc.ClientSecret != nil || doc.ClientSecretExpiresAt != nil {
		return nil, errors.New("the document carries a shared secret")
	}
	if doc.JWKS != nil {
		for _, k := range doc.JWKS.Keys {
			for _, p := range []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"} {
				if _, ok := k[p]; ok {
					return nil, errors.New("the document carries private key material")
				}
			}
		}
	}
	if m := doc.TokenEndpointAuthMethod; m != nil && *m != "none" {
		return nil, errors.New("only public clients (token_endpoint_auth_method none) may use metadata documents")
	}
	grants := doc.GrantTypes
	if grants == nil {
		grants = []string{"authorization_code"}
	}
	if err := checkGrantTypes(grants); err != nil {
		return nil, err
	}
	if doc.ResponseTypes != nil && (len(doc.ResponseTypes) != 1 || doc.ResponseTypes[0] != "code") {
		return nil, errors.New(`response_types must be ["code"]`)
	}
	if err := s.checkDynamicRedirects(doc.RedirectURIs); err != nil {
		return nil, err
	}
	u, _ := url.Parse(id)
	c := &client{ID: id, Name: u.Hostname(), RedirectURIs: doc.RedirectURIs, AuthMethod: "none", Source: "cimd"}
	if doc.ClientName != nil {
		n := strings.TrimSpace(*doc.ClientName)
		if n == "" || len(n) > 200 || !cleanText(n) {
			return nil, errors.New("client_name is invalid")
		}
		c.Name = n
	}
	if doc.Scope != nil && *doc.Scope != "" {
		if _, err := s.scopes.grant(*doc.Scope, true, nil); err != nil {
			return nil, errors.New("scope names scopes this server does not grant")
		}
		c.Scopes, _ = parseScope(*doc.Scope)
	}
	return c, nil
}

// checkGrantTypes accepts authorization_code, optionally refresh_token.
func checkGrantTypes(g []string) error {
	seen := map[string]bool{}
	for _, t := range g {
		if (t != "authorization_code" && t != "refresh_token") || seen[t] {
			return errors.New("grant_types may hold only authorization_code and refresh_token, once each")
		}
		seen[t] = true
	}
	if !seen["authorization_code"] {
		return errors.New("grant_types must include authorization_code")
	}
	return nil
}

// checkDynamicRedirects validates the redirect URIs of a registered or
// metadata-document client, and applies DORIS_OAUTH_ALLOWED_REDIRECT_URIS.
func (s *Server) checkDynamicRedirects(uris []string) error {
	if len(uris) == 0 || len(uris) > 32 {
		return errors.New("redirect_uris must hold 1 to 32 URIs")
	}
	seen := map[string]bool{}
	for _, u := range uris {
		if err := checkRedirectURI(u); err != nil {
			return fmt.Errorf("redirect URI refused: %v", err)
		}
		if seen[u] {
			return errors.New("redirect_uris repeats a URI")
		}
		seen[u] = true
		if len(s.cfg.AllowedRedirectURIs) > 0 && matchRedirect(s.cfg.AllowedRedirectURIs, u) == "" {
			return errors.New("a redirect URI is not in DORIS_OAUTH_ALLOWED_REDIRECT_URIS")
		}
	}
	return nil
}

// cacheFor reads Cache-Control: no-store and no-cache mean do not cache,
// max-age (less Age) is honoured up to the maximum, else the default.
func (cc *cimdCache) cacheFor(h http.Header) time.Duration {
	maxCache := cc.s.cfg.CIMDMaxCache
	age := 0
	if a, err := strconv.Atoi(strings.TrimSpace(h.Get("Age"))); err == nil && a > 0 {
		age = a
	}
	for _, d := range strings.Split(strings.ToLower(strings.Join(h.Values("Cache-Control"), ",")), ",") {
		d = strings.TrimSpace(d)
		switch {
		case d == "no-store" || d == "no-cache":
			return 0
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(d, "max-age="), `"`))
			if err != nil || n <= age {
				return 0
			}
			return min(time.Duration(n-age)*time.Second, maxCache)
		}
	}
	return min(cc.s.cfg.CIMDDefaultCache, maxCache)
}
