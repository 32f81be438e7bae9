// Package wiretest validates the messages a server sends against the
// official MCP wire schemas of each revision (testdata/mcp-schema). Tests
// of every transport use it so that each message they receive is checked,
// not only the ones a test looks at.
//
// It is test support: the server never imports it.
package wiretest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/kaptinlin/jsonschema"
)

// Revisions with a schema in testdata/mcp-schema.
const (
	Rev20260728 = "2026-07-28"
	Rev20251125 = "2025-11-25"
	Rev20250618 = "2025-06-18"
)

// resultDefs maps a request method to its result definition.
var resultDefs = map[string]string{
	"server/discover":          "DiscoverResult",
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"completion/complete":      "CompleteResult",
}

// errorDefs are the 2026-07-28 definitions of specific error codes. The
// first three describe the whole response, the last two its error member.
var errorDefs = map[int]struct {
	def   string
	whole bool
}{
	-32020: {"HeaderMismatchError", true},
	-32021: {"MissingRequiredClientCapabilityError", true},
	-32022: {"UnsupportedProtocolVersionError", true},
	-32601: {"MethodNotFoundError", false},
	-32602: {"InvalidParamsError", false},
}

// Validator checks messages of all revisions. It is safe for concurrent
// use.
type Validator struct {
	dir string

	mu      sync.Mutex // protects schemas, loaded
	c       *jsonschema.Compiler
	loaded  map[string]string // rev -> definitions keyword ("$defs" or "definitions")
	schemas map[string]*jsonschema.Schema
}

// Load finds testdata/mcp-schema above the working directory.
func Load() (*Validator, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		p := filepath.Join(dir, "testdata", "mcp-schema")
		if _, err := os.Stat(filepath.Join(p, Rev20260728+".json")); err == nil {
			return &Validator{dir: p, c: jsonschema.NewCompiler(), loaded: map[string]string{}, schemas: map[string]*jsonschema.Schema{}}, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, errors.New("wiretest: testdata/mcp-schema not found above the working directory")
		}
		dir = parent
	}
}

func (v *Validator) def(rev, name string) (*jsonschema.Schema, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	key := rev + "#" + name
	if s, ok := v.schemas[key]; ok {
		return s, nil
	}
	uri := "https://mcp.local/" + rev + ".json"
	kw, ok := v.loaded[rev]
	if !ok {
		b, err := os.ReadFile(filepath.Join(v.dir, rev+".json"))
		if err != nil {
			return nil, err
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(b, &probe); err != nil {
			return nil, err
		}
		kw = "$defs"
		if _, ok := probe["definitions"]; ok {
			kw = "definitions"
		}
		if _, err := v.c.Compile(b, uri); err != nil {
			return nil, fmt.Errorf("wiretest: compiling %s: %w", rev, err)
		}
		v.loaded[rev] = kw
	}
	s, err := v.c.Compile([]byte(`{"$ref":"` + uri + `#/` + kw + `/` + name + `"}`))
	if err != nil {
		return nil, fmt.Errorf("wiretest: %s %s: %w", rev, name, err)
	}
	v.schemas[key] = s
	return s, nil
}

func (v *Validator) validate(rev, name string, doc []byte) error {
	s, err := v.def(rev, name)
	if err != nil {
		return err
	}
	res := s.ValidateJSON(doc)
	if !res.IsValid() {
		out, _ := json.Marshal(res.ToList(false))
		return fmt.Errorf("wiretest: %s does not validate as %s %s: %s", truncate(doc), rev, name, truncate(out))
	}
	return nil
}

// Check validates one message the server sent in answer to (or during) a
// request of method, under revision rev.
func (v *Validator) Check(rev, method string, msg []byte) error {
	var m struct {
		Method *string          `json:"method"`
		Result json.RawMessage  `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return fmt.Errorf("wiretest: not JSON: %w", err)
	}
	switch {
	case m.Method != nil:
		if err := v.validate(rev, "JSONRPCNotification", msg); err != nil {
			return err
		}
		if *m.Method == "notifications/progress" {
			return v.validate(rev, "ProgressNotification", msg)
		}
		return nil
	case m.Error != nil:
		name := "JSONRPCErrorResponse"
		if rev == Rev20250618 {
			name = "JSONRPCError"
		}
		if err := v.validate(rev, name, msg); err != nil {
			return err
		}
		if rev == Rev20260728 {
			var e struct {
				Code int `json:"code"`
			}
			json.Unmarshal(*m.Error, &e)
			if d, ok := errorDefs[e.Code]; ok {
				if d.whole {
					return v.validate(rev, d.def, msg)
				}
				return v.validate(rev, d.def, *m.Error)
			}
		}
		return nil
	case m.Result != nil:
		name := "JSONRPCResultResponse"
		if rev == Rev20250618 {
			name = "JSONRPCResponse"
		}
		if err := v.validate(rev, name, msg); err != nil {
			return err
		}
		def, ok := resultDefs[method]
		if !ok {
			return fmt.Errorf("wiretest: no result definition for method %q", method)
		}
		return v.validate(rev, def, m.Result)
	}
	return fmt.Errorf("wiretest: %s is neither a result, an error nor a notification", truncate(msg))
}

func truncate(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}
