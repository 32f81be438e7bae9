package schema_test

import (
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// TestMalformedDocumentsAreInvalid: Valid and Validate refuse anything
// that is not exactly one JSON value, whatever the schema says.
func TestMalformedDocumentsAreInvalid(t *testing.T) {
	schemas := []*schema.Schema{
		schema.MustCompile(`{}`), schema.MustCompile(`true`), schema.MustCompile(`{"type":"object"}`),
		schema.MustCompile(`{"type":["boolean","null","number","string","array","object"]}`),
		schema.MustCompile(`{"properties":{"a":{"type":"integer"}}}`),
	}
	for _, doc := range []string{
		``, `  `, `tru`, `nul`, `fals`, `truex`, `{} trailing`, `{}{}`, `1 2`, `{"a":1,}`, `[1,]`, `[,1]`, `{"a" 1}`,
		`{"a":1 "b":2}`, `{a:1}`, `{'a':1}`, `"abc`, `"abc\"`, `{"a":"b}`, `"\x"`, `"\u12"`, `"\ud800"`, "\"a\x01b\"",
		`01`, `1.`, `.5`, `-`, `+1`, `1e`, `1e+`, `0x10`, `NaN`, `Infinity`, `-Infinity`, `{"a":tru}`, `[1 2]`,
		`{"a":1}}`, `[1]]`, `{"a":[1,2}`, `[`, `{`, `}`, "\xff", "\"\xff\"", "\xef\xbb\xbf{}", `{"a":01}`,
		`{"a":-}`, `{"a":1e5.5}`,
	} {
		for i, s := range schemas {
			if s.Valid([]byte(doc)) {
				t.Errorf("schema %d: Valid(%q) = true", i, doc)
			}
			v := s.Validate([]byte(doc), schema.Limits{}, 0)
			if len(v) != 1 || v[0].Keyword != "json" {
				t.Errorf("schema %d: Validate(%q) = %v, want one json violation", i, doc, v)
			}
		}
	}
}
