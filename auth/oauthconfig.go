package auth

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// compileOAuth builds the external OAuth resource server of c.OAuth. For
// New it fetches the discovery document when one is configured.
func (c *Config) compileOAuth(b Bind, bc *buildCtx, now func() time.Time, log *slog.Logger) (*oauthMode, []error) {
	o := c.OAuth
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, k := range o.Unsupported {
		add(configErrf(k, "role and domain mappings that grant permissions are not supported; grant scopes in the access token (OAUTH_SCOPE)"))
	}
	if o.Issuer == "" {
		add(configErrf("OAUTH_ISSUER", "is required: the authorization server whose tokens are trusted"))
	} else {
		add(checkURL("OAUTH_ISSUER", o.Issuer))
	}
	if o.Resource == "" {
		add(configErrf("OAUTH_RESOURCE", "is required: this server's canonical URI, e.g. https://mcp.example.com/mcp"))
	} else if err := checkURL("OAUTH_RESOURCE", o.Resource); err != nil {
		add(err)
	} else if u, _ := url.Parse(o.Resource); u.RawQuery != "" {
		add(configErrf("OAUTH_RESOURCE", "a canonical resource URI has no query"))
	} else if b.Transport == "http" {
		if p, err := NewHostPolicy(b.Host, b.AllowedHosts, nil); err == nil && !p.AllowHost(u.Host) {
			add(configErrf("OAUTH_RESOURCE", "its host %q is not an allowed Host of this server (MCP_ALLOWED_HOSTS)", u.Host))
		}
	}
	if o.Audience == "" {
		o.Audience = o.Resource
	}
	if len(o.Scopes) == 0 {
		add(configErrf("OAUTH_SCOPE", "is required: the scopes this server accepts, e.g. tool:list resource:list resource:read"))
	}
	for _, r := range o.RequiredScopes {
		if !slices.Contains(o.Scopes, r) {
			add(configErrf("OAUTH_REQUIRED_SCOPE", "%q is not in OAUTH_SCOPE", r))
		}
	}
	add(checkAlgorithms("OAUTH_ALGORITHMS", o.Algorithms, false))
	add(inRange("OAUTH_LEEWAY_SECONDS", o.Leeway, 0, 5*time.Minute))
	add(inRange("OAUTH_HTTP_TIMEOUT_SECONDS", o.Timeout, 100*time.Millisecond, time.Minute))
	add(inRange("OAUTH_INTROSPECTION_CACHE_SECONDS", o.IntrospectCache, 0, 5*time.Minute))
	add(inRange("OAUTH_JWKS_CACHE_SECONDS", o.JWKSCache, time.Second, 24*time.Hour))
	add(inRange("OAUTH_JWKS_MIN_REFRESH_SECONDS", o.JWKSMinRefresh, time.Second, time.Hour))
	if o.MaxBytes < 1<<10 || o.MaxBytes > 4<<20 {
		add(configErrf("OAUTH_MAX_RESPONSE_BYTES", "must be between 1024 and 4194304 bytes"))
	}
	for field, u := range map[string]string{"OAUTH_DISCOVERY_URL": o.DiscoveryURL, "OAUTH_JWKS_URL": o.JWKSURL, "OAUTH_INTROSPECTION_URL": o.IntrospectionURL} {
		if u != "" {
			add(checkURL(field, u))
		}
	}
	if o.DiscoveryURL == "" && o.JWKSURL == "" && o.IntrospectionURL == "" {
		add(configErrf("OAUTH_JWKS_URL", "set OAUTH_JWKS_URL (JWT access tokens), OAUTH_INTROSPECTION_URL (opaque ones), or OAUTH_DISCOVERY_URL to find them"))
	}
	if o.IntrospectionURL != "" && (o.ClientID == "" || o.ClientSecret == "") {
		add(configErrf("OAUTH_INTROSPECTION_CLIENT_ID", "introspection needs OAUTH_INTROSPECTION_CLIENT_ID and OAUTH_INTROSPECTION_CLIENT_SECRET"))
	}
	if len(errs) > 0 || bc == nil {
		return nil, errs
	}
	client := bc.client(o.Timeout)
	if o.DiscoveryURL != "" {
		jwks, intro, err := discover(bc.ctx, client, o.DiscoveryURL, o.Issuer, o.MaxBytes)
		if err != nil {
			return nil, []error{configErr("OAUTH_DISCOVERY_URL", err)}
		}
		if o.JWKSURL == "" {
			o.JWKSURL = jwks
		}
		if o.IntrospectionURL == "" && o.ClientID != "" {
			o.IntrospectionURL = intro
		}
	}
	m := &oauthMode{issuer: o.Issuer, resource: o.Resource, audience: o.Audience, allowed: o.Scopes, required: o.RequiredScopes, userClaim: o.UserIDClaim}
	if o.JWKSURL != "" {
		m.jwt = &jwtVerifier{algs: o.Algorithms, issuer: o.Issuer, audience: o.Audience, leeway: o.Leeway, requireIAT: true,
			typs: []string{"", "jwt", "at+jwt", "application/at+jwt"}, now: now,
			keys: &remoteKeys{source: o.JWKSURL, fetch: fetchURL(client, o.JWKSURL, o.MaxBytes), ttl: o.JWKSCache, minInterval: o.JWKSMinRefresh, now: now, log: log}}
	}
	if o.IntrospectionURL != "" {
		m.introspect = &introspector{url: o.IntrospectionURL, clientID: o.ClientID, secret: o.ClientSecret, client: client, maxBytes: o.MaxBytes,
			ttl: o.IntrospectCache, leeway: o.Leeway, now: now, log: log, cache: map[[32]byte]cachedIntrospection{}}
	}
	if m.jwt == nil && m.introspect == nil {
		return nil, []error{configErrf("OAUTH_DISCOVERY_URL", "the discovery document names neither a jwks_uri nor, with client credentials, an introspection_endpoint")}
	}
	u, _ := url.Parse(o.Resource)
	_, suffixed := metadataPaths(o.Resource)
	m.metadataURL = u.Scheme + "://" + u.Host + suffixed
	m.metadata, _ = json.Marshal(map[string]any{
		"resource":                 o.Resource,
		"authorization_servers":    []string{o.Issuer},
		"scopes_supported":         o.Scopes,
		"bearer_methods_supported": []string{"header"},
		"resource_name":            "doris-mcp-server",
	})
	return m, nil
}

// discover fetches RFC 8414 / OpenID Connect metadata and returns its
// jwks_uri and introspection_endpoint; its issuer must equal issuer
// exactly, and both endpoints must be acceptable URLs.
func discover(ctx context.Context, client *http.Client, u, issuer string, maxBytes int64) (jwks, intro string, err error) {
	b, err := httpGet(ctx, client, u, "application/json", maxBytes)
	if err != nil {
		return "", "", err
	}
	var md struct {
		Issuer        string `json:"issuer"`
		JWKSURI       string `json:"jwks_uri"`
		Introspection string `json:"introspection_endpoint"`
	}
	if err := decodeStrict(b, &md, false); err != nil {
		return "", "", errors.New("the discovery document is not a JSON object")
	}
	if md.Issuer != issuer {
		return "", "", errors.New("the discovery document's issuer is not OAUTH_ISSUER")
	}
	for _, e := range []string{md.JWKSURI, md.Introspection} {
		if e != "" {
			if err := checkURL("endpoint", e); err != nil {
				return "", "", errors.New("the discovery document names an endpoint that is not an acceptable URL: " + strings.TrimPrefix(err.Error(), "endpoint: "))
			}
		}
	}
	return md.JWKSURI, md.Introspection, nil
}
