package schema_test

// The validator must reach the same verdict as a complete JSON Schema
// 2020-12 implementation (kaptinlin/jsonschema) on every schema it
// compiles, not only on the contract's (catalog and doris/ossie test
// those): here schemas and documents are generated over every keyword the
// validator claims, including the ones the contract does not use yet.
// A schema the validator refuses to compile (a keyword it does not
// implement) is not compared: refusing is its promise for those.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kaptinlin/jsonschema"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// source hands out choices from the fuzzer's bytes (zero once they run
// out, so every input is a finite schema and document).
type source struct {
	b []byte
}

func (s *source) n(k int) int {
	if len(s.b) == 0 || k <= 1 {
		return 0
	}
	c := int(s.b[0])
	s.b = s.b[1:]
	return c % k
}

func (s *source) pick(list ...any) any { return list[s.n(len(list))] }

var (
	numbers = []string{"0", "-0", "1", "-1", "2", "3", "7", "10", "100", "1.0", "0.1", "0.3", "0.35", "0.7", "-1.1",
		"2.5", "7.5", "19.99", "1e2", "1e-1", "3e-1", "0.30000000000000004", "4.02", "0.0075", "1e400",
		"123456789012345678901234567890", "0.10000000000000000001", "1.5", "-2.5", "1000000", "0.01"}
	divisors = []string{"0.1", "0.01", "0.25", "2.5", "3", "1e-2", "0.3", "7", "1", "2", "0.0001", "1.5"}
	texts    = []string{"", "a", "ab", "abc", "abcd", "é", "日本", "a b", "A", "0", "\u00e9\u00e9\u00e9"}
	names    = []string{"a", "b", "c", "A", "x_1"}
	patterns = []string{"^a", "b$", "^[a-z]+$", "[0-9]", "^.{2}$", "é"}
	types    = []string{"null", "boolean", "integer", "number", "string", "array", "object"}
)

func (s *source) number() json.Number { return json.Number(numbers[s.n(len(numbers))]) }

// value generates a JSON value, nested at most depth levels.
func (s *source) value(depth int) any {
	k := s.n(9)
	if depth <= 0 && k >= 7 {
		k = s.n(7)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return s.n(2) == 0
	case 2, 3:
		return s.number()
	case 4, 5:
		return texts[s.n(len(texts))]
	case 7:
		n := s.n(4)
		arr := make([]any, 0, n)
		for i := 0; i < n; i++ {
			arr = append(arr, s.value(depth-1))
		}
		if n > 0 && s.n(3) == 0 {
			arr = append(arr, arr[0]) // a repeat, for uniqueItems
		}
		return arr
	default:
		obj := map[string]any{}
		for i, n := 0, s.n(4); i < n; i++ {
			obj[names[s.n(len(names))]] = s.value(depth - 1)
		}
		return obj
	}
}

func (s *source) nameList() []any {
	var out []any
	for i, n := 0, 1+s.n(3); i < n; i++ {
		out = append(out, names[s.n(len(names))])
	}
	return out
}

// subschema generates a schema of a few keywords; defs names the root's
// definitions a $ref may point at.
func (s *source) subschema(depth int, defs []string) any {
	if s.n(12) == 0 {
		return s.n(2) == 0 // the true and false schemas
	}
	m := map[string]any{}
	for i, n := 0, 1+s.n(3); i < n; i++ {
		s.keyword(m, depth, defs)
	}
	return m
}

