package auth

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// HostPolicy guards the HTTP transport against DNS rebinding: the Host
// header must name this server and an Origin header, when a browser sends
// one, must be an allowed origin.
//
// Patterns are exact ("db.example.com:3000", "https://app.example.com") or
// end in ":*" to allow any port ("localhost:*", "http://localhost:*"). A
// bare "*" is refused: it would switch the protection off.
type HostPolicy struct {
	hosts   []string
	origins []string
}

// NewHostPolicy returns the policy for a server bound to bindHost. Empty
// hosts or origins take the reference defaults: a loopback bind allows the
// loopback names on any port and their http origins; any other bind allows
// only its own name and no browser origin.
func NewHostPolicy(bindHost string, hosts, origins []string) (*HostPolicy, error) {
	p := &HostPolicy{}
	var errs []error
	for _, h := range hosts {
		if err := checkPattern(h); err != nil {
			errs = append(errs, fmt.Errorf("MCP_ALLOWED_HOSTS: %w", err))
		}
		p.hosts = append(p.hosts, strings.ToLower(h))
	}
	for _, o := range origins {
		if err := checkPattern(o); err != nil {
			errs = append(errs, fmt.Errorf("MCP_ALLOWED_ORIGINS: %w", err))
		} else if !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
			errs = append(errs, fmt.Errorf("MCP_ALLOWED_ORIGINS: %q is not an http(s) origin", o))
		}
		p.origins = append(p.origins, strings.ToLower(strings.TrimSuffix(o, "/")))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(p.hosts) == 0 {
		if IsLoopback(bindHost) {
			p.hosts = []string{"127.0.0.1:*", "localhost:*", "[::1]:*"}
		} else {
			h := strings.ToLower(bindHost)
			if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
				h = "[" + h + "]"
			}
			p.hosts = []string{h + ":*"}
		}
	}
	if len(origins) == 0 && IsLoopback(bindHost) {
		p.origins = []string{"http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"}
	}
	return p, nil
}

func checkPattern(s string) error {
	switch {
	case s == "" || strings.TrimSpace(s) != s:
		return fmt.Errorf("%q is empty or padded", s)
	case s == "*" || strings.Contains(strings.TrimSuffix(s, ":*"), "*"):
		return fmt.Errorf("%q: wildcards other than a trailing \":*\" port are refused", s)
	}
	return nil
}

// AllowHost reports whether a Host header value is allowed.
func (p *HostPolicy) AllowHost(host string) bool {
	return matchAny(p.hosts, strings.ToLower(host))
}

// AllowOrigin reports whether an Origin header value is allowed. An absent
// Origin (non-browser clients) is allowed; "null" never is.
func (p *HostPolicy) AllowOrigin(origin string) bool {
	if origin == "" {
		return true
	}
	return matchAny(p.origins, strings.ToLower(origin))
}

// Check returns nil when r's Host and Origin are allowed.
func (p *HostPolicy) Check(r *http.Request) error {
	if !p.AllowHost(r.Host) {
		return errors.New("auth: Host header not allowed")
	}
	if len(r.Header.Values("Origin")) > 1 || !p.AllowOrigin(r.Header.Get("Origin")) {
		return errors.New("auth: Origin header not allowed")
	}
	return nil
}

// matchAny matches value ("name[:port]" or "scheme://name[:port]") against
// patterns.
func matchAny(patterns []string, value string) bool {
	for _, pat := range patterns {
		if pat == value {
			return true
		}
		base, anyPort := strings.CutSuffix(pat, ":*")
		if !anyPort {
			continue
		}
		if value == base {
			return true
		}
		rest, ok := strings.CutPrefix(value, base+":")
		if ok && isPort(rest) {
			return true
		}
	}
	return false
}

func isPort(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
