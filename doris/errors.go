package doris

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// class is one class of backend failure. It is the one mapping from what
// went wrong to everything that depends on it: the reason code suffix, the
// envelope's kind, status and retryability, the sentence a client sees,
// what the failure means as a capability probe outcome, and as the reason
// a whole capability snapshot is unavailable.
type class struct {
	suffix    string // reason code after the domain prefix, e.g. PERMISSION_DENIED
	kind      ErrorKind
	status    int
	retryable bool
	message   string
	probe     string        // probe outcome
	retry     time.Duration // how long that probe outcome holds; 0: the whole generation
	snapshot  string        // why a snapshot that failed this way is unavailable
	detail    string        // and the sentence that says so
}

// The failure classes.
var (
	classAuth = &class{suffix: "AUTHENTICATION_FAILED", status: 401,
		message: "Doris refused the credentials of this route", probe: ProbeFailed, retry: failedRetry,
		snapshot: ReasonAuthenticationFailed, detail: "Doris refused the configured account (DORIS_USER / DORIS_PASSWORD)"}
	classPermission = &class{suffix: "PERMISSION_DENIED", status: 403,
		message: "the Doris account lacks a privilege this operation needs", probe: ProbePermissionDenied,
		snapshot: ReasonSnapshotUnavailable, detail: "the Doris account may not read its server version"}
	// classDatabase is MySQL error 1044, "access denied to database": the
	// session database (DORIS_DATABASE at connect, or a database a request
	// names) does not exist or this account may not see it. Doris and
	// MariaDB answer an account without global privileges so for a
	// database that is missing, too.
	classDatabase = &class{suffix: "PERMISSION_DENIED", status: 403,
		message: "the database does not exist or is not visible to this Doris account", probe: ProbePermissionDenied,
		snapshot: ReasonDatabaseUnavailable, detail: "the configured DORIS_DATABASE does not exist or is not visible to the account DORIS_USER"}
	classTimeout = &class{suffix: "TIMEOUT", kind: KindTimeout, status: 504, retryable: true,
		message: "Doris stopped the query at its time limit; narrow the query or raise timeout_ms", probe: ProbeTimeout, retry: timeoutRetry,
		snapshot: ReasonSnapshotUnavailable, detail: "Doris did not answer the capability checks in time"}
	classCancelled = &class{suffix: "CANCELLED", status: 499, retryable: true,
		message: "the query was cancelled", probe: ProbeFailed, retry: failedRetry,
		snapshot: ReasonSnapshotUnavailable, detail: "the capability checks were cancelled"}
	classNotFound = &class{suffix: "OBJECT_NOT_FOUND", status: 404,
		message: "a catalog, database, table or column named in the request does not exist or is not visible", probe: ProbeNotSupported,
		snapshot: ReasonDatabaseUnavailable, detail: "the configured DORIS_DATABASE does not exist or is not visible to the account DORIS_USER"}
	classSyntax = &class{suffix: "SYNTAX_ERROR", status: 400,
		message: "Doris could not parse the statement", probe: ProbeNotSupported,
		snapshot: ReasonSnapshotUnavailable, detail: "Doris did not understand the capability checks"}
	classUnavailable = &class{suffix: "BACKEND_UNAVAILABLE", status: 503, retryable: true,
		message: "Doris could not be reached or dropped the connection; retry", probe: ProbeFailed, retry: failedRetry,
		snapshot: ReasonConnectionFailed, detail: "Doris is not reachable at the configured FE address"}
	classBusy = &class{suffix: "BACKEND_UNAVAILABLE", status: 503, retryable: true,
		message: "Doris has no free connection for this account; retry shortly", probe: ProbeFailed, retry: failedRetry,
		snapshot: ReasonConnectionFailed, detail: "Doris refused a connection: it is at its connection limit"}
	classTLS = &class{suffix: "BACKEND_UNAVAILABLE", status: 503,
		message: "Doris accepts only TLS connections, which this server does not open", probe: ProbeFailed, retry: failedRetry,
		snapshot: ReasonTLSRequired, detail: "Doris requires TLS (require_secure_transport); this server connects without TLS"}
	classNotSupported = &class{suffix: "NOT_SUPPORTED", status: 501,
		message: "this Doris version or deployment does not support an operation the server needs", probe: ProbeNotSupported,
		snapshot: ReasonSnapshotUnavailable, detail: "Doris does not support the capability checks"}
	classReadOnly = &class{suffix: "READ_ONLY_VIOLATION", kind: KindArguments, status: 400,
		message: "refused at the connection boundary: the statement is not read-only", probe: ProbeFailed,
		snapshot: ReasonSnapshotUnavailable, detail: "a capability check was refused by the read-only guard"}
	classLimited = &class{suffix: "CONCURRENCY_LIMITED", status: 429, retryable: true,
		message: "the server is running as many queries as it may (MAX_CONCURRENT_QUERIES); retry shortly", probe: ProbeFailed, retry: failedRetry,
		snapshot: ReasonSnapshotUnavailable, detail: "the server was too busy to take the capability checks"}
	classFailed = &class{suffix: "EXECUTION_FAILED", status: 502,
		message: "Doris could not run the operation", probe: ProbeFailed,
		snapshot: ReasonSnapshotUnavailable, detail: "Doris did not answer the capability checks"}
)

