package catalog

import "testing"

// TestValidatorsCompileOnFirstUse: rendering a child's schemas (what a
// list or a manifest shows) compiles no validator; a call compiles the
// input validator of that child only; the output validator waits for a
// result to check (MCP_VALIDATE_RESULTS).
func TestValidatorsCompileOnFirstUse(t *testing.T) {
	all := func(string, string) bool { return true }
	cd, err := newDomain(domains[0], all, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range cd.children {
		if err := cc.rendered(); err != nil {
			t.Fatal(err)
		}
		if cc.input != nil || cc.output != nil || len(cc.manifestInput) == 0 {
			t.Fatalf("%s after rendering: validators compiled %v/%v, manifest input %d bytes; want none compiled and the JSON forms built",
				cc.Name, cc.input != nil, cc.output != nil, len(cc.manifestInput))
		}
	}
	first := cd.children[0]
	if in, err := first.inputSchema(); err != nil || in == nil {
		t.Fatalf("inputSchema: %v", err)
	}
	if first.output != nil || cd.children[1].input != nil {
		t.Error("compiling one child's input validator compiled more")
	}
	if out, err := first.outputSchema(); err != nil || out == nil {
		t.Fatalf("outputSchema: %v", err)
	}
}
