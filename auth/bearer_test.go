package auth_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// TestBearerToken: the Authorization header grammar of RFC 6750 §2.1.
func TestBearerToken(t *testing.T) {
	long := strings.Repeat("a", auth.MaxTokenBytes+1)
	for _, tc := range []struct {
		name    string
		headers []string
		query   string
		token   string
		err     string // "none": ErrNoCredential; else the *Error code
	}{
		{"plain", []string{"Bearer abc.def-ghi_jkl~mno+pqr/stu=="}, "", "abc.def-ghi_jkl~mno+pqr/stu==", ""},
		{"scheme case", []string{"bearer abc"}, "", "abc", ""},
		{"extra spaces", []string{"Bearer    abc  "}, "", "abc", ""},
		{"no header", nil, "", "", "none"},
		{"basic scheme", []string{"Basic dXNlcjpwYXNz"}, "", "", "none"},
		{"empty", []string{""}, "", "", "invalid_request"},
		{"scheme only", []string{"Bearer"}, "", "", "invalid_request"},
		{"scheme and space", []string{"Bearer  "}, "", "", "invalid_request"},
		{"two headers", []string{"Bearer abc", "Bearer def"}, "", "", "invalid_request"},
		{"space inside", []string{"Bearer abc def"}, "", "", "invalid_request"},
		{"equals inside", []string{"Bearer ab=c"}, "", "", "invalid_request"},
		{"only equals", []string{"Bearer ==="}, "", "", "invalid_request"},
		{"non-ASCII", []string{"Bearer abcé"}, "", "", "invalid_request"},
		{"quote", []string{`Bearer "abc"`}, "", "", "invalid_request"},
		{"too long", []string{"Bearer " + long}, "", "", "invalid_request"},
		{"token in the query", []string{"Bearer abc"}, "access_token=abc", "", "invalid_request"},
		{"query only", nil, "access_token=abc", "", "invalid_request"},
		{"query percent-encoded name", []string{"Bearer abc"}, "access%5Ftoken=abc", "", "invalid_request"},
		{"query after a semicolon", []string{"Bearer abc"}, "a=1;access_token=abc", "", "invalid_request"},
		{"query upper case name", []string{"Bearer abc"}, "ACCESS_TOKEN=abc", "", "invalid_request"},
		{"other query", []string{"Bearer abc"}, "session=1", "abc", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp?"+tc.query, nil)
			for _, h := range tc.headers {
				r.Header.Add("Authorization", h)
			}
			tok, err := auth.BearerToken(r)
			var e *auth.Error
			switch {
			case tc.err == "" && (err != nil || tok != tc.token):
				t.Fatalf("got %q, %v; want %q", tok, err, tc.token)
			case tc.err == "none" && !errors.Is(err, auth.ErrNoCredential):
				t.Fatalf("got %q, %v; want ErrNoCredential", tok, err)
			case tc.err != "" && tc.err != "none" && (!errors.As(err, &e) || e.Code != tc.err || e.Status != 400):
				t.Fatalf("got %q, %v; want a 400 %s", tok, err, tc.err)
			}
		})
	}
}

// TestClientIP: forwarded headers are believed only from trusted proxies,
// read right to left.
func TestClientIP(t *testing.T) {
	p, err := auth.ParseTrustedProxies([]string{"10.0.0.0/8", "::1/128"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		peer, xff, want string
		proxies         *auth.TrustedProxies
	}{
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9", p},                  // untrusted peer: header ignored
		{"10.1.2.3:5000", "198.51.100.1", "198.51.100.1", p},                    // trusted proxy
		{"10.1.2.3:5000", "6.6.6.6, 198.51.100.1, 10.9.9.9", "198.51.100.1", p}, // spoofed left entries ignored
		{"10.1.2.3:5000", "garbage, 10.9.9.9", "10.9.9.9", p},
		{"10.1.2.3:5000", "", "10.1.2.3", p},
		{"[::1]:5000", "198.51.100.7", "198.51.100.7", p},
		{"10.1.2.3:5000", "198.51.100.1", "10.1.2.3", nil}, // no proxies configured
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := tc.proxies.ClientIP(r).String(); got != tc.want {
			t.Errorf("peer %s XFF %q: got %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
}
