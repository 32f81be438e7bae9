package doris

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// Call is one child invocation, after the catalog's dispatcher authorized
// it, checked its availability and validated its arguments.
type Call struct {
	// Domain and Child name the operation, e.g. "doris_catalog", "list_tables".
	Domain, Child string
	// Identity is the caller; its Route selects the connection pool.
	Identity auth.Identity
	// Args are the validated arguments (a JSON object). Keys are exact:
	// the schema admits no unknown or case-variant members, so decoding
	// into a struct is safe.
	Args json.RawMessage
	// Variant is the active capability variant from the manifest.
	Variant string
	// Snapshot is the capability generation the call was admitted under.
	Snapshot *Snapshot
	// Progress reports progress; nil when the caller did not ask for it.
	Progress func(progress, total float64, message string)

	rt *Runtime // set when the runtime runs the call's handler
}

// Runtime is the runtime the call runs on: the handlers' one way to
// Doris. It is nil until a handler bound by the runtime is running.
func (c *Call) Runtime() *Runtime { return c.rt }

// Result is a child's normalised output: the family data plus warnings and
// evidence. The catalog wraps it in the result envelope and validates it
// against the child's output schema.
type Result struct {
	// Status is "success" or "partial".
	Status string
	// Data is the family's data member: a value that marshals to the
	// object the child's output schema describes.
	Data any
	// Warnings are short, unique sentences for the user (truncation,
	// degraded evidence). Never backend error text.
	Warnings []string
	// Evidence is required for diagnostic children: where each finding
	// came from.
	Evidence []map[string]any
	// Source names where the data came from: "doris_mysql", "doris_fe_http".
	Source string
	// Truncated reports that a row or byte budget cut the data.
	Truncated bool
	// Masking reports result masking on children that return data rows
	// (nil for the others); the envelope carries it in metadata.masking.
	Masking *Masking
}

// JSONAppender is result data that renders its own JSON (query rows are
// rendered as they stream in): the catalog appends it to the envelope
// instead of encoding it again. AppendJSON must append exactly one valid
// JSON value. Beware of embedding an appender in another struct: the
// method is promoted, and the outer struct's other fields are not written.
type JSONAppender interface {
	AppendJSON(dst []byte) []byte
}

// ObjectRef names one table or view.
type ObjectRef struct {
	Catalog, Database, Name string
	// Kind is "table", "view" or "materialized_view".
	Kind string
}

// ErrNotFound reports that an object does not exist or is not visible to
// the caller (Doris does not distinguish the two for metadata).
var ErrNotFound = errors.New("doris: object not found")

// Handler runs one child.
type Handler func(ctx context.Context, c *Call) (*Result, error)

// ErrorKind classifies a runtime failure for the envelope.
type ErrorKind int

const (
	// KindFailed: the operation failed (CHILD_EXECUTION_FAILED).
	KindFailed ErrorKind = iota
	// KindArguments: the arguments are acceptable to the schema but not to
	// the runtime: a write statement, an unknown object, a ceiling
	// exceeded, a stale page cursor (CHILD_ARGUMENTS_INVALID).
	KindArguments
	// KindTimeout: the operation ran out of time (CHILD_EXECUTION_TIMEOUT).
	KindTimeout
)

// Error is a classified runtime failure. Message is safe to show a client:
// it never contains backend error text, SQL or secrets. The cause is kept
// for the server log only.
type Error struct {
	Kind      ErrorKind
	Reason    string // stable code, e.g. QUERY_TIMEOUT, CATALOG_OBJECT_NOT_FOUND
	Retryable bool
	Status    int // HTTP-like status: 400, 403, 404, 409, 429, 501, 502, 503, 504
	Message   string
	// Position is the byte offset into the caller's SQL that the failure
	// points at (a guard refusal, a Doris syntax error), or nil.
	Position *int
	// Object names the catalog object Doris reported missing or invisible
	// ("db.table", a column), when it named one. It is checked to be a
	// plain identifier chain before it is kept, so it never carries
	// backend text.
	Object string
	// Cause is the underlying failure, for errors.Is and errors.As. Its
	// text is backend text: it is never shown to a client or logged.
	Cause error

	class     *class // the failure class classify found, if any
	number    int    // the MySQL error number, for the log
	line, col int    // where Doris could not parse the statement (line >= 1)
}

// Error is for the server's own log: the reason, the client's message and
// the MySQL error number, never the backend's text.
func (e *Error) Error() string {
	if e.number != 0 {
		return fmt.Sprintf("doris: %s: %s (MySQL error %d)", e.Reason, e.Message, e.number)
	}
	return fmt.Sprintf("doris: %s: %s", e.Reason, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error with the same Reason, so callers
// write errors.Is(err, &doris.Error{Reason: "QUERY_TIMEOUT"}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}
