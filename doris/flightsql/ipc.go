package flightsql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// TypeID is an Arrow type, numbered as in the Type union of Schema.fbs.
type TypeID uint8

// The Arrow types of Schema.fbs.
const (
	TypeNull            TypeID = 1
	TypeInt             TypeID = 2
	TypeFloat           TypeID = 3
	TypeBinary          TypeID = 4
	TypeUtf8            TypeID = 5
	TypeBool            TypeID = 6
	TypeDecimal         TypeID = 7
	TypeDate            TypeID = 8
	TypeTime            TypeID = 9
	TypeTimestamp       TypeID = 10
	TypeInterval        TypeID = 11
	TypeList            TypeID = 12
	TypeStruct          TypeID = 13
	TypeUnion           TypeID = 14
	TypeFixedSizeBinary TypeID = 15
	TypeFixedSizeList   TypeID = 16
	TypeMap             TypeID = 17
	TypeDuration        TypeID = 18
	TypeLargeBinary     TypeID = 19
	TypeLargeUtf8       TypeID = 20
	TypeLargeList       TypeID = 21
)

// Time units of Date (Day=0, Millisecond=1), Time, Timestamp and
// Duration (Second=0 ... Nanosecond=3).
const (
	UnitSecond      = 0
	UnitMillisecond = 1
	UnitMicrosecond = 2
	UnitNanosecond  = 3
	DateDay         = 0
	DateMillisecond = 1
)

// Type is one Arrow type with its parameters.
type Type struct {
	ID TypeID
	// BitWidth of Int (8, 16, 32, 64), Decimal (128, 256), Time (32, 64);
	// Float: 16, 32 or 64.
	BitWidth int
	Signed   bool
	// Precision and Scale of Decimal.
	Precision, Scale int
	// Unit of Date, Time, Timestamp and Duration.
	Unit     int
	TimeZone string // Timestamp
	// ByteWidth of FixedSizeBinary; ListSize of FixedSizeList.
	ByteWidth, ListSize int
}

// Field is one column, or one child of a nested column.
type Field struct {
	Name     string
	Type     Type
	Nullable bool
	Children []Field
}

// Schema is a stream's columns.
type Schema struct {
	Fields []Field
}

// Bounds on a schema.
const (
	maxDepth  = 32
	maxFields = 4096 // in all, children included
)

// Message header types of Message.fbs.
const (
	headerSchema          = 1
	headerDictionaryBatch = 2
	headerRecordBatch     = 3
)

// parseMessage reads a Message flatbuffer: its header type, the header
// table and the body length it declares.
func parseMessage(b []byte) (f *fb, htype uint8, header int, bodyLen int64, err error) {
	f = &fb{b: b}
	m := f.root()
	if v := f.fieldI16(m, 0, 0); f.err == nil && v < 4 { // MetadataVersion V4 = 3 is pre-1.0: refused
		return nil, 0, 0, 0, fmt.Errorf("flightsql: IPC metadata version %d is not supported", v)
	}
	htype = f.fieldU8(m, 1, 0)
	header = f.fieldTable(m, 2)
	bodyLen = f.fieldI64(m, 3, 0)
	if f.err != nil {
		return nil, 0, 0, 0, f.err
	}
	if header < 0 {
		return nil, 0, 0, 0, errors.New("flightsql: IPC message without a header")
	}
	return f, htype, header, bodyLen, nil
}

// ParseSchemaMessage decodes a Schema message flatbuffer, or an
// encapsulated one (as FlightInfo.schema carries it: a continuation
// marker, a length, then the flatbuffer).
func ParseSchemaMessage(b []byte) (*Schema, error) {
	if len(b) >= 8 && binary.LittleEndian.Uint32(b) == 0xFFFFFFFF {
		n := binary.LittleEndian.Uint32(b[4:])
		if uint64(n) > uint64(len(b)-8) {
			return nil, errFlatbuf
		}
		b = b[8 : 8+n]
	}
	f, htype, h, _, err := parseMessage(b)
	if err != nil {
		return nil, err
	}
	if htype != headerSchema {
		return nil, fmt.Errorf("flightsql: expected a schema message, got header type %d", htype)
	}
	return parseSchema(f, h)
}

