package guard

import "strconv"

// Reason codes carried by Error.Reason. They are stable: callers and the
// deny corpus (testdata/guard/deny) match on them.
const (
	// Input as a whole.
	ReasonTooLong        = "TOO_LONG"
	ReasonInvalidUTF8    = "INVALID_UTF8"
	ReasonNulByte        = "NUL_BYTE"
	ReasonEmptyStatement = "EMPTY_STATEMENT"

	// Lexical failures: Doris's lexer would not produce a token here.
	ReasonUnclosedComment       = "UNCLOSED_COMMENT"
	ReasonUnclosedString        = "UNCLOSED_STRING"
	ReasonUnclosedIdentifier    = "UNCLOSED_IDENTIFIER"
	ReasonUnrecognisedCharacter = "UNRECOGNISED_CHARACTER"
	ReasonUnopenedComment       = "UNOPENED_COMMENT"

	// Comments that are code, or that Doris's two lexers read differently.
	ReasonExecutableComment   = "EXECUTABLE_COMMENT"
	ReasonClientHint          = "CLIENT_HINT"
	ReasonNestedComment       = "NESTED_COMMENT"
	ReasonCommentContinuation = "COMMENT_CONTINUATION"

	// Text that the Nereids lexer, the legacy lexer or a server setting
	// could tokenize in more than one way.
	ReasonAmbiguousLetter = "AMBIGUOUS_LETTER"
	ReasonAmbiguousEscape = "AMBIGUOUS_ESCAPE"
	ReasonAmbiguousNumber = "AMBIGUOUS_NUMBER"
	ReasonAmbiguousQuote  = "AMBIGUOUS_QUOTE"

	// Statement shape.
	ReasonMultipleStatements = "MULTIPLE_STATEMENTS"
	ReasonWriteStatement     = "WRITE_STATEMENT"
	ReasonNotAllowed         = "STATEMENT_NOT_ALLOWED"
	ReasonExplainTarget      = "EXPLAIN_TARGET"
	ReasonMalformedWith      = "MALFORMED_WITH"

	// Constructs with side effects inside an otherwise readable statement.
	ReasonSideEffectFunction = "SIDE_EFFECT_FUNCTION"
	ReasonIntoOutfile        = "INTO_OUTFILE"
	ReasonLockingRead        = "LOCKING_READ"
	ReasonAssignment         = "ASSIGNMENT"

	// Hints: a hint that is not one of the planner-only hints of Doris's
	// grammar (SET_VAR and its like are CLIENT_HINT).
	ReasonUnknownHint = "UNKNOWN_HINT"

	// The egress policy (egress.go): a function that reaches outside
	// Doris's catalogs, or an unknown table function; a statement that
	// makes Doris fetch a location the caller names.
	ReasonEgressFunction   = "EGRESS_FUNCTION"
	ReasonExternalLocation = "EXTERNAL_LOCATION"

	// Parameters.
	ReasonPositionalParameter   = "POSITIONAL_PARAMETER"
	ReasonInvalidParameterName  = "INVALID_PARAMETER_NAME"
	ReasonUnknownParameter      = "UNKNOWN_PARAMETER"
	ReasonMissingParameter      = "MISSING_PARAMETER"
	ReasonInvalidParameterValue = "INVALID_PARAMETER_VALUE"
)

// Error is a refusal or a lexical failure.
//
// Msg is one short sentence meant for a person. It never contains the SQL
// text or a parameter value, so an Error can be logged and returned to a
// client as is; the one exception is Name.
type Error struct {
	Pos    int    // byte offset into the checked text
	Reason string // one of the Reason constants
	Msg    string
	// Name is the function (EGRESS_FUNCTION) or hint (UNKNOWN_HINT) the
	// refusal is about, in lower case, when it is an ASCII identifier of
	// at most 64 bytes; Msg names it too. Otherwise empty.
	Name string
}

func (e *Error) Error() string {
	return "guard: " + e.Msg + " at byte " + strconv.Itoa(e.Pos)
}

// Is reports whether target is an *Error with the same Reason, so that
// errors.Is(err, &guard.Error{Reason: guard.ReasonWriteStatement}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

func newError(pos int, reason, msg string) *Error {
	return &Error{Pos: pos, Reason: reason, Msg: msg}
}
