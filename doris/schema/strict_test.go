package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

func reasonOf(err error) schema.Reason {
	var e *schema.Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return 0
}

// TestCheckReasons: each refusal is classified, whatever else is wrong
// with the document nowhere earlier.
func TestCheckReasons(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		s    schema.Strict
		want schema.Reason // 0: accepted
	}{
		{`{"a":[1,2.5e3,-0,"x",true,false,null,{}]}`, schema.Strict{}, 0},
		{`  "top-level scalar"  `, schema.Strict{}, 0},
		{`{"a":1,"a":2}`, schema.Strict{}, schema.Duplicate},
		{`{"a":1,"\u0061":2}`, schema.Strict{}, schema.Duplicate},
		{`{"a":{"b":1,"b":1}}`, schema.Strict{}, schema.Duplicate},
		{`[{"a":1},{"a":1}]`, schema.Strict{}, 0},
		{`{"a":1,"a":2}`, schema.Strict{Duplicates: true}, 0},
		{`{"A":1,"a":2}`, schema.Strict{}, 0}, // case variants are Decode's business
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"c":12}`, schema.Strict{}, schema.Duplicate},
		{`{"a":1} x`, schema.Strict{}, schema.Trailing},
		{`tru`, schema.Strict{}, schema.Syntax},
		{`{"a":1,}`, schema.Strict{}, schema.Syntax},
		{`"abc`, schema.Strict{}, schema.Syntax},
		{"\"a\x01b\"", schema.Strict{}, schema.Control},
		{"{\x01}", schema.Strict{}, schema.Control},
		{"\"a\xffb\"", schema.Strict{}, schema.Encoding},
		{"\xff", schema.Strict{}, schema.Encoding},
		{"\xef\xbb\xbf{}", schema.Strict{}, schema.Encoding},
		{`"\ud800"`, schema.Strict{}, schema.Encoding},
		{`"\ud800\u0041"`, schema.Strict{}, schema.Encoding},
		{`"\ud83d\ude00"`, schema.Strict{}, 0},
		{`NaN`, schema.Strict{}, schema.NonFinite},
		{`[-Infinity]`, schema.Strict{}, schema.NonFinite},
		{`1e999`, schema.Strict{}, 0},
		{`1e999`, schema.Strict{Finite: true}, schema.NonFinite},
		{`-1e308`, schema.Strict{Finite: true}, 0},
		{`1e-999`, schema.Strict{Finite: true}, 0},
		{`"a\u0007b"`, schema.Strict{}, 0},
		{`"a\u0007b"`, schema.Strict{Text: true}, schema.Control},
		{"\"a\x7fb\"", schema.Strict{}, 0},
		{"\"a\x7fb\"", schema.Strict{Text: true}, schema.Control},
		{`"a\u202eb"`, schema.Strict{Text: true}, schema.Control},
		{"\"a\u202eb\"", schema.Strict{Text: true}, schema.Control},
		{"\"a\u0085b\"", schema.Strict{Text: true}, schema.Control},
		{`{"a\u0000":1}`, schema.Strict{Text: true}, schema.Control},
		{`"tab\tnewline\n"`, schema.Strict{Text: true}, 0},
		{`[[[]]]`, schema.Strict{MaxDepth: 3}, 0},
		{`[[[[]]]]`, schema.Strict{MaxDepth: 3}, schema.TooDeep},
		{strings.Repeat("[", schema.DefaultMaxDepth+1) + strings.Repeat("]", schema.DefaultMaxDepth+1), schema.Strict{}, schema.TooDeep},
		{`"12345"`, schema.Strict{MaxString: 5}, 0},
		{`"123456"`, schema.Strict{MaxString: 5}, schema.TooLong},
		{`"\u00e9\u00e9\u00e9"`, schema.Strict{MaxString: 5}, schema.TooLong}, // six bytes decoded
		{`{"123456":1}`, schema.Strict{MaxString: 5}, schema.TooLong},
		{`[1,2,3]`, schema.Strict{MaxValues: 4}, 0},
		{`[1,2,3,4]`, schema.Strict{MaxValues: 4}, schema.TooMany},
		{`[1,2,3]`, schema.Strict{MaxBytes: 6}, schema.TooLarge},
		{`[1]`, schema.Strict{Object: true}, schema.NotObject},
		{`{}`, schema.Strict{Object: true}, 0},
	} {
		err := schema.Check([]byte(tc.doc), tc.s)
		if got := reasonOf(err); got != tc.want || (err == nil) != (tc.want == 0) {
			t.Errorf("Check(%.40q, %+v) = %v (reason %d), want reason %d", tc.doc, tc.s, err, got, tc.want)
		}
	}
}

