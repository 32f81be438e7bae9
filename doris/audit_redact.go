package doris

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Arguments for the invocation audit log in AUDIT_LOG_ARGUMENTS=redacted
// mode: the shape of a call with its values masked, through the one
// sanitiser the server has (sanitize.go), never a third.
//
//   - a member whose name names a credential (sensitiveKey) is "***";
//   - SQL (sql, where, having, filter, expression, predicate) passes
//     sanitizeStatement: every string literal becomes '***', comments go,
//     secrets after IDENTIFIED BY or a credential key are masked;
//   - the values of parameters (bound SQL literals) are "***";
//   - any other string is kept only when it is shaped like a name (a
//     database, table, column, child or enum value), else "***";
//   - numbers, booleans and null are kept.
//
// The result is at most maxRedactedArguments bytes: past it, strings are
// cut to 256 characters, and past that only the member names remain.

// maxRedactedArguments caps the redacted arguments of one audit line.
const maxRedactedArguments = 16 << 10

// masked replaces a masked argument value.
const masked = "***"

// sqlArgumentNames are the argument members that carry SQL text.
var sqlArgumentNames = map[string]bool{"sql": true, "where": true, "having": true, "filter": true,
	"expression": true, "predicate": true}

// RedactArguments returns args (a JSON object) with its values masked as
// above, and whether it had to be shortened to fit the cap. Arguments
// that are not a JSON object are withheld whole.
func RedactArguments(args json.RawMessage) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(`"***"`), false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return json.RawMessage(`"***"`), false
	}
	for _, cut := range []int{0, 256} {
		out, err := json.Marshal(redactValue("", obj, cut))
		if err == nil && len(out) <= maxRedactedArguments {
			return out, cut > 0
		}
	}
	names := make(map[string]string, len(obj))
	for k := range obj {
		names[capRunes(k, 64)] = "…"
	}
	out, _ := json.Marshal(names)
	if len(out) > maxRedactedArguments {
		return json.RawMessage(`{}`), true
	}
	return out, true
}

// redactValue masks v, the value of member key (of its nearest object);
// cut > 0 shortens every string to cut characters.
func redactValue(key string, v any, cut int) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			switch {
			case val == nil:
				out[k] = nil
			case sensitiveKey(k):
				out[k] = masked
			case k == "parameters":
				out[k] = maskAll(val)
			default:
				out[k] = redactValue(k, val, cut)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(key, e, cut)
		}
		return out
	case string:
		var s string
		switch {
		case sqlArgumentNames[strings.ToLower(key)]:
			s, _ = SanitizeStatement(x, 0)
		case nameShaped(x):
			s = x
		default:
			s = masked
		}
		if cut > 0 {
			s = capRunes(s, cut)
		}
		return s
	}
	return v // json.Number, bool
}

// maskAll masks every scalar under v, keeping the member names.
func maskAll(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = maskAll(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskAll(e)
		}
		return out
	case nil:
		return nil
	}
	return masked
}

func capRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
