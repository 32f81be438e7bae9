package doris

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Result masking (ENABLE_MASKING, default on; MASKING_RULES_JSON).
//
// Every data row the runtime returns passes through one masker, in the
// query runtime (query), so execute_query, search_data and every other
// child that reads rows through it are masked alike, whatever the
// transport or exposure mode. Masking is by column name and value shape:
//
//   - phone: columns named like phone, mobile, tel, telephone, cellphone,
//     fax or msisdn whose value is a phone number (7 to 15 digits, only
//     "+", spaces, "-", ".", "(", ")" and "/" besides): the first 3 and
//     last 4 digits stay (with fewer than 10 digits only the last 4),
//     separators stay, the other digits become "*";
//   - email: in every text value, each e-mail address (local@domain.tld):
//     the local part keeps its first and last character, the domain stays;
//   - identity: columns named like id_card, identity, national_id,
//     id_number, ssn or passport whose value is an identity number (8 to
//     20 letters and digits with optional "-", "/" or space separators):
//     with 14 or more characters the first 6 and last 4 stay, otherwise
//     the last 4.
//
// A value that does not have the shape is returned unchanged, so order
// ids, timestamps, amounts, UUIDs, IP addresses and version strings are
// never touched: the phone and identity rules need both the column name
// and the shape, and nothing else but an e-mail address is masked in
// other columns. Operator rules (MASKING_RULES_JSON, see parseMaskRules)
// come first for the columns they name. A masked value is always a JSON
// string, and it is what counts toward MAX_RESULT_BYTES.

// Masking reports what result masking did to the data rows of a result.
type Masking struct {
	// Applied is true when masking was enabled for these rows.
	Applied bool `json:"applied"`
	// MaskedValues is the number of values that were changed.
	MaskedValues int `json:"masked_values"`
	// Rules names the rules that changed at least one value, sorted.
	Rules []string `json:"rules,omitempty"`
}

// maskRule is one masking rule. Built-in rules have a kind; operator
// rules mask every match of pattern (or the whole value) keeping
// keepPrefix and keepSuffix characters of each.
type maskRule struct {
	name       string
	kind       string // "phone", "identity" (built-in) or "custom"
	columns    []string
	pattern    *regexp.Regexp
	keepPrefix int
	keepSuffix int
	maskChar   rune
}

// masker holds the rules of a runtime; nil masks nothing.
type masker struct {
	rules []*maskRule // operator rules, then the built-in name rules
}

// newMasker compiles the masking configuration; nil when masking is off.
func newMasker(c *Config) (*masker, error) {
	if !c.EnableMasking {
		return nil, nil
	}
	rules, errs := parseMaskRules(c.MaskingRules)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m := &masker{rules: rules}
	m.rules = append(m.rules, &maskRule{name: "phone", kind: "phone", maskChar: '*'},
		&maskRule{name: "identity", kind: "identity", maskChar: '*'})
	return m, nil
}

// maxMaskRules bounds the operator rules.
const maxMaskRules = 64

var ruleNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`) })

// parseMaskRules reads MASKING_RULES_JSON: a JSON array of rules, each
//
//	{"name": "iban",                 required: [a-z][a-z0-9_]*, unique
//	 "columns": ["iban", "*_iban"],  required: 1..32 case-insensitive globs (* ? [...])
//	 "pattern": "[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}",  optional RE2; only matches are masked
//	 "keep_prefix": 4, "keep_suffix": 4,            optional, 0..64 characters
//	 "mask_char": "#"}                               optional, one printable character
//
// Unknown members, duplicate names and the built-in names phone, email
// and identity are refused. Every problem is reported, each naming its
// rule.
func parseMaskRules(s string) ([]*maskRule, []error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	type spec struct {
		Name       string   `json:"name"`
		Columns    []string `json:"columns"`
		Pattern    *string  `json:"pattern"`
		KeepPrefix int      `json:"keep_prefix"`
		KeepSuffix int      `json:"keep_suffix"`
		MaskChar   *string  `json:"mask_char"`
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("MASKING_RULES_JSON: "+format, a...)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return nil, []error{fail("is not a JSON array of rules: %v", err)}
	}
	if len(raw) > maxMaskRules {
		return nil, []error{fail("has %d rules; at most %d", len(raw), maxMaskRules)}
	}
	var out []*maskRule
	var errs []error
	seen := map[string]bool{"phone": true, "email": true, "identity": true}
	for i, r := range raw {
		var sp spec
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sp); err != nil {
			errs = append(errs, fail("rule %d: %v", i+1, err))
			continue
		}
		label := fmt.Sprintf("rule %d (%s)", i+1, sp.Name)
		bad := func(format string, a ...any) { errs = append(errs, fail(label+": "+format, a...)) }
		rule := &maskRule{name: sp.Name, kind: "custom", keepPrefix: sp.KeepPrefix, keepSuffix: sp.KeepSuffix, maskChar: '*'}
		switch {
		case !ruleNameRE().MatchString(sp.Name):
			bad("name must match [a-z][a-z0-9_]* (at most 64 characters)")
		case seen[sp.Name]:
			bad("name is used twice or is a built-in rule (phone, email, identity)")
		}
		seen[sp.Name] = true
		if len(sp.Columns) == 0 || len(sp.Columns) > 32 {
			bad("columns must list 1 to 32 column name patterns")
		}
		for _, c := range sp.Columns {
			if c == "" || len(c) > 128 {
				bad("a column pattern is empty or longer than 128 characters")
				continue
			}
			if _, err := path.Match(strings.ToLower(c), ""); err != nil {
				bad("column pattern %q is not a valid glob (use *, ? and [...])", c)
				continue
			}
			rule.columns = append(rule.columns, strings.ToLower(c))
		}
		if sp.Pattern != nil {
			switch re, err := regexp.Compile(*sp.Pattern); {
			case len(*sp.Pattern) > 1024:
				bad("pattern is longer than 1024 characters")
			case err != nil:
				bad("pattern is not a valid RE2 expression: %v", err)
			case re.MatchString(""):
				bad("pattern matches the empty string")
			default:
				rule.pattern = re
			}
		}
		if sp.KeepPrefix < 0 || sp.KeepPrefix > 64 || sp.KeepSuffix < 0 || sp.KeepSuffix > 64 {
			bad("keep_prefix and keep_suffix must be 0..64")
		}
		if sp.MaskChar != nil {
			r, n := utf8.DecodeRuneInString(*sp.MaskChar)
			if n == 0 || n != len(*sp.MaskChar) || r == utf8.RuneError || !unicode.IsPrint(r) || unicode.IsSpace(r) {
				bad("mask_char must be exactly one printable character")
			} else {
				rule.maskChar = r
			}
		}
		out = append(out, rule)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// nameWords splits a column name into lower-case words at "_", "-",
// spaces, dots, digits and camelCase boundaries: "contactPhone2" ->
// contact, phone.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = false
		case unicode.IsLetter(r):
			cur = append(cur, r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

// builtinKind decides which built-in name rule a column falls under.
func builtinKind(name string) string {
	words := nameWords(name)
	has := func(seq ...string) bool {
		for i := 0; i+len(seq) <= len(words); i++ {
			if slices.Equal(words[i:i+len(seq)], seq) {
				return true
			}
		}
		return false
	}
	for _, w := range words {
		switch {
		case w == "tel" || w == "telephone" || w == "cellphone" || w == "fax" || w == "msisdn" ||
			strings.HasPrefix(w, "phone") || strings.HasSuffix(w, "phone") ||
			strings.HasPrefix(w, "mobile") || strings.HasSuffix(w, "mobile"):
			return "phone"
		case w == "identity" || w == "idcard" || w == "ssn" || w == "passport" || w == "idnumber" || w == "nric":
			return "identity"
		}
	}
	if has("id", "card") || has("id", "number") || has("id", "no") || has("national", "id") || has("citizen", "id") ||
		has("identity", "number") {
		return "identity"
	}
	return ""
}

// columnPlan is the masking of one result's columns. It is used by one
// goroutine at a time: a masked value it returns is valid until the next
// call of apply.
type columnPlan struct {
	rules []*maskRule // per column; nil: only the e-mail scan
	text  []bool      // per column: a text value (scanned for e-mails)
	ok    []bool      // per column: masking applies at all
	buf   [2][]byte   // scratch for the masked value
}

// plan decides, once per result, which rule covers each column.
func (m *masker) plan(cols []Column) *columnPlan {
	if m == nil {
		return nil
	}
	p := &columnPlan{rules: make([]*maskRule, len(cols)), text: make([]bool, len(cols)), ok: make([]bool, len(cols))}
	for i, c := range cols {
		k := kindOf(c.dbType)
		p.text[i] = k == kindText
		if k == kindText || k == kindInt {
			p.rules[i] = m.ruleFor(c.Name)
		}
		p.ok[i] = p.text[i] || p.rules[i] != nil
	}
	return p
}

// needs reports whether value v of column i may need masking: its column
// has a rule, or it is text with an "@". It is the cheap test query() runs
// on every value before apply.
func (p *columnPlan) needs(i int, v []byte) bool {
	return p.rules[i] != nil || p.text[i] && bytes.IndexByte(v, '@') >= 0
}

func (m *masker) ruleFor(column string) *maskRule {
	lower := strings.ToLower(column)
	kind := ""
	for _, r := range m.rules {
		if r.kind == "custom" {
			for _, g := range r.columns {
				if ok, _ := path.Match(g, lower); ok {
					return r
				}
			}
			continue
		}
		if kind == "" {
			kind = builtinKind(column)
		}
		if r.kind == kind {
			return r
		}
	}
	return nil
}

// MaskStats counts what masking changed in one result.
type MaskStats struct {
	values int
	rules  []string // the few distinct rules that fired
}

func (s *MaskStats) Add(rule string) {
	s.values++
	if !slices.Contains(s.rules, rule) {
		s.rules = append(s.rules, rule)
	}
}

// Report is the Masking summary of a result; nil stats with masking on
// report nothing masked.
func (s *MaskStats) Report(enabled bool) *Masking {
	m := &Masking{Applied: enabled}
	if s != nil {
		m.MaskedValues = s.values
		m.Rules = slices.Sorted(slices.Values(s.rules))
	}
	return m
}

// apply masks value v of column i. It returns the masked text and the
// rule that changed it, or ok=false when v stays as it is.
func (p *columnPlan) apply(i int, v []byte) (masked []byte, rule string, ok bool) {
	if !p.ok[i] || len(v) == 0 {
		return nil, "", false
	}
	out := v
	if r := p.rules[i]; r != nil {
		if m, changed := r.mask(p.buf[0][:0], v); changed {
			p.buf[0] = m
			out, rule, ok = m, r.name, true
		}
	}
	if p.text[i] && bytes.IndexByte(out, '@') >= 0 {
		if m, changed := maskEmails(p.buf[1][:0], out); changed {
			p.buf[1] = m
			out, ok = m, true
			if rule == "" {
				rule = "email"
			}
		}
	}
	// A masked value travels as a JSON string, bytes that are not UTF-8
	// as U+FFFD; unmasked text that is not UTF-8 travels as base64.
	return out, rule, ok
}

// mask applies one rule to a value, appending the masked value to dst.
func (r *maskRule) mask(dst, v []byte) ([]byte, bool) {
	switch r.kind {
	case "phone":
		return maskPhone(dst, v)
	case "identity":
		return maskIdentity(dst, v)
	}
	if r.pattern == nil {
		return keepEnds(dst, v, r.keepPrefix, r.keepSuffix, r.maskChar), true
	}
	locs := r.pattern.FindAllIndex(v, -1)
	if len(locs) == 0 {
		return nil, false
	}
	out := dst
	last := 0
	for _, l := range locs {
		out = append(out, v[last:l[0]]...)
		out = keepEnds(out, v[l[0]:l[1]], r.keepPrefix, r.keepSuffix, r.maskChar)
		last = l[1]
	}
	return append(out, v[last:]...), true
}

// keepEnds appends v to out keeping its first prefix and last suffix
// characters and replacing the others with c; when nothing would be
// hidden, all are.
func keepEnds(out, v []byte, prefix, suffix int, c rune) []byte {
	n := utf8.RuneCount(v)
	if prefix+suffix >= n {
		prefix, suffix = 0, 0
	}
	k := 0
	for _, r := range string(v) {
		if k < prefix || k >= n-suffix {
			out = utf8.AppendRune(out, r)
		} else {
			out = utf8.AppendRune(out, c)
		}
		k++
	}
	return out
}

// maskPhone masks the digits of a phone number, keeping the first 3 and
// last 4 (the last 4 only below 10 digits) and every separator.
func maskPhone(out, v []byte) ([]byte, bool) {
	s := bytes.TrimSpace(v)
	digits := 0
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '+' && i == 0, c == ' ', c == '-', c == '.', c == '(', c == ')', c == '/':
		default:
			return nil, false
		}
	}
	if digits < 7 || digits > 15 {
		return nil, false
	}
	keepHead := 3
	if digits < 10 {
		keepHead = 0
	}
	k := 0
	for _, c := range v {
		if c >= '0' && c <= '9' {
			if k >= keepHead && k < digits-4 {
				c = '*'
			}
			k++
		}
		out = append(out, c)
	}
	return out, true
}

// maskIdentity masks an identity number: 8 to 20 letters and digits, at
// least 4 of them digits, with optional "-", "/" or space separators.
func maskIdentity(out, v []byte) ([]byte, bool) {
	s := bytes.TrimSpace(v)
	alnum, digits := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			alnum++
			digits++
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
			alnum++
		case c == '-', c == '/', c == ' ':
		default:
			return nil, false
		}
	}
	if alnum < 8 || alnum > 20 || digits < 4 {
		return nil, false
	}
	head := 0
	if alnum >= 14 {
		head = 6
	}
	k := 0
	for _, c := range v {
		if c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			if k >= head && k < alnum-4 {
				c = '*'
			}
			k++
		}
		out = append(out, c)
	}
	return out, true
}

// fileExtensions are "TLDs" that mark a file name (icon@2x.png), not an
// e-mail address.
var fileExtensions = map[string]bool{"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true,
	"bmp": true, "ico": true, "pdf": true, "js": true, "css": true, "json": true, "html": true, "htm": true,
	"txt": true, "md": true, "zip": true, "gz": true, "tar": true, "csv": true, "xml": true, "yaml": true, "yml": true}

// emailBytes classifies bytes: 1 may be in a local part, 2 in a domain.
var emailBytes = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if alnum || strings.IndexByte("._%+-'", byte(c)) >= 0 {
			t[c] |= 1
		}
		if alnum || c == '.' || c == '-' {
			t[c] |= 2
		}
	}
	return t
}()

func isLocalByte(c byte) bool { return emailBytes[c]&1 != 0 }

func isDomainByte(c byte) bool { return emailBytes[c]&2 != 0 }

// maskEmails appends v to out with every e-mail address masked: the local
// part keeps its first and last character (all of it is hidden when 2 or
// shorter); the domain stays. It reports false, and appends nothing, when
// v holds no address.
func maskEmails(out, v []byte) ([]byte, bool) {
	last, changed := 0, false
	for i := 0; i < len(v); i++ {
		at := bytes.IndexByte(v[i:], '@')
		if at < 0 {
			break
		}
		i += at
		start := i
		for start > last && isLocalByte(v[start-1]) {
			start--
		}
		for start < i && (v[start] == '.' || v[start] == '\'') { // nor with a dot or a quote
			start++
		}
		end := i + 1
		for end < len(v) && isDomainByte(v[end]) {
			end++
		}
		for end > i+1 && (v[end-1] == '.' || v[end-1] == '-') {
			end--
		}
		if start == i || !validDomain(v[i+1:end]) {
			continue
		}
		out = append(out, v[last:start]...)
		local := v[start:i]
		for k := range local {
			if len(local) > 2 && (k == 0 || k == len(local)-1) {
				out = append(out, local[k])
			} else {
				out = append(out, '*')
			}
		}
		out = append(out, v[i:end]...)
		last, i, changed = end, end-1, true
	}
	if !changed {
		return nil, false
	}
	return append(out, v[last:]...), true
}

// validDomain: at least two labels of letters, digits and inner hyphens,
// and a top-level label of 2 or more letters that is not a file extension.
func validDomain(d []byte) bool {
	labels, start := 0, 0
	for i := 0; i <= len(d); i++ {
		if i < len(d) && d[i] != '.' {
			continue
		}
		l := d[start:i]
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		labels++
		start = i + 1
	}
	tld := d[bytes.LastIndexByte(d, '.')+1:]
	if labels < 2 || len(tld) < 2 {
		return false
	}
	for _, c := range tld {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	var lower [8]byte
	if len(tld) > len(lower) {
		return true
	}
	for k, c := range tld {
		lower[k] = c | 0x20
	}
	return !fileExtensions[string(lower[:len(tld)])]
}

// MaskText masks one value of the named column the way data rows are
// masked, for children that return values read as text (partition
// values). It returns the value unchanged when masking is off or does
// not apply, and the rule that changed it.
func (r *Runtime) MaskText(name, value string) (string, string, bool) {
	p := r.mask.plan([]Column{{Name: name, dbType: "VARCHAR"}})
	if p == nil {
		return value, "", false
	}
	m, rule, ok := p.apply(0, []byte(value))
	if !ok {
		return value, "", false
	}
	return string(m), rule, true
}
