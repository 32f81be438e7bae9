package main

// Doris-backed OAuth end to end, in process (the server wired as main
// wires it, on real loopback HTTP, over the Doris simulator and MariaDB):
// people with different Doris grants see different tables and rows
// through one server; a person whose Doris account stops working gets a
// re-authentication error and nothing ever runs as the service account;
// three replicas behind a round-robin proxy share nothing but the
// configuration. The official TypeScript client and headless Chromium
// drive the same flows in dorisoauth_clients_test.go.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

func listen(t *testing.T, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// tables lists the tables of demo that token's person sees.
func tables(t *testing.T, base, token string) ([]string, map[string]any) {
	t.Helper()
	disc := tool(t, base, token, "doris_catalog", "", "", nil)
	if disc.status != 200 {
		t.Fatalf("discovery: %d %s", disc.status, disc.raw)
	}
	version, _ := disc.envelope(t)["manifest_version"].(string)
	r := tool(t, base, token, "doris_catalog", "list_tables", version, map[string]any{"database": "demo"})
	env := r.envelope(t)
	if env["mode"] != "result" {
		return nil, env
	}
	var names []string
	items, _ := childData(env)["items"].([]any)
	for _, it := range items {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	return names, env
}

// childData is a child result's own data.
func childData(env map[string]any) map[string]any {
	outer, _ := env["data"].(map[string]any)
	inner, _ := outer["data"].(map[string]any)
	return inner
}

// count runs SELECT COUNT(*) as token's person and returns the count, or
// the error envelope's reason.
func count(t *testing.T, base, token, table string) (int64, string) {
	t.Helper()
	disc := tool(t, base, token, "doris_query", "", "", nil)
	version, _ := disc.envelope(t)["manifest_version"].(string)
	r := tool(t, base, token, "doris_query", "execute_query", version, map[string]any{"sql": "SELECT COUNT(*) AS n FROM demo." + table})
	env := r.envelope(t)
	if env["mode"] != "result" {
		return -1, reasonOf(env)
	}
	rows, _ := childData(env)["rows"].([]any)
	if len(rows) != 1 {
		t.Fatalf("count: %v", env)
	}
	var n int64
	fmt.Sscan(fmt.Sprint(rows[0].(map[string]any)["n"]), &n)
	return n, ""
}

// TestDorisOAuthPeople: three people sign in through one server and each
// sees exactly what their Doris grants allow, checked against MariaDB;
// when one person's password changes in Doris (and their sessions are
// cut), their calls fail with a re-authentication error and a 401
// challenge, and MariaDB's general log shows nothing ran as anyone else.
func TestDorisOAuthPeople(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING: starts MariaDB (not in -short mode)")
	}
	d := startOAuthDoris(t)
	l := listen(t, "127.0.0.1:0")
	base := "http://" + l.Addr().String()
	clk := &clock{t: time.Now()}
	startReplica(t, l, oauthEnv(d, base, nil), clk)
	b := newBrowser(t, base)

	// No token: a challenge that leads a Host to the metadata.
	r := oauthCall(t, base, "", "tools/list", "", nil)
	if r.status != 401 || !strings.Contains(r.challenge, `resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("no token: %d %q", r.status, r.challenge)
	}
	// A wrong password is refused on the page.
	redirect := "http://127.0.0.1:9/cb"
	client := b.register(redirect)
	if _, refused := b.signIn(client, redirect, strings.Repeat("A", 43), "ana", "not-her-password"); !strings.Contains(refused, "did not accept") {
		t.Fatalf("wrong password: %q", refused)
	}

	tokens := map[string]string{}
	for _, p := range oauthPeople {
		_, access, _ := b.login(p.user, p.password)
		tokens[p.user] = access
	}
	allOrders := d.truth(t, "SELECT COUNT(*) FROM demo.orders")
	webOrders := d.truth(t, "SELECT COUNT(*) FROM demo.orders WHERE channel = 'web'")
	if webOrders == 0 || webOrders == allOrders {
		t.Fatalf("the demo data cannot tell the views apart: %d web of %d", webOrders, allOrders)
	}
	for _, tc := range []struct {
		user         string
		tables       []string
		orders, web  int64
		ordersReason string
	}{
		{"ana", []string{"customers", "orders"}, allOrders, -1, ""},
		{"ben", []string{"orders_web", "products"}, -1, webOrders, "QUERY_PERMISSION_DENIED"},
		{"nobody", nil, -1, -1, "QUERY_PERMISSION_DENIED"},
	} {
		t.Run(tc.user, func(t *testing.T) {
			got, env := tables(t, base, tokens[tc.user])
			if !slices.Equal(got, tc.tables) {
				t.Errorf("tables: got %v (%v), want %v", got, reasonOf(env), tc.tables)
			}
			n, reason := count(t, base, tokens[tc.user], "orders")
			if n != tc.orders || (tc.orders < 0 && reason != tc.ordersReason) {
				t.Errorf("orders: got %d %s, want %d %s", n, reason, tc.orders, tc.ordersReason)
			}
			if tc.web >= 0 {
				if n, reason := count(t, base, tokens[tc.user], "orders_web"); n != tc.web {
					t.Errorf("orders_web: got %d %s, want %d", n, reason, tc.web)
				}
			}
		})
	}

	t.Run("broken pool", func(t *testing.T) {
		root := d.db.Root()
		ctx := context.Background()
		if _, err := root.ExecContext(ctx, "SET GLOBAL log_output = 'TABLE'"); err != nil {
			t.Fatal(err)
		}
		if _, err := root.ExecContext(ctx, "SET GLOBAL general_log = 1"); err != nil {
			t.Fatal(err)
		}
		defer root.ExecContext(ctx, "SET GLOBAL general_log = 0")
		marker := func(tag string) rpc {
			disc := tool(t, base, tokens["ana"], "doris_query", "", "", nil)
			if disc.status != 200 {
				return disc
			}
			version, _ := disc.envelope(t)["manifest_version"].(string)
			return tool(t, base, tokens["ana"], "doris_query", "execute_query", version,
				map[string]any{"sql": "SELECT '" + tag + "' AS m, COUNT(*) AS n FROM demo.orders"})
		}
		ranAs := func(tag string) []string {
			rows, err := root.QueryContext(ctx, "SELECT DISTINCT CAST(user_host AS CHAR) FROM mysql.general_log WHERE CAST(argument AS CHAR) LIKE ? AND command_type = 'Query' AND CAST(argument AS CHAR) NOT LIKE '%general_log%'", "%"+tag+"%")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var s string
				rows.Scan(&s)
				out = append(out, strings.SplitN(s, "[", 2)[0])
			}
			return out
		}
		if r := marker("oauth-marker-before"); r.envelope(t)["mode"] != "result" {
			t.Fatalf("before: %s", r.raw)
		}
		if who := ranAs("oauth-marker-before"); !slices.Equal(who, []string{"ana"}) {
			t.Fatalf("ana's query ran as %v, want only ana", who)
		}
		// The administrator changes ana's password (in MariaDB, and in the
		// simulator's account table as in Doris), and the FE restarts: every
		// open session is gone, so her pool must log in again.
		if _, err := root.ExecContext(ctx, "ALTER USER 'ana'@'%' IDENTIFIED BY 'ana-pw-2'"); err != nil {
			t.Fatal(err)
		}
		d.sim.SetUser("ana", "ana-pw-2")
		if err := d.sim.SetDown(true); err != nil {
			t.Fatal(err)
		}
		if err := d.sim.SetDown(false); err != nil {
			t.Fatal(err)
		}
		// Within the credential-check interval the call reaches her own
		// pool, which fails: an error, never the service account.
		r := marker("oauth-marker-during")
		if r.status != 200 || r.envelope(t)["mode"] != "error" || !strings.HasSuffix(reasonOf(r.envelope(t)), "_AUTHENTICATION_FAILED") {
			t.Errorf("during: %d %s, want the error QUERY_AUTHENTICATION_FAILED", r.status, r.raw)
		}
		// After it, the transport itself answers 401 with the reason and a
		// challenge that sends the Host back to the metadata.
		clk.Advance(61 * time.Second)
		r = marker("oauth-marker-after")
		if r.status != 401 || !strings.Contains(r.raw, dorisoauth.ReasonReauth) ||
			!strings.Contains(r.challenge, `error="invalid_token"`) || !strings.Contains(r.challenge, "resource_metadata=") {
			t.Errorf("after: %d %q %s", r.status, r.challenge, r.raw)
		}
		for _, tag := range []string{"oauth-marker-during", "oauth-marker-after"} {
			if who := ranAs(tag); len(who) != 0 {
				t.Errorf("%s ran as %v after ana's password changed", tag, who)
			}
		}
		// Signing in again with the new password works.
		_, access, _ := b.login("ana", "ana-pw-2")
		if n, reason := count(t, base, access, "orders"); n != allOrders {
			t.Errorf("after signing in again: %d %s", n, reason)
		}
	})

	// A cursor minted for one person does not open for another (ADR 0002).
	t.Run("cursors are bound to the person", func(t *testing.T) {
		r := oauthCall(t, base, tokens["ben"], "tools/list", "", nil)
		cursor, _ := r.result["nextCursor"].(string)
		if cursor == "" {
			t.Fatalf("no cursor: %s", r.raw)
		}
		if r := oauthCall(t, base, tokens["ben"], "tools/list", "", map[string]any{"cursor": cursor}); r.err != nil {
			t.Errorf("ben's own cursor: %s", r.raw)
		}
		if r := oauthCall(t, base, tokens["nobody"], "tools/list", "", map[string]any{"cursor": cursor}); r.err == nil {
			t.Errorf("ben's cursor opened for nobody: %s", r.raw)
		}
	})
}

// rrProxy is a round-robin reverse proxy: request n goes to backend n mod
// len(backends). It keeps the public Host header, as load balancers do, and
// keeps connections to the backends alive, one transport per backend
// generation: restart gives a backend a new transport, so no request is sent
// over a connection kept from the process that was stopped (the write to it
// could fail and be answered 502, depending on when the proxy noticed the
// close).
type rrProxy struct {
	backends []*url.URL
	n        atomic.Int64
	served   []atomic.Int64

	mu         sync.Mutex
	transports []*http.Transport // by backend: its current generation
}

func newRRProxy(t *testing.T, l net.Listener, addrs []string) *rrProxy {
	p := &rrProxy{served: make([]atomic.Int64, len(addrs))}
	for _, a := range addrs {
		p.backends = append(p.backends, &url.URL{Scheme: "http", Host: a})
		p.transports = append(p.transports, newProxyTransport())
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := int(p.n.Add(1)-1) % len(p.backends)
		p.served[i].Add(1)
		r.SetURL(p.backends[i])
		r.Out.Host = r.In.Host
		r.Out = r.Out.WithContext(context.WithValue(r.Out.Context(), rrBackend{}, i))
	}, Transport: p}
	s := httptest.NewUnstartedServer(rp)
	s.Listener = l
	s.Start()
	t.Cleanup(func() {
		s.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, tr := range p.transports {
			tr.CloseIdleConnections()
		}
	})
	return p
}

// rrBackend is the request-context key of the backend a request was sent
// to.
type rrBackend struct{}

func newProxyTransport() *http.Transport {
	return &http.Transport{DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute}
}

// RoundTrip sends r over the current transport of its backend.
func (p *rrProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	i := r.Context().Value(rrBackend{}).(int)
	p.mu.Lock()
	tr := p.transports[i]
	p.mu.Unlock()
	return tr.RoundTrip(r)
}

// restart restarts backend i as a load balancer sees a replica restart:
// stop ends the old process; its transport, with every connection to that
// process, is dropped before start brings up the new one.
func (p *rrProxy) restart(i int, stop, start func()) {
	stop()
	p.mu.Lock()
	old := p.transports[i]
	p.transports[i] = newProxyTransport()
	p.mu.Unlock()
	old.CloseIdleConnections()
	start()
}

// TestDorisOAuthReplicas: three replicas with one secret behind a
// round-robin proxy. A person signs in through whichever replica each
// request reaches; manifests and cursors made by one replica work on the
// others; a replica restarts mid-session and the session goes on; a revoked
// token is refused by every replica as soon as the revoke is answered, and
// by a replica that restarts afterwards.
func TestDorisOAuthReplicas(t *testing.T) {
	if testing.Short() && !underCI() {
		t.Skip("SKIPPING: starts MariaDB (not in -short mode)")
	}
	d := startOAuthDoris(t)
	front := listen(t, "127.0.0.1:0")
	base := "http://" + front.Addr().String()
	var ls []net.Listener
	var addrs, peers []string
	for range 3 {
		l := listen(t, "127.0.0.1:0")
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
		peers = append(peers, "http://"+l.Addr().String())
	}
	env := oauthEnv(d, base, map[string]string{"DORIS_OAUTH_PEERS": strings.Join(peers, ",")})
	clk := &clock{t: time.Now()}
	reps := make([]*replica, 3)
	for i, l := range ls {
		reps[i] = serveReplica(t, l, env, clk)
	}
	for _, r := range reps {
		r.oa.Start(context.Background())
	}
	proxy := newRRProxy(t, front, addrs)
	b := newBrowser(t, base)
	client, access, refresh := b.login("ana", "ana-pw-1")
	for i := range proxy.served {
		if proxy.served[i].Load() == 0 {
			t.Fatalf("replica %d served no part of the sign-in", i)
		}
	}

	// Manifests: discovery through one replica, the child call through the
	// next, with that manifest_version.
	disc := tool(t, base, access, "doris_catalog", "", "", nil)
	version, _ := disc.envelope(t)["manifest_version"].(string)
	for i := range 3 {
		r := tool(t, base, access, "doris_catalog", "list_tables", version, map[string]any{"database": "demo"})
		if env := r.envelope(t); env["mode"] != "result" {
			t.Fatalf("child call %d with the manifest of another replica: %s", i, r.raw)
		}
	}
	// Cursors: each page of tools/list from the next replica.
	walk := func() []string {
		var names []string
		cursor := ""
		for page := 0; page < 10; page++ {
			params := map[string]any{}
			if cursor != "" {
				params["cursor"] = cursor
			}
			r := oauthCall(t, base, access, "tools/list", "", params)
			if r.err != nil || r.status != 200 {
				t.Fatalf("tools/list page %d: %d %s", page, r.status, r.raw)
			}
			for _, tl := range r.result["tools"].([]any) {
				names = append(names, tl.(map[string]any)["name"].(string))
			}
			if cursor, _ = r.result["nextCursor"].(string); cursor == "" {
				return names
			}
		}
		t.Fatal("tools/list did not end")
		return nil
	}
	if got := walk(); len(got) != domainCount {
		t.Fatalf("tools/list across replicas: %v", got)
	}

	// Restart replica 1 mid-session: memory gone, session intact.
	restart := func(i int) {
		proxy.restart(i, reps[i].stop, func() { reps[i] = startReplica(t, listen(t, addrs[i]), env, clk) })
	}
	restart(1)
	if got := walk(); len(got) != domainCount {
		t.Fatalf("tools/list after a restart: %v", got)
	}
	n, reason := count(t, base, access, "orders")
	if want := d.truth(t, "SELECT COUNT(*) FROM demo.orders"); n != want {
		t.Fatalf("after the restart: %d %s, want %d", n, reason, want)
	}
	// Refresh through the proxy (a replica that did not issue the token).
	access2, refresh2, a := b.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {refresh}})
	if a.status != 200 {
		t.Fatalf("refresh: %d %s", a.status, a.body)
	}
	for range 3 {
		if r := oauthCall(t, base, access, "tools/list", "", nil); r.status != 401 {
			t.Errorf("the superseded access token still works: %d", r.status)
		}
	}

	// Revoke through the proxy: refused by the next three requests, one
	// per replica, at once.
	if a := b.do("POST", "/oauth/revoke", "application/x-www-form-urlencoded",
		url.Values{"client_id": {client}, "token": {refresh2}}.Encode()); a.status != 200 {
		t.Fatalf("revoke: %d %s", a.status, a.body)
	}
	for i := range 3 {
		if r := oauthCall(t, base, access2, "tools/list", "", nil); r.status != 401 || !strings.Contains(r.raw, dorisoauth.ReasonRevoked) {
			t.Errorf("request %d after the revoke: %d %s", i, r.status, r.raw)
		}
	}
	// A replica that restarts after the revoke learns it before it serves.
	restart(2)
	for i := range 3 {
		if r := oauthCall(t, base, access2, "tools/list", "", nil); r.status != 401 {
			t.Errorf("request %d after the restart: %d %s", i, r.status, r.raw)
		}
	}
	if _, _, a := b.token(url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {refresh2}}); a.status != 400 {
		t.Errorf("refresh of the revoked family: %d %s", a.status, a.body)
	}
	_ = http.StatusOK
}
