package main

// The wiring of Doris-backed OAuth (ENABLE_DORIS_OAUTH_AUTH): its
// configuration beside the server's, and its authorization server beside
// the MCP endpoints, with the sign-in check done by the Doris runtime.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/auth/dorisoauth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// dorisOAuthProblems validates the mode against the resolved
// configuration (flags included).
func (c *Config) dorisOAuthProblems() []error {
	o := &c.DorisOAuth
	if !o.Enabled {
		return nil
	}
	o.Deployment.Transport = c.Transport
	o.Deployment.DorisHost = c.Doris.Host
	o.Deployment.DorisUser = c.Doris.User
	o.Deployment.ExternalOAuth = c.Auth.OAuthAuth
	o.Deployment.AuthType = c.Auth.AuthType
	errs := o.Validate()
	if err := catalog.CheckNames(o.ChildToolAllowlist); err != nil {
		errs = append(errs, &SettingError{Name: "DORIS_OAUTH_CHILD_TOOL_ALLOWLIST", Err: err})
	}
	return errs
}

// dorisLogin is CheckLogin for the authorization server: the runtime opens
// one connection as the person; a refused account becomes
// dorisoauth.ErrLoginRejected, anything else means Doris could not say.
func dorisLogin(rt *doris.Runtime) func(ctx context.Context, user, password string) error {
	return func(ctx context.Context, user, password string) error {
		err := rt.CheckLogin(ctx, user, password)
		if errors.Is(err, &doris.Error{Reason: doris.ReasonLoginRejected}) {
			return fmt.Errorf("%w (%v)", dorisoauth.ErrLoginRejected, err)
		}
		return err
	}
}

// withDorisOAuth starts the authorization server and plugs it into the
// HTTP options: Identify for /mcp, its endpoints beside it. It returns the
// server (nil when the mode is off) and the function that stops it.
func withDorisOAuth(ctx context.Context, cfg Config, rt *doris.Runtime, policy *auth.HostPolicy, log *slog.Logger, o *mcp.HTTPOptions) (*dorisoauth.Server, func(), error) {
	if !cfg.DorisOAuth.Enabled {
		return nil, func() {}, nil
	}
	s, err := dorisoauth.New(cfg.DorisOAuth, dorisoauth.Options{CheckLogin: dorisLogin(rt), Hosts: policy, Logger: log})
	if err != nil {
		return nil, nil, err
	}
	s.Start(ctx)
	o.Identify = func(r *http.Request) (auth.Identity, error) {
		// The mode's own bearer check reads only the header; a token in
		// the URL is refused here as every other mode refuses it.
		if e := auth.QueryToken(r); e != nil {
			e.Challenge = `Bearer error="invalid_request", error_description="` + e.Description + `"`
			return auth.Identity{}, e
		}
		return s.Identify(r)
	}
	o.Mount = s.Mount()
	log.Info("Doris-backed OAuth enabled", "issuer", s.Issuer(), "resource", s.Resource(), "peers", len(cfg.DorisOAuth.Peers))
	return s, func() { s.Close() }, nil
}
