package dorisoauth

import (
	"cmp"
	"errors"
	"slices"
	"sync"
)

// The ledger is what replicas must agree on without a shared store: for
// each token family (one per sign-in), the generation and token id of its
// newest access/refresh pair, or that it is revoked.
//
// Entries are combined by join, which replicas apply to what they receive
// in any order, any number of times:
//
//	revoked  > anything
//	higher generation > lower generation
//	same generation, different token ids -> revoked (a code or refresh
//	token was used twice: RFC 6749 §4.1.2 and §10.4 say revoke)
//
// and an entry's expiry is the later of the two. Join is commutative,
// idempotent and monotone (it never lowers a generation or undoes a
// revocation), so replicas that exchange their entries converge on one
// state. It is not associative in one case: a fork at generation g that
// arrives after generation g+1 is already known is not seen as a fork.
// The branch that fell behind is caught at its next use instead: its
// tokens are superseded, and using its refresh token revokes the family. An entry lives only as
// long as the tokens it speaks about; the ledger holds at most maxEntries,
// and when full it forgets the unrevoked entry closest to expiry first (a
// forgotten entry loses reuse detection for one family, never a
// revocation). Each change gets a local sequence number, so peers can
// pull what changed since they last asked (peers.go).

// maxLedgerEntries bounds the ledger.
const maxLedgerEntries = 200_000

// entry is one family's state.
type entry struct {
	Gen     uint32 `json:"g"`
	JTI     string `json:"j,omitempty"`
	Revoked bool   `json:"r,omitempty"`
	Exp     int64  `json:"e"` // unix seconds; drop after
	seq     uint64
}

// wireEntry is an entry as peers exchange it.
type wireEntry struct {
	Family string `json:"f"`
	entry
}

// join returns the least upper bound of a and b.
func join(a, b entry) entry {
	out := a
	out.Exp = max(a.Exp, b.Exp)
	switch {
	case a.Revoked || b.Revoked:
		out.Revoked, out.JTI = true, ""
		out.Gen = max(a.Gen, b.Gen)
	case a.Gen != b.Gen:
		if b.Gen > a.Gen {
			out.Gen, out.JTI = b.Gen, b.JTI
		}
	case a.JTI != b.JTI:
		out.Revoked, out.JTI = true, ""
	}
	return out
}

func sameState(a, b entry) bool {
	return a.Gen == b.Gen && a.JTI == b.JTI && a.Revoked == b.Revoked && a.Exp == b.Exp
}

// ledger is a replica's copy. It is safe for concurrent use.
type ledger struct {
	mu  sync.Mutex // protects m, seq
	m   map[string]*entry
	seq uint64
	max int
}

func newLedger(max int) *ledger { return &ledger{m: map[string]*entry{}, max: max} }

// Why a family's token is refused.
var (
	errRevoked    = errors.New("the token's sign-in was revoked")
	errSuperseded = errors.New("the token was replaced by a newer one")
	errReused     = errors.New("the token was already used; its sign-in is revoked")
	errLedgerFull = errors.New("too many active sign-ins on this replica")
)

// check reports whether a token of generation gen with token id jti is
// still current: its family is not revoked and no newer pair, nor another
// pair of the same generation, is known. An unknown family is current
// (another replica may have issued it).
func (l *ledger) check(family string, gen uint32, jti string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[family]
	switch {
	case !ok:
		return nil
	case e.Revoked:
		return errRevoked
	case e.Gen > gen:
		return errSuperseded
	case e.Gen == gen && e.JTI != jti:
		return errRevoked
	}
	return nil
}

// begin records the first pair of a family, from an authorization code.
// A family already known means the code was used before: the family is
// revoked (with every token issued from it) and errReused returned.
func (l *ledger) begin(family, jti string, exp, revokeExp int64) (wireEntry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.m[family]; ok {
		return l.setLocked(family, join(*e, entry{Revoked: true, Exp: revokeExp})), errReused
	}
	if !l.roomLocked() {
		return wireEntry{}, errLedgerFull
	}
	return l.setLocked(family, entry{Gen: 1, JTI: jti, Exp: exp}), nil
}

