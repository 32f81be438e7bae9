package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/mcp"
)

// FuzzDecodeRequest checks the strict envelope decoder against independent
// references: whatever it accepts is valid JSON (encoding/json agrees),
// valid UTF-8, free of duplicate member names at every depth (a
// Token-walking reference), and has exactly the envelope members; and it
// never panics.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range []string{
		req(1, "tools/list", ""),
		req("a", "tools/call", `"name":"echo","arguments":{"sql":"SELECT 1","n":[1,2,{"x":null}]}`),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,"a":2}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","\u0070arams":{}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"m"}`,
		`{"jsonrpc":"2.0","id":1.5e3,"method":"m"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"m"}]`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":"\ud83d\ude00\ud800"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r1, e1 := mcp.DecodeRequest(b)
		r2, e2 := mcp.DecodeRequest(b)
		if (e1 == nil) != (e2 == nil) || (r1 == nil) != (r2 == nil) {
			t.Fatal("DecodeRequest is not deterministic")
		}
		if e1 != nil {
			return
		}
		if !json.Valid(b) || !utf8.Valid(b) {
			t.Fatalf("accepted input that encoding/json or UTF-8 rejects: %q", b)
		}
		if dupKeys(b) {
			t.Fatalf("accepted input with a duplicate member name: %q", b)
		}
		var env map[string]json.RawMessage
		if err := json.Unmarshal(b, &env); err != nil {
			t.Fatal(err)
		}
		for k := range env {
			switch k {
			case "jsonrpc", "id", "method", "params":
			default:
				t.Fatalf("accepted envelope member %q", k)
			}
		}
		var method string
		if json.Unmarshal(env["method"], &method) != nil || method != r1.Method || method == "" {
			t.Fatalf("method %q vs decoded %q", env["method"], r1.Method)
		}
		if _, ok := env["id"]; ok == r1.Notification {
			t.Fatalf("notification flag %v with id present %v", r1.Notification, ok)
		}
	})
}

// dupKeys is a slow, independent duplicate-member detector.
func dupKeys(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj   bool
		keys  map[string]bool
		atKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.obj && top.atKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					return true
				}
				top.keys[k] = true
				top.atKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			if top != nil && top.obj {
				top.atKey = true
			}
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, atKey: true})
			continue
		case json.Delim('['):
			if top != nil && top.obj {
				top.atKey = true
			}
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].atKey = true
			}
			continue
		}
		if top != nil && top.obj {
			top.atKey = true
		}
	}
}
