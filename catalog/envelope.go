package catalog

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// Domain error codes of the error envelope.
const (
	CodeToolNotFound          = "CHILD_TOOL_NOT_FOUND"
	CodeManifestStale         = "CHILD_MANIFEST_STALE"
	CodeArgumentsInvalid      = "CHILD_ARGUMENTS_INVALID"
	CodeResultInvalid         = "CHILD_RESULT_INVALID"
	CodeCapabilityUnavailable = "CHILD_CAPABILITY_UNAVAILABLE"
	CodeExecutionTimeout      = "CHILD_EXECUTION_TIMEOUT"
	CodeExecutionFailed       = "CHILD_EXECUTION_FAILED"
)

// maxViolations bounds the violations reported for invalid arguments.
const maxViolations = 16

// resultMetadata is the metadata of a result envelope.
type resultMetadata struct {
	RequestID  string  `json:"request_id"`
	DurationMs float64 `json:"duration_ms"`
	Source     string  `json:"source"`
	Truncated  bool    `json:"truncated"`
	// TraceID is the call's W3C trace id: the one its statements carried
	// into Doris, for get_query_profile's trace_id.
	TraceID string `json:"trace_id,omitempty"`
}

// errorEnvelope is a deterministic domain error: what failed, whether a
// retry may help, and whether the Host should rediscover.
type errorEnvelope struct {
	Mode            string        `json:"mode"`
	Domain          string        `json:"domain"`
	ChildTool       string        `json:"child_tool,omitempty"`
	ManifestVersion string        `json:"manifest_version,omitempty"`
	Error           envelopeError `json:"error"`
}

type envelopeError struct {
	Code      string       `json:"code"`
	Message   string       `json:"message"`
	Retryable bool         `json:"retryable"`
	Details   errorDetails `json:"details"`
	// TraceID is the call's W3C trace id, which the server log, the
	// invocation audit log and Doris's own audit log also carry.
	TraceID string `json:"trace_id,omitempty"`
}

type errorDetails struct {
	Rediscover bool        `json:"rediscover"`
	ReasonCode string      `json:"reason_code,omitempty"`
	StatusCode int         `json:"status_code,omitempty"`
	Violations []violation `json:"violations,omitempty"`
	// Position is a byte offset into the submitted SQL (a guard refusal,
	// or where Doris could not parse it).
	Position *int `json:"position,omitempty"`
	// Object names the catalog object Doris reported missing or not
	// visible, when it named one.
	Object string `json:"object,omitempty"`
}

// violation names where and which schema keyword failed, and why in words
// that name the member and the bound; it never carries the offending
// value.
type violation = schema.Violation

func (e *errorEnvelope) result() *ToolResult {
	b, _ := json.Marshal(e)
	return &ToolResult{Structured: b, IsError: true}
}

func newRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return "req_" + hex.EncodeToString(b[:])
}