func parseSchema(f *fb, t int) (*Schema, error) {
	if e := f.fieldI16(t, 0, 0); e != 0 {
		return nil, errors.New("flightsql: big-endian IPC streams are not supported")
	}
	count := 0
	fields, err := parseFields(f, t, 1, 0, &count)
	if err != nil {
		return nil, err
	}
	return &Schema{Fields: fields}, nil
}

// parseFields reads the vector of Field tables at field i of table t.
func parseFields(f *fb, t, i, depth int, count *int) ([]Field, error) {
	if depth > maxDepth {
		return nil, errors.New("flightsql: schema nested too deeply")
	}
	s, n := f.fieldVector(t, i, 4)
	if f.err != nil {
		return nil, f.err
	}
	if *count += n; *count > maxFields {
		return nil, errors.New("flightsql: schema has too many fields")
	}
	out := make([]Field, 0, n)
	for j := range n {
		ft := f.vectorTable(s, j)
		fl := Field{Name: f.fieldString(ft, 0), Nullable: f.fieldU8(ft, 1, 0) != 0}
		if f.fieldTable(ft, 4) >= 0 {
			return nil, errors.New("flightsql: dictionary-encoded columns are not supported")
		}
		typ, err := parseType(f, f.fieldU8(ft, 2, 0), f.fieldTable(ft, 3))
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", fl.Name, err)
		}
		fl.Type = typ
		if fl.Children, err = parseFields(f, ft, 5, depth+1, count); err != nil {
			return nil, err
		}
		if f.err != nil {
			return nil, f.err
		}
		if err := checkChildren(&fl); err != nil {
			return nil, fmt.Errorf("column %q: %w", fl.Name, err)
		}
		out = append(out, fl)
	}
	return out, f.err
}

func parseType(f *fb, id uint8, t int) (Type, error) {
	typ := Type{ID: TypeID(id)}
	switch typ.ID {
	case TypeNull, TypeBinary, TypeUtf8, TypeBool, TypeList, TypeStruct, TypeLargeBinary, TypeLargeUtf8, TypeLargeList, TypeMap:
	case TypeInt:
		typ.BitWidth = int(f.fieldI32(t, 0, 0))
		typ.Signed = f.fieldU8(t, 1, 0) != 0
		if b := typ.BitWidth; b != 8 && b != 16 && b != 32 && b != 64 {
			return typ, fmt.Errorf("flightsql: integer width %d", b)
		}
	case TypeFloat:
		switch f.fieldI16(t, 0, 0) {
		case 0:
			typ.BitWidth = 16
		case 1:
			typ.BitWidth = 32
		case 2:
			typ.BitWidth = 64
		default:
			return typ, errors.New("flightsql: unknown float precision")
		}
	case TypeDecimal:
		typ.Precision = int(f.fieldI32(t, 0, 0))
		typ.Scale = int(f.fieldI32(t, 1, 0))
		typ.BitWidth = int(f.fieldI32(t, 2, 128))
		if typ.BitWidth != 128 && typ.BitWidth != 256 || typ.Scale < -100 || typ.Scale > 100 || typ.Precision < 1 || typ.Precision > 76 {
			return typ, errors.New("flightsql: unsupported decimal parameters")
		}
	case TypeDate:
		typ.Unit = int(f.fieldI16(t, 0, DateMillisecond))
		if typ.Unit != DateDay && typ.Unit != DateMillisecond {
			return typ, errors.New("flightsql: unknown date unit")
		}
	case TypeTime:
		typ.Unit = int(f.fieldI16(t, 0, UnitMillisecond))
		typ.BitWidth = int(f.fieldI32(t, 1, 32))
		if typ.Unit < 0 || typ.Unit > 3 || typ.BitWidth != 32 && typ.BitWidth != 64 {
			return typ, errors.New("flightsql: unsupported time parameters")
		}
	case TypeTimestamp, TypeDuration:
		typ.Unit = int(f.fieldI16(t, 0, 0))
		if typ.ID == TypeTimestamp {
			typ.TimeZone = f.fieldString(t, 1)
		}
		if typ.Unit < 0 || typ.Unit > 3 {
			return typ, errors.New("flightsql: unknown time unit")
		}
	case TypeFixedSizeBinary:
		typ.ByteWidth = int(f.fieldI32(t, 0, 0))
		if typ.ByteWidth < 1 || typ.ByteWidth > 1<<20 {
			return typ, errors.New("flightsql: unsupported fixed-size binary width")
		}
	case TypeFixedSizeList:
		typ.ListSize = int(f.fieldI32(t, 0, 0))
		if typ.ListSize < 0 || typ.ListSize > 1<<20 {
			return typ, errors.New("flightsql: unsupported fixed-size list size")
		}
	default:
		return typ, fmt.Errorf("flightsql: Arrow type %d is not supported", id)
	}
	return typ, f.err
}

