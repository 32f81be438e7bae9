package schema

import (
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Strict says what Check (and Decode) accept. Whatever it says, a
// document must be exactly one RFC 8259 value, in valid UTF-8, with no
// lone UTF-16 surrogate in an escape, nothing but whitespace after it, and
// no NaN or Infinity. The zero value adds: no member name twice in one
// object (names compared after unescaping, so {"a":1,"\u0061":2} repeats
// one) and nesting at most DefaultMaxDepth deep.
//
// Two parsers reading one text differently is how checks are bypassed:
// encoding/json keeps the last of two duplicate members and matches names
// without regard to case, other decoders do neither. Check refuses what
// they could disagree on before anything reads the document.
type Strict struct {
	// MaxBytes bounds the document; 0: no bound.
	MaxBytes int
	// MaxDepth bounds the nesting of objects and arrays; 0: DefaultMaxDepth.
	MaxDepth int
	// MaxString bounds one string or member name, in bytes once decoded;
	// 0: no bound.
	MaxString int
	// MaxValues bounds the values in the document (objects, arrays and
	// scalars alike); 0: no bound.
	MaxValues int
	// Duplicates allows a member name twice in one object.
	Duplicates bool
	// Text refuses, in strings and member names, raw or escaped, the
	// control characters other than tab, line feed and carriage return
	// (C0, DEL and C1) and the bidirectional override and isolate controls
	// that make text read differently from what it is.
	Text bool
	// Finite refuses numbers beyond the range of a float64 (1e999).
	Finite bool
	// Object requires the document to be an object.
	Object bool
	// Known (Decode only) refuses members that the target struct does not
	// declare; they are otherwise ignored.
	Known bool
	// Numbers (Decode only) decodes numbers into interface values as
	// json.Number, exactly as written, instead of float64.
	Numbers bool
}

// DefaultMaxDepth is the nesting bound when Strict.MaxDepth is 0. It is
// encoding/json's own bound: nothing deeper decodes there either.
const DefaultMaxDepth = 10000

// Reason classifies why Check or Decode refused a document.
type Reason uint8

// Reasons for refusing a document.
const (
	// Syntax: not RFC 8259 JSON.
	Syntax Reason = iota + 1
	// Encoding: invalid UTF-8, a byte-order mark, or a lone UTF-16
	// surrogate in an escape.
	Encoding
	// Control: a raw control character, or with Strict.Text a control or
	// bidirectional character in a string.
	Control
	// NonFinite: NaN or Infinity, or with Strict.Finite a number beyond
	// float64.
	NonFinite
	// Duplicate: a member name twice in one object.
	Duplicate
	// CaseVariant (Decode): a member name that differs only in case from a
	// member of the target struct, which encoding/json would read as that
	// member.
	CaseVariant
	// Unknown (Decode, with Strict.Known): a member the target struct does
	// not declare.
	Unknown
	// TooDeep: nesting beyond Strict.MaxDepth.
	TooDeep
	// TooLong: a string or member name beyond Strict.MaxString.
	TooLong
	// TooMany: more values than Strict.MaxValues.
	TooMany
	// TooLarge: a document beyond Strict.MaxBytes.
	TooLarge
	// Trailing: something other than whitespace after the value.
	Trailing
	// NotObject: with Strict.Object, a document that is another value.
	NotObject
)

// Error is a refusal by Check or Decode. Its text names the problem and
// the byte offset, never a byte of the document; Name and Path carry
// member names for callers that choose to show them.
type Error struct {
	Reason Reason
	// Offset is where in the document the problem is; -1 when Decode
	// found it walking a decoded name (CaseVariant, Unknown).
	Offset int
	// Msg says what is wrong.
	Msg string
	// Path leads from the document to the value the problem is in; for a
	// problem with a member name (Duplicate, CaseVariant, Unknown, TooLong
	// with InName) to the object holding it.
	Path []Step
	// InName reports a problem with a member name rather than a value.
	InName bool
	// Name is the member name in question (Duplicate, CaseVariant,
	// Unknown), unclipped.
	Name string
	// Limit is the bound that was exceeded (TooDeep, TooLong, TooMany,
	// TooLarge).
	Limit int
	// Another reports, for Trailing, that what follows the value is itself
	// a JSON value: the document holds more than one.
	Another bool
}

func (e *Error) Error() string {
	if e.Offset < 0 {
		return e.Msg
	}
	return e.Msg + " at byte " + strconv.Itoa(e.Offset)
}

// Step is one step of a path: a member name, or an index when Name is
// empty and Index >= 0.
type Step struct {
	Name  string
	Index int
}

// Check reports whether doc is one JSON value that s allows; its error is
// an *Error.
func Check(doc []byte, s Strict) error {
	if err := check(doc, s); err != nil {
		return err
	}
	return nil
}

// check returns a typed nil-able *Error so that callers inside the
// package need not assert.
func check(doc []byte, s Strict) *Error {
	if s.MaxBytes > 0 && len(doc) > s.MaxBytes {
		return &Error{Reason: TooLarge, Offset: s.MaxBytes, Msg: "document larger than " + strconv.Itoa(s.MaxBytes) + " bytes", Limit: s.MaxBytes}
	}
	sc := scanner{b: doc, s: s}
	if err := sc.document(); err != nil {
		// Scan again, keeping track of the path this time, to say where.
		tr := scanner{b: doc, s: s, trace: true}
		if e := tr.document(); e != nil && e.Offset == err.Offset && e.Reason == err.Reason {
			return e
		}
		return err
	}
	return nil
}

func (s *scanner) document() *Error {
	s.maxDepth = s.s.MaxDepth
	if s.maxDepth <= 0 {
		s.maxDepth = DefaultMaxDepth
	}
	doc := s.b
	s.skipSpace()
	if s.s.Object && s.i < len(doc) && doc[s.i] != '{' && valueStart(doc[s.i]) {
		return &Error{Reason: NotObject, Offset: s.i, Msg: "the document is not a JSON object"}
	}
	if err := s.value(0); err != nil {
		return err
	}
	s.skipSpace()
	if s.i != len(doc) {
		e := s.fail(Syntax, "unexpected data after the JSON value")
		e.Reason = Trailing
		// What follows is another document when a value can be read
		// there, whatever comes after that.
		next := scanner{b: doc, i: s.i, s: Strict{Duplicates: true}, maxDepth: DefaultMaxDepth}
		e.Another = next.value(0) == nil
		return e
	}
	return nil
}

func valueStart(c byte) bool {
	switch {
	case c == '{', c == '[', c == '"', c == 't', c == 'f', c == 'n', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}

// step is a path step while scanning: a decoded member name, or an array
// index.
type step struct {
	name    []byte
	index   int
	isIndex bool
}

// scanner reads one document. The first scan of a document keeps no path
// (it costs nothing that way); only when it fails does a second one with
// trace set record where it is, so that the error can say so.
type scanner struct {
	b        []byte
	i        int
	s        Strict
	maxDepth int
	values   int
	trace    bool
	path     []step
}

// fail builds an error at the current offset. A byte that makes the
// grammar fail is classified: a control character, invalid UTF-8 or a
// byte-order mark say more than "invalid character".
func (s *scanner) fail(r Reason, msg string) *Error {
	e := &Error{Reason: r, Offset: s.i, Msg: msg}
	if r == Syntax && s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c < 0x20 || c == 0x7f:
			e.Reason = Control
		case c >= utf8.RuneSelf:
			if s.i == 0 && len(s.b) >= 3 && string(s.b[:3]) == "\xef\xbb\xbf" {
				e.Reason = Encoding
			} else if u, size := utf8.DecodeRune(s.b[s.i:]); u == utf8.RuneError && size <= 1 {
				e.Reason = Encoding
			}
		}
	}
	e.Path = s.steps()
	return e
}

