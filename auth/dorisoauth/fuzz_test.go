package dorisoauth_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
)

// FuzzVerify: no input but a token the server issued verifies; nothing
// panics, and every refusal is a 401 with a challenge.
func FuzzVerify(f *testing.F) {
	h := newHarness(f)
	_, tok := h.login("alice", "alice-pw-1")
	for _, s := range []string{tok.Access, tok.Refresh, tok.Access[:len(tok.Access)-1], "doa_", "doa_AAAA", "doa_" + strings.Repeat("A", 9000),
		strings.Replace(tok.Access, "doa_", "dor_", 1), tok.Access + "=", "", "doa_!!!"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := h.srv.Verify(context.Background(), s)
		if err == nil {
			if s != tok.Access || id.Subject != "alice" {
				t.Fatalf("%q verified as %+v", s, id)
			}
			return
		}
		if !strings.HasPrefix(err.Error(), "auth: invalid_token") {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

// FuzzParseForm: the strict form parser never panics, refuses what it
// cannot represent, and what it accepts survives a round trip.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{"a=1&b=2", "a=1&a=2", "a=%zz", "a", "=x", "a=b;c=d", "a=+%20+", "x=\x00", "a=%C3%A9", "&&a=1&&",
		"grant_type=authorization_code&code=doc_x&code_verifier=" + strings.Repeat("v", 43), "a=%E2%80%A8"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := dorisoauth.ParseForm(s)
		if err != nil {
			return
		}
		v := url.Values{}
		for k, val := range m {
			if k == "" || !utf8.ValidString(k) || !utf8.ValidString(val) || strings.ContainsAny(k+val, "\x00\r\n") {
				t.Fatalf("accepted %q -> %q=%q", s, k, val)
			}
			v.Set(k, val)
		}
		again, err := dorisoauth.ParseForm(v.Encode())
		if err != nil || len(again) != len(m) {
			t.Fatalf("round trip of %q: %v %v", s, again, err)
		}
		for k, val := range m {
			if again[k] != val {
				t.Fatalf("round trip of %q changed %q", s, k)
			}
		}
	})
}

// FuzzParseBearer: the Authorization parser accepts only the Bearer
// scheme with a token68 of bounded length.
func FuzzParseBearer(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b-c_d~e+f/g==", "Bearer  x", "Basic abc", "Bearer", "Bearer =", "Bearer a b", "Bearer \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := dorisoauth.ParseBearer(s)
		if err != nil {
			return
		}
		if tok == "" || len(tok) > 8192 || strings.ContainsAny(tok, " ,;\"\\\x00") || !strings.EqualFold(s[:6], "bearer") {
			t.Fatalf("accepted %q as %q", s, tok)
		}
		if again, err := dorisoauth.ParseBearer("Bearer " + tok); err != nil || again != tok {
			t.Fatalf("round trip of %q: %q %v", tok, again, err)
		}
	})
}

// FuzzParseScope: scopes are RFC 6749 tokens, unique, bounded.
func FuzzParseScope(f *testing.F) {
	for _, s := range []string{"tool:list", "a  b a", `"x"`, "child:call:doris_query:execute_query resource:read", "\x7f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		scopes, err := dorisoauth.ParseScope(s)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, sc := range scopes {
			if sc == "" || seen[sc] || strings.ContainsAny(sc, " \"\\") {
				t.Fatalf("%q -> %q", s, scopes)
			}
			seen[sc] = true
		}
	})
}
