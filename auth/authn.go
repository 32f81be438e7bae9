package auth

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// Method authenticates a bearer token for one authentication mode.
type Method interface {
	// Authenticate returns the identity of token; ErrNotRecognized when
	// the token is not of this method's kind (the next method is tried);
	// or an *Error refusing a token that is (no other method is tried).
	Authenticate(ctx context.Context, token string) (Identity, error)
}

// MethodFunc adapts a function to Method.
type MethodFunc func(ctx context.Context, token string) (Identity, error)

// Authenticate calls f.
func (f MethodFunc) Authenticate(ctx context.Context, token string) (Identity, error) {
	return f(ctx, token)
}

// ErrNotRecognized is a Method's answer for a token of another kind.
var ErrNotRecognized = errors.New("auth: token not recognized by this method")

// errNotRecognized is the package's own spelling of it.
var errNotRecognized = ErrNotRecognized

type namedMethod struct {
	name string
	Method
}

// Authenticator authenticates HTTP requests with the configured modes, in
// route-priority order: methods given in Options.First (the Doris-backed
// OAuth server's people), static tokens, JWT, external OAuth. The first
// method that recognizes a token decides: its refusal is final, so a token
// refused by one mode never falls through to another. It is safe for
// concurrent use.
type Authenticator struct {
	methods []namedMethod
	realm   string
	oauth   *oauthMode // nil unless external OAuth is on
	policy  *HostPolicy
	proxies *TrustedProxies
	log     *slog.Logger
}

// Enabled reports whether the Authenticator has any method; without one,
// requests are served as the anonymous local principal.
func (a *Authenticator) Enabled() bool { return a != nil && len(a.methods) > 0 }

// Identify authenticates r from its Authorization header. It is
// mcp.HTTPOptions.Identify: an error is an *Error whose Challenge is the
// WWW-Authenticate value to send.
func (a *Authenticator) Identify(r *http.Request) (Identity, error) {
	token, err := BearerToken(r)
	if err != nil {
		if errors.Is(err, ErrNoCredential) {
			return Identity{}, a.refuse(r, "", &Error{Status: http.StatusUnauthorized, Description: "a bearer token is required"})
		}
		return Identity{}, a.refuse(r, "", err)
	}
	for _, m := range a.methods {
		id, err := m.Authenticate(r.Context(), token)
		if errors.Is(err, ErrNotRecognized) {
			continue
		}
		if err != nil {
			return Identity{}, a.refuse(r, m.name, err)
		}
		if id.Method == "" || id.Route == "" || (id.Route == "global") != (id.Credential == nil) {
			a.log.Error("an authentication method returned an incomplete identity", "method", m.name)
			return Identity{}, a.refuse(r, m.name, invalidToken("the token could not be accepted"))
		}
		return id, nil
	}
	return Identity{}, a.refuse(r, "", invalidToken("the token is not valid"))
}

// refuse completes the challenge of a refusal and logs it: status, code,
// method and client address, never the token.
func (a *Authenticator) refuse(r *http.Request, method string, err error) *Error {
	var e *Error
	if !errors.As(err, &e) {
		a.log.Warn("authentication failed", "method", method, "err", err)
		e = invalidToken("the token could not be verified")
	}
	out := *e
	if out.Status == 0 {
		out.Status = http.StatusUnauthorized
	}
	ch := challenge{realm: a.realm, code: out.Code, description: out.Description}
	if out.Code == "" {
		ch.description = "" // RFC 6750 §3.1: no error details without a credential
	}
	switch out.Status {
	case http.StatusUnauthorized:
		if a.oauth != nil {
			ch.scope = strings.Join(a.oauth.required, " ")
		}
	case http.StatusForbidden:
		ch.scope = a.scopeFor(out.scopes)
	case http.StatusBadRequest:
		ch.realm = ""
	}
	if a.oauth != nil {
		ch.resourceMetadata = a.oauth.metadataURL
	}
	if out.Status != http.StatusServiceUnavailable {
		out.Challenge = ch.String()
	}
	a.log.LogAttrs(r.Context(), slog.LevelWarn, "authentication refused",
		slog.Int("status", out.Status), slog.String("code", out.Code), slog.String("method", method),
		slog.String("client", a.proxies.ClientIP(r).String()), slog.String("path", r.URL.Path))
	return &out
}

// scopeFor is the scope value of an insufficient_scope challenge: what the
// request needs plus, under OAuth, the scopes every token must carry, so
// a client that asks for exactly the challenged scopes gets a token that
// works (MCP: the challenge carries all scopes needed at once).
func (a *Authenticator) scopeFor(needed []string) string {
	all := slices.Clone(needed)
	if a.oauth != nil {
		for _, s := range a.oauth.required {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
	}
	return strings.Join(all, " ")
}

// ScopeChallenge returns the WWW-Authenticate value of a 403 for a request
// whose identity lacks operation scopes (space-delimited):
// mcp.HTTPOptions.ScopeChallenge.
func (a *Authenticator) ScopeChallenge(scope string) string {
	ch := challenge{realm: a.realm, code: codeInsufficientScope, description: "the token lacks the scope " + scope, scope: a.scopeFor(strings.Fields(scope))}
	if a.oauth != nil {
		ch.resourceMetadata = a.oauth.metadataURL
	}
	return ch.String()
}

// Mount returns the handlers to serve beside the MCP endpoint: under
// external OAuth, the RFC 9728 protected-resource metadata at its root
// and path-suffixed well-known URIs.
func (a *Authenticator) Mount() map[string]http.Handler {
	if a == nil || a.oauth == nil {
		return nil
	}
	h := a.oauth.serveMetadata(a.policy)
	root, suffixed := metadataPaths(a.oauth.resource)
	return map[string]http.Handler{"GET " + root: h, "GET " + suffixed: h}
}

// ClientIP is the request's client address under the trusted-proxy policy.
func (a *Authenticator) ClientIP(r *http.Request) string { return a.proxies.ClientIP(r).String() }
