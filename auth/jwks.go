package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Bounds of a JSON Web Key Set.
const (
	maxJWKSKeys    = 100
	minRSABits     = 2048
	maxRSABits     = 16384
	DefaultJWKSMax = 256 << 10 // default JWT_JWKS_MAX_BYTES
)

type jwk struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Use    string   `json:"use"`
	Alg    string   `json:"alg"`
	KeyOps []string `json:"key_ops"`
	Crv    string   `json:"crv"`
	N      string   `json:"n"`
	E      string   `json:"e"`
	X      string   `json:"x"`
	Y      string   `json:"y"`
}

// ParseJWKS parses a JSON Web Key Set (RFC 7517 §5) into verification
// keys. Keys the server cannot use for signatures are skipped: other key
// types and curves, "use" other than "sig", "key_ops" without "verify",
// an "alg" other than the key type's one algorithm, and every symmetric
// ("oct") key, which a published key set must never carry. A malformed
// key of a usable type is skipped too; a set that leaves no usable key is
// an error that says why.
func ParseJWKS(b []byte) ([]Key, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := decodeStrict(b, &set, false); err != nil || set.Keys == nil {
		return nil, errors.New("the key set is not a JSON object with a \"keys\" array")
	}
	if len(set.Keys) > maxJWKSKeys {
		return nil, fmt.Errorf("the key set has %d keys; at most %d are read", len(set.Keys), maxJWKSKeys)
	}
	var keys []Key
	var skipped []string
	for i, j := range set.Keys {
		k, err := j.key()
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("keys[%d]: %v", i, err))
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("the key set has no usable signature key (%s)", strings.Join(skipped, "; "))
	}
	return keys, nil
}

// key converts one JWK.
func (j jwk) key() (Key, error) {
	if j.Use != "" && j.Use != "sig" {
		return Key{}, fmt.Errorf("use %q is not sig", truncateString(j.Use, 16))
	}
	if j.KeyOps != nil && !slices.Contains(j.KeyOps, "verify") {
		return Key{}, errors.New("key_ops lacks verify")
	}
	k := Key{ID: j.Kid}
	switch j.Kty {
	case "RSA":
		k.Alg = AlgRS256
		n, err1 := b64.DecodeString(j.N)
		e, err2 := b64.DecodeString(j.E)
		if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 || len(n) == 0 || n[0] == 0 {
			return Key{}, errors.New("RSA n or e is not minimal base64url")
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if err := checkRSA(pub); err != nil {
			return Key{}, err
		}
		k.key = pub
	case "EC":
		if j.Crv != "P-256" {
			return Key{}, fmt.Errorf("curve %q is not P-256", truncateString(j.Crv, 16))
		}
		k.Alg = AlgES256
		x, err1 := b64.DecodeString(j.X)
		y, err2 := b64.DecodeString(j.Y)
		if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
			return Key{}, errors.New("EC x or y is not 32 bytes of base64url")
		}
		pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
		if err != nil {
			return Key{}, errors.New("EC point is not on P-256")
		}
		k.key = pub
	case "OKP":
		if j.Crv != "Ed25519" {
			return Key{}, fmt.Errorf("curve %q is not Ed25519", truncateString(j.Crv, 16))
		}
		k.Alg = AlgEdDSA
		x, err := b64.DecodeString(j.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return Key{}, errors.New("OKP x is not 32 bytes of base64url")
		}
		k.key = ed25519.PublicKey(x)
	case "oct":
		return Key{}, errors.New("symmetric keys are never taken from a key set")
	default:
		return Key{}, fmt.Errorf("key type %q is not supported", truncateString(j.Kty, 16))
	}
	// RFC 9864 names Ed25519 as the fully-specified form of EdDSA.
	if j.Alg != "" && j.Alg != k.Alg && !(k.Alg == AlgEdDSA && j.Alg == "Ed25519") {
		return Key{}, fmt.Errorf("alg %q is not %s", truncateString(j.Alg, 16), k.Alg)
	}
	return k, nil
}

func checkRSA(pub *rsa.PublicKey) error {
	if bits := pub.N.BitLen(); bits < minRSABits || bits > maxRSABits {
		return fmt.Errorf("RSA modulus of %d bits is outside %d..%d", bits, minRSABits, maxRSABits)
	}
	if pub.E < 3 || pub.E%2 == 0 {
		return errors.New("RSA exponent is invalid")
	}
	return nil
}

