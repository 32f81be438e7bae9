package auth_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/authtest"
)

// TestJWTVerification: every algorithm, and every way a token can be
// wrong, with the status and error code the client gets.
func TestJWTVerification(t *testing.T) {
	keys := authtest.NewKeys(t, "k1")
	other := authtest.NewKeys(t, "k2")
	const iss, aud = "https://issuer.test", "doris-mcp-client"
	for _, alg := range []string{"RS256", "ES256", "EdDSA", "HS256"} {
		t.Run(alg, func(t *testing.T) {
			key := string(keys.Secret)
			if alg != "HS256" {
				key = keys.PublicPEM(alg)
			}
			a := newAuth(t, auth.Options{}, withJWT(key, alg), func(c *auth.Config) { c.JWT.Issuer, c.JWT.Audience = iss, aud })
			sign := func(mod map[string]any) string {
				return authtest.Sign(map[string]any{"alg": alg, "typ": "JWT"}, claims(iss, aud, mod), keys.Private(alg))
			}
			valid := sign(nil)
			tests := []struct {
				name, token string
				status      int
				desc        string
			}{
				{"valid", valid, 0, ""},
				{"valid within the leeway after exp", sign(map[string]any{"exp": t0.Unix() - 9}), 0, ""},
				{"valid with an array audience", sign(map[string]any{"aud": []string{"someone-else", aud}}), 0, ""},
				{"expired beyond the leeway", sign(map[string]any{"exp": t0.Unix() - 11}), 401, "expired"},
				{"not yet valid", sign(map[string]any{"nbf": t0.Unix() + 60}), 401, "not valid yet"},
				{"issued in the future", sign(map[string]any{"iat": t0.Unix() + 60}), 401, "future"},
				{"no exp", sign(map[string]any{"exp": nil}), 401, "no expiry"},
				{"no iat", sign(map[string]any{"iat": nil}), 401, "no issue time"},
				{"wrong audience", sign(map[string]any{"aud": "another-service"}), 401, "audience"},
				{"wrong issuer", sign(map[string]any{"iss": "https://evil.test"}), 401, "issuer"},
				{"every claim wrong at once", sign(map[string]any{"iss": "x", "aud": "y", "exp": t0.Unix() - 100}), 401, "issuer is not accepted; the token audience is not this server; the token has expired"},
				{"tampered claims", authtest.Tamper(valid), 401, "signature"},
				{"another key", authtest.Sign(map[string]any{"alg": alg}, claims(iss, aud, nil), other.Private(alg)), 401, "signature"},
				{"alg none", authtest.Sign(map[string]any{"alg": "none"}, claims(iss, aud, nil), nil), 401, "algorithm"},
				{"alg None", authtest.Sign(map[string]any{"alg": "None"}, claims(iss, aud, nil), nil), 401, "algorithm"},
				{"no signature", strings.Join(strings.Split(valid, ".")[:2], ".") + ".", 401, ""},
				// encoding/json would read "Alg" into alg (and a later one
				// over an earlier one): two readings of one header.
				{"case-variant header member", authtest.Sign(map[string]any{"alg": alg, "Alg": "none"}, claims(iss, aud, nil), keys.Private(alg)), 401, "header"},
				{"crit header", authtest.Sign(map[string]any{"alg": alg, "crit": []string{"exp"}}, claims(iss, aud, nil), keys.Private(alg)), 401, "critical"},
				{"unexpected typ", authtest.Sign(map[string]any{"alg": alg, "typ": "logout+jwt"}, claims(iss, aud, nil), keys.Private(alg)), 401, "type"},
				{"exp as a string", sign(map[string]any{"exp": "tomorrow"}), 401, "NumericDate"},
				{"two parts", "a.b", 401, ""},
				{"padded base64", strings.Replace(valid, ".", "=.", 1), 400, ""},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					id, e := identify(a, tc.token)
					if tc.status == 0 {
						if e != nil {
							t.Fatalf("refused: %+v", e)
						}
						if id.Method != "jwt" || id.Subject != "alice" || id.Route != "global" || id.Scopes != nil || id.Grants != nil {
							t.Fatalf("identity %+v", id)
						}
						return
					}
					if e == nil {
						t.Fatalf("accepted as %+v", id)
					}
					wantCode := "invalid_token"
					if tc.status == 400 {
						wantCode = "invalid_request"
					}
					if e.Status != tc.status || e.Code != wantCode || !strings.Contains(e.Description, tc.desc) {
						t.Fatalf("got %d %s %q, want %d %s containing %q", e.Status, e.Code, e.Description, tc.status, wantCode, tc.desc)
					}
					if !strings.HasPrefix(e.Challenge, "Bearer ") || (tc.status == 401 && !strings.Contains(e.Challenge, `error="invalid_token"`)) {
						t.Fatalf("challenge %q", e.Challenge)
					}
				})
			}
		})
	}
}

