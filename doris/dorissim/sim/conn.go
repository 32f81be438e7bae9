package sim

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

const serverVersion = "5.7.99"

// serverCaps are the capabilities offered to clients: no SSL, no
// compression, no LOCAL INFILE, no CLIENT_DEPRECATE_EOF, no connect attributes.
const serverCaps = capLongPassword | capFoundRows | capLongFlag | capConnectWithDB | capProtocol41 |
	capTransactions | capSecureConnection | capMultiResults | capPSMultiResults | capPluginAuth |
	capPluginAuthLenenc

// errDropped ends a connection on purpose (fault injection, kill).
var errDropped = errors.New("connection dropped")

type cmdPacket struct {
	data []byte
	seq  byte
	err  error
}

// conn is one client connection and its upstream connection.
type conn struct {
	s      *Server
	id     uint32
	nc     net.Conn
	pr     packetReader
	pw     packetWriter
	remote string
	login  time.Time

	user, password string
	admin          bool
	collation      byte

	// executor-goroutine state
	queryTimeout int
	profileOn    bool
	vars         map[string]string
	dropAfter    int  // fault: close after this many rows of the current result
	stmtFailed   bool // an ERR was sent for the current statement
	stmtErr      string
	stmtRows     int
	stmtAffected int64 // rows a DML statement changed (from upstream OK packets)
	// rowsRead is the upstream session's Rows_read counter after the last
	// statement that reads data (auditlog.go); a session starts at 0.
	rowsRead int64

	mu          sync.Mutex // guards the fields below, read by other goroutines
	up          *upstream
	db, catalog string
	traceID     string
	executing   bool
	curQueryID  string
	curSQL      string
	curStart    time.Time
	lastQueryID string
	lastSQL     string
	lastState   string

	closeOnce sync.Once
	gone      chan struct{}
}

func newConn(s *Server, nc net.Conn) *conn {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	return &conn{
		s: s, id: s.nextConnID.Add(1), nc: nc,
		pr:     packetReader{r: bufio.NewReaderSize(nc, 16<<10)},
		pw:     packetWriter{w: bufio.NewWriterSize(nc, 64<<10)},
		remote: nc.RemoteAddr().String(), login: time.Now(), catalog: "internal",
		queryTimeout: 900, vars: map[string]string{}, lastState: "OK", gone: make(chan struct{}),
		profileOn: s.globalOn("enable_profile"), // globals.go
	}
}

// kill closes the client and upstream sockets; a statement still running
// upstream is killed there too.
func (c *conn) kill() {
	c.closeOnce.Do(func() {
		close(c.gone)
		c.nc.Close()
		c.mu.Lock()
		up, executing := c.up, c.executing
		c.mu.Unlock()
		if up != nil {
			if executing {
				c.s.killUpstream(c.user, c.password, up.threadID)
			}
			up.close()
		}
	})
}

func (c *conn) serve() {
	defer c.kill()
	_ = c.nc.SetDeadline(time.Now().Add(15 * time.Second))
	if err := c.handshake(); err != nil {
		c.s.log.Debug("handshake failed", "remote", c.remote, "err", err)
		return
	}
	_ = c.nc.SetDeadline(time.Time{})
	c.s.log.Debug("client connected", "remote", c.remote, "user", c.user, "thread", c.up.threadID)

	cmds := make(chan cmdPacket)
	go c.readLoop(cmds)
	for {
		select {
		case <-c.gone:
			return
		case m := <-cmds:
			if m.err != nil {
				if errors.Is(m.err, errPacketTooLarge) {
					c.pw.seq = m.seq + 1
					c.sendErr(1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes")
					_ = c.pw.flush()
				}
				return
			}
			c.pw.seq = m.seq + 1
			if !c.dispatch(m.data) {
				return
			}
			if err := c.pw.flush(); err != nil {
				return
			}
		}
	}
}

// readLoop reads client commands; it also notices a client that goes away
// while a statement runs, so that the upstream work is killed.
func (c *conn) readLoop(out chan<- cmdPacket) {
	for {
		p, err := c.pr.readPacket(maxClientPacket)
		if err != nil {
			if errors.Is(err, errPacketTooLarge) {
				select {
				case out <- cmdPacket{seq: c.pr.seq, err: err}:
				case <-c.gone:
				}
				return
			}
			c.kill()
			return
		}
		select {
		case out <- cmdPacket{data: p, seq: c.pr.seq}:
		case <-c.gone:
			return
		}
	}
}

func randomScramble() []byte {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = 0x21 + b[i]%0x5e // printable, never NUL or '$'
		if b[i] == '$' {
			b[i] = '#'
		}
	}
	return b
}

