package semanticprovider_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
)

// BenchmarkCheckManifest measures loading the real jaffle-shop manifest
// (strict pre-pass, decode, exact-key check, index and per-metric check).
func BenchmarkCheckManifest(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(jaffleDir, "semantic_manifest.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := semanticprovider.CheckManifest(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandleCompile measures one whole provider request as the server
// makes it: read the demo manifest, load it, compile a five-metric,
// two-model request.
func BenchmarkHandleCompile(b *testing.B) {
	pv, err := semanticprovider.New([]semanticprovider.Source{{Ref: "demo", Path: demoManifest}})
	if err != nil {
		b.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"protocol_version": semanticprovider.ProtocolVersion, "request_id": "b", "operation": "compile_query",
		"arguments": map[string]any{"model_ref": "demo", "dialect": "doris", "request": deterministicRequests[0]}})
	for b.Loop() {
		out := pv.Handle(context.Background(), req, nil)
		if len(out) < 1000 {
			b.Fatalf("unexpected answer %s", out)
		}
	}
}

// BenchmarkHandleGroupBys measures get_group_bys over the demo.
func BenchmarkHandleGroupBys(b *testing.B) {
	pv, _ := semanticprovider.New([]semanticprovider.Source{{Ref: "demo", Path: demoManifest}})
	req, _ := json.Marshal(map[string]any{"protocol_version": semanticprovider.ProtocolVersion, "request_id": "b", "operation": "get_group_bys",
		"arguments": map[string]any{"model_ref": "demo", "metrics": []string{"revenue", "discount_rate", "orders_per_new_customer"}}})
	for b.Loop() {
		pv.Handle(context.Background(), req, nil)
	}
}
