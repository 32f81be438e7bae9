package main

// The authentication settings: static tokens, JWT, external OAuth (package
// auth) and Doris-backed OAuth (package dorisoauth), read by the rules of
// settings.go into the packages' typed configurations, which Validate.

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// loadAuth reads the settings of package auth.
func (c *Config) loadAuth(l *loader) {
	a := &c.Auth
	// A tokens file's password_env names any variable of the environment,
	// at startup and at every reload of the file.
	env := l.env
	a.LookupEnv = func(name string) (string, bool) { v, ok := env[name]; return v, ok }

	l.bool("ENABLE_TOKEN_AUTH", &a.TokenAuth)
	a.TokenFileRequired = l.str("TOKEN_FILE_PATH", &a.TokenFile)
	l.seconds("TOKEN_FILE_RELOAD_SECONDS", &a.TokenReload)
	l.str("TOKEN_HASH_ALGORITHM", &a.TokenHashAlgorithm)
	l.bool("ENABLE_TOKEN_EXPIRY", &a.TokenExpiry)
	l.duration("DEFAULT_TOKEN_EXPIRY_HOURS", &a.DefaultTokenExpiry, hours)
	l.bool("ENABLE_HTTP_TOKEN_MANAGEMENT", &a.TokenManagement)
	a.EnvTokens = l.envTokens()

	j := &a.JWT
	l.bool("ENABLE_JWT_AUTH", &a.JWTAuth)
	l.list("JWT_ALGORITHM", &j.Algorithms)
	l.str("JWT_ISSUER", &j.Issuer)
	l.str("JWT_AUDIENCE", &j.Audience)
	l.seconds("JWT_LEEWAY_SECONDS", &j.Leeway)
	l.duration("JWT_EXPIRATION_HOURS", &j.MaxLifetime, hours)
	l.secret("JWT_PUBLIC_KEY", &j.PublicKey)
	l.str("JWT_PUBLIC_KEY_FILE", &j.PublicKeyFile)
	l.secret("JWT_PRIVATE_KEY", &j.PrivateKey)
	l.str("JWT_PRIVATE_KEY_FILE", &j.PrivateKeyFile)
	l.secret("JWT_SECRET_KEY", &j.SecretKey)
	l.str("JWT_SECRET_KEY_FILE", &j.SecretKeyFile)
	l.str("JWT_JWKS_URL", &j.JWKSURL)
	l.str("JWT_JWKS_FILE", &j.JWKSFile)
	l.seconds("JWT_JWKS_CACHE_SECONDS", &j.JWKSCache)
	l.seconds("JWT_JWKS_MIN_REFRESH_SECONDS", &j.JWKSMinRefresh)
	l.seconds("JWT_JWKS_TIMEOUT_SECONDS", &j.JWKSTimeout)
	l.int64("JWT_JWKS_MAX_BYTES", &j.JWKSMaxBytes)
	l.str("JWT_USER_ID_CLAIM", &j.UserIDClaim)
	l.str("JWT_PERMISSIONS_CLAIM", &j.PermissionsClaim)
	j.VerifyOff = nil
	for _, k := range []string{"JWT_VERIFY_SIGNATURE", "JWT_VERIFY_EXPIRATION", "JWT_VERIFY_AUDIENCE", "JWT_VERIFY_ISSUER"} {
		on := true
		if l.bool(k, &on) && !on {
			j.VerifyOff = append(j.VerifyOff, k)
		}
	}
	l.bool("ENABLE_JWT_REFRESH", &j.Refresh)

	// ENABLE_OAUTH_AUTH and the reference's older OAUTH_ENABLED are one
	// switch: either turns external OAuth on, and both given must agree.
	var on, legacy bool
	onSet, legacySet := l.bool("ENABLE_OAUTH_AUTH", &on), l.bool("OAUTH_ENABLED", &legacy)
	a.OAuthAuth = on || legacy
	if onSet && legacySet && on != legacy {
		l.failf("ENABLE_OAUTH_AUTH", "disagrees with OAUTH_ENABLED=%q; set one, or both alike", l.origin["OAUTH_ENABLED"].value)
	}
	o := &a.OAuth
	l.str("OAUTH_ISSUER", &o.Issuer)
	l.str("OAUTH_RESOURCE", &o.Resource)
	l.str("OAUTH_AUDIENCE", &o.Audience)
	l.str("OAUTH_DISCOVERY_URL", &o.DiscoveryURL)
	l.str("OAUTH_JWKS_URL", &o.JWKSURL)
	l.str("OAUTH_INTROSPECTION_URL", &o.IntrospectionURL)
	l.str("OAUTH_CLIENT_ID", &o.ClientID)
	l.secret("OAUTH_CLIENT_SECRET", &o.ClientSecret)
	l.str("OAUTH_INTROSPECTION_CLIENT_ID", &o.ClientID)
	l.secret("OAUTH_INTROSPECTION_CLIENT_SECRET", &o.ClientSecret)
	hasScope := l.list("OAUTH_SCOPE", &o.Scopes)
	if !l.list("OAUTH_REQUIRED_SCOPE", &o.RequiredScopes) && hasScope {
		o.RequiredScopes = slices.Clone(o.Scopes) // the reference's default: all of them
	}
	l.str("OAUTH_USER_ID_CLAIM", &o.UserIDClaim)
	l.list("OAUTH_ALGORITHMS", &o.Algorithms)
	l.seconds("OAUTH_LEEWAY_SECONDS", &o.Leeway)
	l.seconds("OAUTH_HTTP_TIMEOUT_SECONDS", &o.Timeout)
	l.seconds("OAUTH_INTROSPECTION_CACHE_SECONDS", &o.IntrospectCache)
	l.seconds("OAUTH_JWKS_CACHE_SECONDS", &o.JWKSCache)
	l.seconds("OAUTH_JWKS_MIN_REFRESH_SECONDS", &o.JWKSMinRefresh)
	l.int64("OAUTH_MAX_RESPONSE_BYTES", &o.MaxBytes)
	o.Unsupported = l.given("OAUTH_DEFAULT_PERMISSIONS", "OAUTH_ROLE_PERMISSIONS_JSON", "OAUTH_ROLE_SECURITY_LEVELS_JSON", "OAUTH_TRUSTED_DOMAINS")

	l.str("AUTH_TYPE", &a.AuthType)
}

