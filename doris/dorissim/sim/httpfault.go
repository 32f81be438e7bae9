package sim

import (
	"net/http"
	"strings"
	"time"
)

// HTTPFault describes misbehaviour of the simulated FE or BE web server,
// for tests of the MCP server's per-node timeouts and size caps.
type HTTPFault struct {
	// Server is "fe" or "be".
	Server string
	// Path is the exact request path the fault applies to ("" = any).
	Path string
	// Hold, when set, keeps the request waiting until it is closed or the
	// client goes away: a node slower than any timeout, deterministically.
	Hold <-chan struct{}
	// Latency delays the answer.
	Latency time.Duration
	// Status, when non-zero, answers with this HTTP status and no body.
	Status int
	// PadBytes appends that many bytes of Prometheus comment lines to the
	// body (a valid /metrics body that is simply too large).
	PadBytes int
	// Times is how many requests the fault applies to; 0 = until cleared.
	Times int
}

type httpFaultState struct {
	f    HTTPFault
	left int
}

// InjectHTTP adds a web server fault; the first matching fault applies.
func (s *Server) InjectHTTP(f HTTPFault) {
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.httpFaultsMu.Lock()
	s.httpFaults = append(s.httpFaults, &httpFaultState{f: f, left: left})
	s.httpFaultsMu.Unlock()
}

// ClearHTTPFaults removes all web server faults.
func (s *Server) ClearHTTPFaults() {
	s.httpFaultsMu.Lock()
	s.httpFaults = nil
	s.httpFaultsMu.Unlock()
}

func (s *Server) takeHTTPFault(server, path string) *HTTPFault {
	s.httpFaultsMu.Lock()
	defer s.httpFaultsMu.Unlock()
	for i, fs := range s.httpFaults {
		if fs.f.Server != server || fs.f.Path != "" && fs.f.Path != path {
			continue
		}
		f := fs.f
		if fs.left > 0 {
			if fs.left--; fs.left == 0 {
				s.httpFaults = append(s.httpFaults[:i:i], s.httpFaults[i+1:]...)
			}
		}
		return &f
	}
	return nil
}

// withHTTPFaults wraps a web server's handler with the injected faults.
func (s *Server) withHTTPFaults(server string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f := s.takeHTTPFault(server, r.URL.Path)
		if f == nil {
			h.ServeHTTP(w, r)
			return
		}
		if f.Hold != nil {
			select {
			case <-f.Hold:
			case <-r.Context().Done():
				return
			}
		}
		if f.Latency > 0 {
			t := time.NewTimer(f.Latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		if f.Status != 0 {
			w.WriteHeader(f.Status)
			return
		}
		h.ServeHTTP(w, r)
		if f.PadBytes > 0 {
			line := "# " + strings.Repeat("x", 126) + "\n"
			for n := 0; n < f.PadBytes; n += len(line) {
				if _, err := w.Write([]byte(line)); err != nil {
					return
				}
			}
		}
	})
}
