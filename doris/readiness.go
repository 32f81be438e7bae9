package doris

import (
	"context"
	"errors"

	"github.com/go-sql-driver/mysql"
)

// ReasonCode is the error's stable reason code, for callers that only
// know the error interface (the /ready endpoint).
func (e *Error) ReasonCode() string { return e.Reason }

// serviceError says why the global route cannot serve: the reason a whole
// snapshot is unavailable (DORIS_CONNECTION_FAILED,
// DORIS_AUTHENTICATION_FAILED, DORIS_DATABASE_UNAVAILABLE,
// DORIS_TLS_REQUIRED, ...) and its sanitized sentence, never backend text.
func serviceError(ctx context.Context, err error) *Error {
	var me *mysql.MySQLError
	if errors.As(err, &me) && loginRejectedCodes[me.Number] {
		return &Error{Kind: KindFailed, Reason: ReasonAuthenticationFailed, Status: 503, class: classAuth, number: int(me.Number),
			Message: "Doris refused the configured account (DORIS_USER / DORIS_PASSWORD): wrong user name or password, " +
				"a host the account may not log in from, or a locked or expired account", Cause: err}
	}
	e := Classify("DORIS", err, ctx)
	out := &Error{Kind: KindFailed, Reason: ReasonConnectionFailed, Status: 503, Retryable: true, class: e.class, number: e.number,
		Message: "Doris is not reachable at the configured FE address", Cause: err}
	if e.class != nil {
		out.Reason, out.Message = e.class.snapshot, e.class.detail
		out.Retryable = e.class == classUnavailable || e.class == classBusy || e.class == classTimeout
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
		out.Reason, out.Message = ReasonConnectionFailed, "Doris did not answer in time"
	}
	return out
}
