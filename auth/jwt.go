package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"
)

// The signature algorithms the server verifies (RFC 7518, RFC 8037). Each
// key is bound to exactly one of them by its type, so a token can never
// make the server use a key with another algorithm than the key's own
// (no RS256 public key used as an HS256 secret), and "none" does not exist.
const (
	AlgRS256 = "RS256"
	AlgES256 = "ES256"
	AlgEdDSA = "EdDSA"
	AlgHS256 = "HS256"
)

// SupportedAlgorithms lists every algorithm the verifier implements.
func SupportedAlgorithms() []string { return []string{AlgEdDSA, AlgES256, AlgHS256, AlgRS256} }

// Key is a verification key bound to one algorithm.
type Key struct {
	ID  string // kid; "" for a configured key without one, which matches any kid
	Alg string // the one algorithm this key verifies
	// key is *rsa.PublicKey, *ecdsa.PublicKey (P-256), ed25519.PublicKey
	// or []byte (an HMAC secret).
	key any
}

// jws is a parsed, not yet verified, compact JWS.
type jws struct {
	header       jwsHeader
	claims       map[string]json.RawMessage
	signingInput string
	signature    []byte
}

type jwsHeader struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Typ  string          `json:"typ"`
	Crit json.RawMessage `json:"crit"`
}

// Bounds of a JWT's parts.
const (
	maxHeaderBytes    = 4 << 10
	maxSignatureBytes = 1 << 10
)

var b64 = base64.RawURLEncoding.Strict()

// looksLikeJWT reports whether token has the compact JWS shape.
func looksLikeJWT(token string) bool { return strings.Count(token, ".") == 2 }

// parseJWT splits and decodes a compact JWS (RFC 7515 §7.1) without
// verifying it: three unpadded base64url parts, a header and a claims set
// that are JSON objects without duplicate members, no "crit" extensions,
// each part within its bound.
func parseJWT(token string) (*jws, error) {
	if len(token) > MaxTokenBytes {
		return nil, errors.New("the token is too long")
	}
	h, rest, ok1 := strings.Cut(token, ".")
	p, s, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 || strings.Contains(s, ".") {
		return nil, errors.New("the token is not a compact JWS of three parts")
	}
	if len(h) > maxHeaderBytes*4/3+4 {
		return nil, errors.New("the token header is too long")
	}
	hb, err := b64.DecodeString(h)
	if err != nil {
		return nil, errors.New("the token header is not base64url")
	}
	var t jws
	if err := decodeStrict(hb, &t.header, false); err != nil || firstByte(hb) != '{' {
		return nil, errors.New("the token header is not a JSON object")
	}
	if t.header.Crit != nil {
		return nil, errors.New("the token has critical header extensions, which are not supported")
	}
	pb, err := b64.DecodeString(p)
	if err != nil {
		return nil, errors.New("the token claims are not base64url")
	}
	if err := decodeStrict(pb, &t.claims, false); err != nil || t.claims == nil {
		return nil, errors.New("the token claims are not a JSON object")
	}
	if len(s) > maxSignatureBytes*4/3+4 {
		return nil, errors.New("the token signature is too long")
	}
	if t.signature, err = b64.DecodeString(s); err != nil {
		return nil, errors.New("the token signature is not base64url")
	}
	t.signingInput = token[:len(h)+1+len(p)]
	return &t, nil
}

func firstByte(b []byte) byte {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
	}
	return 0
}

// verifySignature checks sig over input with k, which verifies k.Alg only.
func verifySignature(k Key, alg, input string, sig []byte) bool {
	if k.Alg != alg {
		return false
	}
	switch key := k.key.(type) {
	case *rsa.PublicKey:
		d := sha256.Sum256([]byte(input))
		return rsa.VerifyPKCS1v15(key, crypto.SHA256, d[:], sig) == nil
	case *ecdsa.PublicKey:
		if len(sig) != 64 {
			return false
		}
		d := sha256.Sum256([]byte(input))
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(key, d[:], r, s)
	case ed25519.PublicKey:
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(key, []byte(input), sig)
	case []byte:
		m := hmac.New(sha256.New, key)
		m.Write([]byte(input))
		return hmac.Equal(m.Sum(nil), sig)
	}
	return false
}

// keySet finds the verification keys for a token.
type keySet interface {
	// lookup returns the keys that may have signed a token naming kid
	// ("" when it names none).
	lookup(ctx context.Context, kid string) ([]Key, error)
}

// staticKeys are keys from PEM or a secret: a key without an ID matches
// any kid.
type staticKeys []Key

func (s staticKeys) lookup(_ context.Context, kid string) ([]Key, error) {
	var out []Key
	for _, k := range s {
		if k.ID == "" || kid == "" || k.ID == kid {
			out = append(out, k)
		}
	}
	return out, nil
}

// multiKeys searches several sets, in order.
type multiKeys []keySet

