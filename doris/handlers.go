package doris

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strconv"

	"github.com/doris-mcp/doris-mcp-server/handle"
)

// DecodeArgs decodes validated arguments into a typed struct. The schema
// has already refused unknown and case-variant members.
func DecodeArgs(c *Call, v any) error {
	if err := json.Unmarshal(c.Args, v); err != nil {
		return &Error{Kind: KindArguments, Reason: "ARGUMENTS_INVALID", Status: 400, Message: "the arguments could not be decoded", Cause: err}
	}
	return nil
}

// Glob matches name against an fnmatch-style pattern (* ? [...]); an empty
// pattern matches everything.
func Glob(prefix, pattern, name string) (bool, error) {
	if pattern == "" {
		return true, nil
	}
	ok, err := path.Match(pattern, name)
	if err != nil {
		return false, ArgError(prefix, "PATTERN_INVALID", "pattern is not a valid glob (use *, ? and [...])")
	}
	return ok, nil
}

// pageSize is the number of items per page of catalog collections.
const pageSize = 100

// Page returns one page of items (already sorted) and the cursor of the
// next, through the server's one pager (handle.Signer.Page). The cursor is
// bound to the caller, the child and the other arguments; it fails as
// stale when the list changed.
func (r *Runtime) Page(c *Call, prefix string, items []map[string]any, key func(map[string]any) string, cursor string) ([]map[string]any, *string, error) {
	claims, err := pageClaims(c)
	if err != nil {
		return nil, nil, err
	}
	lo, hi, next, err := r.handles.Page(claims, cursor, len(items), pageSize, func(i int) string { return key(items[i]) })
	if err != nil {
		var he *handle.Error
		switch {
		case errors.As(err, &he) && he.Unverified:
			return nil, nil, ArgError(prefix, "PAGE_CURSOR_INVALID", "page cursor no longer opens: "+handle.Restarted+" without page")
		case errors.As(err, &he) && he.Reason == handle.ReasonStale:
			return nil, nil, ArgError(prefix, "PAGE_CURSOR_STALE", "page cursor is stale: the list changed since it was issued; start again without page")
		case errors.As(err, &he):
			return nil, nil, ArgError(prefix, "PAGE_CURSOR_INVALID", "page is not a cursor this server issued for these arguments and this caller ("+he.Reason+"); start again without page")
		}
		return nil, nil, err
	}
	var nextp *string
	if next != "" {
		nextp = &next
	}
	return items[lo:hi], nextp, nil
}

func pageClaims(c *Call) (handle.Claims, error) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return handle.Claims{}, err
	}
	delete(args, "page")
	canon, _ := json.Marshal(args) // map keys marshal sorted
	sum := sha256.Sum256(canon)
	return handle.Claims{
		Kind:      "child-list-page",
		Scope:     "child:page:" + c.Domain + ":" + c.Child,
		Resource:  "mcp://" + c.Domain + "/" + c.Child + "/" + hex.EncodeToString(sum[:8]),
		Principal: c.Identity.Fingerprint(),
	}, nil
}

// Collection is the data of a Collection child.
type Collection struct {
	Items      []map[string]any `json:"items"`
	NextCursor *string          `json:"next_cursor"`
	Truncated  bool             `json:"truncated"`
}

func AtoiOrNil(s string) any {
	if s == "" {
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n
	}
	return nil
}

func StrOrNil(s string, valid bool) any {
	if !valid {
		return nil
	}
	return s
}

func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
