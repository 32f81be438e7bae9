package doris

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendValue(t *testing.T) {
	for _, tc := range []struct {
		dbType string
		in     []byte
		want   string
	}{
		// NULL is null, whatever the type.
		{"BIGINT", nil, `null`},
		{"VARCHAR", nil, `null`},
		{"DATETIME", nil, `null`},
		// Integers: numbers up to 2^53-1 in magnitude, strings beyond.
		{"INT", []byte("42"), `42`},
		{"BIGINT", []byte("-17"), `-17`},
		{"BIGINT", []byte("9007199254740991"), `9007199254740991`},
		{"BIGINT", []byte("-9007199254740991"), `-9007199254740991`},
		{"BIGINT", []byte("9007199254740992"), `"9007199254740992"`},
		{"BIGINT", []byte("-9007199254740993"), `"-9007199254740993"`},
		{"BIGINT", []byte("9223372036854775807"), `"9223372036854775807"`},
		{"UNSIGNED BIGINT", []byte("18446744073709551615"), `"18446744073709551615"`},
		{"UNSIGNED INT", []byte("4294967295"), `4294967295`},
		{"TINYINT", []byte("1"), `1`},
		{"YEAR", []byte("2026"), `2026`},
		// LARGEINT arrives as text: kept exact.
		{"LARGEINT", []byte("170141183460469231731687303715884105727"), `"170141183460469231731687303715884105727"`},
		// Decimals are exact strings, never floats.
		{"DECIMAL", []byte("1312.05"), `"1312.05"`},
		{"DECIMAL", []byte("-0.10"), `"-0.10"`},
		{"DECIMAL", []byte("12345678901234567890.123456789"), `"12345678901234567890.123456789"`},
		// Floats are numbers; what JSON cannot carry is a string.
		{"DOUBLE", []byte("1.5"), `1.5`},
		{"FLOAT", []byte("0.1"), `0.1`},
		{"DOUBLE", []byte("1e300"), `1e+300`},
		{"DOUBLE", []byte("inf"), `"inf"`},
		{"DOUBLE", []byte("NaN"), `"NaN"`},
		// Dates and times in ISO 8601.
		{"DATETIME", []byte("2026-02-10 10:45:37"), `"2026-02-10T10:45:37"`},
		{"DATETIME", []byte("2026-02-10 10:45:37.123456"), `"2026-02-10T10:45:37.123456"`},
		{"TIMESTAMP", []byte("1970-01-01 00:00:01"), `"1970-01-01T00:00:01"`},
		{"DATE", []byte("2026-02-10"), `"2026-02-10"`},
		// Binary as base64.
		{"VARBINARY", []byte{0, 1, 2, 0xff, 0xfe}, `"AAEC//4="`},
		{"BLOB", []byte("abc"), `"YWJj"`},
		{"BINARY", []byte{}, `""`},
		// Text as strings, escaped; text that is not UTF-8 as base64.
		{"VARCHAR", []byte(`a"b\c`), `"a\"b\\c"`},
		{"TEXT", []byte("请放在门口 <b>&"), `"请放在门口 \u003cb\u003e\u0026"`},
		{"CHAR", []byte("line\nnext\ttab\x01"), `"line\nnext\ttab\u0001"`},
		{"VARCHAR", []byte{'a', 0xff, 'b'}, `"` + base64.StdEncoding.EncodeToString([]byte{'a', 0xff, 'b'}) + `"`},
		{"JSON", []byte(`{"k":1}`), `"{\"k\":1}"`},
		{"", []byte("x"), `"x"`},
	} {
		got := string(appendValue(nil, tc.dbType, tc.in))
		if got != tc.want {
			t.Errorf("%s %q: %s, want %s", tc.dbType, tc.in, got, tc.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s %q: invalid JSON %s", tc.dbType, tc.in, got)
		}
	}
}

// TestAppendStringMatchesEncodingJSON: the allocation-free encoder writes
// exactly what encoding/json writes.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	cases := []string{"", "plain", "\"\\/", "\b\f\n\r\t\x00\x1f\x7f", "<>&", "\u2028\u2029", "é中文😀",
		"bad \xff byte", "\xc3", "\xed\xa0\x80 surrogate", "\xf4\x90\x80\x80 too big", strings.Repeat("ab\"", 100)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: %s, encoding/json %s", s, got, want)
		}
		if got := appendString(nil, []byte(s)); string(got) != string(want) {
			t.Fatalf("bytes %q: %s, encoding/json %s", s, got, want)
		}
	}
}

func FuzzAppendValue(f *testing.F) {
	f.Add("VARCHAR", []byte("x"))
	f.Add("BIGINT", []byte("9007199254740993"))
	f.Add("DATETIME", []byte("2026-01-01 00:00:00"))
	f.Fuzz(func(t *testing.T, dbType string, v []byte) {
		got := appendValue(nil, dbType, v)
		if !json.Valid(got) {
			t.Fatalf("%s %q: invalid JSON %s", dbType, v, got)
		}
		if kindOf(dbType) == kindText && utf8.Valid(v) {
			var s string
			if err := json.Unmarshal(got, &s); err != nil || s != string(v) {
				t.Fatalf("%q round trip %q %v", v, s, err)
			}
		}
	})
}

func TestAppendValueAllocations(t *testing.T) {
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		buf = appendValue(buf[:0], "VARCHAR", []byte("hello \"world\""))
		buf = appendValue(buf, "DATETIME", []byte("2026-02-10 10:45:37"))
		buf = appendValue(buf, "VARBINARY", []byte{1, 2, 3})
		buf = appendValue(buf, "BIGINT", []byte("9007199254740993"))
	})
	if allocs > 0 {
		t.Fatalf("%v allocations per row", allocs)
	}
}

// TestUniqueNames: rows never carry two members of one name, whatever the
// column names are; the first column of a name keeps it.
func TestUniqueNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", "a"},
		{"a,b", "a,b"},
		{"a,a", "a,a_2"},
		{"a,a,a", "a,a_2,a_3"},
		{"a,a,a_2", "a,a_3,a_2"},
		{"a_2,a,a", "a_2,a,a_3"},
		{"a,a,a_2,a_2", "a,a_3,a_2,a_2_2"},
		{"x,x_2,x,x_3,x", "x,x_2,x_4,x_3,x_5"},
	} {
		var cols []Column
		for _, n := range strings.Split(tc.in, ",") {
			cols = append(cols, Column{Name: n})
		}
		got := uniqueNames(cols)
		if strings.Join(got, ",") != tc.want {
			t.Errorf("uniqueNames(%s) = %s, want %s", tc.in, strings.Join(got, ","), tc.want)
		}
		seen := map[string]bool{}
		for _, n := range got {
			if seen[n] {
				t.Errorf("uniqueNames(%s) repeats %q", tc.in, n)
			}
			seen[n] = true
		}
	}
}
