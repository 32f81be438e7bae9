package semanticprovider

import (
	"regexp"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// An expression from a manifest (a measure, dimension or entity expr, a
// derived metric's expr) or from a where filter is never pasted into the
// SQL. It is tokenized with guard.Scan, each token is classified, and the
// expression is written out again: keywords and operators from a fixed
// set, function names followed by "(", every other word as a backquoted
// column of the right table, every string and number as a bound
// parameter. A word the grammar does not know therefore becomes a column
// name (and fails in Doris if there is no such column), never SQL; and a
// token outside the grammar refuses the whole expression.

// exprMode selects what bare words may be.
type exprMode int

const (
	// modeColumns: a manifest expression over one semantic model's table;
	// bare and backquoted words are that table's columns.
	modeColumns exprMode = iota
	// modeFilter: a where filter; columns only through {{ }} references.
	modeFilter
	// modeMetrics: a derived metric's expr; bare words are its inputs.
	modeMetrics
)

type partKind int

const (
	partKeyword partKind = iota // keyword or operator, written as is
	partFunc                    // function name; "(" follows directly
	partColumn                  // a column of the model's table
	partString                  // a string literal (value in text)
	partNumber                  // a numeric literal (JSON number grammar)
	partRef                     // a {{ }} reference (index into refs)
	partMetric                  // an input metric of a derived metric
)

type part struct {
	kind partKind
	text string
	ref  int
}

// sqlExpr is a parsed expression ready to be written again.
type sqlExpr struct {
	parts []part
	refs  []ref
}

// maxExprLen bounds one expression or filter.
const maxExprLen = 8192

// keywords may appear as bare words in an expression. Words not listed are
// columns (modeColumns), refused (modeFilter) or metric inputs
// (modeMetrics).
var keywords = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "XOR": true, "IS": true, "NULL": true, "TRUE": true, "FALSE": true,
	"IN": true, "BETWEEN": true, "LIKE": true, "REGEXP": true, "RLIKE": true, "CASE": true, "WHEN": true,
	"THEN": true, "ELSE": true, "END": true, "AS": true, "DISTINCT": true, "INTERVAL": true, "DIV": true,
	"MOD": true, "UNKNOWN": true,
	// interval units, typed literals and CAST targets
	"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "HOUR": true, "MINUTE": true,
	"SECOND": true, "DATE": true, "DATETIME": true, "TIMESTAMP": true, "CHAR": true, "VARCHAR": true,
	"STRING": true, "TEXT": true, "INT": true, "INTEGER": true, "BIGINT": true, "SMALLINT": true,
	"TINYINT": true, "LARGEINT": true, "DOUBLE": true, "FLOAT": true, "DECIMAL": true, "DECIMALV3": true,
	"BOOLEAN": true, "SIGNED": true, "UNSIGNED": true, "JSON": true,
	// niladic functions written without parentheses
	"CURRENT_DATE": true, "CURRENT_TIMESTAMP": true, "CURRENT_TIME": true, "LOCALTIME": true,
	"LOCALTIMESTAMP": true,
}

// operators may appear between operands.
var operators = map[string]bool{
	"(": true, ")": true, ",": true, "+": true, "-": true, "*": true, "/": true, "%": true,
	"=": true, "!=": true, "<>": true, "<": true, ">": true, "<=": true, ">=": true, "<=>": true,
}

var reNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`) })

// parseExpr parses text in mode. names, in modeMetrics, is the set of
// input names a bare word may be. The reason of a refusal is reason.
func parseExpr(text string, mode exprMode, names map[string]bool, reason string) (*sqlExpr, *Error) {
	if len(text) > maxExprLen {
		return nil, fail(reason, "expression longer than 8192 bytes")
	}
	e := &sqlExpr{}
	if mode == modeFilter {
		rest := text
		for {
			i := strings.Index(rest, "{{")
			if i < 0 {
				break
			}
			if err := e.scan(rest[:i], mode, names, reason); err != nil {
				return nil, err
			}
			j := strings.Index(rest[i:], "}}")
			if j < 0 {
				return nil, fail(reason, "unclosed {{")
			}
			p := callParser{src: rest[i+2 : i+j]}
			r, err := p.call()
			if err != nil {
				if err.Reason == ReasonGroupByInvalid {
					err.Reason = reason
				}
				return nil, err
			}
			if !p.done() {
				return nil, fail(reason, "unexpected text inside {{ }}")
			}
			if r.kind == refMetric {
				return nil, fail(reason, "metric filters are not supported")
			}
			e.parts = append(e.parts, part{kind: partRef, ref: len(e.refs)})
			e.refs = append(e.refs, r)
			rest = rest[i+j+2:]
		}
		if err := e.scan(rest, mode, names, reason); err != nil {
			return nil, err
		}
	} else if err := e.scan(text, mode, names, reason); err != nil {
		return nil, err
	}
	if len(e.parts) == 0 {
		return nil, fail(reason, "empty expression")
	}
	depth := 0
	for _, p := range e.parts {
		if p.kind == partKeyword && p.text == "(" {
			depth++
		} else if p.kind == partKeyword && p.text == ")" {
			depth--
			if depth < 0 {
				return nil, fail(reason, "unbalanced parentheses")
			}
		}
	}
	if depth != 0 {
		return nil, fail(reason, "unbalanced parentheses")
	}
	return e, nil
}

// scan appends the tokens of one segment (text between references).
func (e *sqlExpr) scan(seg string, mode exprMode, names map[string]bool, reason string) *Error {
	if strings.Contains(seg, "}}") {
		return fail(reason, "}} without {{")
	}
	toks, err := guard.Scan(seg)
	if err != nil {
		return fail(reason, "the expression is not valid Doris SQL")
	}
	for i, t := range toks {
		nextIsParen := i+1 < len(toks) && toks[i+1].Kind == guard.TokPunct && toks[i+1].Text == "("
		switch t.Kind {
		case guard.TokWord:
			up := strings.ToUpper(t.Text)
			switch {
			case nextIsParen && reFuncName().MatchString(t.Text):
				e.parts = append(e.parts, part{kind: partFunc, text: up})
			case keywords[up]:
				e.parts = append(e.parts, part{kind: partKeyword, text: up})
			case mode == modeColumns:
				e.parts = append(e.parts, part{kind: partColumn, text: t.Text})
			case mode == modeMetrics && names[t.Text]:
				e.parts = append(e.parts, part{kind: partMetric, text: t.Text})
			case mode == modeMetrics:
				return fail(reason, "expression names "+t.Text+", which is not one of its input metrics")
			default:
				return fail(reason, "a filter may name columns only through {{ Dimension(…) }}, {{ TimeDimension(…) }} or {{ Entity(…) }}")
			}
		case guard.TokQuoted:
			if mode != modeColumns {
				return fail(reason, "backquoted names are not allowed here")
			}
			name := strings.ReplaceAll(t.Text[1:len(t.Text)-1], "``", "`")
			if name == "" || strings.ContainsAny(name, "`\x00") {
				return fail(reason, "invalid backquoted name")
			}
			e.parts = append(e.parts, part{kind: partColumn, text: name})
		case guard.TokString:
			v, ok := stringValue(t.Text)
			if !ok {
				return fail(reason, "string literals must be plain quoted text without backslashes")
			}
			e.parts = append(e.parts, part{kind: partString, text: v})
		case guard.TokNumber:
			if !reNumber().MatchString(t.Text) {
				return fail(reason, "numbers must be plain decimals")
			}
			e.parts = append(e.parts, part{kind: partNumber, text: t.Text})
		case guard.TokPunct:
			if !operators[t.Text] {
				return fail(reason, "operator "+t.Text+" is not allowed")
			}
			e.parts = append(e.parts, part{kind: partKeyword, text: t.Text})
		default: // comments, hints, placeholders
			return fail(reason, "comments, hints and placeholders are not allowed")
		}
	}
	return nil
}

// stringValue decodes a '…' or "…" literal whose only escape is the doubled
// quote. Backslashes are refused: their meaning depends on the
// NO_BACKSLASH_ESCAPES mode, so their value would be a guess.
func stringValue(lit string) (string, bool) {
	if len(lit) < 2 {
		return "", false
	}
	q := lit[0]
	if (q != '\'' && q != '"') || lit[len(lit)-1] != q {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	if strings.IndexByte(body, '\\') >= 0 {
		return "", false
	}
	return strings.ReplaceAll(body, string([]byte{q, q}), string(q)), true
}
