// Package sim is an Apache Doris simulator for tests and demos.
//
// It speaks the MySQL wire protocol like a Doris FE (query port) and serves
// the FE and BE HTTP APIs. Doris-only statements (SHOW FRONTENDS, SHOW
// BACKENDS, SHOW PROC, SHOW CATALOGS, SHOW WORKLOAD GROUPS, EXPLAIN, ...) are
// answered from per-version profiles; everything else is translated where
// Doris and MySQL differ (internal catalog names, query_timeout, SET_VAR
// hints, Doris-only information_schema tables, audit log) and relayed to an
// upstream MySQL-protocol server (MariaDB) as the same user, so that grants,
// timeouts, KILL and large results are real. Upstream errors are rewritten
// into the texts Doris sends.
//
// The package uses only the standard library.
package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure Start.
type Options struct {
	// Listen is the MySQL-protocol address, e.g. "127.0.0.1:9030" ("127.0.0.1:0" picks a port).
	Listen string
	// FEHTTP and BEHTTP are the FE and BE HTTP addresses; empty = not served.
	FEHTTP, BEHTTP string
	// FEFlight and BEFlight are the FE and BE Arrow Flight SQL addresses
	// (arrow_flight_sql_port; Doris 2.1+); empty = not served (flight.go).
	FEFlight, BEFlight string
	// Upstream is the MariaDB/MySQL host:port that runs the SQL.
	Upstream string
	// Users maps user -> password. Clients authenticate against exactly these,
	// and the simulator logs in upstream as the same user with the same password.
	Users map[string]string
	// Admins have Doris ADMIN privilege (SHOW BACKENDS, SHOW PROC, ...). Default ["root"].
	// The first admin listed in Users also creates and seeds the __doris_sim schema.
	Admins []string
	// Profile is the simulated release: "2.1", "3.0" (default), "4.0" or a full
	// version listed by Profiles().
	Profile string
	// Logger receives connection and error logs; default slog.Default().
	Logger *slog.Logger
	// NoAuditLog stops the simulator from appending executed client
	// statements to __internal_schema.audit_log (done through the admin account).
	NoAuditLog bool
	// Deployment is "integrated" (default) or "cloud": compute-storage
	// decoupled, with compute groups (Doris 3.0 and later).
	Deployment string
	// FEConfig overrides FE configuration values (what fe.conf sets), by
	// key, e.g. {"authentication_type": "ldap"}. SHOW FRONTEND CONFIG
	// reports them; see feconfig.go for the keys the simulator knows.
	FEConfig map[string]string
}

// Fault describes misbehaviour injected into matching client statements.
type Fault struct {
	// Match is a case-insensitive substring of the client's SQL; "" matches any statement.
	Match string
	// Reached, when set, is sent a value each time the fault takes a
	// statement, before it is held or delayed: a test learns that its
	// statements got to Doris without polling. The send blocks until the
	// test receives it (or the client goes away), so buffer it as deep as
	// the statements the test does not wait for.
	Reached chan<- struct{}
	// Hold, when set, keeps the statement waiting until it is closed or
	// the client goes away: a Doris slower than any timeout, until the
	// test says otherwise.
	Hold <-chan struct{}
	// Latency delays the statement before it runs.
	Latency time.Duration
	// DropAfterRows closes the client connection after sending that many rows
	// of the result; 0 or -1 = off. (Use Drop to close before any result.)
	DropAfterRows int
	// Drop closes the client connection as soon as the statement arrives.
	Drop bool
	// ErrCode, when non-zero, answers the statement with this error instead of
	// running it. ErrState defaults to "HY000"; ErrMsg is sent verbatim.
	ErrCode  uint16
	ErrState string
	ErrMsg   string
	// Times is how many statements the fault applies to; 0 = until cleared.
	Times int
}

type faultState struct {
	f    Fault
	left int // remaining uses; -1 = unlimited
}

// Server is a running simulator.
type Server struct {
	opts    Options
	log     *slog.Logger
	started time.Time

	mu       sync.Mutex
	prof     profile
	down     bool
	closed   bool
	faults   []*faultState
	conns    map[*conn]struct{}
	byThread map[uint32]*conn
	killers  map[uint32]string
	mysqlL   net.Listener
	fe, be   *httpEndpoint
	addr     string

	nextConnID atomic.Uint32
	wg         sync.WaitGroup
	profiles   *profileStore
	stats      stats
	audit      *auditWriter

	act          *activity       // the backend's activity (activity.go)
	wgs          *workloadGroups // workload groups (workload.go)
	httpFaultsMu sync.Mutex      // protects httpFaults
	httpFaults   []*httpFaultState
	accounts     *accounts
	pipe         *pipeline // loads, stream loads, MVs, table versions
	feConf       *feConfig
	lake         lakehouse     // external catalogs and Doris-only table metadata
	globals      globalVars    // SET GLOBAL values new sessions start with (globals.go)
	flight       *flightServer // Arrow Flight SQL endpoints (flight.go); nil when off
}

