package doris

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// connector opens connections to the first reachable FE of an ordered
// list, remembering the last one that answered, and wraps each connection
// in the read-only boundary.
type connector struct {
	addrs      []string
	database   string // DORIS_DATABASE: the session database of a new connection
	connectors []driver.Connector
	preferred  atomic.Int32 // index of the FE that answered last
	log        *slog.Logger
	policy     *guard.Policy // the egress policy the boundary applies
}

// newConnector builds one go-sql-driver connector per FE from a template
// config: no DSN strings, no global registrations, text protocol with
// client-side interpolation, no multi-statements and no local files.
func newConnector(cfg *Config, user, password string, log *slog.Logger) (*connector, error) {
	c := &connector{addrs: cfg.addrs(), database: cfg.Database, log: log}
	if len(c.addrs) == 0 {
		return nil, errors.New("doris: no FE address configured")
	}
	for _, addr := range c.addrs {
		mc := mysql.NewConfig()
		mc.User = user
		mc.Passwd = password
		mc.Net = "tcp"
		mc.Addr = addr
		mc.DBName = cfg.Database
		mc.Timeout = min(cfg.ConnectTimeout, 10*time.Second)
		// No per-packet I/O deadlines: every statement is bounded by its
		// own deadline, which interrupts the socket (trackedConn.interrupt),
		// and a deadline the driver set before each read would undo that.
		mc.DialFunc = dialRemembering(mc.Timeout)
		mc.InterpolateParams = true
		mc.MultiStatements = false
		mc.AllowAllFiles = false
		mc.AllowNativePasswords = true
		mc.CheckConnLiveness = true
		mc.ParseTime = false
		mc.Logger = driverLogger{log}
		dc, err := mysql.NewConnector(mc)
		if err != nil {
			return nil, fmt.Errorf("doris: connector for %s: %w", addr, err)
		}
		c.connectors = append(c.connectors, dc)
	}
	return c, nil
}

// Connect tries the FEs in order, starting with the one that answered
// last. An authentication failure is not retried elsewhere: every FE has
// the same accounts.
func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	n := len(c.connectors)
	start := int(c.preferred.Load())
	var lastErr error
	for i := range n {
		idx := (start + i) % n
		held := &heldConn{}
		dc, err := c.connectors[idx].Connect(context.WithValue(ctx, heldConnKey{}, held))
		if err != nil {
			lastErr = err
			var me *mysql.MySQLError
			if errors.As(err, &me) || ctx.Err() != nil {
				return nil, err
			}
			switch {
			case n == 1:
				c.log.WarnContext(ctx, "Doris FE unreachable; it is the only FE configured (DORIS_HOSTS lists failover FEs)", "fe", c.addrs[idx])
			case i < n-1:
				c.log.WarnContext(ctx, "Doris FE unreachable; trying the next", "fe", c.addrs[idx], "next", c.addrs[(idx+1)%n])
			default:
				c.log.WarnContext(ctx, "Doris FE unreachable; no configured FE is left to try", "fe", c.addrs[idx])
			}
			continue
		}
		c.preferred.Store(int32(idx))
		tc := &trackedConn{conn: dc, net: held.conn, addr: c.addrs[idx], home: c.database, catalog: "internal", database: c.database, dbKnown: true,
			policy: c.policy}
		if err := tc.loadID(ctx); err != nil {
			dc.Close()
			return nil, err
		}
		return tc, nil
	}
	return nil, lastErr
}

func (c *connector) Driver() driver.Driver { return c.connectors[0].Driver() }

// heldConn receives the socket the driver dials for one Connect, so that
// the connection boundary can interrupt it.
type heldConn struct{ conn net.Conn }

type heldConnKey struct{}

// dialRemembering dials TCP within timeout and hands the socket to the
// heldConn the Connect call put in ctx.
func dialRemembering(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err == nil {
			if h, ok := ctx.Value(heldConnKey{}).(*heldConn); ok {
				h.conn = conn
			}
		}
		return conn, err
	}
}

