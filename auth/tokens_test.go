package auth_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

const (
	tokAlice = "alice-0f1e2d3c4b5a69788796a5b4c3d2e1f0XYZ"
	tokBob   = "bob-9a8b7c6d5e4f30211203f4e5d6c7b8a9QRS"
	tokCarol = "carol-13579bdf2468ace0fdb97531eca86420LMN"
)

func digest(t *testing.T, alg, tok string) string {
	t.Helper()
	d, err := auth.Digest(alg, tok)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// writeFile writes a tokens file with owner-only permissions.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // atomic, as the README says
		t.Fatal(err)
	}
}

// TestStaticTokens: tokens from TOKEN_<ID> variables and from a digests-only
// file, with expiry, revocation, permissions and a Doris route of their own.
func TestStaticTokens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.json")
	writeFile(t, path, `{"version": 2, "tokens": [
		{"id": "bob", "digest": "`+digest(t, "sha512", tokBob)+`", "permissions": ["tool:list", "child:call:doris_catalog:list_tables"],
		 "doris": {"user": "bob_ro", "password_env": "BOB_DORIS_PASSWORD", "hosts": ["fe1:9030", "fe2:9030"], "database": "sales"}},
		{"id": "expired", "digest": "`+digest(t, "sha256", "expired-token-0123456789abcdefghijklmn")+`", "expires_at": "2026-01-01T00:00:00Z"},
		{"id": "revoked", "digest": "`+digest(t, "sha256", tokCarol)+`", "disabled": true}
	]}`)
	env := map[string]string{"BOB_DORIS_PASSWORD": "bob-doris-pw"}
	a := newAuth(t, auth.Options{}, func(c *auth.Config) {
		c.TokenAuth, c.TokenFile, c.TokenFileRequired, c.TokenReload = true, path, true, 0
		c.LookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		c.EnvTokens = []auth.EnvToken{
			{ID: "alice", Value: tokAlice, Permissions: []string{"tool:list", "resource:read"}},
			{ID: "digested", Value: digest(t, "sha256", "digested-token-abcdefghijklmnopqrstuvwxyz012")},
		}
	})

	id, e := identify(a, tokAlice)
	if e != nil || id.Method != "token" || id.Subject != "alice" || id.Route != "global" || id.Credential != nil ||
		!slices.Equal(id.Scopes, []string{"resource:read", "tool:list"}) || id.Grants != nil {
		t.Errorf("alice: %+v %v", id, e)
	}
	id, e = identify(a, tokBob)
	if e != nil || id.Subject != "bob" || id.Route != "token:bob" || id.Credential == nil ||
		id.Credential.User != "bob_ro" || id.Credential.Password != "bob-doris-pw" || id.Credential.Database != "sales" ||
		!slices.Equal(id.Credential.Addrs, []string{"fe1:9030", "fe2:9030"}) ||
		!slices.Equal(id.Grants, []string{"child:call:doris_catalog:list_tables"}) {
		t.Errorf("bob: %+v %v", id, e)
	}
	if id, e := identify(a, "digested-token-abcdefghijklmnopqrstuvwxyz012"); e != nil || id.Subject != "digested" || id.Scopes != nil {
		t.Errorf("a TOKEN_<ID> given as a digest: %+v %v", id, e)
	}
	for _, tc := range []struct{ token, desc string }{
		{"expired-token-0123456789abcdefghijklmn", "expired"},
		{tokCarol, "revoked"},
		{"unknown-token-0123456789abcdefghijklmno", "not valid"},
		{tokAlice + "x", "not valid"},
		{"doa_" + tokAlice, "not valid"},
	} {
		if id, e := identify(a, tc.token); e == nil || e.Status != 401 || e.Code != "invalid_token" || !strings.Contains(e.Description, tc.desc) {
			t.Errorf("%s: %+v %+v, want 401 invalid_token %q", tc.token, id, e, tc.desc)
		}
	}
	if _, e := identify(a, ""); e == nil || e.Status != 401 || e.Code != "" || e.Challenge != `Bearer realm="doris-mcp-server"` {
		t.Errorf("no token: %+v", e)
	}
}

