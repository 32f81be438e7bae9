package sim

import (
	"strings"
)

// A small MySQL/Doris SQL lexer. It never fails: unknown bytes become
// punctuation, unterminated quotes run to the end. Concatenating the text of
// all tokens gives back the input exactly, so rewrites splice tokens.

type tokKind uint8

const (
	tkSpace tokKind = iota
	tkComment
	tkWord   // bare word: keyword or identifier
	tkQuoted // `identifier`
	tkString // 'x' or "x"
	tkNumber
	tkVar // @x, @@x, @@session.x
	tkPunct
)

type token struct {
	kind tokKind
	text string // raw text
}

// ident returns the identifier value of a word or backquoted token.
func (t token) ident() string {
	if t.kind == tkQuoted {
		s := t.text
		if len(s) >= 2 && s[len(s)-1] == '`' {
			s = s[1 : len(s)-1]
		} else {
			s = s[1:]
		}
		return strings.ReplaceAll(s, "``", "`")
	}
	return t.text
}

// isIdent reports a word or a backquoted identifier.
func (t token) isIdent() bool { return t.kind == tkWord || t.kind == tkQuoted }

// is reports a bare word equal to kw (case-insensitive).
func (t token) is(kw string) bool { return t.kind == tkWord && strings.EqualFold(t.text, kw) }

// isP reports punctuation p.
func (t token) isP(p string) bool { return t.kind == tkPunct && t.text == p }

// str returns the content of a string literal (escapes resolved).
func (t token) str() string {
	s := t.text
	if len(s) == 0 {
		return ""
	}
	q := s[0]
	s = s[1:]
	if len(s) > 0 && s[len(s)-1] == q {
		s = s[:len(s)-1]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		if c == q && i+1 < len(s) && s[i+1] == q {
			i++
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func lex(s string) []token {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			for i < len(s) && strings.IndexByte(" \t\n\r\f\v", s[i]) >= 0 {
				i++
			}
			out = append(out, token{tkSpace, s[start:i]})
		case c == '#' || (c == '-' && i+1 < len(s) && s[i+1] == '-' && (i+2 == len(s) || strings.IndexByte(" \t\n\r", s[i+2]) >= 0)):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			out = append(out, token{tkComment, s[start:i]})
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i = i + 2 + j + 2
			}
			out = append(out, token{tkComment, s[start:i]})
		case c == '\'' || c == '"' || c == '`':
			i++
			for i < len(s) {
				if s[i] == '\\' && c != '`' {
					i += 2
					continue
				}
				if s[i] == c {
					if i+1 < len(s) && s[i+1] == c {
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
			if i > len(s) {
				i = len(s)
			}
			k := tkString
			if c == '`' {
				k = tkQuoted
			}
			out = append(out, token{k, s[start:i]})
		case c == '@':
			i++
			if i < len(s) && s[i] == '@' {
				i++
			}
			if i < len(s) && (s[i] == '\'' || s[i] == '"' || s[i] == '`') {
				q := s[i]
				i++
				for i < len(s) && s[i] != q {
					i++
				}
				if i < len(s) {
					i++
				}
			} else {
				for i < len(s) && (isWordByte(s[i]) || s[i] == '.') {
					i++
				}
			}
			out = append(out, token{tkVar, s[start:i]})
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1]) && (len(out) == 0 || !prevIsIdent(out))):
			if c == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X' || s[i+1] == 'b' || s[i+1] == 'B') {
				i += 2
			}
			for i < len(s) && (isDigit(s[i]) || s[i] == '.' || ((s[i] == 'e' || s[i] == 'E') && i+1 < len(s) && (isDigit(s[i+1]) || s[i+1] == '-' || s[i+1] == '+'))) {
				if s[i] == 'e' || s[i] == 'E' {
					i++
				}
				i++
			}
			for i < len(s) && isWordByte(s[i]) {
				i++
			}
			k := tkNumber
			for _, ch := range []byte(s[start:i]) {
				if !isDigit(ch) && ch != '.' && ch != 'e' && ch != 'E' && ch != '-' && ch != '+' {
					k = tkWord
					if strings.HasPrefix(strings.ToLower(s[start:i]), "0x") || strings.HasPrefix(strings.ToLower(s[start:i]), "0b") {
						k = tkNumber
					}
					break
				}
			}
			out = append(out, token{k, s[start:i]})
		case isWordByte(c):
			for i < len(s) && isWordByte(s[i]) {
				i++
			}
			out = append(out, token{tkWord, s[start:i]})
		default:
			i++
			for _, op := range []string{"<=>", "->>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "->", "<<", ">>"} {
				if strings.HasPrefix(s[start:], op) {
					i = start + len(op)
					break
				}
			}
			out = append(out, token{tkPunct, s[start:i]})
		}
	}
	return out
}

// prevIsIdent reports whether the token just before (with nothing in
// between) is an identifier: then a '.' qualifies it (t.5col) rather than
// starting a decimal.
func prevIsIdent(ts []token) bool {
	return len(ts) > 0 && ts[len(ts)-1].isIdent()
}

// sig returns the significant (non-space, non-comment) tokens.
func sig(ts []token) []token {
	out := make([]token, 0, len(ts))
	for _, t := range ts {
		if t.kind != tkSpace && t.kind != tkComment {
			out = append(out, t)
		}
	}
	// drop trailing semicolons
	for len(out) > 0 && out[len(out)-1].isP(";") {
		out = out[:len(out)-1]
	}
	return out
}

func join(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.text)
	}
	return b.String()
}

// quoteIdent backquotes an identifier.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// quoteString makes a single-quoted SQL string literal.
func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`, "\n", `\n`, "\r", `\r`).Replace(s) + "'"
}

// likeMatch implements SQL LIKE with % and _ (case-insensitive, \ escapes).
func likeMatch(pattern, s string) bool {
	p, v := []rune(strings.ToLower(pattern)), []rune(strings.ToLower(s))
	var m func(i, j int) bool
	memo := map[[2]int]bool{}
	m = func(i, j int) bool {
		key := [2]int{i, j}
		if r, ok := memo[key]; ok {
			return r
		}
		var r bool
		switch {
		case i == len(p):
			r = j == len(v)
		case p[i] == '%':
			r = m(i+1, j) || (j < len(v) && m(i, j+1))
		case p[i] == '\\' && i+1 < len(p):
			r = j < len(v) && v[j] == p[i+1] && m(i+2, j+1)
		case j < len(v) && (p[i] == '_' || p[i] == v[j]):
			r = m(i+1, j+1)
		}
		memo[key] = r
		return r
	}
	return m(0, 0)
}
