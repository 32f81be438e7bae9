package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// decodeStrict decodes one JSON object into v, refusing duplicate keys at
// any depth, unknown fields (when v is a struct) and trailing data. The
// standard decoder keeps the last of two duplicate keys and ignores
// unknown ones; for security documents (tokens files, JOSE headers and
// claims, key sets) two parsers reading one text differently is how
// checks are bypassed, so both are errors here.
func decodeStrict(b []byte, v any, disallowUnknown bool) error {
	if err := checkDuplicateKeys(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if disallowUnknown {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// checkDuplicateKeys walks b and fails on an object with a repeated key.
// It bounds nesting at 64 levels.
func checkDuplicateKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool
		object bool
		expect bool // in an object: the next token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if len(stack) >= 64 {
					return errors.New("JSON nested deeper than 64 levels")
				}
				if top != nil && top.object {
					top.expect = true
				}
				stack = append(stack, &frame{keys: map[string]bool{}, object: d == '{', expect: d == '{'})
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top == nil || !top.object {
			continue
		}
		if top.expect {
			k, _ := tok.(string)
			if top.keys[k] {
				return fmt.Errorf("duplicate key %q", truncateString(k, 64))
			}
			top.keys[k] = true
			top.expect = false
		} else {
			top.expect = true
		}
	}
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
