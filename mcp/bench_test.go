package mcp

import "testing"

// benchCall is a tools/call as clients send it: the envelope, _meta and a
// domain call carrying execute_query's arguments.
const benchCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"},"name":"doris_query","arguments":{"child_tool":"execute_query","arguments":{"sql":"SELECT o_orderkey, o_totalprice FROM orders WHERE o_custkey = 42","database":"tpch","max_rows":100}}}}`

// BenchmarkDecodeRequest measures the strict envelope decoder alone.
func BenchmarkDecodeRequest(b *testing.B) {
	msg := []byte(benchCall)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeRequest(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeCall measures what the protocol layer reads of a
// tools/call before the catalog sees it: the envelope and the params.
func BenchmarkDecodeCall(b *testing.B) {
	msg := []byte(benchCall)
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		req, err := DecodeRequest(msg)
		if err != nil {
			b.Fatal(err)
		}
		if _, perr := readParams(req.Params); perr != nil {
			b.Fatal(perr)
		}
	}
}
