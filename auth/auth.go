// Package auth decides who a request is and where it may come from: the
// request Identity that the protocol and catalog layers consume, its
// authorization fingerprint (which state handles bind), and the Host/Origin
// policy that protects the HTTP transport from DNS rebinding.
//
// This build authenticates nobody: requests on stdio and on a loopback HTTP
// bind are served as the anonymous local principal, and configuration
// refuses a non-loopback bind without authentication unless the operator
// explicitly allows it. The bearer-token, JWT and OAuth modes of the
// reference server are not built yet; enabling one fails startup instead of
// silently running without it. Package auth imports only the standard
// library and never imports the packages that consume it.
package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"slices"
	"strings"
)

// Identity is the authenticated principal of one request. The zero value is
// not meaningful; use Anonymous or a verifier's result.
type Identity struct {
	// Method is how the request was authenticated: "anonymous" for the
	// local principal of stdio and loopback HTTP.
	Method string
	// Subject identifies the principal within its method.
	Subject string
	// Route names the Doris connection route (pool) the request uses. The
	// global service account is "global". A request never falls back to a
	// route other than its own.
	Route string
	// Grants are the principal's child permissions, e.g.
	// "child:call:doris_query:execute_query" or
	// "child:discover:doris_catalog:list_tables". A nil slice means the
	// principal has no child restrictions and may discover and call every
	// child the operator enabled.
	Grants []string
}

// Anonymous is the local principal: stdio, or HTTP on a loopback bind with
// no authentication configured.
func Anonymous() Identity {
	return Identity{Method: "anonymous", Subject: "local", Route: "global"}
}

// Fingerprint is a stable digest of everything that decides what the
// identity may see and do. State handles bind it, so a handle minted for one
// principal never opens for another. It excludes session ids, client
// addresses, bearer values and timing (ADR 0002).
func (id Identity) Fingerprint() string {
	grants := slices.Clone(id.Grants)
	slices.Sort(grants)
	b, _ := json.Marshal(struct {
		Method  string   `json:"method"`
		Subject string   `json:"subject"`
		Route   string   `json:"route"`
		Grants  []string `json:"grants"`
		All     bool     `json:"all"`
	}{id.Method, id.Subject, id.Route, grants, id.Grants == nil})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// CanDiscover reports whether the identity may learn that domain.child
// exists. A call grant implies discovery.
func (id Identity) CanDiscover(domain, child string) bool {
	if id.Grants == nil {
		return true
	}
	return slices.Contains(id.Grants, "child:discover:"+domain+":"+child) ||
		slices.Contains(id.Grants, "child:call:"+domain+":"+child)
}

// CanCall reports whether the identity may execute domain.child.
func (id Identity) CanCall(domain, child string) bool {
	if id.Grants == nil {
		return true
	}
	return slices.Contains(id.Grants, "child:call:"+domain+":"+child)
}

type ctxKey struct{}

// WithIdentity returns a context carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// FromContext returns the identity carried by ctx, and whether there was one.
func FromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(ctxKey{}).(Identity)
	return id, ok
}

// IsLoopback reports whether host (a name or IP, without port) is a
// loopback address.
func IsLoopback(host string) bool {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}
