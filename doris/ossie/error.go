package ossie

import "fmt"

// Error is a model or binding that cannot be loaded. Reason is a stable
// code (OSSIE_DUPLICATE_KEY, OSSIE_MODEL_PATH_OUTSIDE_ROOT, ...); File is
// the offending file relative to the model directory, or the binding
// manifest's base name; Message says what is wrong and where, never quoting
// file content beyond the names of members.
type Error struct {
	Reason  string
	File    string
	Message string
}

func (e *Error) Error() string {
	if e.File != "" {
		return fmt.Sprintf("ossie: %s: %s: %s", e.Reason, e.File, e.Message)
	}
	return fmt.Sprintf("ossie: %s: %s", e.Reason, e.Message)
}

// Is reports whether target is an *Error with the same Reason.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

func fail(reason, file, format string, args ...any) *Error {
	return &Error{Reason: reason, File: file, Message: fmt.Sprintf(format, args...)}
}
