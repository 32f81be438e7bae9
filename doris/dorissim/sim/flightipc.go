package sim

import (
	"encoding/binary"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// This file is the simulator's Arrow IPC writer: schema and record-batch
// messages as Doris's BE writes them for Arrow Flight SQL, built with a
// small flatbuffers encoder of its own (the client's decoder lives in
// doris/flightsql; the two share no code, so each checks the other).

// fbObj is a flatbuffers object to write: a table, a vector of tables, a
// vector of 16-byte structs, or a string.
type fbObj interface{ write(w *fbWriter) int }

// fbTable is a table: fields by id; nil for absent.
type fbTable []*fbField

// fbField is a scalar of size bytes, or a reference to obj.
type fbField struct {
	size int
	v    uint64
	obj  fbObj
}

func fbU8(v uint8) *fbField   { return &fbField{size: 1, v: uint64(v)} }
func fbI16(v int16) *fbField  { return &fbField{size: 2, v: uint64(uint16(v))} }
func fbI32(v int32) *fbField  { return &fbField{size: 4, v: uint64(uint32(v))} }
func fbI64(v int64) *fbField  { return &fbField{size: 8, v: uint64(v)} }
func fbRef(o fbObj) *fbField  { return &fbField{size: 4, obj: o} }
func fbStr(s string) *fbField { return fbRef(fbString(s)) }
func fbBool(b bool) *fbField  { return map[bool]*fbField{true: fbU8(1), false: fbU8(0)}[b] }

type fbString string

type fbTables []fbTable

// fbStructs is a vector of (int64, int64) structs: FieldNode and Buffer.
type fbStructs [][2]int64

type fbWriter struct{ b []byte }

func (w *fbWriter) align(n int) {
	for len(w.b)%n != 0 {
		w.b = append(w.b, 0)
	}
}

func (w *fbWriter) patch(at, target int) {
	binary.LittleEndian.PutUint32(w.b[at:], uint32(target-at))
}

// fbFinish writes root as a whole flatbuffer.
func fbFinish(root fbTable) []byte {
	w := &fbWriter{b: make([]byte, 4, 256)}
	t := root.write(w)
	w.patch(0, t)
	w.align(8)
	return w.b
}

// write lays out the vtable, then the table (8-aligned, 8-byte fields
// first), then every object it references, after it: flatbuffers
// offsets point forward.
func (t fbTable) write(w *fbWriter) int {
	offs := make([]int, len(t))
	inline := 4
	for _, size := range []int{8, 4, 2, 1} {
		for i, f := range t {
			if f == nil || f.size != size {
				continue
			}
			for inline%size != 0 {
				inline++
			}
			offs[i] = inline
			inline += size
		}
	}
	w.align(2)
	vt := len(w.b)
	w.b = binary.LittleEndian.AppendUint16(w.b, uint16(4+2*len(t)))
	w.b = binary.LittleEndian.AppendUint16(w.b, uint16(inline))
	for _, o := range offs {
		w.b = binary.LittleEndian.AppendUint16(w.b, uint16(o))
	}
	w.align(8)
	tp := len(w.b)
	w.b = append(w.b, make([]byte, inline)...)
	binary.LittleEndian.PutUint32(w.b[tp:], uint32(int32(tp-vt)))
	for i, f := range t {
		if f == nil || f.obj != nil {
			continue
		}
		p := w.b[tp+offs[i]:]
		switch f.size {
		case 1:
			p[0] = byte(f.v)
		case 2:
			binary.LittleEndian.PutUint16(p, uint16(f.v))
		case 4:
			binary.LittleEndian.PutUint32(p, uint32(f.v))
		case 8:
			binary.LittleEndian.PutUint64(p, f.v)
		}
	}
	for i, f := range t {
		if f != nil && f.obj != nil {
			w.patch(tp+offs[i], f.obj.write(w))
		}
	}
	return tp
}

func (s fbString) write(w *fbWriter) int {
	w.align(4)
	p := len(w.b)
	w.b = binary.LittleEndian.AppendUint32(w.b, uint32(len(s)))
	w.b = append(w.b, s...)
	w.b = append(w.b, 0)
	return p
}

func (v fbTables) write(w *fbWriter) int {
	w.align(4)
	p := len(w.b)
	w.b = binary.LittleEndian.AppendUint32(w.b, uint32(len(v)))
	slots := len(w.b)
	w.b = append(w.b, make([]byte, 4*len(v))...)
	for i, t := range v {
		w.patch(slots+4*i, t.write(w))
	}
	return p
}

func (v fbStructs) write(w *fbWriter) int {
	for (len(w.b)+4)%8 != 0 {
		w.b = append(w.b, 0)
	}
	p := len(w.b)
	w.b = binary.LittleEndian.AppendUint32(w.b, uint32(len(v)))
	for _, s := range v {
		w.b = binary.LittleEndian.AppendUint64(w.b, uint64(s[0]))
		w.b = binary.LittleEndian.AppendUint64(w.b, uint64(s[1]))
	}
	return p
}

// arrowKind is how the simulator carries one column over Arrow, chosen
// from the MySQL type it reports, the way Doris's BE maps the Doris type.
type arrowKind int

const (
	akNull arrowKind = iota
	akInt
	akUint
	akFloat32
	akFloat64
	akDecimal
	akDate
	akTimestamp
	akUtf8
	akBinary
)

type arrowCol struct {
	name     string
	kind     arrowKind
	bits     int // akInt, akUint: 8..64; akDecimal: 128 or 256
	prec, sc int // akDecimal; akTimestamp: sc = fraction digits
	timeUnit int // akTimestamp: 0 s, 1 ms, 2 us
}

// arrowColFor maps a MySQL column (driver type name, and precision/scale
// when it has them) to its Arrow form.
func arrowColFor(name, dbType string, prec, scale int64, hasScale bool) arrowCol {
	c := arrowCol{name: name}
	unsigned := strings.HasPrefix(dbType, "UNSIGNED ")
	switch strings.TrimPrefix(dbType, "UNSIGNED ") {
	case "TINYINT":
		c.kind, c.bits = akInt, 8
	case "SMALLINT", "YEAR":
		c.kind, c.bits = akInt, 16
	case "MEDIUMINT", "INT":
		c.kind, c.bits = akInt, 32
	case "BIGINT":
		c.kind, c.bits = akInt, 64
	case "FLOAT":
		c.kind = akFloat32
	case "DOUBLE":
		c.kind = akFloat64
	case "DECIMAL":
		c.kind, c.bits, c.prec, c.sc = akDecimal, 128, int(prec), int(scale)
		if c.prec > 38 {
			c.bits = 256
		}
		if c.prec < 1 || c.prec > 76 {
			c.prec = 38
		}
	case "DATE":
		c.kind = akDate
	case "DATETIME", "TIMESTAMP":
		c.kind = akTimestamp
		if hasScale {
			c.sc = int(scale)
		}
		switch {
		case c.sc > 3:
			c.timeUnit = 2
		case c.sc > 0:
			c.timeUnit = 1
		}
	case "NULL":
		c.kind = akNull
	case "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BINARY", "VARBINARY", "BIT", "GEOMETRY":
		c.kind = akBinary
	default:
		c.kind = akUtf8
	}
	if unsigned && c.kind == akInt {
		c.kind = akUint
	}
	return c
}

// Arrow type ids (Schema.fbs Type union).
const (
	atNull      = 1
	atInt       = 2
	atFloat     = 3
	atBinary    = 4
	atUtf8      = 5
	atDecimal   = 7
	atDate      = 8
	atTimestamp = 10
)

func (c arrowCol) field() fbTable {
	var typ uint8
	var body fbTable
	switch c.kind {
	case akNull:
		typ = atNull
	case akInt, akUint:
		typ, body = atInt, fbTable{fbI32(int32(c.bits)), fbBool(c.kind == akInt)}
	case akFloat32:
		typ, body = atFloat, fbTable{fbI16(1)}
	case akFloat64:
		typ, body = atFloat, fbTable{fbI16(2)}
	case akDecimal:
		typ, body = atDecimal, fbTable{fbI32(int32(c.prec)), fbI32(int32(c.sc)), fbI32(int32(c.bits))}
	case akDate:
		typ, body = atDate, fbTable{fbI16(0)}
	case akTimestamp:
		typ, body = atTimestamp, fbTable{fbI16(int16(c.timeUnit))}
	case akBinary:
		typ = atBinary
	default:
		typ = atUtf8
	}
	if body == nil {
		body = fbTable{}
	}
	return fbTable{fbStr(c.name), fbBool(true), fbU8(typ), fbRef(body), nil, fbRef(fbTables{})}
}

// message wraps a header as an IPC Message (metadata version V5).
func ipcMessage(htype uint8, header fbTable, bodyLen int) []byte {
	return fbFinish(fbTable{fbI16(4), fbU8(htype), fbRef(header), fbI64(int64(bodyLen))})
}

func schemaMessage(cols []arrowCol) []byte {
	fields := make(fbTables, len(cols))
	for i, c := range cols {
		fields[i] = c.field()
	}
	return ipcMessage(1, fbTable{fbI16(0), fbRef(fields)}, 0)
}

// encapsulated frames a message as the IPC stream format does
// (continuation marker, length, flatbuffer), as FlightInfo.schema holds it.
func encapsulated(msg []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0xFFFFFFFF)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msg)))
	return append(b, msg...)
}

