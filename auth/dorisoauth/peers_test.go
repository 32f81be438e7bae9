package dorisoauth_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// cluster is n replicas with one secret and each other as peers, sharing
// a clock and a Doris.
type cluster struct {
	t     *testing.T
	clock *clock
	doris *doris
	addrs []string
	nodes []*harness
}

func newCluster(t *testing.T, n int) *cluster {
	t.Helper()
	c := &cluster{t: t, clock: newClock(), doris: &doris{users: map[string]string{"alice": "alice-pw-1"}}}
	ls := make([]net.Listener, n)
	for i := range ls {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls[i] = l
		c.addrs = append(c.addrs, l.Addr().String())
	}
	for i := range ls {
		c.nodes = append(c.nodes, c.serve(ls[i]))
	}
	for _, n := range c.nodes {
		n.srv.Start(context.Background())
	}
	return c
}

// start runs a replica on l. Every replica has the same public base URL
// (that of replica 0, as a load balancer would present it).
func (c *cluster) serve(l net.Listener) *harness {
	var peers []string
	for _, a := range c.addrs {
		peers = append(peers, "http://"+a)
	}
	h := serveHarness(c.t, l, c.clock, c.doris, func(cfg *dorisoauth.Config, _ *dorisoauth.Options) {
		cfg.Peers = peers
		cfg.BaseURL = "http://" + c.addrs[0]
	})
	h.base = "http://" + l.Addr().String()
	return h
}

// restart stops replica i and starts a fresh one (empty memory) on its
// address.
func (c *cluster) restart(i int) {
	c.t.Helper()
	c.nodes[i].ts.Close()
	c.nodes[i].srv.Close()
	l, err := net.Listen("tcp", c.addrs[i])
	if err != nil {
		c.t.Fatal(err)
	}
	c.nodes[i] = c.serve(l)
	c.nodes[i].srv.Start(context.Background())
}

// call sends token to replica i's /mcp with the public Host.
func (c *cluster) call(i int, token string) reply {
	h := c.nodes[i]
	req, _ := http.NewRequest("POST", h.base+"/mcp", nil)
	req.Host = c.addrs[0]
	req.Header.Set("Authorization", "Bearer "+token)
	return h.do(req)
}

func (c *cluster) form(i int, path string, v url.Values) reply {
	h := c.nodes[i]
	req, _ := http.NewRequest("POST", h.base+path, strings.NewReader(v.Encode()))
	req.Host = c.addrs[0]
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return h.do(req)
}

// TestReplicas: tokens issued by one replica work on all; a revocation on
// one is refused by all before the revoke request is answered, and by a
// replica that restarts afterwards; a code replayed on another replica, or
// a refresh token reused on another replica, revokes the family once the
// replicas have exchanged their ledgers.
func TestReplicas(t *testing.T) {
	c := newCluster(t, 3)
	a := c.nodes[0]
	client, tok := a.login("alice", "alice-pw-1")
	for i := range c.nodes {
		if r := c.call(i, tok.Access); r.status != 200 {
			t.Fatalf("replica %d refuses a token replica 0 issued: %d %s", i, r.status, r.body)
		}
	}
	// Refresh on replica 1, with a client registered on replica 0.
	v := url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok.Refresh}}
	r := c.form(1, "/oauth/token", v)
	tok2 := parseTokens(r)
	if r.status != 200 {
		t.Fatalf("refresh on replica 1: %d %s", r.status, r.body)
	}
	// Revoke on replica 2: refused everywhere as soon as it answers.
	if r := c.form(2, "/oauth/revoke", url.Values{"client_id": {client}, "token": {tok2.Access}}); r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	for i := range c.nodes {
		if r := c.call(i, tok2.Access); r.status != 401 || !strings.Contains(r.body, dorisoauth.ReasonRevoked) {
			t.Errorf("replica %d after the revoke: %d %s", i, r.status, r.body)
		}
		if r := c.form(i, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok2.Refresh}}); r.status != 400 {
			t.Errorf("replica %d refreshes a revoked family: %d %s", i, r.status, r.body)
		}
	}
	// A replica that restarts pulls the ledger before it serves.
	c.restart(1)
	if r := c.call(1, tok2.Access); r.status != 401 {
		t.Errorf("restarted replica accepts a revoked token: %d %s", r.status, r.body)
	}

	// A code replayed on another replica: both exchanges may succeed
	// before the ledgers meet; once they do, the family is revoked on all.
	redirect := "http://127.0.0.1:9/callback"
	verifier, challenge := pkce("r")
	code := a.signIn(client, redirect, challenge, "alice", "alice-pw-1")
	ex := url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirect}}
	first := c.form(0, "/oauth/token", ex)
	if first.status != 200 {
		t.Fatalf("exchange: %d %s", first.status, first.body)
	}
	c.nodes[1].srv.SyncNow() // replica 1 hears of the exchange
	if r := c.form(1, "/oauth/token", ex); r.status != 400 {
		t.Errorf("the replayed code on a replica that heard of it: %d %s", r.status, r.body)
	}
	for i := range c.nodes {
		c.nodes[i].srv.SyncNow()
	}
	for i := range c.nodes {
		if r := c.call(i, parseTokens(first).Access); r.status != 401 {
			t.Errorf("replica %d accepts tokens of a replayed code: %d", i, r.status)
		}
	}

}

