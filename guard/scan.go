package guard

import "unicode/utf8"

// The scanner follows Apache Doris's Nereids lexer grammar,
// fe/fe-sql-parser/src/main/antlr4/org/apache/doris/nereids/DorisLexer.g4 at
// apache/doris commit 03aa6dbb9e523d6e9efdc9cc6fb3cd43eb763f46, read as the
// generated ANTLR lexer runs it: longest match wins, a tie goes to the rule
// listed first, and the input reaches the lexer through CaseInsensitiveStream
// (Character.toUpperCase on every look-ahead character).
//
// Older grammars of the same file were compared as well:
// fe/fe-core/src/main/antlr4/org/apache/doris/nereids/DorisLexer.g4 at
// 00247e5c7a6058fa26b705200c103d127cbf9494 (raw strings R'…', unclosed
// comments run to EOF) and at 4f83bbf47628fb4f8d5e081aaba4403fbae45ecf (2.x
// era: "/*+" never opens a comment, non-ASCII letters must be Java identifier
// starts). Where those differ from the current grammar, or from the legacy
// JFlex lexer that Doris 2.x falls back to
// (fe/fe-core/src/main/jflex/sql_scanner.flex at
// 2250e0898ea4c500e758a03dc4ac50783c316f54), the scanner still produces the
// Nereids tokens and Check refuses the text. See doc.go.
//
// Rules, in grammar terms:
//   - whitespace is exactly [ \t\r\n]; anything else outside a token is
//     UNRECOGNIZED in the grammar and a refusal here (#, \, control bytes);
//   - SIMPLE_COMMENT: "--" then anything up to CR or LF, where a backslash
//     immediately followed by LF continues the comment on the next line; no
//     space is needed after "--";
//   - BRACKETED_COMMENT: "/*" … "*/", nested;
//   - STRING_LITERAL: '…' or "…" with backslash escapes and doubled quotes;
//     R'…' / R"…" (any case) raw strings without escapes;
//   - VARBINARY_LITERAL: X'hex' / X"hex";
//   - BACKQUOTED_IDENTIFIER: `…` with doubled backquotes;
//   - IDENTIFIER: one or more of [A-Za-z0-9_$] or any non-ASCII character;
//   - numbers: see scanNumber.

// scanner is a switch-loop tokenizer in the style of go/scanner. It never
// allocates: token texts are slices of src. After the first error every call
// returns EOF.
type scanner struct {
	src    string
	pos    int
	failed bool
}

// Scan tokenizes sql with Doris's lexical rules and returns every token,
// comments included and whitespace excluded. On a lexical failure it returns
// the tokens before the failure and an *Error. Scan does not judge the
// statement; see Check.
func Scan(sql string) ([]Token, error) {
	s := scanner{src: sql}
	var toks []Token
	for {
		t, err := s.next()
		if err != nil {
			return toks, err
		}
		if t.Kind == tokEOF {
			return toks, nil
		}
		toks = append(toks, t)
	}
}

// next returns the next token, or a token of kind tokEOF at the end. Every
// call that returns a token other than EOF advances the position.
func (s *scanner) next() (Token, *Error) {
	if s.failed {
		return Token{Kind: tokEOF, Pos: len(s.src)}, nil
	}
	t, err := s.scan()
	if err != nil {
		s.failed = true
	}
	return t, err
}