type stats struct {
	queries, queryErrs, connsTotal, requests atomic.Int64
	latencyMs                                latencyRing
}

// Start validates o, seeds the simulator's upstream schema and starts the
// MySQL listener and the FE/BE HTTP servers.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Listen == "" {
		return nil, errors.New("sim: Options.Listen is required")
	}
	if o.Upstream == "" {
		return nil, errors.New("sim: Options.Upstream is required")
	}
	if len(o.Users) == 0 {
		return nil, errors.New("sim: Options.Users is empty")
	}
	if o.Admins == nil {
		o.Admins = []string{"root"}
	}
	p, err := lookupProfile(o.Profile)
	if err != nil {
		return nil, err
	}
	if err := checkDeployment(o.Deployment, p); err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Server{opts: o, log: log, started: time.Now(), prof: p, conns: map[*conn]struct{}{},
		byThread: map[uint32]*conn{}, killers: map[uint32]string{}, profiles: newProfileStore(2000),
		act: newActivity(), wgs: newWorkloadGroups(p), accounts: newAccounts(o.Users),
		feConf: newFEConfig(o.FEConfig)}
	if err := s.seed(ctx); err != nil {
		return nil, err
	}
	s.pipe = newPipeline()
	if err := s.loadPersisted(); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("sim: listen %s: %w", o.Listen, err)
	}
	s.mysqlL = l
	s.addr = l.Addr().String()
	if o.FEHTTP != "" {
		s.fe = &httpEndpoint{name: "fe", handler: s.withHTTPFaults("fe", s.feHandler())}
		if err := s.fe.start(o.FEHTTP); err != nil {
			l.Close()
			return nil, err
		}
	}
	if o.BEHTTP != "" {
		s.be = &httpEndpoint{name: "be", handler: s.withHTTPFaults("be", s.beHandler())}
		if err := s.be.start(o.BEHTTP); err != nil {
			l.Close()
			s.fe.stop()
			return nil, err
		}
	}
	if err := s.startFlight(o.FEFlight, o.BEFlight); err != nil {
		l.Close()
		s.fe.stop()
		s.be.stop()
		return nil, err
	}
	s.startAudit()
	s.startMVScheduler()
	s.wg.Add(1)
	go s.acceptLoop(l)
	log.Info("doris simulator started", "mysql", s.addr, "fe_http", s.FEAddr(), "be_http", s.BEAddr(),
		"upstream", o.Upstream, "profile", p.version, "build", p.build, "deployment", s.computeGroupName())
	return s, nil
}

// Addr is the MySQL-protocol address.
func (s *Server) Addr() string { return s.addr }

// FEAddr is the FE HTTP address ("" when not served).
func (s *Server) FEAddr() string { return s.fe.address() }

// BEAddr is the BE HTTP address ("" when not served).
func (s *Server) BEAddr() string { return s.be.address() }

// Profile returns the current profile's version, e.g. "3.0.4".
func (s *Server) Profile() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prof.version
}

// VersionComment returns what SELECT @@version_comment answers now.
func (s *Server) VersionComment() string { return s.versionComment() }

func (s *Server) profile() profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prof
}

// SetProfile switches the simulated release for all statements from now on
// (a "Doris upgrade"); existing connections stay open.
func (s *Server) SetProfile(name string) error {
	p, err := lookupProfile(name)
	if err != nil {
		return err
	}
	if err := checkDeployment(s.opts.Deployment, p); err != nil {
		return err
	}
	s.mu.Lock()
	s.prof = p
	s.mu.Unlock()
	s.log.Info("doris simulator profile changed", "profile", p.version, "build", p.build)
	return nil
}

// SetDown makes Doris unreachable (true): the MySQL and HTTP listeners
// close (connections are refused) and open client connections are dropped.
// SetDown(false) listens again on the same addresses.
func (s *Server) SetDown(down bool) error {
	s.mu.Lock()
	if s.closed || s.down == down {
		s.mu.Unlock()
		return nil
	}
	s.down = down
	if down {
		l := s.mysqlL
		s.mysqlL = nil
		conns := s.snapshotConnsLocked()
		s.mu.Unlock()
		if l != nil {
			l.Close()
		}
		for _, c := range conns {
			c.kill()
		}
		s.fe.stop()
		s.be.stop()
		s.log.Info("doris simulator down")
		return nil
	}
	s.mu.Unlock()
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("sim: relisten %s: %w", s.addr, err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return nil
	}
	s.mysqlL = l
	s.wg.Add(1)
	go s.acceptLoop(l)
	s.mu.Unlock()
	if s.fe != nil {
		if err := s.fe.start(s.fe.addr); err != nil {
			return err
		}
	}
	if s.be != nil {
		if err := s.be.start(s.be.addr); err != nil {
			return err
		}
	}
	s.log.Info("doris simulator up again")
	return nil
}

