package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// oauthMode is the external OAuth 2.1 resource server: access tokens from
// one trusted authorization server, bound to this server's canonical
// resource (RFC 8707), verified locally when they are JWTs (RFC 9068,
// with the server's JWKS) or through RFC 7662 introspection when opaque.
type oauthMode struct {
	issuer      string
	resource    string
	audience    string
	allowed     []string // OAUTH_SCOPE
	required    []string // OAUTH_REQUIRED_SCOPE
	userClaim   string
	jwt         *jwtVerifier  // nil without a JWKS
	introspect  *introspector // nil without an introspection endpoint
	metadataURL string        // RFC 9728 metadata, path-suffixed form
	metadata    []byte
}

func (m *oauthMode) authenticate(ctx context.Context, token string) (Identity, error) {
	switch {
	case m.jwt != nil && looksLikeJWT(token):
		c, err := m.jwt.verify(ctx, token)
		if err != nil {
			return Identity{}, err
		}
		var scopes []string
		if raw, ok := c.Raw["scope"]; ok {
			scopes, _ = stringOrList(raw)
		} else if raw, ok := c.Raw["scp"]; ok {
			scopes, _ = stringOrList(raw)
		}
		return m.identity(claimString(c.Raw, m.userClaim), claimString(c.Raw, "client_id"), scopes)
	case m.introspect != nil:
		r, err := m.introspect.check(ctx, token, m)
		if err != nil {
			return Identity{}, err
		}
		return m.identity(r.sub, r.clientID, r.scopes)
	}
	return Identity{}, invalidToken("the token is not a JWT and no introspection endpoint is configured")
}

// identity keeps the token's scopes that OAUTH_SCOPE allows, requires
// OAUTH_REQUIRED_SCOPE, and maps the rest: operation scopes exactly, child
// scopes exactly once any is present.
func (m *oauthMode) identity(sub, clientID string, scopes []string) (Identity, error) {
	var kept []string
	for _, s := range scopes {
		if slices.Contains(m.allowed, s) && !slices.Contains(kept, s) {
			kept = append(kept, s)
		}
	}
	for _, r := range m.required {
		if !slices.Contains(kept, r) {
			return Identity{}, insufficientScope("the token lacks a required scope", m.required)
		}
	}
	if sub == "" && clientID != "" {
		sub = "client:" + clientID
	}
	if sub == "" {
		return Identity{}, invalidToken("the token names no subject")
	}
	p, _ := splitPermissions(kept)
	return Identity{Method: "oauth", Subject: sub, Route: "global", Scopes: p.Scopes, Grants: p.Grants}, nil
}

// serveMetadata serves the RFC 9728 protected-resource metadata.
func (m *oauthMode) serveMetadata(policy *HostPolicy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if policy != nil && !policy.AllowHost(r.Host) {
			http.Error(w, `{"error":"forbidden"}`, http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "public, max-age=300")
		// Public metadata: browser-based clients read it cross-origin.
		h.Set("Access-Control-Allow-Origin", "*")
		w.Write(m.metadata)
	})
}

// metadataPaths returns the root and the path-suffixed well-known paths of
// the metadata for resource (RFC 9728 §3.1).
func metadataPaths(resource string) (root, suffixed string) {
	root = "/.well-known/oauth-protected-resource"
	u, err := url.Parse(resource)
	if err != nil || u.Path == "" || u.Path == "/" {
		return root, root
	}
	return root, root + "/" + strings.TrimPrefix(u.Path, "/")
}

// introspection is an RFC 7662 response.
type introspection struct {
	Active    bool            `json:"active"`
	Scope     string          `json:"scope"`
	ClientID  string          `json:"client_id"`
	Sub       string          `json:"sub"`
	Iss       string          `json:"iss"`
	Aud       json.RawMessage `json:"aud"`
	Exp       float64         `json:"exp"`
	Nbf       float64         `json:"nbf"`
	TokenType string          `json:"token_type"`
	raw       map[string]json.RawMessage
}

