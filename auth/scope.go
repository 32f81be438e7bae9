package auth

import (
	"fmt"
	"slices"
	"strings"
)

// The MCP operation scopes (contract §4). "tool:list" also covers calling
// a domain tool; which children a caller may discover and call is decided
// by child grants.
const (
	ScopeToolList     = "tool:list"
	ScopeResourceList = "resource:list"
	ScopeResourceRead = "resource:read"
	ScopePromptList   = "prompt:list"
	ScopePromptGet    = "prompt:get"
	ScopeSemanticRead = "semantic:read"
)

// OperationScopes are every operation scope, sorted.
func OperationScopes() []string {
	return []string{ScopePromptGet, ScopePromptList, ScopeResourceList, ScopeResourceRead, ScopeSemanticRead, ScopeToolList}
}

func isOperationScope(s string) bool { return slices.Contains(OperationScopes(), s) }

// isChildGrant reports whether s is "child:call:<domain>:<child>" or
// "child:discover:<domain>:<child>" with lower-case identifiers.
func isChildGrant(s string) bool {
	rest, ok := strings.CutPrefix(s, "child:call:")
	if !ok {
		rest, ok = strings.CutPrefix(s, "child:discover:")
	}
	if !ok {
		return false
	}
	domain, child, ok := strings.Cut(rest, ":")
	return ok && isName(domain) && isName(child)
}

func isName(s string) bool {
	if s == "" || len(s) > 64 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Permissions is a principal's permission list split into what Identity
// carries. A principal without a permission list has the zero value:
// unrestricted. A list is exact for operations (Scopes holds the listed
// operation scopes, possibly none) and, as contract §4 says, for children
// only once it names any child: Grants is nil when it names none.
type Permissions struct {
	Scopes []string
	Grants []string
}

// ParsePermissions splits an operator-written permission list (a static
// token's or a JWT's) and refuses what the contract says grants nothing:
// wildcards, pre-1.0 "tool:call:<name>" scopes and unknown entries, so a
// typo fails startup instead of silently narrowing or widening access.
func ParsePermissions(perms []string) (Permissions, error) {
	p, bad := splitPermissions(perms)
	if len(bad) > 0 {
		return Permissions{}, fmt.Errorf("unknown or unsupported permissions %s (operation scopes are %s; children are child:call:<domain>:<child> or child:discover:<domain>:<child>; wildcards and pre-1.0 tool:call:<name> grant nothing)",
			quoteList(bad), strings.Join(OperationScopes(), ", "))
	}
	return p, nil
}

// splitPermissions sorts perms into scopes, grants and unrecognised
// entries, dropping duplicates.
func splitPermissions(perms []string) (p Permissions, bad []string) {
	p.Scopes = []string{}
	for _, s := range perms {
		switch {
		case isOperationScope(s):
			if !slices.Contains(p.Scopes, s) {
				p.Scopes = append(p.Scopes, s)
			}
		case isChildGrant(s):
			if !slices.Contains(p.Grants, s) {
				p.Grants = append(p.Grants, s)
			}
		default:
			bad = append(bad, s)
		}
	}
	slices.Sort(p.Scopes)
	slices.Sort(p.Grants)
	return p, bad
}

// splitScopeString splits an OAuth "scope" value (space-delimited, RFC
// 6749 §3.3).
func splitScopeString(s string) []string { return strings.Fields(s) }

func quoteList(ss []string) string {
	q := make([]string, 0, len(ss))
	for i, s := range ss {
		if i == 8 {
			q = append(q, fmt.Sprintf("and %d more", len(ss)-i))
			break
		}
		if len(s) > 80 {
			s = s[:80] + "..."
		}
		q = append(q, fmt.Sprintf("%q", s))
	}
	return strings.Join(q, ", ")
}
