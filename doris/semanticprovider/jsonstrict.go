package semanticprovider

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"
)

// jsonLimits bound a JSON document before it is decoded.
type jsonLimits struct {
	maxDepth  int // nesting of objects and arrays
	maxString int // bytes in one decoded string or key
	maxValues int // scalars, objects and arrays in the whole document
}

// checkJSON accepts exactly one JSON object within lim: valid UTF-8, no
// duplicate key in any object (encoding/json would keep the last one
// silently), nothing after the value. It returns a message naming the
// path of the first problem, or "".
func checkJSON(data []byte, lim jsonLimits) string {
	if !utf8.Valid(data) {
		return "not valid UTF-8"
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := walker{dec: dec, lim: lim}
	tok, err := dec.Token()
	if err != nil {
		return "not JSON: " + cleanJSONErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return "the document is not a JSON object"
	}
	if msg := w.object("$", 1); msg != "" {
		return msg
	}
	if _, err := dec.Token(); err != io.EOF {
		return "data after the JSON object"
	}
	return ""
}

type walker struct {
	dec    *json.Decoder
	lim    jsonLimits
	values int
}

func (w *walker) count(path string) string {
	w.values++
	if w.values > w.lim.maxValues {
		return path + ": more than " + strconv.Itoa(w.lim.maxValues) + " JSON values"
	}
	return ""
}

// object walks the members of an object whose '{' was read.
func (w *walker) object(path string, depth int) string {
	if depth > w.lim.maxDepth {
		return path + ": nested deeper than " + strconv.Itoa(w.lim.maxDepth)
	}
	if msg := w.count(path); msg != "" {
		return msg
	}
	seen := map[string]bool{}
	for {
		tok, err := w.dec.Token()
		if err != nil {
			return path + ": " + cleanJSONErr(err)
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			return ""
		}
		key, ok := tok.(string)
		if !ok {
			return path + ": malformed object"
		}
		if len(key) > w.lim.maxString {
			return path + ": a key is longer than " + strconv.Itoa(w.lim.maxString) + " bytes"
		}
		if seen[key] {
			return path + ": duplicate key " + strconv.Quote(key)
		}
		seen[key] = true
		if msg := w.value(path+"."+key, depth); msg != "" {
			return msg
		}
	}
}

// value walks one value.
func (w *walker) value(path string, depth int) string {
	tok, err := w.dec.Token()
	if err != nil {
		return path + ": " + cleanJSONErr(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return w.object(path, depth+1)
		case '[':
			if depth+1 > w.lim.maxDepth {
				return path + ": nested deeper than " + strconv.Itoa(w.lim.maxDepth)
			}
			if msg := w.count(path); msg != "" {
				return msg
			}
			for i := 0; ; i++ {
				if !w.dec.More() {
					if _, err := w.dec.Token(); err != nil {
						return path + ": " + cleanJSONErr(err)
					}
					return ""
				}
				if msg := w.value(path+"["+strconv.Itoa(i)+"]", depth+1); msg != "" {
					return msg
				}
			}
		}
		return path + ": malformed JSON"
	case string:
		if len(t) > w.lim.maxString {
			return path + ": a string is longer than " + strconv.Itoa(w.lim.maxString) + " bytes"
		}
	}
	return w.count(path)
}

// decodeStrict decodes a document that checkJSON accepted into v, refusing
// keys that v does not declare, including case variants of declared keys
// (encoding/json matches keys case-insensitively, so "Request_ID" would
// fill request_id; CVE-2026-27896 is that mistake in an MCP SDK).
func decodeStrict(data []byte, v any) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return cleanJSONErr(err)
	}
	// Every key of the input must appear, spelled exactly, in v encoded
	// again: a case variant decodes into the canonical field and comes
	// back under the canonical spelling. Raw JSON fields come back as
	// they were.
	again, err := json.Marshal(v)
	if err != nil {
		return "cannot re-encode the document"
	}
	var in, out any
	if json.Unmarshal(data, &in) != nil || json.Unmarshal(again, &out) != nil {
		return "cannot re-read the document"
	}
	return exactKeys(in, out, "$")
}

// exactKeys reports the first key of in that out lacks.
func exactKeys(in, out any, path string) string {
	switch a := in.(type) {
	case map[string]any:
		b, ok := out.(map[string]any)
		if !ok {
			return ""
		}
		keys := make([]string, 0, len(a))
		for k := range a {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			bv, ok := b[k]
			if !ok {
				return path + ": unknown key " + strconv.Quote(k) + " (keys are case-sensitive)"
			}
			if msg := exactKeys(a[k], bv, path+"."+k); msg != "" {
				return msg
			}
		}
	case []any:
		b, ok := out.([]any)
		if !ok || len(b) != len(a) {
			return ""
		}
		for i := range a {
			if msg := exactKeys(a[i], b[i], path+"["+strconv.Itoa(i)+"]"); msg != "" {
				return msg
			}
		}
	}
	return ""
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