func (s *scanner) scan() (Token, *Error) {
	src := s.src
	for s.pos < len(src) {
		switch src[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
			continue
		}
		break
	}
	start := s.pos
	if start >= len(src) {
		return Token{Kind: tokEOF, Pos: start}, nil
	}
	c := src[start]
	switch c {
	case '\'', '"':
		return s.scanString(start, start)
	case '`':
		return s.scanQuoted(start)
	case '-':
		switch s.at(start + 1) {
		case '-':
			return s.scanLineComment(start)
		case '>':
			return s.punct(start, 2), nil
		}
		return s.punct(start, 1), nil
	case '/':
		if s.at(start+1) == '*' {
			return s.scanBlockComment(start)
		}
		return s.punct(start, 1), nil
	case '*':
		if s.at(start+1) == '/' {
			return s.punct(start, 2), nil // HINT_END outside a comment
		}
		return s.punct(start, 1), nil
	case '%':
		return s.scanPercent(start)
	case '.':
		if isDigit(s.at(start + 1)) {
			return s.scanNumber(start)
		}
		if s.at(start+1) == '.' && s.at(start+2) == '.' {
			return s.punct(start, 3), nil
		}
		return s.punct(start, 1), nil
	case '=':
		if s.at(start+1) == '=' {
			return s.punct(start, 2), nil
		}
		return s.punct(start, 1), nil
	case '<':
		if s.at(start+1) == '=' && s.at(start+2) == '>' {
			return s.punct(start, 3), nil
		}
		if n := s.at(start + 1); n == '=' || n == '>' {
			return s.punct(start, 2), nil
		}
		return s.punct(start, 1), nil
	case '>':
		if s.at(start+1) == '=' {
			return s.punct(start, 2), nil
		}
		return s.punct(start, 1), nil
	case '!':
		if n := s.at(start + 1); n == '=' || n == '<' || n == '>' {
			return s.punct(start, 2), nil
		}
		return s.punct(start, 1), nil
	case '&', '|', '@':
		if s.at(start+1) == c {
			return s.punct(start, 2), nil
		}
		return s.punct(start, 1), nil
	case '(', ')', ',', ';', ':', '+', '~', '^', '?', '[', ']', '{', '}':
		return s.punct(start, 1), nil
	case 0:
		return Token{}, newError(start, ReasonNulByte, "NUL byte in SQL text")
	case 'R', 'r':
		if q := s.at(start + 1); q == '\'' || q == '"' {
			return s.scanRaw(start)
		}
	case 'X', 'x':
		if q := s.at(start + 1); q == '\'' || q == '"' {
			if t, ok := s.scanHex(start); ok {
				return t, nil
			}
		}
	}
	switch {
	case isDigit(c):
		return s.scanNumber(start)
	case isWordByte(c) || c >= utf8.RuneSelf:
		end, err := s.wordEnd(start)
		if err != nil {
			return Token{}, err
		}
		return s.emit(TokWord, start, end), nil
	}
	return Token{}, newError(start, ReasonUnrecognisedCharacter, "character that Doris does not recognise")
}

// at returns src[i], or 0 past the end.
func (s *scanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

func (s *scanner) emit(k TokenKind, start, end int) Token {
	s.pos = end
	return Token{Kind: k, Pos: start, Text: s.src[start:end]}
}

func (s *scanner) punct(start, n int) Token {
	return s.emit(TokPunct, start, start+n)
}

// skipRune validates the byte sequence at i, which is inside a string,
// identifier or comment, and returns the offset after it.
func (s *scanner) skipRune(i int) (int, *Error) {
	c := s.src[i]
	if c < utf8.RuneSelf {
		if c == 0 {
			return 0, newError(i, ReasonNulByte, "NUL byte in SQL text")
		}
		return i + 1, nil
	}
	r, size := utf8.DecodeRuneInString(s.src[i:])
	if r == utf8.RuneError && size <= 1 {
		return 0, newError(i, ReasonInvalidUTF8, "SQL text is not valid UTF-8")
	}
	return i + size, nil
}

// wordEnd returns the end of the IDENTIFIER that starts at start: bytes
// [A-Za-z0-9_$] and every non-ASCII character.
func (s *scanner) wordEnd(start int) (int, *Error) {
	src := s.src
	i := start
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if !isWordByte(c) && !isDigit(c) {
				break
			}
			i++
			continue
		}
		j, err := s.skipRune(i)
		if err != nil {
			return 0, err
		}
		i = j
	}
	return i, nil
}

// scanString scans a quoted string whose opening quote is at q; start is
// where the token begins (before a raw or hex prefix).
func (s *scanner) scanString(start, q int) (Token, *Error) {
	src := s.src
	quote := src[q]
	i := q + 1
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				i++
				continue
			}
			j, err := s.skipRune(i + 1)
			if err != nil {
				return Token{}, err
			}
			i = j
		case c == quote:
			if s.at(i+1) == quote {
				i += 2
				continue
			}
			return s.emit(TokString, start, i+1), nil
		default:
			j, err := s.skipRune(i)
			if err != nil {
				return Token{}, err
			}
			i = j
		}
	}
	return Token{}, newError(start, ReasonUnclosedString, "string literal is not closed")
}

