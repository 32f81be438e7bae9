package dorisoauth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A purpose names one kind of sealed value. Each has its own key and its
// own wire prefix, and the prefix is authenticated data, so a value of one
// purpose never opens as another.
type purpose struct {
	prefix string // on the wire, e.g. "doa_"
	info   string // HKDF info
	max    int    // longest accepted wire form, in bytes
}

var (
	purposeTxn     = purpose{"dlt_", "doris-mcp-server/doris-oauth/v1/login-transaction", 8192}
	purposeCode    = purpose{"doc_", "doris-mcp-server/doris-oauth/v1/authorization-code", 4096}
	purposeAccess  = purpose{"doa_", "doris-mcp-server/doris-oauth/v1/access-token", 8192}
	purposeRefresh = purpose{"dor_", "doris-mcp-server/doris-oauth/v1/refresh-token", 8192}
	purposeClient  = purpose{"dcr_", "doris-mcp-server/doris-oauth/v1/client-registration", 4096}
)

// MAC keys: the sign-in form's CSRF token, the client secrets of
// registered clients, and peer messages.
const (
	infoCSRF         = "doris-mcp-server/doris-oauth/v1/login-csrf"
	infoClientSecret = "doris-mcp-server/doris-oauth/v1/client-secret"
	infoPeer         = "doris-mcp-server/doris-oauth/v1/peer-sync"
)

// sealVersion is the first byte of every sealed value.
const sealVersion = 1

// keyring holds the keys derived from the secrets: the current secret
// first, then the previous one (open only).
type keyring struct {
	aeads map[string][]cipher.AEAD // by purpose info
	macs  map[string][][]byte      // by info
	rand  io.Reader
}

// newKeyring derives one AES-256-GCM key per purpose and one MAC key per
// MAC use from each secret with HKDF-SHA256.
func newKeyring(current, previous []byte, rand io.Reader) (*keyring, error) {
	k := &keyring{aeads: map[string][]cipher.AEAD{}, macs: map[string][][]byte{}, rand: rand}
	secrets := [][]byte{current}
	if len(previous) > 0 {
		secrets = append(secrets, previous)
	}
	for _, p := range []purpose{purposeTxn, purposeCode, purposeAccess, purposeRefresh, purposeClient} {
		for _, s := range secrets {
			key, err := hkdf.Key(sha256.New, s, nil, p.info, 32)
			if err != nil {
				return nil, err
			}
			block, err := aes.NewCipher(key)
			if err != nil {
				return nil, err
			}
			aead, err := cipher.NewGCM(block)
			if err != nil {
				return nil, err
			}
			k.aeads[p.info] = append(k.aeads[p.info], aead)
		}
	}
	for _, info := range []string{infoCSRF, infoClientSecret, infoPeer} {
		for _, s := range secrets {
			key, err := hkdf.Key(sha256.New, s, nil, info, 32)
			if err != nil {
				return nil, err
			}
			k.macs[info] = append(k.macs[info], key)
		}
	}
	return k, nil
}

// errSealed is every failure to open a sealed value: the caller learns
// nothing about why.
var errSealed = errors.New("dorisoauth: not a valid sealed value")

// seal encodes v as JSON and seals it: prefix + base64url(version ||
// nonce || ciphertext), with the prefix and version as authenticated data.
func (k *keyring) seal(p purpose, v any) (string, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	aead := k.aeads[p.info][0]
	buf := make([]byte, 1+aead.NonceSize(), 1+aead.NonceSize()+len(plain)+aead.Overhead())
	buf[0] = sealVersion
	if _, err := io.ReadFull(k.rand, buf[1:]); err != nil {
		return "", fmt.Errorf("dorisoauth: random nonce: %w", err)
	}
	out := aead.Seal(buf, buf[1:1+aead.NonceSize()], plain, aad(p))
	s := p.prefix + base64.RawURLEncoding.EncodeToString(out)
	if len(s) > p.max {
		return "", fmt.Errorf("dorisoauth: sealed %s value is %d bytes, over %d", strings.TrimSuffix(p.prefix, "_"), len(s), p.max)
	}
	return s, nil
}

// open reverses seal into v. The length is checked before anything is
// decoded, and every failure is errSealed.
func (k *keyring) open(p purpose, s string, v any) error {
	if len(s) > p.max || !strings.HasPrefix(s, p.prefix) {
		return errSealed
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(s[len(p.prefix):])
	if err != nil {
		return errSealed
	}
	aeads := k.aeads[p.info]
	ns := aeads[0].NonceSize()
	if len(raw) < 1+ns+aeads[0].Overhead() || raw[0] != sealVersion {
		return errSealed
	}
	for _, aead := range aeads {
		plain, err := aead.Open(nil, raw[1:1+ns], raw[1+ns:], aad(p))
		if err != nil {
			continue
		}
		if json.Unmarshal(plain, v) != nil {
			return errSealed
		}
		return nil
	}
	return errSealed
}

func aad(p purpose) []byte { return []byte{p.prefix[0], p.prefix[1], p.prefix[2], sealVersion} }

// mac is HMAC-SHA256 of the parts under the current key of info.
func (k *keyring) mac(info string, parts ...string) []byte {
	return macWith(k.macs[info][0], parts...)
}

// verifyMAC reports whether sum is the MAC of the parts under any key of
// info (the previous secret's too), in constant time per key.
func (k *keyring) verifyMAC(info string, sum []byte, parts ...string) bool {
	ok := false
	for _, key := range k.macs[info] {
		if hmac.Equal(sum, macWith(key, parts...)) {
			ok = true
		}
	}
	return ok
}

func macWith(key []byte, parts ...string) []byte {
	m := hmac.New(sha256.New, key)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// digest identifies a public value (a client id, a redirect URI) in a
// sealed value without repeating it: a truncated SHA-256 in base64url. It
// is unkeyed so that it survives a secret rotation.
func digest(parts ...string) string {
	h := sha256.New()
	h.Write([]byte("doris-mcp-server/doris-oauth/v1/digest"))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:16])
}

// randomID returns n random bytes in base64url.
func (k *keyring) randomID(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(k.rand, b); err != nil {
		return "", fmt.Errorf("dorisoauth: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