func (s *source) keyword(m map[string]any, depth int, defs []string) {
	sub := func() any {
		if depth <= 0 {
			return s.pick(true, false, map[string]any{"type": types[s.n(len(types))]})
		}
		return s.subschema(depth-1, defs)
	}
	subs := func() []any {
		out := []any{sub()}
		for i, n := 0, s.n(3); i < n; i++ {
			out = append(out, sub())
		}
		return out
	}
	switch s.n(34) {
	case 0, 1:
		m["type"] = types[s.n(len(types))]
	case 2:
		m["type"] = []any{types[s.n(len(types))], types[s.n(len(types))]}
	case 3:
		m["enum"] = []any{s.value(1), s.value(1), s.number()}
	case 4:
		m["const"] = s.value(2)
	case 5:
		m["minLength"] = s.n(4)
	case 6:
		m["maxLength"] = s.n(4)
	case 7:
		m["pattern"] = patterns[s.n(len(patterns))]
	case 8:
		m["minimum"] = s.number()
	case 9:
		m["maximum"] = s.number()
	case 10:
		m["exclusiveMinimum"] = s.number()
	case 11:
		m["exclusiveMaximum"] = s.number()
	case 12, 13:
		m["multipleOf"] = json.Number(divisors[s.n(len(divisors))])
	case 14:
		m["minItems"] = s.n(4)
	case 15:
		m["maxItems"] = s.n(4)
	case 16:
		m["uniqueItems"] = s.n(3) > 0
	case 17:
		m["items"] = sub()
	case 18:
		props := map[string]any{}
		for i, n := 0, 1+s.n(3); i < n; i++ {
			props[names[s.n(len(names))]] = sub()
		}
		m["properties"] = props
	case 19:
		m["additionalProperties"] = sub()
	case 20:
		m["required"] = s.nameList()
	case 21:
		m["propertyNames"] = s.pick(map[string]any{"maxLength": 1}, map[string]any{"pattern": "^[a-z]"},
			map[string]any{"enum": []any{"a", "b"}}, false)
	case 22:
		m["minProperties"] = s.n(4)
	case 23:
		m["maxProperties"] = s.n(4)
	case 24:
		m["dependentRequired"] = map[string]any{names[s.n(len(names))]: s.nameList()}
	case 25:
		m["allOf"] = subs()
	case 26:
		m["anyOf"] = subs()
	case 27:
		m["oneOf"] = subs()
	case 28:
		m["not"] = sub()
	case 29:
		m["if"] = sub()
		if s.n(3) > 0 {
			m["then"] = sub()
		}
		if s.n(3) > 0 {
			m["else"] = sub()
		}
	case 30:
		if len(defs) > 0 {
			m["$ref"] = "#/$defs/" + defs[s.n(len(defs))]
		}
	case 31:
		// Keywords the validator does not implement: the schema must be
		// refused, never half-checked.
		switch s.n(4) {
		case 0:
			m["contains"] = sub()
			if s.n(2) == 0 {
				m["minContains"] = s.n(3)
			}
		case 1:
			m["prefixItems"] = subs()
		case 2:
			m["patternProperties"] = map[string]any{"^a": sub()}
		default:
			m["unevaluatedProperties"] = false
		}
	default:
		m["description"] = "annotation"
	}
}

// generated builds a schema (with $defs) and a document from the input.
func generated(data []byte) (schemaDoc, doc []byte) {
	s := &source{b: data}
	var defs []string
	root := map[string]any{}
	if s.n(3) == 0 {
		d := map[string]any{}
		for i, n := 0, 1+s.n(2); i < n; i++ {
			defs = append(defs, fmt.Sprintf("d%d", i))
		}
		for _, name := range defs {
			d[name] = s.subschema(2, defs)
		}
		root["$defs"] = d
	}
	for i, n := 0, 1+s.n(3); i < n; i++ {
		s.keyword(root, 2, defs)
	}
	schemaDoc, _ = json.Marshal(root)
	doc, _ = json.Marshal(s.value(3))
	return schemaDoc, doc
}

// agreement is one comparison: compared reports whether both validators
// compiled the schema and the document could be compared.
func agreement(t *testing.T, schemaDoc, doc []byte) (compared bool) {
	t.Helper()
	ours, err := schema.Compile(schemaDoc)
	if err != nil {
		return false // refused: a keyword ours does not implement, or a bad schema
	}
	var full *jsonschema.Schema
	func() {
		defer func() {
			if recover() != nil {
				full = nil
			}
		}()
		full, err = jsonschema.NewCompiler().Compile(schemaDoc)
	}()
	if err != nil || full == nil {
		return false
	}
	if !json.Valid(doc) || dupNames(doc) {
		return false
	}
	want := full.ValidateJSON(doc).IsValid()
	if got := ours.Valid(doc); got != want {
		t.Fatalf("schema %s\ndocument %s\nours says valid=%v, kaptinlin says %v", schemaDoc, doc, got, want)
	}
	if v := ours.Validate(doc, schema.Limits{}, 0); (len(v) == 0) != want {
		t.Fatalf("schema %s\ndocument %s\nValidate says %v, Valid says %v", schemaDoc, doc, v, want)
	}
	return true
}

