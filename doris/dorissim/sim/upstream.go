package sim

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// upstream is the simulator's client connection to the MySQL-protocol server
// (MariaDB) that does the real SQL work.
type upstream struct {
	conn     net.Conn
	pr       packetReader
	pw       packetWriter
	threadID uint32
	buf      []byte
}

// nativeScramble computes the mysql_native_password response.
func nativeScramble(scramble []byte, password string) []byte {
	if password == "" {
		return nil
	}
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	h := sha1.New()
	h.Write(scramble)
	h.Write(h2[:])
	h3 := h.Sum(nil)
	for i := range h3 {
		h3[i] ^= h1[i]
	}
	return h3
}

// dialUpstream connects and authenticates as user.
func dialUpstream(ctx context.Context, addr, user, password, db string, collation byte) (*upstream, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
		_ = tc.SetKeepAlive(true)
	}
	u := &upstream{conn: c, pr: packetReader{r: bufio.NewReaderSize(c, 64<<10)}, pw: packetWriter{w: bufio.NewWriterSize(c, 16<<10)}}
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(dl)
	} else {
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	}
	if err := u.handshake(user, password, db, collation); err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	return u, nil
}

func (u *upstream) handshake(user, password, db string, collation byte) error {
	g, err := u.pr.readPacket(1 << 16)
	if err != nil {
		return fmt.Errorf("upstream greeting: %w", err)
	}
	if len(g) > 0 && g[0] == 0xff {
		return parseErrPacket(g)
	}
	if len(g) < 1 || g[0] != 10 {
		return errors.New("upstream: unsupported protocol version")
	}
	p := 1
	end := bytes.IndexByte(g[p:], 0)
	if end < 0 {
		return errors.New("upstream: malformed greeting")
	}
	p += end + 1
	if len(g) < p+4+8+1+2 {
		return errors.New("upstream: short greeting")
	}
	u.threadID = binary.LittleEndian.Uint32(g[p:])
	p += 4
	scramble := append([]byte(nil), g[p:p+8]...)
	p += 8 + 1
	caps := uint32(binary.LittleEndian.Uint16(g[p:]))
	p += 2
	plugin := nativePlugin
	if len(g) >= p+16 {
		p += 3 // charset, status
		caps |= uint32(binary.LittleEndian.Uint16(g[p:])) << 16
		p += 2
		authLen := int(g[p])
		p += 1 + 10
		if caps&capSecureConnection != 0 {
			n := max(13, authLen-8)
			if len(g) < p+n {
				n = len(g) - p
			}
			part := g[p : p+n]
			if k := bytes.IndexByte(part, 0); k >= 0 {
				part = part[:k]
			}
			scramble = append(scramble, part...)
			p += n
		}
		if caps&capPluginAuth != 0 && p < len(g) {
			rest := g[p:]
			if k := bytes.IndexByte(rest, 0); k >= 0 {
				rest = rest[:k]
			}
			plugin = string(rest)
		}
	}
	if caps&capProtocol41 == 0 {
		return errors.New("upstream: server lacks protocol 4.1")
	}
	if len(scramble) > 20 {
		scramble = scramble[:20]
	}
	want := uint32(capLongPassword | capLongFlag | capProtocol41 | capTransactions | capSecureConnection |
		capMultiResults | capPSMultiResults | capPluginAuth)
	if db != "" {
		want |= capConnectWithDB
	}
	flags := want & (caps | capLongPassword)
	var auth []byte
	if plugin == nativePlugin || plugin == "" {
		auth = nativeScramble(scramble, password)
		plugin = nativePlugin
	}
	b := binary.LittleEndian.AppendUint32(nil, flags)
	b = binary.LittleEndian.AppendUint32(b, maxClientPacket)
	if collation == 0 {
		collation = 45
	}
	b = append(b, collation)
	b = append(b, make([]byte, 23)...)
	b = append(b, user...)
	b = append(b, 0, byte(len(auth)))
	b = append(b, auth...)
	if flags&capConnectWithDB != 0 {
		b = append(b, db...)
		b = append(b, 0)
	}
	b = append(b, plugin...)
	b = append(b, 0)
	u.pw.seq = u.pr.seq + 1
	if err := u.pw.writePacket(b); err != nil {
		return err
	}
	if err := u.pw.flush(); err != nil {
		return err
	}
	for round := 0; round < 3; round++ {
		r, err := u.pr.readPacket(1 << 16)
		if err != nil {
			return fmt.Errorf("upstream auth: %w", err)
		}
		switch {
		case len(r) > 0 && r[0] == 0x00:
			return nil
		case len(r) > 0 && r[0] == 0xff:
			return parseErrPacket(r)
		case len(r) > 0 && r[0] == 0xfe:
			rest := r[1:]
			k := bytes.IndexByte(rest, 0)
			if k < 0 {
				return errors.New("upstream: malformed auth switch")
			}
			name := string(rest[:k])
			data := rest[k+1:]
			if n := len(data); n > 0 && data[n-1] == 0 {
				data = data[:n-1]
			}
			if name != nativePlugin {
				return fmt.Errorf("upstream: unsupported auth plugin %q", name)
			}
			u.pw.seq = u.pr.seq + 1
			if err := u.pw.writePacket(nativeScramble(data, password)); err != nil {
				return err
			}
			if err := u.pw.flush(); err != nil {
				return err
			}
		default:
			return errors.New("upstream: unexpected auth response")
		}
	}
	return errors.New("upstream: too many auth rounds")
}

