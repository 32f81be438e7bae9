package dorisoauth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// The harness runs the authorization server over real HTTP on loopback,
// with a fake Doris behind CheckLogin (a user -> password map that tests
// change, as an administrator would) and a fake clock. /mcp stands in for
// the MCP endpoint: it answers the identity Identify returned, or the
// refusal with its status and challenge.

const testSecret = "k2P9x-Qv7Lm3Rt8Zw4Yb6Nc1Hd5Jf0Gs+ux"

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Unix(1_800_000_000, 0)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// doris is the fake Doris of CheckLogin.
type doris struct {
	mu     sync.Mutex
	users  map[string]string
	down   atomic.Bool
	checks atomic.Int64
}

func (d *doris) set(user, password string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.users[user] = password
}

func (d *doris) CheckLogin(ctx context.Context, user, password string) error {
	d.checks.Add(1)
	if d.down.Load() {
		return errors.New("dial tcp: connection refused")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if pw, ok := d.users[user]; !ok || pw != password {
		return fmt.Errorf("Error 1045: Access denied for user '%s': %w", user, dorisoauth.ErrLoginRejected)
	}
	return nil
}

type harness struct {
	t     testing.TB
	clock *clock
	doris *doris
	cfg   dorisoauth.Config
	srv   *dorisoauth.Server
	ts    *httptest.Server
	base  string
	http  *http.Client // a browser: cookies, no automatic redirects
}

type option func(*dorisoauth.Config, *dorisoauth.Options)

func quietLogger() *slog.Logger {
	if os.Getenv("DORISOAUTH_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// baseConfig is a valid configuration for base.
func baseConfig(base string) dorisoauth.Config {
	cfg := dorisoauth.DefaultConfig()
	cfg.Enabled, cfg.BaseURL, cfg.Secret = true, base, testSecret
	cfg.Deployment.Transport, cfg.Deployment.DorisHost, cfg.Deployment.DorisUser = "http", "127.0.0.1", "mcp_reader"
	return cfg
}

// newHarness starts a server on a loopback port.
func newHarness(t testing.TB, opts ...option) *harness {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startHarness(t, l, newClock(), &doris{users: map[string]string{"alice": "alice-pw-1", "bob": "bob-pw-1"}}, opts...)
}

func startHarness(t testing.TB, l net.Listener, c *clock, d *doris, opts ...option) *harness {
	t.Helper()
	h := serveHarness(t, l, c, d, opts...)
	h.srv.Start(context.Background())
	return h
}

// serveHarness serves on l without starting the server's background work
// (the peer pull at Start waits for peers that are not serving yet).
func serveHarness(t testing.TB, l net.Listener, c *clock, d *doris, opts ...option) *harness {
	t.Helper()
	h := &harness{t: t, clock: c, doris: d, base: "http://" + l.Addr().String()}
	h.cfg = baseConfig(h.base)
	o := dorisoauth.Options{CheckLogin: d.CheckLogin, Now: c.Now, Logger: quietLogger()}
	// Generous limits: the tests of the limits set their own.
	h.cfg.Limits = dorisoauth.Limits{LoginPerIP: 1000, LoginPerUser: 1000, LoginPerClient: 1000, LoginPerTxn: 1000,
		AuthorizePerIP: 1000, TokenPerIP: 1000, TokenPerClient: 1000, RevokePerIP: 1000, RevokePerClient: 1000,
		APITokenPerIP: 1000, APITokenPerUser: 1000, APIRefreshPerIP: 1000, APIRefreshPerClient: 1000, DCRPerIP: 1000}
	for _, opt := range opts {
		opt(&h.cfg, &o)
	}
	srv, err := dorisoauth.New(h.cfg, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	h.srv = srv
	mux := http.NewServeMux()
	for p, hd := range srv.Mount() {
		mux.Handle(p, hd)
	}
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		id, err := srv.Identify(r)
		if err != nil {
			var ae *auth.Error
			if !errors.As(err, &ae) {
				t.Errorf("Identify returned %T, want *auth.Error", err)
				w.WriteHeader(500)
				return
			}
			w.Header().Set("WWW-Authenticate", ae.Challenge)
			w.WriteHeader(ae.Status)
			json.NewEncoder(w).Encode(map[string]string{"code": ae.Code, "description": ae.Description})
			return
		}
		json.NewEncoder(w).Encode(id)
	})
	h.ts = &httptest.Server{Listener: l, Config: &http.Server{Handler: mux}}
	h.ts.Start()
	t.Cleanup(h.ts.Close)
	t.Cleanup(func() { srv.Close() })
	jar, _ := cookiejar.New(nil)
	h.http = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// with returns the harness reporting to t (a subtest).
func (h *harness) with(t *testing.T) *harness {
	c := *h
	c.t = t
	return &c
}

// reply is an HTTP answer, read in full.
type reply struct {
	status   int
	header   http.Header
	body     string
	location *url.URL
}

func (r reply) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("not JSON (%d): %s", r.status, r.body)
	}
	return m
}

func (h *harness) do(req *http.Request) reply {
	h.t.Helper()
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
	if loc := resp.Header.Get("Location"); loc != "" {
		r.location, _ = req.URL.Parse(loc)
	}
	return r
}

func (h *harness) get(path string, hdr ...string) reply {
	h.t.Helper()
	req, _ := http.NewRequest("GET", h.abs(path), nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return h.do(req)
}

func (h *harness) abs(path string) string {
	if strings.HasPrefix(path, "http") {
		return path
	}
	return h.base + path
}

func (h *harness) postForm(path string, v url.Values, hdr ...string) reply {
	h.t.Helper()
	return h.postRaw(path, "application/x-www-form-urlencoded", v.Encode(), hdr...)
}

func (h *harness) postRaw(path, ctype, body string, hdr ...string) reply {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.abs(path), strings.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return h.do(req)
}

func (h *harness) postJSON(path string, v any) reply {
	h.t.Helper()
	b, _ := json.Marshal(v)
	return h.postRaw(path, "application/json", string(b))
}

// register registers a public client with one loopback redirect URI.
func (h *harness) register(redirect string, extra ...map[string]any) string {
	h.t.Helper()
	body := map[string]any{"client_name": "Test Host", "redirect_uris": []string{redirect}}
	for _, e := range extra {
		for k, v := range e {
			body[k] = v
		}
	}
	r := h.postJSON("/oauth/register", body)
	if r.status != 201 {
		h.t.Fatalf("register: %d %s", r.status, r.body)
	}
	return r.json(h.t)["client_id"].(string)
}

// pkce returns a verifier and its S256 challenge.
func pkce(seed string) (verifier, challenge string) {
	verifier = strings.Repeat(seed, 64)[:64]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authParams are the usual parameters of an authorization request.
func authParams(client, redirect, challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"st-123"}}
}

var (
	hiddenTxn  = regexp.MustCompile(`name="txn_id" value="([^"]+)"`)
	hiddenCSRF = regexp.MustCompile(`name="login_csrf" value="([^"]+)"`)
	errorDiv   = regexp.MustCompile(`id="error">([^<]*)<`)
)

// loginForm is an open sign-in page.
type loginForm struct {
	txn, csrf string
	page      reply
}

// openLogin runs the authorization request and opens the sign-in page it
// redirects to.
func (h *harness) openLogin(p url.Values) loginForm {
	h.t.Helper()
	r := h.get("/oauth/authorize?" + p.Encode())
	if r.status != 302 || r.location == nil || r.location.Path != "/doris-login" {
		h.t.Fatalf("authorize: %d %v %s", r.status, r.location, r.body)
	}
	page := h.get(r.location.String())
	if page.status != 200 {
		h.t.Fatalf("sign-in page: %d %s", page.status, page.body)
	}
	return h.parseLogin(page)
}

func (h *harness) parseLogin(page reply) loginForm {
	h.t.Helper()
	txn, csrf := hiddenTxn.FindStringSubmatch(page.body), hiddenCSRF.FindStringSubmatch(page.body)
	if txn == nil || csrf == nil {
		h.t.Fatalf("the sign-in page has no form: %s", page.body)
	}
	return loginForm{txn: html.UnescapeString(txn[1]), csrf: html.UnescapeString(csrf[1]), page: page}
}

// submit posts the sign-in form as the browser would.
func (h *harness) submit(f loginForm, user, password string, hdr ...string) reply {
	h.t.Helper()
	hdr = append([]string{"Origin", h.base, "Sec-Fetch-Site", "same-origin"}, hdr...)
	return h.postForm("/doris-login", url.Values{"txn_id": {f.txn}, "login_csrf": {f.csrf}, "username": {user}, "password": {password}}, hdr...)
}

// pageError is the error shown on a page, or "".
func pageError(r reply) string {
	m := errorDiv.FindStringSubmatch(r.body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// signIn runs register-free authorization for client and returns the code.
func (h *harness) signIn(client, redirect, challenge, user, password string) string {
	h.t.Helper()
	f := h.openLogin(authParams(client, redirect, challenge))
	r := h.submit(f, user, password)
	if r.status != 303 || r.location == nil {
		h.t.Fatalf("sign-in as %s: %d %s (%s)", user, r.status, pageError(r), r.body)
	}
	q := r.location.Query()
	if q.Get("state") != "st-123" || q.Get("iss") != h.base || q.Get("code") == "" {
		h.t.Fatalf("redirect after sign-in: %s", r.location)
	}
	return q.Get("code")
}

// tokens are a token response.
type tokens struct {
	Access, Refresh, Scope string
	ExpiresIn              float64
}

func (h *harness) exchange(client, code, verifier, redirect string, extra ...string) (tokens, reply) {
	h.t.Helper()
	v := url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code}, "code_verifier": {verifier},
		"redirect_uri": {redirect}, "resource": {h.base + "/mcp"}}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			v.Del(extra[i])
		} else {
			v.Set(extra[i], extra[i+1])
		}
	}
	r := h.postForm("/oauth/token", v)
	return parseTokens(r), r
}