// scanRaw scans R'…' or R"…": no escapes, the first matching quote ends it.
func (s *scanner) scanRaw(start int) (Token, *Error) {
	src := s.src
	quote := src[start+1]
	i := start + 2
	for i < len(src) {
		if src[i] == quote {
			return s.emit(TokString, start, i+1), nil
		}
		j, err := s.skipRune(i)
		if err != nil {
			return Token{}, err
		}
		i = j
	}
	return Token{}, newError(start, ReasonUnclosedString, "string literal is not closed")
}

// scanHex scans X'…' when the body is only hex digits; otherwise X is an
// identifier and the quote starts an ordinary string, as in the grammar.
func (s *scanner) scanHex(start int) (Token, bool) {
	quote := s.src[start+1]
	i := start + 2
	for i < len(s.src) && isHexDigit(s.src[i]) {
		i++
	}
	if s.at(i) != quote || i >= len(s.src) {
		return Token{}, false
	}
	return s.emit(TokString, start, i+1), true
}

// scanQuoted scans a backquoted identifier.
func (s *scanner) scanQuoted(start int) (Token, *Error) {
	src := s.src
	i := start + 1
	for i < len(src) {
		if src[i] == '`' {
			if s.at(i+1) == '`' {
				i += 2
				continue
			}
			return s.emit(TokQuoted, start, i+1), nil
		}
		j, err := s.skipRune(i)
		if err != nil {
			return Token{}, err
		}
		i = j
	}
	return Token{}, newError(start, ReasonUnclosedIdentifier, "backquoted identifier is not closed")
}

// scanLineComment scans "--" up to and including the line end. A backslash
// directly before LF continues the comment, as in SIMPLE_COMMENT.
func (s *scanner) scanLineComment(start int) (Token, *Error) {
	src := s.src
	i := start + 2
	for i < len(src) {
		c := src[i]
		if c == '\n' || c == '\r' {
			break
		}
		if c == '\\' && s.at(i+1) == '\n' {
			i += 2
			continue
		}
		j, err := s.skipRune(i)
		if err != nil {
			return Token{}, err
		}
		i = j
	}
	if s.at(i) == '\r' && i < len(src) {
		i++
	}
	if s.at(i) == '\n' && i < len(src) {
		i++
	}
	return s.emit(TokComment, start, i), nil
}

// scanBlockComment scans a nested /* … */ comment. "/*+" makes it a hint.
func (s *scanner) scanBlockComment(start int) (Token, *Error) {
	src := s.src
	kind := TokComment
	if s.at(start+2) == '+' {
		kind = TokHint
	}
	depth := 1
	i := start + 2
	for i < len(src) {
		c := src[i]
		if c == '*' && s.at(i+1) == '/' {
			i += 2
			depth--
			if depth == 0 {
				return s.emit(kind, start, i), nil
			}
			continue
		}
		if c == '/' && s.at(i+1) == '*' {
			i += 2
			depth++
			continue
		}
		j, err := s.skipRune(i)
		if err != nil {
			return Token{}, err
		}
		i = j
	}
	return Token{}, newError(start, ReasonUnclosedComment, "comment is not closed")
}

// scanPercent scans a named placeholder %(name)s or the MOD operator.
func (s *scanner) scanPercent(start int) (Token, *Error) {
	if s.at(start+1) != '(' {
		return s.punct(start, 1), nil
	}
	i := start + 2
	for i < len(s.src) && (isWordByte(s.src[i]) || isDigit(s.src[i])) && s.src[i] != '$' {
		i++
	}
	if s.at(i) != ')' || s.at(i+1) != 's' || i+1 >= len(s.src) {
		return s.punct(start, 1), nil // "%(" that is not a placeholder: MOD then "("
	}
	if !validParamName(s.src[start+2 : i]) {
		return Token{}, newError(start, ReasonInvalidParameterName,
			"placeholder name must match [A-Za-z_][A-Za-z0-9_]{0,63}")
	}
	return s.emit(TokParam, start, i+2), nil
}

