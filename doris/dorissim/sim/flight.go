package sim

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// This file serves Arrow Flight SQL on the FE and BE flight ports, as
// Doris 2.1+ does (arrow_flight_sql_port), over the simulator's own
// MySQL path: each Flight session (bearer token) is one connection to the
// simulator's MySQL listener as the session's user, so statements see the
// same translation, privileges, timeouts, KILL and audit log as MySQL
// clients. The gRPC server is the standard library's HTTP/2 over
// cleartext TCP.
//
// Doris's flow, which the simulator follows:
//   - Handshake with "authorization: Basic ..." authenticates the user and
//     answers with "authorization: Bearer <token>" in the response headers.
//   - GetFlightInfo(CommandStatementQuery) runs the statement in the
//     session. A query's result is pulled from the BE: its endpoint names
//     the BE flight location and a ticket whose handle is
//     "<query id>&<be host>&<be port>&<base64 sql>". Results Doris produces
//     on the FE (SHOW, DESC, EXPLAIN, SET ...) have an endpoint without a
//     location and a handle "<session>:<query id>". A failure is gRPC
//     INTERNAL, "get flight info statement failed, ..., error code: N,
//     error msg: ...".
//   - DoGet(ticket) streams the schema and record batches. A client that
//     resets the stream ends the statement's connection, so nothing goes
//     on running.

type flightServer struct {
	s        *Server
	fe, be   *flightEndpoint
	mu       sync.Mutex
	sessions map[string]*flightSession
	results  map[string]*flightResult // by query id
	gets     atomic.Int64             // DoGet calls served
	infos    atomic.Int64             // GetFlightInfo calls served
}

// maxFlightSessions bounds the open sessions; the oldest is closed
// beyond it, as Doris's token cache (arrow_flight_token_cache_size)
// evicts its least recently used token.
const maxFlightSessions = 64

type flightEndpoint struct {
	srv  *http.Server
	ln   net.Listener
	addr string
}

type flightSession struct {
	id             string
	user, password string
	mu             sync.Mutex // one statement at a time, as a Doris session
	conn           *sql.Conn
	db             *sql.DB
	sock           net.Conn  // the inner connection's socket
	used           time.Time // last authenticated or used (guarded by flightServer.mu)
}

type flightResult struct {
	qid     string
	sess    *flightSession
	cols    []arrowCol
	rows    *sql.Rows // nil for a result already read (local)
	local   [][][]byte
	claimed bool
}

// startFlight starts the FE and BE Flight SQL endpoints that are set.
func (s *Server) startFlight(feAddr, beAddr string) error {
	if feAddr == "" && beAddr == "" {
		return nil
	}
	if !s.prof.atLeast("2.1") {
		return fmt.Errorf("sim: Doris %s has no Arrow Flight SQL service (2.1 and later)", s.prof.version)
	}
	f := &flightServer{s: s, sessions: map[string]*flightSession{}, results: map[string]*flightResult{}}
	var err error
	if feAddr != "" {
		if f.fe, err = f.listen(feAddr, false); err != nil {
			return err
		}
	}
	if beAddr != "" {
		if f.be, err = f.listen(beAddr, true); err != nil {
			f.stop()
			return err
		}
	}
	s.flight = f
	return nil
}

func (f *flightServer) listen(addr string, be bool) (*flightEndpoint, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("sim: flight listen %s: %w", addr, err)
	}
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	ep := &flightEndpoint{ln: ln, addr: ln.Addr().String()}
	ep.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { f.serve(w, r, be) }),
		Protocols: &p, ReadHeaderTimeout: 10 * time.Second}
	go ep.srv.Serve(ln)
	return ep, nil
}

func (f *flightServer) stop() {
	if f == nil {
		return
	}
	for _, ep := range []*flightEndpoint{f.fe, f.be} {
		if ep != nil {
			ep.srv.Close()
		}
	}
	f.mu.Lock()
	sessions, results := f.sessions, f.results
	f.sessions, f.results = map[string]*flightSession{}, map[string]*flightResult{}
	f.mu.Unlock()
	// Sockets first: whatever still streams or runs fails at once. Then
	// the results nobody claimed (their rows hold the connection), then
	// the connections.
	for _, ss := range sessions {
		if ss.sock != nil {
			ss.sock.Close()
		}
	}
	for _, res := range results {
		if res.rows != nil {
			res.rows.Close()
		}
	}
	for _, ss := range sessions {
		ss.close()
	}
}

