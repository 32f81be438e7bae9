package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/doris-mcp/doris-mcp-server/handle"
)

// pageState is the continuation state a list cursor carries: the last
// identifier served and a digest of the whole visible list, so a cursor
// over a list that changed fails as stale instead of skipping or repeating
// entries.
type pageState struct {
	After    string `json:"after"`
	Snapshot string `json:"snapshot"`
}

// paginate returns the half-open range [lo, hi) of the n sorted entries to
// serve for cursor, and the cursor of the next page ("" on the last page).
// An absent or empty cursor starts at the first entry.
func (s *Server) paginate(c *call, collection string, n int, id func(int) string, cursor string) (lo, hi int, next string, err *Error) {
	claims := handle.Claims{
		Kind:      "list-page",
		Scope:     collection + ":list",
		Resource:  "mcp://" + collection,
		Principal: c.id.Fingerprint(),
	}
	snapshot := digest(n, id)
	if cursor != "" {
		var st pageState
		if oerr := s.opts.Handles.Open(cursor, claims, &st); oerr != nil {
			reason := handle.ReasonInvalid
			var he *handle.Error
			if errors.As(oerr, &he) {
				reason = he.Reason
			}
			return 0, 0, "", invalidCursor(reason)
		}
		if st.Snapshot != snapshot {
			return 0, 0, "", invalidCursor("stale")
		}
		lo = n
		for i := 0; i < n; i++ {
			if id(i) == st.After {
				lo = i + 1
				break
			}
		}
		if lo == n && n > 0 && id(n-1) != st.After {
			return 0, 0, "", invalidCursor("stale")
		}
	}
	hi = min(lo+s.opts.PageSize, n)
	if hi < n {
		h, serr := s.opts.Handles.Sign(claims, pageState{After: id(hi - 1), Snapshot: snapshot})
		if serr != nil {
			s.log.Error("cursor signing failed", "err", serr)
			return 0, 0, "", errorf(CodeInternalError, "internal error")
		}
		next = h
	}
	return lo, hi, next, nil
}

func invalidCursor(reason string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid cursor", Data: map[string]any{"cursorError": reason}}
}

// digest is a short hash of the ordered identifiers.
func digest(n int, id func(int) string) string {
	h := sha256.New()
	for i := 0; i < n; i++ {
		h.Write([]byte(id(i)))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