func (c *conn) handshake() error {
	scramble := randomScramble()
	g := []byte{10}
	g = append(g, serverVersion...)
	g = append(g, 0)
	g = binary.LittleEndian.AppendUint32(g, c.id)
	g = append(g, scramble[:8]...)
	g = append(g, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(serverCaps&0xffff))
	g = append(g, 33)
	g = binary.LittleEndian.AppendUint16(g, serverStatusAutocomm)
	g = binary.LittleEndian.AppendUint16(g, uint16(serverCaps>>16))
	g = append(g, 21)
	g = append(g, make([]byte, 10)...)
	g = append(g, scramble[8:]...)
	g = append(g, 0)
	g = append(g, nativePlugin...)
	g = append(g, 0)
	c.pw.seq = 0
	if err := c.pw.writePacket(g); err != nil {
		return err
	}
	if err := c.pw.flush(); err != nil {
		return err
	}
	resp, err := c.pr.readPacket(1 << 16)
	if err != nil {
		return err
	}
	c.pw.seq = c.pr.seq + 1
	if len(resp) < 32 {
		c.sendErr(1043, "08S01", "Bad handshake")
		_ = c.pw.flush()
		return errors.New("short handshake response")
	}
	caps := binary.LittleEndian.Uint32(resp)
	if caps&capProtocol41 == 0 {
		c.sendErr(1043, "08S01", "Bad handshake")
		_ = c.pw.flush()
		return errors.New("client without protocol 4.1")
	}
	if caps&capSSL != 0 && len(resp) == 32 {
		c.sendErr(1043, "08S01", "SSL is not supported by this server")
		_ = c.pw.flush()
		return errors.New("client asked for SSL")
	}
	c.collation = resp[8]
	p := 32
	end := bytes.IndexByte(resp[p:], 0)
	if end < 0 {
		return errors.New("malformed handshake response")
	}
	user := string(resp[p : p+end])
	p += end + 1
	var auth []byte
	switch {
	case caps&capPluginAuthLenenc != 0:
		s, k, _, err := readLenencString(resp[p:])
		if err != nil {
			return err
		}
		auth, p = s, p+k
	case caps&capSecureConnection != 0:
		if p >= len(resp) {
			return errors.New("malformed handshake response")
		}
		n := int(resp[p])
		if p+1+n > len(resp) {
			return errors.New("malformed handshake response")
		}
		auth, p = resp[p+1:p+1+n], p+1+n
	default:
		k := bytes.IndexByte(resp[p:], 0)
		if k < 0 {
			k = len(resp) - p
		}
		auth, p = resp[p:p+k], min(p+k+1, len(resp))
	}
	db := ""
	if caps&capConnectWithDB != 0 && p < len(resp) {
		k := bytes.IndexByte(resp[p:], 0)
		if k < 0 {
			k = len(resp) - p
		}
		db, p = string(resp[p:p+k]), min(p+k+1, len(resp))
	}
	plugin := ""
	if caps&capPluginAuth != 0 && p < len(resp) {
		k := bytes.IndexByte(resp[p:], 0)
		if k < 0 {
			k = len(resp) - p
		}
		plugin = string(resp[p : p+k])
	}
	if plugin != "" && plugin != nativePlugin {
		sw := []byte{0xfe}
		sw = append(sw, nativePlugin...)
		sw = append(sw, 0)
		sw = append(sw, scramble...)
		sw = append(sw, 0)
		if err := c.pw.writePacket(sw); err != nil {
			return err
		}
		if err := c.pw.flush(); err != nil {
			return err
		}
		auth, err = c.pr.readPacket(1 << 16)
		if err != nil {
			return err
		}
		c.pw.seq = c.pr.seq + 1
	}
	host, _ := hostPort(c.remote)
	pw, known := c.s.password(user)
	want := nativeScramble(scramble, pw)
	if !known || subtle.ConstantTimeCompare(want, auth) != 1 {
		using := "YES"
		if len(auth) == 0 {
			using = "NO"
		}
		c.sendErr(1045, "28000", fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", user, host, using))
		_ = c.pw.flush()
		return fmt.Errorf("access denied for %q", user)
	}
	c.user, c.password, c.admin = user, pw, c.s.isAdmin(user)
	db = stripInternalPrefix(db)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	up, err := dialUpstream(ctx, c.s.opts.Upstream, user, pw, db, c.collation)
	if err != nil {
		var pe *parsedErr
		if errors.As(err, &pe) {
			if pe.Code == 1045 {
				c.sendErr(1045, "28000", fmt.Sprintf("Access denied for user '%s'@'%s' (using password: YES)", user, host))
			} else {
				c.sendMappedErr(pe, "", "")
			}
		} else {
			c.sendErr(1105, "HY000", "errCode = 2, detailMessage = failed to reach the storage backend: "+err.Error())
		}
		_ = c.pw.flush()
		return err
	}
	c.mu.Lock()
	c.up = up
	c.db = db
	c.mu.Unlock()
	c.s.mu.Lock()
	c.s.byThread[up.threadID] = c
	c.s.mu.Unlock()
	if err := up.exec("SET max_statement_time = 900"); err != nil {
		c.sendErr(1105, "HY000", "errCode = 2, detailMessage = session setup failed: "+err.Error())
		_ = c.pw.flush()
		return err
	}
	if err := c.pw.writePacket(okPacket(0, 0, serverStatusAutocomm, 0, "")); err != nil {
		return err
	}
	return c.pw.flush()
}

func stripInternalPrefix(db string) string {
	if i := strings.IndexByte(db, '.'); i > 0 && strings.EqualFold(db[:i], "internal") {
		return db[i+1:]
	}
	return db
}

// dispatch handles one command; false ends the connection.
func (c *conn) dispatch(p []byte) bool {
	if len(p) == 0 {
		c.sendErr(1047, "08S01", "Unknown command")
		return true
	}
	switch p[0] {
	case comQuit:
		return false
	case comPing:
		return c.sendOK(0, "") == nil
	case comInitDB:
		return c.useDatabase(string(p[1:])) == nil
	case comQuery:
		return c.handleQuery(string(p[1:])) == nil
	case comFieldList:
		return c.relayFieldList(p) == nil
	default:
		c.sendErr(1047, "08S01", "Unknown command")
		return true
	}
}

// --- response helpers (executor goroutine) ---

func (c *conn) sendOK(affected uint64, info string) error {
	return c.pw.writePacket(okPacket(affected, 0, serverStatusAutocomm, 0, info))
}

func (c *conn) sendErr(code uint16, state, msg string) error {
	c.stmtFailed = true
	c.stmtErr = msg
	return c.pw.writePacket(errPacket(code, state, msg))
}

// dorisErr is an error to send to the client as is.
type dorisErr struct {
	code  uint16
	state string
	msg   string
}

func (e *dorisErr) Error() string { return e.msg }

func newDorisErr(code uint16, state, detail string) *dorisErr {
	return &dorisErr{code: code, state: state, msg: "errCode = 2, detailMessage = " + detail}
}

func (c *conn) send(e *dorisErr) error { return c.sendErr(e.code, e.state, e.msg) }

// value cells for native results: nil = NULL, string, or anything printable.
func cellString(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case *string:
		if x == nil {
			return "", false
		}
		return *x, true
	default:
		return fmt.Sprint(x), true
	}
}

