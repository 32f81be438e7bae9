package auth

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// MaxTokenBytes bounds a bearer token. JWT access tokens with many scopes
// stay well under it; anything longer is refused before any parsing.
const MaxTokenBytes = 16 << 10

// ErrNoCredential is returned by BearerToken when the request carries no
// bearer credential at all (no Authorization header, or another scheme).
// RFC 6750 §3.1: such a challenge carries no error code.
var ErrNoCredential = errors.New("auth: no bearer credential")

// BearerToken returns the bearer token of an HTTP request (RFC 6750 §2.1):
// exactly one Authorization header, the case-insensitive scheme "Bearer",
// one or more spaces, and a token68 value of at most MaxTokenBytes. It
// returns ErrNoCredential when there is no bearer credential, and an
// *Error (400 invalid_request) when the credential is malformed, repeated,
// or also sent in the query string, which RFC 9700 and MCP forbid.
func BearerToken(r *http.Request) (string, error) {
	if err := QueryToken(r); err != nil {
		return "", err
	}
	vals := r.Header.Values("Authorization")
	switch {
	case len(vals) == 0:
		return "", ErrNoCredential
	case len(vals) > 1:
		return "", malformed("the Authorization header must appear once")
	}
	return parseBearer(vals[0])
}

// QueryToken returns the 400 invalid_request *Error when r carries an
// access_token in its query string (RFC 6750 §2.3, which RFC 9700 and MCP
// forbid: URLs end up in logs, histories and Referer headers), else nil.
// Every mode calls it before it looks at the Authorization header, so a
// token in the URL is refused even beside a valid header. The parameter
// is found however it is percent-encoded, and also in a query that
// url.ParseQuery would reject (a ";" in it drops the pair there).
func QueryToken(r *http.Request) *Error {
	if r.URL == nil || r.URL.RawQuery == "" {
		return nil
	}
	q := r.URL.RawQuery
	if u, err := url.QueryUnescape(q); err == nil {
		q = u
	}
	if strings.Contains(strings.ToLower(q), "access_token") {
		return malformed("an access token is never accepted in the query string")
	}
	return nil
}

// parseBearer parses one Authorization header value.
func parseBearer(v string) (string, error) {
	v = strings.Trim(v, " \t")
	scheme, rest, _ := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		if scheme == "" {
			return "", malformed("the Authorization header is empty")
		}
		return "", ErrNoCredential
	}
	token := strings.TrimLeft(rest, " ")
	switch {
	case token == "":
		return "", malformed("the bearer token is empty")
	case len(token) > MaxTokenBytes:
		return "", malformed("the bearer token is too long")
	case !isToken68(token):
		return "", malformed("the bearer token has characters outside the token68 syntax")
	}
	return token, nil
}

// isToken68 reports whether s is RFC 7235 token68: 1*( ALPHA / DIGIT /
// "-" / "." / "_" / "~" / "+" / "/" ) *"=".
func isToken68(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/') {
			break
		}
	}
	if i == 0 {
		return false
	}
	for ; i < len(s); i++ {
		if s[i] != '=' {
			return false
		}
	}
	return true
}

func malformed(desc string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "invalid_request", Description: desc}
}
