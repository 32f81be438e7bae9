package catalog

// The fast validator (doris/schema) must reach the same verdict as a
// complete JSON Schema 2020-12 implementation (kaptinlin/jsonschema) on
// every document, for every schema of the contract: arguments are a
// security boundary. These tests generate documents from each schema,
// valid and broken near every bound, and compare the two verdicts; the
// fuzz target lets the fuzzer search for a disagreement.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kaptinlin/jsonschema"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// contractSchema is one schema of the contract under both validators.
type contractSchema struct {
	name  string
	src   string
	fast  *schema.Schema
	full  *jsonschema.Schema
	model any // the schema decoded, to generate documents from
}

func contractSchemas(t testing.TB) []contractSchema {
	t.Helper()
	var out []contractSchema
	add := func(name, src string) {
		fast, err := schema.Compile([]byte(src))
		if err != nil {
			t.Fatalf("%s: fast compile: %v", name, err)
		}
		full, err := jsonschema.NewCompiler().Compile([]byte(src))
		if err != nil {
			t.Fatalf("%s: full compile: %v", name, err)
		}
		var model any
		json.Unmarshal([]byte(src), &model)
		out = append(out, contractSchema{name, src, fast, full, model})
	}
	add("domain input", domainInputSchema)
	for _, d := range domains {
		for _, c := range d.Children {
			add(d.Name+"."+c.Name+" input", c.Input)
			add(d.Name+"."+c.Name+" output", childResultSchema(c.Family, c.Data))
		}
	}
	return out
}

// agree compares the two verdicts on doc; docs with duplicate member
// names are skipped (the protocol layer refuses them before validation).
func (cs contractSchema) agree(t testing.TB, doc []byte) {
	t.Helper()
	if !json.Valid(doc) || hasDuplicateNames(doc) {
		return
	}
	fast := cs.fast.Valid(doc)
	full := cs.full.ValidateJSON(doc).IsValid()
	if fast != full {
		t.Fatalf("%s: fast validator says %v, full says %v, for %s", cs.name, fast, full, doc)
	}
	if v := cs.fast.Validate(doc, schema.Limits{}, 0); (len(v) == 0) != fast {
		t.Fatalf("%s: Validate and Valid disagree (%v) on %s", cs.name, v, doc)
	}
}

func hasDuplicateNames(doc []byte) bool {
	dup := false
	var walk func(b []byte)
	walk = func(b []byte) {
		switch schema.KindOf(b) {
		case schema.Object:
			seen := map[string]bool{}
			schema.Members(b, func(name string, v []byte) error {
				if seen[name] {
					dup = true
				}
				seen[name] = true
				walk(v)
				return nil
			})
		case schema.Array:
			schema.Elements(b, func(_ int, v []byte) error { walk(v); return nil })
		}
	}
	walk(doc)
	return dup
}

// TestEveryChildCompilesWithinBudget: the lazily compiled schemas of all
// 55 children compile with the fast validator and keep the contract's
// static budgets (a start no longer checks them: the table is literal).
func TestEveryChildCompilesWithinBudget(t *testing.T) {
	all := func(string, string) bool { return true }
	for _, d := range domains {
		cd, err := newDomain(d, all, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, cc := range cd.children {
			if err := cc.checkBudgets(); err != nil {
				t.Errorf("%s.%s: %v", d.Name, cc.Name, err)
			}
		}
	}
}

// TestFastValidatorAgrees: thousands of generated documents per schema,
// the same verdict from both validators.
func TestFastValidatorAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	if testing.Short() {
		n = 40
	}
	for _, cs := range contractSchemas(t) {
		valid := 0
		for i := 0; i < n; i++ {
			doc, _ := json.Marshal(generate(rng, cs.model, 0, i%3 == 0))
			cs.agree(t, doc)
			if cs.fast.Valid(doc) {
				valid++
			}
		}
		if strings.HasSuffix(cs.name, "input") && valid == 0 {
			t.Errorf("%s: no generated document was valid; the generator does not reach this schema", cs.name)
		}
	}
}

// FuzzFastValidatorAgrees lets the fuzzer look for a document on which the
// fast validator and the full one disagree, for any contract schema.
//
//	go test ./catalog -run '^$' -fuzz FuzzFastValidatorAgrees -parallel 1
func FuzzFastValidatorAgrees(f *testing.F) {
	all := contractSchemas(f)
	rng := rand.New(rand.NewPCG(3, 4))
	for i, cs := range all {
		for j := 0; j < 3; j++ {
			doc, _ := json.Marshal(generate(rng, cs.model, 0, j == 0))
			f.Add(uint16(i), doc)
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, doc []byte) {
		all[int(which)%len(all)].agree(t, doc)
	})
}