// batchBuilder accumulates text rows into one record batch.
type batchBuilder struct {
	cols []arrowCol
	rows int
	bufs []colBufs
}

type colBufs struct {
	valid   []byte
	nulls   int
	offsets []byte
	data    []byte
}

func newBatchBuilder(cols []arrowCol) *batchBuilder {
	return &batchBuilder{cols: cols, bufs: make([]colBufs, len(cols))}
}

// add appends one row of text values (nil: NULL).
func (b *batchBuilder) add(row [][]byte) {
	i := b.rows
	b.rows++
	for j, c := range b.cols {
		cb := &b.bufs[j]
		if i%8 == 0 {
			cb.valid = append(cb.valid, 0)
		}
		v := row[j]
		if c.kind == akNull {
			continue
		}
		if v != nil {
			cb.valid[i/8] |= 1 << (i % 8)
		} else {
			cb.nulls++
		}
		switch c.kind {
		case akUtf8, akBinary:
			if i == 0 {
				cb.offsets = binary.LittleEndian.AppendUint32(cb.offsets, 0)
			}
			cb.data = append(cb.data, v...)
			cb.offsets = binary.LittleEndian.AppendUint32(cb.offsets, uint32(len(cb.data)))
		case akInt:
			n, _ := strconv.ParseInt(string(v), 10, 64)
			cb.data = appendLE(cb.data, uint64(n), c.bits/8)
		case akUint:
			n, _ := strconv.ParseUint(string(v), 10, 64)
			cb.data = appendLE(cb.data, n, c.bits/8)
		case akFloat32:
			f, _ := strconv.ParseFloat(string(v), 32)
			cb.data = binary.LittleEndian.AppendUint32(cb.data, math.Float32bits(float32(f)))
		case akFloat64:
			f, _ := strconv.ParseFloat(string(v), 64)
			cb.data = binary.LittleEndian.AppendUint64(cb.data, math.Float64bits(f))
		case akDecimal:
			cb.data = appendDecimal(cb.data, string(v), c.sc, c.bits/8)
		case akDate:
			var days int64
			if t, err := time.Parse("2006-01-02", string(v)); err == nil {
				days = t.Unix() / 86400
				if t.Unix()%86400 < 0 {
					days--
				}
			}
			cb.data = binary.LittleEndian.AppendUint32(cb.data, uint32(int32(days)))
		case akTimestamp:
			var n int64
			if t, err := time.Parse("2006-01-02 15:04:05.999999999", string(v)); err == nil {
				switch c.timeUnit {
				case 0:
					n = t.Unix()
				case 1:
					n = t.UnixMilli()
				default:
					n = t.UnixMicro()
				}
			}
			cb.data = binary.LittleEndian.AppendUint64(cb.data, uint64(n))
		}
	}
}

