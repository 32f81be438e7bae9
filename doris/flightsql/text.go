package flightsql

import (
	"math"
	"math/big"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// This file renders decoded values the way Apache Doris writes the same
// values over its MySQL protocol, so that a row read over Arrow Flight SQL
// and one read over MySQL compare equal: integers in decimal, booleans as
// 1 and 0, decimals with exactly their scale's digits, dates as
// YYYY-MM-DD, datetimes as "YYYY-MM-DD HH:MM:SS" with the fraction the
// time unit carries, nested values in Doris's text form ([1, 2],
// {"k":1}, {"a":1, "b":"x"}) with strings and dates quoted inside them
// and null for a missing element.

// MySQLType is the type name a Doris column of this Arrow type reports
// over the MySQL protocol (the driver's database type name), which
// decides how the value is carried in JSON.
func (f *Field) MySQLType() string {
	t := f.Type
	switch t.ID {
	case TypeNull:
		return "NULL"
	case TypeBool:
		return "TINYINT"
	case TypeInt:
		name := map[int]string{8: "TINYINT", 16: "SMALLINT", 32: "INT", 64: "BIGINT"}[t.BitWidth]
		if !t.Signed {
			name = "UNSIGNED " + name
		}
		return name
	case TypeFloat:
		if t.BitWidth == 64 {
			return "DOUBLE"
		}
		return "FLOAT"
	case TypeDecimal:
		return "DECIMAL"
	case TypeDate:
		return "DATE"
	case TypeTimestamp:
		return "DATETIME"
	case TypeTime:
		return "TIME"
	case TypeBinary, TypeLargeBinary, TypeFixedSizeBinary:
		return "VARBINARY"
	}
	return "VARCHAR" // strings; Doris sends nested values and intervals as text
}

// AppendText appends row i of c as Doris's MySQL protocol writes it.
// null reports a NULL value (nothing is appended).
func (c *Column) AppendText(dst []byte, i int) (out []byte, null bool) {
	if c.IsNull(i) {
		return dst, true
	}
	return c.appendValue(dst, i, false), false
}

// appendValue appends row i; nested is true inside a list, map or struct,
// where strings, dates and datetimes are quoted.
func (c *Column) appendValue(dst []byte, i int, nested bool) []byte {
	t := c.Field.Type
	switch t.ID {
	case TypeNull:
		return append(dst, "null"...)
	case TypeBool:
		if c.Bool(i) {
			return append(dst, '1')
		}
		return append(dst, '0')
	case TypeInt:
		if t.Signed {
			return strconv.AppendInt(dst, c.Int(i), 10)
		}
		return strconv.AppendUint(dst, c.Uint(i), 10)
	case TypeFloat:
		return appendFloat(dst, c.Float(i), t.BitWidth)
	case TypeDecimal:
		return appendDecimal(dst, c.DecimalBytes(i), t.Scale)
	case TypeDuration:
		return strconv.AppendInt(dst, c.Int(i), 10)
	case TypeDate, TypeTimestamp, TypeTime:
		if nested {
			dst = append(dst, '"')
		}
		dst = c.appendTime(dst, i)
		if nested {
			dst = append(dst, '"')
		}
		return dst
	case TypeBinary, TypeLargeBinary, TypeFixedSizeBinary, TypeUtf8, TypeLargeUtf8:
		if nested {
			dst = append(dst, '"')
			dst = append(dst, c.Bytes(i)...)
			return append(dst, '"')
		}
		return append(dst, c.Bytes(i)...)
	case TypeList, TypeLargeList, TypeFixedSizeList:
		s, e := c.Range(i)
		ch := c.Children[0]
		dst = append(dst, '[')
		for j := s; j < e; j++ {
			if j > s {
				dst = append(dst, ", "...)
			}
			dst = ch.appendNested(dst, j)
		}
		return append(dst, ']')
	case TypeMap:
		s, e := c.Range(i)
		entries := c.Children[0]
		keys, vals := entries.Children[0], entries.Children[1]
		dst = append(dst, '{')
		for j := s; j < e; j++ {
			if j > s {
				dst = append(dst, ", "...)
			}
			dst = keys.appendNested(dst, j)
			dst = append(dst, ':')
			dst = vals.appendNested(dst, j)
		}
		return append(dst, '}')
	case TypeStruct:
		dst = append(dst, '{')
		for j, ch := range c.Children {
			if j > 0 {
				dst = append(dst, ", "...)
			}
			dst = append(dst, '"')
			dst = append(dst, ch.Field.Name...)
			dst = append(dst, `":`...)
			dst = ch.appendNested(dst, i)
		}
		return append(dst, '}')
	}
	return dst
}

func (c *Column) appendNested(dst []byte, i int) []byte {
	if c.IsNull(i) {
		return append(dst, "null"...)
	}
	return c.appendValue(dst, i, true)
}

func appendFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	if bits < 64 {
		bits = 32
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}

// appendDecimal appends a little-endian two's-complement integer scaled
// by 10^-scale, with exactly scale fraction digits.
func appendDecimal(dst []byte, le []byte, scale int) []byte {
	be := make([]byte, len(le))
	for i, b := range le {
		be[len(le)-1-i] = b
	}
	n := new(big.Int).SetBytes(be)
	if len(be) > 0 && be[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(be))))
	}
	if scale <= 0 {
		dst = n.Append(dst, 10)
		for range -scale {
			if n.Sign() != 0 {
				dst = append(dst, '0')
			}
		}
		return dst
	}
	neg := n.Sign() < 0
	digits := n.Abs(n).Append(nil, 10)
	for len(digits) <= scale {
		digits = append([]byte{'0'}, digits...)
	}
	if neg {
		dst = append(dst, '-')
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-scale:]...)
}