// TestCheckErrorsLocate: errors say where, by byte offset and by path,
// and never quote the document in their text.
func TestCheckErrorsLocate(t *testing.T) {
	for _, tc := range []struct {
		doc, path string
		offset    int
		s         schema.Strict
	}{
		{`{"a":{"b":[1,{"c":1,"c":2}]}}`, "a.b[1]", 20, schema.Strict{}},
		{`{"a":{"b":[1,"toolong"]}}`, "a.b[1]", 13, schema.Strict{MaxString: 3}},
		{`{"a":{"toolong":1}}`, "a", 6, schema.Strict{MaxString: 3}},
		{`{"a":[[1]]}`, "a[0]", 6, schema.Strict{MaxDepth: 2}},
		{`{"a":[1,2,3]}`, "a[2]", 10, schema.Strict{MaxValues: 4}},
		{`{"a":[1,tru]}`, "a[1]", 8, schema.Strict{}},
	} {
		err := schema.Check([]byte(tc.doc), tc.s)
		var e *schema.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if got := pathString(e.Path); got != tc.path || e.Offset != tc.offset {
			t.Errorf("%s: path %q offset %d, want %q %d (%v)", tc.doc, got, e.Offset, tc.path, tc.offset, e)
		}
		if strings.Contains(e.Error(), "toolong") || strings.Contains(e.Error(), `"c"`) {
			t.Errorf("%s: the error quotes the document: %v", tc.doc, e)
		}
	}
	err := schema.Check([]byte(`{"x":1,"x":2}`), schema.Strict{})
	var e *schema.Error
	if !errors.As(err, &e) || e.Name != "x" || !e.InName || e.Error() != "duplicate member name at byte 7" {
		t.Errorf("duplicate: %#v", err)
	}
	for doc, another := range map[string]bool{`{} {}`: true, `{} 1`: true, `1 2`: true, `{} x`: false, `{} {`: false} {
		err := schema.Check([]byte(doc), schema.Strict{})
		if !errors.As(err, &e) || e.Reason != schema.Trailing || e.Another != another {
			t.Errorf("%s: %#v, want Trailing with Another %v", doc, err, another)
		}
	}
}

