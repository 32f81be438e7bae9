package catalog

import (
	"encoding/json"
	"errors"
)

// This file holds the values the catalog hands to the protocol layer. They
// are protocol-neutral: package mcp adds the wire envelope of each era.

// Tool is one entry of tools/list, rendered to JSON once per exposure mode
// and capability generation.
type Tool struct {
	Name string
	// JSON is the complete MCP Tool object.
	JSON json.RawMessage
}

// ToolResult is the outcome of a tools/call that reached a tool.
type ToolResult struct {
	// Structured is the JSON envelope (manifest, result or error); it is
	// both the structuredContent and, as text, the content of the result.
	Structured json.RawMessage
	// IsError marks a result the model should read as a failure.
	IsError bool
	// Call describes a child call for the one invocation log line the
	// protocol layer writes; nil for discovery.
	Call *CallInfo
}

// CallInfo is what the invocation log records of a child call: never an
// argument value.
type CallInfo struct {
	Child         string   // "domain.child"
	RequestID     string   // the envelope's metadata.request_id
	Outcome       string   // "OK" or the envelope's error code
	Reason        string   // the reason code of a failure, if any
	ArgumentNames []string // the names of the arguments given
	Truncated     bool     // a row or byte budget cut the result
	Rows          int      // data rows returned: a query's rows, a collection's items
	GuardReason   string   // the read-only guard's reason, when it refused the call's SQL
}

// Progress reports progress of a running call; nil when the caller did not
// ask for progress. progress must increase from call to call.
type Progress func(progress, total float64, message string)

// Resource is one entry of resources/list.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// ResourceContents is the text of one read resource.
type ResourceContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument describes one prompt argument.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptResult is a rendered prompt: its description and user messages.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one text message of a rendered prompt.
type PromptMessage struct {
	Role string // "user" or "assistant"
	Text string
}

// CompletionRef names what is being completed: a prompt argument
// (Type "ref/prompt", Name) or a resource-template variable
// (Type "ref/resource", URI).
type CompletionRef struct {
	Type string
	Name string
	URI  string
}

// Completion is a bounded list of suggested values.
type Completion struct {
	Values  []string
	Total   int
	HasMore bool
}

// MaxCompletionValues is the most values a completion returns (the MCP
// limit).
const MaxCompletionValues = 100

// Errors the protocol layer maps to JSON-RPC errors.
var (
	// ErrToolNotFound: no tool of that name is exposed to the caller.
	ErrToolNotFound = errors.New("catalog: tool not found")
	// ErrPromptNotFound: no prompt of that name.
	ErrPromptNotFound = errors.New("catalog: prompt not found")
	// ErrResourceNotFound: the URI names no readable resource.
	ErrResourceNotFound = errors.New("catalog: resource not found")
	// ErrCompletionRef: the completion reference names nothing completable.
	ErrCompletionRef = errors.New("catalog: unknown completion reference")
)

// ArgumentError reports invalid prompt or completion arguments. Msg is safe
// to show a client.
type ArgumentError struct{ Msg string }

func (e *ArgumentError) Error() string { return "catalog: " + e.Msg }

// ListError reports that a list could not be produced. A failing list is an
// error, never an empty success. Category is one of "backend_unavailable",
// "permission_denied" or "internal_error".
type ListError struct {
	Category string
	Err      error
}

func (e *ListError) Error() string { return "catalog: list failed: " + e.Category }
func (e *ListError) Unwrap() error { return e.Err }
