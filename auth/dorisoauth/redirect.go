package dorisoauth

import (
	"errors"
	"net/netip"
	"net/url"
	"strings"
)

// Redirect URI rules (OAuth 2.1, RFC 8252):
//   - absolute, no fragment, no user information, no wildcard, at most
//     2048 bytes;
//   - https anywhere; http only to a loopback host (127.0.0.1, [::1],
//     localhost); or a private-use scheme of a native app
//     (com.example.app:/callback, cursor://...), never a scheme a browser
//     would run or read locally (javascript, data, file, ...).
//
// A requested redirect URI must equal a registered one byte for byte,
// except that a loopback IP redirect may use any port (RFC 8252 §7.3:
// native apps listen on an ephemeral port).

const maxRedirectLen = 2048

// refusedSchemes are never redirect targets.
var refusedSchemes = map[string]bool{"javascript": true, "data": true, "file": true, "vbscript": true, "about": true,
	"blob": true, "filesystem": true, "view-source": true, "ws": true, "wss": true, "ftp": true, "mailto": true, "tel": true}

// checkRedirectURI reports why s may not be registered as a redirect URI.
func checkRedirectURI(s string) error {
	if s == "" || len(s) > maxRedirectLen {
		return errors.New("must be 1 to 2048 bytes")
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= 0x20 || s[i] >= 0x7f {
			return errors.New("must be printable ASCII without spaces")
		}
	}
	if strings.Contains(s, "*") {
		return errors.New("wildcards are not accepted")
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return errors.New("is not an absolute URI")
	}
	if u.Fragment != "" || strings.Contains(s, "#") {
		return errors.New("must not contain a fragment")
	}
	if u.User != nil {
		return errors.New("must not contain user information")
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "https":
		if u.Host == "" {
			return errors.New("https redirect URIs need a host")
		}
	case scheme == "http":
		if !isLoopbackHost(u.Hostname()) {
			return errors.New("http is allowed only to a loopback host; use https")
		}
	case refusedSchemes[scheme]:
		return errors.New("this scheme is never a redirect target")
	default:
		// A private-use scheme of a native app (RFC 8252 §7.1).
		if u.Opaque == "" && u.Host == "" && u.Path == "" {
			return errors.New("a private-use scheme redirect needs a path")
		}
	}
	return nil
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

// matchRedirect returns the registered redirect URI that requested
// selects: an exact match, or a loopback IP registration that differs
// only in its port. An empty request selects the only registered URI.
// It returns "" when nothing matches.
func matchRedirect(registered []string, requested string) string {
	if requested == "" {
		if len(registered) == 1 {
			return registered[0]
		}
		return ""
	}
	for _, r := range registered {
		if r == requested {
			return requested
		}
	}
	if len(requested) > maxRedirectLen || strings.ContainsAny(requested, "#* ") {
		return ""
	}
	ru, err := url.Parse(requested)
	if err != nil || ru.Scheme != "http" || ru.User != nil {
		return ""
	}
	ra, err := netip.ParseAddr(ru.Hostname())
	if err != nil || !ra.IsLoopback() {
		return ""
	}
	for _, r := range registered {
		u, err := url.Parse(r)
		if err != nil || u.Scheme != "http" || u.Hostname() != ru.Hostname() {
			continue
		}
		if u.Path == ru.Path && u.RawQuery == ru.RawQuery && u.RawPath == ru.RawPath {
			return requested
		}
	}
	return ""
}

// redirectWith appends query parameters to a redirect URI that may
// already have a query.
func redirectWith(uri string, params url.Values) string {
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	return uri + sep + params.Encode()
}