// sendResult writes a text result set of VARCHAR columns.
func (c *conn) sendResult(cols []string, rows [][]any) error {
	if err := c.pw.writePacket(appendLenencInt(nil, uint64(len(cols)))); err != nil {
		return err
	}
	for _, name := range cols {
		if err := c.pw.writePacket(columnDef(name, typeVarString, 1024)); err != nil {
			return err
		}
	}
	if err := c.pw.writePacket(eofPacket(serverStatusAutocomm)); err != nil {
		return err
	}
	var b []byte
	for _, r := range rows {
		if err := c.beforeRow(); err != nil {
			return err
		}
		b = b[:0]
		for i := range cols {
			var v any
			if i < len(r) {
				v = r[i]
			}
			s, ok := cellString(v)
			if !ok {
				b = append(b, 0xfb)
			} else {
				b = appendLenencString(b, s)
			}
		}
		if err := c.pw.writePacket(b); err != nil {
			return err
		}
		c.stmtRows++
	}
	return c.pw.writePacket(eofPacket(serverStatusAutocomm))
}

// beforeRow enforces a DropAfterRows fault.
func (c *conn) beforeRow() error {
	if c.dropAfter > 0 && c.stmtRows >= c.dropAfter {
		_ = c.pw.flush()
		c.s.log.Debug("fault: dropping connection mid-result", "remote", c.remote, "rows", c.stmtRows)
		c.kill()
		return errDropped
	}
	return nil
}

// --- statement lifecycle ---

func newQueryID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b[:8]) + "-" + hex.EncodeToString(b[8:])
}

