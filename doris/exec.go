package doris

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// Stmt is one statement to run on a route, with its session and limits.
type Stmt struct {
	SQL string
	// catalog and database are the session the statement runs in; empty
	// means the route's defaults (internal catalog, DORIS_DATABASE).
	Catalog, Database string
	// timeout is enforced inside Doris (query_timeout, whole seconds) and
	// by the server, which kills the query when it overruns.
	Timeout time.Duration
	// progress, when set, is called about once a second while the
	// statement runs.
	Progress func(progress, total float64, message string)
	// prefix names the failure domain of error reason codes ("QUERY",
	// "CATALOG", ...).
	Prefix string
	// setup are session controls sent first on the same connection (e.g.
	// enabling the profile). They change the session in ways the server
	// does not track, so the connection is discarded afterwards.
	setup []string
	// caller, when set, is the caller's own SQL text as it appears in sql
	// at byte callerAt: a position Doris reports in sql is then passed on
	// as a position in the caller's text.
	Caller   string
	CallerAt int
	// internal marks the server's own bounded reads (capability evidence
	// and probes): they do not take a MAX_CONCURRENT_QUERIES slot, so
	// that busy callers cannot make Doris look unavailable.
	internal bool
}

// Column is a result column as the driver reports it.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// ArrowType is the column's Arrow type when it was read over Arrow
	// Flight SQL with result_format arrow ("" otherwise).
	ArrowType string `json:"arrow_type,omitempty"`
	dbType    string
}

// visitor receives each row; returning stop=true ends the statement early
// (the result is truncated: the query is killed and the connection
// discarded, so nothing beyond the budget is read).
type visitor func(cols []Column, row []sql.RawBytes) (stop bool, err error)

// killGrace is how long the server waits past the Doris-side timeout
// before it kills the query itself.
const killGrace = 250 * time.Millisecond

// killWait is how long a call waits for its KILL QUERY to be confirmed
// before it answers anyway: with killGrace, a timed-out call answers
// within its timeout plus one second whatever the backend does. The kill
// itself goes on in the background, bounded by killTimeout.
const (
	killWait    = 450 * time.Millisecond
	killTimeout = 3 * time.Second
)

// admissionWait bounds how long a statement waits for a
// MAX_CONCURRENT_QUERIES slot (within its own timeout) before it is
// refused with CONCURRENCY_LIMITED: a short burst above the limit waits,
// a sustained overload is told so.
const admissionWait = 2 * time.Second