func (u *upstream) close() {
	if u != nil && u.conn != nil {
		u.conn.Close()
	}
}

// send writes a command packet (sequence 0).
func (u *upstream) send(cmd byte, arg string) error {
	u.pw.seq = 0
	b := make([]byte, 0, 1+len(arg))
	b = append(b, cmd)
	b = append(b, arg...)
	if err := u.pw.writePacket(b); err != nil {
		return err
	}
	return u.pw.flush()
}

// next reads one physical packet into the connection's reusable buffer.
func (u *upstream) next() ([]byte, error) {
	b, err := u.pr.readChunk(u.buf)
	if err != nil {
		return nil, err
	}
	if cap(b) <= 1<<20 {
		u.buf = b[:0]
	}
	return b, nil
}

// result is a fully read (small) result set.
type result struct {
	cols     []string
	rows     [][]*string
	affected uint64
	isOK     bool
}

// colIndex finds a column by case-insensitive name (-1 when missing).
func (r *result) colIndex(name string) int {
	for i, c := range r.cols {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// errRowLimit is returned when a buffered result exceeds its row bound.
var errRowLimit = errors.New("result too large to buffer")

// query runs sql and buffers the first result set (at most maxRows rows);
// further result sets are drained. Upstream SQL errors come back as
// *parsedErr; any other error means the connection is unusable.
func (u *upstream) query(sql string, maxRows int) (*result, error) {
	if err := u.send(comQuery, sql); err != nil {
		return nil, err
	}
	var res *result
	var sqlErr *parsedErr
	for {
		rs, more, err := u.readResult(maxRows)
		if err != nil {
			var pe *parsedErr
			if errors.As(err, &pe) {
				if res == nil && sqlErr == nil {
					sqlErr = pe
				}
				return res, sqlErr
			}
			return nil, err
		}
		if res == nil {
			res = rs
		}
		if !more {
			break
		}
	}
	if sqlErr != nil {
		return nil, sqlErr
	}
	return res, nil
}

// readResult reads one result (OK or a result set); more reports that another
// result follows.
func (u *upstream) readResult(maxRows int) (*result, bool, error) {
	first, err := u.pr.readPacket(maxClientPacket)
	if err != nil {
		return nil, false, err
	}
	switch {
	case len(first) == 0:
		return nil, false, errors.New("upstream: empty packet")
	case first[0] == 0xff:
		return nil, false, parseErrPacket(first)
	case first[0] == 0x00:
		r := &result{isOK: true}
		r.affected, _, _, _ = readLenencInt(first[1:])
		return r, okStatus(first)&serverMoreResults != 0, nil
	case first[0] == 0xfb:
		return nil, false, errors.New("upstream: LOCAL INFILE not supported")
	}
	n, _, _, err := readLenencInt(first)
	if err != nil {
		return nil, false, err
	}
	r := &result{}
	for i := uint64(0); i < n; i++ {
		c, err := u.pr.readPacket(maxClientPacket)
		if err != nil {
			return nil, false, err
		}
		r.cols = append(r.cols, columnName(c))
	}
	if p, err := u.pr.readPacket(maxClientPacket); err != nil {
		return nil, false, err
	} else if !isEOFPacket(p) {
		return nil, false, errors.New("upstream: expected EOF after columns")
	}
	overflow := false
	for {
		p, err := u.pr.readPacket(maxClientPacket)
		if err != nil {
			return nil, false, err
		}
		if isEOFPacket(p) {
			if overflow {
				return nil, false, errRowLimit
			}
			return r, eofStatus(p)&serverMoreResults != 0, nil
		}
		if len(p) > 0 && p[0] == 0xff {
			return nil, false, parseErrPacket(p)
		}
		if overflow {
			continue
		}
		if maxRows > 0 && len(r.rows) >= maxRows {
			overflow = true
			r.rows = nil
			continue
		}
		row, err := parseTextRow(p, len(r.cols))
		if err != nil {
			return nil, false, err
		}
		r.rows = append(r.rows, row)
	}
}

// exec runs a statement and discards any result.
func (u *upstream) exec(sql string) error {
	_, err := u.query(sql, 1)
	if errors.Is(err, errRowLimit) {
		return nil
	}
	return err
}
