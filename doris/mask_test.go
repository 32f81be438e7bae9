package doris

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func testMasker(t testing.TB, rules string) *masker {
	t.Helper()
	m, err := newMasker(&Config{EnableMasking: true, MaskingRules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// maskOne masks value v of a column (type VARCHAR unless given).
func maskOne(m *masker, col, dbType, v string) (string, string, bool) {
	if dbType == "" {
		dbType = "VARCHAR"
	}
	p := m.plan([]Column{{Name: col, dbType: dbType}})
	out, rule, ok := p.apply(0, []byte(v))
	return string(out), rule, ok
}

// TestMaskPersonalData: phones, e-mails and identity numbers in several
// formats are masked, keeping 3+4 digits, the e-mail's first and last
// local character and domain, and 6+4 of an identity number.
func TestMaskPersonalData(t *testing.T) {
	m := testMasker(t, "")
	for _, c := range []struct{ col, typ, in, want, rule string }{
		{"phone", "", "13812345678", "138****5678", "phone"},
		{"mobile", "BIGINT", "13812345678", "138****5678", "phone"},
		{"contact_phone", "", "+1-555-123-4567", "+1-55*-***-4567", "phone"},
		{"phoneNumber", "", "(555) 123-4567", "(555) ***-4567", "phone"},
		{"tel", "", "+86 138 1234 5678", "+86 1** **** 5678", "phone"},
		{"mobile_no", "", "555.123.4567", "555.***.4567", "phone"},
		{"home_phone", "", "1234567", "***4567", "phone"},
		{"email", "", "john.doe@example.com", "j******e@example.com", "email"},
		{"contact", "", "ab@example.org", "**@example.org", "email"},
		{"notes", "TEXT", "write to Ana.Silva+news@mail.example.co.uk or bob@163.com today",
			"write to A************s@mail.example.co.uk or b*b@163.com today", "email"},
		{"payload", "JSON", `{"to":"jane_roe@example.net"}`, `{"to":"j******e@example.net"}`, "email"},
		{"id_card", "", "110101199003074578", "110101********4578", "identity"},
		{"identity_no", "", "11010119900307457X", "110101********457X", "identity"},
		{"national_id", "", "110101900307457", "110101*****7457", "identity"},
		{"ssn", "", "123-45-6789", "***-**-6789", "identity"},
		{"passportNumber", "", "E12345678", "*****5678", "identity"},
	} {
		t.Run(c.col+"/"+c.in, func(t *testing.T) {
			got, rule, ok := maskOne(m, c.col, c.typ, c.in)
			if !ok || got != c.want || rule != c.rule {
				t.Errorf("got %q (rule %q, masked %v), want %q (rule %q)", got, rule, ok, c.want, c.rule)
			}
		})
	}
}

// TestMaskLeavesLookAlikes: identifiers and numbers that merely look like
// personal data are never changed, whatever the column is called.
func TestMaskLeavesLookAlikes(t *testing.T) {
	m := testMasker(t, "")
	for _, c := range []struct{ col, typ, v string }{
		{"order_id", "BIGINT", "13812345678"},
		{"external_ref", "BIGINT", "9007199254740993"},
		{"hotel_id", "INT", "55512345"},
		{"created_at", "DATETIME", "2024-01-15 10:30:00"},
		{"order_date", "DATE", "2024-01-15"},
		{"ts", "VARCHAR", "2024-01-15T10:30:00.123+08:00"},
		{"total_amount", "DECIMAL", "1234567.89"},
		{"amount", "VARCHAR", "-12,345,678.00"},
		{"trace_id", "VARCHAR", "550e8400-e29b-41d4-a716-446655440000"},
		{"client_ip", "VARCHAR", "192.168.100.200"},
		{"ipv6", "VARCHAR", "2001:db8::8a2e:370:7334"},
		{"version", "VARCHAR", "2.1.7-rc03-443e87e203"},
		{"dependency", "VARCHAR", "lodash@4.17.21"},
		{"asset", "VARCHAR", "logo@2x.png"},
		{"mention", "VARCHAR", "ping @alice about it"},
		{"remote", "VARCHAR", "user@localhost"},
		{"sku", "VARCHAR", "SKU-ELE-0012"},
		// Named like personal data, but not shaped like it.
		{"phone_model", "VARCHAR", "iPhone 15 Pro"},
		{"phone", "VARCHAR", "unknown"},
		{"phone", "VARCHAR", "12345"},
		{"mobile_os", "VARCHAR", "Android 14"},
		{"id_card_type", "VARCHAR", "resident"},
		{"identity_verified_at", "DATETIME", "2024-01-15 10:30:00"},
		{"passport_country", "VARCHAR", "DE"},
		{"email_verified", "TINYINT", "1"},
	} {
		t.Run(c.col+"/"+c.v, func(t *testing.T) {
			if got, rule, ok := maskOne(m, c.col, c.typ, c.v); ok {
				t.Errorf("%s = %q was masked to %q by %s", c.col, c.v, got, rule)
			}
		})
	}
}

// TestMaskOperatorRules: configured rules come first for their columns;
// pattern rules mask only what matches.
func TestMaskOperatorRules(t *testing.T) {
	m := testMasker(t, `[
		{"name": "customer_name", "columns": ["full_name", "*_name"], "keep_prefix": 1},
		{"name": "iban", "columns": ["iban*"], "pattern": "[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}", "keep_prefix": 4, "keep_suffix": 4, "mask_char": "#"},
		{"name": "vip_phone", "columns": ["vip_phone"]}]`)
	for _, c := range []struct{ col, in, want, rule string }{
		{"full_name", "Zoë Müller", "Z*********", "customer_name"},
		{"FIRST_NAME", "Ana", "A**", "customer_name"},
		{"iban_primary", "pay to DE89370400440532013000 now", "pay to DE89##############3000 now", "iban"},
		{"vip_phone", "13812345678", "***********", "vip_phone"},
	} {
		if got, rule, ok := maskOne(m, c.col, "", c.in); !ok || got != c.want || rule != c.rule {
			t.Errorf("%s %q: got %q by %q (%v), want %q by %q", c.col, c.in, got, rule, ok, c.want, c.rule)
		}
	}
	if _, _, ok := maskOne(m, "iban", "", "no account here"); ok {
		t.Error("a pattern rule masked a value without a match")
	}
}

// TestMaskRulesRefused: every problem of MASKING_RULES_JSON is reported,
// naming its rule.
func TestMaskRulesRefused(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"name":"x"}`, "not a JSON array"},
		{`[{"name":"x","columns":["a"],"colour":"red"}]`, `unknown field "colour"`},
		{`[{"name":"Bad Name","columns":["a"]}]`, "name must match"},
		{`[{"name":"phone","columns":["a"]}]`, "built-in"},
		{`[{"name":"a","columns":["x"]},{"name":"a","columns":["y"]}]`, "used twice"},
		{`[{"name":"a","columns":[]}]`, "1 to 32"},
		{`[{"name":"a","columns":["[x"]}]`, "not a valid glob"},
		{`[{"name":"a","columns":["x"],"pattern":"(unclosed"}]`, "not a valid RE2"},
		{`[{"name":"a","columns":["x"],"pattern":"a*"}]`, "matches the empty string"},
		{`[{"name":"a","columns":["x"],"keep_prefix":65}]`, "0..64"},
		{`[{"name":"a","columns":["x"],"mask_char":"ab"}]`, "exactly one printable"},
	} {
		_, errs := parseMaskRules(c.json)
		if len(errs) == 0 || !strings.Contains(errs[0].Error(), c.want) || !strings.HasPrefix(errs[0].Error(), "MASKING_RULES_JSON: ") {
			t.Errorf("%s: errors %v, want one containing %q", c.json, errs, c.want)
		}
	}
	cfg := DefaultConfig()
	cfg.MaskingRules = `[{"name":"a","columns":["x"],"pattern":"("},{"name":"b","columns":[]}]`
	if errs := cfg.Validate(); len(errs) != 2 {
		t.Errorf("Validate reported %d problems, want both rules' (%v)", len(errs), errs)
	}
}

// TestMaskDisabled: with ENABLE_MASKING=false nothing is planned.
func TestMaskDisabled(t *testing.T) {
	m, err := newMasker(&Config{EnableMasking: false, MaskingRules: `[{"name":"a","columns":["x"]}]`})
	if err != nil || m != nil || m.plan([]Column{{Name: "phone", dbType: "VARCHAR"}}) != nil {
		t.Fatalf("disabled masker = %v, %v", m, err)
	}
}

func TestNameWords(t *testing.T) {
	for in, want := range map[string]string{"contactPhone2": "contact phone", "ID_CARD": "id card", "e-mail address": "e mail address",
		"HTTPServer": "httpserver", "national.id": "national id"} {
		if got := strings.Join(nameWords(in), " "); got != want {
			t.Errorf("nameWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzMaskValue: masking never panics, keeps UTF-8 valid and keeps the
// value's length in characters (phones and identity numbers), and a
// masked value never contains more digits than the input.
func FuzzMaskValue(f *testing.F) {
	for _, s := range []string{"13812345678", "a@b.co", "+1 (555) 123-4567", "x@@y.com", "é@é.com", "@", "a@.b", "\xff@x.com"} {
		f.Add("phone", s)
		f.Add("notes", s)
		f.Add("id_card", s)
	}
	m := testMasker(f, `[{"name":"c","columns":["custom"],"pattern":"[0-9]+","keep_suffix":2}]`)
	f.Fuzz(func(t *testing.T, col, v string) {
		out, _, ok := maskOne(m, col, "", v)
		if !ok {
			return
		}
		if utf8.ValidString(v) && !utf8.ValidString(out) {
			t.Fatalf("%q -> invalid UTF-8 %q", v, out)
		}
		digits := func(s string) int {
			return strings.Count(s, "") - 1 - len(strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return -1
				}
				return r
			}, s))
		}
		if digits(out) > digits(v) {
			t.Fatalf("%q -> %q reveals more digits", v, out)
		}
		if builtinKind(col) != "" && utf8.RuneCountInString(out) != utf8.RuneCountInString(v) {
			t.Fatalf("%s %q -> %q changed length", col, v, out)
		}
	})
}

// BenchmarkMaskRows is the masking alone: 1,000 rows of 8 columns encoded
// as query() encodes them, with and without the masking plan.
func BenchmarkMaskRows(b *testing.B) {
	cols := []Column{{Name: "id", dbType: "INT"}, {Name: "full_name", dbType: "VARCHAR"}, {Name: "email", dbType: "VARCHAR"},
		{Name: "phone", dbType: "VARCHAR"}, {Name: "id_card", dbType: "VARCHAR"}, {Name: "amount", dbType: "DECIMAL"},
		{Name: "created_at", dbType: "DATETIME"}, {Name: "note", dbType: "VARCHAR"}}
	rows := make([][][]byte, 1000)
	for i := range rows {
		rows[i] = [][]byte{[]byte(strconv.Itoa(i)), []byte("Customer " + strconv.Itoa(i)), []byte("customer." + strconv.Itoa(i) + "@example.com"),
			[]byte("+1-555-123-4567"), []byte("110101199003074578"), []byte("1234.56"), []byte("2024-01-15 10:30:00"),
			[]byte("order shipped to the warehouse")}
	}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("masking_%v", on), func(b *testing.B) {
			var p *columnPlan
			if on {
				p = testMasker(b, "").plan(cols)
			}
			buf := make([]byte, 0, 1024)
			b.ReportAllocs()
			for b.Loop() {
				for _, row := range rows {
					buf = buf[:0]
					for i, v := range row {
						if p != nil {
							if m, _, ok := p.apply(i, v); ok {
								buf = appendString(buf, m)
								continue
							}
						}
						buf = appendValue(buf, cols[i].dbType, v)
					}
				}
			}
		})
	}
}