// generate builds a document from a schema model: usually one that
// satisfies it, and near its bounds; with broken set, often one that
// misses a bound, has a wrong type, an extra member or lacks a required
// one.
func generate(rng *rand.Rand, s any, depth int, broken bool) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 6 {
		return randomScalar(rng)
	}
	flip := func() bool { return broken && rng.IntN(6) == 0 }
	if c, ok := m["const"]; ok && !flip() {
		return c
	}
	if e, ok := m["enum"].([]any); ok && !flip() {
		return e[rng.IntN(len(e))]
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := m[key].([]any); ok && rng.IntN(3) > 0 {
			// Build the base object, then satisfy one (or, broken, no or
			// two) alternatives.
			base := generate(rng, without(m, key), depth, broken)
			obj, isObj := base.(map[string]any)
			if !isObj {
				return base
			}
			k := 1
			if broken {
				k = rng.IntN(3)
			}
			for i := 0; i < k; i++ {
				if alt, ok := alts[rng.IntN(len(alts))].(map[string]any); ok {
					for _, r := range asStrings(alt["required"]) {
						if _, has := obj[r]; !has {
							obj[r] = generate(rng, propSchema(m, r), depth+1, broken)
						}
					}
				}
			}
			return obj
		}
	}
	typ := pickType(rng, m["type"])
	if flip() {
		typ = []string{"string", "integer", "number", "boolean", "array", "object", "null"}[rng.IntN(7)]
	}
	switch typ {
	case "string":
		lo, hi := intOr(m["minLength"], 0), intOr(m["maxLength"], 12)
		if hi > 40 {
			hi = 40
		}
		n := lo + rng.IntN(max(hi-lo, 0)+1)
		if flip() {
			n = []int{0, max(lo-1, 0), hi + 1}[rng.IntN(3)]
		}
		if p, ok := m["pattern"].(string); ok && !flip() {
			return patternString(rng, p, n)
		}
		return randomString(rng, n)
	case "integer", "number":
		lo, hi := floatOr(m["minimum"], -5), floatOr(m["maximum"], 1e6)
		var x float64
		switch rng.IntN(5) {
		case 0:
			x = lo
		case 1:
			x = hi
		default:
			x = lo + float64(rng.IntN(int(min(hi-lo, 1e6))+1))
		}
		if flip() {
			x = []float64{lo - 1, hi + 1, lo + 0.5}[rng.IntN(3)]
		}
		if typ == "number" && rng.IntN(4) == 0 {
			x += 0.25
		}
		return json.Number(fmt.Sprint(x))
	case "boolean":
		return rng.IntN(2) == 0
	case "null":
		return nil
	case "array":
		lo, hi := intOr(m["minItems"], 0), intOr(m["maxItems"], 4)
		if hi > 6 {
			hi = 6
		}
		n := lo + rng.IntN(max(hi-lo, 0)+1)
		if flip() {
			n = []int{0, max(lo-1, 0), hi + 1}[rng.IntN(3)]
		}
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			out = append(out, generate(rng, m["items"], depth+1, broken))
		}
		if broken && len(out) > 0 && rng.IntN(4) == 0 {
			out = append(out, out[0]) // a repeat, for uniqueItems
		}
		return out
	case "object":
		obj := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		for _, r := range asStrings(m["required"]) {
			if !flip() {
				obj[r] = generate(rng, props[r], depth+1, broken)
			}
		}
		for name, ps := range props {
			if rng.IntN(2) == 0 {
				obj[name] = generate(rng, ps, depth+1, broken)
			}
		}
		if ap, ok := m["additionalProperties"]; ok && ap != false && rng.IntN(3) == 0 {
			obj[randomString(rng, 1+rng.IntN(6))] = generate(rng, ap, depth+1, broken)
		}
		if flip() {
			obj["unexpected_member"] = 1
		}
		return obj
	}
	return randomScalar(rng)
}

func without(m map[string]any, key string) map[string]any {
	c := map[string]any{}
	for k, v := range m {
		if k != key {
			c[k] = v
		}
	}
	return c
}

func propSchema(m map[string]any, name string) any {
	props, _ := m["properties"].(map[string]any)
	return props[name]
}

func asStrings(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func pickType(rng *rand.Rand, t any) string {
	switch v := t.(type) {
	case string:
		return v
	case []any:
		if s, ok := v[rng.IntN(len(v))].(string); ok {
			return s
		}
	}
	if rng.IntN(2) == 0 {
		return "object"
	}
	return "string"
}

func intOr(v any, d int) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return d
}

func floatOr(v any, d float64) float64 {
	if f, ok := v.(float64); ok {
		return f
	}
	return d
}

func randomScalar(rng *rand.Rand) any {
	switch rng.IntN(4) {
	case 0:
		return randomString(rng, rng.IntN(6))
	case 1:
		return json.Number(fmt.Sprint(rng.IntN(200) - 50))
	case 2:
		return rng.IntN(2) == 0
	}
	return nil
}

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/@ é日"

func randomString(rng *rand.Rand, n int) string {
	r := []rune(alphabet)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(r[rng.IntN(len(r))])
	}
	return b.String()
}

// patternString makes a string likely to match the contract's patterns:
// qualified names, ISO dates, identifiers.
func patternString(rng *rand.Rand, pattern string, n int) string {
	switch {
	case strings.Contains(pattern, `(\.[^.]+)`) || strings.Contains(pattern, `(\\.[^.]+)`):
		return []string{"db.tbl", "cat.db.tbl", "a.b.c.d", "x"}[rng.IntN(4)]
	case strings.HasPrefix(pattern, "^[0-9]{4}"):
		return []string{"2026-11-30", "2026-11-30T10:00:00Z", "2026-11-30 10:00:00+0100", "2026-1-1"}[rng.IntN(4)]
	}
	n = max(n, 1)
	s := []byte{"abcxyz"[rng.IntN(6)]}
	for len(s) < min(n, 20) {
		s = append(s, "abc_019"[rng.IntN(7)])
	}
	return string(s)
}
