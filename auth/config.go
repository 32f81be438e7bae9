package auth

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the authentication configuration, read from the environment
// by FromEnv and checked, all problems at once, by Validate. DefaultConfig
// sets every default; a zero Config has every mode off.
type Config struct {
	// Static bearer tokens (ENABLE_TOKEN_AUTH).
	TokenAuth bool
	// TokenFile is TOKEN_FILE_PATH; tokenFileSet records that it was set,
	// in which case the file must exist.
	TokenFile    string
	tokenFileSet bool
	// TokenReload is how often the tokens file is checked for changes
	// (TOKEN_FILE_RELOAD_SECONDS; 0 never).
	TokenReload time.Duration
	// TokenHashAlgorithm digests TOKEN_<ID> values (sha256 or sha512).
	TokenHashAlgorithm string
	// TokenExpiry and DefaultTokenExpiry: a TOKEN_<ID> without its own
	// expiry expires DefaultTokenExpiry after startup, as in the reference
	// server (ENABLE_TOKEN_EXPIRY, DEFAULT_TOKEN_EXPIRY_HOURS).
	TokenExpiry        bool
	DefaultTokenExpiry time.Duration
	// envTokens are the TOKEN_<ID> variables.
	envTokens []envToken
	// tokenManagement is ENABLE_HTTP_TOKEN_MANAGEMENT, which is not built.
	tokenManagement bool

	// JWT (ENABLE_JWT_AUTH).
	JWTAuth bool
	JWT     JWTConfig

	// External OAuth 2.1 resource server (ENABLE_OAUTH_AUTH or the legacy
	// OAUTH_ENABLED).
	OAuthAuth bool
	OAuth     OAuthConfig
	// oauthSwitches records both switches, which must agree when both set.
	oauthSwitches map[string]bool

	// DorisOAuth is ENABLE_DORIS_OAUTH_AUTH, read here only to refuse its
	// combination with external OAuth; package dorisoauth serves it.
	DorisOAuth bool
	// AuthType is the deprecated AUTH_TYPE.
	AuthType string

	// TrustProxyHeaders and TrustedProxyCIDRs
	// (DORIS_OAUTH_TRUST_PROXY_HEADERS, DORIS_OAUTH_TRUSTED_PROXY_CIDRS):
	// forwarded headers are believed only from these peers.
	TrustProxyHeaders bool
	TrustedProxyCIDRs []string

	// env is the environment FromEnv read, for password_env references.
	env map[string]string
}

// JWTConfig configures JWT verification.
type JWTConfig struct {
	Algorithms  []string      // JWT_ALGORITHM: the allowlist (comma-separated)
	Issuer      string        // JWT_ISSUER: required exact iss
	Audience    string        // JWT_AUDIENCE: required member of aud
	Leeway      time.Duration // JWT_LEEWAY_SECONDS
	MaxLifetime time.Duration // JWT_EXPIRATION_HOURS: longest exp-iat accepted; 0 unbounded

	PublicKey      string // JWT_PUBLIC_KEY: PEM text
	PublicKeyFile  string // JWT_PUBLIC_KEY_FILE
	PrivateKey     string // JWT_PRIVATE_KEY: only its public half is used
	PrivateKeyFile string // JWT_PRIVATE_KEY_FILE
	SecretKey      string // JWT_SECRET_KEY: the HS256 secret
	SecretKeyFile  string // JWT_SECRET_KEY_FILE

	JWKSURL        string        // JWT_JWKS_URL
	JWKSFile       string        // JWT_JWKS_FILE
	JWKSCache      time.Duration // JWT_JWKS_CACHE_SECONDS
	JWKSMinRefresh time.Duration // JWT_JWKS_MIN_REFRESH_SECONDS
	JWKSTimeout    time.Duration // JWT_JWKS_TIMEOUT_SECONDS
	JWKSMaxBytes   int64         // JWT_JWKS_MAX_BYTES

	UserIDClaim      string // JWT_USER_ID_CLAIM
	PermissionsClaim string // JWT_PERMISSIONS_CLAIM; "scope" is read when it is absent

	// verifyOff lists JWT_VERIFY_* variables set to false: refused.
	verifyOff []string
	// refresh is ENABLE_JWT_REFRESH: the server issues no tokens.
	refresh bool
}

