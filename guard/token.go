package guard

import "strconv"

// TokenKind classifies a Token.
type TokenKind int

// Token kinds. Whitespace produces no token.
const (
	tokEOF TokenKind = iota // end of input (internal)
	tokErr                  // a refusal found while scanning ahead (internal)

	TokWord    // unquoted identifier or keyword: SELECT, t1, 1abc, 名前
	TokQuoted  // backquoted identifier, quotes included: `a``b`
	TokString  // '…', "…", R'…', R"…", X'…' with its quotes
	TokNumber  // 1, 1.5, .5, 1e3, 10L, 1.5BD
	TokParam   // a named placeholder %(name)s
	TokPunct   // operators and punctuation: ( ) , ; . <=> -> @@ ...
	TokComment // -- comment (with its line end) or /* comment */
	TokHint    // /*+ … */, which Doris reads as code
)

func (k TokenKind) String() string {
	switch k {
	case tokEOF:
		return "EOF"
	case tokErr:
		return "Error"
	case TokWord:
		return "Word"
	case TokQuoted:
		return "Quoted"
	case TokString:
		return "String"
	case TokNumber:
		return "Number"
	case TokParam:
		return "Param"
	case TokPunct:
		return "Punct"
	case TokComment:
		return "Comment"
	case TokHint:
		return "Hint"
	}
	return "TokenKind(" + strconv.Itoa(int(k)) + ")"
}

// Token is one lexical unit of the input. Text is a slice of the input, so
// tokens hold no copies.
type Token struct {
	Kind TokenKind
	Pos  int // byte offset of the first byte of Text
	Text string
}

func (t Token) String() string {
	return t.Kind.String() + "@" + strconv.Itoa(t.Pos) + ":" + strconv.Quote(t.Text)
}

// is reports whether t is the punctuation p.
func (t Token) is(p string) bool {
	return t.Kind == TokPunct && t.Text == p
}

// end is the offset just past t.
func (t Token) end() int { return t.Pos + len(t.Text) }
