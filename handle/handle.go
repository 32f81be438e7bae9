// Package handle mints and verifies state handles: the signed,
// principal-bound, expiring strings that carry cross-call state (list
// cursors, page cursors) in a stateless MCP server (ADR 0002).
//
// A handle has the form
//
//	mcp-h1.<base64url(payload JSON)>.<base64url(HMAC-SHA256)>
//
// The payload holds exactly: version, handleId (random), kind, scope,
// resource, principal, expiresAt and a bounded JSON state. The MAC key is
// derived per kind from the server secret with HKDF, so a handle minted for
// one purpose can never verify as another. Handles are signed, not
// encrypted: callers must put only bounded continuation metadata in the
// state, never secrets, SQL text, results or credentials.
//
// The package keeps no state besides its keys: any worker holding the same
// secret verifies any other worker's handles. It imports only the standard
// library.
package handle

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

const (
	prefix = "mcp-h1."

	// MinSecretLen is the shortest accepted configured secret, in bytes.
	MinSecretLen = 32
	// DefaultTTL is the lifetime of a handle unless configured otherwise.
	DefaultTTL = 300 * time.Second
	// MaxTTL is the longest lifetime a handle may have.
	MaxTTL = 3600 * time.Second

	maxHandleLen  = 4096
	maxPayloadLen = 2048
	maxClaimLen   = 256
	macLen        = sha256.Size
)

// Reasons a handle fails to open. They are the reference server's cursor
// error categories and are safe to show a client.
const (
	ReasonInvalid          = "invalid"
	ReasonExpired          = "expired"
	ReasonWrongScope       = "wrong_scope"
	ReasonWrongResource    = "wrong_resource"
	ReasonPrincipalChanged = "authorization_context_changed"
)

// Error reports why a handle did not open. Reason is one of the Reason
// constants.
type Error struct {
	Reason string
	// Unverified marks a ReasonInvalid handle that is well formed but
	// signed by no key this signer holds: issued before the server
	// restarted (a random per-launch secret) or before its secret changed
	// beyond MCP_STATE_HANDLE_PREVIOUS_SECRET. The caller can only start
	// the list again (ADR 0002).
	Unverified bool
}

// Restarted is the sentence a client sees for an Unverified handle.
const Restarted = "the server restarted or its secret changed: start the list again"

func (e *Error) Error() string { return "handle: " + e.Reason }

// Is reports whether target is an *Error with the same reason, so callers can
// write errors.Is(err, &handle.Error{Reason: handle.ReasonExpired}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

// Claims are what a handle binds. Kind names the purpose ("list-page"),
// Scope the operation ("tools:list"), Resource the collection
// ("mcp://tools") and Principal the caller's authorization fingerprint.
type Claims struct {
	Kind      string
	Scope     string
	Resource  string
	Principal string
}

// payload is the signed body. Field order is fixed, so encoding is
// canonical.
type payload struct {
	Version   int             `json:"version"`
	HandleID  string          `json:"handleId"`
	Kind      string          `json:"kind"`
	Scope     string          `json:"scope"`
	Resource  string          `json:"resource"`
	Principal string          `json:"principal"`
	ExpiresAt int64           `json:"expiresAt"`
	State     json.RawMessage `json:"state"`
}

// Signer mints and opens handles. It is safe for concurrent use: after New
// it is never modified.
type Signer struct {
	secrets [][]byte // first signs; all verify (rotation)
	ttl     time.Duration
	now     func() time.Time
	rand    io.Reader
	keys    sync.Map // keyID -> derived MAC key; a cache, filled on first use
}

type keyID struct {
	secret int
	kind   string
}

// Option configures a Signer.
type Option func(*Signer)

// WithTTL sets the lifetime of minted handles (1 s to MaxTTL).
func WithTTL(d time.Duration) Option { return func(s *Signer) { s.ttl = d } }

// WithClock injects the clock used for expiry.
func WithClock(now func() time.Time) Option { return func(s *Signer) { s.now = now } }

// WithRand injects the source of handle ids.
func WithRand(r io.Reader) Option { return func(s *Signer) { s.rand = r } }

// WithPrevious adds secrets that still verify but no longer sign, so a
// rotation does not invalidate outstanding handles at once.
func WithPrevious(secrets ...[]byte) Option {
	return func(s *Signer) { s.secrets = append(s.secrets, secrets...) }
}

// New returns a Signer that signs with secret. Every secret must be at least
// MinSecretLen bytes.
func New(secret []byte, opts ...Option) (*Signer, error) {
	s := &Signer{secrets: [][]byte{secret}, ttl: DefaultTTL, now: time.Now, rand: rand.Reader}
	for _, o := range opts {
		o(s)
	}
	for i, k := range s.secrets {
		if len(k) < MinSecretLen {
			return nil, fmt.Errorf("handle: secret %d is %d bytes, want at least %d", i, len(k), MinSecretLen)
		}
	}
	if s.ttl < time.Second || s.ttl > MaxTTL {
		return nil, fmt.Errorf("handle: TTL %s outside 1s..%s", s.ttl, MaxTTL)
	}
	return s, nil
}

