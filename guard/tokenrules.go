package guard

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The rules in this file look at one token, or at two adjacent tokens, and
// refuse text that is not safe to pass on even though the Nereids lexer
// reads it: text that the legacy lexer, another Nereids version or a server
// setting would split into different tokens, and the lexical forms of
// positional parameters.

// checkToken applies the rules that need only the token itself.
func (c *checker) checkToken(t Token) *Error {
	switch t.Kind {
	case TokWord:
		return checkWord(t)
	case TokString:
		return checkString(t)
	case TokNumber:
		if strings.IndexByte(t.Text, '.') >= 0 && isASCIILetter(t.Text[len(t.Text)-1]) {
			return newError(t.Pos, ReasonAmbiguousNumber, "decimal with a letter suffix is split differently by Doris's lexers")
		}
	case TokPunct:
		switch t.Text {
		case "?":
			return newError(t.Pos, ReasonPositionalParameter, "positional parameters (?) are not supported; use %(name)s")
		case "*/":
			return newError(t.Pos, ReasonUnopenedComment, "comment terminator without a comment")
		}
	case TokParam:
		c.params = append(c.params, t.Text[2:len(t.Text)-2])
	}
	return nil
}

// checkWord refuses words that another lexer, or Doris's case folding,
// would read differently.
func checkWord(t Token) *Error {
	if strings.HasPrefix(t.Text, "$$") {
		return newError(t.Pos, ReasonAmbiguousQuote, "a word starting with $$ is a dollar-quoted string in newer Doris")
	}
	for i := 0; i < len(t.Text); {
		if t.Text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(t.Text[i:])
		if ambiguousLetter(r) {
			return newError(t.Pos+i, ReasonAmbiguousLetter, "letter whose case mapping is ASCII (ı ſ İ K) is read as a keyword letter by Doris")
		}
		if !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) {
			return newError(t.Pos+i, ReasonUnrecognisedCharacter, "invisible, space or control character outside quotes")
		}
		i += size
	}
	return nil
}

// checkAdjacent applies the rules about t and the token just before it.
func (c *checker) checkAdjacent(t Token) *Error {
	p := c.prev
	if p.Kind == tokEOF || p.end() != t.Pos {
		return nil
	}
	switch {
	case p.Kind == TokNumber && (t.Kind == TokWord || t.Kind == TokNumber || t.is(".")):
		return newError(p.Pos, ReasonAmbiguousNumber, "number directly followed by a word or dot is split differently by Doris's lexers")
	case p.is(".") && t.Kind == TokWord && isDigit(t.Text[0]):
		return newError(p.Pos, ReasonAmbiguousNumber, "dot directly followed by a digit and letters is split differently by Doris's lexers")
	case p.Kind == TokString && (p.Text[0]|0x20) == 'r' && t.Kind == TokString && t.Text[0] == p.Text[1]:
		return newError(t.Pos, ReasonAmbiguousQuote, "raw string directly followed by a quote is read differently by Doris versions")
	case p.is("%") && t.Kind == TokWord && t.Text == "s":
		return newError(p.Pos, ReasonPositionalParameter, "positional parameters (%s) are not supported; use %(name)s")
	}
	return nil
}

// checkString refuses string literals whose end, or whose escapes, depend on
// the lexer or on the NO_BACKSLASH_ESCAPES sql_mode.
func checkString(t Token) *Error {
	s := t.Text
	switch s[0] {
	case 'X', 'x':
		return nil
	case 'R', 'r':
		if i := strings.IndexByte(s[2:len(s)-1], '\\'); i >= 0 {
			return newError(t.Pos+2+i, ReasonAmbiguousEscape, "backslash in a raw string is an escape in newer Doris")
		}
		return nil
	}
	quote := s[0]
	body := s[1 : len(s)-1]
	for i := 0; i < len(body); {
		if body[i] != '\\' {
			i++
			continue
		}
		run := 0
		for i+run < len(body) && body[i+run] == '\\' {
			run++
		}
		j := i + run // first byte after the run
		if run%2 == 1 && j < len(body) {
			if body[j] == quote {
				return newError(t.Pos+1+j-1, ReasonAmbiguousEscape, "backslash before a quote ends the string under NO_BACKSLASH_ESCAPES; double the quote instead")
			}
			if lineBreakAt(body, j) {
				return newError(t.Pos+1+j-1, ReasonAmbiguousEscape, "backslash before a line break is not an escape in the legacy lexer")
			}
		}
		i = j
	}
	return nil
}

// lineBreakAt reports whether s[i:] starts with a character that the legacy
// JFlex lexer's "." does not match: LF, CR, VT, FF, NEL, LS or PS.
func lineBreakAt(s string, i int) bool {
	switch s[i] {
	case '\n', '\r', '\v', '\f':
		return true
	}
	return strings.HasPrefix(s[i:], "\u0085") || strings.HasPrefix(s[i:], "\u2028") || strings.HasPrefix(s[i:], "\u2029")
}

// checkComment refuses comments that are code for MySQL or for one of
// Doris's lexers, or whose extent the lexers disagree on.
func checkComment(t Token) *Error {
	s := t.Text
	if strings.HasPrefix(s, "--") {
		body := strings.TrimLeft(s[2:], " \t")
		if strings.HasPrefix(body, "+") {
			return newError(t.Pos, ReasonClientHint, "\"--+\" starts a plan hint in the legacy lexer")
		}
		if i := strings.Index(s, "\\\n"); i >= 0 {
			return newError(t.Pos+i, ReasonCommentContinuation, "backslash-newline continues a -- comment in Nereids but not in the legacy lexer")
		}
		return nil
	}
	body := s[2:]
	if strings.HasPrefix(body, "!") || strings.HasPrefix(body, "M!") {
		return newError(t.Pos, ReasonExecutableComment, "MySQL executable comments (/*! … */) are not allowed")
	}
	if strings.HasPrefix(strings.TrimLeft(body, " \t"), "+") {
		return newError(t.Pos, ReasonClientHint, "\"/* +\" starts a plan hint in the legacy lexer")
	}
	if i := strings.Index(body, "/*"); i >= 0 {
		pos := t.Pos + 2 + i
		rest := body[i+2:]
		switch {
		case strings.HasPrefix(rest, "+"):
			return newError(pos, ReasonClientHint, "optimizer hints (/*+ … */) may not be supplied by clients")
		case strings.HasPrefix(rest, "!") || strings.HasPrefix(rest, "M!"):
			return newError(pos, ReasonExecutableComment, "MySQL executable comments (/*! … */) are not allowed")
		}
		return newError(pos, ReasonNestedComment, "nested comments end at the first */ in the legacy lexer")
	}
	return nil
}
