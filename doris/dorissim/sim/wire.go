package sim

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
)

// MySQL protocol constants used by both sides of the simulator.
const (
	capLongPassword      = 0x00000001
	capFoundRows         = 0x00000002
	capLongFlag          = 0x00000004
	capConnectWithDB     = 0x00000008
	capProtocol41        = 0x00000200
	capSSL               = 0x00000800
	capTransactions      = 0x00002000
	capSecureConnection  = 0x00008000
	capMultiStatements   = 0x00010000
	capMultiResults      = 0x00020000
	capPSMultiResults    = 0x00040000
	capPluginAuth        = 0x00080000
	capConnectAttrs      = 0x00100000
	capPluginAuthLenenc  = 0x00200000
	capDeprecateEOF      = 0x01000000
	serverMoreResults    = 0x0008
	serverStatusAutocomm = 0x0002

	comQuit      = 0x01
	comInitDB    = 0x02
	comQuery     = 0x03
	comFieldList = 0x04
	comPing      = 0x0e

	typeLongLong  = 0x08
	typeVarString = 0xfd

	maxPayload = 1<<24 - 1
	// maxClientPacket bounds a logical packet a client may send (16 MiB).
	maxClientPacket = 16 << 20

	nativePlugin = "mysql_native_password"
)

var errPacketTooLarge = errors.New("packet too large")

// packetReader reads MySQL packets from a buffered stream.
type packetReader struct {
	r   *bufio.Reader
	seq byte // sequence id of the last packet read
	hdr [4]byte
}

