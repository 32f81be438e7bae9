package auth

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"
)

// jwtMode authenticates JWTs signed by an issuer the operator configured
// (ENABLE_JWT_AUTH): the signature with the configured keys, then the
// registered claims; the subject and permissions come from the claims
// the operator names.
type jwtMode struct {
	v         *jwtVerifier
	userClaim string
	permClaim string
	// exclusive: no other mode reads JWTs, so this one answers for every
	// JWT-shaped token; otherwise only for those naming its issuer.
	exclusive bool
}

func (m *jwtMode) authenticate(ctx context.Context, token string) (Identity, error) {
	if !looksLikeJWT(token) {
		return Identity{}, ErrNotRecognized
	}
	if !m.exclusive && peekIssuer(token) != m.v.issuer {
		return Identity{}, ErrNotRecognized
	}
	c, err := m.v.verify(ctx, token)
	if err != nil {
		return Identity{}, err
	}
	sub := claimString(c.Raw, m.userClaim)
	if sub == "" {
		return Identity{}, invalidToken("the token has no " + m.userClaim + " claim")
	}
	id := Identity{Method: "jwt", Subject: sub, Route: "global"}
	raw, ok := c.Raw[m.permClaim]
	if !ok {
		raw, ok = c.Raw["scope"]
	}
	if ok {
		perms, valid := stringOrList(raw)
		if !valid {
			return Identity{}, invalidToken("the token's permissions claim is not a string or an array of strings")
		}
		// Entries this server does not know grant nothing.
		p, _ := splitPermissions(perms)
		id.Scopes, id.Grants = p.Scopes, p.Grants
	}
	return id, nil
}

// peekIssuer returns the unverified iss of a JWT, only to choose which
// mode verifies it.
func peekIssuer(token string) string {
	t, err := parseJWT(token)
	if err != nil {
		return ""
	}
	return claimString(t.claims, "iss")
}

func claimString(raw map[string]json.RawMessage, name string) string {
	var s string
	if v, ok := raw[name]; ok && json.Unmarshal(v, &s) == nil {
		return s
	}
	return ""
}

// compileJWT builds the JWT verifier of c.JWT.
func (c *Config) compileJWT(bc *buildCtx, now func() time.Time, log *slog.Logger) (*jwtVerifier, []error) {
	j := &c.JWT
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, k := range j.VerifyOff {
		add(configErrf(k, "turns off a JWT check; every check is always on and this setting is refused"))
	}
	if j.Refresh {
		add(configErrf("ENABLE_JWT_REFRESH", "this server verifies JWTs and issues none, so it has no refresh tokens"))
	}
	add(checkAlgorithms("JWT_ALGORITHM", j.Algorithms, true))
	if j.Issuer == "" {
		add(configErrf("JWT_ISSUER", "is required"))
	}
	if j.Audience == "" {
		add(configErrf("JWT_AUDIENCE", "is required"))
	}
	add(inRange("JWT_LEEWAY_SECONDS", j.Leeway, 0, 5*time.Minute))
	add(inRange("JWT_JWKS_CACHE_SECONDS", j.JWKSCache, time.Second, 24*time.Hour))
	add(inRange("JWT_JWKS_MIN_REFRESH_SECONDS", j.JWKSMinRefresh, time.Second, time.Hour))
	add(inRange("JWT_JWKS_TIMEOUT_SECONDS", j.JWKSTimeout, 100*time.Millisecond, time.Minute))
	if j.JWKSMaxBytes < 1<<10 || j.JWKSMaxBytes > 4<<20 {
		add(configErrf("JWT_JWKS_MAX_BYTES", "must be between 1024 and 4194304 bytes"))
	}
	if j.UserIDClaim == "" || j.PermissionsClaim == "" {
		add(configErrf("JWT_USER_ID_CLAIM", "the user and permissions claim names must not be empty"))
	}

	var static staticKeys
	pem := func(field, text, file, fileField string) {
		if file != "" {
			t, err := readKeyFile(fileField, file)
			if err != nil {
				add(err)
				return
			}
			text += "\n" + t
		}
		if strings.TrimSpace(text) == "" {
			return
		}
		keys, err := ParsePEMKeys(text)
		if err != nil {
			add(configErr(field, err))
			return
		}
		static = append(static, keys...)
	}
	pem("JWT_PUBLIC_KEY", j.PublicKey, j.PublicKeyFile, "JWT_PUBLIC_KEY_FILE")
	pem("JWT_PRIVATE_KEY", j.PrivateKey, j.PrivateKeyFile, "JWT_PRIVATE_KEY_FILE")
	secret := j.SecretKey
	if j.SecretKeyFile != "" {
		t, err := readKeyFile("JWT_SECRET_KEY_FILE", j.SecretKeyFile)
		add(err)
		secret = strings.TrimRight(t, "\r\n")
	}
	hasHS := false
	for _, a := range j.Algorithms {
		hasHS = hasHS || a == AlgHS256
	}
	switch {
	case secret != "" && !hasHS:
		add(configErrf("JWT_SECRET_KEY", "is set but JWT_ALGORITHM does not allow HS256"))
	case secret == "" && hasHS:
		add(configErrf("JWT_SECRET_KEY", "JWT_ALGORITHM allows HS256, which needs JWT_SECRET_KEY or JWT_SECRET_KEY_FILE"))
	case secret != "":
		if err := CheckSecret(secret); err != nil {
			add(configErrf("JWT_SECRET_KEY", "%v", err))
		}
		static = append(static, hmacKey([]byte(secret)))
	}
	keys := multiKeys{}
	if len(static) > 0 {
		keys = append(keys, static)
	}
	if j.JWKSFile != "" {
		fetch := fetchFile(j.JWKSFile, j.JWKSMaxBytes)
		b, err := fetch(context.Background())
		if err == nil {
			_, err = ParseJWKS(b)
		}
		add(wrapField("JWT_JWKS_FILE", err))
		keys = append(keys, &remoteKeys{source: j.JWKSFile, fetch: fetch, ttl: j.JWKSCache, minInterval: j.JWKSMinRefresh, now: now, log: log})
	}
	if j.JWKSURL != "" {
		if err := checkURL("JWT_JWKS_URL", j.JWKSURL); err != nil {
			add(err)
		} else {
			keys = append(keys, &remoteKeys{source: j.JWKSURL, fetch: fetchURL(bc.client(j.JWKSTimeout), j.JWKSURL, j.JWKSMaxBytes),
				ttl: j.JWKSCache, minInterval: j.JWKSMinRefresh, now: now, log: log})
		}
	}
	if len(keys) == 0 {
		add(configErrf("JWT_PUBLIC_KEY", "no verification key: set JWT_PUBLIC_KEY(_FILE), JWT_JWKS_URL, JWT_JWKS_FILE or, for HS256, JWT_SECRET_KEY"))
	}
	// Every allowed asymmetric algorithm needs a key, unless a key set may
	// bring one.
	if j.JWKSURL == "" && j.JWKSFile == "" && len(static) > 0 {
		for _, alg := range j.Algorithms {
			found := false
			for _, k := range static {
				found = found || k.Alg == alg
			}
			if !found && alg != AlgHS256 {
				add(configErrf("JWT_ALGORITHM", "allows %s but no configured key verifies it", alg))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return &jwtVerifier{algs: j.Algorithms, issuer: j.Issuer, audience: j.Audience, leeway: j.Leeway, maxLife: j.MaxLifetime,
		requireIAT: true, typs: []string{"", "jwt"}, keys: keys, now: now}, nil
}
