package metricflow

import (
	"fmt"
	"regexp"
	"sync"
)

// Reason codes of the boundary.
const (
	ReasonNotConfigured    = "METRICFLOW_PROVIDER_NOT_CONFIGURED"
	ReasonCommandInvalid   = "METRICFLOW_PROVIDER_COMMAND_INVALID"
	ReasonOperation        = "METRICFLOW_OPERATION_UNSUPPORTED"
	ReasonStartFailed      = "METRICFLOW_PROVIDER_START_FAILED"
	ReasonTimeout          = "METRICFLOW_PROVIDER_TIMEOUT"
	ReasonCancelled        = "METRICFLOW_PROVIDER_CANCELLED"
	ReasonOutputLimit      = "METRICFLOW_PROVIDER_OUTPUT_LIMIT_EXCEEDED"
	ReasonFailed           = "METRICFLOW_PROVIDER_FAILED"
	ReasonResponseInvalid  = "METRICFLOW_PROVIDER_RESPONSE_INVALID"
	ReasonProtocolMismatch = "METRICFLOW_PROVIDER_PROTOCOL_MISMATCH"
	ReasonRequestFailed    = "METRICFLOW_PROVIDER_REQUEST_FAILED"
)

// reasonRE is the shape of a provider's own reason code.
var reasonRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,127}$`) })

// Error is a request the provider did not answer usefully. Reason is a
// stable code; FromProvider marks a reason_code the provider itself sent
// in an ok:false answer (the request was understood and refused), as
// opposed to a failure of the boundary. Message is safe to show: it never
// carries provider output.
type Error struct {
	Reason       string
	FromProvider bool
	Message      string
	Cause        error // for the server log only
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("metricflow: %s: %s: %v", e.Reason, e.Message, e.Cause)
	}
	return fmt.Sprintf("metricflow: %s: %s", e.Reason, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is an *Error with the same Reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

// Retryable reports whether the same request may succeed later.
func (e *Error) Retryable() bool {
	switch e.Reason {
	case ReasonTimeout, ReasonStartFailed, ReasonCancelled:
		return true
	}
	return false
}
