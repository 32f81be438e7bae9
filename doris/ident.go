package doris

import (
	"strings"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// maxIdent bounds a catalog, database, table or column name.
const maxIdent = 256

// CheckIdent validates a caller-supplied identifier before it is quoted
// into a statement: non-empty, bounded, valid UTF-8, and free of quotes,
// backticks, backslashes and control characters. Doris names never contain
// them, so refusing is clearer than escaping.
func CheckIdent(prefix, field, s string) *Error {
	bad := s == "" || len(s) > maxIdent || !utf8.ValidString(s) ||
		strings.ContainsFunc(s, func(r rune) bool {
			return r < 0x20 || r == 0x7f || r == '`' || r == '\'' || r == '"' || r == '\\'
		})
	if bad {
		return ArgError(prefix, "IDENTIFIER_INVALID", field+" is not a valid Doris name (1-256 characters, no quotes, backticks, backslashes or control characters)")
	}
	return nil
}

// IdentArg is an identifier argument of a call: the field it came in and
// its value.
type IdentArg struct{ Field, Value string }

// CheckIdents checks identifier arguments in the order given and returns
// the first failure (checkIdent), so that a call with several bad names
// gets the same answer every time.
func CheckIdents(prefix string, args ...IdentArg) *Error {
	for _, a := range args {
		if e := CheckIdent(prefix, a.Field, a.Value); e != nil {
			return e
		}
	}
	return nil
}

// CheckOptionalIdents is checkIdents for optional arguments: an empty
// value was omitted, and passes.
func CheckOptionalIdents(prefix string, args ...IdentArg) *Error {
	for _, a := range args {
		if a.Value == "" {
			continue
		}
		if e := CheckIdent(prefix, a.Field, a.Value); e != nil {
			return e
		}
	}
	return nil
}

// QuoteIdent backtick-quotes a name that passed checkIdent (or one of the
// server's own constants).
func QuoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

// Qualified quotes catalog.database.table, omitting empty leading parts.
func Qualified(parts ...string) string {
	var q []string
	for _, p := range parts {
		if p != "" {
			q = append(q, QuoteIdent(p))
		}
	}
	return strings.Join(q, ".")
}

// Bind renders a statement with %(name)s placeholders and literal values
// through the guard, the one place that quotes values, and returns the
// checked text.
func Bind(sql string, params map[string]any) (string, error) {
	st, err := guard.Bind(sql, params)
	if err != nil {
		return "", err
	}
	return st.SQL, nil
}

// Arg names one identifier argument for CheckIdents: the field as the
// caller spelt it, and its value.
func Arg(field, value string) IdentArg { return IdentArg{field, value} }