// steps copies the current path out of the scanner.
func (s *scanner) steps() []Step {
	if len(s.path) == 0 {
		return nil
	}
	out := make([]Step, len(s.path))
	for i, p := range s.path {
		if p.isIndex {
			out[i] = Step{Index: p.index}
		} else {
			out[i] = Step{Name: string(p.name), Index: -1}
		}
	}
	return out
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

func (s *scanner) value(depth int) *Error {
	if s.i >= len(s.b) {
		return s.fail(Syntax, "unexpected end of JSON input")
	}
	s.values++
	c := s.b[s.i]
	if (c == '{' || c == '[') && depth+1 > s.maxDepth {
		e := s.fail(TooDeep, "JSON nested deeper than "+strconv.Itoa(s.maxDepth)+" levels")
		e.Limit = s.maxDepth
		return e
	}
	if s.s.MaxValues > 0 && s.values > s.s.MaxValues {
		e := s.fail(TooMany, "more than "+strconv.Itoa(s.s.MaxValues)+" JSON values")
		e.Limit = s.s.MaxValues
		return e
	}
	switch {
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
	case c == 'N' || c == 'I':
		return s.fail(NonFinite, "invalid character")
	default:
		return s.fail(Syntax, "invalid character")
	}
}

func (s *scanner) literal(lit string) *Error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return s.fail(Syntax, "invalid literal")
	}
	s.i += len(lit)
	return nil
}

