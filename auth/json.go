package auth

import (
	"errors"
	"fmt"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// maxJSONDepth bounds the nesting of every security document.
const maxJSONDepth = 64

// decodeStrict decodes one JSON document into v with the one strict
// decoder (doris/schema): duplicate keys at any depth, keys that differ
// only in case from a member of v, unknown members (when known is set and
// v is a struct), invalid UTF-8, nesting beyond 64 levels and trailing
// data are all refused. The standard decoder keeps the last of two
// duplicate keys, matches keys without regard to case and ignores unknown
// ones; for security documents (tokens files, JOSE headers and claims, key
// sets) two parsers reading one text differently is how checks are
// bypassed, so all of these are errors here.
func decodeStrict(b []byte, v any, known bool) error {
	err := schema.Decode(b, v, schema.Strict{MaxDepth: maxJSONDepth, Known: known})
	var se *schema.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.Reason {
	case schema.Duplicate:
		return fmt.Errorf("duplicate key %q", truncateString(se.Name, 64))
	case schema.CaseVariant:
		return fmt.Errorf("key %q differs only in case from a known key", truncateString(se.Name, 64))
	case schema.Unknown:
		return fmt.Errorf("json: unknown field %q", truncateString(se.Name, 64))
	case schema.TooDeep:
		return fmt.Errorf("JSON nested deeper than %d levels", maxJSONDepth)
	case schema.Trailing:
		return errors.New("trailing data after the JSON value")
	}
	return se
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