// given returns those of names set to a non-empty value.
func (l *loader) given(names ...string) []string {
	var out []string
	for _, k := range names {
		if _, ok := l.value(k); ok {
			out = append(out, k)
		}
	}
	return out
}

// loadDorisOAuth reads the settings of package dorisoauth, and those it
// shares with package auth (the switch, AUTH_TYPE and the proxies).
func (c *Config) loadDorisOAuth(l *loader) {
	d := &c.DorisOAuth
	l.bool("ENABLE_DORIS_OAUTH_AUTH", &d.Enabled)
	c.Auth.DorisOAuth = d.Enabled
	l.str("DORIS_OAUTH_BASE_URL", &d.BaseURL)
	l.secret("DORIS_OAUTH_SECRET", &d.Secret)
	l.secret("DORIS_OAUTH_PREVIOUS_SECRET", &d.PreviousSecret)
	l.list("DORIS_OAUTH_PEERS", &d.Peers)
	l.seconds("DORIS_OAUTH_PEER_SYNC_SECONDS", &d.PeerSync)
	l.seconds("DORIS_OAUTH_ACCESS_TOKEN_EXPIRE_SECONDS", &d.AccessTTL)
	l.seconds("DORIS_OAUTH_REFRESH_TOKEN_EXPIRE_SECONDS", &d.RefreshTTL)
	l.seconds("DORIS_OAUTH_IDLE_TIMEOUT_SECONDS", &d.IdleTimeout)
	l.seconds("DORIS_OAUTH_SESSION_MAX_SECONDS", &d.SessionMax)
	l.seconds("DORIS_OAUTH_AUTH_CODE_EXPIRE_SECONDS", &d.CodeTTL)
	l.seconds("DORIS_OAUTH_CREDENTIAL_CHECK_SECONDS", &d.CredentialCheck)
	l.seconds("DORIS_OAUTH_GC_INTERVAL_SECONDS", &d.GCInterval)
	l.str("DORIS_OAUTH_SESSION_DATABASE", &d.SessionDatabase)
	l.str("DORIS_OAUTH_LOGIN_PAGE_TITLE", &d.LoginPageTitle)
	l.bool("DORIS_OAUTH_CHILD_TOOLS_ENABLED", &d.ChildToolsEnabled)
	l.list("DORIS_OAUTH_CHILD_TOOL_ALLOWLIST", &d.ChildToolAllowlist)
	l.bool("DORIS_OAUTH_SEMANTIC_TOOLS_ENABLED", &d.SemanticTools)
	l.bool("DORIS_OAUTH_SEMANTIC_RESOURCES_ENABLED", &d.SemanticResources)
	l.str("DORIS_OAUTH_CLIENTS_FILE", &d.ClientsFile)
	l.list("DORIS_OAUTH_ALLOWED_REDIRECT_URIS", &d.AllowedRedirectURIs)
	l.str("DORIS_OAUTH_DYNAMIC_CLIENT_REGISTRATION_MODE", &d.DCRMode)
	l.bool("ENABLE_DORIS_OAUTH_PRODUCTION_DCR", &d.ProductionDCR)
	l.bool("ENABLE_DORIS_OAUTH_PRODUCTION_WILDCARD_REDIRECTS", &d.WildcardRedirects)
	l.int("DORIS_OAUTH_DCR_MAX_CLIENTS", &d.DCRMaxClients)
	l.seconds("DORIS_OAUTH_DCR_CLIENT_TTL_SECONDS", &d.DCRClientTTL)
	l.int("DORIS_OAUTH_DCR_RATE_LIMIT_PER_IP", &d.Limits.DCRPerIP)
	l.seconds("DORIS_OAUTH_CIMD_FETCH_TIMEOUT_SECONDS", &d.CIMDFetchTimeout)
	l.int("DORIS_OAUTH_CIMD_MAX_DOCUMENT_BYTES", &d.CIMDMaxDocumentBytes)
	l.seconds("DORIS_OAUTH_CIMD_DEFAULT_CACHE_SECONDS", &d.CIMDDefaultCache)
	l.seconds("DORIS_OAUTH_CIMD_MAX_CACHE_SECONDS", &d.CIMDMaxCache)
	l.int("DORIS_OAUTH_CIMD_MAX_CLIENTS", &d.CIMDMaxClients)
	l.bool("DORIS_OAUTH_CIMD_ALLOW_PRIVATE_ADDRESSES", &d.CIMDAllowPrivateAddrs)
	l.bool("DORIS_OAUTH_ALLOW_INSECURE_HTTP", &d.AllowInsecureHTTP)

	// The proxies are package auth's and package dorisoauth's alike:
	// read once, by one rule.
	l.bool("DORIS_OAUTH_TRUST_PROXY_HEADERS", &d.TrustProxyHeaders)
	c.Auth.TrustProxyHeaders = d.TrustProxyHeaders
	var cidrs []string
	if l.list("DORIS_OAUTH_TRUSTED_PROXY_CIDRS", &cidrs) {
		d.TrustedProxies, c.Auth.TrustedProxyCIDRs = nil, nil
		for _, s := range cidrs {
			p, err := parseProxy(s)
			if err != nil {
				l.fail("DORIS_OAUTH_TRUSTED_PROXY_CIDRS", s, err)
				continue
			}
			d.TrustedProxies = append(d.TrustedProxies, p)
			c.Auth.TrustedProxyCIDRs = append(c.Auth.TrustedProxyCIDRs, p.String())
		}
	}

	l.seconds("DORIS_OAUTH_RATE_LIMIT_WINDOW_SECONDS", &d.RateWindow)
	lim := &d.Limits
	for _, v := range []struct {
		key string
		dst *int
	}{
		{"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_IP", &lim.LoginPerIP},
		{"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_USER", &lim.LoginPerUser},
		{"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_CLIENT", &lim.LoginPerClient},
		{"DORIS_OAUTH_LOGIN_RATE_LIMIT_PER_TXN", &lim.LoginPerTxn},
		{"DORIS_OAUTH_AUTHORIZE_RATE_LIMIT_PER_IP", &lim.AuthorizePerIP},
		{"DORIS_OAUTH_TOKEN_RATE_LIMIT_PER_IP", &lim.TokenPerIP},
		{"DORIS_OAUTH_TOKEN_RATE_LIMIT_PER_CLIENT", &lim.TokenPerClient},
		{"DORIS_OAUTH_REVOKE_RATE_LIMIT_PER_IP", &lim.RevokePerIP},
		{"DORIS_OAUTH_REVOKE_RATE_LIMIT_PER_CLIENT", &lim.RevokePerClient},
		{"DORIS_OAUTH_API_AUTH_TOKEN_RATE_LIMIT_PER_IP", &lim.APITokenPerIP},
		{"DORIS_OAUTH_API_AUTH_TOKEN_RATE_LIMIT_PER_USER", &lim.APITokenPerUser},
		{"DORIS_OAUTH_API_AUTH_REFRESH_RATE_LIMIT_PER_IP", &lim.APIRefreshPerIP},
		{"DORIS_OAUTH_API_AUTH_REFRESH_RATE_LIMIT_PER_CLIENT", &lim.APIRefreshPerClient},
	} {
		l.int(v.key, v.dst)
	}
	d.LegacyToolBuckets = l.given("DORIS_OAUTH_DB_TOOLS_ENABLED", "DORIS_OAUTH_DB_TOOL_ALLOWLIST", "DORIS_OAUTH_QUERY_TOOLS_ENABLED",
		"DORIS_OAUTH_QUERY_TOOL_ALLOWLIST", "DORIS_OAUTH_EXPLAIN_TOOLS_ENABLED", "DORIS_OAUTH_EXPLAIN_TOOL_ALLOWLIST")
	// Deployment (TRANSPORT, DORIS_HOST, ...) is filled from the resolved
	// configuration, flags included, by dorisOAuthProblems.
}

