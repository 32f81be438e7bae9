package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"
)

// Instance limits applied before schema validation, so a hostile argument
// document costs bounded work whatever the schema says.
const (
	maxInstanceBytes  = 2 << 20
	maxInstanceDepth  = 32
	maxInstanceNodes  = 10000
	maxInstanceString = 1 << 20 // characters; execute_query's sql may be 1 MiB
)

// instanceLimits reports the first limit doc exceeds, as a short keyword
// ("maxDepth", "maxNodes", "maxStringLength", "maxBytes"), or nil.
func instanceLimits(doc []byte) error {
	if len(doc) > maxInstanceBytes {
		return errors.New("maxBytes")
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	depth, nodes := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return errors.New("json")
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
				nodes++
				if depth > maxInstanceDepth {
					return errors.New("maxDepth")
				}
			} else {
				depth--
			}
			continue
		case string:
			if len(t) > maxInstanceString && utf8.RuneCountInString(t) > maxInstanceString {
				return errors.New("maxStringLength")
			}
		}
		nodes++
		if nodes > maxInstanceNodes {
			return errors.New("maxNodes")
		}
	}
}
