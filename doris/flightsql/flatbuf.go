package flightsql

import (
	"encoding/binary"
	"errors"
)

// fb reads flatbuffers tables from one buffer. Every read is bounds
// checked; the first failure is kept in err and later reads return zero
// values, so a decoder checks err once per message.
type fb struct {
	b   []byte
	err error
}

var errFlatbuf = errors.New("flightsql: malformed flatbuffer")

func (f *fb) fail() {
	if f.err == nil {
		f.err = errFlatbuf
	}
}

func (f *fb) u32(p int) uint32 {
	if p < 0 || p > len(f.b)-4 {
		f.fail()
		return 0
	}
	return binary.LittleEndian.Uint32(f.b[p:])
}

func (f *fb) u16(p int) uint16 {
	if p < 0 || p > len(f.b)-2 {
		f.fail()
		return 0
	}
	return binary.LittleEndian.Uint16(f.b[p:])
}

func (f *fb) u64(p int) uint64 {
	if p < 0 || p > len(f.b)-8 {
		f.fail()
		return 0
	}
	return binary.LittleEndian.Uint64(f.b[p:])
}

func (f *fb) u8(p int) uint8 {
	if p < 0 || p >= len(f.b) {
		f.fail()
		return 0
	}
	return f.b[p]
}

// deref follows the uoffset at p; -1 on failure.
func (f *fb) deref(p int) int {
	off := f.u32(p)
	if f.err != nil {
		return -1
	}
	q := p + int(off)
	if off > uint32(len(f.b)) || q >= len(f.b) {
		f.fail()
		return -1
	}
	return q
}

// root is the root table's position.
func (f *fb) root() int { return f.deref(0) }

// field returns the absolute position of field i of the table at t, or
// 0 when the field is absent.
func (f *fb) field(t, i int) int {
	if t < 0 {
		return 0
	}
	so := int32(f.u32(t))
	vt := t - int(so)
	if f.err != nil || vt < 0 || vt > len(f.b)-4 {
		f.fail()
		return 0
	}
	vsize := int(f.u16(vt))
	if vsize < 4 || vsize&1 != 0 {
		f.fail()
		return 0
	}
	slot := 4 + 2*i
	if slot >= vsize {
		return 0
	}
	off := int(f.u16(vt + slot))
	if off == 0 {
		return 0
	}
	return t + off
}

func (f *fb) fieldU8(t, i int, def uint8) uint8 {
	if p := f.field(t, i); p != 0 {
		return f.u8(p)
	}
	return def
}

func (f *fb) fieldI16(t, i int, def int16) int16 {
	if p := f.field(t, i); p != 0 {
		return int16(f.u16(p))
	}
	return def
}

func (f *fb) fieldI32(t, i int, def int32) int32 {
	if p := f.field(t, i); p != 0 {
		return int32(f.u32(p))
	}
	return def
}

func (f *fb) fieldI64(t, i int, def int64) int64 {
	if p := f.field(t, i); p != 0 {
		return int64(f.u64(p))
	}
	return def
}

// fieldTable is the table field i points to, or -1 when absent.
func (f *fb) fieldTable(t, i int) int {
	p := f.field(t, i)
	if p == 0 {
		return -1
	}
	return f.deref(p)
}

// fieldVector returns the start and length of vector field i (elements
// of elemSize bytes), checked to fit the buffer; n = 0 when absent.
func (f *fb) fieldVector(t, i, elemSize int) (start, n int) {
	p := f.field(t, i)
	if p == 0 {
		return 0, 0
	}
	v := f.deref(p)
	if v < 0 {
		return 0, 0
	}
	l := f.u32(v)
	if f.err != nil || uint64(l)*uint64(elemSize) > uint64(len(f.b)-v-4) {
		f.fail()
		return 0, 0
	}
	return v + 4, int(l)
}

func (f *fb) fieldString(t, i int) string {
	s, n := f.fieldVector(t, i, 1)
	if n == 0 {
		return ""
	}
	return string(f.b[s : s+n])
}

// vectorTable is element j of a vector of tables starting at s.
func (f *fb) vectorTable(s, j int) int { return f.deref(s + 4*j) }
