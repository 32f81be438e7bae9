package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// TestRefCycleThroughAPropertiesDef: a definition named "properties" (or
// "items") is not a descent into the document. The cycle check used to
// match the path as a string, took /$defs/properties/allOf/0 for a
// properties keyword, compiled these schemas, and validation then recursed
// until the goroutine stack overflowed and the process died.
func TestRefCycleThroughAPropertiesDef(t *testing.T) {
	for _, doc := range []string{
		`{"$defs":{"a":{"$ref":"#/$defs/properties"},"properties":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`,
		`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/properties"}]},"properties":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/items"}]},"items":{"not":{"$ref":"#/$defs/a"}}},"$ref":"#/$defs/a"}`,
		`{"$defs":{"additionalProperties":{"$ref":"#/$defs/propertyNames"},"propertyNames":{"$ref":"#/$defs/additionalProperties"}}}`,
		// A cycle the compiler reaches only after it has compiled one of
		// its definitions from elsewhere.
		`{"$defs":{"a":{"items":{"$ref":"#/$defs/b"},"not":{"$ref":"#/$defs/c"}},"b":{"$ref":"#/$defs/a"},"c":{"$ref":"#/$defs/b"}},"$ref":"#/$defs/a"}`,
	} {
		if _, err := schema.Compile([]byte(doc)); err == nil {
			t.Errorf("%s compiled; its references loop without descending into the document", doc)
		}
	}
	// Recursion through a definition named like a keyword is fine when it
	// does descend.
	s, err := schema.Compile([]byte(`{"$defs":{"properties":{"type":"object","properties":{"kid":{"$ref":"#/$defs/properties"}},"additionalProperties":false}},"$ref":"#/$defs/properties"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Valid([]byte(`{"kid":{"kid":{}}}`)) || s.Valid([]byte(`{"kid":{"other":1}}`)) {
		t.Error("recursive definition named properties validates wrongly")
	}
	// And a cycle that descends on a later step compiles.
	s, err = schema.Compile([]byte(`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"items":{"$ref":"#/$defs/a"},"maxItems":2}},"$ref":"#/$defs/a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Valid([]byte(`[[[]]]`)) || s.Valid([]byte(`[[1,2,3]]`)) {
		t.Error("recursion through items validates wrongly")
	}
	// Wherever on the way round the descent is.
	s, err = schema.Compile([]byte(`{"$defs":{"a":{"items":{"$ref":"#/$defs/b"}},"b":{"$ref":"#/$defs/a","maxItems":1}},"$ref":"#/$defs/a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Valid([]byte(`[[[]]]`)) || s.Valid([]byte(`[[[],[]]]`)) {
		t.Error("recursion through items two definitions round validates wrongly")
	}
}

// TestSchemaShapeBounds: nesting and chains of references are bounded, so
// compiling and validating end well inside the stack; a refusal is an
// error, not a crash.
func TestSchemaShapeBounds(t *testing.T) {
	deep := strings.Repeat(`{"not":`, 200) + `{}` + strings.Repeat(`}`, 200)
	if _, err := schema.Compile([]byte(deep)); err == nil {
		t.Error("a schema nested 200 levels deep compiled")
	}
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"$defs":{`)
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"}]},`, i, i+1)
		}
		fmt.Fprintf(&b, `"d%d":{"type":"integer"}},"$ref":"#/$defs/d0"}`, n)
		return b.String()
	}
	s, err := schema.Compile([]byte(chain(30)))
	if err != nil {
		t.Fatalf("a chain of 30 references: %v", err)
	}
	if !s.Valid([]byte(`1`)) || s.Valid([]byte(`"x"`)) {
		t.Error("a chain of 30 references validates wrongly")
	}
	if _, err := schema.Compile([]byte(chain(40))); err == nil {
		t.Error("a chain of 40 references that all apply to one value compiled")
	}
}
