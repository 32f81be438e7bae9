package auth

import (
	"net/http"
	"strings"
)

// challenge is a WWW-Authenticate "Bearer" challenge (RFC 6750 §3, RFC
// 9728 §5.1). Empty members are left out.
type challenge struct {
	realm            string
	code             string // RFC 6750 error code; none when no credential was sent
	description      string
	scope            string // space-delimited scopes the request needs
	resourceMetadata string // RFC 9728 metadata URL
}

func (c challenge) String() string {
	var b strings.Builder
	b.WriteString("Bearer")
	sep := " "
	add := func(k, v string) {
		if v == "" {
			return
		}
		b.WriteString(sep)
		b.WriteString(k)
		b.WriteString(`="`)
		b.WriteString(quoteSafe(v))
		b.WriteString(`"`)
		sep = ", "
	}
	add("realm", c.realm)
	add("error", c.code)
	add("error_description", c.description)
	add("scope", c.scope)
	add("resource_metadata", c.resourceMetadata)
	return b.String()
}

// quoteSafe keeps a challenge parameter inside its quoted-string: RFC 6750
// limits error_description and scope to printable ASCII without '"' and
// '\'.
func quoteSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, s)
}

// Refusal codes of RFC 6750 §3.1 and the statuses they carry.
const (
	codeInvalidRequest    = "invalid_request"
	codeInvalidToken      = "invalid_token"
	codeInsufficientScope = "insufficient_scope"
	// codeUnavailable is not an RFC 6750 code: the credential could not be
	// checked now (the authorization server or its keys are unreachable),
	// which is no reason for the client to discard it.
	codeUnavailable = "temporarily_unavailable"
)

// invalidToken is a 401 for a credential that was presented and refused.
func invalidToken(desc string) *Error {
	return &Error{Status: http.StatusUnauthorized, Code: codeInvalidToken, Description: desc}
}

// unavailable is a 503 for a credential that could not be checked now.
func unavailable(desc string) *Error {
	return &Error{Status: http.StatusServiceUnavailable, Code: codeUnavailable, Description: desc}
}

// insufficientScope is a 403 naming the scopes the request needs.
func insufficientScope(desc string, scopes []string) *Error {
	return &Error{Status: http.StatusForbidden, Code: codeInsufficientScope, Description: desc, scopes: scopes}
}
