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
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// secret is backend text that must never reach a client.
const secret = "SECRET-DETAIL host 10.9.8.7 table secret.salaries user 'mcp_reader'@'%'"

func TestClassify(t *testing.T) {
	my := func(n uint16, msg string) error {
		return &mysql.MySQLError{Number: n, Message: "errCode = 2, detailMessage = " + msg + " " + secret}
	}
	_, gerr := guard.Check("DELETE FROM t")
	for _, tc := range []struct {
		err       error
		reason    string
		kind      ErrorKind
		status    int
		retryable bool
	}{
		{my(1045, "Access denied for user"), "X_AUTHENTICATION_FAILED", KindFailed, 401, false},
		{my(1105, "Permission denied: user does not have privilege"), "X_PERMISSION_DENIED", KindFailed, 403, false},
		{my(1142, "SELECT command denied to user"), "X_PERMISSION_DENIED", KindFailed, 403, false},
		{my(1227, "Access denied; you need (at least one of) the (Admin_priv)"), "X_PERMISSION_DENIED", KindFailed, 403, false},
		{my(1370, "execute command denied to user for routine"), "X_PERMISSION_DENIED", KindFailed, 403, false},
		{my(1044, "Access denied for user to database"), "X_PERMISSION_DENIED", KindFailed, 403, false},
		{my(1105, "query is timeout, killed by timeout checker"), "X_TIMEOUT", KindTimeout, 504, true},
		{my(1105, "Timeout"), "X_TIMEOUT", KindTimeout, 504, true},
		{my(1969, "Query execution was interrupted (max_statement_time exceeded)"), "X_TIMEOUT", KindTimeout, 504, true},
		{my(1105, "cancel query by user from 127.0.0.1:5555"), "X_CANCELLED", KindFailed, 499, true},
		{my(1317, "Query execution was interrupted"), "X_CANCELLED", KindFailed, 499, true},
		{my(1105, "Table [nope] does not exist in database [demo]."), "X_OBJECT_NOT_FOUND", KindFailed, 404, false},
		{my(1049, "Unknown database 'nope'"), "X_OBJECT_NOT_FOUND", KindFailed, 404, false},
		{my(1051, "Unknown table 'x'"), "X_OBJECT_NOT_FOUND", KindFailed, 404, false},
		{my(1054, "Unknown column 'x' in 'field list'"), "X_OBJECT_NOT_FOUND", KindFailed, 404, false},
		{my(1105, "Unknown catalog 'c'"), "X_OBJECT_NOT_FOUND", KindFailed, 404, false},
		{my(1305, "FUNCTION demo.TOKENIZE does not exist"), "X_OBJECT_NOT_FOUND", KindFailed, 404, false},
		{my(1105, "Can not found function 'tokenize'"), "X_OBJECT_NOT_FOUND", KindFailed, 404, false},
		{my(1105, "\nmismatched input 'FROM' expecting {<EOF>, ';'}(line 1, pos 9)"), "X_SYNTAX_ERROR", KindFailed, 400, false},
		{my(1064, "You have an error in your SQL syntax"), "X_SYNTAX_ERROR", KindFailed, 400, false},
		{my(1040, "Too many connections"), "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{my(1105, "Reach limit of connections"), "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{my(1105, "SHOW COMPUTE GROUPS is only supported in cloud mode"), "X_NOT_SUPPORTED", KindFailed, 501, false},
		{my(1235, "This version doesn't yet support this"), "X_NOT_SUPPORTED", KindFailed, 501, false},
		{my(1105, "something else entirely"), "X_EXECUTION_FAILED", KindFailed, 502, false},
		{fmt.Errorf("read: %w", io.EOF), "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{io.ErrUnexpectedEOF, "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{mysql.ErrInvalidConn, "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{driver.ErrBadConn, "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{syscall.ECONNRESET, "X_BACKEND_UNAVAILABLE", KindFailed, 503, true},
		{gerr, "X_READ_ONLY_VIOLATION", KindArguments, 400, false},
		{fmt.Errorf("%w: %w", ErrNotReadOnly, gerr), "X_READ_ONLY_VIOLATION", KindArguments, 400, false},
		{errors.New(secret), "X_EXECUTION_FAILED", KindFailed, 502, false},
	} {
		e := Classify("X", tc.err, context.Background())
		if e.Reason != tc.reason || e.Kind != tc.kind || e.Status != tc.status || e.Retryable != tc.retryable {
			t.Errorf("%v: %s kind %d %d %v, want %s kind %d %d %v", tc.err, e.Reason, e.Kind, e.Status, e.Retryable,
				tc.reason, tc.kind, tc.status, tc.retryable)
		}
		for _, leak := range []string{"SECRET", "10.9.8.7", "salaries", "mcp_reader", "errCode", "detailMessage"} {
			if strings.Contains(e.Message, leak) {
				t.Errorf("%v: message leaks %q: %s", tc.err, leak, e.Message)
			}
		}
		if e.Message == "" || !errors.Is(e, tc.err) && tc.err != nil && !errors.Is(e.Cause, tc.err) {
			t.Errorf("%v: message %q, cause %v", tc.err, e.Message, e.Cause)
		}
	}
}

func TestClassifyContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if e := Classify("Q", io.EOF, ctx); e.Reason != "Q_CANCELLED" || !e.Retryable || e.Status != 499 {
		t.Fatalf("cancelled: %+v", e)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 0)
	defer cancel()
	<-ctx.Done()
	if e := Classify("Q", io.EOF, ctx); e.Reason != "Q_TIMEOUT" || e.Kind != KindTimeout {
		t.Fatalf("deadline: %+v", e)
	}
	// An *Error passes through unchanged.
	orig := &Error{Kind: KindArguments, Reason: "Q_SOMETHING", Status: 400, Message: "m"}
	if e := Classify("Z", fmt.Errorf("wrapped: %w", orig), nil); e != orig {
		t.Fatalf("passthrough %+v", e)
	}
	// A timeout the runtime reports says what became of the query.
	for _, tc := range []struct {
		e    *Error
		says string
	}{
		{overranError("QUERY", 1500*time.Millisecond, killConfirmed), "was stopped inside Doris"},
		{overranError("QUERY", 1500*time.Millisecond, killPending), "has not confirmed"},
		{overranError("QUERY", 1500*time.Millisecond, killUnreachable), "could not reach Doris"},
		{notStartedError("QUERY", 1500*time.Millisecond), "did not start"},
	} {
		if e := tc.e; e.Kind != KindTimeout || !e.Retryable || e.Reason != "QUERY_TIMEOUT" || !strings.Contains(e.Message, tc.says) ||
			!strings.Contains(e.Message, "1.5s") {
			t.Errorf("timeout %+v, want a message saying %q", e, tc.says)
		}
	}
	if e := overranError("QUERY", time.Second, killUnreachable); strings.Contains(e.Message, "was stopped") {
		t.Errorf("an unconfirmed kill is reported as done: %s", e.Message)
	}
}

func TestUnavailableReason(t *testing.T) {
	for _, tc := range []struct {
		err    error
		reason string
	}{
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, ReasonConnectionFailed},
		{&mysql.MySQLError{Number: 1045, Message: secret}, ReasonAuthenticationFailed},
		{&mysql.MySQLError{Number: 1049, Message: secret}, ReasonDatabaseUnavailable},
		{&mysql.MySQLError{Number: 1105, Message: secret}, ReasonSnapshotUnavailable},
	} {
		reason, detail := unavailableReason(tc.err)
		if reason != tc.reason || strings.Contains(detail, "SECRET") {
			t.Errorf("%v: %s %q", tc.err, reason, detail)
		}
	}
}

// TestErrorTextHasNoBackendText: neither Message (clients) nor Error()
// (the server's log) carries the backend's text; the cause stays reachable
// with errors.As for code, and Error() names the MySQL error number.
func TestErrorTextHasNoBackendText(t *testing.T) {
	cause := &mysql.MySQLError{Number: 1105, Message: secret}
	e := Classify("Q", cause, nil)
	for _, text := range []string{e.Error(), e.Message} {
		if strings.Contains(text, "SECRET") || strings.Contains(text, "salaries") {
			t.Fatalf("backend text leaks: %q", text)
		}
	}
	if !strings.Contains(e.Error(), "1105") {
		t.Errorf("Error() %q does not name the MySQL error number", e.Error())
	}
	var me *mysql.MySQLError
	if !errors.As(e, &me) || me != cause {
		t.Error("the cause is not reachable")
	}
}

// TestDorisDetailsPassedOn: the object Doris reports missing, and where it
// could not parse a statement, reach the client; anything else it said
// does not.
func TestDorisDetailsPassedOn(t *testing.T) {
	my := func(n uint16, msg string) error {
		return &mysql.MySQLError{Number: n, Message: "errCode = 2, detailMessage = " + msg}
	}
	for _, tc := range []struct {
		err    error
		object string
		msg    string
	}{
		{my(1049, "Unknown database 'sales_db'"), "sales_db", "the database sales_db does not exist or is not visible to this account"},
		{my(1051, "Unknown table 'orderz' in demo"), "orderz", "the table orderz does not exist or is not visible to this account"},
		{my(1054, "Unknown column 'totl' in 'field list'"), "totl", "the column totl does not exist or is not visible to this account"},
		{my(1105, "Table [nope] does not exist in database [demo]. "+secret), "nope", "the table nope does not exist or is not visible to this account"},
		{my(1146, "Table 'demo.x' doesn't exist"), "demo.x", "the table demo.x does not exist or is not visible to this account"},
		// Not a plain name: the object is withheld, the generic sentence stays.
		{my(1049, "Unknown database 'a b; DROP'"), "", "a catalog, database, table or column named in the request does not exist or is not visible"},
	} {
		e := Classify("Q", tc.err, nil)
		if e.Object != tc.object || e.Message != tc.msg {
			t.Errorf("%v: object %q message %q, want %q %q", tc.err, e.Object, e.Message, tc.object, tc.msg)
		}
	}
	sqlText := "SELECT a,\n  b\nFROM t LIKE x"
	e := Classify("Q", my(1105, "\nmismatched input 'LIKE' expecting {<EOF>, ';'}(line 3, pos 7)"), nil)
	e.locate(sqlText)
	if e.Position == nil || sqlText[*e.Position:*e.Position+4] != "LIKE" || strings.Contains(e.Message, "mismatched") {
		t.Fatalf("syntax error: position %v message %q", e.Position, e.Message)
	}
	e = Classify("Q", my(1105, "mismatched input 'x'(line 9, pos 0)"), nil)
	if e.locate(sqlText); e.Position != nil {
		t.Fatalf("a line beyond the text gave position %d", *e.Position)
	}
}

// TestErrorIsByReason: errors compare by reason code, through wrapping,
// and carry a position only when one is known.
func TestErrorIsByReason(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", &Error{Reason: "QUERY_TIMEOUT", Kind: KindTimeout})
	if !errors.Is(err, &Error{Reason: "QUERY_TIMEOUT"}) {
		t.Fatal("errors.Is by reason failed through a wrap")
	}
	if errors.Is(err, &Error{Reason: "QUERY_CANCELLED"}) {
		t.Fatal("errors.Is matched another reason")
	}
	if e := Classify("QUERY", io.EOF, nil); e.Position != nil {
		t.Fatalf("a failure without a position has Position %d", *e.Position)
	}
	_, gerr := guard.Check("DELETE FROM t")
	de := GuardError(gerr).(*Error)
	if de.Position == nil || *de.Position != 0 {
		t.Fatalf("guard refusal position = %v, want 0", de.Position)
	}
}
