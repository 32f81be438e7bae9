package sim

import "testing"

func TestVariantTypeOf(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"a": 127, "b": -128, "c": 128, "d": 32768, "e": 2147483648, "f": 9223372036854775808, "g": 1.0}`,
			`{"a":"tinyint","b":"tinyint","c":"smallint","d":"int","e":"bigint","f":"largeint","g":"double"}`},
		{`{"s": "x", "t": true, "n": null, "o": {}, "deep": {"x": {"y": "z"}}}`, `{"deep.x.y":"string","s":"string","t":"boolean"}`},
		{`{"ints": [1, 300], "mixed": [1, "a"], "objs": [{"a": 1}], "empty": []}`,
			`{"empty":"jsonb","ints":"array<smallint>","mixed":"jsonb","objs":"jsonb"}`},
		{`42`, `{"":"tinyint"}`},
		{`not json`, `{}`},
	} {
		if got := variantTypeOf(c.doc); got != c.want {
			t.Errorf("variantTypeOf(%s):\n got  %s\n want %s", c.doc, got, c.want)
		}
	}
}

func TestRewriteVariant(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT v['a']['b'] FROM t", `SELECT COALESCE(JSON_VALUE(v, '$."a"."b"'), JSON_QUERY(v, '$."a"."b"')) FROM t`},
		{"SELECT t.v['k'][0] FROM t", `SELECT COALESCE(JSON_VALUE(t.v, '$."k"[0]'), JSON_QUERY(t.v, '$."k"[0]')) FROM t`},
		{"SELECT arr[1] FROM t", "SELECT arr[1] FROM t"},
		{"SELECT VARIANT_TYPE(v['x']) FROM t", "SELECT CONCAT('\x1fVARIANT_TYPE\x1f', JSON_EXTRACT(v, '$.\"x\"')) AS `VARIANT_TYPE(v['x'])` FROM t"},
	} {
		if got, _ := rewriteVariant(c.in); got != c.want {
			t.Errorf("rewriteVariant(%q):\n got  %q\n want %q", c.in, got, c.want)
		}
	}
}

func TestBackingDatabase(t *testing.T) {
	for _, c := range [][2]string{{"ice", "sales"}, {"a_b", "c"}, {"a", "b_c"}, {"x", "_"}} {
		b := BackingDatabase(c[0], c[1])
		cat, db, ok := splitBacking(b)
		if !ok || cat != c[0] || db != c[1] {
			t.Errorf("splitBacking(%q): got %q %q %v, want %q %q", b, cat, db, ok, c[0], c[1])
		}
	}
	for _, n := range []string{"demo", "__ext", "__ext3_ab", "__extx_a_b", "__ext0__b"} {
		if isBackingDatabase(n) {
			t.Errorf("isBackingDatabase(%q) = true", n)
		}
	}
}