// parseProxy reads one trusted proxy: an address (one host) or a CIDR.
// A prefix that trusts every address is refused.
func parseProxy(s string) (netip.Prefix, error) {
	var p netip.Prefix
	if strings.Contains(s, "/") {
		pr, err := netip.ParsePrefix(s)
		if err != nil {
			return p, errors.New("is not an IP address or CIDR")
		}
		p = pr.Masked()
	} else {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return p, errors.New("is not an IP address or CIDR")
		}
		a = a.Unmap()
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if p.Bits() == 0 {
		return p, errors.New("trusts every address; name the proxies")
	}
	return p, nil
}

// The TOKEN_<ID> settings: TOKEN_ followed by an ID names a token, except
// the token mode's own settings and the companions of a token.
var (
	reservedTokenVars = []string{"TOKEN_FILE_PATH", "TOKEN_FILE_RELOAD_SECONDS", "TOKEN_HASH_ALGORITHM", "TOKEN_SECRET",
		"TOKEN_EXPIRY", "TOKEN_DB_VALIDATION_TTL_SECONDS"}
	reservedTokenPrefixes = []string{"TOKEN_HASH_", "TOKEN_MANAGEMENT_", "TOKEN_FILE_"}
	tokenSuffixes         = []string{"_EXPIRES_HOURS", "_EXPIRES_AT", "_DESCRIPTION", "_PERMISSIONS",
		"_DORIS_USER", "_DORIS_PASSWORD", "_DORIS_HOSTS", "_DORIS_DATABASE"}
)