func checkChildren(fl *Field) error {
	want := 0
	switch fl.Type.ID {
	case TypeList, TypeLargeList, TypeFixedSizeList:
		want = 1
	case TypeMap:
		if len(fl.Children) != 1 || fl.Children[0].Type.ID != TypeStruct || len(fl.Children[0].Children) != 2 {
			return errors.New("flightsql: a map's child must be a struct of key and value")
		}
		return nil
	case TypeStruct:
		return nil
	}
	if len(fl.Children) != want {
		return fmt.Errorf("flightsql: %d children for Arrow type %d", len(fl.Children), fl.Type.ID)
	}
	return nil
}

// Column is one decoded column of a record batch. Its buffers are
// checked against its length when it is decoded, so that reading any row
// below Len cannot go out of bounds.
type Column struct {
	Field    *Field
	Len      int
	Nulls    int
	validity []byte
	offsets  []byte // int32 or int64 offsets (lists, binaries, strings, maps)
	data     []byte
	Children []*Column
}

// IsNull reports whether row i is null.
func (c *Column) IsNull(i int) bool {
	if c.Field.Type.ID == TypeNull {
		return true
	}
	if c.Nulls == 0 || c.validity == nil {
		return false
	}
	return c.validity[i>>3]&(1<<(i&7)) == 0
}

// Batch is one decoded record batch.
type Batch struct {
	Rows    int
	Columns []*Column
	// Size is the bytes of its message and body.
	Size int
}

// recordBatch decodes a RecordBatch header and its body against schema.
func decodeRecordBatch(f *fb, t int, body []byte, schema *Schema) (*Batch, error) {
	length := f.fieldI64(t, 0, 0)
	ns, nn := f.fieldVector(t, 1, 16)
	bs, nb := f.fieldVector(t, 2, 16)
	if f.fieldTable(t, 3) >= 0 {
		return nil, errors.New("flightsql: compressed record batches are not supported")
	}
	if f.err != nil {
		return nil, f.err
	}
	if length < 0 || length > math.MaxInt32 {
		return nil, errors.New("flightsql: record batch length out of range")
	}
	d := &batchDecoder{f: f, ns: ns, nn: nn, bs: bs, nb: nb, body: body}
	b := &Batch{Rows: int(length), Size: len(f.b) + len(body)}
	for i := range schema.Fields {
		c, err := d.column(&schema.Fields[i])
		if err != nil {
			return nil, err
		}
		if c.Len != b.Rows {
			return nil, errors.New("flightsql: column length differs from the batch length")
		}
		b.Columns = append(b.Columns, c)
	}
	return b, nil
}

