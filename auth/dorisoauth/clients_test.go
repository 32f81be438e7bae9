package dorisoauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// TestRegistration: RFC 7591 registrations are validated, sealed into the
// client_id, expire, and a confidential client must present its secret.
func TestRegistration(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"loopback http", map[string]any{"redirect_uris": []string{"http://127.0.0.1:33418/cb"}}, 201, ""},
		{"https", map[string]any{"redirect_uris": []string{"https://app.example.com/cb"}}, 201, ""},
		{"native scheme", map[string]any{"redirect_uris": []string{"com.example.app:/oauth"}}, 201, ""},
		{"no redirect", map[string]any{"client_name": "x"}, 400, "invalid_redirect_uri"},
		{"http elsewhere", map[string]any{"redirect_uris": []string{"http://app.example.com/cb"}}, 400, "invalid_redirect_uri"},
		{"javascript", map[string]any{"redirect_uris": []string{"javascript:alert(1)"}}, 400, "invalid_redirect_uri"},
		{"wildcard", map[string]any{"redirect_uris": []string{"https://*.example.com/cb"}}, 400, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://app.example.com/cb#x"}}, 400, "invalid_redirect_uri"},
		{"user info", map[string]any{"redirect_uris": []string{"https://u:p@app.example.com/cb"}}, 400, "invalid_redirect_uri"},
		{"implicit grant", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"implicit"}}, 400, "invalid_client_metadata"},
		{"token response", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "response_types": []string{"token"}}, 400, "invalid_client_metadata"},
		{"private_key_jwt", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "token_endpoint_auth_method": "private_key_jwt"}, 400, "invalid_client_metadata"},
		{"prompt scope", map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "scope": "prompt:get"}, 400, "invalid_client_metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.with(t).postJSON("/oauth/register", tc.body)
			if r.status != tc.status || (tc.code != "" && r.json(t)["error"] != tc.code) {
				t.Errorf("got %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
		})
	}
	if r := h.postRaw("/oauth/register", "application/json", `{"redirect_uris":["https://a.example/cb"]} {}`); r.status != 400 {
		t.Errorf("two JSON values: %d", r.status)
	}

	t.Run("confidential client", func(t *testing.T) {
		h := h.with(t)
		r := h.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{"http://127.0.0.1:9/cb"}, "token_endpoint_auth_method": "client_secret_post"})
		m := r.json(t)
		id, secret := m["client_id"].(string), m["client_secret"].(string)
		verifier, challenge := pkce("f")
		code := h.signIn(id, "http://127.0.0.1:9/cb", challenge, "alice", "alice-pw-1")
		if _, r := h.exchange(id, code, verifier, "http://127.0.0.1:9/cb"); r.status != 401 {
			t.Errorf("without its secret: %d %s", r.status, r.body)
		}
		if _, r := h.exchange(id, code, verifier, "http://127.0.0.1:9/cb", "client_secret", secret+"x"); r.status != 401 {
			t.Errorf("with a wrong secret: %d %s", r.status, r.body)
		}
		if _, r := h.exchange(id, code, verifier, "http://127.0.0.1:9/cb", "client_secret", secret); r.status != 200 {
			t.Errorf("with its secret: %d %s", r.status, r.body)
		}
	})
	t.Run("registration expires", func(t *testing.T) {
		h := h.with(t)
		id := h.register("http://127.0.0.1:9/cb")
		h.clock.Advance(86401 * time.Second)
		if r := h.get("/oauth/authorize?" + authParams(id, "http://127.0.0.1:9/cb", strings.Repeat("a", 43)).Encode()); r.status != 400 {
			t.Errorf("an expired registration: %d", r.status)
		}
	})
}

