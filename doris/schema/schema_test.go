package schema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

const args = `{"type":"object","additionalProperties":false,"required":["database"],"properties":{
	"database":{"type":"string","minLength":1,"maxLength":8},
	"sql":{"type":"string","maxLength":10},
	"limit":{"type":"integer","minimum":1,"maximum":1000},
	"types":{"type":"array","minItems":1,"uniqueItems":true,"items":{"enum":["table","view"]}},
	"query_id":{"type":"string","pattern":"^[A-Za-z0-9_-]+$"},
	"filters":{"type":"object","maxProperties":2,"propertyNames":{"maxLength":4},"additionalProperties":{"type":["string","number","null"]}}},
	"oneOf":[{"required":["sql"]},{"required":["query_id"]}]}`

// TestViolations: each failure names the member and the bound, never the
// value the caller sent.
func TestViolations(t *testing.T) {
	s := schema.MustCompile(args)
	for _, tc := range []struct {
		doc  string
		want []schema.Violation
	}{
		{`{"database":"d","sql":"SELECT 1"}`, nil},
		{`{"sql":"SELECT 1"}`, []schema.Violation{{"", "required", "database is required"}}},
		{`{"database":"d","sql":"SELECT 1234567890"}`, []schema.Violation{{"/sql", "maxLength", "sql is longer than 10 characters"}}},
		{`{"database":"","sql":"x"}`, []schema.Violation{{"/database", "minLength", "database must not be empty"}}},
		{`{"database":"d","sql":"x","limit":0}`, []schema.Violation{{"/limit", "minimum", "limit must be at least 1"}}},
		{`{"database":"d","sql":"x","limit":1.5}`, []schema.Violation{{"/limit", "type", "limit must be an integer"}}},
		{`{"database":"d","sql":"x","limit":1000.0}`, nil},
		{`{"database":"d","sql":"x","limit":1000.0000000000000001}`, []schema.Violation{{"/limit", "maximum", "limit must be at most 1000"},
			{"/limit", "type", "limit must be an integer"}}},
		{`{"database":"d","sql":"x","types":["view","view"]}`, []schema.Violation{{"/types", "uniqueItems", "types must not repeat an item"}}},
		{`{"database":"d","sql":"x","types":["index"]}`, []schema.Violation{{"/types/0", "enum", `types.0 must be one of "table", "view"`}}},
		{`{"database":"d","sql":"x","Database":"e"}`, []schema.Violation{{"/Database", "additionalProperties", "Database is not a known argument"}}},
		{`{"database":"d","sql":"x","no such; DROP":"e"}`, []schema.Violation{{"/*", "additionalProperties", "a member is not a known argument"}}},
		{`{"database":"d"}`, []schema.Violation{{"", "oneOf", "the arguments must match exactly one of: sql, or query_id"}}},
		{`{"database":"d","sql":"x","query_id":"q"}`, []schema.Violation{{"", "oneOf", "the arguments must match exactly one of: sql, or query_id"}}},
		{`{"database":"d","query_id":"a b"}`, []schema.Violation{{"/query_id", "pattern", "query_id does not match the pattern ^[A-Za-z0-9_-]+$"}}},
		{`{"database":"d","sql":"x","filters":{"a":1,"b":2,"c":3}}`, []schema.Violation{{"/filters", "maxProperties", "filters must have at most 2 members"}}},
		{`{"database":"d","sql":"x","filters":{"toolong":1}}`, []schema.Violation{{"/filters", "propertyNames", "filters has a member name that is not allowed"}}},
		{`{"database":"d","sql":"x","filters":{"a":[1]}}`, []schema.Violation{{"/filters/a", "type", "filters.a must be a string, a number or null"}}},
		// required does not apply to an array, so both oneOf branches hold.
		{`[]`, []schema.Violation{{"", "oneOf", "the arguments must match exactly one of: sql, or query_id"},
			{"", "type", "the arguments must be an object"}}},
	} {
		got := s.Validate([]byte(tc.doc), schema.Limits{MaxDepth: 8, MaxNodes: 100}, 16)
		if !equal(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.doc, got, tc.want)
		}
		if s.Valid([]byte(tc.doc)) != (tc.want == nil) {
			t.Errorf("%s: Valid = %v, want %v", tc.doc, !(tc.want == nil), tc.want == nil)
		}
		for _, v := range got {
			if strings.Contains(v.Message, "SELECT") || strings.Contains(v.Message, "DROP") {
				t.Errorf("%s: a message repeats a value: %q", tc.doc, v.Message)
			}
		}
	}
}

func equal(a, b []schema.Violation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLimits: depth and size bounds stop the walk whatever the schema.
func TestLimits(t *testing.T) {
	s := schema.MustCompile(`{"type":"object"}`)
	deep := strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)
	got := s.Validate([]byte(deep), schema.Limits{MaxDepth: 32, MaxNodes: 10000}, 16)
	if len(got) != 1 || got[0].Keyword != "maxDepth" {
		t.Errorf("deep document: %v", got)
	}
	wide := "[" + strings.Repeat("1,", 20000) + "1]"
	got = schema.MustCompile(`{"type":"array"}`).Validate([]byte(wide), schema.Limits{MaxDepth: 32, MaxNodes: 10000}, 16)
	if len(got) != 1 || got[0].Keyword != "maxNodes" {
		t.Errorf("wide document: %v", got)
	}
}

