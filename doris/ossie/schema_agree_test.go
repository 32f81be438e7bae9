package ossie

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/kaptinlin/jsonschema"
)

// TestSchemaVerdictsAgree: the project's validator and
// kaptinlin/jsonschema, a complete implementation, reach the same verdict
// on the demo model and on thousands of mutations of it (members
// dropped, values replaced by other JSON types), for the Ossie schema and
// the binding schema alike.
func TestSchemaVerdictsAgree(t *testing.T) {
	ours, err := compileSchemas()
	if err != nil {
		t.Fatal(err)
	}
	full := func(src []byte) *jsonschema.Schema {
		s, err := jsonschema.NewCompiler().Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ref := map[string]*jsonschema.Schema{"model": full(ossieSchema), "binding": full([]byte(bindingSchema))}
	docs := map[string]string{"model": "../../testdata/semantic/ossie/models/retail.ossie.json",
		"binding": "../../testdata/semantic/ossie/bindings.json"}
	rng := rand.New(rand.NewPCG(7, 11))
	for kind, path := range docs {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := ours.model
		if kind == "binding" {
			s = ours.binding
		}
		valid := 0
		for i := 0; i < 3000; i++ {
			var v any
			json.Unmarshal(raw, &v)
			if i > 0 {
				mutate(rng, v, 1+rng.IntN(3))
			}
			doc, _ := json.Marshal(v)
			got, want := violation(s, doc) == "", ref[kind].ValidateJSON(doc).IsValid()
			if got != want {
				t.Fatalf("%s: ours says valid=%v, kaptinlin says %v, on\n%s", kind, got, want, doc)
			}
			if got {
				valid++
			}
		}
		if valid == 0 || valid == 3000 {
			t.Errorf("%s: %d of 3000 documents valid; the mutations do not exercise both verdicts", kind, valid)
		}
	}
}

// mutate makes n random changes somewhere in v: drop an object member,
// drop an array element, or replace a value with another JSON type.
func mutate(rng *rand.Rand, v any, n int) {
	for ; n > 0; n-- {
		cur := v
		for depth := 0; depth < 12; depth++ {
			switch t := cur.(type) {
			case map[string]any:
				if len(t) == 0 {
					break
				}
				keys := make([]string, 0, len(t))
				for k := range t {
					keys = append(keys, k)
				}
				k := keys[rng.IntN(len(keys))]
				if rng.IntN(4) == 0 {
					switch rng.IntN(3) {
					case 0:
						delete(t, k)
					case 1:
						t[k] = replacement(rng)
					default:
						t["unexpected_member"] = 1
					}
					depth = 99
					continue
				}
				cur = t[k]
				continue
			case []any:
				if len(t) == 0 {
					break
				}
				i := rng.IntN(len(t))
				if rng.IntN(4) == 0 {
					t[i] = replacement(rng)
					depth = 99
					continue
				}
				cur = t[i]
				continue
			}
			break
		}
	}
}

func replacement(rng *rand.Rand) any {
	return []any{nil, true, 3, 2.5, "", "x", []any{}, map[string]any{}}[rng.IntN(8)]
}