// TestClientsFile: preconfigured clients hold secret digests only, and a
// bad file fails New with the reason.
func TestClientsFile(t *testing.T) {
	dir := t.TempDir()
	sum := sha256.Sum256([]byte("dify-secret-0123456789"))
	good := filepath.Join(dir, "clients.json")
	os.WriteFile(good, []byte(fmt.Sprintf(`{"clients":[{"client_id":"dify","client_name":"Dify","redirect_uris":["https://dify.example.com/cb"],
		"token_endpoint_auth_method":"client_secret_post","client_secret_digest":"sha256:%s","scope":"tool:list"}]}`, hex.EncodeToString(sum[:]))), 0o600)
	h := newHarness(t, func(c *dorisoauth.Config, _ *dorisoauth.Options) { c.ClientsFile = good })
	verifier, challenge := pkce("g")
	f := h.openLogin(authParams("dify", "https://dify.example.com/cb", challenge))
	if !strings.Contains(f.page.body, "Dify") {
		t.Error("the sign-in page does not name the client")
	}
	r := h.submit(f, "alice", "alice-pw-1")
	tok, tr := h.exchange("dify", r.location.Query().Get("code"), verifier, "https://dify.example.com/cb", "client_secret", "dify-secret-0123456789")
	if tr.status != 200 || tok.Scope != "tool:list" {
		t.Fatalf("token: %d %s", tr.status, tr.body)
	}

	for name, body := range map[string]string{
		"unknown field":    `{"clients":[{"client_id":"a","redirect_uris":["https://a.example/cb"],"secret":"x"}]}`,
		"plain secret":     `{"clients":[{"client_id":"a","redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"client_secret_post","client_secret_digest":"hunter2"}]}`,
		"bad redirect":     `{"clients":[{"client_id":"a","redirect_uris":["http://a.example/cb"]}]}`,
		"forbidden scope":  `{"clients":[{"client_id":"a","redirect_uris":["https://a.example/cb"],"scope":"*"}]}`,
		"repeated id":      `{"clients":[{"client_id":"a","redirect_uris":["https://a.example/cb"]},{"client_id":"a","redirect_uris":["https://a.example/cb"]}]}`,
		"repeated key":     `{"clients":[{"client_id":"a","redirect_uris":["https://a.example/cb"],"client_id":"b"}]}`,
		"case-variant key": `{"clients":[{"client_id":"a","Redirect_URIs":["https://a.example/cb"]}]}`,
		"two documents":    `{"clients":[]} {"clients":[]}`,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		os.WriteFile(p, []byte(body), 0o600)
		cfg := baseConfig("http://127.0.0.1:1")
		cfg.ClientsFile = p
		if _, err := dorisoauth.New(cfg, dorisoauth.Options{CheckLogin: (&doris{}).CheckLogin}); err == nil || !strings.Contains(err.Error(), "DORIS_OAUTH_CLIENTS_FILE") {
			t.Errorf("%s: New = %v", name, err)
		}
	}
}

// resolver maps names to addresses, as DNS would.
type resolver map[string][]netip.Addr

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", host)
}

