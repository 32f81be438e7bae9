package ossie

import (
	"errors"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// decodeLimits bound one document.
type decodeLimits struct {
	maxDepth  int
	maxString int
}

// decodeStrict parses one JSON document with the one strict decoder
// (doris/schema) into a tree of map[string]any, []any, string,
// json.Number, bool and nil, refusing what a lenient decoder would let
// through: invalid UTF-8 or a byte-order mark, control characters (raw or
// escaped) and bidirectional overrides, NaN and Infinity, numbers beyond
// float64, duplicate member names, nesting deeper than maxDepth, strings
// and names longer than maxString bytes, and anything after the first
// value. file names the document in errors.
func decodeStrict(file string, data []byte, lim decodeLimits) (any, error) {
	var v any
	err := schema.Decode(data, &v, schema.Strict{MaxDepth: lim.maxDepth, MaxString: lim.maxString,
		Text: true, Finite: true, Numbers: true})
	if err == nil {
		return v, nil
	}
	var e *schema.Error
	if !errors.As(err, &e) {
		return nil, fail(ReasonModelInvalid, file, "the file is not valid JSON")
	}
	switch e.Reason {
	case schema.Encoding:
		return nil, fail(ReasonEncoding, file, "the file is not UTF-8 without a byte-order mark")
	case schema.Control:
		return nil, fail(ReasonControl, file, "a control character appears at byte %d", e.Offset)
	case schema.NonFinite:
		if c := byteAt(data, e.Offset); c == 'N' || c == 'I' || c == '-' && e.Offset+1 < len(data) && data[e.Offset+1] == 'I' {
			return nil, fail(ReasonNonFinite, file, "a non-finite number (NaN or Infinity) appears at byte %d", e.Offset)
		}
		return nil, fail(ReasonNonFinite, file, "a number is outside the range of a 64-bit float")
	case schema.TooDeep:
		return nil, fail(ReasonNesting, file, "objects and arrays nest deeper than %d levels (OSSIE_MAX_DEPTH)", lim.maxDepth)
	case schema.TooLong:
		return nil, fail(ReasonString, file, "a string at byte %d exceeds %d bytes (OSSIE_MAX_STRING_BYTES)", e.Offset, lim.maxString)
	case schema.Duplicate:
		return nil, fail(ReasonDuplicateKey, file, "the member %q appears twice in one object", clip(e.Name))
	case schema.Trailing:
		if e.Another {
			return nil, fail(ReasonMultipleDocuments, file, "the file holds more than one JSON document")
		}
		return nil, fail(ReasonModelInvalid, file, "the file is not valid JSON after its first document")
	}
	return nil, fail(ReasonModelInvalid, file, "the file is not valid JSON")
}

// clip shortens a member name for an error message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func byteAt(b []byte, i int) byte {
	if i < 0 || i >= len(b) {
		return 0
	}
	return b[i]
}