// NewRandom returns a Signer with a fresh random secret: handles survive
// only as long as the process.
func NewRandom(opts ...Option) (*Signer, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("handle: random secret: %w", err)
	}
	return New(secret, opts...)
}

// Sign mints a handle binding c and state. State must marshal to JSON; the
// whole payload must stay within 2048 bytes and every claim within 256.
func (s *Signer) Sign(c Claims, state any) (string, error) {
	if err := c.check(); err != nil {
		return "", err
	}
	st, err := json.Marshal(state)
	if err != nil {
		return "", fmt.Errorf("handle: state: %w", err)
	}
	var id [18]byte
	if _, err := io.ReadFull(s.rand, id[:]); err != nil {
		return "", fmt.Errorf("handle: id: %w", err)
	}
	p := payload{
		Version:   1,
		HandleID:  base64.RawURLEncoding.EncodeToString(id[:]),
		Kind:      c.Kind,
		Scope:     c.Scope,
		Resource:  c.Resource,
		Principal: c.Principal,
		ExpiresAt: s.now().Add(s.ttl).Unix(),
		State:     st,
	}
	body, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("handle: payload: %w", err)
	}
	if len(body) > maxPayloadLen {
		return "", fmt.Errorf("handle: payload is %d bytes, limit %d", len(body), maxPayloadLen)
	}
	signed := prefix + base64.RawURLEncoding.EncodeToString(body)
	mac := sum(s.key(0, c.Kind), signed)
	return signed + "." + base64.RawURLEncoding.EncodeToString(mac), nil
}

// Open verifies h against want and decodes its state into state (which may
// be nil). Any failure is an *Error; nothing of a failed handle is trusted.
func (s *Signer) Open(h string, want Claims, state any) error {
	if len(h) > maxHandleLen || !strings.HasPrefix(h, prefix) {
		return &Error{Reason: ReasonInvalid}
	}
	dot := strings.LastIndexByte(h, '.')
	if dot < len(prefix) {
		return &Error{Reason: ReasonInvalid}
	}
	signed, macPart := h[:dot], h[dot+1:]
	body64 := signed[len(prefix):]
	if base64.RawURLEncoding.DecodedLen(len(macPart)) != macLen || strings.IndexByte(body64, '.') >= 0 {
		return &Error{Reason: ReasonInvalid}
	}
	mac, err := base64.RawURLEncoding.Strict().DecodeString(macPart)
	if err != nil || len(mac) != macLen {
		return &Error{Reason: ReasonInvalid}
	}
	verified := false
	for i := range s.secrets {
		if hmac.Equal(mac, sum(s.key(i, want.Kind), signed)) {
			verified = true
			break
		}
	}
	if !verified {
		return &Error{Reason: ReasonInvalid, Unverified: true}
	}
	body, err := base64.RawURLEncoding.Strict().DecodeString(body64)
	if err != nil || len(body) > maxPayloadLen {
		return &Error{Reason: ReasonInvalid}
	}
	var p payload
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil || p.Version != 1 {
		return &Error{Reason: ReasonInvalid}
	}
	// The MAC key is derived per kind, so a handle of another kind never
	// verified above: the kind needs no check of its own here.
	switch {
	case p.Scope != want.Scope:
		return &Error{Reason: ReasonWrongScope}
	case p.Resource != want.Resource:
		return &Error{Reason: ReasonWrongResource}
	case !hmac.Equal([]byte(p.Principal), []byte(want.Principal)):
		return &Error{Reason: ReasonPrincipalChanged}
	case !s.now().Before(time.Unix(p.ExpiresAt, 0)):
		return &Error{Reason: ReasonExpired}
	}
	if state != nil {
		if err := json.Unmarshal(p.State, state); err != nil {
			return &Error{Reason: ReasonInvalid}
		}
	}
	return nil
}

func (c Claims) check() error {
	for name, v := range map[string]string{"kind": c.Kind, "scope": c.Scope, "resource": c.Resource, "principal": c.Principal} {
		if v == "" || len(v) > maxClaimLen {
			return fmt.Errorf("handle: claim %s must be 1..%d bytes", name, maxClaimLen)
		}
	}
	return nil
}

// key returns the MAC key of secret i for kind, derived with HKDF so the MAC
// binds the purpose.
func (s *Signer) key(i int, kind string) []byte {
	id := keyID{i, kind}
	if k, ok := s.keys.Load(id); ok {
		return k.([]byte)
	}
	k, err := hkdf.Key(sha256.New, s.secrets[i], []byte("doris-mcp-server state handle v1"), kind, 32)
	if err != nil {
		// hkdf.Key fails only for lengths beyond 255*32 bytes.
		panic(errors.New("handle: hkdf: " + err.Error()))
	}
	s.keys.Store(id, k)
	return k
}

func sum(key []byte, msg string) []byte {
	m := hmac.New(sha256.New, key)
	io.WriteString(m, msg)
	return m.Sum(nil)
}
