package authtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// Server is a minimal authorization server for fault injection: it
// publishes discovery metadata and a JWKS, and answers RFC 7662
// introspection for the opaque tokens a test registers, so a test can
// present the server with any token state (expired, wrong audience,
// revoked...). The end-to-end tests use a real authorization server
// (oidc-provider) instead.
type Server struct {
	*httptest.Server
	Keys         *Keys
	ClientID     string
	ClientSecret string

	// JWKSFetches and Introspections count requests.
	JWKSFetches, Introspections atomic.Int64

	mu     sync.Mutex // protects jwks, opaque, down
	jwks   []byte
	opaque map[string]map[string]any
	down   bool
}

// NewServer starts the server on loopback; Close runs at cleanup.
func NewServer(t testing.TB, keys *Keys) *Server {
	t.Helper()
	s := &Server{Keys: keys, ClientID: "doris-mcp", ClientSecret: "introspection-secret-0f9a8b7c6d5e4f3a2b1c",
		jwks: keys.JWKS(), opaque: map[string]map[string]any{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": s.URL, "jwks_uri": s.URL + "/jwks", "introspection_endpoint": s.URL + "/introspect"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		s.JWKSFetches.Add(1)
		s.mu.Lock()
		b, down := s.jwks, s.down
		s.mu.Unlock()
		if down {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	mux.HandleFunc("POST /introspect", func(w http.ResponseWriter, r *http.Request) {
		s.Introspections.Add(1)
		id, secret, ok := r.BasicAuth()
		if !ok || id != s.ClientID || secret != s.ClientSecret {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		s.mu.Lock()
		resp, known := s.opaque[r.PostFormValue("token")]
		down := s.down
		s.mu.Unlock()
		switch {
		case down:
			http.Error(w, "down", http.StatusServiceUnavailable)
		case !known:
			writeJSON(w, map[string]any{"active": false})
		default:
			writeJSON(w, resp)
		}
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// Issuer is the server's issuer identifier (its URL).
func (s *Server) Issuer() string { return s.URL }

// AddOpaque registers an opaque token and its introspection response
// ("active" defaults to true).
func (s *Server) AddOpaque(token string, resp map[string]any) {
	if _, ok := resp["active"]; !ok {
		resp["active"] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opaque[token] = resp
}

// Revoke makes an opaque token inactive.
func (s *Server) Revoke(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opaque[token] = map[string]any{"active": false}
}

// SetJWKS replaces the published key set (key rotation).
func (s *Server) SetJWKS(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jwks = b
}

// SetDown makes the JWKS and introspection endpoints answer 503.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
