package guard

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxExponentShift bounds how far Bind moves the decimal point of a
// json.Number written with an exponent; larger numbers are refused rather
// than spelled out.
const maxExponentShift = 400

// Bind checks sql, replaces every placeholder %(name)s with the Doris literal
// for params[name], checks the result again and returns that check: the
// Statement's SQL is the text to send, and no further Check is needed.
//
// The set of placeholder names must equal the set of keys of params. Values
// may be string, bool, nil, json.Number, or any Go integer or float type.
// Strings become single-quoted literals with \ written as \\, ' doubled, and
// NUL, LF, CR and Ctrl-Z written as \0, \n, \r and \Z; numbers are written in
// plain decimal notation; bool becomes TRUE or FALSE and nil NULL. Errors
// never contain the SQL text or a value.
func Bind(sql string, params map[string]any) (*Statement, error) {
	st, err := bindPolicy(sql, params, nil)
	if err != nil {
		return nil, err
	}
	return st, nil
}

func bindPolicy(sql string, params map[string]any, p *Policy) (*Statement, *Error) {
	st, err := checkPolicy(sql, p)
	if err != nil {
		return nil, err
	}
	for _, name := range st.Params {
		if _, ok := params[name]; !ok {
			return nil, newError(paramPos(sql, name), ReasonMissingParameter, "a placeholder has no value in parameters")
		}
	}
	if len(params) > 0 {
		used := make(map[string]bool, len(st.Params))
		for _, name := range st.Params {
			used[name] = true
		}
		for k := range params {
			if !used[k] {
				return nil, newError(0, ReasonUnknownParameter, "parameters has a key that no placeholder uses")
			}
		}
	}
	if len(st.Params) == 0 {
		return st, nil
	}

	var b strings.Builder
	b.Grow(len(sql) + 16*len(st.Params))
	s := scanner{src: sql}
	last := 0
	var prev byte // last byte written, 0 before any
	for {
		t, serr := s.next()
		if serr != nil {
			return nil, serr // unreachable: check accepted sql
		}
		if t.Kind == tokEOF {
			break
		}
		if t.Kind != TokParam {
			continue
		}
		name := t.Text[2 : len(t.Text)-2]
		lit, lerr := literal(params[name])
		if lerr != "" {
			return nil, newError(t.Pos, ReasonInvalidParameterValue, lerr)
		}
		b.WriteString(sql[last:t.Pos])
		if t.Pos > last {
			prev = sql[t.Pos-1]
		}
		if prev != 0 && needsGap(prev) {
			b.WriteByte(' ')
		}
		b.WriteString(lit)
		prev = lit[len(lit)-1]
		last = t.end()
		if last < len(sql) && needsGap(sql[last]) {
			b.WriteByte(' ')
			prev = ' '
		}
	}
	b.WriteString(sql[last:])
	out := b.String()

	st2, err := checkPolicy(out, p)
	if err != nil {
		return nil, err
	}
	if len(st2.Params) != 0 || st2.Kind != st.Kind {
		return nil, newError(0, ReasonInvalidParameterValue, "bound statement changed shape") // unreachable
	}
	return st2, nil
}

// needsGap reports whether a literal written next to byte c must be
// separated from it by a space so that the two do not merge into one token
// (1 next to a word, two quotes, "-" and a negative number, …).
func needsGap(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '(', ')', ',', ';', '=', '<', '>', '+', '*', '/',
		'[', ']', '{', '}', '|', '&', '^', '~', '!':
		return false
	}
	return true
}

// paramPos returns the offset of the first placeholder named name.
func paramPos(sql, name string) int {
	if i := strings.Index(sql, "%("+name+")s"); i >= 0 {
		return i
	}
	return 0
}

// literal renders v as a Doris literal, or returns a reason it cannot.
func literal(v any) (string, string) {
	switch v := v.(type) {
	case nil:
		return "NULL", ""
	case bool:
		if v {
			return "TRUE", ""
		}
		return "FALSE", ""
	case string:
		return quoteString(v)
	case json.Number:
		return jsonNumber(string(v))
	case int:
		return strconv.FormatInt(int64(v), 10), ""
	case int8:
		return strconv.FormatInt(int64(v), 10), ""
	case int16:
		return strconv.FormatInt(int64(v), 10), ""
	case int32:
		return strconv.FormatInt(int64(v), 10), ""
	case int64:
		return strconv.FormatInt(v, 10), ""
	case uint:
		return strconv.FormatUint(uint64(v), 10), ""
	case uint8:
		return strconv.FormatUint(uint64(v), 10), ""
	case uint16:
		return strconv.FormatUint(uint64(v), 10), ""
	case uint32:
		return strconv.FormatUint(uint64(v), 10), ""
	case uint64:
		return strconv.FormatUint(v, 10), ""
	case float32:
		return float(float64(v), 32)
	case float64:
		return float(v, 64)
	}
	return "", "parameter value must be a string, number, boolean or null"
}

func float(f float64, bits int) (string, string) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", "parameter value is not a finite number"
	}
	if f == 0 {
		return "0", "" // also for -0
	}
	return strconv.FormatFloat(f, 'f', -1, bits), ""
}

// quoteString writes s as a single-quoted literal that every Doris lexer
// reads the same way, whatever NO_BACKSLASH_ESCAPES says: a quote is
// doubled rather than escaped, and a backslash is always doubled.
func quoteString(s string) (string, string) {
	if !utf8.ValidString(s) {
		return "", "parameter string is not valid UTF-8"
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String(), ""
}

// jsonNumber validates s against the JSON number grammar and writes it in
// plain decimal notation, moving the decimal point instead of keeping an
// exponent (the legacy lexer reads 1e5 as an identifier).
func jsonNumber(s string) (string, string) {
	const bad = "parameter is not a valid JSON number"
	i := 0
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return "", bad
	}
	intPart := s[intStart:i]
	frac := ""
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == fs {
			return "", bad
		}
		frac = s[fs:i]
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			if exp <= maxExponentShift {
				exp = exp*10 + int(s[i]-'0')
			}
			i++
		}
		if i == es {
			return "", bad
		}
		if exp > maxExponentShift {
			return "", "parameter number is too large or too small to write out"
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return "", bad
	}

	digits := intPart + frac
	point := len(intPart) + exp
	var out string
	switch {
	case point <= 0:
		out = "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		out = digits + strings.Repeat("0", point-len(digits))
	default:
		out = digits[:point] + "." + digits[point:]
	}
	// Drop the leading zeros of the integer part; other digits stay as
	// written, so the value is exact.
	intEnd := strings.IndexByte(out, '.')
	if intEnd < 0 {
		intEnd = len(out)
	}
	lead := 0
	for lead < intEnd-1 && out[lead] == '0' {
		lead++
	}
	out = out[lead:]
	if strings.Trim(out, "0.") == "" {
		return "0", ""
	}
	if neg {
		out = "-" + out
	}
	return out, ""
}