// introspector asks the authorization server about opaque tokens and
// caches active answers until the earlier of the token's exp and the
// cache bound, so a revocation at the server is seen within the bound.
type introspector struct {
	url, clientID, secret string
	client                *http.Client
	maxBytes              int64
	ttl                   time.Duration
	leeway                time.Duration
	now                   func() time.Time
	log                   *slog.Logger

	mu    sync.Mutex // protects cache
	cache map[[32]byte]cachedIntrospection
}

// introspected is what the server keeps of an active token's
// introspection: a few short strings, so the cache stays small whatever
// the authorization server sends.
type introspected struct {
	sub, clientID string
	scopes        []string
}

type cachedIntrospection struct {
	r     *introspected
	until time.Time
}

const maxIntrospectionCache = 10000

// check returns what the introspection of an active token bound to m's
// issuer and audience says, or an *Error.
func (in *introspector) check(ctx context.Context, token string, m *oauthMode) (*introspected, error) {
	key := sha256.Sum256([]byte(token))
	now := in.now()
	in.mu.Lock()
	c, ok := in.cache[key]
	if ok && now.Before(c.until) {
		in.mu.Unlock()
		return c.r, nil
	}
	delete(in.cache, key)
	in.mu.Unlock()

	r, err := in.post(ctx, token)
	if err != nil {
		in.log.Warn("token introspection failed", "endpoint", in.url, "err", err)
		return nil, unavailable("the authorization server cannot be asked about the token now")
	}
	if !r.Active {
		return nil, invalidToken("the token is not active")
	}
	if r.Iss != "" && r.Iss != m.issuer {
		return nil, invalidToken("the token issuer is not accepted")
	}
	var aud []string
	if one := ""; json.Unmarshal(r.Aud, &one) == nil && one != "" {
		aud = []string{one}
	} else {
		json.Unmarshal(r.Aud, &aud)
	}
	if !slices.Contains(aud, m.audience) {
		return nil, invalidToken("the token audience is not this server")
	}
	switch strings.ToLower(r.TokenType) {
	case "", "bearer", "access_token":
	default:
		return nil, invalidToken("the token is not an access token")
	}
	exp := time.Unix(int64(r.Exp), 0)
	if r.Exp > 0 && !now.Before(exp.Add(in.leeway)) {
		return nil, invalidToken("the token has expired")
	}
	if r.Nbf > 0 && now.Add(in.leeway).Before(time.Unix(int64(r.Nbf), 0)) {
		return nil, invalidToken("the token is not valid yet")
	}
	sub := r.Sub
	if m.userClaim != "sub" {
		sub = claimString(r.raw, m.userClaim)
	}
	res := &introspected{sub: sub, clientID: r.ClientID, scopes: splitScopeString(r.Scope)}
	until := now.Add(in.ttl)
	if r.Exp > 0 && exp.Before(until) {
		until = exp
	}
	if !until.After(now) {
		return res, nil // caching is off, or the token expires now
	}
	in.mu.Lock()
	if len(in.cache) >= maxIntrospectionCache {
		for k, v := range in.cache {
			if !now.Before(v.until) || len(in.cache) >= maxIntrospectionCache {
				delete(in.cache, k)
			}
		}
	}
	in.cache[key] = cachedIntrospection{r: res, until: until}
	in.mu.Unlock()
	return res, nil
}

// post sends the RFC 7662 request with client_secret_basic.
func (in *introspector) post(ctx context.Context, token string) (*introspection, error) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.url, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(url.QueryEscape(in.clientID), url.QueryEscape(in.secret))
	resp, err := in.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &statusError{resp.StatusCode}
	}
	b, err := readBounded(resp.Body, in.maxBytes)
	if err != nil {
		return nil, err
	}
	var r introspection
	if err := decodeStrict(b, &r, false); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &r.raw); err != nil {
		return nil, err
	}
	return &r, nil
}

type statusError struct{ status int }

func (e *statusError) Error() string { return "unexpected HTTP status " + http.StatusText(e.status) }
