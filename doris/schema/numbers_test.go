package schema_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kaptinlin/jsonschema"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// TestMultipleOfFraction: multipleOf is exact decimal arithmetic on the
// numbers as written, as JSON Schema (and kaptinlin) define it: 0.3 is a
// multiple of 0.1 although 0.3/0.1 is 2.9999999999999996 in float64.
func TestMultipleOfFraction(t *testing.T) {
	for _, tc := range []struct {
		schema, doc string
		want        bool
	}{
		{`{"multipleOf":0.1}`, `0.3`, true},
		{`{"multipleOf":0.1}`, `0.7`, true},
		{`{"multipleOf":0.1}`, `-1.1`, true},
		{`{"multipleOf":0.1}`, `3e-1`, true},
		{`{"multipleOf":0.1}`, `0.35`, false},
		{`{"multipleOf":0.01}`, `19.99`, true},
		{`{"multipleOf":0.01}`, `19.999`, false},
		{`{"multipleOf":1e-2}`, `4.02`, true},
		{`{"multipleOf":0.0001}`, `0.0075`, true},
		{`{"multipleOf":2.5}`, `7.5`, true},
		{`{"multipleOf":2.5}`, `7`, false},
		{`{"multipleOf":3}`, `1e400`, false}, // beyond float64, still exact
		{`{"multipleOf":5}`, `1e400`, true},
		{`{"multipleOf":0.1}`, `0.1000000000000000000000000000000000000000000000000000000000000000000001`, false},
		{`{"multipleOf":7}`, `7000000000000000000000000000000000000000000000000000000000000000000000000000000007`, true},
	} {
		s := schema.MustCompile(tc.schema)
		if got := s.Valid([]byte(tc.doc)); got != tc.want {
			t.Errorf("%s against %s: Valid = %v, want %v", tc.doc, tc.schema, got, tc.want)
		}
		if got := s.Validate([]byte(tc.doc), schema.Limits{}, 0) == nil; got != tc.want {
			t.Errorf("%s against %s: Validate says valid = %v, want %v", tc.doc, tc.schema, got, tc.want)
		}
		full, err := jsonschema.NewCompiler().Compile([]byte(tc.schema))
		if err != nil {
			t.Fatal(err)
		}
		if got := full.ValidateJSON([]byte(tc.doc)).IsValid(); got != tc.want {
			t.Errorf("%s against %s: kaptinlin says %v; the expectation is wrong", tc.doc, tc.schema, got)
		}
	}
}

// TestBoundsAreExact: minimum and friends compare the number as written
// with the bound as written, not with the bound rounded to float64.
func TestBoundsAreExact(t *testing.T) {
	for _, tc := range []struct {
		schema, doc string
		want        bool
	}{
		{`{"maximum":0.1}`, `0.10000000000000000001`, false},
		{`{"maximum":0.1}`, `0.1`, true},
		{`{"minimum":0.1}`, `0.09999999999999999999`, false},
		{`{"exclusiveMaximum":0.1}`, `0.1`, false},
		{`{"exclusiveMaximum":0.1}`, `0.09999999999999999999`, true},
		{`{"exclusiveMinimum":1}`, `1.0000000000000000000000000000000000000000000000000000000000000000000000001`, true},
		{`{"maximum":1}`, `1.0000000000000000000000000000000000000000000000000000000000000000000000001`, false},
		{`{"type":"integer"}`, `1.0000000000000000000000000000000000000000000000000000000000000000000000001`, false},
		{`{"type":"integer"}`, `100000000000000000000000000000000000000000000000000000000000000000000000000.0`, true},
		{`{"const":1}`, `1.0000000000000000000000000000000000000000000000000000000000000000000000001`, false},
		{`{"enum":[0.1]}`, `1e-1`, true},
		{`{"minimum":0}`, `1e-999999`, true},
		{`{"maximum":0}`, `1e-999999`, false},
	} {
		s := schema.MustCompile(tc.schema)
		if got := s.Valid([]byte(tc.doc)); got != tc.want {
			t.Errorf("%s against %s: Valid = %v, want %v", tc.doc, tc.schema, got, tc.want)
		}
	}
}

// TestHugeExponentsAreCheap: a number's exponent costs nothing. big.Rat
// computes 10^999999 to read 1e-999999 (about 20 ms); the old checks did
// that for every integer-typed value with an exponent and every value
// equal to a bound as a float64, so a thousand such elements took tens of
// seconds of CPU.
func TestHugeExponentsAreCheap(t *testing.T) {
	s := schema.MustCompile(`{"type":"array","items":{"type":"integer","minimum":0,"multipleOf":3}}`)
	doc := []byte("[" + strings.Repeat("1e-999999,", 999) + "1e-999999]")
	start := time.Now()
	if s.Valid(doc) {
		t.Error("1e-999999 is not an integer")
	}
	if v := s.Validate(doc, schema.Limits{}, 0); len(v) == 0 {
		t.Error("Validate found nothing wrong")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("1000 tiny numbers took %v", d)
	}
}