func pathString(p []schema.Step) string {
	var b strings.Builder
	for _, s := range p {
		if s.Name == "" && s.Index >= 0 {
			b.WriteString("[" + itoa(s.Index) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.Name)
	}
	return b.String()
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

type inner struct {
	Value string `json:"value"`
}

type embedded struct {
	Shared string `json:"shared"`
	Deep   string `json:"deep"`
}

type target struct {
	embedded
	Name    string           `json:"name"`
	Shared  int              `json:"shared"`
	Items   []inner          `json:"items"`
	ByKey   map[string]inner `json:"by_key"`
	Ptr     *inner           `json:"ptr"`
	Raw     json.RawMessage  `json:"raw"`
	Any     any              `json:"any"`
	Skip    string           `json:"-"`
	Untaged string
	Exts    map[string]string `json:"exts"`
}

// TestDecodeExactNames: a case variant of a declared member is refused at
// any depth; Known refuses undeclared members; what decodes itself (raw
// messages, interfaces) is left alone.
func TestDecodeExactNames(t *testing.T) {
	for _, tc := range []struct {
		doc   string
		known bool
		want  schema.Reason // 0: decodes
		path  string
	}{
		{`{"name":"a","items":[{"value":"v"}],"by_key":{"K":{"value":"w"}},"ptr":{"value":"p"},"raw":{"Name":1},"any":{"NAME":1}}`, true, 0, ""},
		{`{"Name":"a"}`, false, schema.CaseVariant, ""},
		{`{"NAME":"a"}`, false, schema.CaseVariant, ""},
		{`{"items":[{"value":"v"},{"Value":"w"}]}`, false, schema.CaseVariant, "items[1]"},
		{`{"by_key":{"k":{"VALUE":"w"}}}`, false, schema.CaseVariant, "by_key.k"},
		{`{"ptr":{"vALUE":"w"}}`, false, schema.CaseVariant, "ptr"},
		{`{"Deep":"d"}`, false, schema.CaseVariant, ""},
		{`{"deep":"d","shared":1}`, true, 0, ""},
		{"{\"nam\u212a\":1}", false, 0, ""}, // K (Kelvin sign) folds to k only, not e
		{"{\"by_\u212aey\":{}}", false, schema.CaseVariant, ""},
		{`{"Untaged":"x"}`, true, 0, ""},
		{`{"untaged":"x"}`, false, schema.CaseVariant, ""},
		{`{"Skip":"x"}`, false, 0, ""},
		{`{"Skip":"x"}`, true, schema.Unknown, ""},
		{`{"other":1}`, false, 0, ""},
		{`{"other":1}`, true, schema.Unknown, ""},
		{`{"exts":{"A":"1","a":"2"}}`, true, 0, ""},
		{`{"name":"a","name":"b"}`, false, schema.Duplicate, ""},
	} {
		var v target
		err := schema.Decode([]byte(tc.doc), &v, schema.Strict{Known: tc.known})
		if got := reasonOf(err); got != tc.want || (err == nil) != (tc.want == 0) {
			t.Errorf("Decode(%s, known=%v) = %v (reason %d), want %d", tc.doc, tc.known, err, got, tc.want)
			continue
		}
		var e *schema.Error
		if errors.As(err, &e) && pathString(e.Path) != tc.path {
			t.Errorf("Decode(%s): path %q, want %q", tc.doc, pathString(e.Path), tc.path)
		}
	}
	var v target
	if err := schema.Decode([]byte(`{"name":1}`), &v, schema.Strict{}); err == nil || reasonOf(err) != 0 {
		t.Errorf("a type mismatch: %v, want encoding/json's error", err)
	}
	var n any
	if err := schema.Decode([]byte(`{"n":1.50}`), &n, schema.Strict{Numbers: true}); err != nil || n.(map[string]any)["n"] != json.Number("1.50") {
		t.Errorf("Numbers: %v %#v", err, n)
	}
}

// FuzzCheck compares Check with independent references: whatever it
// accepts encoding/json accepts, is valid UTF-8 and has no duplicate
// member name; whatever encoding/json accepts that is valid UTF-8 without
// duplicates, lone surrogates or NaN, Check accepts.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2.5e3,-0,"x",true,false,null,{}]}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1,"b":1}}`, `"\ud83d\ude00"`,
		`"\ud800"`, "\"\xff\"", `{"a":1} x`, `[1,]`, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"c":1}`,
		`1e999`, `"\u00e9\u202e"`, "{\"\\u00e9\":1,\"\u00e9\":2}",
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, doc []byte, opts uint8) {
		s := schema.Strict{MaxDepth: int(opts%8) * 4, Duplicates: opts&8 != 0}
		err := schema.Check(doc, s)
		if err != nil {
			var e *schema.Error
			if !errors.As(err, &e) || e.Reason == 0 || e.Offset < 0 || e.Offset > len(doc) {
				t.Fatalf("refusal %#v is not a located *schema.Error", err)
			}
			if e.Reason == schema.Duplicate && !dupNames(doc) {
				t.Fatalf("duplicate reported in %q, which has none", doc)
			}
			if json.Valid(doc) && utf8.Valid(doc) && !dupNames(doc) && !strings.Contains(string(doc), `\u`) &&
				e.Reason != schema.TooDeep && e.Reason != schema.NonFinite {
				t.Fatalf("refused %q, which encoding/json accepts: %v", doc, err)
			}
			return
		}
		if !json.Valid(doc) || !utf8.Valid(doc) {
			t.Fatalf("accepted %q, which encoding/json or UTF-8 rejects", doc)
		}
		if !s.Duplicates && dupNames(doc) {
			t.Fatalf("accepted %q, which repeats a member name", doc)
		}
	})
}

// dupNames is a slow, independent duplicate-member detector.
func dupNames(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dup := false
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				if seen[k.(string)] {
					dup = true
				}
				seen[k.(string)] = true
				if !walk() {
					return false
				}
			}
			_, err := dec.Token()
			return err == nil
		case json.Delim('['):
			for dec.More() {
				if !walk() {
					return false
				}
			}
			_, err := dec.Token()
			return err == nil
		}
		return true
	}
	walk()
	return dup
}

func BenchmarkCheck(b *testing.B) {
	doc := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"doris_query","arguments":{"child_tool":"execute_query","arguments":{"sql":"SELECT o_orderkey, o_totalprice FROM orders WHERE o_custkey = 42","database":"tpch","max_rows":100}}}}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if err := schema.Check(doc, schema.Strict{MaxDepth: 64}); err != nil {
			b.Fatal(err)
		}
	}
}
