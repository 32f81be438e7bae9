package mcp

import (
	"errors"

	"github.com/doris-mcp/doris-mcp-server/handle"
)

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
	lo, hi, next, perr := s.opts.Handles.Page(claims, cursor, n, s.opts.PageSize, id)
	if perr != nil {
		var he *handle.Error
		if errors.As(perr, &he) {
			e := invalidCursor(he.Reason)
			if he.Unverified {
				e.Message = "invalid cursor: " + handle.Restarted
			}
			return 0, 0, "", e
		}
		s.log.Error("cursor signing failed", "err", perr)
		return 0, 0, "", errorf(CodeInternalError, "internal error")
	}
	return lo, hi, next, nil
}

func invalidCursor(reason string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid cursor", Data: map[string]any{"cursorError": reason}}
}
