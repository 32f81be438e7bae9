package auth

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Config is the authentication configuration, filled by the program from
// its settings (the package reads no environment) and checked, all
// problems at once, by Validate; each problem names the setting it is
// about. DefaultConfig sets every default; a zero Config has every mode
// off.
type Config struct {
	// Static bearer tokens (ENABLE_TOKEN_AUTH).
	TokenAuth bool
	// TokenFile is TOKEN_FILE_PATH. TokenFileRequired records that it was
	// set, in which case the file must exist (the default may be absent).
	TokenFile         string
	TokenFileRequired bool
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
	// EnvTokens are the TOKEN_<ID> settings, in ID order.
	EnvTokens []EnvToken
	// TokenManagement is ENABLE_HTTP_TOKEN_MANAGEMENT, which is not built:
	// true is refused.
	TokenManagement bool

	// JWT (ENABLE_JWT_AUTH).
	JWTAuth bool
	JWT     JWTConfig

	// External OAuth 2.1 resource server (ENABLE_OAUTH_AUTH or the legacy
	// OAUTH_ENABLED).
	OAuthAuth bool
	OAuth     OAuthConfig

	// DorisOAuth is ENABLE_DORIS_OAUTH_AUTH, known here only to refuse its
	// combination with external OAuth; package dorisoauth serves it.
	DorisOAuth bool
	// AuthType is the deprecated AUTH_TYPE.
	AuthType string

	// TrustProxyHeaders and TrustedProxyCIDRs
	// (DORIS_OAUTH_TRUST_PROXY_HEADERS, DORIS_OAUTH_TRUSTED_PROXY_CIDRS):
	// forwarded headers are believed only from these peers.
	TrustProxyHeaders bool
	TrustedProxyCIDRs []string

	// LookupEnv finds the variables a tokens file's password_env names, at
	// startup and at every reload; nil finds none.
	LookupEnv func(name string) (string, bool)
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

	// VerifyOff lists the JWT_VERIFY_* settings set to false: refused.
	VerifyOff []string
	// Refresh is ENABLE_JWT_REFRESH: refused, the server issues no tokens.
	Refresh bool
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

	// Unsupported lists the settings given whose meaning (role mappings
	// that grant permissions) this server does not implement: refused.
	Unsupported []string
}

// EnvToken is one TOKEN_<ID> setting and its companions
// (TOKEN_<ID>_PERMISSIONS, _EXPIRES_AT, _EXPIRES_HOURS, _DESCRIPTION and
// _DORIS_*).
type EnvToken struct {
	ID    string // <ID>, lower-cased
	Value string // the token (32+ characters), or its sha256:/sha512: digest

	// The expiry: ExpiresAt when set; else Lifetime after startup when
	// positive; else none with NoExpiry (_EXPIRES_HOURS=none); else the
	// default expiry.
	ExpiresAt time.Time
	Lifetime  time.Duration
	NoExpiry  bool

	Description string
	// Permissions restrict the token; nil leaves it unrestricted, and an
	// empty (non-nil) list is refused.
	Permissions []string
	// Doris is the token's own Doris route; nil uses the global one.
	Doris *DorisRoute
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

// ConfigError is one configuration problem: the setting (its variable),
// and why, in the setting's own unit; the program adds the value as given.
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

// inRange checks lo <= d <= hi for a setting in seconds, saying the range
// in seconds.
func inRange(field string, d, lo, hi time.Duration) error {
	if d < lo || d > hi {
		return configErrf(field, "must be between %s and %s seconds", formatSeconds(lo), formatSeconds(hi))
	}
	return nil
}

func formatSeconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

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
