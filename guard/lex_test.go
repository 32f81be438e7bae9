package guard_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// tok is a compact expected token: kind and text (positions are checked
// separately by TestScanPositions).
type tok struct {
	kind guard.TokenKind
	text string
}

func (t tok) String() string { return fmt.Sprintf("%v:%q", t.kind, t.text) }

func w(s string) tok  { return tok{guard.TokWord, s} }
func q(s string) tok  { return tok{guard.TokQuoted, s} }
func st(s string) tok { return tok{guard.TokString, s} }
func n(s string) tok  { return tok{guard.TokNumber, s} }
func p(s string) tok  { return tok{guard.TokPunct, s} }
func c(s string) tok  { return tok{guard.TokComment, s} }
func h(s string) tok  { return tok{guard.TokHint, s} }
func pm(s string) tok { return tok{guard.TokParam, s} }

// lexTest is one lexer case. err is the expected Reason of a lexical
// failure ("" for none); tokens are the tokens before it.
type lexTest struct {
	name   string
	input  string
	tokens []tok
	err    string
}

var lexTests = []lexTest{
	{"empty", "", nil, ""},
	{"spaces", " \t\r\n", nil, ""},
	{"select", "SELECT 1", []tok{w("SELECT"), n("1")}, ""},
	{"case kept", "sElEcT", []tok{w("sElEcT")}, ""},

	// -- comments: no space needed, end at CR or LF (included), backslash-LF continues.
	{"line comment", "-- hi\nSELECT", []tok{c("-- hi\n"), w("SELECT")}, ""},
	{"line comment no space", "--hi\n1", []tok{c("--hi\n"), n("1")}, ""},
	{"line comment at eof", "1 --", []tok{n("1"), c("--")}, ""},
	{"line comment crlf", "--x\r\n1", []tok{c("--x\r\n"), n("1")}, ""},
	{"line comment cr", "--x\r1", []tok{c("--x\r"), n("1")}, ""},
	{"minus minus in expr", "1--1", []tok{n("1"), c("--1")}, ""},
	{"backslash newline continues", "--a\\\nb\nc", []tok{c("--a\\\nb\n"), w("c")}, ""},
	{"backslash crlf does not continue", "--a\\\r\nb", []tok{c("--a\\\r\n"), w("b")}, ""},
	{"double backslash then newline continues", "--a\\\\\nb", []tok{c("--a\\\\\nb")}, ""},
	{"arrow", "a->b", []tok{w("a"), p("->"), w("b")}, ""},
	{"comment beats arrow", "-->x", []tok{c("-->x")}, ""},
	{"hash is not a comment", "1 # x", []tok{n("1")}, guard.ReasonUnrecognisedCharacter},

	// /* */ comments: nested; /*+ is a hint.
	{"block comment", "/* a */1", []tok{c("/* a */"), n("1")}, ""},
	{"empty block comment", "/**/1", []tok{c("/**/"), n("1")}, ""},
	{"nested comment", "/* a /* b */ c */1", []tok{c("/* a /* b */ c */"), n("1")}, ""},
	{"slash star slash", "/*/ x */", []tok{c("/*/ x */")}, ""},
	{"unclosed comment", "1 /* a", []tok{n("1")}, guard.ReasonUnclosedComment},
	{"unclosed nested comment", "/* a /* b */", nil, guard.ReasonUnclosedComment},
	{"hint", "SELECT /*+ SET_VAR(a=1) */ 1", []tok{w("SELECT"), h("/*+ SET_VAR(a=1) */"), n("1")}, ""},
	{"executable comment is a comment", "/*!50000 x */", []tok{c("/*!50000 x */")}, ""},
	{"stray comment end", "2*/3", []tok{n("2"), p("*/"), n("3")}, ""},
	{"multiply", "2 * 3", []tok{n("2"), p("*"), n("3")}, ""},

	// strings
	{"single string", "'a b'", []tok{st("'a b'")}, ""},
	{"double string", `"a b"`, []tok{st(`"a b"`)}, ""},
	{"doubled quote", "'it''s'", []tok{st("'it''s'")}, ""},
	{"backslash quote", `'it\'s'`, []tok{st(`'it\'s'`)}, ""},
	{"backslash backslash", `'a\\' 1`, []tok{st(`'a\\'`), n("1")}, ""},
	{"other quote inside", `'say "hi"'`, []tok{st(`'say "hi"'`)}, ""},
	{"keywords in string", "'DROP TABLE t; --'", []tok{st("'DROP TABLE t; --'")}, ""},
	{"comment opener in string", "'/*' 1", []tok{st("'/*'"), n("1")}, ""},
	{"newline in string", "'a\nb'", []tok{st("'a\nb'")}, ""},
	{"unclosed string", "'abc", nil, guard.ReasonUnclosedString},
	{"unclosed by escape", `'abc\'`, nil, guard.ReasonUnclosedString},
	{"unclosed double string", `"abc`, nil, guard.ReasonUnclosedString},
	{"adjacent strings", "'a' 'b'", []tok{st("'a'"), st("'b'")}, ""},

	// raw and hex strings
	{"raw string", `R'a\b'`, []tok{st(`R'a\b'`)}, ""},
	{"raw string lower", `r"x"`, []tok{st(`r"x"`)}, ""},
	{"raw string ends at first quote", `R'a' 'b'`, []tok{st(`R'a'`), st(`'b'`)}, ""},
	{"R as identifier", "R + 1", []tok{w("R"), p("+"), n("1")}, ""},
	{"R inside identifier", "aR'x'", []tok{w("aR"), st("'x'")}, ""},
	{"unclosed raw string", "R'abc", nil, guard.ReasonUnclosedString},
	{"hex string", "X'0aFF'", []tok{st("X'0aFF'")}, ""},
	{"not hex is X then string", "x'zz'", []tok{w("x"), st("'zz'")}, ""},

	// backquoted identifiers
	{"backquoted", "`a b`", []tok{q("`a b`")}, ""},
	{"doubled backquote", "`a``b`", []tok{q("`a``b`")}, ""},
	{"keyword in backquotes", "`DROP`", []tok{q("`DROP`")}, ""},
	{"quote in backquotes", "`it's`", []tok{q("`it's`")}, ""},
	{"unclosed backquote", "`abc", nil, guard.ReasonUnclosedIdentifier},

	// identifiers: [A-Za-z0-9_$] and every non-ASCII character
	{"identifier", "a_b$1", []tok{w("a_b$1")}, ""},
	{"dollar start", "$x", []tok{w("$x")}, ""},
	{"digit start identifier", "1abc", []tok{w("1abc")}, ""},
	{"chinese identifier", "名前 1", []tok{w("名前"), n("1")}, ""},
	{"cyrillic look-alike", "SЕLECT", []tok{w("SЕLECT")}, ""},
	{"nbsp is a letter in Nereids", "SELECT\u00a0*", []tok{w("SELECT\u00a0"), p("*")}, ""},
	{"fullwidth semicolon is a letter", "1；2", []tok{w("1；2")}, ""},

	// numbers: longest match among the numeric rules and IDENTIFIER
	{"integer", "123", []tok{n("123")}, ""},
	{"bigint suffix", "10L", []tok{n("10L")}, ""},
	{"smallint suffix", "10s", []tok{n("10s")}, ""},
	{"tinyint suffix", "10Y", []tok{n("10Y")}, ""},
	{"suffix then letters is identifier", "10Lx", []tok{w("10Lx")}, ""},
	{"decimal", "1.5", []tok{n("1.5")}, ""},
	{"leading dot", ".5", []tok{n(".5")}, ""},
	{"trailing dot", "1. ", []tok{n("1.")}, ""},
	{"exponent", "1e5", []tok{n("1e5")}, ""},
	{"exponent sign", "1E-5", []tok{n("1E-5")}, ""},
	{"decimal exponent", "1.5e+3", []tok{n("1.5e+3")}, ""},
	{"dot exponent", "1.e2+1", []tok{n("1.e2"), p("+"), n("1")}, ""},
	{"bigdecimal", "1.5BD", []tok{n("1.5BD")}, ""},
	{"integer bigdecimal", "7bd", []tok{n("7bd")}, ""},
	{"exponent then letters is identifier", "1e5x", []tok{w("1e5x")}, ""},
	{"signed exponent then word", "1e+5x", []tok{n("1e+5"), w("x")}, ""},
	{"invalid decimal splits", "1.5abc", []tok{n("1"), p("."), w("5abc")}, ""},
	{"invalid decimal underscore", "2.3_", []tok{n("2"), p("."), w("3_")}, ""},
	{"decimal then dollar", "1.5$", []tok{n("1.5"), w("$")}, ""},
	{"dot then digits word", "t.5abc", []tok{w("t"), p("."), w("5abc")}, ""},
	{"qualified", "t.c", []tok{w("t"), p("."), w("c")}, ""},
	{"dot dot dot", "a...", []tok{w("a"), p("...")}, ""},
	{"two decimals", "1..2", []tok{n("1."), n(".2")}, ""},
	{"number then into", "1.5into", []tok{n("1"), p("."), w("5into")}, ""},

	// operators
	{"comparison", "a<=>b<=c<>d!=e>=f!<g!>h==i", []tok{
		w("a"), p("<=>"), w("b"), p("<="), w("c"), p("<>"), w("d"), p("!="),
		w("e"), p(">="), w("f"), p("!<"), w("g"), p("!>"), w("h"), p("=="), w("i")}, ""},
	{"logical", "a&&b||c&d|e^f~g!h", []tok{
		w("a"), p("&&"), w("b"), p("||"), w("c"), p("&"), w("d"), p("|"),
		w("e"), p("^"), w("f"), p("~"), w("g"), p("!"), w("h")}, ""},
	{"variables", "@a @@b", []tok{p("@"), w("a"), p("@@"), w("b")}, ""},
	{"assignment is two tokens", "@a:=1", []tok{p("@"), w("a"), p(":"), p("="), n("1")}, ""},
	{"brackets", "a[1]{}", []tok{w("a"), p("["), n("1"), p("]"), p("{"), p("}")}, ""},
	{"placeholder question", "?", []tok{p("?")}, ""},
	{"semicolons", "1;;", []tok{n("1"), p(";"), p(";")}, ""},
	{"backslash outside string", `1 \ 2`, []tok{n("1")}, guard.ReasonUnrecognisedCharacter},
	{"form feed", "1\f2", []tok{n("1")}, guard.ReasonUnrecognisedCharacter},
	{"vertical tab", "1\v2", []tok{n("1")}, guard.ReasonUnrecognisedCharacter},
	{"control byte", "1\x01", []tok{n("1")}, guard.ReasonUnrecognisedCharacter},
	{"delete byte", "1\x7f", []tok{n("1")}, guard.ReasonUnrecognisedCharacter},

	// named parameters
	{"param", "a = %(id)s", []tok{w("a"), p("="), pm("%(id)s")}, ""},
	{"param underscore", "%(_x1)s", []tok{pm("%(_x1)s")}, ""},
	{"percent s", "a%s", []tok{w("a"), p("%"), w("s")}, ""},
	{"mod", "a % (b)", []tok{w("a"), p("%"), p("("), w("b"), p(")")}, ""},
	{"mod paren not param", "a %(b)", []tok{w("a"), p("%"), p("("), w("b"), p(")")}, ""},
	{"param digit name", "%(1a)s", nil, guard.ReasonInvalidParameterName},
	{"param in string", "'%(a)s'", []tok{st("'%(a)s'")}, ""},
	{"param in comment", "-- %(a)s", []tok{c("-- %(a)s")}, ""},

	// bytes
	{"nul", "SELECT\x00", []tok{w("SELECT")}, guard.ReasonNulByte},
	{"nul in string", "'a\x00'", nil, guard.ReasonNulByte},
	{"nul in comment", "/* \x00 */", nil, guard.ReasonNulByte},
	{"invalid utf8", "SELECT \xff", []tok{w("SELECT")}, guard.ReasonInvalidUTF8},
	{"invalid utf8 in word", "ab\xc3", nil, guard.ReasonInvalidUTF8},
	{"invalid utf8 in string", "'\xc3\x28'", nil, guard.ReasonInvalidUTF8},
	{"surrogate in utf8", "'\xed\xa0\x80'", nil, guard.ReasonInvalidUTF8},
}

