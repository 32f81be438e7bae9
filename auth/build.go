package auth

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// Options are New's collaborators.
type Options struct {
	// Logger receives refusals and reloads, never a credential; nil
	// discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Policy is the HTTP Host policy; the handlers Mount returns check
	// the Host header with it. nil checks nothing.
	Policy *HostPolicy
	// First are methods tried, in order, before this package's own: the
	// Doris-backed OAuth server's token verifier, whose person pools come
	// first in route priority.
	First []Method
	// HTTPClient replaces the bounded client used for key sets,
	// discovery and introspection (tests). It must not follow redirects.
	HTTPClient *http.Client
}

// New builds the Authenticator of a valid configuration. It fetches the
// authorization server's metadata when OAUTH_DISCOVERY_URL is set, bounded
// by ctx and the configured timeout; everything else is fetched lazily.
func New(ctx context.Context, c Config, b Bind, o Options) (*Authenticator, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	a, errs := c.compile(b, &buildCtx{ctx: ctx, opts: o})
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return a, nil
}

// buildCtx is set when compile builds for serving (New), nil when it only
// validates.
type buildCtx struct {
	ctx  context.Context
	opts Options
}

func (bc *buildCtx) client(timeout time.Duration) *http.Client {
	if bc != nil && bc.opts.HTTPClient != nil {
		return bc.opts.HTTPClient
	}
	return newHTTPClient(timeout)
}

// compile checks c and, for New, builds the Authenticator. Validation and
// construction share this code, so -check-config reports exactly what
// startup would refuse.
func (c *Config) compile(b Bind, bc *buildCtx) (*Authenticator, []error) {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	now, log := time.Now, slog.New(slog.DiscardHandler)
	if bc != nil {
		now, log = bc.opts.Now, bc.opts.Logger
	}
	a := &Authenticator{realm: "doris-mcp-server", log: log}
	if bc != nil {
		for _, m := range bc.opts.First {
			a.methods = append(a.methods, namedMethod{"first", m})
		}
		a.policy = bc.opts.Policy
	}

	// Mode combinations (contract §4).
	if c.DorisOAuth && c.OAuthAuth {
		add(configErrf("ENABLE_OAUTH_AUTH", "external OAuth and ENABLE_DORIS_OAUTH_AUTH cannot both be enabled"))
	}
	if c.DorisOAuth && strings.EqualFold(c.AuthType, "oauth") {
		add(configErrf("AUTH_TYPE", "AUTH_TYPE=oauth contradicts ENABLE_DORIS_OAUTH_AUTH"))
	}
	if c.TrustProxyHeaders && len(c.TrustedProxyCIDRs) == 0 {
		add(configErrf("DORIS_OAUTH_TRUSTED_PROXY_CIDRS", "DORIS_OAUTH_TRUST_PROXY_HEADERS is true but no proxy CIDRs are given; forwarded headers are never trusted from everyone"))
	}
	if c.TrustProxyHeaders {
		p, err := ParseTrustedProxies(c.TrustedProxyCIDRs)
		add(wrapField("DORIS_OAUTH_TRUSTED_PROXY_CIDRS", err))
		a.proxies = p
	}
	if b.Transport == "http" && c.Enabled() && isUnspecified(b.Host) && len(b.AllowedHosts) == 0 {
		add(configErrf("MCP_ALLOWED_HOSTS", "SERVER_HOST %q accepts connections on every address, so the Host header cannot be derived from it: list the names clients use (e.g. mcp.example.com:*)", b.Host))
	}

	if c.TokenAuth {
		s, terrs := c.compileTokens(now, log)
		errs = append(errs, terrs...)
		if s != nil {
			a.methods = append(a.methods, namedMethod{"token", MethodFunc(s.authenticate)})
		}
	}
	if c.JWTAuth {
		v, jerrs := c.compileJWT(bc, now, log)
		errs = append(errs, jerrs...)
		if v != nil {
			m := &jwtMode{v: v, userClaim: c.JWT.UserIDClaim, permClaim: c.JWT.PermissionsClaim, exclusive: !c.OAuthAuth}
			a.methods = append(a.methods, namedMethod{"jwt", MethodFunc(m.authenticate)})
		}
	}
	if c.OAuthAuth {
		m, oerrs := c.compileOAuth(b, bc, now, log)
		errs = append(errs, oerrs...)
		if m != nil {
			a.methods = append(a.methods, namedMethod{"oauth", MethodFunc(m.authenticate)})
			a.oauth = m
		}
	}
	return a, errs
}

func wrapField(field string, err error) error {
	if err == nil {
		return nil
	}
	return configErr(field, err)
}

func isUnspecified(host string) bool {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	ip := net.ParseIP(h)
	return h == "" || ip != nil && ip.IsUnspecified()
}