// TestClientMetadataDocument: an https client_id is fetched (over TLS, the
// name resolved once and pinned), validated against its URL, cached per
// Cache-Control, and never fetched from a private address unless allowed,
// nor through a redirect, nor beyond the size limit.
func TestClientMetadataDocument(t *testing.T) {
	var hits atomic.Int64
	docs := map[string]func(id string) (int, http.Header, string){}
	cimd := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		id := "https://" + r.Host + r.URL.Path
		if f, ok := docs[r.URL.Path]; ok {
			status, hdr, body := f(id)
			for k, v := range hdr {
				w.Header()[k] = v
			}
			w.WriteHeader(status)
			w.Write([]byte(body))
			return
		}
		w.WriteHeader(404)
	}))
	t.Cleanup(cimd.Close)
	port := mustURL(cimd.URL).Port()
	id := func(path string) string { return "https://example.com:" + port + path }
	jsonHdr := func(extra ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	doc := func(clientID, redirect string) string {
		return fmt.Sprintf(`{"client_id":%q,"client_name":"Metadata Host","redirect_uris":[%q],"grant_types":["authorization_code","refresh_token"]}`, clientID, redirect)
	}
	docs["/good.json"] = func(self string) (int, http.Header, string) {
		return 200, jsonHdr("Cache-Control", "max-age=60"), doc(self, "http://127.0.0.1:9/cb")
	}
	docs["/nostore.json"] = func(self string) (int, http.Header, string) {
		return 200, jsonHdr("Cache-Control", "no-store"), doc(self, "http://127.0.0.1:9/cb")
	}
	docs["/mismatch.json"] = func(string) (int, http.Header, string) {
		return 200, jsonHdr(), doc("https://other.test/x.json", "http://127.0.0.1:9/cb")
	}
	docs["/big.json"] = func(self string) (int, http.Header, string) {
		return 200, jsonHdr(), doc(self, "http://127.0.0.1:9/cb")[:10] + strings.Repeat(" ", 6000) + doc(self, "http://127.0.0.1:9/cb")[10:]
	}
	docs["/redirect.json"] = func(string) (int, http.Header, string) {
		return 302, http.Header{"Location": {"/good.json"}}, ""
	}
	docs["/secret.json"] = func(self string) (int, http.Header, string) {
		return 200, jsonHdr(), `{"client_id":"` + self + `","redirect_uris":["http://127.0.0.1:9/cb"],"client_secret":"s"}`
	}
	docs["/html.json"] = func(self string) (int, http.Header, string) {
		return 200, http.Header{"Content-Type": {"text/html"}}, doc(self, "http://127.0.0.1:9/cb")
	}
	pool := cimd.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	withCIMD := func(allowPrivate bool) option {
		return func(c *dorisoauth.Config, o *dorisoauth.Options) {
			c.CIMDAllowPrivateAddrs = allowPrivate
			o.Resolver = resolver{"example.com": {netip.MustParseAddr("127.0.0.1")}, "meta.test": {netip.MustParseAddr("169.254.169.254")}}
			o.CIMDRootCAs = pool
		}
	}
	h := newHarness(t, withCIMD(true))
	authorize := func(h *harness, client string) reply {
		_, challenge := pkce("m")
		return h.get("/oauth/authorize?" + authParams(client, "http://127.0.0.1:9/cb", challenge).Encode())
	}
	t.Run("good, cached", func(t *testing.T) {
		h := h.with(t)
		before := hits.Load()
		verifier, challenge := pkce("m")
		f := h.openLogin(authParams(id("/good.json"), "http://127.0.0.1:9/cb", challenge))
		if !strings.Contains(f.page.body, "Metadata Host") || !strings.Contains(f.page.body, "example.com") {
			t.Errorf("the page does not show the document's client: %s", f.page.body)
		}
		r := h.submit(f, "alice", "alice-pw-1")
		if _, tr := h.exchange(id("/good.json"), r.location.Query().Get("code"), verifier, "http://127.0.0.1:9/cb"); tr.status != 200 {
			t.Fatalf("token: %d %s", tr.status, tr.body)
		}
		if n := hits.Load() - before; n != 1 {
			t.Errorf("%d fetches for one client within max-age, want 1", n)
		}
		h.clock.Advance(61 * time.Second)
		authorize(h, id("/good.json"))
		if n := hits.Load() - before; n != 2 {
			t.Errorf("%d fetches after max-age, want 2", n)
		}
	})
	t.Run("no-store", func(t *testing.T) {
		h := h.with(t)
		before := hits.Load()
		authorize(h, id("/nostore.json"))
		authorize(h, id("/nostore.json"))
		if n := hits.Load() - before; n != 2 {
			t.Errorf("%d fetches, want 2", n)
		}
	})
	for _, bad := range []string{"/mismatch.json", "/big.json", "/redirect.json", "/secret.json", "/html.json", "/missing.json"} {
		t.Run("refused "+bad, func(t *testing.T) {
			if r := authorize(h.with(t), id(bad)); r.status != 400 || r.location != nil {
				t.Errorf("got %d %v", r.status, r.location)
			}
		})
	}
	for _, bad := range []string{"http://example.com/x.json", "https://example.com", "https://example.com/a/../x.json",
		"https://example.com/x.json?q=1", "https://u@example.com/x.json", "https://example.com/%2e%2e/x.json"} {
		t.Run("bad URL "+bad, func(t *testing.T) {
			before := hits.Load()
			if r := authorize(h.with(t), bad); r.status != 400 || hits.Load() != before {
				t.Errorf("got %d, %d fetches", r.status, hits.Load()-before)
			}
		})
	}
	t.Run("private address refused", func(t *testing.T) {
		p := newHarness(t, withCIMD(false))
		before := hits.Load()
		if r := authorize(p, id("/good.json")); r.status != 400 || hits.Load() != before {
			t.Errorf("loopback document without the allowance: %d, %d fetches", r.status, hits.Load()-before)
		}
		q := newHarness(t, withCIMD(true))
		if r := authorize(q, "https://meta.test:"+port+"/good.json"); r.status != 400 || hits.Load() != before {
			t.Errorf("link-local (metadata service) address: %d, %d fetches", r.status, hits.Load()-before)
		}
	})
	_ = url.Values{}
}