func appendLE(b []byte, v uint64, n int) []byte {
	for i := range n {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// appendDecimal appends the decimal text s scaled to scale digits as an
// n-byte little-endian two's-complement integer.
func appendDecimal(b []byte, s string, scale, n int) []byte {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	ip, fp, _ := strings.Cut(s, ".")
	for len(fp) < scale {
		fp += "0"
	}
	v, ok := new(big.Int).SetString(ip+fp[:scale], 10)
	if !ok {
		v = new(big.Int)
	}
	if neg {
		v.Neg(v)
	}
	if v.Sign() < 0 {
		v.Add(v, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	}
	be := v.FillBytes(make([]byte, n))
	for i := n - 1; i >= 0; i-- {
		b = append(b, be[i])
	}
	return b
}

// flush returns the batch as an IPC message and body, and resets.
func (b *batchBuilder) flush() (header, body []byte) {
	var nodes, bufs fbStructs
	add := func(p []byte) {
		bufs = append(bufs, [2]int64{int64(len(body)), int64(len(p))})
		body = append(body, p...)
		for len(body)%8 != 0 {
			body = append(body, 0)
		}
	}
	for j, c := range b.cols {
		cb := &b.bufs[j]
		nulls := cb.nulls
		if c.kind == akNull {
			nulls = b.rows
		}
		nodes = append(nodes, [2]int64{int64(b.rows), int64(nulls)})
		if c.kind == akNull {
			continue
		}
		if cb.nulls == 0 {
			add(nil)
		} else {
			add(cb.valid)
		}
		if c.kind == akUtf8 || c.kind == akBinary {
			if b.rows == 0 {
				cb.offsets = binary.LittleEndian.AppendUint32(cb.offsets, 0)
			}
			add(cb.offsets)
		}
		add(cb.data)
	}
	header = ipcMessage(3, fbTable{fbI64(int64(b.rows)), fbRef(nodes), fbRef(bufs)}, len(body))
	b.rows = 0
	b.bufs = make([]colBufs, len(b.cols))
	return header, body
}