// Run executes s on rt, streaming rows to visit. Unless s is internal it
// holds one MAX_CONCURRENT_QUERIES slot for its duration.
//
// The whole statement, including taking a connection and applying the
// session, is bounded by s.timeout plus a short grace. The timeout is
// enforced inside Doris (query_timeout); if Doris has not stopped the
// statement by then, or the caller goes away, or the visitor stops early,
// the statement is killed with KILL QUERY on a side connection to the same
// FE and its connection is discarded, never returned to the pool. A
// connection is also discarded after Doris reports a timeout or a
// cancellation, and after any failure that is not an answer from Doris.
func (r *Runtime) Run(ctx context.Context, rt *Route, s Stmt, visit visitor) error {
	if s.Timeout <= 0 {
		s.Timeout = min(DefaultCallTimeout, r.cfg.QueryTimeout)
	}
	if !s.internal {
		waited, err := r.admit(ctx, s)
		if err != nil {
			return err
		}
		defer func() { <-r.sem }()
		s.Timeout -= waited // the wait is part of the call's own budget
	}
	qctx, cancel := context.WithTimeout(ctx, s.Timeout+killGrace)
	defer cancel()
	// overran reports a failure caused by the server's own deadline (not
	// the caller's): a timeout, whatever the driver said.
	overran := func() bool { return errors.Is(qctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil }
	conn, err := rt.db.Conn(qctx)
	if err != nil {
		if overran() {
			return notStartedError(s.Prefix, s.Timeout)
		}
		return Classify(s.Prefix, err, ctx)
	}
	defer conn.Close()
	var tc *trackedConn
	if err := conn.Raw(func(dc any) error {
		var ok bool
		tc, ok = dc.(*trackedConn)
		if !ok {
			return fmt.Errorf("doris: unexpected driver connection %T", dc)
		}
		return nil
	}); err != nil {
		return Classify(s.Prefix, err, ctx)
	}
	// A statement that overruns or is cancelled is killed inside Doris
	// (the driver only drops its socket, which does not stop Doris), and
	// its connection is never reused. once makes the kill happen at most
	// once, and lets run wait for a kill already under way.
	var once sync.Once
	killDone := make(chan struct{})
	outcome := killPending // written by the kill before killDone closes
	kill := func() {
		once.Do(func() {
			tc.poisoned.Store(true)
			tc.interrupt() // stop waiting for Doris at once, whatever it does
			go func() {
				outcome = r.kill(context.WithoutCancel(qctx), rt, tc)
				close(killDone)
			}()
		})
	}
	// awaitKill waits a bounded time for a kill under way: the answer is
	// never held back by a backend that does not respond.
	awaitKill := func() killOutcome {
		select {
		case <-killDone:
			return outcome
		case <-time.After(killWait):
			return killPending
		}
	}
	stopWatch := context.AfterFunc(qctx, kill)
	// The driver gets a context that is never cancelled: the end of qctx
	// interrupts the socket instead (kill), which costs no goroutine per
	// statement.
	dctx := context.WithoutCancel(qctx)
	// A session statement Doris refuses (an unknown database) leaves the
	// tracked state unknown, so the connection stays usable; one that
	// fails otherwise poisons it below.
	runErr := r.ensureSession(dctx, conn, tc, s)
	if runErr == nil {
		if len(s.setup) > 0 {
			tc.poisoned.Store(true) // untracked session changes
			for _, q := range s.setup {
				if _, runErr = conn.ExecContext(dctx, q); runErr != nil {
					break
				}
			}
		}
		if runErr == nil {
			// On early stop: kill, which also interrupts the socket, so
			// that the driver does not drain rows nobody will read.
			runErr = r.stream(qctx, dctx, conn, s, visit, func() { kill(); cancel() })
		}
	}
	// The statement may still run in Doris when the context ended, even if
	// the watcher has not started yet (cancellation is seen by the driver
	// before the watcher runs): kill it, or wait for the watcher's kill.
	killedAs := killPending
	if !stopWatch() || qctx.Err() != nil {
		kill()
		killedAs = awaitKill()
	}
	if runErr == nil {
		return nil
	}
	var me *mysql.MySQLError
	if !errors.As(runErr, &me) {
		// Not an answer from Doris (a dropped connection, a cancelled
		// read, a driver failure): the connection is not trusted again.
		tc.poisoned.Store(true)
	}
	if overran() {
		// Doris's own timeout and the server's kill race; both are a
		// timeout to the caller, who is told what became of the query.
		return overranError(s.Prefix, s.Timeout, killedAs)
	}
	e := Classify(s.Prefix, runErr, ctx)
	if s.Caller != "" {
		lead := traceComment(qctx) // Doris saw the statement after it (trace.go)
		e.locate(lead + s.SQL)
		if p := e.Position; p != nil {
			if *p -= len(lead) + s.CallerAt; *p < 0 || *p > len(s.Caller) || s.SQL[s.CallerAt:s.CallerAt+len(s.Caller)] != s.Caller {
				e.Position = nil
			}
		}
	}
	if e.Kind == KindTimeout || e.Reason == s.Prefix+"_CANCELLED" {
		// Doris stopped the statement itself; the connection is not reused
		// after a statement that did not end normally all the same.
		tc.poisoned.Store(true)
	}
	return e
}

// stream runs s.sql on conn with the driver context dctx, reporting
// progress until ctx ends.
func (r *Runtime) stream(ctx, dctx context.Context, conn *sql.Conn, s Stmt, visit visitor, truncate func()) error {
	if s.Progress != nil {
		stop := startProgress(ctx, s.Progress)
		defer stop()
	}
	rows, err := conn.QueryContext(dctx, s.SQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	cols := make([]Column, len(types))
	for i, t := range types {
		cols[i] = Column{Name: t.Name(), dbType: t.DatabaseTypeName()}
		cols[i].Type = jsonTypeName(cols[i].dbType)
	}
	raw := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		stop, err := visit(cols, raw)
		if err != nil {
			return err
		}
		if stop {
			truncate()
			return nil
		}
	}
	return rows.Err()
}

// ensureSession applies the statement's catalog, database and timeout to
// the connection, sending only what differs from what the connection is
// known to have. A fresh connection is in the internal catalog and in
// DORIS_DATABASE (the driver logs in with it). SWITCH leaves the session
// in a database Doris chooses, so a USE always follows it.
func (r *Runtime) ensureSession(ctx context.Context, conn *sql.Conn, tc *trackedConn, s Stmt) error {
	catalog, database := s.Catalog, s.Database
	if catalog == "" {
		catalog = "internal"
	}
	if database == "" && catalog == "internal" {
		database = tc.home
	}
	if tc.catalog != catalog {
		tc.catalog, tc.dbKnown = "", false // unknown until SWITCH succeeds
		if _, err := conn.ExecContext(ctx, "SWITCH "+QuoteIdent(catalog)); err != nil {
			return err
		}
		tc.catalog = catalog
	}
	if database != "" && (!tc.dbKnown || tc.database != database) {
		tc.dbKnown = false
		if _, err := conn.ExecContext(ctx, "USE "+QuoteIdent(database)); err != nil {
			return err
		}
		tc.database, tc.dbKnown = database, true
	}
	secs := int((s.Timeout + time.Second - 1) / time.Second)
	if tc.queryTimeout != secs {
		if _, err := conn.ExecContext(ctx, "SET query_timeout = "+strconv.Itoa(secs)); err != nil {
			return err
		}
		tc.queryTimeout = secs
	}
	return nil
}

// kill stops the statement running on tc with KILL QUERY, sent on a
// connection of its own to the same FE (Doris connection ids are per FE).
//
// callCtx carries the call's values (its trace id, for the log) and is
// never cancelled: the kill must go out after the call has ended.
func (r *Runtime) kill(callCtx context.Context, rt *Route, tc *trackedConn) killOutcome {
	ctx, cancel := context.WithTimeout(callCtx, killTimeout)
	defer cancel()
	q := "KILL QUERY " + strconv.FormatInt(tc.id, 10)
	if !guard.SessionControl(q) {
		return killUnreachable
	}
	for i, addr := range rt.connector.addrs {
		if addr != tc.addr {
			continue
		}
		dc, err := connectWithin(ctx, rt.connector.connectors[i])
		if err != nil {
			r.log.WarnContext(ctx, "could not open a connection to kill a query", "fe", addr, "err", err)
			return killUnreachable
		}
		defer dc.Close()
		// Checked bare, sent behind the call's trace comment (hex digits
		// only, trace.go), so the audit log ties the kill to its call.
		if _, err := dc.(driver.ExecerContext).ExecContext(ctx, traced(ctx, q), nil); err != nil {
			var me *mysql.MySQLError
			if !errors.As(err, &me) {
				return killUnreachable
			}
			r.log.DebugContext(ctx, "kill query returned an error (it may have finished)", "err", err)
		}
		return killConfirmed
	}
	return killUnreachable
}

// connectWithin dials c, giving up when ctx ends even if the driver's own
// dial or handshake would wait longer (a frozen FE accepts TCP and never
// greets).
func connectWithin(ctx context.Context, c driver.Connector) (driver.Conn, error) {
	type dialed struct {
		conn driver.Conn
		err  error
	}
	ch := make(chan dialed, 1)
	go func() {
		dc, err := c.Connect(ctx)
		ch <- dialed{dc, err}
	}()
	select {
	case d := <-ch:
		return d.conn, d.err
	case <-ctx.Done():
		go func() { // close what the dial returns later
			if d := <-ch; d.conn != nil {
				d.conn.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// admit takes a MAX_CONCURRENT_QUERIES slot, waiting up to admissionWait
// (and never past the statement's own timeout) when none is free. It
// returns how long it waited.
func (r *Runtime) admit(ctx context.Context, s Stmt) (time.Duration, error) {
	select {
	case r.sem <- struct{}{}:
		return 0, nil
	default:
	}
	start := time.Now()
	wait := time.NewTimer(min(admissionWait, s.Timeout/2))
	defer wait.Stop()
	select {
	case r.sem <- struct{}{}:
		return time.Since(start), nil
	case <-wait.C:
		e := (&Error{}).setClass(s.Prefix, classLimited)
		e.Message = fmt.Sprintf("the server is running %d queries (MAX_CONCURRENT_QUERIES) and none finished within %s; retry shortly",
			cap(r.sem), time.Since(start).Round(time.Millisecond))
		return 0, e
	case <-ctx.Done():
		return 0, Classify(s.Prefix, ctx.Err(), ctx)
	}
}

// startProgress reports elapsed time about once a second until stopped.
func startProgress(ctx context.Context, p func(progress, total float64, message string)) (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				secs := time.Since(start).Seconds()
				p(secs, 0, fmt.Sprintf("query running for %.0f s", secs))
			}
		}
	}()
	return func() { close(done) }
}
