package semanticprovider

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// params collects the literals of one statement. Every literal the
// compiler writes goes through it as a %(pN)s placeholder, and guard.Bind,
// the one function that turns values into Doris literals, writes them at
// the end and checks the result. Equal values share a placeholder, and
// names are given in order of first use, so the text is deterministic.
type params struct {
	values map[string]any
	byKey  map[string]string
}

func newParams() *params {
	return &params{values: map[string]any{}, byKey: map[string]string{}}
}

func (p *params) add(key string, v any) string {
	if name, ok := p.byKey[key]; ok {
		return "%(" + name + ")s"
	}
	name := "p" + strconv.Itoa(len(p.byKey)+1)
	p.byKey[key] = name
	p.values[name] = v
	return "%(" + name + ")s"
}

// str returns the placeholder of a string value.
func (p *params) str(s string) string { return p.add("s:"+s, s) }

// num returns the placeholder of a number written in JSON number grammar.
func (p *params) num(text string) string { return p.add("n:"+text, json.Number(text)) }

// int returns the placeholder of an integer.
func (p *params) int(n int64) string { return p.num(strconv.FormatInt(n, 10)) }

// bind substitutes the literals into sql and checks the statement. A
// value rendered into a fragment that the final text does not use (an
// expression written but then not needed) is dropped, since guard.Bind
// wants the placeholders and the values to match exactly.
func (p *params) bind(sql string) (string, *Error) {
	if len(sql) > guard.MaxLen/2 { // leave room for the literals; Bind checks the final length too
		return "", fail(ReasonQueryTooComplex, "the compiled statement would exceed the guard's 1 MiB")
	}
	used := make(map[string]any, len(p.values))
	for name, v := range p.values {
		if strings.Contains(sql, "%("+name+")s") {
			used[name] = v
		}
	}
	st, err := guard.Bind(sql, used)
	if err != nil {
		return "", fail(ReasonCompiledSQLRejected, "the compiled statement failed the read-only guard: "+guardReason(err))
	}
	return st.SQL, nil
}

func guardReason(err error) string {
	var ge *guard.Error
	if errors.As(err, &ge) {
		return ge.Reason
	}
	return "refused"
}

// quote backquotes an identifier. Names reach it validated: no backquote
// and no NUL, so doubling is only a second line of defence.
func quote(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// col writes alias.column, both quoted.
func col(alias, name string) string { return quote(alias) + "." + quote(name) }

// renderer writes a parsed expression.
type renderer struct {
	p      *params
	alias  string                             // table alias for columns
	ref    func(i int) (string, *Error)       // {{ }} references
	metric func(name string) (string, *Error) // derived metric inputs
}

// render writes e with single spaces between parts, except where SQL
// wants none: after "(", before ")" and ",", and between a function name
// and its "(" (MariaDB and MySQL read "COUNT (" as a column name).
func (r renderer) render(e *sqlExpr) (string, *Error) {
	var b strings.Builder
	var prev *part
	for i := range e.parts {
		pt := &e.parts[i]
		if prev != nil {
			gap := true
			switch {
			case prev.kind == partFunc:
				gap = false
			case prev.kind == partKeyword && prev.text == "(":
				gap = false
			case pt.kind == partKeyword && (pt.text == ")" || pt.text == ","):
				gap = false
			}
			if gap {
				b.WriteByte(' ')
			}
		}
		switch pt.kind {
		case partKeyword, partFunc:
			b.WriteString(pt.text)
		case partColumn:
			if r.alias == "" {
				b.WriteString(quote(pt.text))
			} else {
				b.WriteString(col(r.alias, pt.text))
			}
		case partString:
			b.WriteString(r.p.str(pt.text))
		case partNumber:
			b.WriteString(r.p.num(pt.text))
		case partRef:
			s, err := r.ref(pt.ref)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		case partMetric:
			s, err := r.metric(pt.text)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		prev = pt
	}
	return b.String(), nil
}