// TestTokenFileReload: an edit of the tokens file adds and revokes tokens
// without a restart; a broken edit keeps the previous tokens; removing the
// file revokes its tokens.
func TestTokenFileReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.json")
	one := `{"version":2,"tokens":[{"id":"bob","digest":"` + digest(t, "sha256", tokBob) + `"}]}`
	writeFile(t, path, one)
	now := t0
	a := newAuth(t, auth.Options{Now: func() time.Time { return now }}, withTokens("alice", tokAlice), func(c *auth.Config) {
		c.TokenFile, c.TokenFileRequired, c.TokenReload = path, true, 10*time.Second
	})
	ok := func(tok string) bool { _, e := identify(a, tok); return e == nil }
	if !ok(tokBob) || ok(tokCarol) {
		t.Fatal("initial file not served")
	}
	writeFile(t, path, `{"version":2,"tokens":[{"id":"carol","digest":"`+digest(t, "sha256", tokCarol)+`"}]}`)
	now = now.Add(5 * time.Second)
	if !ok(tokBob) {
		t.Fatal("the file was re-read before the reload interval")
	}
	now = now.Add(6 * time.Second)
	if ok(tokBob) || !ok(tokCarol) {
		t.Fatal("the edit did not revoke bob and add carol")
	}
	writeFile(t, path, `{"version":2,"tokens":[{"id":"carol",`) // a broken edit
	now = now.Add(11 * time.Second)
	if !ok(tokCarol) {
		t.Fatal("a broken edit dropped the previous tokens")
	}
	os.Remove(path)
	now = now.Add(11 * time.Second)
	if ok(tokCarol) || !ok(tokAlice) {
		t.Fatal("removing the file did not revoke its tokens, or revoked the environment's")
	}
}

// TestParseTokenFile covers the file syntax directly.
func TestParseTokenFile(t *testing.T) {
	d := `"sha256:` + strings.Repeat("ab", 32) + `"`
	for _, tc := range []struct {
		name, body string
		ok         bool
	}{
		{"minimal", `{"version":2,"tokens":[{"id":"a","digest":` + d + `}]}`, true},
		{"empty list", `{"version":2,"tokens":[]}`, true},
		{"comment", `{"version":2,"comment":"rotated 2026-05","tokens":[]}`, true},
		{"unknown member", `{"version":2,"tokens":[{"id":"a","digest":` + d + `,"permisions":["tool:list"]}]}`, false},
		{"duplicate member", `{"version":2,"tokens":[{"id":"a","id":"b","digest":` + d + `}]}`, false},
		{"duplicate id", `{"version":2,"tokens":[{"id":"a","digest":` + d + `},{"id":"A","digest":"sha256:` + strings.Repeat("cd", 32) + `"}]}`, false},
		{"empty permissions", `{"version":2,"tokens":[{"id":"a","digest":` + d + `,"permissions":[]}]}`, false},
		{"wildcard permission", `{"version":2,"tokens":[{"id":"a","digest":` + d + `,"permissions":["*"]}]}`, false},
		{"bad expiry", `{"version":2,"tokens":[{"id":"a","digest":` + d + `,"expires_at":"next year"}]}`, false},
		{"bad id", `{"version":2,"tokens":[{"id":"a b","digest":` + d + `}]}`, false},
		{"md5 digest", `{"version":2,"tokens":[{"id":"a","digest":"md5:` + strings.Repeat("ab", 16) + `"}]}`, false},
		{"two passwords", `{"version":2,"tokens":[{"id":"a","digest":` + d + `,"doris":{"user":"u","password_env":"X","password_file":"/y"}}]}`, false},
		{"bad host", `{"version":2,"tokens":[{"id":"a","digest":` + d + `,"doris":{"user":"u","password_env":"X","hosts":["fe1"]}}]}`, false},
		{"trailing data", `{"version":2,"tokens":[]} {}`, false},
		{"case-variant member", `{"version":2,"tokens":[{"id":"a","ID":"b","digest":` + d + `}]}`, false},
		{"case-variant top-level member", `{"version":2,"Tokens":[{"id":"a","digest":` + d + `}]}`, false},
		{"v1 form", `{"version":2,"tokens":[{"id":"a","digest":` + d + `,"database_config":{"host":"x"}}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := auth.ParseTokenFile([]byte(tc.body))
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok=%v", err, tc.ok)
			}
		})
	}
}