// TestCompileRefusesUnknownKeywords: a keyword the validator does not
// implement is a compile error, never silently ignored.
func TestCompileRefusesUnknownKeywords(t *testing.T) {
	for _, doc := range []string{
		`{"$ref":"#/$defs/x"}`, `{"patternProperties":{"a":{}}}`, `{"contains":{}}`, `{"type":"float"}`,
		`{"minLength":-1}`, `{"pattern":"("}`, `{"properties":{"a":{"maxItems":"3"}}}`, `{"unevaluatedProperties":false}`,
	} {
		if _, err := schema.Compile([]byte(doc)); err == nil {
			t.Errorf("Compile(%s) succeeded", doc)
		}
	}
}

func TestMembersAndStr(t *testing.T) {
	doc := []byte(` { "a" : 1 , "b\u0063": {"x":[1,2,{"y":"}"}]}, "d":"e\"f" } `)
	var names []string
	var vals []string
	err := schema.Members(doc, func(name string, v []byte) error {
		names = append(names, name)
		vals = append(vals, string(v))
		return nil
	})
	if err != nil || strings.Join(names, ",") != "a,bc,d" || vals[1] != `{"x":[1,2,{"y":"}"}]}` {
		t.Fatalf("members %v %q %v", names, vals, err)
	}
	if s, ok := schema.Str([]byte(vals[2])); !ok || s != `e"f` {
		t.Fatalf("Str = %q %v", s, ok)
	}
	for _, bad := range []string{`{"a"}`, `{"a":1`, `{a:1}`, `[`, `{"a":1 "b":2}`} {
		if err := schema.Members([]byte(bad), func(string, []byte) error { return nil }); err == nil {
			t.Errorf("Members(%s) accepted malformed JSON", bad)
		}
	}
}

func BenchmarkValidateExecuteQuery(b *testing.B) {
	s := schema.MustCompile(`{"type":"object","additionalProperties":false,"required":["sql"],"properties":{
		"sql":{"type":"string","minLength":1,"maxLength":1048576},
		"catalog":{"type":"string","minLength":1,"maxLength":64},
		"database":{"type":"string","minLength":1,"maxLength":64},
		"parameters":{"type":"object","maxProperties":256,"propertyNames":{"pattern":"^[A-Za-z_][A-Za-z0-9_]{0,63}$"},"additionalProperties":{"type":["string","number","boolean","null"]}},
		"max_rows":{"type":"integer","minimum":1,"maximum":100000},
		"timeout_ms":{"type":"integer","minimum":1,"maximum":300000}}}`)
	doc := []byte(`{"sql":"SELECT o_orderkey, o_totalprice FROM orders WHERE o_custkey = %(c)s","database":"tpch","parameters":{"c":42},"max_rows":100}`)
	b.ReportAllocs()
	for b.Loop() {
		if v := s.Validate(doc, schema.Limits{MaxDepth: 32, MaxNodes: 10000}, 16); v != nil {
			b.Fatal(v)
		}
	}
}

// TestAppendString writes what encoding/json writes.
func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "ctl\x00\x1f\n\t", "<html>&", "é日本\u2028\u2029", "bad\xff\xfeutf8", "\U0001F600"} {
		want, _ := json.Marshal(s)
		if got := schema.AppendString(nil, s); string(got) != string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got := schema.AppendString(nil, []byte(s)); string(got) != string(want) {
			t.Errorf("AppendString([]byte %q) = %s, want %s", s, got, want)
		}
	}
}

// TestRefs: local references into $defs, beside other keywords and
// recursive below a descending keyword; cycles that would never end and
// references that go anywhere else do not compile.
func TestRefs(t *testing.T) {
	s := schema.MustCompile(`{"$defs":{"name":{"type":"string","maxLength":3},
		"tree":{"type":"object","properties":{"name":{"$ref":"#/$defs/name"},"kids":{"type":"array","items":{"$ref":"#/$defs/tree"}}},
		"additionalProperties":false}},
		"$ref":"#/$defs/tree","required":["name"]}`)
	for doc, want := range map[string]bool{
		`{"name":"a","kids":[{"name":"b","kids":[{"name":"c"}]}]}`: true,
		`{"name":"a","kids":[{"name":"bbbb"}]}`:                    false, // a $ref two levels down
		`{"kids":[]}`:                                              false, // required beside the $ref
		`{"name":"a","kids":[{"name":"b","other":1}]}`:             false,
	} {
		if got := s.Valid([]byte(doc)); got != want {
			t.Errorf("%s: valid %v, want %v", doc, got, want)
		}
	}
	for _, bad := range []string{
		`{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"not":{"$ref":"#/$defs/a"}}}}`,
		`{"$ref":"#/$defs/missing"}`,
		`{"$ref":"https://example.com/schema.json"}`,
		`{"$defs":{"a":{"properties":{"x":{"$ref":"#/definitions/a"}}}}}`,
		`{"$defs":{"a":{"minimum":"no"}}}`,
		`{"properties":{"x":{"$defs":{}}}}`,
	} {
		if _, err := schema.Compile([]byte(bad)); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}

// TestMembersInterns: reading names seen before allocates nothing, and the
// table never hands out a wrong name, however many names collide in it
// and however many goroutines read at once.
func TestMembersInterns(t *testing.T) {
	doc := []byte(`{"alpha":1,"beta_gamma":2,"x":3}`)
	count := func() {
		schema.Members(doc, func(string, []byte) error { return nil })
	}
	count()
	if n := testing.AllocsPerRun(100, count); n != 0 {
		t.Errorf("Members allocates %v times per walk of names it has seen", n)
	}
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- true }()
			for i := 0; i < 5000; i++ {
				want := "name" + strings.Repeat("x", i%7) + itoa(i*(g+1))
				obj := []byte(`{"` + want + `":1}`)
				schema.Members(obj, func(name string, _ []byte) error {
					if name != want {
						t.Errorf("Members read %q as %q", want, name)
					}
					return nil
				})
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