// Classify turns a database or network failure into an *Error with a
// stable reason code (prefix_PERMISSION_DENIED, ...). The backend's text
// is matched against known Doris shapes but never copied into Message;
// only a missing object's name and a syntax error's position are passed
// on, checked to be what they claim.
func Classify(prefix string, err error, ctx context.Context) *Error {
	var de *Error
	if errors.As(err, &de) {
		return de
	}
	e := &Error{Cause: err}
	var ge *guard.Error
	var me *mysql.MySQLError
	var se *HTTPStatusError
	switch {
	case errors.As(err, &ge):
		e.setClass(prefix, classReadOnly)
		e.Message = "refused by the read-only guard: " + ge.Msg
		return e
	case errors.Is(err, ErrNotReadOnly):
		return e.setClass(prefix, classReadOnly)
	case ctx != nil && errors.Is(ctx.Err(), context.Canceled):
		e.setClass(prefix, classCancelled)
		e.Message = "the request was cancelled"
		return e
	case ctx != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		e.setClass(prefix, classTimeout)
		e.Message = "the request ran out of time before Doris answered"
		return e
	case errors.As(err, &me):
		return classifyMySQL(prefix, e, me)
	case errors.As(err, &se) && (se.Status == 401 || se.Status == 403):
		return e.setClass(prefix, classPermission)
	case errors.As(err, &se) && se.Status == 404:
		return e.setClass(prefix, classNotSupported)
	case errors.As(err, &se) || errors.Is(err, ErrTooLarge):
		return e.setClass(prefix, classFailed)
	case errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, context.DeadlineExceeded) || isNetError(err):
		return e.setClass(prefix, classUnavailable)
	}
	return e.setClass(prefix, classFailed)
}

func (e *Error) setClass(prefix string, c *class) *Error {
	e.class = c
	e.Kind, e.Reason, e.Status, e.Retryable, e.Message = c.kind, prefix+"_"+c.suffix, c.status, c.retryable, c.message
	return e
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}