// rotate replaces the pair (gen, jti) of a family with (gen+1, next), for
// a refresh. If the presented pair is not current, a superseded pair
// means the refresh token was used twice: the family is revoked.
func (l *ledger) rotate(family string, gen uint32, jti, next string, exp, revokeExp int64) (wireEntry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.m[family]
	if ok {
		switch {
		case e.Revoked:
			return wireEntry{}, errRevoked
		case e.Gen > gen || (e.Gen == gen && e.JTI != jti):
			return l.setLocked(family, join(*e, entry{Revoked: true, Exp: revokeExp})), errReused
		}
	} else if !l.roomLocked() {
		return wireEntry{}, errLedgerFull
	}
	cur := entry{}
	if ok {
		cur = *e
	}
	return l.setLocked(family, join(cur, entry{Gen: gen + 1, JTI: next, Exp: exp})), nil
}

// revoke marks a family revoked until exp.
func (l *ledger) revoke(family string, exp int64) wireEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := entry{}
	if e, ok := l.m[family]; ok {
		cur = *e
	}
	return l.setLocked(family, join(cur, entry{Revoked: true, Exp: exp}))
}

// merge joins entries received from a peer; it returns how many changed
// this replica's state.
func (l *ledger) merge(in []wireEntry, now int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	changed := 0
	for _, w := range in {
		if w.Family == "" || len(w.Family) > 64 || len(w.JTI) > 64 || w.Exp <= now {
			continue
		}
		e, ok := l.m[w.Family]
		if !ok {
			if !l.roomLocked() && !w.Revoked {
				continue
			}
			l.setLocked(w.Family, entry{Gen: w.Gen, JTI: w.JTI, Revoked: w.Revoked, Exp: w.Exp})
			changed++
			continue
		}
		j := join(*e, w.entry)
		if !sameState(j, *e) {
			l.setLocked(w.Family, j)
			changed++
		}
	}
	return changed
}

// since returns up to limit entries changed after seq, in sequence order,
// and the sequence to ask from next time.
func (l *ledger) since(seq uint64, limit int) ([]wireEntry, uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []wireEntry
	for f, e := range l.m {
		if e.seq > seq {
			out = append(out, wireEntry{Family: f, entry: *e})
		}
	}
	sortBySeq(out)
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	next := l.seq
	if more {
		next = out[len(out)-1].seq
	}
	return out, next, more
}

// sweep drops entries whose tokens have all expired.
func (l *ledger) sweep(now int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for f, e := range l.m {
		if e.Exp <= now {
			delete(l.m, f)
		}
	}
}

// len is the number of families held.
func (l *ledger) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

func (l *ledger) setLocked(family string, e entry) wireEntry {
	l.seq++
	e.seq = l.seq
	l.m[family] = &e
	return wireEntry{Family: family, entry: e}
}

// roomLocked makes room for one more entry if the ledger is full, by
// forgetting the unrevoked entry that expires first among a random sample
// of 64 unrevoked entries (map order is random). It reports whether there
// is room: not when every entry is a revocation.
func (l *ledger) roomLocked() bool {
	if len(l.m) < l.max {
		return true
	}
	victim, n := "", 0
	var victimExp int64
	for f, e := range l.m {
		if e.Revoked {
			continue
		}
		if victim == "" || e.Exp < victimExp {
			victim, victimExp = f, e.Exp
		}
		if n++; n >= 64 {
			break
		}
	}
	if victim == "" {
		return false
	}
	delete(l.m, victim)
	return true
}

func sortBySeq(es []wireEntry) {
	slices.SortFunc(es, func(a, b wireEntry) int { return cmp.Compare(a.seq, b.seq) })
}
