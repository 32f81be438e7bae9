package dorisoauth

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
)

// limiter counts events per (bucket, key) in fixed windows. It is per
// replica: N replicas allow N times a limit, which README.md states. It
// holds at most max keys; when full, newcomers share one overflow key per
// bucket, so a flood of distinct keys (many IPv6 addresses) throttles
// itself instead of growing memory or locking everyone out.
type limiter struct {
	mu     sync.Mutex // protects counts
	window time.Duration
	max    int
	counts map[string]*window
}

type window struct {
	start time.Time
	n     int
}

func newLimiter(w time.Duration, max int) *limiter {
	return &limiter{window: w, max: max, counts: map[string]*window{}}
}

// allow counts one event and reports whether it is within limit.
func (l *limiter) allow(bucket, key string, limit int, now time.Time) bool {
	if len(key) > 128 {
		sum := sha256.Sum256([]byte(key))
		key = hex.EncodeToString(sum[:16])
	}
	k := bucket + "\x00" + key
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.counts[k]
	if !ok {
		if len(l.counts) >= l.max {
			l.sweepLocked(now)
		}
		if len(l.counts) >= l.max {
			k = bucket + "\x00overflow"
			w = l.counts[k]
		}
		if w == nil {
			w = &window{start: now}
			l.counts[k] = w
		}
	}
	if now.Sub(w.start) >= l.window || now.Before(w.start) {
		w.start, w.n = now, 0
	}
	w.n++
	return w.n <= limit
}

func (l *limiter) sweep(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweepLocked(now)
}

func (l *limiter) sweepLocked(now time.Time) {
	for k, w := range l.counts {
		if now.Sub(w.start) >= l.window {
			delete(l.counts, k)
		}
	}
}

// clientIP is the address rate limits key on: the peer address, or, when
// the peer is a trusted proxy, the right-most X-Forwarded-For hop that is
// not itself a trusted proxy (the left-most hops are whatever the client
// wrote). IPv6 addresses count per /64, the unit one subscriber gets.
func (s *Server) clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return "unknown"
	}
	addr = addr.Unmap()
	if s.cfg.TrustProxyHeaders && s.trusted(addr) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			addr = a.Unmap()
			if !s.trusted(addr) {
				break
			}
		}
	}
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