// OAuthConfig configures the external OAuth 2.1 resource server.
type OAuthConfig struct {
	Issuer   string // OAUTH_ISSUER: the trusted authorization server
	Resource string // OAUTH_RESOURCE: this server's canonical URI (RFC 8707)
	Audience string // OAUTH_AUDIENCE: required token audience; default Resource

	DiscoveryURL     string // OAUTH_DISCOVERY_URL: RFC 8414 / OIDC metadata, fetched at startup
	JWKSURL          string // OAUTH_JWKS_URL: for JWT access tokens (RFC 9068)
	IntrospectionURL string // OAUTH_INTROSPECTION_URL: for opaque ones (RFC 7662)
	ClientID         string // OAUTH_INTROSPECTION_CLIENT_ID, else OAUTH_CLIENT_ID
	ClientSecret     string // OAUTH_INTROSPECTION_CLIENT_SECRET, else OAUTH_CLIENT_SECRET

	Scopes         []string // OAUTH_SCOPE: the allowed set
	RequiredScopes []string // OAUTH_REQUIRED_SCOPE: default all of Scopes
	UserIDClaim    string   // OAUTH_USER_ID_CLAIM
	Algorithms     []string // OAUTH_ALGORITHMS

	Leeway          time.Duration // OAUTH_LEEWAY_SECONDS
	Timeout         time.Duration // OAUTH_HTTP_TIMEOUT_SECONDS: each fetch and introspection
	IntrospectCache time.Duration // OAUTH_INTROSPECTION_CACHE_SECONDS: never past the token's exp
	JWKSCache       time.Duration // OAUTH_JWKS_CACHE_SECONDS
	JWKSMinRefresh  time.Duration // OAUTH_JWKS_MIN_REFRESH_SECONDS
	MaxBytes        int64         // OAUTH_MAX_RESPONSE_BYTES

	// unsupported lists set variables whose meaning (role mappings that
	// grant permissions) this server does not implement: refused.
	unsupported []string
}

// envToken is one TOKEN_<ID> variable and its companions.
type envToken struct {
	id, value                                     string
	expiresHours, expiresAt, description          string
	permissions                                   string
	dorisUser, dorisPassword, dorisHosts, dorisDB string
	hasPermissions, hasPassword                   bool
}

// DefaultConfig returns the defaults of the reference server.
func DefaultConfig() Config {
	return Config{
		TokenFile:          "tokens.json",
		TokenReload:        10 * time.Second,
		TokenHashAlgorithm: "sha256",
		TokenExpiry:        true,
		DefaultTokenExpiry: 720 * time.Hour,
		JWT: JWTConfig{
			Algorithms:       []string{AlgRS256},
			Issuer:           "doris-mcp-server",
			Audience:         "doris-mcp-client",
			Leeway:           10 * time.Second,
			JWKSCache:        5 * time.Minute,
			JWKSMinRefresh:   30 * time.Second,
			JWKSTimeout:      5 * time.Second,
			JWKSMaxBytes:     DefaultJWKSMax,
			UserIDClaim:      "sub",
			PermissionsClaim: "permissions",
		},
		OAuth: OAuthConfig{
			UserIDClaim:     "sub",
			Algorithms:      []string{AlgRS256, AlgES256, AlgEdDSA},
			Leeway:          10 * time.Second,
			Timeout:         5 * time.Second,
			IntrospectCache: 60 * time.Second,
			JWKSCache:       5 * time.Minute,
			JWKSMinRefresh:  30 * time.Second,
			MaxBytes:        DefaultJWKSMax,
		},
	}
}

// Enabled reports whether any authentication mode this package serves is
// on.
func (c *Config) Enabled() bool { return c.TokenAuth || c.JWTAuth || c.OAuthAuth }

// reservedTokenVars are TOKEN_* variables that configure the token mode
// instead of naming a token; reservedTokenPrefixes and tokenSuffixes too.
var (
	reservedTokenVars = []string{"TOKEN_FILE_PATH", "TOKEN_FILE_RELOAD_SECONDS", "TOKEN_HASH_ALGORITHM", "TOKEN_SECRET",
		"TOKEN_EXPIRY", "TOKEN_DB_VALIDATION_TTL_SECONDS"}
	reservedTokenPrefixes = []string{"TOKEN_HASH_", "TOKEN_MANAGEMENT_", "TOKEN_FILE_"}
	tokenSuffixes         = []string{"_EXPIRES_HOURS", "_EXPIRES_AT", "_DESCRIPTION", "_PERMISSIONS",
		"_DORIS_USER", "_DORIS_PASSWORD", "_DORIS_HOSTS", "_DORIS_DATABASE"}
)

// isTokenVar reports whether an environment variable names a token.
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

// envReader reads typed values, collecting every problem.
type envReader struct {
	env  map[string]string
	errs []error
}

func (r *envReader) fail(key, format string, args ...any) {
	r.errs = append(r.errs, &ConfigError{Field: key, Err: fmt.Errorf(format, args...)})
}

func (r *envReader) str(key string, dst *string) bool {
	v, ok := r.env[key]
	if ok {
		*dst = strings.TrimSpace(v)
	}
	return ok
}