// Inject adds a fault; faults are checked in the order added and the first
// one matching a statement applies.
func (s *Server) Inject(f Fault) {
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.mu.Lock()
	s.faults = append(s.faults, &faultState{f: f, left: left})
	s.mu.Unlock()
}

// ClearFaults removes all faults.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// takeFault returns the fault that applies to sql, consuming one use.
func (s *Server) takeFault(sql string) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	low := strings.ToLower(sql)
	for i, fs := range s.faults {
		if fs.f.Match != "" && !strings.Contains(low, strings.ToLower(fs.f.Match)) {
			continue
		}
		f := fs.f
		if fs.left > 0 {
			fs.left--
			if fs.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		return &f
	}
	return nil
}

// Close stops everything and waits for all connection goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	l := s.mysqlL
	s.mysqlL = nil
	conns := s.snapshotConnsLocked()
	s.mu.Unlock()
	if l != nil {
		l.Close()
	}
	for _, c := range conns {
		c.kill()
	}
	s.fe.stop()
	s.be.stop()
	s.flight.stop()
	s.audit.stop()
	s.pipe.close()
	s.wg.Wait()
	s.log.Info("doris simulator stopped")
	return nil
}

func (s *Server) snapshotConnsLocked() []*conn {
	out := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		out = append(out, c)
	}
	return out
}

func (s *Server) acceptLoop(l net.Listener) {
	defer s.wg.Done()
	for {
		nc, err := l.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		s.mu.Lock()
		if s.closed || s.down {
			s.mu.Unlock()
			nc.Close()
			continue
		}
		c := newConn(s, nc)
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		s.stats.connsTotal.Add(1)
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			if c.up != nil && s.byThread[c.up.threadID] == c {
				delete(s.byThread, c.up.threadID)
			}
			s.mu.Unlock()
		}()
	}
}

func (s *Server) isAdmin(user string) bool {
	for _, a := range s.opts.Admins {
		if a == user {
			return true
		}
	}
	return false
}

// adminAccount returns the first admin with a password in Users.
func (s *Server) adminAccount() (string, string, bool) {
	for _, a := range s.opts.Admins {
		if pw, ok := s.password(a); ok {
			return a, pw, true
		}
	}
	return "", "", false
}

// connections returns the live client connections.
func (s *Server) connections() []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshotConnsLocked()
}

func (s *Server) topology() topology {
	feHost, qp := hostPort(s.addr)
	_, feHTTP := hostPort(s.FEAddr())
	beHost, beHTTP := hostPort(s.BEAddr())
	if feHTTP == 0 {
		feHTTP = 8030
	}
	if beHTTP == 0 {
		beHTTP, beHost = 8040, feHost
	}
	return topology{feHost: feHost, queryPort: qp, feHTTP: feHTTP, beHost: beHost, beHTTP: beHTTP, started: s.started}
}

// httpEndpoint is an HTTP server that can be stopped and restarted on the
// same address.
type httpEndpoint struct {
	name    string
	handler http.Handler
	mu      sync.Mutex
	addr    string
	srv     *http.Server
}

func (h *httpEndpoint) start(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("sim: %s http listen %s: %w", h.name, addr, err)
	}
	srv := &http.Server{Handler: h.handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	h.mu.Lock()
	h.addr = l.Addr().String()
	h.srv = srv
	h.mu.Unlock()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, io.EOF) {
			slog.Default().Debug("sim http serve ended", "name", h.name, "err", err)
		}
	}()
	return nil
}

func (h *httpEndpoint) stop() {
	if h == nil {
		return
	}
	h.mu.Lock()
	srv := h.srv
	h.srv = nil
	h.mu.Unlock()
	if srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			srv.Close()
		}
	}
}

func (h *httpEndpoint) address() string {
	if h == nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.addr
}

// latencyRing keeps recent statement latencies for the FE metrics.
type latencyRing struct {
	mu  sync.Mutex
	buf [512]int64
	n   int
	sum int64
	cnt int64
}

func (r *latencyRing) add(ms int64) {
	r.mu.Lock()
	r.buf[r.n%len(r.buf)] = ms
	r.n++
	r.sum += ms
	r.cnt++
	r.mu.Unlock()
}

func (r *latencyRing) snapshot() (vals []int64, sum, cnt int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := min(r.n, len(r.buf))
	vals = append([]int64(nil), r.buf[:k]...)
	return vals, r.sum, r.cnt
}
