// Package auth decides who a request is and where it may come from: the
// request Identity that the protocol and catalog layers consume, its
// authorization fingerprint (which state handles bind), and the Host/Origin
// policy that protects the HTTP transport from DNS rebinding.
//
// Over HTTP an Authenticator built from Config authenticates every request
// with a bearer token, by the first of its modes that recognizes it:
// static tokens known only by digest (ENABLE_TOKEN_AUTH), JWTs from a
// configured issuer (ENABLE_JWT_AUTH), and access tokens of an external
// OAuth 2.1 authorization server (ENABLE_OAUTH_AUTH), for which the server
// is a resource server with RFC 9728 metadata. A mode that recognizes a
// token and refuses it is final. stdio, and HTTP on a loopback bind without
// authentication, are served as the anonymous local principal.
//
// What the package does not do: it issues no tokens (the Doris-backed
// authorization server is package dorisoauth, which plugs in as a Method),
// keeps no session, and never trusts forwarded headers except from
// configured proxy CIDRs. It imports only the standard library and never
// the packages that consume it.
package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
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
	// Credential is the Doris account of a route of the identity's own (a
	// token bound to its own account, or a person signed in with their
	// Doris account). nil means the global service account, which only the
	// "global" route may use. It never appears in logs or handles, and
	// only its user and addresses enter the fingerprint.
	Credential *Credential
	// Grants are the principal's child permissions, e.g.
	// "child:call:doris_query:execute_query" or
	// "child:discover:doris_catalog:list_tables". A nil slice means the
	// principal has no child restrictions and may discover and call every
	// child the operator enabled.
	Grants []string
	// Scopes are the MCP operations the principal may perform: "tool:list"
	// (which also covers calling a domain tool), "resource:list",
	// "resource:read", "prompt:list", "prompt:get", "semantic:read". A nil
	// slice means every operation.
	Scopes []string
}

// Credential is a Doris account of a route of its own.
type Credential struct {
	User     string
	Password string `json:"-"`
	// Addrs are the FE query addresses (host:port) of the route, in
	// failover order; empty means the configured FEs.
	Addrs []string
	// Database is the route's session database; empty means the
	// configured DORIS_DATABASE.
	Database string
}

// String never shows the password, so a credential printed by mistake
// leaks nothing.
func (c *Credential) String() string {
	if c == nil {
		return "<nil>"
	}
	return "auth.Credential{User:" + c.User + ", Password:<redacted>}"
}

// LogValue keeps the password out of structured logs.
func (c *Credential) LogValue() slog.Value { return slog.StringValue(c.String()) }

// Anonymous is the local principal: stdio, or HTTP on a loopback bind with
// no authentication configured.
func Anonymous() Identity {
	return Identity{Method: "anonymous", Subject: "local", Route: "global"}
}

// Fingerprint is a stable digest of everything that decides what the
// identity may see and do. State handles bind it, so a handle minted for one
// principal never opens for another. It excludes session ids, client
// addresses, bearer values, passwords and timing (ADR 0002).
func (id Identity) Fingerprint() string {
	grants := slices.Clone(id.Grants)
	slices.Sort(grants)
	scopes := slices.Clone(id.Scopes)
	slices.Sort(scopes)
	var dorisUser string
	var addrs []string
	if id.Credential != nil {
		dorisUser, addrs = id.Credential.User, id.Credential.Addrs
	}
	b, _ := json.Marshal(struct {
		Method    string   `json:"method"`
		Subject   string   `json:"subject"`
		Route     string   `json:"route"`
		Grants    []string `json:"grants"`
		All       bool     `json:"all"`
		Scopes    []string `json:"scopes"`
		AllOps    bool     `json:"all_ops"`
		DorisUser string   `json:"doris_user"`
		Addrs     []string `json:"addrs"`
	}{id.Method, id.Subject, id.Route, grants, id.Grants == nil, scopes, id.Scopes == nil, dorisUser, addrs})
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

// Can reports whether the identity may perform the MCP operation scope
// (e.g. "tool:list", "resource:read").
func (id Identity) Can(scope string) bool {
	return id.Scopes == nil || slices.Contains(id.Scopes, scope)
}

// Error is a request refused by authentication or authorization: Status
// is 401 (no, bad or expired credential) or 403 (valid, but lacking a
// scope); Challenge is the WWW-Authenticate value to send with it; Code
// (an RFC 6750 error code such as "invalid_token") and Description are
// safe to show the client and never carry the credential.
type Error struct {
	Status      int
	Code        string
	Description string
	Challenge   string
	// scopes are the scopes an insufficient_scope refusal needs, for the
	// challenge the Authenticator completes.
	scopes []string
}

func (e *Error) Error() string { return "auth: " + e.Code + ": " + e.Description }

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