func classifyMySQL(prefix string, e *Error, me *mysql.MySQLError) *Error {
	msg := strings.ToLower(me.Message)
	e.number = int(me.Number)
	switch {
	case me.Number == 1045:
		return e.setClass(prefix, classAuth)
	case me.Number == 1044:
		return e.setClass(prefix, classDatabase)
	case me.Number == 3159 || strings.Contains(msg, "insecure transport"):
		// require_secure_transport: this server speaks plain MySQL
		// protocol to Doris.
		return e.setClass(prefix, classTLS)
	case me.Number == 1142 || me.Number == 1143 || me.Number == 1227 || me.Number == 1224 ||
		me.Number == 1370 || strings.Contains(msg, "permission denied") || strings.Contains(msg, "access denied") ||
		strings.Contains(msg, "command denied"):
		return e.setClass(prefix, classPermission)
	case backendOffline(msg):
		// Before the timeout and not-found cases: these texts may say
		// "deadline exceeded" or "backend N does not exist".
		e.setClass(prefix, classUnavailable)
		e.Message = "Doris has no live backend to run this on; retry when its backends are back"
		return e
	case me.Number == 1969 || me.Number == 3024 || strings.Contains(msg, "timeout") || strings.Contains(msg, "time out"):
		return e.setClass(prefix, classTimeout)
	case me.Number == 1317 || strings.Contains(msg, "cancel query") || strings.Contains(msg, "cancelled"):
		return e.setClass(prefix, classCancelled)
	case me.Number == 1049 || me.Number == 1146 || me.Number == 1051 || me.Number == 1109 || me.Number == 1054 ||
		me.Number == 1305 || strings.Contains(msg, "unknown table") || strings.Contains(msg, "unknown database") ||
		strings.Contains(msg, "unknown catalog") || strings.Contains(msg, "does not exist") ||
		strings.Contains(msg, "unknown column") || strings.Contains(msg, "unknown function") ||
		strings.Contains(msg, "can not found function"):
		e.setClass(prefix, classNotFound)
		if what, name := missingObject(me.Message); name != "" {
			e.Object = name
			e.Message = fmt.Sprintf("the %s %s does not exist or is not visible to this account", what, name)
		}
		return e
	case me.Number == 1064 || strings.Contains(msg, "mismatched input") || strings.Contains(msg, "syntax error") ||
		strings.Contains(msg, "extraneous input") || strings.Contains(msg, "no viable alternative"):
		e.setClass(prefix, classSyntax)
		e.line, e.col = syntaxPosition(me.Message)
		if e.line > 0 {
			e.Message = fmt.Sprintf("Doris could not parse the statement at line %d, column %d", e.line, e.col+1)
		}
		return e
	case me.Number == 1203 || me.Number == 1040 || strings.Contains(msg, "reach limit of connections"):
		return e.setClass(prefix, classBusy)
	case me.Number == 1193 || me.Number == 1235 || strings.Contains(msg, "not support") ||
		strings.Contains(msg, "only support") || strings.Contains(msg, "unsupported"):
		return e.setClass(prefix, classNotSupported)
	}
	e.setClass(prefix, classFailed)
	e.Message = fmt.Sprintf("Doris rejected the operation (error %d)", me.Number)
	return e
}

// backendOffline reports the (lower-cased) texts Doris sends when the
// backends a query needs are down: "No backend available as scan node,
// please check the status of your backends. [10003: not alive]" (2.1 and
// later), "There is no scanNode Backend available.[10002: not alive]",
// "tablet T has no queryable replicas. err: replica R's backend B does
// not exist or not alive", "No available backends".
func backendOffline(msg string) bool {
	return strings.Contains(msg, "no backend available") || strings.Contains(msg, "no scannode backend available") ||
		strings.Contains(msg, "no queryable replicas") || strings.Contains(msg, "no available backends")
}

// missingObject finds the object a Doris "not found" message names:
// Unknown database 'x', Unknown table 'x' [in y], Unknown column 'x' in
// 'y', Unknown catalog 'x', Table [x] does not exist, Table 'db.x'
// doesn't exist. The name is kept only when it is a plain identifier chain
// (letters, digits, _ $ - and dots), so no other backend text passes.
func missingObject(msg string) (what, name string) {
	for _, p := range []struct{ lead, what string }{
		{"Unknown database '", "database"}, {"Unknown table '", "table"}, {"Unknown column '", "column"},
		{"Unknown catalog '", "catalog"}, {"Table [", "table"}, {"Table '", "table"}, {"Database [", "database"},
		{"Unknown function '", "function"}, {"Can not found function '", "function"},
	} {
		i := strings.Index(msg, p.lead)
		if i < 0 {
			continue
		}
		rest := msg[i+len(p.lead):]
		end := strings.IndexAny(rest, "']")
		if end <= 0 || end > maxIdent {
			continue
		}
		if cand := rest[:end]; PlainIdentChain(cand) {
			return p.what, cand
		}
	}
	return "", ""
}

func PlainIdentChain(s string) bool {
	for _, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$' || r == '-' || r == '.') {
			return false
		}
	}
	return s != ""
}

