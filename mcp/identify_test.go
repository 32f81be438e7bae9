package mcp_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/mcp"
	"github.com/doris-mcp/doris-mcp-server/mcp/wiretest"
)

// TestIdentifyHook: the transport asks HTTPOptions.Identify who a request
// is before reading its body; a refusal is answered with the status and
// challenge the authenticator chose, and mounted handlers are served
// beside /mcp.
func TestIdentifyHook(t *testing.T) {
	e := newEnv(t, 100, 0)
	policy, _ := auth.NewHostPolicy("127.0.0.1", nil, nil)
	var seen auth.Identity
	identify := func(r *http.Request) (auth.Identity, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer good":
			return auth.Identity{Method: "token", Subject: "alice", Route: "global"}, nil
		case "Bearer weak":
			return auth.Identity{}, &auth.Error{Status: 403, Code: "insufficient_scope", Description: "the token lacks a scope",
				Challenge: `Bearer error="insufficient_scope", scope="tool:list"`}
		case "":
			return auth.Identity{}, &auth.Error{Status: 401, Code: "invalid_request", Description: "a bearer token is required",
				Challenge: `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`}
		}
		return auth.Identity{}, errors.New("some verifier failure")
	}
	ts := httptest.NewServer(e.srv.Handler(mcp.HTTPOptions{Policy: policy, Identify: func(r *http.Request) (auth.Identity, error) {
		id, err := identify(r)
		seen = id
		return id, err
	}, Mount: map[string]http.Handler{"GET /.well-known/oauth-protected-resource": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"resource":"x"}`))
	})}}))
	t.Cleanup(ts.Close)
	h := &httpEnv{env: e, ts: ts}
	for _, tc := range []struct {
		token     string
		status    int
		challenge string
	}{
		{"", 401, `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`},
		{"weak", 403, `Bearer error="insufficient_scope", scope="tool:list"`},
		{"forged", 401, ""},
		{"good", 200, ""},
	} {
		hdr := modernHeaders("tools/list", "")
		if tc.token != "" {
			hdr["Authorization"] = "Bearer " + tc.token
		}
		rep := h.post(t, "/mcp", hdr, req(1, "tools/list", ""), wiretest.Rev20260728, "tools/list")
		if rep.status != tc.status || rep.header.Get("WWW-Authenticate") != tc.challenge {
			t.Errorf("token %q: status %d challenge %q, want %d %q (%s)", tc.token, rep.status,
				rep.header.Get("WWW-Authenticate"), tc.status, tc.challenge, rep.body)
		}
	}
	if seen.Subject != "alice" {
		t.Errorf("the identity did not reach the request: %+v", seen)
	}
	resp, err := http.Get(ts.URL + "/.well-known/oauth-protected-resource")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("mounted handler: %v %v", resp, err)
	}
}