// TestKeywordsAgree: thousands of generated schemas and documents, the
// same verdict from both validators whenever ours compiles the schema.
func TestKeywordsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 29))
	n := 6000
	if testing.Short() {
		n = 600
	}
	compared, valid := 0, 0
	buf := make([]byte, 96)
	for i := 0; i < n; i++ {
		for j := range buf {
			buf[j] = byte(rng.UintN(256))
		}
		sd, doc := generated(buf)
		if agreement(t, sd, doc) {
			compared++
			if schema.MustCompile(string(sd)).Valid(doc) {
				valid++
			}
		}
	}
	t.Logf("%d of %d compared, %d of them valid", compared, n, valid)
	// The generator must reach both verdicts, often.
	if compared < n/3 || valid < compared/10 || valid > compared*9/10 {
		t.Errorf("%d of %d compared, %d of them valid: the generator does not exercise the validator", compared, n, valid)
	}
}

// FuzzKeywordsAgree lets the fuzzer drive the generator.
//
//	go test ./doris/schema -run '^$' -fuzz FuzzKeywordsAgree
func FuzzKeywordsAgree(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 32; i++ {
		b := make([]byte, 64)
		for j := range b {
			b[j] = byte(rng.UintN(256))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sd, doc := generated(data)
		agreement(t, sd, doc)
	})
}

// FuzzSchemaAgrees lets the fuzzer write schemas and documents as text,
// from seeds covering each keyword.
//
//	go test ./doris/schema -run '^$' -fuzz FuzzSchemaAgrees
func FuzzSchemaAgrees(f *testing.F) {
	for _, p := range [][2]string{
		{`{"multipleOf":0.1}`, `0.3`},
		{`{"multipleOf":2.5,"minimum":0}`, `7.5`},
		{`{"exclusiveMinimum":0,"exclusiveMaximum":1}`, `0.5`},
		{`{"const":{"a":[1,2.0]}}`, `{"a":[1.0,2]}`},
		{`{"enum":[1,"a",null,[1]]}`, `[1.0]`},
		{`{"uniqueItems":true}`, `[1,1.0]`},
		{`{"uniqueItems":true,"items":{"type":"object"}}`, `[{"a":1,"b":2},{"b":2,"a":1}]`},
		{`{"contains":{"type":"integer"},"minContains":2}`, `[1,"a",2]`},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`},
		{`{"prefixItems":[{"type":"integer"}]}`, `[1,"x"]`},
		{`{"if":{"properties":{"a":{"const":1}}},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1,"c":1}`},
		{`{"not":{"type":"string"}}`, `"x"`},
		{`{"anyOf":[{"type":"string"},{"minimum":3}]}`, `2`},
		{`{"oneOf":[{"type":"integer"},{"multipleOf":0.5}]}`, `1`},
		{`{"patternProperties":{"^a":{"type":"integer"}}}`, `{"ab":"x"}`},
		{`{"minProperties":2,"maxProperties":3}`, `{"a":1}`},
		{`{"propertyNames":{"pattern":"^[a-z]+$"}}`, `{"A":1}`},
		{`{"properties":{"a":{"type":"integer"}},"additionalProperties":false,"required":["a"]}`, `{"a":1.0}`},
		{`{"$defs":{"n":{"type":"array","items":{"$ref":"#/$defs/n"}}},"$ref":"#/$defs/n"}`, `[[],[[]]]`},
		{`{"type":["integer","string"],"minLength":2,"maximum":5}`, `"a"`},
		{`{"minLength":2}`, `"é"`},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, schemaDoc, doc []byte) {
		if len(schemaDoc) > 4096 || len(doc) > 4096 || strings.Contains(string(schemaDoc), `"format"`) {
			return
		}
		agreement(t, schemaDoc, doc)
	})
}