// TestReplicasWithoutPeers: without DORIS_OAUTH_PEERS a revocation is
// known to the replica that answered it only, and the documented bound
// holds: the other replica refuses the access token once it expires.
func TestReplicasWithoutPeers(t *testing.T) {
	c, d := newClock(), &doris{users: map[string]string{"alice": "alice-pw-1"}}
	var nodes []*harness
	var base string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		if base == "" {
			base = "http://" + l.Addr().String()
		}
		nodes = append(nodes, startHarness(t, l, c, d, func(cfg *dorisoauth.Config, _ *dorisoauth.Options) { cfg.BaseURL = base }))
	}
	// One public base URL: point replica 1's requests at replica 0's Host.
	client, tok := nodes[0].login("alice", "alice-pw-1")
	if r := nodes[0].postForm("/oauth/revoke", url.Values{"client_id": {client}, "token": {tok.Access}}); r.status != 200 {
		t.Fatal(r.status)
	}
	call := func(i int) int {
		req, _ := http.NewRequest("POST", nodes[i].base+"/mcp", nil)
		req.Host = strings.TrimPrefix(nodes[0].base, "http://")
		req.Header.Set("Authorization", "Bearer "+tok.Access)
		return nodes[i].do(req).status
	}
	if call(0) != 401 || call(1) != 200 {
		t.Fatalf("after a local revoke: replica 0 %d, replica 1 %d; want 401, 200 (no peers)", call(0), call(1))
	}
	c.Advance(901 * time.Second)
	if call(1) != 401 {
		t.Errorf("replica 1 accepts the revoked token after its lifetime")
	}
}

// TestPeerEndpointsNeedTheSecret: the ledger endpoints answer only
// messages MAC'd with the shared secret and fresh; nobody else can read
// the ledger or push a revocation into it.
func TestPeerEndpointsNeedTheSecret(t *testing.T) {
	h := newHarness(t)
	now := strconv.FormatInt(h.clock.Now().Unix(), 10)
	for _, tc := range []struct {
		name, method, time, mac string
	}{
		{"pull without a MAC", "GET", now, ""},
		{"pull with a forged MAC", "GET", now, strings.Repeat("A", 43)},
		{"push without a MAC", "POST", now, ""},
		{"push with a forged MAC", "POST", now, strings.Repeat("B", 43)},
		{"stale time", "GET", "1000", strings.Repeat("A", 43)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, h.base+"/oauth/peer/ledger?since=0&boot=x", strings.NewReader(`{"boot":"x","entries":[{"f":"fam","r":true,"e":9999999999}]}`))
			req.Header.Set("X-Doris-Oauth-Peer-Time", tc.time)
			req.Header.Set("X-Doris-Oauth-Peer-Mac", tc.mac)
			if r := h.with(t).do(req); r.status != 401 || strings.Contains(r.body, "entries") {
				t.Errorf("got %d %s", r.status, r.body)
			}
		})
	}
}