// FEFlightAddr is the FE Arrow Flight SQL address ("" when not served).
func (s *Server) FEFlightAddr() string {
	if s.flight == nil || s.flight.fe == nil {
		return ""
	}
	return s.flight.fe.addr
}

// BEFlightAddr is the BE Arrow Flight SQL address ("" when not served).
func (s *Server) BEFlightAddr() string {
	if s.flight == nil || s.flight.be == nil {
		return ""
	}
	return s.flight.be.addr
}

// FlightSessions is how many Flight SQL sessions are open.
func (s *Server) FlightSessions() int {
	if s.flight == nil {
		return 0
	}
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	return len(s.flight.sessions)
}

// FlightStatements is how many GetFlightInfo calls (statements) the FE
// Flight endpoint received.
func (s *Server) FlightStatements() int64 {
	if s.flight == nil {
		return 0
	}
	return s.flight.infos.Load()
}

// FlightDoGets is how many DoGet calls the Flight endpoints served.
func (s *Server) FlightDoGets() int64 {
	if s.flight == nil {
		return 0
	}
	return s.flight.gets.Load()
}

// grpcStatus is a non-OK answer.
type grpcStatus struct {
	code int
	msg  string
}

func (e *grpcStatus) Error() string { return e.msg }

const (
	grpcInvalidArgument = 3
	grpcNotFound        = 5
	grpcUnimplemented   = 12
	grpcInternal        = 13
	grpcUnauthenticated = 16
)

func (f *flightServer) serve(w http.ResponseWriter, r *http.Request, be bool) {
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("content-type"), "application/grpc") {
		http.Error(w, "gRPC only", http.StatusUnsupportedMediaType)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/arrow.flight.protocol.FlightService/")
	w.Header().Set("content-type", "application/grpc")
	var err error
	switch {
	case !ok:
		err = &grpcStatus{grpcUnimplemented, "unknown service"}
	case method == "Handshake" && !be:
		err = f.handshake(w, r)
	case method == "GetFlightInfo" && !be:
		err = f.getFlightInfo(w, r)
	case method == "DoGet":
		err = f.doGet(w, r)
	default:
		err = &grpcStatus{grpcUnimplemented, method + " unimplemented"}
	}
	st, _ := err.(*grpcStatus)
	if err != nil && st == nil {
		st = &grpcStatus{grpcInternal, err.Error()}
	}
	code, msg := 0, ""
	if st != nil {
		code, msg = st.code, st.msg
	}
	w.Header().Set(http.TrailerPrefix+"grpc-status", strconv.Itoa(code))
	if msg != "" {
		w.Header().Set(http.TrailerPrefix+"grpc-message", url.PathEscape(msg))
	}
}

// readRequest reads the call's one request message (or none).
func readRequest(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 2<<20))
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		return nil, nil
	}
	if len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:])) != len(body)-5 {
		return nil, &grpcStatus{grpcInvalidArgument, "malformed gRPC request"}
	}
	return body[5:], nil
}

func writeMessage(w http.ResponseWriter, msg []byte) error {
	var h [5]byte
	binary.BigEndian.PutUint32(h[1:], uint32(len(msg)))
	if _, err := w.Write(h[:]); err != nil {
		return err
	}
	_, err := w.Write(msg)
	return err
}

