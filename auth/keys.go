package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

// ParsePEMKeys reads the verification keys of PEM text: public keys
// ("PUBLIC KEY", "RSA PUBLIC KEY"), certificates (their public key) and,
// for compatibility with the reference server's JWT_PRIVATE_KEY, private
// keys, of which only the public half is kept. RSA keys need at least 2048
// bits; EC keys must be on P-256. Literal "\n" sequences, as .env files
// write multi-line values, are read as newlines.
func ParsePEMKeys(text string) ([]Key, error) {
	rest := []byte(strings.ReplaceAll(text, `\n`, "\n"))
	var keys []Key
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		pub, err := pemPublicKey(block)
		if err != nil {
			return nil, fmt.Errorf("PEM block %q: %w", block.Type, err)
		}
		k, err := keyFor(pub)
		if err != nil {
			return nil, fmt.Errorf("PEM block %q: %w", block.Type, err)
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, errors.New("no PEM key found")
	}
	if strings.TrimSpace(string(rest)) != "" {
		return nil, errors.New("text after the last PEM block")
	}
	return keys, nil
}

func pemPublicKey(b *pem.Block) (crypto.PublicKey, error) {
	switch b.Type {
	case "PUBLIC KEY":
		return x509.ParsePKIXPublicKey(b.Bytes)
	case "RSA PUBLIC KEY":
		return x509.ParsePKCS1PublicKey(b.Bytes)
	case "CERTIFICATE":
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		return c.PublicKey, nil
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
		if err != nil {
			return nil, err
		}
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, errors.New("unsupported private key")
		}
		return s.Public(), nil
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
		if err != nil {
			return nil, err
		}
		return k.Public(), nil
	case "EC PRIVATE KEY":
		k, err := x509.ParseECPrivateKey(b.Bytes)
		if err != nil {
			return nil, err
		}
		return k.Public(), nil
	}
	return nil, errors.New("not a key or certificate")
}

// keyFor binds a public key to its one algorithm.
func keyFor(pub crypto.PublicKey) (Key, error) {
	switch p := pub.(type) {
	case *rsa.PublicKey:
		if err := checkRSA(p); err != nil {
			return Key{}, err
		}
		return Key{Alg: AlgRS256, key: p}, nil
	case *ecdsa.PublicKey:
		if p.Curve != elliptic.P256() {
			return Key{}, errors.New("EC keys must be on P-256 (ES256)")
		}
		return Key{Alg: AlgES256, key: p}, nil
	case ed25519.PublicKey:
		return Key{Alg: AlgEdDSA, key: p}, nil
	}
	return Key{}, fmt.Errorf("unsupported key type %T", pub)
}

// hmacKey is an HS256 secret as a Key.
func hmacKey(secret []byte) Key { return Key{Alg: AlgHS256, key: secret} }
