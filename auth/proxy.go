package auth

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// TrustedProxies decides which client address a request has. Forwarded
// headers are believed only from peers inside the configured CIDRs: with
// none configured, the client is always the TCP peer, whatever headers it
// sends. The zero value trusts nobody.
type TrustedProxies struct {
	prefixes []netip.Prefix
}

// ParseTrustedProxies parses CIDRs ("10.0.0.0/8", "::1/128"). A prefix that
// covers every address (0.0.0.0/0, ::/0) is refused: it would let any
// client choose the address it is seen as.
func ParseTrustedProxies(cidrs []string) (*TrustedProxies, error) {
	p := &TrustedProxies{}
	var errs []error
	for _, c := range cidrs {
		pr, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			errs = append(errs, fmt.Errorf("%q is not a CIDR", truncateString(c, 60)))
			continue
		}
		if pr.Bits() == 0 {
			errs = append(errs, fmt.Errorf("%q trusts every address", c))
			continue
		}
		p.prefixes = append(p.prefixes, pr.Masked())
	}
	return p, errors.Join(errs...)
}

func (p *TrustedProxies) trusted(a netip.Addr) bool {
	if p == nil {
		return false
	}
	a = a.Unmap()
	for _, pr := range p.prefixes {
		if pr.Contains(a) {
			return true
		}
	}
	return false
}

// ClientIP returns the address of the client of r: the TCP peer, unless
// the peer is a trusted proxy, in which case X-Forwarded-For is read from
// the right, skipping trusted proxies, and the first other address is the
// client. A malformed entry stops the walk at the last trusted hop.
func (p *TrustedProxies) ClientIP(r *http.Request) netip.Addr {
	peer := remoteAddr(r)
	if !peer.IsValid() || !p.trusted(peer) {
		return peer
	}
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
			if err != nil {
				return client
			}
			client = a.Unmap()
			if !p.trusted(client) {
				return client
			}
		}
	}
	return client
}

func remoteAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}
