package mcp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// JSON-RPC and MCP error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603

	// CodeHeaderMismatch: an MCP HTTP header is missing, malformed or
	// disagrees with the body (2026-07-28).
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a client capability
	// its _meta does not declare.
	CodeMissingClientCapability = -32021
	// CodeUnsupportedVersion: the request's protocol version is not served.
	CodeUnsupportedVersion = -32022
)

// Limits on what the decoder accepts.
const (
	// MaxMessageBytes bounds one JSON-RPC message (HTTP body or stdio line).
	MaxMessageBytes = 4 << 20
	// MaxDepth bounds object/array nesting in a message.
	MaxDepth = 64
)

// Error is a JSON-RPC error. Errors compare by code (errors.Is).
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
	// retryAfter, when set, makes the HTTP transport answer 503 with a
	// Retry-After of this many seconds: the server, not the request, is
	// the reason for the failure.
	retryAfter int
}

func (e *Error) Error() string { return fmt.Sprintf("mcp: %s (%d)", e.Message, e.Code) }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ID is a JSON-RPC request id kept exactly as sent: a string stays a string
// and a number keeps its spelling. The zero ID is absent (a notification, or
// an error about a message whose id could not be read).
type ID struct {
	raw json.RawMessage
}

// IsZero reports whether the id is absent.
func (id ID) IsZero() bool { return len(id.raw) == 0 }

// String returns the id's JSON text, for logs.
func (id ID) String() string { return string(id.raw) }

// MarshalJSON writes the id as received; an absent id marshals as null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.IsZero() {
		return []byte("null"), nil
	}
	return id.raw, nil
}

// StringID returns an ID holding the JSON string s.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: b}
}

// Request is a decoded JSON-RPC request or notification.
type Request struct {
	ID     ID
	Method string
	// Params is the raw params object, or nil when absent.
	Params json.RawMessage
	// Notification is true when the message had no id.
	Notification bool
}

// DecodeRequest strictly decodes one client message. It rejects what any
// lenient decoder might read differently: duplicate or case-variant keys,
// unknown envelope members, invalid UTF-8, excessive nesting, a wrong
// jsonrpc value, ids that are not strings or numbers, and responses (a
// client never answers this server). The returned ID is set whenever the
// message had a readable id, so errors can echo it.
func DecodeRequest(b []byte) (*Request, *Error) {
	if len(b) > MaxMessageBytes {
		return nil, errorf(CodeInvalidRequest, "message exceeds %d bytes", MaxMessageBytes)
	}
	// The one strict check (doris/schema): grammar, UTF-8, surrogates,
	// duplicate names after unescaping, nesting. A document too deep or
	// with a repeated name is JSON, just not an acceptable request.
	if err := schema.Check(b, schema.Strict{MaxDepth: MaxDepth}); err != nil {
		var se *schema.Error
		if errors.As(err, &se) && (se.Reason == schema.TooDeep || se.Reason == schema.Duplicate) {
			return nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + se.Error()}
		}
		return nil, &Error{Code: CodeParseError, Message: "parse error: " + err.Error()}
	}
	if len(b) == 0 || firstNonSpace(b) != '{' {
		return nil, errorf(CodeInvalidRequest, "a message must be one JSON object (batches are not supported)")
	}
	// One walk over the envelope's members, in place: the strict check
	// above has already refused duplicates and malformed input.
	req := &Request{Notification: true}
	var jsonrpc, method, params []byte
	var bad string
	hasBad := false
	schema.Members(b, func(name string, v []byte) error {
		switch name {
		case "id":
			req.Notification = false
			req.ID = ID{raw: v}
		case "jsonrpc":
			jsonrpc = v
		case "method":
			method = v
		case "params":
			params = v
		default:
			if !hasBad {
				bad, hasBad = name, true
			}
		}
		return nil
	})
	if !req.Notification {
		switch firstNonSpace(req.ID.raw) {
		case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		default:
			return nil, errorf(CodeInvalidRequest, "id must be a string or a number")
		}
	}
	if hasBad {
		if bad == "result" || bad == "error" {
			return req, errorf(CodeInvalidRequest, "this server sends no requests, so it accepts no responses")
		}
		return req, errorf(CodeInvalidRequest, "unknown or case-variant member %q in the message", truncate(bad, 64))
	}
	if string(jsonrpc) != `"2.0"` {
		return req, errorf(CodeInvalidRequest, `jsonrpc must be "2.0"`)
	}
	m, ok := schema.Str(method)
	if firstNonSpace(method) != '"' || !ok || m == "" {
		return req, errorf(CodeInvalidRequest, "method must be a non-empty string")
	}
	req.Method = m
	if params != nil {
		if firstNonSpace(params) != '{' {
			return req, errorf(CodeInvalidParams, "params must be an object")
		}
		req.Params = params
	}
	return req, nil
}

func firstNonSpace(b []byte) byte {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c
	}
	return 0
}

// response is a JSON-RPC response as written on the wire.
type response struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *ID    `json:"id,omitempty"`
	Result  any    `json:"result,omitempty"`
	Error   *Error `json:"error,omitempty"`
}

// notification is a server-to-client JSON-RPC notification.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// encodeResult renders a success response.
//
// Results that carry large pre-rendered JSON (tool lists, tool results)
// implement appender and are written without encoding/json re-compacting
// what the catalog already rendered compactly.
func encodeResult(id ID, result any) ([]byte, error) {
	a, ok := result.(appender)
	if !ok {
		return json.Marshal(response{JSONRPC: "2.0", ID: &id, Result: result})
	}
	b := make([]byte, 0, 256+a.sizeHint())
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id.raw...)
	b = append(b, `,"result":`...)
	b, err := a.appendJSON(b)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appender is a result that writes its own JSON. Implementations append
// only JSON they produced themselves or that was rendered by this
// program's own encoder.
type appender interface {
	appendJSON(dst []byte) ([]byte, error)
	sizeHint() int // about how many bytes appendJSON adds
}

// appendObjectMembers appends the members of v (a struct marshalled to a
// JSON object) after a comma, or nothing when it has none.
func appendObjectMembers(dst []byte, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) <= 2 {
		return dst, nil
	}
	dst = append(dst, ',')
	return append(dst, b[1:len(b)-1]...), nil
}

func appendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	return schema.AppendString(dst, s)
}

// encodeError renders an error response. An absent id is omitted, as the
// schema allows for errors about unreadable messages.
func encodeError(id ID, e *Error) []byte {
	r := response{JSONRPC: "2.0", Error: e}
	if !id.IsZero() {
		r.ID = &id
	}
	b, err := json.Marshal(r)
	if err != nil {
		// Data failed to marshal; drop it rather than fail the reply.
		r.Error = &Error{Code: e.Code, Message: e.Message}
		b, _ = json.Marshal(r)
	}
	return b
}

func encodeNotification(method string, params any) ([]byte, error) {
	return json.Marshal(notification{JSONRPC: "2.0", Method: method, Params: params})
}