func (f *flightServer) handshake(w http.ResponseWriter, r *http.Request) error {
	if _, err := io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20)); err != nil {
		return err
	}
	scheme, cred, _ := strings.Cut(strings.TrimSpace(r.Header.Get("authorization")), " ")
	if !strings.EqualFold(scheme, "basic") {
		return &grpcStatus{grpcUnauthenticated, "only basic authentication is supported"}
	}
	raw, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(cred); err != nil {
			return &grpcStatus{grpcUnauthenticated, "invalid basic authentication"}
		}
	}
	user, password, ok := strings.Cut(string(raw), ":")
	if !ok {
		return &grpcStatus{grpcUnauthenticated, "invalid basic authentication"}
	}
	ss := &flightSession{id: flightToken(), user: user, password: password}
	if err := ss.open(r.Context(), f.s.addr); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1045 {
			return &grpcStatus{grpcUnauthenticated, "Access denied for user '" + user + "'"}
		}
		return &grpcStatus{grpcInternal, "failed to open a session: " + err.Error()}
	}
	ss.used = time.Now()
	f.mu.Lock()
	f.sessions[ss.id] = ss
	var evict *flightSession
	if len(f.sessions) > maxFlightSessions {
		for _, o := range f.sessions {
			if evict == nil || o.used.Before(evict.used) {
				evict = o
			}
		}
		delete(f.sessions, evict.id)
	}
	var orphans []*flightResult
	if evict != nil {
		for qid, res := range f.results {
			if res.sess == evict && !res.claimed {
				delete(f.results, qid)
				orphans = append(orphans, res)
			}
		}
	}
	f.mu.Unlock()
	if evict != nil {
		evict.sock.Close()
		for _, res := range orphans {
			if res.rows != nil {
				res.rows.Close()
			}
		}
		evict.close()
	}
	w.Header().Set("authorization", "Bearer "+ss.id)
	w.WriteHeader(http.StatusOK)
	return nil
}

func flightToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// open connects the session to the simulator's MySQL listener.
func (ss *flightSession) open(ctx context.Context, addr string) error {
	mc := mysql.NewConfig()
	mc.User, mc.Passwd, mc.Net, mc.Addr = ss.user, ss.password, "tcp", addr
	mc.AllowNativePasswords = true
	mc.Timeout = 10 * time.Second
	mc.Logger = quietDriver{} // a session cut under a stream is expected
	var sock net.Conn
	mc.DialFunc = func(ctx context.Context, network, a string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, a)
		sock = c
		return c, err
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return err
	}
	ss.db, ss.conn, ss.sock = db, c, sock
	return nil
}

type quietDriver struct{}

func (quietDriver) Print(...any) {}

func (ss *flightSession) close() {
	if ss.sock != nil {
		ss.sock.Close() // interrupts anything still streaming
	}
	if ss.conn != nil {
		ss.conn.Close()
	}
	if ss.db != nil {
		ss.db.Close()
	}
}

func (f *flightServer) session(r *http.Request) (*flightSession, error) {
	scheme, tok, _ := strings.Cut(strings.TrimSpace(r.Header.Get("authorization")), " ")
	f.mu.Lock()
	ss := f.sessions[strings.TrimSpace(tok)]
	if !strings.EqualFold(scheme, "bearer") || ss == nil {
		f.mu.Unlock()
		return nil, &grpcStatus{grpcUnauthenticated, "invalid bearer token"}
	}
	ss.used = time.Now()
	f.mu.Unlock()
	return ss, nil
}

// Protocol-buffer helpers (proto3 wire format), the simulator's own.

func pbBytes(b []byte, field int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func pbVarint(b []byte, field int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(field)<<3)
	return binary.AppendUvarint(b, v)
}

// pbFields returns the length-delimited fields of msg by number.
func pbFields(msg []byte) (map[int][]byte, error) {
	out := map[int][]byte{}
	for len(msg) > 0 {
		key, n := binary.Uvarint(msg)
		if n <= 0 {
			return nil, errors.New("bad key")
		}
		msg = msg[n:]
		switch key & 7 {
		case 0:
			_, n := binary.Uvarint(msg)
			if n <= 0 {
				return nil, errors.New("bad varint")
			}
			msg = msg[n:]
		case 2:
			l, n := binary.Uvarint(msg)
			if n <= 0 || l > uint64(len(msg)-n) {
				return nil, errors.New("bad length")
			}
			out[int(key>>3)] = msg[n : n+int(l)]
			msg = msg[n+int(l):]
		case 1:
			if len(msg) < 8 {
				return nil, errors.New("short")
			}
			msg = msg[8:]
		case 5:
			if len(msg) < 4 {
				return nil, errors.New("short")
			}
			msg = msg[4:]
		default:
			return nil, errors.New("bad wire type")
		}
	}
	return out, nil
}

const (
	anyStatementQuery = "type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
	anyTicketQuery    = "type.googleapis.com/arrow.flight.protocol.sql.TicketStatementQuery"
)