// remoteKeys is a key set fetched from a JWKS URL or file and cached. It
// is re-fetched when older than ttl and, for a token naming an unknown
// kid, at once, but never more than once per minInterval, so a flood of
// forged kids cannot turn into a flood of fetches. A failed fetch keeps
// the previous keys.
type remoteKeys struct {
	source      string // the URL or path, for logs
	fetch       func(ctx context.Context) ([]byte, error)
	ttl         time.Duration
	minInterval time.Duration
	now         func() time.Time
	log         *slog.Logger

	fetchMu sync.Mutex // serialises fetches
	mu      sync.Mutex // protects keys, fetched, attempted
	keys    []Key
	fetched time.Time // last successful fetch
	tried   time.Time // last attempt
}

func (r *remoteKeys) lookup(ctx context.Context, kid string) ([]Key, error) {
	keys, fresh := r.snapshot()
	var err error
	if !fresh {
		keys, err = r.refresh(ctx)
	}
	match := matchKid(keys, kid)
	if len(match) == 0 && kid != "" && len(keys) > 0 {
		keys, err = r.refresh(ctx)
		match = matchKid(keys, kid)
	}
	switch {
	case len(match) > 0:
		return match, nil
	case len(keys) == 0 && err != nil:
		return nil, err
	case len(keys) == 0:
		return nil, fmt.Errorf("auth: no keys fetched from %s yet", r.source)
	}
	return nil, errUnknownKey
}

func (r *remoteKeys) snapshot() ([]Key, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys, !r.fetched.IsZero() && r.now().Sub(r.fetched) < r.ttl
}

// refresh fetches the set unless an attempt was made within minInterval,
// and returns the keys then current.
func (r *remoteKeys) refresh(ctx context.Context) ([]Key, error) {
	r.fetchMu.Lock()
	defer r.fetchMu.Unlock()
	r.mu.Lock()
	if !r.tried.IsZero() && r.now().Sub(r.tried) < r.minInterval {
		keys := r.keys
		r.mu.Unlock()
		return keys, nil
	}
	r.tried = r.now()
	r.mu.Unlock()
	// The fetch serves every later request too: the caller going away
	// must not cut it short (the client's timeout still bounds it).
	b, err := r.fetch(context.WithoutCancel(ctx))
	var keys []Key
	if err == nil {
		keys, err = ParseJWKS(b)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.log.Warn("the JWKS could not be refreshed; keeping the previous keys", "source", r.source, "err", err, "keys", len(r.keys))
		return r.keys, err
	}
	r.keys, r.fetched = keys, r.now()
	return keys, nil
}

func matchKid(keys []Key, kid string) []Key {
	if kid == "" {
		return keys
	}
	var out []Key
	for _, k := range keys {
		if k.ID == kid {
			out = append(out, k)
		}
	}
	return out
}

// fetchFile returns a fetch function reading a local JWKS file.
func fetchFile(path string, maxBytes int64) func(context.Context) ([]byte, error) {
	return func(context.Context) ([]byte, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readBounded(f, maxBytes)
	}
}

// fetchURL returns a fetch function GETting a JWKS over HTTP(S) with
// client (which bounds the time and never follows a redirect).
func fetchURL(client *http.Client, url string, maxBytes int64) func(context.Context) ([]byte, error) {
	return func(ctx context.Context) ([]byte, error) {
		return httpGet(ctx, client, url, "application/jwk-set+json, application/json", maxBytes)
	}
}

// httpGet GETs url and returns a 200 body of at most maxBytes.
func httpGet(ctx context.Context, client *http.Client, url, accept string, maxBytes int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, fmt.Errorf("GET %s: status %d", url, resp.StatusCode)
	}
	return readBounded(resp.Body, maxBytes)
}

// readBounded reads all of r, failing beyond maxBytes.
func readBounded(r io.Reader, maxBytes int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > maxBytes {
		return nil, fmt.Errorf("the document is larger than %d bytes", maxBytes)
	}
	return b, nil
}

// newHTTPClient is the client for key sets, discovery and introspection:
// bounded in time, no redirects (a redirect could point a fetch anywhere),
// no cookies, and the proxy from the environment.
func newHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
		},
	}
}
