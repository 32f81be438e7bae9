package main

// Helpers of the Doris-backed OAuth tests: a Doris (the simulator over a
// throwaway MariaDB) with people of different grants, in-process servers
// wired as main wires them, a browser-like OAuth client, and MCP calls with
// a bearer token.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// The people of the tests and their Doris grants. In the simulator,
// __doris_sim holds what Doris shows every user in information_schema, so
// even "nobody" may read it: that is not a privilege in Doris.
var oauthPeople = []struct {
	user, password string
	grants         []string
}{
	{"ana", "ana-pw-1", []string{"GRANT SELECT ON demo.customers TO 'ana'@'%'", "GRANT SELECT ON demo.orders TO 'ana'@'%'",
		"GRANT SELECT ON __internal_schema.* TO 'ana'@'%'"}},
	{"ben", "ben-pw-1", []string{"GRANT SELECT ON demo.products TO 'ben'@'%'", "GRANT SELECT ON demo.orders_web TO 'ben'@'%'"}},
	{"nobody", "nobody-pw-1", nil},
}

// oauthDoris is the Doris of the tests.
type oauthDoris struct {
	db  *mariadb.Instance
	sim *sim.Server
	env map[string]string // DORIS_* variables pointing at it
}

func startOAuthDoris(t *testing.T) *oauthDoris {
	t.Helper()
	mariadb.Require(t)
	quiet := slog.New(slog.DiscardHandler)
	ctx := context.Background()
	db, err := mariadb.Start(ctx, mariadb.Options{Logger: quiet})
	if err != nil {
		t.Fatalf("start MariaDB: %v", err)
	}
	t.Cleanup(func() { db.Stop() })
	stmts := []string{"CREATE OR REPLACE SQL SECURITY DEFINER VIEW demo.orders_web AS SELECT order_id, customer_id, order_date, total_amount FROM demo.orders WHERE channel = 'web'"}
	users := db.UserMap()
	for _, p := range oauthPeople {
		stmts = append(stmts, fmt.Sprintf("CREATE OR REPLACE USER '%s'@'%%' IDENTIFIED BY '%s'", p.user, p.password),
			fmt.Sprintf("GRANT SELECT ON %s.* TO '%s'@'%%'", mariadb.SimSchema, p.user))
		stmts = append(stmts, p.grants...)
		users[p.user] = p.password
	}
	if err := db.Exec(ctx, stmts...); err != nil {
		t.Fatal(err)
	}
	s, err := sim.Start(ctx, sim.Options{Listen: "127.0.0.1:0", FEHTTP: "127.0.0.1:0", Upstream: db.Addr(), Users: users,
		Profile: "3.0", Logger: quiet, NoAuditLog: true})
	if err != nil {
		t.Fatalf("start the simulator: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	host, port := splitHostPort(t, s.Addr())
	return &oauthDoris{db: db, sim: s, env: map[string]string{
		"DORIS_HOST": host, "DORIS_PORT": port, "DORIS_USER": mariadb.ReaderUser, "DORIS_PASSWORD": mariadb.ReaderPassword,
		"DORIS_DATABASE": mariadb.DemoDatabase, "DORIS_FE_HTTP_PORT": "0"}}
}

// truth runs a query as MariaDB's root, independently of the server.
func (d *oauthDoris) truth(t *testing.T, q string) int64 {
	t.Helper()
	var n int64
	if err := d.db.Root().QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// oauthEnv is the environment of a server with Doris OAuth at base.
func oauthEnv(d *oauthDoris, base string, extra map[string]string) map[string]string {
	env := map[string]string{
		"TRANSPORT": "http", "SERVER_HOST": "127.0.0.1",
		"ENABLE_DORIS_OAUTH_AUTH": "true", "DORIS_OAUTH_BASE_URL": base,
		"DORIS_OAUTH_SECRET":              "e2e-Kq7vP2xL9mR4tZ8wB3nY6cH1dJ5fG0s",
		"MCP_STATE_HANDLE_SECRET":         "e2e-handles-Wd3Xk8Qp1Lz6Vb9Nm2Rt5Yc",
		"DORIS_OAUTH_CHILD_TOOLS_ENABLED": "true",
		"DORIS_OAUTH_CHILD_TOOL_ALLOWLIST": "doris_catalog.list_databases,doris_catalog.list_tables," +
			"doris_query.execute_query",
		"MCP_LIST_PAGE_SIZE": "3",
	}
	for k, v := range d.env {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// clock is the authorization server's clock in the in-process tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

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

// replica is one in-process server, wired as main wires it, with the
// authorization server on clk.
type replica struct {
	srv *http.Server
	rt  *doris.Runtime
	oa  *dorisoauth.Server
	ln  net.Listener
}

// startReplica serves env on l (the environment is parsed and validated
// exactly as the binary does) and starts its authorization server.
func startReplica(t *testing.T, l net.Listener, env map[string]string, clk *clock) *replica {
	t.Helper()
	r := serveReplica(t, l, env, clk)
	r.oa.Start(context.Background())
	return r
}

// serveReplica is startReplica without the authorization server's start
// (its peer pull), for replicas whose peers are not serving yet.
func serveReplica(t *testing.T, l net.Listener, env map[string]string, clk *clock) *replica {
	t.Helper()
	cfg := DefaultConfig()
	if errs := cfg.fromEnv(env); len(errs) > 0 {
		t.Fatalf("configuration: %v", errs)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("configuration: %v", err)
	}
	log := slog.New(slog.DiscardHandler)
	if os.Getenv("DORIS_MCP_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv, rt, err := wire(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	policy, err := auth.NewHostPolicy(cfg.Host, cfg.AllowedHosts, cfg.AllowedOrigins)
	if err != nil {
		t.Fatal(err)
	}
	oa, err := dorisoauth.New(cfg.DorisOAuth, dorisoauth.Options{CheckLogin: dorisLogin(rt), Hosts: policy, Logger: log, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler(mcp.HTTPOptions{Policy: policy, Ready: rt.Ping, Identify: oa.Identify, Mount: oa.Mount()}),
		ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	r := &replica{srv: hs, rt: rt, oa: oa, ln: l}
	t.Cleanup(r.stop)
	return r
}

func (r *replica) stop() {
	r.srv.Close()
	r.oa.Close()
	r.rt.Close()
}

// browser is an OAuth client and the person's browser in one: it keeps
// cookies and follows no redirect by itself.
type browser struct {
	t    *testing.T
	base string
	http *http.Client
}

func newBrowser(t *testing.T, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, http: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type answer struct {
	status int
	header http.Header
	body   string
	loc    *url.URL
}

func (b *browser) do(method, path, ctype, body string, hdr ...string) answer {
	b.t.Helper()
	u := path
	if !strings.HasPrefix(u, "http") {
		u = b.base + path
	}
	req, _ := http.NewRequest(method, u, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := b.http.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: string(raw)}
	if l := resp.Header.Get("Location"); l != "" {
		a.loc, _ = req.URL.Parse(l)
	}
	return a
}

var (
	e2eTxn   = regexp.MustCompile(`name="txn_id" value="([^"]+)"`)
	e2eCSRF  = regexp.MustCompile(`name="login_csrf" value="([^"]+)"`)
	e2eError = regexp.MustCompile(`id="error">([^<]*)<`)
)

// register registers a public client for redirect.
func (b *browser) register(redirect string) string {
	b.t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "e2e Host", "redirect_uris": []string{redirect}})
	a := b.do("POST", "/oauth/register", "application/json", string(body))
	var m map[string]any
	json.Unmarshal([]byte(a.body), &m)
	id, _ := m["client_id"].(string)
	if a.status != 201 || id == "" {
		b.t.Fatalf("register: %d %s", a.status, a.body)
	}
	return id
}

// signIn authorizes client as user and returns the code, or the page's
// error text when the sign-in is refused.
func (b *browser) signIn(client, redirect, challenge, user, password string) (code, refused string) {
	b.t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "code_challenge": {challenge},
		"code_challenge_method": {"S256"}, "state": {"e2e-state"}, "resource": {b.base + "/mcp"}}
	a := b.do("GET", "/oauth/authorize?"+q.Encode(), "", "")
	if a.status != 302 || a.loc == nil {
		b.t.Fatalf("authorize: %d %s", a.status, a.body)
	}
	page := b.do("GET", a.loc.String(), "", "")
	txn, csrf := e2eTxn.FindStringSubmatch(page.body), e2eCSRF.FindStringSubmatch(page.body)
	if page.status != 200 || txn == nil || csrf == nil {
		b.t.Fatalf("sign-in page: %d %s", page.status, page.body)
	}
	form := url.Values{"txn_id": {html.UnescapeString(txn[1])}, "login_csrf": {html.UnescapeString(csrf[1])}, "username": {user}, "password": {password}}
	a = b.do("POST", "/doris-login", "application/x-www-form-urlencoded", form.Encode(), "Origin", b.base)
	if a.status != 303 {
		m := e2eError.FindStringSubmatch(a.body)
		if m == nil {
			b.t.Fatalf("sign-in as %s: %d %s", user, a.status, a.body)
		}
		return "", html.UnescapeString(m[1])
	}
	if a.loc.Query().Get("state") != "e2e-state" || a.loc.Query().Get("iss") != b.base {
		b.t.Fatalf("redirect after sign-in: %s", a.loc)
	}
	return a.loc.Query().Get("code"), ""
}

// token exchanges a code; it returns the access and refresh tokens.
func (b *browser) token(form url.Values) (string, string, answer) {
	b.t.Helper()
	a := b.do("POST", "/oauth/token", "application/x-www-form-urlencoded", form.Encode())
	var m struct{ AccessToken, RefreshToken string }
	var raw map[string]any
	json.Unmarshal([]byte(a.body), &raw)
	m.AccessToken, _ = raw["access_token"].(string)
	m.RefreshToken, _ = raw["refresh_token"].(string)
	return m.AccessToken, m.RefreshToken, a
}

// login signs user in through a new client and returns the client and
// tokens.
func (b *browser) login(user, password string) (client, access, refresh string) {
	b.t.Helper()
	redirect := "http://127.0.0.1:9/callback"
	client = b.register(redirect)
	verifier := strings.Repeat("e2e-verifier-", 5)
	sum := sha256.Sum256([]byte(verifier))
	code, refused := b.signIn(client, redirect, base64.RawURLEncoding.EncodeToString(sum[:]), user, password)
	if refused != "" {
		b.t.Fatalf("sign-in as %s refused: %s", user, refused)
	}
	access, refresh, a := b.token(url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code},
		"code_verifier": {verifier}, "redirect_uri": {redirect}, "resource": {b.base + "/mcp"}})
	if a.status != 200 {
		b.t.Fatalf("token: %d %s", a.status, a.body)
	}
	return client, access, refresh
}

// rpc is one MCP 2026-07-28 request over HTTP with a bearer token.
type rpc struct {
	status    int
	challenge string
	result    map[string]any
	err       map[string]any
	raw       string
}

func oauthCall(t *testing.T, base, token, method, name string, params map[string]any) rpc {
	t.Helper()
	body := hsBody(1, method, params)
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := rpc{status: resp.StatusCode, challenge: resp.Header.Get("WWW-Authenticate"), raw: string(raw)}
	var m map[string]any
	json.Unmarshal(raw, &m)
	r.result, _ = m["result"].(map[string]any)
	r.err, _ = m["error"].(map[string]any)
	return r
}

// envelope is a tool result's structured content.
func (r rpc) envelope(t *testing.T) map[string]any {
	t.Helper()
	sc, ok := r.result["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("no structured content: %d %s", r.status, r.raw)
	}
	return sc
}

// tool calls a domain tool: discovery with args nil, else child_tool with
// arguments and the manifest version.
func tool(t *testing.T, base, token, domain, child, version string, args map[string]any) rpc {
	t.Helper()
	a := map[string]any{}
	if child != "" {
		a = map[string]any{"child_tool": child, "arguments": args, "manifest_version": version}
	}
	return oauthCall(t, base, token, "tools/call", domain, map[string]any{"name": domain, "arguments": a})
}

// reasonOf is an error envelope's reason code, or "".
func reasonOf(env map[string]any) string {
	e, _ := env["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	s, _ := d["reason_code"].(string)
	if s == "" {
		s, _ = e["code"].(string)
	}
	return s
}
