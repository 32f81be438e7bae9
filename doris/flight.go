package doris

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/doris/flightsql"
)

// This file is ADBC: statements over Arrow Flight SQL. The Flight SQL
// client (doris/flightsql) is driven only from here, inside the core:
// handlers get rows, never a token or a password.
//
// Every route is served with its own credential (its person's, its
// token's own account, or the service account): each call authenticates
// its own Flight session with the route's user and password (Doris's
// basic-auth handshake, which answers with a bearer token), and idle
// sessions are kept per route and reused. A statement passes the guard
// in the handler and again here (the connection-level check, as at the
// MySQL boundary), takes a MAX_CONCURRENT_QUERIES slot, runs with
// query_timeout set in its session, streams under the row and byte
// budgets with masking (collect), and is stopped inside Doris with KILL
// QUERY "<query id>" over the route's MySQL pool when it times out, is
// cancelled or reaches a budget; its stream is reset as well.

// flights holds the Flight SQL clients (one HTTP/2 pool per address) and
// the routes' idle sessions.
type flights struct {
	mu      sync.Mutex
	clients map[string]*flightsql.Client
	idle    map[string][]*flightSession // by route key and FE address
	opts    flightsql.Options
}

// flightSession is one authenticated Doris Flight session and what its
// session state is known to be.
type flightSession struct {
	token        string
	database     string // "" until USE succeeded
	queryTimeout int
	used         time.Time
}

const (
	maxIdleFlightSessions = 4
	flightSessionIdle     = 10 * time.Minute
)

func newFlights(cfg *ADBCConfig) *flights {
	return &flights{clients: map[string]*flightsql.Client{}, idle: map[string][]*flightSession{},
		opts: flightsql.Options{ConnectTimeout: cfg.ConnectionTimeout, MaxMessageBytes: 256 << 20}}
}

func (f *flights) client(addr string, useTLS bool) (*flightsql.Client, error) {
	key := addr
	if useTLS {
		key = "tls://" + addr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.clients[key]; c != nil {
		return c, nil
	}
	if len(f.clients) >= 256 {
		return nil, errors.New("doris: too many Arrow Flight SQL endpoints")
	}
	o := f.opts
	if useTLS {
		o.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	c, err := flightsql.NewClient(addr, o)
	if err != nil {
		return nil, err
	}
	f.clients[key] = c
	return c, nil
}

func (f *flights) take(key string, now time.Time) *flightSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := f.idle[key]
	for len(list) > 0 {
		s := list[len(list)-1]
		list = list[:len(list)-1]
		if now.Sub(s.used) < flightSessionIdle {
			f.idle[key] = list
			return s
		}
	}
	delete(f.idle, key)
	return nil
}

func (f *flights) put(key string, s *flightSession, now time.Time) {
	s.used = now
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.idle[key]) < maxIdleFlightSessions {
		f.idle[key] = append(f.idle[key], s)
	}
}

func (f *flights) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.clients {
		c.Close()
	}
}

// FlightEnabled reports whether ADBC is enabled and an FE Flight SQL port
// is configured.
func (r *Runtime) FlightEnabled() bool { return r.cfg.ADBC.Enabled && r.cfg.ADBC.FEPort != 0 }

// flightFE is the FE Flight SQL address of rt: the host of the FE its
// MySQL connections use, with FE_ARROW_FLIGHT_SQL_PORT.
func (r *Runtime) flightFE(rt *Route) string {
	addrs := rt.connector.addrs
	a := addrs[int(rt.connector.preferred.Load())%len(addrs)]
	host, _, err := net.SplitHostPort(a)
	if err != nil {
		host = a
	}
	return net.JoinHostPort(host, strconv.Itoa(r.cfg.ADBC.FEPort))
}

// FlightQuery runs s over Arrow Flight SQL on rt and returns its rows as
// Query does: the same columns, JSON values, budgets, warnings, masking
// and error codes.
func (r *Runtime) FlightQuery(ctx context.Context, rt *Route, s Stmt, maxRows, maxBytes int, rowsArg string) (*queryData, []string, error) {
	return r.collect(maxRows, maxBytes, rowsArg, func(visit visitor) error { return r.runFlight(ctx, rt, s, visit) })
}