// PlainObject is name when it is a plain identifier chain short enough to
// report as an error's object, else "".
func PlainObject(name string) string {
	if PlainIdentChain(name) && len(name) <= maxIdent {
		return name
	}
	return ""
}

// syntaxPosition reads Nereids' "(line L, pos P)": L counts from 1, P is
// the 0-based character column.
func syntaxPosition(msg string) (line, col int) {
	i := strings.LastIndex(msg, "(line ")
	if i < 0 {
		return 0, 0
	}
	rest := msg[i+len("(line "):]
	ls, after, ok := strings.Cut(rest, ", pos ")
	if !ok {
		return 0, 0
	}
	ps, _, ok := strings.Cut(after, ")")
	if !ok {
		return 0, 0
	}
	l, err1 := strconv.Atoi(ls)
	p, err2 := strconv.Atoi(ps)
	if err1 != nil || err2 != nil || l < 1 || p < 0 {
		return 0, 0
	}
	return l, p
}

// locate sets Position to the byte offset in sqlText of the line and
// column Doris reported, when it reported one and it lies in the text.
func (e *Error) locate(sqlText string) {
	if e.line < 1 {
		return
	}
	off := 0
	for l := 1; l < e.line; l++ {
		nl := strings.IndexByte(sqlText[off:], '\n')
		if nl < 0 {
			return
		}
		off += nl + 1
	}
	col := 0
	for i, r := range sqlText[off:] {
		if col == e.col {
			pos := off + i
			e.Position = &pos
			return
		}
		if r == '\n' {
			return
		}
		col++
	}
	if col == e.col { // the end of the text: Doris expected more
		pos := len(sqlText)
		e.Position = &pos
	}
}

// failedProbe is what a failed probe means, and how long that holds.
func failedProbe(err error) (string, time.Duration) {
	var de *Error
	if errors.As(err, &de) && de.class != nil {
		return de.class.probe, de.class.retry
	}
	return ProbeFailed, 0
}

// unavailableReason sanitises why the base evidence could not be taken.
func unavailableReason(err error) (reason, detail string) {
	e := Classify("DORIS", err, nil)
	if e.class != nil {
		return e.class.snapshot, e.class.detail
	}
	return ReasonSnapshotUnavailable, "Doris did not answer the capability checks"
}

// killOutcome is what became of the KILL QUERY the server sent for a
// statement that overran.
type killOutcome int

const (
	killPending     killOutcome = iota // sent; Doris has not confirmed it yet
	killConfirmed                      // Doris answered the KILL
	killUnreachable                    // no connection to Doris could carry it
)

// overranError is the timeout of a statement the server stopped itself,
// saying truthfully what became of it inside Doris.
func overranError(prefix string, d time.Duration, k killOutcome) *Error {
	msg := fmt.Sprintf("the query ran past its %s limit and was stopped inside Doris (KILL QUERY); narrow it or raise timeout_ms", d)
	switch k {
	case killPending:
		msg = fmt.Sprintf("the query ran past its %s limit; the server sent KILL QUERY, which Doris has not confirmed yet, so it may still be running there", d)
	case killUnreachable:
		msg = fmt.Sprintf("the query ran past its %s limit; the server could not reach Doris to stop it, so it may still be running there", d)
	}
	return &Error{Kind: KindTimeout, Reason: prefix + "_TIMEOUT", Status: 504, Retryable: true, class: classTimeout, Message: msg}
}

// notStartedError is the timeout of a statement that never reached Doris:
// no connection became free within its limit.
func notStartedError(prefix string, d time.Duration) *Error {
	return &Error{Kind: KindTimeout, Reason: prefix + "_TIMEOUT", Status: 504, Retryable: true, class: classTimeout,
		Message: fmt.Sprintf("the query did not start: no connection to Doris became available within its %s limit", d)}
}

func ArgError(prefix, reason, msg string) *Error {
	return &Error{Kind: KindArguments, Reason: prefix + "_" + reason, Status: 400, Message: msg}
}

// BackendSays reports whether Doris's error text contains any of the
// phrases. The text is only inspected to pick a reason, never passed on.
func BackendSays(err error, phrases ...string) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	msg := strings.ToLower(me.Message)
	for _, p := range phrases {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