func (c *conn) handleQuery(sql string) error {
	start := time.Now()
	c.s.stats.queries.Add(1)
	c.stmtFailed, c.stmtErr, c.stmtRows, c.dropAfter, c.stmtAffected = false, "", 0, 0, 0
	if f := c.s.takeFault(sql); f != nil {
		if f.Reached != nil {
			select {
			case f.Reached <- struct{}{}:
			case <-c.gone:
				return errDropped
			}
		}
		if f.Hold != nil {
			select {
			case <-f.Hold:
			case <-c.gone:
				return errDropped
			}
		}
		if f.Latency > 0 {
			t := time.NewTimer(f.Latency)
			select {
			case <-t.C:
			case <-c.gone:
				t.Stop()
				return errDropped
			}
		}
		if f.Drop {
			c.s.log.Debug("fault: dropping connection", "remote", c.remote)
			c.kill()
			return errDropped
		}
		if f.ErrCode != 0 {
			c.s.stats.queryErrs.Add(1)
			state := f.ErrState
			if state == "" {
				state = "HY000"
			}
			return c.sendErr(f.ErrCode, state, f.ErrMsg)
		}
		if f.DropAfterRows > 0 {
			c.dropAfter = f.DropAfterRows
		}
	}
	qid := newQueryID()
	c.mu.Lock()
	c.executing, c.curQueryID, c.curSQL, c.curStart = true, qid, sql, start
	db, trace := c.db, c.traceID
	c.mu.Unlock()
	c.s.act.begin(c, c.vars["workload_group"]) // activity.go
	var rec *queryProfile
	if c.profileOn {
		rec = c.s.profiles.begin(qid, trace, c.user, db, sql, start)
	}

	err := c.execute(sql)

	end := time.Now()
	state := "EOF"
	if c.stmtFailed {
		state = "ERR"
		c.s.stats.queryErrs.Add(1)
	}
	c.mu.Lock()
	c.executing = false
	c.lastQueryID, c.lastSQL, c.lastState = qid, sql, state
	c.curQueryID, c.curSQL = "", ""
	c.mu.Unlock()
	c.s.stats.latencyMs.add(end.Sub(start).Milliseconds())
	c.s.act.done(c, sql, db, c.stmtFailed, int64(c.stmtRows), c.stmtAffected, end) // activity.go
	if rec != nil {
		c.s.profiles.finish(rec, end, state, c.stmtErr, c.stmtRows)
	}
	if c.s.audit != nil && !isSessionStatement(sql) {
		code := 0
		if c.stmtFailed {
			code = 1105
		} else if !isQueryStatement(sql) && !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(sql)), "SHOW") {
			state = "OK"
		}
		var scan int64
		if err == nil && !c.stmtFailed && readsData(sql) {
			scan = c.scanRows()
		}
		c.s.audit.add(auditEntry{queryID: qid, client: c.remote, user: c.user, db: db, state: state, errMsg: c.stmtErr,
			errCode: code, stmt: sql, start: start, ms: end.Sub(start).Milliseconds(), rows: c.stmtRows, scanRows: scan})
	}
	return err
}

// killUpstream kills an upstream thread from a fresh connection of the same
// user (a user may kill its own threads).
func (s *Server) killUpstream(user, password string, thread uint32) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		u, err := dialUpstream(ctx, s.opts.Upstream, user, password, "", 0)
		if err != nil {
			s.log.Debug("kill upstream: connect failed", "err", err)
			return
		}
		defer u.close()
		_ = u.conn.SetDeadline(time.Now().Add(5 * time.Second))
		if err := u.exec(fmt.Sprintf("KILL %d", thread)); err != nil {
			s.log.Debug("kill upstream", "thread", thread, "err", err)
		}
	}()
}

// --- relaying ---

// relay sends sql upstream and streams the response to the client packet by
// packet, mapping error packets to Doris texts.
func (c *conn) relay(sql, orig string) error {
	up := c.upstreamConn()
	if up == nil {
		return errDropped
	}
	if err := up.send(comQuery, sql); err != nil {
		return c.upstreamBroken(err)
	}
	for {
		first, err := up.next()
		if err != nil {
			return c.upstreamBroken(err)
		}
		switch {
		case len(first) > 0 && first[0] == 0xff:
			return c.sendUpstreamErr(parseErrPacket(first), sql, orig)
		case len(first) > 0 && first[0] == 0x00:
			if n, _, _, err := readLenencInt(first[1:]); err == nil {
				c.stmtAffected += int64(n)
			}
			more := okStatus(first)&serverMoreResults != 0
			if err := c.pw.writeChunk(first); err != nil {
				return err
			}
			if !more {
				return nil
			}
			continue
		case len(first) > 0 && first[0] == 0xfb:
			return c.upstreamBroken(errors.New("LOCAL INFILE request"))
		}
		n, _, _, err := readLenencInt(first)
		if err != nil {
			return c.upstreamBroken(err)
		}
		if err := c.pw.writeChunk(first); err != nil {
			return err
		}
		for i := uint64(0); i <= n; i++ { // n column definitions + EOF
			p, err := up.next()
			if err != nil {
				return c.upstreamBroken(err)
			}
			if err := c.pw.writeChunk(p); err != nil {
				return err
			}
		}
		more, err := c.relayRows(up, sql, orig)
		if err != nil || !more {
			return err
		}
	}
}