type batchDecoder struct {
	f              *fb
	ns, nn, bs, nb int
	node, buf      int
	body           []byte
}

func (d *batchDecoder) nextNode() (length, nulls int, err error) {
	if d.node >= d.nn {
		return 0, 0, errors.New("flightsql: record batch has too few field nodes")
	}
	p := d.ns + 16*d.node
	d.node++
	l, n := int64(d.f.u64(p)), int64(d.f.u64(p+8))
	if l < 0 || l > math.MaxInt32 || n < 0 || n > l {
		return 0, 0, errors.New("flightsql: field node out of range")
	}
	return int(l), int(n), nil
}

func (d *batchDecoder) nextBuffer() ([]byte, error) {
	if d.buf >= d.nb {
		return nil, errors.New("flightsql: record batch has too few buffers")
	}
	p := d.bs + 16*d.buf
	d.buf++
	off, l := d.f.u64(p), d.f.u64(p+8)
	if off > uint64(len(d.body)) || l > uint64(len(d.body))-off {
		return nil, errors.New("flightsql: buffer outside the message body")
	}
	return d.body[off : off+l], nil
}

func (d *batchDecoder) column(fl *Field) (*Column, error) {
	length, nulls, err := d.nextNode()
	if err != nil {
		return nil, err
	}
	c := &Column{Field: fl, Len: length, Nulls: nulls}
	t := fl.Type
	if t.ID == TypeNull {
		return c, nil // no buffers
	}
	if c.validity, err = d.nextBuffer(); err != nil {
		return nil, err
	}
	if nulls > 0 && len(c.validity) < (length+7)/8 {
		return nil, errors.New("flightsql: validity bitmap too short")
	}
	if len(c.validity) < (length+7)/8 {
		c.validity = nil // no nulls: the bitmap may be omitted
	}
	switch t.ID {
	case TypeInt, TypeFloat, TypeDecimal, TypeDate, TypeTime, TypeTimestamp, TypeDuration, TypeFixedSizeBinary, TypeBool:
		if c.data, err = d.nextBuffer(); err != nil {
			return nil, err
		}
		var need uint64
		if t.ID == TypeBool {
			need = uint64(length+7) / 8
		} else {
			need = uint64(length) * uint64(fixedWidth(t))
		}
		if uint64(len(c.data)) < need {
			return nil, errors.New("flightsql: data buffer too short")
		}
	case TypeBinary, TypeUtf8, TypeLargeBinary, TypeLargeUtf8:
		if c.offsets, err = d.nextBuffer(); err != nil {
			return nil, err
		}
		if c.data, err = d.nextBuffer(); err != nil {
			return nil, err
		}
		if err := c.checkOffsets(len(c.data)); err != nil {
			return nil, err
		}
	case TypeList, TypeLargeList, TypeMap:
		if c.offsets, err = d.nextBuffer(); err != nil {
			return nil, err
		}
		child, err := d.column(&fl.Children[0])
		if err != nil {
			return nil, err
		}
		c.Children = []*Column{child}
		if err := c.checkOffsets(child.Len); err != nil {
			return nil, err
		}
	case TypeFixedSizeList:
		child, err := d.column(&fl.Children[0])
		if err != nil {
			return nil, err
		}
		if uint64(child.Len) < uint64(length)*uint64(t.ListSize) {
			return nil, errors.New("flightsql: fixed-size list child too short")
		}
		c.Children = []*Column{child}
	case TypeStruct:
		for i := range fl.Children {
			child, err := d.column(&fl.Children[i])
			if err != nil {
				return nil, err
			}
			if child.Len < length {
				return nil, errors.New("flightsql: struct child too short")
			}
			c.Children = append(c.Children, child)
		}
	default:
		return nil, fmt.Errorf("flightsql: Arrow type %d is not supported", t.ID)
	}
	return c, nil
}

