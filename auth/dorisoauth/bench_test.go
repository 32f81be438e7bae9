package dorisoauth_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// BenchmarkVerify measures what every MCP request pays: opening the
// sealed access token, the ledger check, the cached credential check and
// building the identity. It reports the token's size.
func BenchmarkVerify(b *testing.B) {
	h := newHarness(b, func(c *dorisoauth.Config, _ *dorisoauth.Options) {
		c.ChildToolsEnabled = true
		c.ChildToolAllowlist = []string{"doris_catalog.list_databases", "doris_catalog.list_tables", "doris_query.execute_query", "doris_query.explain_query"}
	})
	_, tok := h.login("alice", "alice-pw-1")
	ctx := context.Background()
	if _, err := h.srv.Verify(ctx, tok.Access); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.srv.Verify(ctx, tok.Access); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(tok.Access)), "access-token-bytes")
	b.ReportMetric(float64(len(tok.Refresh)), "refresh-token-bytes")
}

// BenchmarkRefresh measures a refresh over HTTP on loopback: the token
// endpoint, a credential check against the (fake) Doris, the rotation in
// the ledger and two sealed tokens.
func BenchmarkRefresh(b *testing.B) {
	h := newHarness(b, func(c *dorisoauth.Config, _ *dorisoauth.Options) {
		c.Limits.TokenPerIP, c.Limits.TokenPerClient = 100_000, 100_000
	})
	client, tok := h.login("alice", "alice-pw-1")
	b.ReportAllocs()
	for b.Loop() {
		r := h.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok.Refresh}})
		if r.status != 200 {
			b.Fatalf("%d %s", r.status, r.body)
		}
		tok = parseTokens(r)
	}
}