// relayRows forwards rows until EOF or ERR.
func (c *conn) relayRows(up *upstream, sql, orig string) (more bool, err error) {
	cont := false
	for {
		p, err := up.next()
		if err != nil {
			return false, c.upstreamBroken(err)
		}
		if !cont {
			if isEOFPacket(p) {
				return eofStatus(p)&serverMoreResults != 0, c.pw.writeChunk(p)
			}
			if len(p) > 0 && p[0] == 0xff {
				return false, c.sendUpstreamErr(parseErrPacket(p), sql, orig)
			}
			if err := c.beforeRow(); err != nil {
				return false, err
			}
			c.stmtRows++
		}
		cont = len(p) == maxPayload
		if err := c.pw.writeChunk(p); err != nil {
			return false, err
		}
	}
}

func (c *conn) upstreamConn() *upstream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.up
}

// upstreamBroken reports a lost upstream connection and ends the session.
func (c *conn) upstreamBroken(err error) error {
	select {
	case <-c.gone:
		return errDropped
	default:
	}
	c.s.log.Warn("upstream connection lost", "remote", c.remote, "user", c.user, "err", err)
	// The upstream is the simulated backend: Doris's own text for a query
	// whose backend went down.
	_ = c.sendErr(1105, "HY000", "errCode = 2, detailMessage = No backend available as scan node, please check the status of your backends. ["+backendID+": not alive]")
	_ = c.pw.flush()
	return errDropped
}

// sendUpstreamErr maps and sends an upstream error; a killed upstream
// connection ends the client session too.
func (c *conn) sendUpstreamErr(pe *parsedErr, sql, orig string) error {
	if err := c.sendMappedErr(pe, sql, orig); err != nil {
		return err
	}
	if pe.Code == 1927 || pe.Code == 1053 || pe.Code == 2013 {
		_ = c.pw.flush()
		return errDropped
	}
	return nil
}

// relayFieldList forwards COM_FIELD_LIST (used by the mysql CLI's completion).
func (c *conn) relayFieldList(p []byte) error {
	up := c.upstreamConn()
	if up == nil {
		return errDropped
	}
	up.pw.seq = 0
	if err := up.pw.writePacket(p); err != nil {
		return c.upstreamBroken(err)
	}
	if err := up.pw.flush(); err != nil {
		return c.upstreamBroken(err)
	}
	for {
		q, err := up.next()
		if err != nil {
			return c.upstreamBroken(err)
		}
		if len(q) > 0 && q[0] == 0xff {
			return c.sendMappedErr(parseErrPacket(q), "", "")
		}
		if err := c.pw.writeChunk(q); err != nil {
			return err
		}
		if isEOFPacket(q) {
			return nil
		}
	}
}

// upQuery runs a buffered upstream query; SQL errors are mapped and sent to
// the client (sent=true), connection errors end the session.
func (c *conn) upQuery(sql, orig string, maxRows int) (r *result, sent bool, err error) {
	up := c.upstreamConn()
	if up == nil {
		return nil, false, errDropped
	}
	r, err = up.query(sql, maxRows)
	if err != nil {
		var pe *parsedErr
		if errors.As(err, &pe) {
			return nil, true, c.sendUpstreamErr(pe, sql, orig)
		}
		if errors.Is(err, errRowLimit) {
			return nil, true, c.sendErr(1105, "HY000", "errCode = 2, detailMessage = result too large")
		}
		return nil, true, c.upstreamBroken(err)
	}
	return r, false, nil
}

func (c *conn) snapshot() (db, catalog, trace string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.db, c.catalog, c.traceID
}

// isSessionStatement reports statements the audit log leaves out (session
// setup noise such as SET and USE).
func isSessionStatement(sql string) bool {
	ts := sig(lex(sql))
	return len(ts) == 0 || ts[0].is("SET") || ts[0].is("USE") || ts[0].is("SWITCH")
}