// isTokenVar reports whether a variable names a token.
func isTokenVar(k string) bool {
	if !strings.HasPrefix(k, "TOKEN_") || len(k) == len("TOKEN_") || slices.Contains(reservedTokenVars, k) {
		return false
	}
	for _, p := range reservedTokenPrefixes {
		if strings.HasPrefix(k, p) {
			return false
		}
	}
	for _, s := range tokenSuffixes {
		if strings.HasSuffix(k, s) {
			return false
		}
	}
	return true
}

// envTokens reads the TOKEN_<ID> settings and their companions, in ID
// order. An empty TOKEN_<ID> is unset, as in the reference.
func (l *loader) envTokens() []auth.EnvToken {
	var names []string
	for k, v := range l.env {
		if isTokenVar(k) && v != "" {
			names = append(names, k)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	var out []auth.EnvToken
	for _, k := range names {
		t := auth.EnvToken{ID: strings.ToLower(strings.TrimPrefix(k, "TOKEN_"))}
		l.secret(k, &t.Value)
		if v, ok := l.value(k + "_EXPIRES_AT"); ok {
			at, err := time.Parse(time.RFC3339, strings.TrimSpace(v))
			if err != nil {
				l.fail(k+"_EXPIRES_AT", v, errors.New("must be an RFC 3339 time, such as 2026-12-31T23:59:59Z"))
			}
			t.ExpiresAt = at
		}
		if v, ok := l.value(k + "_EXPIRES_HOURS"); ok {
			if strings.EqualFold(strings.TrimSpace(v), "none") {
				t.NoExpiry = true
			} else if d, err := parseDuration(v, hours); err != nil || d == 0 {
				l.fail(k+"_EXPIRES_HOURS", v, errors.New("must be a positive number of hours, such as 720 or 1.5, or none"))
			} else {
				t.Lifetime = d
			}
		}
		l.str(k+"_DESCRIPTION", &t.Description)
		if l.list(k+"_PERMISSIONS", &t.Permissions) && t.Permissions == nil {
			t.Permissions = []string{} // given but empty: refused, never unrestricted
		}
		var r auth.DorisRoute
		l.str(k+"_DORIS_USER", &r.User)
		password := l.secret(k+"_DORIS_PASSWORD", &r.Password)
		l.list(k+"_DORIS_HOSTS", &r.Hosts)
		l.str(k+"_DORIS_DATABASE", &r.Database)
		if r.User != "" || password || len(r.Hosts) > 0 || r.Database != "" {
			t.Doris = &r
		}
		out = append(out, t)
	}
	return out
}

// tokenCompanion reports whether k is a companion of a token of env
// (TOKEN_<ID>_PERMISSIONS with TOKEN_<ID> set).
func tokenCompanion(k string, env map[string]string) bool {
	for _, s := range tokenSuffixes {
		if id, ok := strings.CutSuffix(k, s); ok && isTokenVar(id) && env[id] != "" {
			return true
		}
	}
	return false
}
