package handle_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/handle"
)

var secret = []byte("0123456789abcdef0123456789abcdef-test-secret")

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newSigner(t testing.TB, opts ...handle.Option) (*handle.Signer, *fakeClock) {
	t.Helper()
	clk := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	s, err := handle.New(secret, append([]handle.Option{handle.WithClock(clk.now)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s, clk
}

var claims = handle.Claims{Kind: "list-page", Scope: "tools:list", Resource: "mcp://tools", Principal: "p-alice"}

type pageState struct {
	After    string `json:"after"`
	Snapshot string `json:"snapshot"`
}

func TestRoundTrip(t *testing.T) {
	s, _ := newSigner(t)
	h, err := s.Sign(claims, pageState{After: "doris_query", Snapshot: "abc"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "mcp-h1.") || strings.Count(h, ".") != 2 {
		t.Fatalf("handle %q does not have the mcp-h1.<payload>.<mac> form", h)
	}
	var got pageState
	if err := s.Open(h, claims, &got); err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got != (pageState{After: "doris_query", Snapshot: "abc"}) {
		t.Fatalf("state = %+v", got)
	}
	h2, _ := s.Sign(claims, pageState{After: "doris_query", Snapshot: "abc"})
	if h == h2 {
		t.Fatal("two handles for the same state are identical; want a fresh handleId each time")
	}
}

func TestOpenRejects(t *testing.T) {
	s, clk := newSigner(t)
	h, err := s.Sign(claims, pageState{After: "x"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := handle.New([]byte("another-secret-another-secret-another!!"), handle.WithClock(clk.now))
	foreign, _ := other.Sign(claims, pageState{After: "x"})
	otherKind := claims
	otherKind.Kind = "child-list-page"
	kindHandle, _ := s.Sign(otherKind, pageState{})

	tests := []struct {
		name   string
		h      string
		want   handle.Claims
		clock  time.Duration
		reason string
	}{
		{"other principal", h, with(func(c *handle.Claims) { c.Principal = "p-bob" }), 0, handle.ReasonPrincipalChanged},
		{"other scope", h, with(func(c *handle.Claims) { c.Scope = "prompts:list" }), 0, handle.ReasonWrongScope},
		{"other resource", h, with(func(c *handle.Claims) { c.Resource = "mcp://prompts" }), 0, handle.ReasonWrongResource},
		{"other kind", h, otherKind, 0, handle.ReasonInvalid},
		{"minted for another kind", kindHandle, claims, 0, handle.ReasonInvalid},
		{"expired at ttl", h, claims, handle.DefaultTTL, handle.ReasonExpired},
		{"expired later", h, claims, time.Hour, handle.ReasonExpired},
		{"other secret", foreign, claims, 0, handle.ReasonInvalid},
		{"empty", "", claims, 0, handle.ReasonInvalid},
		{"prefix only", "mcp-h1.", claims, 0, handle.ReasonInvalid},
		{"no mac", strings.TrimSuffix(h, h[strings.LastIndexByte(h, '.'):]), claims, 0, handle.ReasonInvalid},
		{"extra segment", h + ".x", claims, 0, handle.ReasonInvalid},
		{"other version prefix", "mcp-h2." + strings.TrimPrefix(h, "mcp-h1."), claims, 0, handle.ReasonInvalid},
		{"too long", h + strings.Repeat("A", 5000), claims, 0, handle.ReasonInvalid},
		{"mac flipped", flipLastMACByte(h), claims, 0, handle.ReasonInvalid},
		{"payload edited", editPayload(t, h, `"after":"x"`, `"after":"y"`), claims, 0, handle.ReasonInvalid},
		{"expiry extended", editPayload(t, h, `"expiresAt":`, `"expiresAt":9`), claims, 0, handle.ReasonInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk.t = time.Unix(1_800_000_000, 0).Add(tt.clock)
			err := s.Open(tt.h, tt.want, nil)
			var he *handle.Error
			if !errors.As(err, &he) {
				t.Fatalf("Open error = %v, want *handle.Error", err)
			}
			if he.Reason != tt.reason {
				t.Fatalf("reason = %q, want %q", he.Reason, tt.reason)
			}
			if !errors.Is(err, &handle.Error{Reason: tt.reason}) {
				t.Fatalf("errors.Is does not match reason %q", tt.reason)
			}
		})
	}
}

func TestExpiryBoundary(t *testing.T) {
	s, clk := newSigner(t, handle.WithTTL(10*time.Second))
	h, _ := s.Sign(claims, nil)
	clk.t = clk.t.Add(9 * time.Second)
	if err := s.Open(h, claims, nil); err != nil {
		t.Fatalf("1 s before expiry: %v", err)
	}
	clk.t = clk.t.Add(time.Second)
	if err := s.Open(h, claims, nil); !errors.Is(err, &handle.Error{Reason: handle.ReasonExpired}) {
		t.Fatalf("at expiry: got %v, want expired", err)
	}
}

func TestRotation(t *testing.T) {
	old, clk := newSigner(t)
	h, _ := old.Sign(claims, nil)
	rotated, err := handle.New([]byte("the-new-secret-the-new-secret-the-new!"), handle.WithPrevious(secret), handle.WithClock(clk.now))
	if err != nil {
		t.Fatal(err)
	}
	if err := rotated.Open(h, claims, nil); err != nil {
		t.Fatalf("a handle signed with the previous secret must still open: %v", err)
	}
	fresh, _ := rotated.Sign(claims, nil)
	if err := old.Open(fresh, claims, nil); err == nil {
		t.Fatal("a handle signed with the new secret opened with only the old one")
	}
}

func TestNewValidates(t *testing.T) {
	if _, err := handle.New([]byte("short")); err == nil {
		t.Error("a 5-byte secret was accepted")
	}
	if _, err := handle.New(secret, handle.WithPrevious([]byte("short"))); err == nil {
		t.Error("a short previous secret was accepted")
	}
	if _, err := handle.New(secret, handle.WithTTL(handle.MaxTTL+time.Second)); err == nil {
		t.Error("a TTL above 3600 s was accepted")
	}
	if _, err := handle.New(secret, handle.WithTTL(0)); err == nil {
		t.Error("a zero TTL was accepted")
	}
}

func TestSignBounds(t *testing.T) {
	s, _ := newSigner(t)
	if _, err := s.Sign(claims, strings.Repeat("x", 3000)); err == nil {
		t.Error("a 3000-byte state was signed; want the 2048-byte payload bound")
	}
	long := claims
	long.Resource = strings.Repeat("r", 257)
	if _, err := s.Sign(long, nil); err == nil {
		t.Error("a 257-byte claim was signed")
	}
	empty := claims
	empty.Principal = ""
	if _, err := s.Sign(empty, nil); err == nil {
		t.Error("an empty principal was signed")
	}
}

// FuzzOpen checks that nothing but an untouched handle from the same signer
// ever verifies: arbitrary strings, and any single mutation of a real one.
func FuzzOpen(f *testing.F) {
	// Fixed randomness and clock: the seed handle must be the same string
	// in every fuzz worker process.
	s, _ := newSigner(f, handle.WithRand(zeros{}))
	valid, err := s.Sign(claims, pageState{After: "doris_catalog", Snapshot: "s"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid, 0, byte(0))
	f.Add("mcp-h1..", 3, byte('A'))
	f.Add("mcp-h1.e30.AAAA", 1, byte('.'))
	f.Add(valid+".", 10, byte('='))
	f.Fuzz(func(t *testing.T, h string, pos int, b byte) {
		if h != valid {
			if err := s.Open(h, claims, nil); err == nil {
				t.Fatalf("a handle the signer never minted verified: %q", h)
			}
		}
		// Mutate the real handle at one position.
		if pos < 0 {
			pos = -pos
		}
		i := pos % len(valid)
		if valid[i] == b {
			return
		}
		m := []byte(valid)
		m[i] = b
		if bytes.Equal(m, []byte(valid)) {
			return
		}
		if err := s.Open(string(m), claims, nil); err == nil {
			t.Fatalf("a mutated handle verified: byte %d -> %q", i, b)
		}
	})
}

func ExampleSigner() {
	s, _ := handle.New([]byte("an operator secret of at least 32 bytes!"))
	c := handle.Claims{Kind: "list-page", Scope: "tools:list", Resource: "mcp://tools", Principal: "fingerprint"}
	h, _ := s.Sign(c, map[string]string{"after": "doris_catalog"})
	var state map[string]string
	err := s.Open(h, c, &state)
	fmt.Println(err, state["after"])
	c.Principal = "someone else"
	fmt.Println(s.Open(h, c, nil))
	// Output:
	// <nil> doris_catalog
	// handle: authorization_context_changed
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func with(f func(*handle.Claims)) handle.Claims {
	c := claims
	f(&c)
	return c
}

func flipLastMACByte(h string) string {
	b := []byte(h)
	last := len(b) - 2 // not the final char, whose low bits may be padding
	if b[last] == 'A' {
		b[last] = 'B'
	} else {
		b[last] = 'A'
	}
	return string(b)
}

// editPayload decodes the payload, replaces old by new and re-encodes it,
// keeping the original MAC: an attacker's edit.
func editPayload(t *testing.T, h, old, new string) string {
	t.Helper()
	parts := strings.Split(h, ".")
	body, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(body), old, new, 1)
	if edited == string(body) {
		t.Fatalf("payload %s has no %q", body, old)
	}
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(edited))
	return strings.Join(parts, ".")
}

func BenchmarkSignOpen(b *testing.B) {
	s, _ := newSigner(b)
	b.ReportAllocs()
	for b.Loop() {
		h, err := s.Sign(claims, pageState{After: "doris_query", Snapshot: "0123456789abcdef"})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Open(h, claims, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUnverifiedAfterRestart: a handle signed under another secret (a
// server that restarted with a random one, or whose secret changed) is
// invalid and marked Unverified, so callers say "start the list again";
// a malformed handle is invalid but not Unverified.
func TestUnverifiedAfterRestart(t *testing.T) {
	before, err := handle.New([]byte("the-secret-before-the-restart-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	after, err := handle.New([]byte("the-secret-after-the-restart-9876543210"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := before.Sign(claims, nil)
	if err != nil {
		t.Fatal(err)
	}
	var he *handle.Error
	if err := after.Open(h, claims, nil); !errors.As(err, &he) || he.Reason != handle.ReasonInvalid || !he.Unverified {
		t.Fatalf("old secret's handle: got %#v, want invalid and unverified", err)
	}
	if err := after.Open("not-a-handle", claims, nil); !errors.As(err, &he) || he.Unverified {
		t.Fatalf("malformed handle: got %#v, want invalid, not unverified", err)
	}
	if !strings.Contains(handle.Restarted, "the server restarted or its secret changed: start the list again") {
		t.Fatalf("Restarted = %q", handle.Restarted)
	}
}
