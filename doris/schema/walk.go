package schema

import (
	"errors"
	"strconv"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
)

// The walk functions read JSON in place: they hand out sub-slices of the
// input, never copies, and decode a value only when it is used. They
// expect a document Check has accepted: they skip over values without
// reading them through, so on malformed input they return ErrSyntax where
// they notice it and may read what they do not notice leniently.

// ErrSyntax reports JSON the walk functions cannot read.
var ErrSyntax = errors.New("schema: malformed JSON")

// Kind is the JSON type of a value, from its first byte.
type Kind byte

// JSON kinds.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

func (k Kind) String() string {
	return [...]string{"invalid", "null", "boolean", "number", "string", "array", "object"}[k]
}

// KindOf returns the kind of the value starting at v[0] (after any
// whitespace).
func KindOf(v []byte) Kind {
	v = trimSpace(v)
	if len(v) == 0 {
		return Invalid
	}
	switch c := v[0]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Bool
	case c == 'n':
		return Null
	case c == '-' || c >= '0' && c <= '9':
		return Number
	}
	return Invalid
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// valueEnd returns the index just past the value starting at b[i].
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch c := b[i]; c {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e, err := stringEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, ErrSyntax
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
			j++
		}
		if j == i {
			return 0, ErrSyntax
		}
		return j, nil
	}
}

// stringEnd returns the index just past the string starting at b[i] ('"').
func stringEnd(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, ErrSyntax
}

// Members calls f for each member of the object obj, in document order,
// with the member's name decoded and its value as a sub-slice of obj.
// Short names are interned (see memberName): the names a program reads
// again and again cost no allocation after the first time.
// It stops at the first error f returns and returns it.
func Members(obj []byte, f func(name string, value []byte) error) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return ErrSyntax
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return ErrSyntax
		}
		e, err := stringEnd(obj, i)
		if err != nil {
			return err
		}
		name, ok := memberName(obj[i:e])
		if !ok {
			return ErrSyntax
		}
		i = skipSpace(obj, e)
		if i >= len(obj) || obj[i] != ':' {
			return ErrSyntax
		}
		i = skipSpace(obj, i+1)
		ve, err := valueEnd(obj, i)
		if err != nil {
			return err
		}
		if err := f(name, obj[i:ve]); err != nil {
			return err
		}
		i = skipSpace(obj, ve)
		if i >= len(obj) {
			return ErrSyntax
		}
		if obj[i] == '}' {
			return nil
		}
		if obj[i] != ',' {
			return ErrSyntax
		}
		i = skipSpace(obj, i+1)
	}
}

// Elements calls f for each element of the array arr, with its index.
func Elements(arr []byte, f func(i int, value []byte) error) error {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return ErrSyntax
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return nil
	}
	for n := 0; ; n++ {
		ve, err := valueEnd(arr, i)
		if err != nil {
			return err
		}
		if err := f(n, arr[i:ve]); err != nil {
			return err
		}
		i = skipSpace(arr, ve)
		if i >= len(arr) {
			return ErrSyntax
		}
		if arr[i] == ']' {
			return nil
		}
		if arr[i] != ',' {
			return ErrSyntax
		}
		i = skipSpace(arr, i+1)
	}
}

// Str decodes a JSON string value. Strings without escapes (nearly all
// names and most values) are returned without a decoder. It is strict
// where encoding/json is lenient: invalid UTF-8, lone surrogate escapes
// and raw control characters make it fail instead of becoming U+FFFD.
func Str(v []byte) (string, bool) {
	v = trimSpace(v)
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	inner := v[1 : len(v)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c == '"' {
			plain = false
			break
		}
	}
	if plain {
		if !utf8.Valid(inner) {
			return "", false
		}
		return string(inner), true
	}
	return unescape(inner)
}

// unescape decodes the inside of a JSON string with escapes.
func unescape(in []byte) (string, bool) {
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"' || c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			continue
		}
		i++
		if i >= len(in) {
			return "", false
		}
		switch in[i] {
		case '"', '\\', '/':
			out = append(out, in[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(in, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || i+6 >= len(in) || in[i+1] != '\\' || in[i+2] != 'u' {
					return "", false
				}
				r2, ok := hex4(in, i+3)
				if !ok || r2 < 0xdc00 || r2 > 0xdfff {
					return "", false
				}
				r = utf16.DecodeRune(r, r2)
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	if !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Num decodes a JSON number value.
func Num(v []byte) (float64, bool) {
	v = trimSpace(v)
	if KindOf(v) != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		var ne *strconv.NumError
		// A number too large for float64 is still a number.
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// AppendString appends s as a JSON string, byte for byte what
// encoding/json writes (HTML-safe escapes, U+2028 and U+2029 escaped,
// invalid UTF-8 as U+FFFD), without allocating.
func AppendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// The intern table maps short member names to one string each, so that
// decoding a name the process has seen before allocates nothing. It knows
// no names: it fills with whatever names are read, a name taking the slot
// its hash picks and keeping it until another name needing that slot
// replaces it. A slot holds an immutable string; loads and stores are
// atomic, so the table is safe for concurrent use without locks.
const (
	internSlots   = 1024 // a power of two
	internMaxName = 64
)

var internTable [internSlots]atomic.Pointer[string]

// memberName decodes a member name (a JSON string token), interned when
// it is short and has no escapes.
func memberName(tok []byte) (string, bool) {
	if len(tok) < 2 || len(tok) > internMaxName+2 || tok[0] != '"' || tok[len(tok)-1] != '"' {
		return Str(tok)
	}
	inner := tok[1 : len(tok)-1]
	h := uint32(2166136261) // FNV-1a
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c == '"' || c >= utf8.RuneSelf {
			return Str(tok)
		}
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &internTable[h&(internSlots-1)]
	if p := slot.Load(); p != nil && *p == string(inner) {
		return *p, true
	}
	s := string(inner)
	slot.Store(&s)
	return s, true
}
