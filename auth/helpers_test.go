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

// newAuth builds an Authenticator from environment variables, failing the
// test on any configuration problem.
func newAuth(t *testing.T, env map[string]string, o auth.Options) *auth.Authenticator {
	t.Helper()
	c := auth.DefaultConfig()
	if errs := c.FromEnv(env); len(errs) > 0 {
		t.Fatalf("FromEnv: %v", errors.Join(errs...))
	}
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

// configErrors returns the problems Validate reports for env.
func configErrors(env map[string]string, b auth.Bind) error {
	c := auth.DefaultConfig()
	errs := c.FromEnv(env)
	errs = append(errs, c.Validate(b))
	return errors.Join(errs...)
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
