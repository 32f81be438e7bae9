package schema

import "math/big"

// decimal is a JSON number exactly as written: ±0.D × 10^exp, where D is
// its significant digits (no leading or trailing zeros; none for zero).
// JSON Schema compares and divides numbers as the decimals they are, not
// as the float64 nearest to them: 0.3 is a multiple of 0.1, and
// 0.10000000000000000001 is more than a maximum of 0.1. A decimal reads
// the digits in place, so comparing costs no allocation and time linear in
// the literal, whatever its exponent (big.Rat would compute 10^999999 for
// 1e-999999).
type decimal struct {
	lit        []byte // the mantissa: digits and at most one '.'
	start, end int    // the significant digits, lit[start:end] ('.' skipped)
	n          int    // how many significant digits
	exp        int64
	neg        bool
	// huge: the exponent was beyond ±maxExp and has been clamped; the
	// decimal is still ordered correctly against any ordinary number.
	huge bool
}

// maxExp clamps exponents: far beyond anything float64 or a schema bound
// can hold, far inside int64.
const maxExp = 1 << 50

// parseDecimal reads a JSON number literal (RFC 8259 grammar; anything else
// fails).
func parseDecimal(lit []byte) (decimal, bool) {
	lit = trimSpace(lit)
	var d decimal
	i := 0
	if i < len(lit) && lit[i] == '-' {
		d.neg = true
		i++
	}
	mant := i
	intDigits := 0
	for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
		i++
		intDigits++
	}
	if intDigits == 0 || intDigits > 1 && lit[mant] == '0' {
		return d, false
	}
	if i < len(lit) && lit[i] == '.' {
		i++
		frac := 0
		for i < len(lit) && lit[i] >= '0' && lit[i] <= '9' {
			i++
			frac++
		}
		if frac == 0 {
			return d, false
		}
	}
	d.lit = lit[mant:i]
	var e int64
	if i < len(lit) && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		eneg := false
		if i < len(lit) && (lit[i] == '+' || lit[i] == '-') {
			eneg = lit[i] == '-'
			i++
		}
		if i == len(lit) {
			return d, false
		}
		for ; i < len(lit); i++ {
			c := lit[i]
			if c < '0' || c > '9' {
				return d, false
			}
			if e < maxExp {
				e = e*10 + int64(c-'0')
			}
		}
		if e >= maxExp {
			e, d.huge = maxExp, true
		}
		if eneg {
			e = -e
		}
	}
	if i != len(lit) {
		return d, false
	}
	// 0.D × 10^exp: the exponent counts the integer digits, less the
	// leading zeros of the digits.
	d.exp = e + int64(intDigits)
	d.start, d.end = 0, len(d.lit)
	for d.start < d.end && (d.lit[d.start] == '0' || d.lit[d.start] == '.') {
		if d.lit[d.start] == '0' {
			d.exp--
		}
		d.start++
	}
	for d.end > d.start && (d.lit[d.end-1] == '0' || d.lit[d.end-1] == '.') {
		d.end--
	}
	for j := d.start; j < d.end; j++ {
		if d.lit[j] != '.' {
			d.n++
		}
	}
	if d.n == 0 {
		d.neg, d.exp, d.huge = false, 0, false
	}
	return d, true
}

func (d *decimal) zero() bool { return d.n == 0 }

// digits calls f with each significant digit's value, in order.
func (d *decimal) digits(f func(int)) {
	for j := d.start; j < d.end; j++ {
		if c := d.lit[j]; c != '.' {
			f(int(c - '0'))
		}
	}
}

// cmp compares two decimals: -1, 0 or +1.
func (d *decimal) cmp(o *decimal) int {
	switch {
	case d.zero() && o.zero():
		return 0
	case d.zero():
		if o.neg {
			return 1
		}
		return -1
	case o.zero():
		if d.neg {
			return -1
		}
		return 1
	case d.neg != o.neg:
		if d.neg {
			return -1
		}
		return 1
	}
	m := d.cmpMagnitude(o)
	if d.neg {
		return -m
	}
	return m
}

func (d *decimal) cmpMagnitude(o *decimal) int {
	if d.exp != o.exp {
		if d.exp < o.exp {
			return -1
		}
		return 1
	}
	i, j := d.start, o.start
	for {
		for i < d.end && d.lit[i] == '.' {
			i++
		}
		for j < o.end && o.lit[j] == '.' {
			j++
		}
		switch {
		case i == d.end && j == o.end:
			return 0
		case i == d.end:
			return -1
		case j == o.end:
			return 1
		case d.lit[i] != o.lit[j]:
			if d.lit[i] < o.lit[j] {
				return -1
			}
			return 1
		}
		i++
		j++
	}
}

// integer reports whether d has no fractional part.
func (d *decimal) integer() bool { return d.zero() || d.exp >= int64(d.n) }

// multipleOf reports whether d is an integer multiple of m (m > 0),
// exactly. With D and M the significant digits as integers, d/m is
// D/M × 10^k for k = (exp(d) - n(d)) - (exp(m) - n(m)). Neither D nor M
// ends in a zero, so for k < 0 the quotient is never an integer; for
// k >= 0 it is when M divides D × 10^k, which is computed modulo M.
func (d *decimal) multipleOf(m *decimal) bool {
	if d.zero() {
		return true
	}
	if d.huge || m.huge {
		return false // exponents beyond any exact use: refuse
	}
	k := (d.exp - int64(d.n)) - (m.exp - int64(m.n))
	if k < 0 {
		return false
	}
	if m.n <= 9 { // M < 10^9: every product below fits in a uint64
		var mod uint64
		m.digits(func(v int) { mod = mod*10 + uint64(v) })
		var r uint64
		d.digits(func(v int) { r = (r*10 + uint64(v)) % mod })
		return r*powMod(10, uint64(k), mod)%mod == 0
	}
	mod := new(big.Int)
	ten := big.NewInt(10)
	m.digits(func(v int) { mod.Mul(mod, ten).Add(mod, big.NewInt(int64(v))) })
	r := new(big.Int)
	d.digits(func(v int) { r.Mul(r, ten).Add(r, big.NewInt(int64(v))).Mod(r, mod) })
	p := new(big.Int).Exp(ten, big.NewInt(k), mod)
	return r.Mul(r, p).Mod(r, mod).Sign() == 0
}

// powMod is b^e mod m for m < 2^32.
func powMod(b, e, m uint64) uint64 {
	r := uint64(1) % m
	b %= m
	for e > 0 {
		if e&1 == 1 {
			r = r * b % m
		}
		b = b * b % m
		e >>= 1
	}
	return r
}