func fixedWidth(t Type) int {
	switch t.ID {
	case TypeInt, TypeFloat, TypeDecimal, TypeTime:
		return t.BitWidth / 8
	case TypeDate:
		if t.Unit == DateDay {
			return 4
		}
		return 8
	case TypeTimestamp, TypeDuration:
		return 8
	case TypeFixedSizeBinary:
		return t.ByteWidth
	}
	return 0
}

func (c *Column) large() bool {
	switch c.Field.Type.ID {
	case TypeLargeBinary, TypeLargeUtf8, TypeLargeList:
		return true
	}
	return false
}

// checkOffsets checks that the offsets are long enough, never decrease
// and stay within limit.
func (c *Column) checkOffsets(limit int) error {
	w := 4
	if c.large() {
		w = 8
	}
	if c.Len == 0 && len(c.offsets) == 0 {
		return nil
	}
	if uint64(len(c.offsets)) < uint64(c.Len+1)*uint64(w) {
		return errors.New("flightsql: offsets buffer too short")
	}
	prev := int64(-1)
	for i := 0; i <= c.Len; i++ {
		o := c.offset(i)
		if o < 0 || o < prev || o > int64(limit) {
			return errors.New("flightsql: offsets out of range")
		}
		prev = o
	}
	return nil
}

func (c *Column) offset(i int) int64 {
	if c.large() {
		return int64(binary.LittleEndian.Uint64(c.offsets[8*i:]))
	}
	return int64(int32(binary.LittleEndian.Uint32(c.offsets[4*i:])))
}

// Range returns the [start, end) child (or data) range of row i of a
// list, map, binary or string column.
func (c *Column) Range(i int) (start, end int) {
	if c.Field.Type.ID == TypeFixedSizeList {
		n := c.Field.Type.ListSize
		return i * n, (i + 1) * n
	}
	if len(c.offsets) == 0 {
		return 0, 0
	}
	return int(c.offset(i)), int(c.offset(i + 1))
}

// Bytes returns row i of a binary, string or fixed-size binary column.
func (c *Column) Bytes(i int) []byte {
	if c.Field.Type.ID == TypeFixedSizeBinary {
		w := c.Field.Type.ByteWidth
		return c.data[i*w : (i+1)*w]
	}
	s, e := c.Range(i)
	return c.data[s:e]
}

// Int returns row i of a signed integer, date, time, timestamp or
// duration column.
func (c *Column) Int(i int) int64 {
	switch fixedWidth(c.Field.Type) {
	case 1:
		return int64(int8(c.data[i]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(c.data[2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(c.data[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(c.data[8*i:]))
}

// Uint returns row i of an unsigned integer column.
func (c *Column) Uint(i int) uint64 {
	switch c.Field.Type.BitWidth {
	case 8:
		return uint64(c.data[i])
	case 16:
		return uint64(binary.LittleEndian.Uint16(c.data[2*i:]))
	case 32:
		return uint64(binary.LittleEndian.Uint32(c.data[4*i:]))
	}
	return binary.LittleEndian.Uint64(c.data[8*i:])
}

// Float returns row i of a floating-point column.
func (c *Column) Float(i int) float64 {
	switch c.Field.Type.BitWidth {
	case 16:
		return halfToFloat(binary.LittleEndian.Uint16(c.data[2*i:]))
	case 32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(c.data[4*i:])))
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(c.data[8*i:]))
}

// Bool returns row i of a boolean column.
func (c *Column) Bool(i int) bool { return c.data[i>>3]&(1<<(i&7)) != 0 }

// DecimalBytes returns row i of a decimal column: 16 or 32 bytes, a
// little-endian two's-complement integer.
func (c *Column) DecimalBytes(i int) []byte {
	w := c.Field.Type.BitWidth / 8
	return c.data[i*w : (i+1)*w]
}

func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * frac * math.Pow(2, -24)
	case 31:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}
