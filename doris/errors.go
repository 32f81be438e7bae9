package doris

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// classify turns a database or network failure into an *Error with a
// stable reason code (prefix_PERMISSION_DENIED, ...). The backend's text
// is matched against known Doris shapes but never copied into Message.
func classify(prefix string, err error, ctx context.Context) *Error {
	var de *Error
	if errors.As(err, &de) {
		return de
	}
	e := &Error{Kind: KindFailed, Cause: err}
	set := func(reason string, status int, retryable bool, msg string) *Error {
		e.Reason, e.Status, e.Retryable, e.Message = prefix+"_"+reason, status, retryable, msg
		return e
	}
	var ge *guard.Error
	if errors.As(err, &ge) {
		e.Kind = KindArguments
		return set("READ_ONLY_VIOLATION", 400, false, "refused by the read-only guard: "+ge.Msg)
	}
	if errors.Is(err, ErrNotReadOnly) {
		e.Kind = KindArguments
		return set("READ_ONLY_VIOLATION", 400, false, "refused at the connection boundary: the statement is not read-only")
	}
	if ctx != nil && errors.Is(ctx.Err(), context.Canceled) {
		return set("CANCELLED", 499, true, "the request was cancelled")
	}
	if ctx != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		e.Kind = KindTimeout
		return set("TIMEOUT", 504, true, "the request ran out of time before Doris answered")
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return classifyMySQL(e, set, me)
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, context.DeadlineExceeded) || isNetError(err) {
		return set("BACKEND_UNAVAILABLE", 503, true, "Doris could not be reached or dropped the connection; retry")
	}
	return set("EXECUTION_FAILED", 502, false, "Doris could not run the operation")
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}

func classifyMySQL(e *Error, set func(string, int, bool, string) *Error, me *mysql.MySQLError) *Error {
	msg := strings.ToLower(me.Message)
	switch {
	case me.Number == 1045:
		return set("AUTHENTICATION_FAILED", 401, false, "Doris refused the configured credentials")
	case me.Number == 1044 || me.Number == 1142 || me.Number == 1143 || me.Number == 1227 || me.Number == 1224 ||
		me.Number == 1370 || strings.Contains(msg, "permission denied") || strings.Contains(msg, "access denied") ||
		strings.Contains(msg, "command denied"):
		return set("PERMISSION_DENIED", 403, false, "the Doris account lacks a privilege this operation needs")
	case me.Number == 1969 || me.Number == 3024 || strings.Contains(msg, "timeout") || strings.Contains(msg, "time out"):
		e.Kind = KindTimeout
		return set("TIMEOUT", 504, true, "Doris stopped the query at its time limit; narrow the query or raise timeout_ms")
	case me.Number == 1317 || strings.Contains(msg, "cancel query") || strings.Contains(msg, "cancelled"):
		return set("CANCELLED", 499, true, "the query was cancelled")
	case me.Number == 1049 || me.Number == 1146 || me.Number == 1051 || me.Number == 1109 || me.Number == 1054 ||
		me.Number == 1305 || strings.Contains(msg, "unknown table") || strings.Contains(msg, "unknown database") ||
		strings.Contains(msg, "unknown catalog") || strings.Contains(msg, "does not exist") ||
		strings.Contains(msg, "unknown column") || strings.Contains(msg, "unknown function") ||
		strings.Contains(msg, "can not found function"):
		return set("OBJECT_NOT_FOUND", 404, false, "a catalog, database, table or column named in the request does not exist or is not visible")
	case me.Number == 1064 || strings.Contains(msg, "mismatched input") || strings.Contains(msg, "syntax error") ||
		strings.Contains(msg, "extraneous input") || strings.Contains(msg, "no viable alternative"):
		return set("SYNTAX_ERROR", 400, false, "Doris could not parse the statement")
	case me.Number == 1203 || me.Number == 1040 || strings.Contains(msg, "reach limit of connections"):
		return set("BACKEND_UNAVAILABLE", 503, true, "Doris has no free connection for this account; retry shortly")
	case me.Number == 1193 || me.Number == 1235 || strings.Contains(msg, "not support") ||
		strings.Contains(msg, "only support") || strings.Contains(msg, "unsupported"):
		return set("NOT_SUPPORTED", 501, false, "this Doris version or deployment does not support an operation the server needs")
	}
	return set("EXECUTION_FAILED", 502, false, fmt.Sprintf("Doris rejected the operation (error %d)", me.Number))
}

func timeoutError(prefix string, d time.Duration) *Error {
	return &Error{Kind: KindTimeout, Reason: prefix + "_TIMEOUT", Status: 504, Retryable: true,
		Message: fmt.Sprintf("the query ran past its %s limit and was killed inside Doris; narrow it or raise timeout_ms", d)}
}

func argError(prefix, reason, msg string) *Error {
	return &Error{Kind: KindArguments, Reason: prefix + "_" + reason, Status: 400, Message: msg}
}
