package mcp

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// strictCheck validates that b is exactly one JSON value that the decoders
// downstream (encoding/json here, doris/schema in catalog) will all
// read the same way:
//
//   - RFC 8259 grammar, nothing but whitespace after the value;
//   - valid UTF-8 everywhere, no lone UTF-16 surrogates in escapes;
//   - no duplicate member names in any object, compared after unescaping
//     (so {"a":1,"\u0061":2} is a duplicate);
//   - nesting at most maxDepth objects and arrays deep.
//
// It runs in one pass, linear in len(b), and allocates only for objects
// with many members or escaped names.
func strictCheck(b []byte, maxDepth int) error {
	s := scanner{b: b, maxDepth: maxDepth}
	s.skipSpace()
	if err := s.value(0); err != nil {
		return err
	}
	s.skipSpace()
	if s.i != len(s.b) {
		return s.errorf("unexpected data after the JSON value")
	}
	return nil
}

// syntaxError is a strict-decoding failure at a byte offset. Its text never
// contains input bytes.
type syntaxError struct {
	Offset int
	Msg    string
	// Depth reports that the nesting bound, not the grammar, failed.
	Depth bool
	// Duplicate reports a repeated member name.
	Duplicate bool
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset) }

type scanner struct {
	b        []byte
	i        int
	maxDepth int
}

func (s *scanner) errorf(format string, args ...any) *syntaxError {
	return &syntaxError{Offset: s.i, Msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) error {
	if s.i >= len(s.b) {
		return s.errorf("unexpected end of JSON input")
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, err := s.str(false)
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	default:
		return s.errorf("invalid character")
	}
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return s.errorf("invalid literal")
	}
	s.i += len(lit)
	return nil
}

func (s *scanner) enter(depth int) error {
	if depth > s.maxDepth {
		e := s.errorf("JSON nested deeper than %d levels", s.maxDepth)
		e.Depth = true
		return e
	}
	return nil
}

func (s *scanner) object(depth int) error {
	if err := s.enter(depth); err != nil {
		return err
	}
	s.i++ // {
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	var small [8]string
	names := small[:0]
	var many map[string]struct{}
	for {
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.errorf("expected a member name")
		}
		at := s.i
		name, err := s.str(true)
		if err != nil {
			return err
		}
		if many != nil {
			if _, dup := many[name]; dup {
				return duplicate(at)
			}
			many[name] = struct{}{}
		} else {
			for _, n := range names {
				if n == name {
					return duplicate(at)
				}
			}
			names = append(names, name)
			if len(names) > len(small) {
				many = make(map[string]struct{}, 2*len(names))
				for _, n := range names {
					many[n] = struct{}{}
				}
			}
		}
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.errorf("expected ':' after a member name")
		}
		s.i++
		s.skipSpace()
		if err := s.value(depth); err != nil {
			return err
		}
		s.skipSpace()
		if s.i >= len(s.b) {
			return s.errorf("unexpected end of JSON input")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.errorf("expected ',' or '}' in an object")
		}
	}
}

func duplicate(at int) error {
	return &syntaxError{Offset: at, Msg: "duplicate member name", Duplicate: true}
}

func (s *scanner) array(depth int) error {
	if err := s.enter(depth); err != nil {
		return err
	}
	s.i++ // [
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		s.skipSpace()
		if err := s.value(depth); err != nil {
			return err
		}
		s.skipSpace()
		if s.i >= len(s.b) {
			return s.errorf("unexpected end of JSON input")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.errorf("expected ',' or ']' in an array")
		}
	}
}

// str scans a string starting at the opening quote. When want is true it
// returns the unescaped value (used for member names).
func (s *scanner) str(want bool) (string, error) {
	s.i++ // opening quote
	start := s.i
	var buf []byte // unescaped value, only once an escape is seen
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if !want {
				return "", nil
			}
			if !escaped {
				if name, ok := schema.CommonName(raw); ok {
					return name, nil
				}
				return string(raw), nil
			}
			return string(buf), nil
		case c == '\\':
			if want && !escaped {
				buf = append(buf, s.b[start:s.i]...)
			}
			escaped = true
			r, err := s.escape()
			if err != nil {
				return "", err
			}
			if want {
				buf = utf8.AppendRune(buf, r)
			}
		case c < 0x20:
			return "", s.errorf("control character in a string")
		case c < utf8.RuneSelf:
			if want && escaped {
				buf = append(buf, c)
			}
			s.i++
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size <= 1 {
				return "", s.errorf("invalid UTF-8 in a string")
			}
			if want && escaped {
				buf = append(buf, s.b[s.i:s.i+size]...)
			}
			s.i += size
		}
	}
	return "", s.errorf("unterminated string")
}

// escape scans one backslash escape and returns the rune it denotes.
func (s *scanner) escape() (rune, error) {
	s.i++ // backslash
	if s.i >= len(s.b) {
		return 0, s.errorf("unterminated escape")
	}
	c := s.b[s.i]
	s.i++
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := s.hex4()
		if err != nil {
			return 0, err
		}
		if !utf16.IsSurrogate(r) {
			return r, nil
		}
		// A high surrogate must be followed by an escaped low surrogate.
		if r < 0xdc00 && s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
			s.i += 2
			r2, err := s.hex4()
			if err != nil {
				return 0, err
			}
			if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
				return p, nil
			}
		}
		return 0, s.errorf("lone UTF-16 surrogate in an escape")
	default:
		return 0, s.errorf("invalid escape")
	}
}

func (s *scanner) hex4() (rune, error) {
	if len(s.b)-s.i < 4 {
		return 0, s.errorf("short \\u escape")
	}
	v, err := strconv.ParseUint(string(s.b[s.i:s.i+4]), 16, 32)
	if err != nil {
		return 0, s.errorf("invalid \\u escape")
	}
	s.i += 4
	return rune(v), nil
}

func (s *scanner) number() error {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return s.errorf("invalid number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.errorf("invalid number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.errorf("invalid number")
		}
	}
	return nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}