// scanNumber scans at a digit, or at "." followed by a digit. It returns the
// longest of the numeric rules and IDENTIFIER, numbers winning a tie, as
// ANTLR does:
//
//	INTEGER_VALUE      DIGIT+
//	BIGINT/SMALLINT/TINYINT_LITERAL  DIGIT+ [LSY]
//	EXPONENT_VALUE     DIGIT+ EXPONENT | DECIMAL_DIGITS EXPONENT {valid}
//	DECIMAL_VALUE      DECIMAL_DIGITS {valid}
//	BIGDECIMAL_LITERAL DIGIT+ EXPONENT? BD | DECIMAL_DIGITS EXPONENT? BD {valid}
//	DECIMAL_DIGITS     DIGIT+ '.' DIGIT* | '.' DIGIT+
//	EXPONENT           E [+-]? DIGIT+
//
// where {valid} (isValidDecimal) holds when the next character is not
// [A-Z0-9_] after upper-casing. When no rule matches at ".", the token is DOT.
func (s *scanner) scanNumber(start int) (Token, *Error) {
	src := s.src
	i := start
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	intEnd := i
	best := -1
	if intEnd > start {
		best = intEnd
		if isLSY(s.at(intEnd)) && intEnd < len(src) {
			best = intEnd + 1
		}
		if e := s.exponentEnd(intEnd); e > 0 {
			best = max(best, e)
			if s.isBD(e) {
				best = max(best, e+2)
			}
		}
		if s.isBD(intEnd) {
			best = max(best, intEnd+2)
		}
	}
	if intEnd < len(src) && src[intEnd] == '.' {
		j := intEnd + 1
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		if intEnd > start || j > intEnd+1 {
			dec := j
			if s.validDecimalEnd(dec) {
				best = max(best, dec)
			}
			if e := s.exponentEnd(dec); e > 0 {
				if s.validDecimalEnd(e) {
					best = max(best, e)
				}
				if s.isBD(e) && s.validDecimalEnd(e+2) {
					best = max(best, e+2)
				}
			}
			if s.isBD(dec) && s.validDecimalEnd(dec+2) {
				best = max(best, dec+2)
			}
		}
	}
	if intEnd > start {
		end, err := s.wordEnd(start)
		if err != nil {
			return Token{}, err
		}
		if end > best {
			return s.emit(TokWord, start, end), nil
		}
	}
	if best > start {
		return s.emit(TokNumber, start, best), nil
	}
	return s.punct(start, 1), nil // "." not followed by a valid decimal
}

// exponentEnd returns the end of E[+-]?DIGIT+ at i, or -1.
func (s *scanner) exponentEnd(i int) int {
	if c := s.at(i); (c != 'e' && c != 'E') || i >= len(s.src) {
		return -1
	}
	j := i + 1
	if c := s.at(j); c == '+' || c == '-' {
		j++
	}
	k := j
	for k < len(s.src) && isDigit(s.src[k]) {
		k++
	}
	if k == j {
		return -1
	}
	return k
}

func (s *scanner) isBD(i int) bool {
	return i+1 < len(s.src) && s.src[i]|0x20 == 'b' && s.src[i+1]|0x20 == 'd'
}

// validDecimalEnd is isValidDecimal: the character at i, upper-cased, is not
// [A-Z0-9_].
func (s *scanner) validDecimalEnd(i int) bool {
	if i >= len(s.src) {
		return true
	}
	c := s.src[i]
	return !(isASCIILetter(c) || isDigit(c) || c == '_')
}

func isDigit(c byte) bool       { return '0' <= c && c <= '9' }
func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isHexDigit(c byte) bool    { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }
func isLSY(c byte) bool {
	c |= 0x20
	return c == 'l' || c == 's' || c == 'y'
}

// isWordByte reports whether c may start an identifier: [A-Za-z_$].
func isWordByte(c byte) bool { return isASCIILetter(c) || c == '_' || c == '$' }

// validParamName reports whether name matches [A-Za-z_][A-Za-z0-9_]{0,63}.
func validParamName(name string) bool {
	if len(name) == 0 || len(name) > 64 || isDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isASCIILetter(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}