// TestJWTAlgorithmConfusion: a token that names HS256 and is "signed" with
// the RS256 public key (the classic confusion attack) never verifies, even
// when the allowlist has both algorithms, because a key verifies only its
// own algorithm.
func TestJWTAlgorithmConfusion(t *testing.T) {
	keys := authtest.NewKeys(t, "k1")
	const iss, aud = "doris-mcp-server", "doris-mcp-client"
	pemBytes := []byte(keys.PublicPEM("RS256"))
	der := pemDER(t, keys.PublicPEM("RS256"))
	forged := []string{
		authtest.Sign(map[string]any{"alg": "HS256"}, claims(iss, aud, nil), pemBytes),
		authtest.Sign(map[string]any{"alg": "HS256"}, claims(iss, aud, nil), der),
		authtest.Sign(map[string]any{"alg": "HS256", "kid": "k1-rs256"}, claims(iss, aud, nil), pemBytes),
	}
	for _, algs := range [][]string{{"RS256"}, {"RS256", "HS256"}} {
		a := newAuth(t, auth.Options{}, withJWT(string(pemBytes), algs...), func(c *auth.Config) {
			if len(algs) > 1 {
				c.JWT.SecretKey = string(keys.Secret)
			}
		})
		for i, tok := range forged {
			if id, e := identify(a, tok); e == nil || e.Status != 401 {
				t.Errorf("allowlist %s, forgery %d: accepted as %+v (%v)", algs, i, id, e)
			}
		}
		if _, e := identify(a, authtest.Sign(map[string]any{"alg": "RS256"}, claims(iss, aud, nil), keys.RSA)); e != nil {
			t.Errorf("allowlist %s: the genuine RS256 token was refused: %+v", algs, e)
		}
	}
	// An ES256 token does not verify with an RSA key, nor RS256 with EC.
	a := newAuth(t, auth.Options{}, withJWT(keys.PublicPEM("RS256")+keys.PublicPEM("ES256"), "RS256", "ES256"))
	other := authtest.NewKeys(t, "k2")
	if _, e := identify(a, authtest.Sign(map[string]any{"alg": "ES256"}, claims(iss, aud, nil), other.EC)); e == nil {
		t.Error("an ES256 token from an unknown key verified")
	}
}

func pemDER(t *testing.T, p string) []byte {
	t.Helper()
	body := strings.Join(slices.DeleteFunc(strings.Split(p, "\n"), func(l string) bool { return strings.HasPrefix(l, "-----") }), "")
	b, err := base64.StdEncoding.DecodeString(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestJWTPermissions: the permissions claim (or "scope" when it is
// absent) becomes exact operation scopes and, once any child is named,
// exact child grants; unknown entries grant nothing.
func TestJWTPermissions(t *testing.T) {
	keys := authtest.NewKeys(t, "k1")
	a := newAuth(t, auth.Options{}, withJWT(string(keys.Secret), "HS256"), func(c *auth.Config) { c.JWT.UserIDClaim = "email" })
	tests := []struct {
		name           string
		mod            map[string]any
		scopes, grants []string
	}{
		{"no permissions: unrestricted", nil, nil, nil},
		{"operations only", map[string]any{"permissions": []string{"tool:list", "resource:read"}}, []string{"resource:read", "tool:list"}, nil},
		{"children too", map[string]any{"permissions": []string{"tool:list", "child:call:doris_query:execute_query"}},
			[]string{"tool:list"}, []string{"child:call:doris_query:execute_query"}},
		{"scope string", map[string]any{"scope": "tool:list child:discover:doris_catalog:list_tables"},
			[]string{"tool:list"}, []string{"child:discover:doris_catalog:list_tables"}},
		{"pre-1.0 and wildcards grant nothing", map[string]any{"permissions": []string{"tool:call:exec_query", "*", "child:call:*:*"}}, []string{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := claims("doris-mcp-server", "doris-mcp-client", tc.mod)
			c["email"] = "alice@example.com"
			id, e := identify(a, authtest.Sign(map[string]any{"alg": "HS256"}, c, keys.Secret))
			if e != nil {
				t.Fatal(e)
			}
			if id.Subject != "alice@example.com" || !slices.Equal(id.Scopes, tc.scopes) || (id.Scopes == nil) != (tc.scopes == nil) ||
				!slices.Equal(id.Grants, tc.grants) || (id.Grants == nil) != (tc.grants == nil) {
				t.Fatalf("got subject %q scopes %#v grants %#v, want scopes %#v grants %#v", id.Subject, id.Scopes, id.Grants, tc.scopes, tc.grants)
			}
		})
	}
}