// smallObject is how many names an object may have before duplicates are
// found with a map instead of comparing each new name with all the
// earlier ones.
const smallObject = 8

func (s *scanner) object(depth int) *Error {
	s.i++ // {
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	var small [smallObject][]byte
	names := small[:0]
	var many map[string]struct{}
	top := len(s.path)
	for {
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.fail(Syntax, "expected a member name")
		}
		at := s.i
		name, err := s.str(true)
		if err != nil {
			return err
		}
		if !s.s.Duplicates {
			dup := false
			switch {
			case many != nil:
				if _, dup = many[string(name)]; !dup {
					many[string(name)] = struct{}{}
				}
			default:
				for _, n := range names {
					if string(n) == string(name) {
						dup = true
						break
					}
				}
				if len(names) < len(small) {
					names = append(names, name)
				} else {
					many = make(map[string]struct{}, 4*smallObject)
					for _, n := range names {
						many[string(n)] = struct{}{}
					}
					many[string(name)] = struct{}{}
				}
			}
			if dup {
				s.i = at
				e := s.fail(Duplicate, "duplicate member name")
				e.InName, e.Name = true, string(name)
				return e
			}
		}
		if s.trace {
			s.path = append(s.path, step{name: name})
		}
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.fail(Syntax, "expected ':' after a member name")
		}
		s.i++
		s.skipSpace()
		if err := s.value(depth); err != nil {
			return err
		}
		if s.trace {
			s.path = s.path[:top]
		}
		s.skipSpace()
		if s.i >= len(s.b) {
			return s.fail(Syntax, "unexpected end of JSON input")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.fail(Syntax, "expected ',' or '}' in an object")
		}
	}
}

func (s *scanner) array(depth int) *Error {
	s.i++ // [
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	top := len(s.path)
	for n := 0; ; n++ {
		if s.trace {
			s.path = append(s.path, step{index: n, isIndex: true})
		}
		s.skipSpace()
		if err := s.value(depth); err != nil {
			return err
		}
		if s.trace {
			s.path = s.path[:top]
		}
		s.skipSpace()
		if s.i >= len(s.b) {
			return s.fail(Syntax, "unexpected end of JSON input")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.fail(Syntax, "expected ',' or ']' in an array")
		}
	}
}