// appendTime appends a date, time or timestamp. Timestamps with a time
// zone are instants: they are shown as that zone's wall time, as Doris
// shows a DATETIME in the session's zone.
func (c *Column) appendTime(dst []byte, i int) []byte {
	t := c.Field.Type
	v := c.Int(i)
	switch t.ID {
	case TypeDate:
		if t.Unit == DateDay {
			return time.Unix(v*86400, 0).UTC().AppendFormat(dst, "2006-01-02")
		}
		return time.UnixMilli(v).UTC().AppendFormat(dst, "2006-01-02")
	case TypeTime:
		digits, per := unitDigits(t.Unit)
		secs, frac := v/per, v%per
		if frac < 0 {
			secs, frac = secs-1, frac+per
		}
		neg := secs < 0
		if neg {
			dst, secs = append(dst, '-'), -secs
		}
		dst = append(dst, pad(secs/3600, 2)...)
		dst = append(dst, ':')
		dst = append(dst, pad(secs/60%60, 2)...)
		dst = append(dst, ':')
		dst = append(dst, pad(secs%60, 2)...)
		if digits > 0 {
			dst = append(dst, '.')
			dst = append(dst, pad(frac, digits)...)
		}
		return dst
	}
	digits, per := unitDigits(t.Unit)
	secs, frac := v/per, v%per
	if frac < 0 {
		secs, frac = secs-1, frac+per
	}
	tm := time.Unix(secs, 0).UTC()
	if t.TimeZone != "" {
		tm = tm.In(location(t.TimeZone))
	}
	dst = tm.AppendFormat(dst, "2006-01-02 15:04:05")
	if digits > 0 {
		dst = append(dst, '.')
		dst = append(dst, pad(frac, digits)...)
	}
	return dst
}

func unitDigits(unit int) (digits int, per int64) {
	switch unit {
	case UnitMillisecond:
		return 3, 1e3
	case UnitMicrosecond:
		return 6, 1e6
	case UnitNanosecond:
		return 9, 1e9
	}
	return 0, 1
}

func pad(v int64, n int) []byte {
	s := strconv.AppendInt(nil, v, 10)
	for len(s) < n {
		s = append([]byte{'0'}, s...)
	}
	return s
}

var (
	zones     sync.Map // time zone name -> *time.Location
	zoneCount atomic.Int32
)

// location resolves an Arrow time zone: an IANA name or a fixed offset
// "+HH:MM"; an unknown one is UTC.
func location(name string) *time.Location {
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	loc := time.UTC
	if len(name) == 6 && (name[0] == '+' || name[0] == '-') && name[3] == ':' {
		h, err1 := strconv.Atoi(name[1:3])
		m, err2 := strconv.Atoi(name[4:6])
		if err1 == nil && err2 == nil && h <= 23 && m <= 59 {
			off := h*3600 + m*60
			if name[0] == '-' {
				off = -off
			}
			loc = time.FixedZone(name, off)
		}
	} else if l, err := time.LoadLocation(name); err == nil {
		loc = l
	}
	if zoneCount.Add(1) <= 256 { // bounded: zone names come from the server
		zones.Store(name, loc)
	}
	return loc
}
