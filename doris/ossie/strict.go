package ossie

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// decodeLimits bound one document.
type decodeLimits struct {
	maxDepth  int
	maxString int
}

// decodeStrict parses one JSON document into a tree of map[string]any,
// []any, string, json.Number, bool and nil, refusing what a lenient decoder
// would let through: invalid UTF-8 or a byte-order mark, control
// characters (raw or escaped) and bidirectional overrides, NaN and
// Infinity, numbers beyond float64, duplicate member names, nesting deeper
// than maxDepth, strings and names longer than maxString bytes, and
// anything after the first value. file names the document in errors.
func decodeStrict(file string, data []byte, lim decodeLimits) (any, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) || !utf8.Valid(data) {
		return nil, fail(ReasonEncoding, file, "the file is not UTF-8 without a byte-order mark")
	}
	if err := prescan(file, data); err != nil {
		return nil, err
	}
	d := &strictDecoder{file: file, dec: json.NewDecoder(bytes.NewReader(data)), lim: lim}
	d.dec.UseNumber()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	switch _, err := d.dec.Token(); {
	case errors.Is(err, io.EOF):
		return v, nil
	case err == nil:
		return nil, fail(ReasonMultipleDocuments, file, "the file holds more than one JSON document")
	default:
		return nil, fail(ReasonModelInvalid, file, "the file is not valid JSON after its first document")
	}
}

// prescan finds what json.Decoder would report only as a syntax error, so
// that it gets its own reason: raw control characters anywhere, and the
// non-standard literals NaN and Infinity outside strings.
func prescan(file string, data []byte) error {
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return fail(ReasonControl, file, "a control character appears at byte %d", i)
		}
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == 'N' || c == 'I'):
			rest := data[i:]
			if bytes.HasPrefix(rest, []byte("NaN")) || bytes.HasPrefix(rest, []byte("Infinity")) {
				return fail(ReasonNonFinite, file, "a non-finite number (NaN or Infinity) appears at byte %d", i)
			}
		}
	}
	return nil
}

type strictDecoder struct {
	file string
	dec  *json.Decoder
	lim  decodeLimits
}

func (d *strictDecoder) invalid() error {
	return fail(ReasonModelInvalid, d.file, "the file is not valid JSON")
}

func (d *strictDecoder) value(depth int) (any, error) {
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.invalid()
	}
	switch t := tok.(type) {
	case json.Delim:
		if t != '{' && t != '[' {
			return nil, d.invalid()
		}
		if depth+1 > d.lim.maxDepth {
			return nil, fail(ReasonNesting, d.file, "objects and arrays nest deeper than %d levels (OSSIE_MAX_DEPTH)", d.lim.maxDepth)
		}
		if t == '[' {
			return d.array(depth + 1)
		}
		return d.object(depth + 1)
	case string:
		return t, d.checkString(t)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fail(ReasonNonFinite, d.file, "a number is outside the range of a 64-bit float")
		}
		return t, nil
	case bool, nil:
		return t, nil
	}
	return nil, d.invalid()
}

func (d *strictDecoder) object(depth int) (any, error) {
	m := map[string]any{}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return nil, d.invalid()
		}
		key, ok := tok.(string)
		if !ok {
			return nil, d.invalid()
		}
		if err := d.checkString(key); err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, fail(ReasonDuplicateKey, d.file, "the member %q appears twice in one object", clip(key))
		}
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
	}
	if tok, err := d.dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, d.invalid()
	}
	return m, nil
}

func (d *strictDecoder) array(depth int) (any, error) {
	a := []any{}
	for d.dec.More() {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	if tok, err := d.dec.Token(); err != nil || tok != json.Delim(']') {
		return nil, d.invalid()
	}
	return a, nil
}

// checkString bounds a decoded string and refuses the characters a raw
// scan cannot see because they were escaped: C0 and C1 controls other
// than tab, newline and carriage return, DEL, and the bidirectional
// override and isolate controls that can make text read differently from
// what it is.
func (d *strictDecoder) checkString(s string) error {
	if len(s) > d.lim.maxString {
		return fail(ReasonString, d.file, "a string of %d bytes exceeds %d (OSSIE_MAX_STRING_BYTES)", len(s), d.lim.maxString)
	}
	for _, r := range s {
		if badRune(r) {
			return fail(ReasonControl, d.file, "a string contains the control character U+%04X", r)
		}
	}
	return nil
}

func badRune(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n' && r != '\r'
	case r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
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
