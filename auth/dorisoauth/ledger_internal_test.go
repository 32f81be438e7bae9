package dorisoauth

import (
	"math/rand/v2"
	"testing"
)

// TestJoin: join is commutative, idempotent and monotone (revocations are
// never undone, generations never lowered), and replicas that receive the
// same entries in different orders and then exchange their states end in
// one state.
func TestJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() entry {
		return entry{Gen: uint32(r.IntN(4)), JTI: []string{"", "a", "b"}[r.IntN(3)], Revoked: r.IntN(5) == 0, Exp: int64(r.IntN(100))}
	}
	for range 20000 {
		a, b := gen(), gen()
		if !sameState(join(a, b), join(b, a)) {
			t.Fatalf("join(%+v, %+v) is not commutative", a, b)
		}
		if j := join(a, a); !sameState(j, a) && !(a.Revoked && j.Revoked) {
			t.Fatalf("join(%+v, itself) = %+v", a, j)
		}
		j := join(a, b)
		if (a.Revoked || b.Revoked) && !j.Revoked {
			t.Fatalf("join(%+v, %+v) undid a revocation", a, b)
		}
		if j.Gen < max(a.Gen, b.Gen) || j.Exp < max(a.Exp, b.Exp) {
			t.Fatalf("join(%+v, %+v) = %+v lowered a generation or expiry", a, b, j)
		}
	}
	for range 2000 {
		in := make([]entry, 1+r.IntN(6))
		for i := range in {
			in[i] = gen()
		}
		states := make([]entry, 3)
		for k := range states {
			order := r.Perm(len(in))
			s := in[order[0]]
			for _, i := range order[1:] {
				s = join(s, in[i])
			}
			states[k] = s
		}
		for round := 0; round < 3; round++ { // gossip until stable
			for i := range states {
				for j := range states {
					states[i] = join(states[i], states[j])
				}
			}
		}
		for k := 1; k < len(states); k++ {
			if !sameState(states[k], states[0]) && !(states[k].Revoked && states[0].Revoked) {
				t.Fatalf("replicas diverged on %+v: %+v", in, states)
			}
		}
	}
}

// TestLedgerBound: a full ledger forgets unrevoked entries to make room,
// keeps every revocation, and refuses new families when only revocations
// are left.
func TestLedgerBound(t *testing.T) {
	l := newLedger(4)
	for i, f := range []string{"a", "b", "c"} {
		if _, err := l.begin(f, "j", int64(100+i), 1000); err != nil {
			t.Fatal(err)
		}
	}
	l.revoke("r", 1000)
	if _, err := l.begin("d", "j", 200, 1000); err != nil || l.len() != 4 {
		t.Fatalf("begin on a full ledger: %v, %d entries", err, l.len())
	}
	if err := l.check("r", 1, "j"); err != errRevoked {
		t.Fatalf("the revocation was forgotten: %v", err)
	}
	full := newLedger(2)
	full.revoke("x", 1000)
	full.revoke("y", 1000)
	if _, err := full.begin("z", "j", 100, 1000); err != errLedgerFull {
		t.Fatalf("a ledger of revocations took a new family: %v", err)
	}
}