func (r *envReader) secret(key string, dst *string) {
	if v, ok := r.env[key]; ok {
		*dst = v
	}
}

func (r *envReader) bool(key string, dst *bool) bool {
	v, ok := r.env[key]
	if !ok || strings.TrimSpace(v) == "" {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		*dst = true
	case "0", "false", "no", "off":
		*dst = false
	default:
		r.fail(key, "%q is not a boolean (true/false)", v)
		return false
	}
	return true
}

func (r *envReader) seconds(key string, dst *time.Duration, unit time.Duration) {
	v, ok := r.env[key]
	if !ok || strings.TrimSpace(v) == "" {
		return
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1e9 {
		r.fail(key, "%q is not a non-negative number", v)
		return
	}
	*dst = time.Duration(f * float64(unit))
}

func (r *envReader) int64(key string, dst *int64) {
	v, ok := r.env[key]
	if !ok || strings.TrimSpace(v) == "" {
		return
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		r.fail(key, "%q is not an integer", v)
		return
	}
	*dst = n
}

// list reads a list separated by commas or spaces.
func (r *envReader) list(key string, dst *[]string) bool {
	v, ok := r.env[key]
	if ok {
		*dst = splitList(v)
	}
	return ok
}

func splitList(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

// FromEnv overlays the environment on c and returns the values it could
// not read. Cross-field checks are Validate's.
func (c *Config) FromEnv(env map[string]string) []error {
	r := &envReader{env: env}
	c.env = env
	r.bool("ENABLE_TOKEN_AUTH", &c.TokenAuth)
	c.tokenFileSet = r.str("TOKEN_FILE_PATH", &c.TokenFile)
	r.seconds("TOKEN_FILE_RELOAD_SECONDS", &c.TokenReload, time.Second)
	r.str("TOKEN_HASH_ALGORITHM", &c.TokenHashAlgorithm)
	r.bool("ENABLE_TOKEN_EXPIRY", &c.TokenExpiry)
	r.seconds("DEFAULT_TOKEN_EXPIRY_HOURS", &c.DefaultTokenExpiry, time.Hour)
	r.bool("ENABLE_HTTP_TOKEN_MANAGEMENT", &c.tokenManagement)
	c.envTokens = nil
	for k, v := range env {
		if !isTokenVar(k) || v == "" {
			continue // an empty TOKEN_<ID> is unset, as in the reference
		}
		t := envToken{id: strings.ToLower(strings.TrimPrefix(k, "TOKEN_")), value: v}
		r.str(k+"_EXPIRES_HOURS", &t.expiresHours)
		r.str(k+"_EXPIRES_AT", &t.expiresAt)
		r.str(k+"_DESCRIPTION", &t.description)
		t.hasPermissions = r.str(k+"_PERMISSIONS", &t.permissions)
		r.str(k+"_DORIS_USER", &t.dorisUser)
		_, t.hasPassword = env[k+"_DORIS_PASSWORD"]
		r.secret(k+"_DORIS_PASSWORD", &t.dorisPassword)
		r.str(k+"_DORIS_HOSTS", &t.dorisHosts)
		r.str(k+"_DORIS_DATABASE", &t.dorisDB)
		c.envTokens = append(c.envTokens, t)
	}
	slices.SortFunc(c.envTokens, func(a, b envToken) int { return strings.Compare(a.id, b.id) })

	j := &c.JWT
	r.bool("ENABLE_JWT_AUTH", &c.JWTAuth)
	r.list("JWT_ALGORITHM", &j.Algorithms)
	r.str("JWT_ISSUER", &j.Issuer)
	r.str("JWT_AUDIENCE", &j.Audience)
	r.seconds("JWT_LEEWAY_SECONDS", &j.Leeway, time.Second)
	r.seconds("JWT_EXPIRATION_HOURS", &j.MaxLifetime, time.Hour)
	r.secret("JWT_PUBLIC_KEY", &j.PublicKey)
	r.str("JWT_PUBLIC_KEY_FILE", &j.PublicKeyFile)
	r.secret("JWT_PRIVATE_KEY", &j.PrivateKey)
	r.str("JWT_PRIVATE_KEY_FILE", &j.PrivateKeyFile)
	r.secret("JWT_SECRET_KEY", &j.SecretKey)
	r.str("JWT_SECRET_KEY_FILE", &j.SecretKeyFile)
	r.str("JWT_JWKS_URL", &j.JWKSURL)
	r.str("JWT_JWKS_FILE", &j.JWKSFile)
	r.seconds("JWT_JWKS_CACHE_SECONDS", &j.JWKSCache, time.Second)
	r.seconds("JWT_JWKS_MIN_REFRESH_SECONDS", &j.JWKSMinRefresh, time.Second)
	r.seconds("JWT_JWKS_TIMEOUT_SECONDS", &j.JWKSTimeout, time.Second)
	r.int64("JWT_JWKS_MAX_BYTES", &j.JWKSMaxBytes)
	r.str("JWT_USER_ID_CLAIM", &j.UserIDClaim)
	r.str("JWT_PERMISSIONS_CLAIM", &j.PermissionsClaim)
	j.verifyOff = nil
	for _, k := range []string{"JWT_VERIFY_SIGNATURE", "JWT_VERIFY_EXPIRATION", "JWT_VERIFY_AUDIENCE", "JWT_VERIFY_ISSUER"} {
		on := true
		if r.bool(k, &on) && !on {
			j.verifyOff = append(j.verifyOff, k)
		}
	}
	r.bool("ENABLE_JWT_REFRESH", &j.refresh)

	o := &c.OAuth
	c.oauthSwitches = map[string]bool{}
	for _, k := range []string{"ENABLE_OAUTH_AUTH", "OAUTH_ENABLED"} {
		var on bool
		if r.bool(k, &on) {
			c.oauthSwitches[k] = on
			c.OAuthAuth = c.OAuthAuth || on
		}
	}
	r.str("OAUTH_ISSUER", &o.Issuer)
	r.str("OAUTH_RESOURCE", &o.Resource)
	r.str("OAUTH_AUDIENCE", &o.Audience)
	r.str("OAUTH_DISCOVERY_URL", &o.DiscoveryURL)
	r.str("OAUTH_JWKS_URL", &o.JWKSURL)
	r.str("OAUTH_INTROSPECTION_URL", &o.IntrospectionURL)
	r.str("OAUTH_CLIENT_ID", &o.ClientID)
	r.secret("OAUTH_CLIENT_SECRET", &o.ClientSecret)
	r.str("OAUTH_INTROSPECTION_CLIENT_ID", &o.ClientID)
	r.secret("OAUTH_INTROSPECTION_CLIENT_SECRET", &o.ClientSecret)
	hasScope := r.list("OAUTH_SCOPE", &o.Scopes)
	if !r.list("OAUTH_REQUIRED_SCOPE", &o.RequiredScopes) && hasScope {
		o.RequiredScopes = slices.Clone(o.Scopes) // the reference's default: all of them
	}
	r.str("OAUTH_USER_ID_CLAIM", &o.UserIDClaim)
	r.list("OAUTH_ALGORITHMS", &o.Algorithms)
	r.seconds("OAUTH_LEEWAY_SECONDS", &o.Leeway, time.Second)
	r.seconds("OAUTH_HTTP_TIMEOUT_SECONDS", &o.Timeout, time.Second)
	r.seconds("OAUTH_INTROSPECTION_CACHE_SECONDS", &o.IntrospectCache, time.Second)
	r.seconds("OAUTH_JWKS_CACHE_SECONDS", &o.JWKSCache, time.Second)
	r.seconds("OAUTH_JWKS_MIN_REFRESH_SECONDS", &o.JWKSMinRefresh, time.Second)
	r.int64("OAUTH_MAX_RESPONSE_BYTES", &o.MaxBytes)
	o.unsupported = nil
	for _, k := range []string{"OAUTH_DEFAULT_PERMISSIONS", "OAUTH_ROLE_PERMISSIONS_JSON", "OAUTH_ROLE_SECURITY_LEVELS_JSON", "OAUTH_TRUSTED_DOMAINS"} {
		if strings.TrimSpace(env[k]) != "" {
			o.unsupported = append(o.unsupported, k)
		}
	}

	r.bool("ENABLE_DORIS_OAUTH_AUTH", &c.DorisOAuth)
	r.str("AUTH_TYPE", &c.AuthType)
	r.bool("DORIS_OAUTH_TRUST_PROXY_HEADERS", &c.TrustProxyHeaders)
	r.list("DORIS_OAUTH_TRUSTED_PROXY_CIDRS", &c.TrustedProxyCIDRs)
	return r.errs
}

// ConfigError is one configuration problem: the variable, and why.
type ConfigError struct {
	Field string
	Err   error
}

func (e *ConfigError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(field string, err error) error { return &ConfigError{Field: field, Err: err} }

func configErrf(field, format string, args ...any) error {
	return &ConfigError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Bind is what Validate needs to know about the transport.
type Bind struct {
	Transport    string   // "stdio" or "http"
	Host         string   // SERVER_HOST
	AllowedHosts []string // MCP_ALLOWED_HOSTS
}

// Validate returns every problem of the configuration at once (joined),
// each naming its variable. It reads the files the configuration names
// (tokens file, keys, key sets) but never the network.
func (c *Config) Validate(b Bind) error {
	_, errs := c.compile(b, nil)
	return errors.Join(errs...)
}