// unpackAny decodes google.protobuf.Any of the wanted type.
func unpackAny(b []byte, want string) ([]byte, error) {
	m, err := pbFields(b)
	if err != nil || string(m[1]) != want {
		return nil, &grpcStatus{grpcInvalidArgument, "expected " + want}
	}
	return m[2], nil
}

func packAny(typeURL string, v []byte) []byte {
	return pbBytes(pbBytes(nil, 1, []byte(typeURL)), 2, v)
}

// feLocal are statements whose result Doris produces on the FE.
func feLocal(sql string) bool {
	w := strings.ToUpper(firstWord(sql))
	switch w {
	case "SHOW", "DESC", "DESCRIBE", "EXPLAIN", "HELP", "SET", "USE", "SWITCH", "KILL":
		return true
	}
	return false
}

func firstWord(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "/*") {
		end := strings.Index(s, "*/")
		if end < 0 {
			return ""
		}
		s = strings.TrimSpace(s[end+2:])
	}
	if i := strings.IndexAny(s, " \t\r\n(;"); i >= 0 {
		return s[:i]
	}
	return s
}

func (f *flightServer) getFlightInfo(w http.ResponseWriter, r *http.Request) error {
	ss, err := f.session(r)
	if err != nil {
		return err
	}
	f.infos.Add(1)
	req, err := readRequest(r)
	if err != nil {
		return err
	}
	desc, err := pbFields(req)
	if err != nil {
		return &grpcStatus{grpcInvalidArgument, "malformed FlightDescriptor"}
	}
	cmd, err := unpackAny(desc[2], anyStatementQuery)
	if err != nil {
		return err
	}
	q, err := pbFields(cmd)
	if err != nil || len(q[1]) == 0 {
		return &grpcStatus{grpcInvalidArgument, "empty statement"}
	}
	query := string(q[1])
	res, err := f.execute(r.Context(), ss, query)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return &grpcStatus{grpcInternal, fmt.Sprintf("get flight info statement failed, after executeQueryStatement handleQuery, error code: %d, error msg: %s", me.Number, me.Message)}
		}
		return &grpcStatus{grpcInternal, "get flight info statement failed, " + err.Error()}
	}
	var handle string
	var location string
	if res.rows == nil || f.be == nil {
		handle = ss.id + ":" + res.qid
	} else {
		host, port, _ := net.SplitHostPort(f.be.addr)
		handle = res.qid + "&" + host + "&" + port + "&" + base64.StdEncoding.EncodeToString([]byte(query))
		location = "grpc+tcp://" + f.be.addr
	}
	ticket := packAny(anyTicketQuery, pbBytes(nil, 1, []byte(handle)))
	ep := pbBytes(nil, 1, pbBytes(nil, 1, ticket))
	if location != "" {
		ep = pbBytes(ep, 2, pbBytes(nil, 1, []byte(location)))
	}
	info := pbBytes(nil, 1, encapsulated(schemaMessage(res.cols)))
	info = pbBytes(info, 3, ep)
	info = pbVarint(info, 4, uint64(1<<64-1)) // total_records -1
	info = pbVarint(info, 5, uint64(1<<64-1)) // total_bytes -1
	w.WriteHeader(http.StatusOK)
	return writeMessage(w, info)
}

// execute runs query in the session and keeps its result for DoGet. A
// result a previous statement left unread is discarded, as Doris resets
// the session's result channel.
func (f *flightServer) execute(ctx context.Context, ss *flightSession, query string) (*flightResult, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	f.mu.Lock()
	for qid, old := range f.results {
		if old.sess == ss && !old.claimed {
			delete(f.results, qid)
			if old.rows != nil {
				ss.sock.Close() // drop the unread stream; reopened below
				old.rows.Close()
			}
		}
	}
	f.mu.Unlock()
	if err := ss.conn.PingContext(ctx); err != nil {
		ss.close()
		if err := ss.open(ctx, f.s.addr); err != nil {
			return nil, err
		}
	}
	local := ss.sock.LocalAddr().String()
	rows, err := ss.conn.QueryContext(context.WithoutCancel(ctx), query)
	if err != nil {
		return nil, err
	}
	qid := f.s.flightQueryID(local)
	types, err := rows.ColumnTypes()
	if err != nil {
		rows.Close()
		return nil, err
	}
	res := &flightResult{qid: qid, sess: ss}
	for _, t := range types {
		prec, scale, ok := t.DecimalSize()
		res.cols = append(res.cols, arrowColFor(t.Name(), t.DatabaseTypeName(), prec, scale, ok))
	}
	if len(types) == 0 { // SET, USE ...: Doris answers with an OK result
		rows.Close()
		res.cols = []arrowCol{{name: "StatusResult", kind: akUtf8}}
		res.local = [][][]byte{{[]byte("0")}}
	} else if feLocal(query) {
		err := readAll(rows, len(types), func(row [][]byte) { res.local = append(res.local, row) })
		if err != nil {
			return nil, err
		}
	} else {
		res.rows = rows
	}
	f.mu.Lock()
	f.results[qid] = res
	f.mu.Unlock()
	return res, nil
}