func (m multiKeys) lookup(ctx context.Context, kid string) ([]Key, error) {
	var out []Key
	var errs []error
	for _, s := range m {
		ks, err := s.lookup(ctx, kid)
		out = append(out, ks...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return nil, errors.Join(errs...)
}

// errUnknownKey is a token naming a key no key set holds.
var errUnknownKey = errors.New("auth: no key with the token's kid")

// jwtVerifier checks compact JWS tokens: the algorithm against an explicit
// allowlist, the signature with a key of that algorithm, then iss, aud,
// exp, nbf and iat with an explicit leeway.
type jwtVerifier struct {
	algs       []string
	issuer     string
	audience   string
	leeway     time.Duration
	maxLife    time.Duration // 0: exp - iat is not bounded
	requireIAT bool
	typs       []string // accepted "typ" values, lower case; "" accepts an absent typ
	keys       keySet
	now        func() time.Time
}

// Claims are a verified token's registered claims and the rest raw.
type Claims struct {
	Issuer    string
	Subject   string
	Audience  []string
	Expiry    time.Time
	NotBefore time.Time
	IssuedAt  time.Time
	Raw       map[string]json.RawMessage
}

// verify checks token and returns its claims, or an *Error (401
// invalid_token, or 503 when the keys cannot be fetched). Claims are read
// only after the signature verified; every claim failure is reported.
func (v *jwtVerifier) verify(ctx context.Context, token string) (*Claims, error) {
	t, err := parseJWT(token)
	if err != nil {
		return nil, invalidToken(err.Error())
	}
	if !slices.Contains(v.algs, t.header.Alg) {
		return nil, invalidToken("the token algorithm is not allowed")
	}
	if !slices.Contains(v.typs, strings.ToLower(t.header.Typ)) {
		return nil, invalidToken("the token type is not accepted")
	}
	keys, err := v.keys.lookup(ctx, t.header.Kid)
	if err != nil && len(keys) == 0 {
		if errors.Is(err, errUnknownKey) {
			return nil, invalidToken("the token names an unknown key")
		}
		return nil, unavailable("the signing keys cannot be fetched now")
	}
	ok := false
	for _, k := range keys {
		if verifySignature(k, t.header.Alg, t.signingInput, t.signature) {
			ok = true
			break
		}
	}
	if !ok {
		return nil, invalidToken("the token signature is invalid")
	}
	c, err := readClaims(t.claims)
	if err != nil {
		return nil, invalidToken(err.Error())
	}
	if problems := v.check(c); len(problems) > 0 {
		return nil, invalidToken(strings.Join(problems, "; "))
	}
	return c, nil
}

// check returns every registered-claim failure of c.
func (v *jwtVerifier) check(c *Claims) []string {
	now := v.now()
	var p []string
	if c.Issuer != v.issuer {
		p = append(p, "the token issuer is not accepted")
	}
	if !slices.Contains(c.Audience, v.audience) {
		p = append(p, "the token audience is not this server")
	}
	switch {
	case c.Expiry.IsZero():
		p = append(p, "the token has no expiry")
	case !now.Before(c.Expiry.Add(v.leeway)):
		p = append(p, "the token has expired")
	}
	if !c.NotBefore.IsZero() && now.Add(v.leeway).Before(c.NotBefore) {
		p = append(p, "the token is not valid yet")
	}
	switch {
	case c.IssuedAt.IsZero() && v.requireIAT:
		p = append(p, "the token has no issue time")
	case !c.IssuedAt.IsZero() && now.Add(v.leeway).Before(c.IssuedAt):
		p = append(p, "the token was issued in the future")
	case !c.IssuedAt.IsZero() && v.maxLife > 0 && c.Expiry.Sub(c.IssuedAt) > v.maxLife:
		p = append(p, "the token lifetime is longer than this server accepts")
	}
	return p
}

// readClaims extracts the registered claims, refusing wrong types.
func readClaims(raw map[string]json.RawMessage) (*Claims, error) {
	c := &Claims{Raw: raw}
	for name, dst := range map[string]*string{"iss": &c.Issuer, "sub": &c.Subject} {
		if v, ok := raw[name]; ok && json.Unmarshal(v, dst) != nil {
			return nil, fmt.Errorf("the %s claim is not a string", name)
		}
	}
	if v, ok := raw["aud"]; ok {
		var one string
		if json.Unmarshal(v, &one) == nil {
			c.Audience = []string{one}
		} else if json.Unmarshal(v, &c.Audience) != nil {
			return nil, errors.New("the aud claim is not a string or an array of strings")
		}
	}
	for name, dst := range map[string]*time.Time{"exp": &c.Expiry, "nbf": &c.NotBefore, "iat": &c.IssuedAt} {
		v, ok := raw[name]
		if !ok {
			continue
		}
		t, err := numericDate(v)
		if err != nil {
			return nil, fmt.Errorf("the %s claim is not a NumericDate", name)
		}
		*dst = t
	}
	return c, nil
}

// numericDate reads a JSON number of seconds since the epoch (RFC 7519
// §2), fractions allowed, within the years 1970..9999.
func numericDate(v json.RawMessage) (time.Time, error) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return time.Time{}, err
	}
	if math.IsNaN(f) || f < 0 || f > 253402300799 {
		return time.Time{}, errors.New("out of range")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

// stringOrList reads a claim that is a space-delimited string (OAuth
// "scope") or an array of strings ("scp", "permissions").
func stringOrList(v json.RawMessage) ([]string, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return splitScopeString(s), true
	}
	var l []string
	if json.Unmarshal(v, &l) == nil {
		return l, true
	}
	return nil, false
}