// compileTokens builds the static-token store: TOKEN_<ID> variables and
// the tokens file, at least one of them active.
func (c *Config) compileTokens(now func() time.Time, log *slog.Logger) (*tokenStore, []error) {
	var errs []error
	if c.TokenManagement {
		errs = append(errs, configErrf("ENABLE_HTTP_TOKEN_MANAGEMENT", "the HTTP token-management endpoints are not built into this server; manage tokens in the tokens file (it is re-read when it changes)"))
	}
	switch c.TokenHashAlgorithm {
	case "sha256", "sha512":
	default:
		errs = append(errs, configErrf("TOKEN_HASH_ALGORITHM", "%q is not sha256 or sha512", c.TokenHashAlgorithm))
	}
	if err := inRange("TOKEN_FILE_RELOAD_SECONDS", c.TokenReload, 0, time.Hour); err != nil {
		errs = append(errs, err)
	}
	s := &tokenStore{reload: c.TokenReload, getenv: c.lookupEnv, now: now, log: log}
	start := now()
	for _, et := range c.EnvTokens {
		t, err := c.envToken(et, start)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.env = append(s.env, t)
	}
	if c.TokenFile != "" {
		tokens, stamp, err := loadTokenFile(c.TokenFile, c.lookupEnv)
		switch {
		case errors.Is(err, os.ErrNotExist) && !c.TokenFileRequired:
			// The default tokens.json is optional.
		case err != nil:
			errs = append(errs, configErr("TOKEN_FILE_PATH", err))
		default:
			s.path, s.file, s.stamp, s.checked = c.TokenFile, tokens, stamp, start
		}
	}
	if err := checkUnique(append(slices.Clone(s.env), s.file...)); err != nil {
		errs = append(errs, configErr("TOKEN_FILE_PATH", err))
	}
	active := 0
	for _, set := range [][]StaticToken{s.env, s.file} {
		for i := range set {
			if set[i].active(start) {
				active++
			}
		}
	}
	if active == 0 && len(errs) == 0 {
		errs = append(errs, configErrf("ENABLE_TOKEN_AUTH", "no active token: set TOKEN_<ID> to a high-entropy token (at least %d characters), or list digests in %s", MinSecretLen, c.TokenFile))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

// envToken builds the token of one TOKEN_<ID> setting.
func (c *Config) envToken(et EnvToken, start time.Time) (StaticToken, error) {
	field := "TOKEN_" + strings.ToUpper(et.ID)
	if !isTokenID(et.ID) {
		return StaticToken{}, configErrf(field, "the token ID must be letters, digits, '_', '-' or '.'")
	}
	t := StaticToken{ID: et.ID, Description: et.Description}
	if alg, sum, err := parseDigest(et.Value); err == nil {
		t.Algorithm, t.Sum = alg, sum
	} else if strings.HasPrefix(et.Value, "sha256:") || strings.HasPrefix(et.Value, "sha512:") {
		return StaticToken{}, configErr(field, err)
	} else {
		if strings.HasPrefix(et.Value, dorisOAuthTokenPrefix) {
			return StaticToken{}, configErrf(field, "static tokens may not start with %q, the Doris OAuth token prefix", dorisOAuthTokenPrefix)
		}
		if !isToken68(et.Value) {
			return StaticToken{}, configErrf(field, "the token must be token68 characters (letters, digits, -._~+/), as clients send it in a header")
		}
		if err := CheckSecret(et.Value); err != nil {
			return StaticToken{}, configErrf(field, "the token %v", err)
		}
		alg := c.TokenHashAlgorithm
		if alg != "sha512" {
			alg = "sha256"
		}
		d, _ := Digest(alg, et.Value)
		t.Algorithm, t.Sum, _ = parseDigest(d)
	}
	switch {
	case !et.ExpiresAt.IsZero():
		t.ExpiresAt = et.ExpiresAt
	case et.Lifetime > 0:
		if et.Lifetime > maxTokenLifetime {
			return StaticToken{}, configErrf(field+"_EXPIRES_HOURS", "must be at most %d hours, or none", int(maxTokenLifetime/time.Hour))
		}
		t.ExpiresAt = start.Add(et.Lifetime)
	case et.NoExpiry:
	case c.TokenExpiry && c.DefaultTokenExpiry > 0:
		t.ExpiresAt = start.Add(c.DefaultTokenExpiry)
	}
	if et.Permissions != nil {
		if len(et.Permissions) == 0 {
			return StaticToken{}, configErrf(field+"_PERMISSIONS", "is empty; unset it for an unrestricted token")
		}
		p, err := ParsePermissions(et.Permissions)
		if err != nil {
			return StaticToken{}, configErr(field+"_PERMISSIONS", err)
		}
		t.Permissions = p
	}
	if et.Doris != nil {
		r := *et.Doris
		if err := r.check(); err != nil {
			return StaticToken{}, configErrf(field+"_DORIS_USER", "the token's Doris route: %v", err)
		}
		t.Doris = &r
	}
	return t, nil
}

// maxTokenLifetime bounds TOKEN_<ID>_EXPIRES_HOURS.
const maxTokenLifetime = 1_000_000 * time.Hour

func (c *Config) lookupEnv(k string) (string, bool) {
	if c.LookupEnv == nil {
		return "", false
	}
	return c.LookupEnv(k)
}

// checkURL validates an endpoint: absolute http(s), https unless its host
// is loopback, no userinfo or fragment.
func checkURL(field, raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return configErrf(field, "%q is not an absolute http(s) URL", truncateString(raw, 200))
	case u.User != nil:
		return configErrf(field, "credentials do not belong in the URL")
	case u.Fragment != "":
		return configErrf(field, "a URL with a fragment is not allowed")
	case u.Scheme == "http" && !IsLoopback(u.Hostname()):
		return configErrf(field, "%q must use https (plain http is allowed only on loopback)", truncateString(raw, 200))
	}
	return nil
}

func checkAlgorithms(field string, algs []string, allowHMAC bool) error {
	if len(algs) == 0 {
		return configErrf(field, "lists no algorithm")
	}
	for _, a := range algs {
		switch {
		case strings.EqualFold(a, "none"):
			return configErrf(field, `"none" disables signature verification and is never accepted`)
		case a == AlgHS256 && !allowHMAC:
			return configErrf(field, "HS256 needs a secret shared with the issuer; an external authorization server's tokens are verified with its public keys")
		case !slices.Contains(SupportedAlgorithms(), a):
			return configErrf(field, "%q is not one of %s", a, strings.Join(SupportedAlgorithms(), ", "))
		}
	}
	return nil
}

func readKeyFile(field, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", configErr(field, err)
	}
	return string(b), nil
}
