// Package mcp is the protocol side of the server: JSON-RPC 2.0 decoded
// strictly, the Model Context Protocol's methods in one flat table, and the
// two transports, stdio and Streamable HTTP.
//
// It speaks MCP 2026-07-28, where every request is self-contained (its
// params._meta carries the protocol version and client capabilities, and
// over HTTP the MCP headers must agree with the body), and, for Hosts that
// have not moved on, the handshake-era revisions 2025-03-26, 2025-06-18 and
// 2025-11-25: over stdio after an initialize, and over HTTP at /mcp/legacy
// when the operator enables it. It keeps no sessions in either era.
//
// A request is read once. DecodeRequest checks the whole message (grammar,
// UTF-8, duplicate and case-variant names, depth) and walks the envelope in
// place; the params object is then read once into a struct of raw member
// values (readParams), from which each method takes what it needs. Tool
// arguments reach the catalog as the same bytes, where they are validated
// against their schema.
//
// The package does not know Doris, the tool contract or how a caller is
// authenticated: a Backend (the catalog) serves tools, resources, prompts
// and completions, and HTTPOptions.Identify says who an HTTP request is
// (stdio requests are the local principal).
//
// # Concurrency
//
// A Server is immutable after NewServer and serves any number of requests
// at once; each runs on its own goroutine (net/http's, or one per stdio
// request) with its own call value, shared with nothing.
//
// On stdio one reader goroutine reads lines and the serving goroutine
// decodes and dispatches them in arrival order, so a request is registered
// as in flight before the next line is read (notifications/cancelled
// therefore always finds a request sent before it). Each request then runs
// on a goroutine of its own, except a legacy initialize, which is answered
// before the next line is read so that the negotiated era applies to what
// follows. stdioConn.mu guards the writer, the in-flight table and the
// negotiated era: every response and notification is written whole under
// it, one line each. When the context is cancelled the reader goroutine may
// stay blocked in ReadSlice until the input delivers a line or is closed;
// it then sees the cancellation and exits without touching the connection
// again. At EOF, requests in flight get up to stdioDrain to answer.
//
// Over HTTP, a request with a progress token is answered on its own SSE
// stream; a mutex guards the response writer between the progress
// notifications and the final response, and nothing is written after the
// client has gone (its context is cancelled, which cancels the call).
package mcp