func TestScan(t *testing.T) {
	for _, tt := range lexTests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := guard.Scan(tt.input)
			got := make([]tok, len(toks))
			for i, x := range toks {
				got[i] = tok{x.Kind, x.Text}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.tokens) {
				t.Errorf("Scan(%q) tokens:\n got %v\nwant %v", tt.input, got, tt.tokens)
			}
			gotReason := ""
			if err != nil {
				var ge *guard.Error
				if !errors.As(err, &ge) {
					t.Fatalf("Scan(%q) error %T is not *guard.Error", tt.input, err)
				}
				gotReason = ge.Reason
			}
			if gotReason != tt.err {
				t.Errorf("Scan(%q) error = %v, want reason %q", tt.input, err, tt.err)
			}
		})
	}
}

// TestScanPositions checks that tokens cover the input exactly: each Text is
// the input at Pos, and the bytes between tokens are whitespace.
func TestScanPositions(t *testing.T) {
	for _, tt := range lexTests {
		toks, err := guard.Scan(tt.input)
		if err != nil {
			continue
		}
		last := 0
		for _, x := range toks {
			if x.Pos < last || tt.input[x.Pos:x.Pos+len(x.Text)] != x.Text {
				t.Errorf("%s: token %v does not match the input at its position", tt.name, x)
			}
			if gap := tt.input[last:x.Pos]; strings.Trim(gap, " \t\r\n") != "" {
				t.Errorf("%s: non-space %q skipped before %v", tt.name, gap, x)
			}
			last = x.Pos + len(x.Text)
		}
		if gap := tt.input[last:]; strings.Trim(gap, " \t\r\n") != "" {
			t.Errorf("%s: non-space tail %q", tt.name, gap)
		}
	}
}

func TestErrorPositions(t *testing.T) {
	tests := []struct {
		input string
		pos   int
	}{
		{"SELECT 'abc", 7},
		{"SELECT /* x", 7},
		{"SELECT `x", 7},
		{"SELECT 1 #", 9},
		{"SELECT \x00", 7},
		{"SELECT 'é\xff'", 10},
	}
	for _, tt := range tests {
		_, err := guard.Scan(tt.input)
		var ge *guard.Error
		if !errors.As(err, &ge) {
			t.Errorf("Scan(%q) = %v, want an error", tt.input, err)
			continue
		}
		if ge.Pos != tt.pos {
			t.Errorf("Scan(%q) error at %d, want %d", tt.input, ge.Pos, tt.pos)
		}
		if !strings.HasPrefix(ge.Error(), "guard: ") || !strings.HasSuffix(ge.Error(), fmt.Sprintf(" at byte %d", tt.pos)) {
			t.Errorf("Error() = %q, want \"guard: … at byte %d\"", ge.Error(), tt.pos)
		}
	}
}
