package dorisoauth

import (
	"errors"
	"slices"
	"strings"
)

// Scopes of this mode (contract section 4): the MCP operations tool:list,
// resource:list, resource:read and semantic:read, and per child
// child:call:<domain>:<child> (implies discovery) and
// child:discover:<domain>:<child>. Doris OAuth never issues "*", admin,
// service-account or prompt scopes: nothing outside the server's allowed
// set can be granted, whatever a client asks for.

const (
	maxScopes     = 256
	maxScopeBytes = 8192
)

// scopePolicy decides which scopes a client may be granted.
type scopePolicy struct {
	allowed  map[string]bool
	defaults []string // allowed, minus discover-only child scopes; sorted
	all      []string // allowed, sorted
}

func newScopePolicy(c *Config) *scopePolicy {
	p := &scopePolicy{allowed: map[string]bool{"tool:list": true, "resource:list": true, "resource:read": true}}
	if c.SemanticTools || c.SemanticResources {
		p.allowed["semantic:read"] = true
	}
	if c.ChildToolsEnabled {
		for _, n := range c.ChildToolAllowlist {
			domain, child, ok := strings.Cut(n, ".")
			if !ok {
				continue
			}
			p.allowed["child:call:"+domain+":"+child] = true
			p.allowed["child:discover:"+domain+":"+child] = true
		}
	}
	for s := range p.allowed {
		p.all = append(p.all, s)
		if !strings.HasPrefix(s, "child:discover:") {
			p.defaults = append(p.defaults, s)
		}
	}
	slices.Sort(p.all)
	slices.Sort(p.defaults)
	return p
}

// errScope is an invalid_scope refusal; its text is safe to show.
var errScope = errors.New("the requested scope is not allowed")

// parseScope splits a scope parameter (RFC 6749 §3.3: space-separated
// tokens of %x21 / %x23-5B / %x5D-7E), dropping repeats and keeping order.
func parseScope(s string) ([]string, error) {
	if len(s) > maxScopeBytes {
		return nil, errors.New("the scope parameter is too long")
	}
	var out []string
	for _, t := range strings.Split(s, " ") {
		if t == "" {
			continue
		}
		for i := 0; i < len(t); i++ {
			c := t[i]
			if c < 0x21 || c == 0x22 || c == 0x5c || c > 0x7e {
				return nil, errors.New("the scope parameter holds a character RFC 6749 does not allow")
			}
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
		if len(out) > maxScopes {
			return nil, errors.New("the scope parameter names too many scopes")
		}
	}
	return out, nil
}

// grant returns the scopes to issue for a request: with explicit scopes,
// every one must be allowed by the server and the client, or the request
// fails; with none, the server's safe defaults that the client may have.
// The result is sorted and never empty.
func (p *scopePolicy) grant(requested string, explicit bool, client []string) ([]string, error) {
	req, err := parseScope(requested)
	if err != nil {
		return nil, err
	}
	var out []string
	if explicit && len(req) > 0 {
		for _, s := range req {
			if !p.allowed[s] || (client != nil && !slices.Contains(client, s)) {
				return nil, errScope
			}
			out = append(out, s)
		}
	} else {
		for _, s := range p.defaults {
			if client == nil || slices.Contains(client, s) {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return nil, errScope
	}
	slices.Sort(out)
	return out, nil
}

// narrow returns the scopes of a refresh: the original grant, or the
// requested subset of it (RFC 6749 §6).
func (p *scopePolicy) narrow(requested string, original []string) ([]string, error) {
	req, err := parseScope(requested)
	if err != nil {
		return nil, err
	}
	if len(req) == 0 {
		return original, nil
	}
	for _, s := range req {
		if !slices.Contains(original, s) {
			return nil, errors.New("the requested scope exceeds the original grant")
		}
	}
	slices.Sort(req)
	return req, nil
}

// identity splits a token's scopes into the identity's child grants and
// operation scopes, keeping only what the server allows now: narrowing
// DORIS_OAUTH_CHILD_TOOL_ALLOWLIST takes effect at once for tokens
// already issued. Both results are non-nil (nil would mean "everything").
func (p *scopePolicy) identity(scopes []string) (grants, ops []string) {
	grants, ops = []string{}, []string{}
	for _, s := range scopes {
		if !p.allowed[s] {
			continue
		}
		if strings.HasPrefix(s, "child:") {
			grants = append(grants, s)
		} else {
			ops = append(ops, s)
		}
	}
	return grants, ops
}