// str scans a string starting at its opening quote. For a member name
// (name true) it returns the decoded name: a sub-slice of the document
// when the name has no escapes, a copy otherwise.
func (s *scanner) str(name bool) ([]byte, *Error) {
	at := s.i
	s.i++ // opening quote
	start := s.i
	var buf []byte // the decoded name, once an escape is seen
	escaped := false
	size := 0 // decoded bytes
	text := s.s.Text
	for s.i < len(s.b) {
		// A run of printable ASCII other than the quote and the backslash
		// needs no decoding.
		j := s.i
		for j < len(s.b) && plainByte[s.b[j]] {
			j++
		}
		if name && escaped {
			buf = append(buf, s.b[s.i:j]...)
		}
		size += j - s.i
		s.i = j
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if s.s.MaxString > 0 && size > s.s.MaxString {
				s.i = at
				what := "a string"
				if name {
					what = "a member name"
				}
				e := s.fail(TooLong, what+" longer than "+strconv.Itoa(s.s.MaxString)+" bytes")
				e.InName, e.Limit = name, s.s.MaxString
				return nil, e
			}
			if !name {
				return nil, nil
			}
			if !escaped {
				return raw, nil
			}
			return buf, nil
		case c == '\\':
			if name && !escaped {
				buf = append(make([]byte, 0, s.i-start+8), s.b[start:s.i]...)
			}
			escaped = true
			escAt := s.i
			r, err := s.escape()
			if err != nil {
				return nil, err
			}
			if text && badRune(r) {
				s.i = escAt
				return nil, s.fail(Control, "control character in a string")
			}
			if name {
				buf = utf8.AppendRune(buf, r)
			}
			size += utf8.RuneLen(r)
		case c < 0x20:
			return nil, s.fail(Control, "control character in a string")
		case c == 0x7f:
			if text {
				return nil, s.fail(Control, "control character in a string")
			}
			if name && escaped {
				buf = append(buf, c)
			}
			s.i++
			size++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n <= 1 {
				return nil, s.fail(Encoding, "invalid UTF-8 in a string")
			}
			if text && badRune(r) {
				return nil, s.fail(Control, "control character in a string")
			}
			if name && escaped {
				buf = append(buf, s.b[s.i:s.i+n]...)
			}
			s.i += n
			size += n
		}
	}
	return nil, s.fail(Syntax, "unterminated string")
}

// plainByte marks the bytes a string holds as they are: printable ASCII
// except the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// badRune reports the characters Strict.Text refuses: C0 controls other
// than tab, line feed and carriage return, DEL, C1 controls, and the
// bidirectional embedding, override and isolate controls.
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

// escape scans one backslash escape and returns the rune it denotes.
func (s *scanner) escape() (rune, *Error) {
	s.i++ // backslash
	if s.i >= len(s.b) {
		return 0, s.fail(Syntax, "unterminated escape")
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
		return 0, s.fail(Encoding, "lone UTF-16 surrogate in an escape")
	default:
		s.i--
		return 0, s.fail(Syntax, "invalid escape")
	}
}

func (s *scanner) hex4() (rune, *Error) {
	if len(s.b)-s.i < 4 {
		return 0, s.fail(Syntax, "short \\u escape")
	}
	r, ok := hex4(s.b, s.i)
	if !ok {
		return 0, s.fail(Syntax, "invalid \\u escape")
	}
	s.i += 4
	return r, nil
}

func (s *scanner) number() *Error {
	start := s.i
	if s.b[s.i] == '-' {
		s.i++
		if s.i < len(s.b) && s.b[s.i] == 'I' {
			return s.fail(NonFinite, "invalid number")
		}
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && s.b[s.i] >= '1' && s.b[s.i] <= '9':
		s.digits()
	default:
		return s.fail(Syntax, "invalid number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.fail(Syntax, "invalid number")
		}
	}
	exp := false
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		exp = true
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.fail(Syntax, "invalid number")
		}
	}
	// Only an exponent or more than 308 digits can leave float64's range.
	if s.s.Finite && (exp || s.i-start > 308) {
		if f, _ := Num(s.b[start:s.i]); math.IsInf(f, 0) {
			s.i = start
			return s.fail(NonFinite, "number beyond the range of a 64-bit float")
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
