// Package authtest mints what the authentication tests present to the
// server: key pairs of every supported type, their PEM and JWKS forms,
// compact JWS tokens (including deliberately broken ones), and a small
// authorization server for fault injection (JWKS, discovery and
// introspection with revocation). It is an independent implementation of
// the JOSE encoding written from RFC 7515/7518/8037, used only by tests;
// the jose npm package cross-checks both directions in the end-to-end
// tests. It imports only the standard library.
package authtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// Keys are one key pair of each asymmetric algorithm and an HMAC secret.
type Keys struct {
	RSA     *rsa.PrivateKey
	EC      *ecdsa.PrivateKey
	Ed      ed25519.PrivateKey
	Secret  []byte
	KIDs    map[string]string // algorithm -> kid in the JWKS
	kidBase string
}

// NewKeys generates fresh keys; kid names the key set (keys get
// "<kid>-rs256", "<kid>-es256", "<kid>-eddsa").
func NewKeys(t testing.TB, kid string) *Keys {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	secret := make([]byte, 48)
	rand.Read(secret)
	return &Keys{RSA: rk, EC: ek, Ed: edk, Secret: []byte(base64.RawURLEncoding.EncodeToString(secret)), kidBase: kid,
		KIDs: map[string]string{"RS256": kid + "-rs256", "ES256": kid + "-es256", "EdDSA": kid + "-eddsa"}}
}

// Private returns the signing key of alg.
func (k *Keys) Private(alg string) any {
	switch alg {
	case "RS256":
		return k.RSA
	case "ES256":
		return k.EC
	case "EdDSA":
		return k.Ed
	case "HS256":
		return k.Secret
	}
	return nil
}

// PublicPEM returns the PKIX PEM of alg's public key.
func (k *Keys) PublicPEM(alg string) string {
	var pub crypto.PublicKey
	switch alg {
	case "RS256":
		pub = &k.RSA.PublicKey
	case "ES256":
		pub = &k.EC.PublicKey
	case "EdDSA":
		pub = k.Ed.Public()
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

// JWKS returns the public key set of the three asymmetric keys.
func (k *Keys) JWKS() []byte {
	b64 := base64.RawURLEncoding.EncodeToString
	// The uncompressed point is 0x04 || X || Y, 32 bytes each on P-256.
	point, err := k.EC.PublicKey.Bytes()
	if err != nil {
		panic(err)
	}
	ecx, ecy := point[1:33], point[33:65]
	set := map[string]any{"keys": []map[string]any{
		{"kty": "RSA", "kid": k.KIDs["RS256"], "use": "sig", "alg": "RS256", "n": b64(k.RSA.N.Bytes()), "e": b64(big.NewInt(int64(k.RSA.E)).Bytes())},
		{"kty": "EC", "kid": k.KIDs["ES256"], "use": "sig", "alg": "ES256", "crv": "P-256", "x": b64(ecx), "y": b64(ecy)},
		{"kty": "OKP", "kid": k.KIDs["EdDSA"], "use": "sig", "alg": "EdDSA", "crv": "Ed25519", "x": b64(k.Ed.Public().(ed25519.PublicKey))},
	}}
	b, _ := json.Marshal(set)
	return b
}

// Sign returns the compact JWS of claims under header (whose "alg" picks
// the algorithm; "none" yields an unsigned token) signed with key.
func Sign(header, claims map[string]any, key any) string {
	hb, _ := json.Marshal(header)
	cb, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	input := enc(hb) + "." + enc(cb)
	return input + "." + enc(signature(header["alg"].(string), key, input))
}

func signature(alg string, key any, input string) []byte {
	d := sha256.Sum256([]byte(input))
	switch alg {
	case "none", "None", "NONE":
		return nil
	case "RS256":
		s, err := rsa.SignPKCS1v15(rand.Reader, key.(*rsa.PrivateKey), crypto.SHA256, d[:])
		must(err)
		return s
	case "ES256":
		r, s, err := ecdsa.Sign(rand.Reader, key.(*ecdsa.PrivateKey), d[:])
		must(err)
		return append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	case "EdDSA":
		return ed25519.Sign(key.(ed25519.PrivateKey), []byte(input))
	case "HS256":
		m := hmac.New(sha256.New, key.([]byte))
		m.Write([]byte(input))
		return m.Sum(nil)
	}
	panic(fmt.Sprintf("authtest: unknown alg %q", alg))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// Tamper changes one claim of a signed token without re-signing it.
func Tamper(token string) string {
	parts := strings.Split(token, ".")
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var c map[string]any
	json.Unmarshal(b, &c)
	c["sub"] = fmt.Sprint(c["sub"]) + "-admin"
	nb, _ := json.Marshal(c)
	parts[1] = base64.RawURLEncoding.EncodeToString(nb)
	return strings.Join(parts, ".")
}

// PrivatePEM returns the PKCS#8 PEM of alg's private key.
func (k *Keys) PrivatePEM(alg string) string {
	der, err := x509.MarshalPKCS8PrivateKey(k.Private(alg))
	must(err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}