// trackedConn is the connection boundary. Every statement that reaches
// Doris passes through it and must be either a read-only statement the
// guard accepts or one of the server's own fixed session controls. It also
// remembers the Doris connection id (for KILL) and the session settings
// already applied, so they are set only when they change.
type trackedConn struct {
	conn driver.Conn
	net  net.Conn // the socket under conn, for interrupt
	addr string
	id   int64
	home string // the route's session database (DORIS_DATABASE, or the identity's own)
	// policy is the egress policy statements are checked under: the
	// runtime's, so the boundary allows exactly what CheckSQL allowed.
	policy *guard.Policy

	// Session state, touched only by the goroutine holding the connection:
	// the current catalog, and the current database when dbKnown (after a
	// SWITCH, Doris picks the database itself).
	catalog, database string
	dbKnown           bool
	queryTimeout      int // seconds; 0 = not set by us

	poisoned atomic.Bool // discard instead of returning to the pool
}

// interrupt makes every read and write on the connection's socket fail at
// once: a statement whose deadline passed, or whose caller went away,
// stops waiting for Doris even if Doris never answers (a frozen FE). The
// connection is not usable afterwards. Statements run with contexts that
// cannot be cancelled, so that neither database/sql nor the driver starts
// a watcher per statement; this is their cancellation.
func (tc *trackedConn) interrupt() {
	if tc.net != nil {
		tc.net.SetDeadline(time.Unix(1, 0))
	}
}

// ErrNotReadOnly is returned when a statement reaches the connection
// boundary without passing the guard.
var ErrNotReadOnly = errors.New("doris: statement refused at the connection boundary")

func boundary(query string, p *guard.Policy) error {
	if guard.SessionControl(query) {
		return nil
	}
	if _, err := p.Check(query); err != nil {
		return fmt.Errorf("%w: %w", ErrNotReadOnly, err)
	}
	return nil
}

func (tc *trackedConn) loadID(ctx context.Context) error {
	rows, err := tc.QueryContext(ctx, "SELECT CONNECTION_ID()", nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]driver.Value, 1)
	if err := rows.Next(vals); err != nil {
		return fmt.Errorf("doris: reading the connection id: %w", err)
	}
	switch v := vals[0].(type) {
	case []byte:
		tc.id, err = strconv.ParseInt(string(v), 10, 64)
	case int64:
		tc.id = v
	default:
		err = fmt.Errorf("unexpected type %T", v)
	}
	if err != nil {
		return fmt.Errorf("doris: reading the connection id: %w", err)
	}
	return nil
}

func (tc *trackedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) > 0 {
		return nil, errors.New("doris: statements are sent without driver arguments")
	}
	if err := boundary(query, tc.policy); err != nil {
		return nil, err
	}
	return tc.conn.(driver.QueryerContext).QueryContext(ctx, traced(ctx, query), nil) // trace.go
}

func (tc *trackedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) > 0 {
		return nil, errors.New("doris: statements are sent without driver arguments")
	}
	if err := boundary(query, tc.policy); err != nil {
		return nil, err
	}
	return tc.conn.(driver.ExecerContext).ExecContext(ctx, traced(ctx, query), nil) // trace.go
}

// Prepare is refused: the server never prepares statements.
func (tc *trackedConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("doris: prepared statements are not used")
}

func (tc *trackedConn) Close() error { return tc.conn.Close() }

// Begin is refused: the server never opens transactions.
func (tc *trackedConn) Begin() (driver.Tx, error) {
	return nil, errors.New("doris: transactions are not used")
}

func (tc *trackedConn) Ping(ctx context.Context) error {
	return tc.conn.(driver.Pinger).Ping(ctx)
}

// ResetSession runs before a pooled connection is reused; a poisoned one
// is discarded.
func (tc *trackedConn) ResetSession(ctx context.Context) error {
	if tc.poisoned.Load() {
		return driver.ErrBadConn
	}
	return tc.conn.(driver.SessionResetter).ResetSession(ctx)
}

func (tc *trackedConn) IsValid() bool {
	if tc.poisoned.Load() {
		return false
	}
	return tc.conn.(driver.Validator).IsValid()
}

// driverLogger sends go-sql-driver's own messages to slog at debug level
// instead of the driver's global logger.
type driverLogger struct{ log *slog.Logger }

func (l driverLogger) Print(v ...any) { l.log.Debug("mysql driver", "msg", fmt.Sprint(v...)) }

var _ io.Closer = (*trackedConn)(nil)
