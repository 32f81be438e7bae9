package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// The security-relevant parsers, fuzzed: none may panic, and what each
// accepts must satisfy the invariants the rest of the package relies on.

func hs256(secret []byte, header, claims string) string {
	enc := base64.RawURLEncoding.EncodeToString
	in := enc([]byte(header)) + "." + enc([]byte(claims))
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(in))
	return in + "." + enc(m.Sum(nil))
}

// FuzzJWT: parseJWT and the whole verifier. A token the verifier accepts
// names HS256 and carries the HMAC of its signing input under the one
// configured key, and its claims pass every registered-claim check.
func FuzzJWT(f *testing.F) {
	secret := []byte("fuzz-secret-0123456789abcdefghijklmnopqrstuv")
	now := time.Unix(1780000000, 0)
	good := `{"iss":"i","aud":"a","sub":"s","iat":1779999990,"exp":1780000600}`
	for _, s := range []string{
		hs256(secret, `{"alg":"HS256","typ":"JWT"}`, good),
		hs256(secret, `{"alg":"none"}`, good),
		hs256(secret, `{"alg":"HS256","alg":"none"}`, good),
		hs256(secret, `{"alg":"HS256","crit":["b64"]}`, good),
		hs256(secret, `{"alg":"HS256"}`, `{"iss":"i","aud":["a","b"],"exp":1.78e9,"iat":1779999990.5}`),
		hs256(secret, `{"alg":"HS256"}`, `{"exp":"x"}`),
		hs256(secret, `[]`, `{}`),
		"a.b.c", "..", "eyJhbGciOiJIUzI1NiJ9..", strings.Repeat("a", 300) + "." + strings.Repeat("b", 10) + ".c",
	} {
		f.Add(s)
	}
	v := &jwtVerifier{algs: []string{AlgHS256, AlgRS256}, issuer: "i", audience: "a", leeway: 10 * time.Second, requireIAT: true,
		typs: []string{"", "jwt"}, keys: staticKeys{hmacKey(secret)}, now: func() time.Time { return now }}
	f.Fuzz(func(t *testing.T, token string) {
		p, perr := parseJWT(token)
		if perr == nil {
			if !strings.HasPrefix(token, p.signingInput+".") || strings.Count(p.signingInput, ".") != 1 || p.claims == nil {
				t.Fatalf("parseJWT accepted a token it split wrongly: %q", token)
			}
		}
		c, err := v.verify(context.Background(), token)
		if err == nil {
			if perr != nil || p.header.Alg != AlgHS256 {
				t.Fatalf("verified a token that does not parse or is not HS256: %q", token)
			}
			m := hmac.New(sha256.New, secret)
			m.Write([]byte(p.signingInput))
			if !hmac.Equal(m.Sum(nil), p.signature) {
				t.Fatalf("verified a token without the right MAC: %q", token)
			}
			if c.Issuer != "i" || !slices.Contains(c.Audience, "a") || c.Expiry.IsZero() || !now.Before(c.Expiry.Add(10*time.Second)) {
				t.Fatalf("verified claims that fail a check: %+v", c)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) || (e.Status != 401 && e.Status != 503) || e.Code == "" {
			t.Fatalf("verify failed without a 401/503 *Error: %v", err)
		}
	})
}

// FuzzJWKS: every key ParseJWKS returns is a public key bound to its one
// supported algorithm, never a symmetric one.
func FuzzJWKS(f *testing.F) {
	for _, s := range []string{
		`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"a"}]}`,
		`{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}`,
		`{"keys":[{"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","use":"sig"}]}`,
		`{"keys":[{"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}]}`,
		`{"keys":[]}`, `{"keys":[{}]}`, `{"keys":null}`, `[]`, `{"keys":[{"kty":"RSA","n":"","e":""}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		keys, err := ParseJWKS(doc)
		if err != nil {
			if len(keys) != 0 {
				t.Fatal("keys returned with an error")
			}
			return
		}
		if len(keys) == 0 || len(keys) > maxJWKSKeys {
			t.Fatalf("%d keys without an error", len(keys))
		}
		for _, k := range keys {
			if _, ok := k.key.([]byte); ok || k.Alg == AlgHS256 || !slices.Contains(SupportedAlgorithms(), k.Alg) {
				t.Fatalf("ParseJWKS returned a key for %q of type %T", k.Alg, k.key)
			}
			if got, _ := keyFor(k.key); got.Alg != k.Alg {
				t.Fatalf("key bound to %s, its type verifies %s", k.Alg, got.Alg)
			}
		}
	})
}

// FuzzTokenFile: an accepted tokens file has unique IDs and digests of the
// right length, valid permissions, and no Doris password (passwords are
// never in the file).
func FuzzTokenFile(f *testing.F) {
	d := `"sha256:` + strings.Repeat("ab", 32) + `"`
	for _, s := range []string{
		`{"version":2,"tokens":[{"id":"a","digest":` + d + `,"permissions":["tool:list","child:call:doris_query:execute_query"],"expires_at":"2027-01-01T00:00:00Z"}]}`,
		`{"version":2,"tokens":[{"id":"a","digest":` + d + `,"doris":{"user":"u","password_env":"P","hosts":["h:9030"],"database":"d"}}]}`,
		`{"version":2,"tokens":[{"id":"a","digest":` + d + `,"token":"x"}]}`,
		`{"version":2,"tokens":[{"id":"a","digest":` + d + `},{"id":"a","digest":` + d + `}]}`,
		`{"version":1}`, `{}`, `null`, `{"version":2,"tokens":[{"id":"a","id":"b"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		tokens, err := ParseTokenFile(doc)
		if err != nil {
			return
		}
		ids := map[string]bool{}
		for _, tk := range tokens {
			if !isTokenID(tk.ID) || ids[strings.ToLower(tk.ID)] {
				t.Fatalf("bad or duplicate id %q", tk.ID)
			}
			ids[strings.ToLower(tk.ID)] = true
			if (tk.Algorithm == "sha256" && len(tk.Sum) != 32) || (tk.Algorithm == "sha512" && len(tk.Sum) != 64) ||
				(tk.Algorithm != "sha256" && tk.Algorithm != "sha512") {
				t.Fatalf("digest %s of %d bytes", tk.Algorithm, len(tk.Sum))
			}
			for _, s := range tk.Permissions.Scopes {
				if !isOperationScope(s) {
					t.Fatalf("scope %q", s)
				}
			}
			for _, g := range tk.Permissions.Grants {
				if !isChildGrant(g) {
					t.Fatalf("grant %q", g)
				}
			}
			if tk.Doris != nil && (tk.Doris.Password != "" || (tk.Doris.PasswordEnv == "") == (tk.Doris.PasswordFile == "")) {
				t.Fatalf("route %+v", tk.Doris)
			}
		}
		b, _ := json.Marshal(tokens)
		if strings.Contains(string(b), `"Password":"`) && !strings.Contains(string(b), `"Password":""`) {
			t.Fatal("a password leaked into a parsed token")
		}
	})
}

// FuzzAuthorization: an accepted Authorization value yields a token68 of
// at most MaxTokenBytes that appears in the header as sent; anything else
// is ErrNoCredential or a 400 invalid_request.
func FuzzAuthorization(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Bearer  x==", "Basic Zm9v", "Bearer", "", "Bearer a b", "Bearer é", "BEARER\tx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		tok, err := parseBearer(v)
		if err == nil {
			if tok == "" || len(tok) > MaxTokenBytes || !isToken68(tok) || !strings.Contains(v, tok) {
				t.Fatalf("accepted %q from %q", tok, v)
			}
			if again, err := parseBearer("Bearer " + tok); err != nil || again != tok {
				t.Fatalf("%q does not round-trip", tok)
			}
			return
		}
		var e *Error
		if !errors.Is(err, ErrNoCredential) && (!errors.As(err, &e) || e.Status != 400 || e.Code != "invalid_request") {
			t.Fatalf("error %v", err)
		}
	})
}
