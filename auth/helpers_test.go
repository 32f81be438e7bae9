package auth_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// t0 is the fixed clock of the tests.
var t0 = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return t0 }

// newAuth builds an Authenticator of DefaultConfig changed by each of
// set, failing the test on any configuration problem.
func newAuth(t testing.TB, o auth.Options, set ...func(*auth.Config)) *auth.Authenticator {
	t.Helper()
	c := config(set...)
	b := auth.Bind{Transport: "http", Host: "127.0.0.1"}
	if err := c.Validate(b); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if o.Now == nil {
		o.Now = fixedNow
	}
	a, err := auth.New(context.Background(), c, b, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

// config is DefaultConfig changed by each of set.
func config(set ...func(*auth.Config)) auth.Config {
	c := auth.DefaultConfig()
	for _, f := range set {
		f(&c)
	}
	return c
}

// withTokens turns static tokens on, with a TOKEN_<ID> for each id and
// token pair.
func withTokens(idTokens ...string) func(*auth.Config) {
	return func(c *auth.Config) {
		c.TokenAuth = true
		for i := 0; i+1 < len(idTokens); i += 2 {
			c.EnvTokens = append(c.EnvTokens, auth.EnvToken{ID: idTokens[i], Value: idTokens[i+1]})
		}
	}
}

// withJWT turns JWT on with the algorithm allowlist algs and key: a PEM
// key, or the HS256 secret when algs is HS256 alone.
func withJWT(key string, algs ...string) func(*auth.Config) {
	return func(c *auth.Config) {
		c.JWTAuth = true
		c.JWT.Algorithms = algs
		if len(algs) == 1 && algs[0] == "HS256" {
			c.JWT.SecretKey = key
		} else {
			c.JWT.PublicKey = key
		}
	}
}

// identify authenticates a request carrying token ("" sends none).
func identify(a *auth.Authenticator, token string) (auth.Identity, *auth.Error) {
	r := httptest.NewRequest("POST", "http://127.0.0.1:3000/mcp", nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	id, err := a.Identify(r)
	if err == nil {
		return id, nil
	}
	var e *auth.Error
	if !errors.As(err, &e) {
		return id, &auth.Error{Code: "not an *auth.Error: " + err.Error()}
	}
	return id, e
}

// claims are valid claims at t0 for issuer and audience, overlaid with mod
// (a nil value deletes the claim).
func claims(iss, aud string, mod map[string]any) map[string]any {
	c := map[string]any{"iss": iss, "aud": aud, "sub": "alice", "iat": t0.Unix() - 60, "exp": t0.Unix() + 600}
	for k, v := range mod {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}