func (h *harness) refresh(client, refresh string, extra ...string) (tokens, reply) {
	h.t.Helper()
	v := url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {refresh}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	r := h.postForm("/oauth/token", v)
	return parseTokens(r), r
}

func parseTokens(r reply) tokens {
	var m struct {
		AccessToken  string  `json:"access_token"`
		RefreshToken string  `json:"refresh_token"`
		Scope        string  `json:"scope"`
		ExpiresIn    float64 `json:"expires_in"`
	}
	json.Unmarshal([]byte(r.body), &m)
	return tokens{Access: m.AccessToken, Refresh: m.RefreshToken, Scope: m.Scope, ExpiresIn: m.ExpiresIn}
}

// login runs the whole flow for a new public client and returns its id
// and tokens.
func (h *harness) login(user, password string) (string, tokens) {
	h.t.Helper()
	redirect := "http://127.0.0.1:9/callback"
	client := h.register(redirect)
	verifier, challenge := pkce("v")
	code := h.signIn(client, redirect, challenge, user, password)
	tok, r := h.exchange(client, code, verifier, redirect)
	if r.status != 200 || tok.Access == "" || tok.Refresh == "" {
		h.t.Fatalf("token: %d %s", r.status, r.body)
	}
	return client, tok
}

// call is a request to the protected /mcp endpoint with a bearer token.
func (h *harness) call(token string) reply {
	h.t.Helper()
	req, _ := http.NewRequest("POST", h.base+"/mcp", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return h.do(req)
}

// identity decodes a successful call.
func (h *harness) identity(token string) auth.Identity {
	h.t.Helper()
	r := h.call(token)
	if r.status != 200 {
		h.t.Fatalf("call: %d %s (%s)", r.status, r.body, r.header.Get("WWW-Authenticate"))
	}
	var id struct {
		auth.Identity
		Credential *struct{ User, Database string }
	}
	if err := json.Unmarshal([]byte(r.body), &id); err != nil {
		h.t.Fatal(err)
	}
	out := id.Identity
	if id.Credential != nil {
		out.Credential = &auth.Credential{User: id.Credential.User, Database: id.Credential.Database}
	}
	return out
}

// wantRefused checks a refused call's status and the reason code in it.
func wantRefused(t *testing.T, r reply, status int, reason string) {
	t.Helper()
	if r.status != status || !strings.Contains(r.body, reason) {
		t.Errorf("got %d %s, want %d with %s", r.status, r.body, status, reason)
	}
	if ch := r.header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer ") || !strings.Contains(ch, `resource_metadata="`) {
		t.Errorf("challenge %q lacks Bearer resource_metadata", ch)
	}
}
