package auth_test

import (
	"context"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// TestRoutePriority: methods given in Options.First (the Doris-backed OAuth
// server's) are tried before static tokens; the first method that
// recognizes a token decides, and its refusal is final; an identity that
// claims the global route with a credential of its own is refused.
func TestRoutePriority(t *testing.T) {
	var seen []string
	person := auth.MethodFunc(func(_ context.Context, token string) (auth.Identity, error) {
		seen = append(seen, "person")
		switch {
		case token == "doa_valid":
			return auth.Identity{Method: "doris_oauth", Subject: "ann", Route: "person:ann",
				Credential: &auth.Credential{User: "ann", Password: "pw"}}, nil
		case token == "doa_broken":
			return auth.Identity{Method: "doris_oauth", Subject: "ann", Route: "global", Credential: &auth.Credential{User: "ann"}}, nil
		case strings.HasPrefix(token, "doa_"):
			return auth.Identity{}, &auth.Error{Status: 401, Code: "invalid_token", Description: "the session has ended; sign in again"}
		}
		return auth.Identity{}, auth.ErrNotRecognized
	})
	a := newAuth(t, auth.Options{First: []auth.Method{person}}, withTokens("alice", tokAlice))
	if id, e := identify(a, "doa_valid"); e != nil || id.Route != "person:ann" || id.Credential == nil {
		t.Fatalf("person token: %+v %+v", id, e)
	}
	if _, e := identify(a, "doa_revoked"); e == nil || !strings.Contains(e.Description, "sign in again") || !strings.Contains(e.Challenge, `error="invalid_token"`) {
		t.Fatalf("a refused person token: %+v", e)
	}
	if _, e := identify(a, "doa_broken"); e == nil || e.Status != 401 {
		t.Fatalf("a global-route identity with its own credential was accepted: %+v", e)
	}
	seen = nil
	if id, e := identify(a, tokAlice); e != nil || id.Method != "token" || len(seen) != 1 {
		t.Fatalf("a static token after the first method: %+v %+v (tried %v)", id, e, seen)
	}
}
