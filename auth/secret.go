package auth

import (
	"errors"
	"fmt"
	"strings"
)

// MinSecretLen is the shortest secret the server accepts (256 bits of
// key material for HMAC-SHA256, as RFC 7518 §3.2 requires for HS256).
const MinSecretLen = 32

// weakSecretParts mark a secret as a placeholder or a well-known value.
var weakSecretParts = []string{"password", "changeme", "change_me", "123456", "yoursecret", "your-secret", "your_secret",
	"secret-key", "example", "qwerty", "letmein", "default", "placeholder"}

// CheckSecret applies the weak-secret policy to an operator-supplied
// secret (a static token, an HMAC key, the state-handle secret): at least
// MinSecretLen bytes, not a <placeholder>, no well-known weak substring,
// and at least 10 distinct characters. The error never quotes the secret.
func CheckSecret(s string) error {
	if len(s) < MinSecretLen {
		return fmt.Errorf("is %d bytes; at least %d are required", len(s), MinSecretLen)
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "<") && strings.HasSuffix(t, ">") {
		return errors.New("is a <placeholder>, not a secret")
	}
	lower := strings.ToLower(s)
	for _, w := range weakSecretParts {
		if strings.Contains(lower, w) {
			return fmt.Errorf("contains the well-known weak part %q", w)
		}
	}
	distinct := map[rune]bool{}
	for _, r := range s {
		distinct[r] = true
	}
	if len(distinct) < 10 {
		return fmt.Errorf("has only %d distinct characters; at least 10 are required", len(distinct))
	}
	return nil
}
