package semanticprovider

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// jsonLimits bound a JSON document before it is decoded.
type jsonLimits struct {
	maxDepth  int // nesting of objects and arrays
	maxString int // bytes in one decoded string or key
	maxValues int // scalars, objects and arrays in the whole document
}

// checkJSON accepts exactly one JSON object within lim, by the one strict
// check (doris/schema): valid UTF-8, no duplicate key in any object
// (encoding/json would keep the last one silently), nothing after the
// value. It returns a message naming the path of the first problem, or "".
func checkJSON(data []byte, lim jsonLimits) string {
	err := schema.Check(data, schema.Strict{MaxDepth: lim.maxDepth, MaxString: lim.maxString, MaxValues: lim.maxValues, Object: true})
	if err == nil {
		return ""
	}
	var e *schema.Error
	if !errors.As(err, &e) {
		return cleanJSONErr(err)
	}
	at := jsonPath(e.Path)
	switch e.Reason {
	case schema.Encoding:
		return "not valid UTF-8"
	case schema.NotObject:
		return "the document is not a JSON object"
	case schema.Trailing:
		return "data after the JSON object"
	case schema.TooDeep:
		return at + ": nested deeper than " + strconv.Itoa(lim.maxDepth)
	case schema.TooMany:
		return at + ": more than " + strconv.Itoa(lim.maxValues) + " JSON values"
	case schema.TooLong:
		if e.InName {
			return at + ": a key is longer than " + strconv.Itoa(lim.maxString) + " bytes"
		}
		return at + ": a string is longer than " + strconv.Itoa(lim.maxString) + " bytes"
	case schema.Duplicate:
		return at + ": duplicate key " + strconv.Quote(e.Name)
	}
	if e.Offset >= len(data) {
		if len(e.Path) == 0 && firstByte(data) == len(data) {
			return "not JSON: unexpected end of JSON"
		}
		return at + ": unexpected end of JSON"
	}
	if firstByte(data) == e.Offset {
		return "not JSON: syntax error at byte " + strconv.Itoa(e.Offset)
	}
	return at + ": syntax error at byte " + strconv.Itoa(e.Offset)
}

// firstByte is the offset of the first byte that is not whitespace.
func firstByte(data []byte) int {
	return len(data) - len(strings.TrimLeft(string(data), " \t\r\n"))
}

// jsonPath renders a path as the messages name it: $.key[0].key.
func jsonPath(steps []schema.Step) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range steps {
		if s.Name == "" && s.Index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		} else {
			b.WriteString("." + s.Name)
		}
	}
	return b.String()
}

// decodeStrict decodes a document that checkJSON accepted into v with the
// strict decoder, refusing keys that v does not declare, including case
// variants of declared keys (encoding/json matches keys
// case-insensitively, so "Request_ID" would fill request_id;
// CVE-2026-27896 is that mistake in an MCP SDK).
func decodeStrict(data []byte, v any) string {
	err := schema.Decode(data, v, schema.Strict{Known: true})
	if err == nil {
		return ""
	}
	var e *schema.Error
	if !errors.As(err, &e) {
		return cleanJSONErr(err)
	}
	switch e.Reason {
	case schema.CaseVariant:
		return jsonPath(e.Path) + ": unknown key " + strconv.Quote(e.Name) + " (keys are case-sensitive)"
	case schema.Unknown:
		return "unknown field " + strconv.Quote(e.Name)
	case schema.Duplicate:
		return jsonPath(e.Path) + ": duplicate key " + strconv.Quote(e.Name)
	}
	return "syntax error at byte " + strconv.Itoa(e.Offset)
}

// cleanJSONErr renders a decoding error without the "json: " prefix; the
// messages of encoding/json name fields and types, never values.
func cleanJSONErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		where := te.Field
		if where == "" {
			where = "value"
		}
		return where + ": expected " + te.Type.String() + ", got JSON " + te.Value
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "syntax error at byte " + strconv.FormatInt(se.Offset, 10)
	}
	msg := err.Error()
	if len(msg) > 5 && msg[:6] == "json: " {
		msg = msg[6:]
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		msg = "unexpected end of JSON"
	}
	return msg
}