// errFlightNotConfigured is returned when ADBC is off or has no FE port.
var errFlightNotConfigured = fmt.Errorf("%w: ADBC is not enabled (ADBC_ENABLED, FE_ARROW_FLIGHT_SQL_PORT)", errNotConfigured)

func (r *Runtime) runFlight(ctx context.Context, rt *Route, s Stmt, visit visitor) error {
	if !r.FlightEnabled() {
		return Classify(s.Prefix, errFlightNotConfigured, ctx)
	}
	// The connection-level check, as for every MySQL-protocol statement.
	if err := boundary(s.SQL, r.policy); err != nil {
		return Classify(s.Prefix, err, ctx)
	}
	if s.Timeout <= 0 {
		s.Timeout = min(DefaultCallTimeout, r.cfg.QueryTimeout)
	}
	waited, err := r.admit(ctx, s)
	if err != nil {
		return err
	}
	defer func() { <-r.sem }()
	s.Timeout -= waited
	qctx, cancel := context.WithTimeout(ctx, s.Timeout+killGrace)
	defer cancel()
	overran := func() bool { return errors.Is(qctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil }

	fe := r.flightFE(rt)
	c, err := r.flight.client(fe, false)
	if err != nil {
		return Classify(s.Prefix, err, ctx)
	}
	key := rt.key + "|" + fe
	// The statement carries a marker of its own: Doris runs a statement
	// inside GetFlightInfo, before it answers with the query id, so a call
	// that ends during GetFlightInfo finds its query by the marker in SHOW
	// PROCESSLIST to kill it.
	marker := "/* mcp-adbc:" + randomHex(8) + " */ "
	var qid string
	var once sync.Once
	killDone := make(chan struct{})
	outcome := killPending
	kill := func() {
		once.Do(func() {
			go func() {
				kctx := context.WithoutCancel(qctx)
				id := qid
				if id == "" {
					id = r.findQueryID(kctx, rt, marker)
				}
				outcome = r.killQueryID(kctx, rt, id)
				close(killDone)
			}()
		})
	}
	awaitKill := func() killOutcome {
		select {
		case <-killDone:
			return outcome
		case <-time.After(killWait):
			return killPending
		}
	}
	sess, info, err := r.flightStart(qctx, rt, c, key, s, marker)
	if err != nil {
		if qctx.Err() != nil {
			kill()
			killedAs := awaitKill()
			if overran() {
				return overranError(s.Prefix, s.Timeout, killedAs)
			}
		}
		return r.flightError(s.Prefix, err, ctx)
	}

	// From here the statement runs in Doris: it is killed by its query id
	// if the call ends before its result was read to the end.
	if len(info.Endpoints) > 0 {
		qid = flightsql.DorisQueryID(info.Endpoints[0].Ticket)
	}
	stopWatch := context.AfterFunc(qctx, kill)
	complete := false
	runErr := r.readEndpoints(qctx, c, sess.token, info, visit, func() { kill(); cancel() }, &complete)
	if !stopWatch() || qctx.Err() != nil || !complete {
		kill()
		killedAs := awaitKill()
		if runErr != nil && overran() {
			return overranError(s.Prefix, s.Timeout, killedAs)
		}
	}
	if runErr != nil {
		return r.flightError(s.Prefix, runErr, ctx)
	}
	if complete {
		r.flight.put(key, sess, r.now())
	}
	return nil
}

// flightStart takes an idle session of the route or authenticates a new
// one, brings its session state in line with s (database, query
// timeout), and sends GetFlightInfo for s. A reused session Doris no
// longer knows is replaced once.
func (r *Runtime) flightStart(ctx context.Context, rt *Route, c *flightsql.Client, key string, s Stmt, marker string) (*flightSession, *flightsql.FlightInfo, error) {
	for attempt := 0; ; attempt++ {
		sess := r.flight.take(key, r.now())
		fresh := sess == nil
		if fresh {
			hctx, cancel := context.WithTimeout(ctx, r.cfg.ADBC.ConnectionTimeout)
			tok, err := c.Handshake(hctx, rt.user, rt.password)
			cancel()
			if err != nil {
				return nil, nil, err
			}
			sess = &flightSession{token: tok}
		}
		info, err := r.flightExec(ctx, c, sess, rt, s, marker)
		var st *flightsql.Status
		if err != nil && !fresh && attempt == 0 && errors.As(err, &st) && st.Code == flightsql.CodeUnauthenticated {
			continue // the session expired in Doris: authenticate again
		}
		return sess, info, err
	}
}

func (r *Runtime) flightExec(ctx context.Context, c *flightsql.Client, sess *flightSession, rt *Route, s Stmt, marker string) (*flightsql.FlightInfo, error) {
	control := func(q string) error {
		if err := boundary(q, r.policy); err != nil {
			return err
		}
		_, err := c.Execute(ctx, sess.token, q)
		return err
	}
	if home := rt.connector.database; home != "" && sess.database != home {
		sess.database = ""
		if err := control("USE " + QuoteIdent(home)); err != nil {
			return nil, err
		}
		sess.database = home
	}
	secs := int((s.Timeout + time.Second - 1) / time.Second)
	if sess.queryTimeout != secs {
		sess.queryTimeout = 0
		if err := control("SET query_timeout = " + strconv.Itoa(secs)); err != nil {
			return nil, err
		}
		sess.queryTimeout = secs
	}
	return c.Execute(ctx, sess.token, traced(ctx, marker+s.SQL))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// findQueryID returns the query id of the route's running statement that
// carries marker, from SHOW FULL PROCESSLIST (which lists Arrow Flight SQL
// sessions too), or "".
func (r *Runtime) findQueryID(ctx context.Context, rt *Route, marker string) string {
	ctx, cancel := context.WithTimeout(ctx, killTimeout)
	defer cancel()
	rows, err := r.InternalText(ctx, rt, "SHOW FULL PROCESSLIST", 10000, "QUERY")
	if err != nil {
		return ""
	}
	for _, row := range rows.Rows {
		if strings.Contains(rows.Get(row, "Info"), marker) {
			return rows.Get(row, "QueryId")
		}
	}
	return ""
}

// readEndpoints reads every endpoint of info in order, each on the
// location Doris names (the BE holding the result) or on the FE, and
// hands each row to visit as text values. complete reports that every
// stream was read to its end.
func (r *Runtime) readEndpoints(ctx context.Context, fe *flightsql.Client, token string, info *flightsql.FlightInfo,
	visit visitor, truncate func(), complete *bool) error {
	var cols []Column
	var raw []sql.RawBytes
	var bufs [][]byte
	for _, ep := range info.Endpoints {
		c := fe
		if len(ep.Locations) > 0 {
			addr, useTLS, reuse, err := flightsql.ParseLocation(ep.Locations[0])
			if err != nil {
				return err
			}
			if !reuse {
				if c, err = r.flight.client(addr, useTLS); err != nil {
					return err
				}
			}
		}
		rd, err := c.DoGet(ctx, token, ep.Ticket)
		if err != nil {
			return err
		}
		if cols == nil {
			for _, f := range rd.Schema().Fields {
				t := f.MySQLType()
				cols = append(cols, Column{Name: f.Name, Type: jsonTypeName(t), dbType: t, ArrowType: arrowTypeName(&f)})
			}
			raw = make([]sql.RawBytes, len(cols))
			bufs = make([][]byte, len(cols))
		}
		if len(rd.Schema().Fields) != len(cols) {
			rd.Close()
			return errors.New("doris: Flight endpoints disagree on the result's columns")
		}
		for {
			b, err := rd.Next()
			if err != nil {
				rd.Close()
				if errors.Is(err, io.EOF) {
					break
				}
				return err
			}
			for i := range b.Rows {
				for j, col := range b.Columns {
					v, null := col.AppendText(bufs[j][:0], i)
					bufs[j] = v
					if null {
						raw[j] = nil
					} else {
						raw[j] = v
					}
				}
				stop, err := visit(cols, raw)
				if err != nil {
					rd.Close()
					return err
				}
				if stop {
					rd.Close() // resets the stream
					truncate()
					return nil
				}
			}
		}
	}
	*complete = true
	return nil
}

// killQueryID stops query id qid inside Doris with KILL QUERY "<qid>",
// sent on a connection of the route's own pool.
func (r *Runtime) killQueryID(callCtx context.Context, rt *Route, qid string) killOutcome {
	if qid == "" {
		return killUnreachable
	}
	ctx, cancel := context.WithTimeout(callCtx, killTimeout)
	defer cancel()
	dc, err := connectWithin(ctx, rt.connector)
	if err != nil {
		r.log.WarnContext(ctx, "could not open a connection to kill a Flight SQL query", "err", err)
		return killUnreachable
	}
	defer dc.Close()
	if _, err := dc.(*trackedConn).ExecContext(ctx, `KILL QUERY "`+qid+`"`, nil); err != nil {
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			return killUnreachable
		}
		r.log.DebugContext(ctx, "kill query returned an error (it may have finished)", "err", err)
	}
	return killConfirmed
}

// dorisFlightError matches the MySQL error Doris's Flight SQL service
// embeds in its INTERNAL status: "... error code: 1105, error msg: ...".
var dorisFlightError = regexp.MustCompile(`error code: (\d{1,5}), error msg: (.*)$`)

// flightError classifies a Flight SQL failure through the one failure
// mapping: Doris's embedded MySQL error as that error, a refused handshake
// as an authentication failure, transport failures as unavailable.
func (r *Runtime) flightError(prefix string, err error, ctx context.Context) *Error {
	var st *flightsql.Status
	if !errors.As(err, &st) {
		return Classify(prefix, err, ctx)
	}
	switch st.Code {
	case flightsql.CodeUnauthenticated:
		return Classify(prefix, &mysql.MySQLError{Number: 1045, Message: st.Message}, ctx)
	case flightsql.CodePermissionDenied:
		return Classify(prefix, &mysql.MySQLError{Number: 1227, Message: st.Message}, ctx)
	case flightsql.CodeUnavailable:
		return Classify(prefix, driverBadConn{st}, ctx)
	case flightsql.CodeCanceled, flightsql.CodeDeadlineExceeded:
		return Classify(prefix, ctx.Err(), ctx)
	}
	if m := dorisFlightError.FindStringSubmatch(st.Message); m != nil {
		n, _ := strconv.Atoi(m[1])
		if n > 0 && n < 65536 {
			return Classify(prefix, &mysql.MySQLError{Number: uint16(n), Message: m[2]}, ctx)
		}
	}
	return Classify(prefix, err, ctx)
}

// driverBadConn is a transport failure, classified as unavailable.
type driverBadConn struct{ cause error }

func (e driverBadConn) Error() string { return e.cause.Error() }
func (e driverBadConn) Unwrap() []error {
	return []error{e.cause, errBadConnFlight}
}

var errBadConnFlight = mysql.ErrInvalidConn

// arrowTypeName is the Arrow type of a column, as Arrow names it.
func arrowTypeName(f *flightsql.Field) string {
	t := f.Type
	switch t.ID {
	case flightsql.TypeNull:
		return "null"
	case flightsql.TypeBool:
		return "bool"
	case flightsql.TypeInt:
		if t.Signed {
			return "int" + strconv.Itoa(t.BitWidth)
		}
		return "uint" + strconv.Itoa(t.BitWidth)
	case flightsql.TypeFloat:
		return "float" + strconv.Itoa(t.BitWidth)
	case flightsql.TypeDecimal:
		return fmt.Sprintf("decimal%d(%d, %d)", t.BitWidth, t.Precision, t.Scale)
	case flightsql.TypeDate:
		if t.Unit == flightsql.DateDay {
			return "date32"
		}
		return "date64"
	case flightsql.TypeTimestamp:
		u := [...]string{"s", "ms", "us", "ns"}[t.Unit]
		if t.TimeZone != "" {
			return "timestamp[" + u + ", tz=" + t.TimeZone + "]"
		}
		return "timestamp[" + u + "]"
	case flightsql.TypeTime:
		return "time" + strconv.Itoa(t.BitWidth)
	case flightsql.TypeUtf8:
		return "utf8"
	case flightsql.TypeLargeUtf8:
		return "large_utf8"
	case flightsql.TypeBinary:
		return "binary"
	case flightsql.TypeLargeBinary:
		return "large_binary"
	case flightsql.TypeFixedSizeBinary:
		return "fixed_size_binary[" + strconv.Itoa(t.ByteWidth) + "]"
	case flightsql.TypeList, flightsql.TypeLargeList, flightsql.TypeFixedSizeList:
		return "list<" + arrowTypeName(&f.Children[0]) + ">"
	case flightsql.TypeMap:
		e := f.Children[0].Children
		return "map<" + arrowTypeName(&e[0]) + ", " + arrowTypeName(&e[1]) + ">"
	case flightsql.TypeStruct:
		s := "struct<"
		for i := range f.Children {
			if i > 0 {
				s += ", "
			}
			s += f.Children[i].Name + ": " + arrowTypeName(&f.Children[i])
		}
		return s + ">"
	case flightsql.TypeDuration:
		return "duration"
	}
	return "unknown"
}

// probeFlight checks that the FE Flight SQL port answers this route: the
// route's own handshake must succeed.
func (r *Runtime) probeFlight(ctx context.Context, rt *Route) error {
	if !r.FlightEnabled() {
		return errFlightNotConfigured
	}
	c, err := r.flight.client(r.flightFE(rt), false)
	if err != nil {
		return err
	}
	if _, err := c.Handshake(ctx, rt.user, rt.password); err != nil {
		return r.flightError("PROBE", err, ctx)
	}
	return nil
}

// ADBCReadiness is what get_adbc_connection_info reports: no credential,
// no token.
type ADBCReadiness struct {
	Enabled     bool     `json:"enabled"`
	Driver      bool     `json:"driver_available"`
	Route       *bool    `json:"route_supported"`
	FEPort      *int     `json:"fe_flight_port"`
	BEPort      *int     `json:"be_flight_port"`
	FEReachable *bool    `json:"fe_reachable"`
	BEReachable *bool    `json:"be_reachable"`
	FEEndpoint  string   `json:"fe_endpoint,omitempty"`
	BEEndpoints []string `json:"be_endpoints,omitempty"`
	Issues      []string `json:"issues"`
}

// ADBCReadiness checks the FE Flight SQL endpoint with the route's own
// handshake, and each BE's Flight SQL port (DORIS_BE_HOSTS with
// BE_ARROW_FLIGHT_SQL_PORT) for a gRPC answer.
func (r *Runtime) ADBCReadiness(ctx context.Context, rt *Route) ADBCReadiness {
	a := r.cfg.ADBC
	yes := true
	out := ADBCReadiness{Enabled: a.Enabled, Driver: true, Route: &yes, Issues: []string{}}
	if a.FEPort != 0 {
		out.FEPort = &a.FEPort
	}
	if a.BEPort != 0 {
		out.BEPort = &a.BEPort
	}
	if !a.Enabled {
		out.Issues = append(out.Issues, "ADBC is off (ADBC_ENABLED=false)")
	}
	if a.FEPort == 0 {
		out.Issues = append(out.Issues, "FE_ARROW_FLIGHT_SQL_PORT is not set")
	}
	if r.FlightEnabled() {
		fe := r.flightFE(rt)
		out.FEEndpoint = "grpc://" + fe
		ok := r.probeFlight(ctx, rt) == nil
		out.FEReachable = &ok
		if !ok {
			out.Issues = append(out.Issues, "the FE Arrow Flight SQL endpoint did not accept this route's handshake")
		}
	}
	if a.Enabled && a.BEPort != 0 && len(r.cfg.BEHosts) > 0 {
		any := false
		for _, h := range r.cfg.BEHosts {
			host := h
			if hh, _, err := net.SplitHostPort(h); err == nil {
				host = hh
			}
			addr := net.JoinHostPort(host, strconv.Itoa(a.BEPort))
			out.BEEndpoints = append(out.BEEndpoints, "grpc://"+addr)
			c, err := r.flight.client(addr, false)
			if err != nil {
				continue
			}
			// Any gRPC status is an answer; only a transport failure is not.
			_, err = c.Handshake(ctx, "", "")
			var st *flightsql.Status
			if err == nil || errors.As(err, &st) && st.Code != flightsql.CodeUnavailable && st.Code != flightsql.CodeDeadlineExceeded && st.Code != flightsql.CodeCanceled {
				any = true
			} else {
				out.Issues = append(out.Issues, "BE Arrow Flight SQL port "+addr+" did not answer")
			}
		}
		out.BEReachable = &any
	}
	return out
}