func readAll(rows *sql.Rows, n int, each func([][]byte)) error {
	defer rows.Close()
	raw := make([]sql.RawBytes, n)
	dest := make([]any, n)
	for i := range raw {
		dest[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		row := make([][]byte, n)
		for i, v := range raw {
			if v != nil {
				row[i] = append([]byte{}, v...)
			}
		}
		each(row)
	}
	return rows.Err()
}

// flightQueryID is the query id of the statement running (or just run)
// on the simulator connection whose client end is local.
func (s *Server) flightQueryID(local string) string {
	for _, c := range s.connections() {
		if c.remote != local {
			continue
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.executing {
			return c.curQueryID
		}
		return c.lastQueryID
	}
	return newQueryID()
}

const flightBatchRows = 4096

func (f *flightServer) doGet(w http.ResponseWriter, r *http.Request) error {
	if _, err := f.session(r); err != nil {
		return err
	}
	f.gets.Add(1)
	req, err := readRequest(r)
	if err != nil {
		return err
	}
	tk, err := pbFields(req)
	if err != nil {
		return &grpcStatus{grpcInvalidArgument, "malformed Ticket"}
	}
	tq, err := unpackAny(tk[1], anyTicketQuery)
	if err != nil {
		return err
	}
	h, err := pbFields(tq)
	if err != nil {
		return &grpcStatus{grpcInvalidArgument, "malformed ticket"}
	}
	handle := string(h[1])
	qid := handle
	if i := strings.IndexByte(handle, '&'); i >= 0 {
		qid = handle[:i]
	} else if _, after, ok := strings.Cut(handle, ":"); ok {
		qid = after
	}
	f.mu.Lock()
	res := f.results[qid]
	if res != nil && !res.claimed {
		res.claimed = true
		delete(f.results, qid)
	} else {
		res = nil
	}
	f.mu.Unlock()
	if res == nil {
		return &grpcStatus{grpcNotFound, "get stream statement failed, query id " + qid + " has no result (already read or discarded)"}
	}
	ss := res.sess
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	fd := func(header, body []byte) []byte {
		m := pbBytes(nil, 2, header)
		if len(body) > 0 {
			m = pbBytes(m, 1000, body)
		}
		return m
	}
	if err := writeMessage(w, fd(schemaMessage(res.cols), nil)); err != nil {
		return err
	}
	b := newBatchBuilder(res.cols)
	send := func() error {
		h, body := b.flush()
		if err := writeMessage(w, fd(h, body)); err != nil {
			return err
		}
		if fl != nil {
			fl.Flush()
		}
		return nil
	}
	if res.rows == nil {
		for _, row := range res.local {
			b.add(row)
		}
		return send()
	}
	// The client resetting the stream (or its deadline passing) ends the
	// statement: its connection is closed under it, and the simulator
	// stops the statement upstream as for any MySQL client that went away.
	stop := context.AfterFunc(r.Context(), func() { ss.sock.Close() })
	defer stop()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var werr error
	err = readAll(res.rows, len(res.cols), func(row [][]byte) {
		if werr != nil {
			return
		}
		b.add(row)
		if b.rows == flightBatchRows {
			werr = send()
		}
	})
	if werr != nil {
		return werr
	}
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return &grpcStatus{grpcInternal, fmt.Sprintf("get stream statement failed, error code: %d, error msg: %s", me.Number, me.Message)}
		}
		if r.Context().Err() != nil {
			return r.Context().Err()
		}
		return &grpcStatus{grpcInternal, "get stream statement failed, " + err.Error()}
	}
	return send() // the last batch, possibly empty
}