// readChunk reads one physical packet into buf (reused when large enough).
func (p *packetReader) readChunk(buf []byte) ([]byte, error) {
	if _, err := io.ReadFull(p.r, p.hdr[:]); err != nil {
		return nil, err
	}
	n := int(p.hdr[0]) | int(p.hdr[1])<<8 | int(p.hdr[2])<<16
	p.seq = p.hdr[3]
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(p.r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// readPacket reads one logical packet (joining 16 MiB continuation chunks),
// refusing anything larger than limit.
func (p *packetReader) readPacket(limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := p.readChunk(nil)
		if err != nil {
			return nil, err
		}
		if len(out)+len(chunk) > limit {
			return nil, errPacketTooLarge
		}
		if out == nil && len(chunk) < maxPayload {
			return chunk, nil
		}
		out = append(out, chunk...)
		if len(chunk) < maxPayload {
			return out, nil
		}
	}
}

// packetWriter writes MySQL packets, numbering them from seq.
type packetWriter struct {
	w   *bufio.Writer
	seq byte
}

// writePacket frames payload (splitting at 16 MiB) with running sequence ids.
func (p *packetWriter) writePacket(payload []byte) error {
	for {
		n := len(payload)
		if n > maxPayload {
			n = maxPayload
		}
		if err := p.writeChunk(payload[:n]); err != nil {
			return err
		}
		payload = payload[n:]
		if n < maxPayload {
			return nil
		}
	}
}

func (p *packetWriter) writeChunk(b []byte) error {
	hdr := [4]byte{byte(len(b)), byte(len(b) >> 8), byte(len(b) >> 16), p.seq}
	p.seq++
	if _, err := p.w.Write(hdr[:]); err != nil {
		return err
	}
	_, err := p.w.Write(b)
	return err
}

func (p *packetWriter) flush() error { return p.w.Flush() }

// --- length-encoded values ---

func appendLenencInt(b []byte, n uint64) []byte {
	switch {
	case n < 251:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	default:
		b = append(b, 0xfe)
		return binary.LittleEndian.AppendUint64(b, n)
	}
}

func appendLenencString(b []byte, s string) []byte {
	b = appendLenencInt(b, uint64(len(s)))
	return append(b, s...)
}

// readLenencInt decodes a length-encoded integer; null reports 0xfb.
func readLenencInt(b []byte) (n uint64, size int, null bool, err error) {
	if len(b) == 0 {
		return 0, 0, false, io.ErrUnexpectedEOF
	}
	switch b[0] {
	case 0xfb:
		return 0, 1, true, nil
	case 0xfc:
		if len(b) < 3 {
			return 0, 0, false, io.ErrUnexpectedEOF
		}
		return uint64(binary.LittleEndian.Uint16(b[1:])), 3, false, nil
	case 0xfd:
		if len(b) < 4 {
			return 0, 0, false, io.ErrUnexpectedEOF
		}
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4, false, nil
	case 0xfe:
		if len(b) < 9 {
			return 0, 0, false, io.ErrUnexpectedEOF
		}
		return binary.LittleEndian.Uint64(b[1:]), 9, false, nil
	case 0xff:
		return 0, 0, false, errors.New("invalid length-encoded integer")
	}
	return uint64(b[0]), 1, false, nil
}

// readLenencString decodes a length-encoded string (null for 0xfb).
func readLenencString(b []byte) (s []byte, size int, null bool, err error) {
	n, k, null, err := readLenencInt(b)
	if err != nil || null {
		return nil, k, null, err
	}
	if uint64(len(b)-k) < n {
		return nil, 0, false, io.ErrUnexpectedEOF
	}
	return b[k : k+int(n)], k + int(n), false, nil
}

// --- packet builders ---

// okPacket builds an OK packet as Doris's MysqlOkPacket writes it to a
// client without CLIENT_SESSION_TRACK or CLIENT_DEPRECATE_EOF (the simulator
// offers neither): the info text is a length-encoded string when it is not
// empty, and absent when it is. libmariadb reads it as length-encoded, so an
// unprefixed text is a "malformed packet" there.
func okPacket(affected, insertID uint64, status, warnings uint16, info string) []byte {
	b := []byte{0x00}
	b = appendLenencInt(b, affected)
	b = appendLenencInt(b, insertID)
	b = binary.LittleEndian.AppendUint16(b, status)
	b = binary.LittleEndian.AppendUint16(b, warnings)
	if info == "" {
		return b
	}
	return appendLenencString(b, info)
}

func eofPacket(status uint16) []byte {
	return []byte{0xfe, 0, 0, byte(status), byte(status >> 8)}
}

func errPacket(code uint16, state, msg string) []byte {
	if len(state) != 5 {
		state = "HY000"
	}
	b := []byte{0xff, byte(code), byte(code >> 8), '#'}
	b = append(b, state...)
	return append(b, msg...)
}

// columnDef builds a Protocol::ColumnDefinition41 for a text column.
func columnDef(name string, typ byte, length uint32) []byte {
	b := appendLenencString(nil, "def")
	b = appendLenencString(b, "")   // schema
	b = appendLenencString(b, "")   // table
	b = appendLenencString(b, "")   // org_table
	b = appendLenencString(b, name) // name
	b = appendLenencString(b, name) // org_name
	b = append(b, 0x0c)
	charset := uint16(33) // utf8_general_ci
	flags := uint16(0)
	decimals := byte(0)
	if typ == typeLongLong {
		charset = 63 // binary
		flags = 0x80 // BINARY
	} else {
		decimals = 0x1f
	}
	b = binary.LittleEndian.AppendUint16(b, charset)
	b = binary.LittleEndian.AppendUint32(b, length)
	b = append(b, typ)
	b = binary.LittleEndian.AppendUint16(b, flags)
	b = append(b, decimals, 0, 0)
	return b
}

// parsedErr is a decoded ERR packet.
type parsedErr struct {
	Code  uint16
	State string
	Msg   string
}

func (e *parsedErr) Error() string {
	return fmt.Sprintf("Error %d (%s): %s", e.Code, e.State, e.Msg)
}

func parseErrPacket(b []byte) *parsedErr {
	e := &parsedErr{State: "HY000"}
	if len(b) < 3 || b[0] != 0xff {
		e.Code, e.Msg = 2027, "malformed error packet"
		return e
	}
	e.Code = binary.LittleEndian.Uint16(b[1:3])
	rest := b[3:]
	if len(rest) >= 6 && rest[0] == '#' {
		e.State = string(rest[1:6])
		rest = rest[6:]
	}
	e.Msg = string(rest)
	return e
}

// isEOFPacket reports a (non-deprecated) EOF packet.
func isEOFPacket(b []byte) bool { return len(b) > 0 && len(b) < 9 && b[0] == 0xfe }

func eofStatus(b []byte) uint16 {
	if len(b) >= 5 {
		return binary.LittleEndian.Uint16(b[3:5])
	}
	return 0
}

// okStatus extracts the status flags of an OK packet.
func okStatus(b []byte) uint16 {
	if len(b) < 1 {
		return 0
	}
	p := 1
	for i := 0; i < 2; i++ {
		_, k, _, err := readLenencInt(b[p:])
		if err != nil {
			return 0
		}
		p += k
	}
	if len(b) < p+2 {
		return 0
	}
	return binary.LittleEndian.Uint16(b[p:])
}

// columnName extracts name from a ColumnDefinition41 packet.
func columnName(b []byte) string {
	p := 0
	for i := 0; i < 4; i++ {
		_, k, _, err := readLenencString(b[p:])
		if err != nil {
			return ""
		}
		p += k
	}
	s, _, _, err := readLenencString(b[p:])
	if err != nil {
		return ""
	}
	return string(s)
}

// parseTextRow decodes a text-protocol row into n cells (nil = NULL).
func parseTextRow(b []byte, n int) ([]*string, error) {
	out := make([]*string, 0, n)
	p := 0
	for i := 0; i < n; i++ {
		s, k, null, err := readLenencString(b[p:])
		if err != nil {
			return nil, err
		}
		p += k
		if null {
			out = append(out, nil)
			continue
		}
		v := string(s)
		out = append(out, &v)
	}
	return out, nil
}

// hostPort splits an address, returning the port as int (0 when absent).
func hostPort(addr string) (string, int) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, _ := strconv.Atoi(p)
	return h, n
}
