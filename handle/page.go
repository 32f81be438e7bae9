package handle

import (
	"crypto/sha256"
	"encoding/hex"
)

// ReasonStale means the list a page cursor was cut from has changed since,
// so continuing would skip or repeat entries.
const ReasonStale = "stale"

// pageState is what a page cursor carries: the identifier of the last
// entry served and a digest of the whole list it was served from.
type pageState struct {
	After    string `json:"after"`
	Snapshot string `json:"snapshot"`
}

// Page cuts one page of at most size entries from a sorted list of n
// entries, where id(i) names entry i: [lo, hi) is the page the cursor
// points at (the first page for an empty cursor), and next is the cursor
// of the page after it ("" on the last page). The cursor is a handle
// bound to c and to a digest of every identifier in the list, so a
// cursor over a list that changed since fails with ReasonStale, and any
// other bad cursor with the reason Open gives. This is the one pager of
// the server: protocol lists and paged children both use it.
func (s *Signer) Page(c Claims, cursor string, n, size int, id func(int) string) (lo, hi int, next string, err error) {
	snapshot := listDigest(n, id)
	if cursor != "" {
		var st pageState
		if err := s.Open(cursor, c, &st); err != nil {
			return 0, 0, "", err
		}
		if st.Snapshot != snapshot {
			return 0, 0, "", &Error{Reason: ReasonStale}
		}
		lo = -1
		for i := 0; i < n; i++ {
			if id(i) == st.After {
				lo = i + 1
				break
			}
		}
		if lo < 0 {
			return 0, 0, "", &Error{Reason: ReasonStale}
		}
	}
	hi = min(lo+max(size, 1), n)
	if hi < n {
		if next, err = s.Sign(c, pageState{After: id(hi - 1), Snapshot: snapshot}); err != nil {
			return 0, 0, "", err
		}
	}
	return lo, hi, next, nil
}

// listDigest is a short hash of the ordered identifiers.
func listDigest(n int, id func(int) string) string {
	h := sha256.New()
	for i := 0; i < n; i++ {
		h.Write([]byte(id(i)))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
