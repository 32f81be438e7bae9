package schema

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// ratOf is the reference: big.Rat reads a literal exactly (slowly, for
// large exponents).
func ratOf(t testing.TB, lit string) *big.Rat {
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", lit)
	}
	return r
}

func randomLiteral(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteByte('-')
	}
	digits := func(n int, lead bool) {
		for i := 0; i < n; i++ {
			c := byte('0' + rng.IntN(10))
			if lead && i == 0 && n > 1 && c == '0' {
				c = '1' + byte(rng.IntN(9))
			}
			if rng.IntN(3) == 0 {
				c = "0019"[rng.IntN(4)]
				if lead && i == 0 && n > 1 && c == '0' {
					c = '1'
				}
			}
			b.WriteByte(c)
		}
	}
	digits(1+rng.IntN(4), true)
	if rng.IntN(2) == 0 {
		b.WriteByte('.')
		digits(1+rng.IntN(5), false)
	}
	if rng.IntN(3) == 0 {
		b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[rng.IntN(5)])
		fmt.Fprint(&b, rng.IntN(30))
	}
	return b.String()
}

// TestDecimalAgreesWithRat: ordering, integrality and multipleOf agree
// with big.Rat on random literals near one another.
func TestDecimalAgreesWithRat(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 20000; i++ {
		a, b := randomLiteral(rng), randomLiteral(rng)
		checkDecimal(t, a, b)
	}
	for _, p := range [][2]string{{"0.3", "0.1"}, {"1e400", "5"}, {"1e400", "3"}, {"0", "-0.0"}, {"100", "1e2"},
		{"1.0", "1"}, {"0.0001e4", "1"}, {"123456789012345678901234567890", "3"}, {"4.02", "0.000000000001"},
		{"12345678901234567890.5", "0.5"}, {"7e-3", "0.0007"}, {"1", "10000000000"}} {
		checkDecimal(t, p[0], p[1])
	}
}

func checkDecimal(t *testing.T, a, b string) {
	t.Helper()
	da, ok1 := parseDecimal([]byte(a))
	db, ok2 := parseDecimal([]byte(b))
	if !ok1 || !ok2 {
		t.Fatalf("parseDecimal refused %q or %q", a, b)
	}
	ra, rb := ratOf(t, strings.Trim(a, " \t\r\n")), ratOf(t, strings.Trim(b, " \t\r\n"))
	if got, want := da.cmp(&db), ra.Cmp(rb); got != want {
		t.Fatalf("cmp(%s, %s) = %d, want %d", a, b, got, want)
	}
	if got, want := da.integer(), ra.IsInt(); got != want {
		t.Fatalf("integer(%s) = %v, want %v", a, got, want)
	}
	if rb.Sign() > 0 {
		want := new(big.Rat).Quo(ra, rb).IsInt()
		if got := da.multipleOf(&db); got != want {
			t.Fatalf("multipleOf(%s, %s) = %v, want %v", a, b, got, want)
		}
	}
}

func TestParseDecimalRefuses(t *testing.T) {
	for _, lit := range []string{"", "-", "01", "1.", ".1", "1e", "1e+", "+1", "0x1", "1.2.3", "1e5.5", "NaN", "--1", "1 2"} {
		if _, ok := parseDecimal([]byte(lit)); ok {
			t.Errorf("parseDecimal(%q) accepted", lit)
		}
	}
	// Huge exponents cost nothing and keep their order.
	huge, _ := parseDecimal([]byte("1e99999999999999999999999"))
	tiny, _ := parseDecimal([]byte("1e-99999999999999999999999"))
	one, _ := parseDecimal([]byte("1"))
	zero, _ := parseDecimal([]byte("0"))
	if huge.cmp(&one) != 1 || tiny.cmp(&one) != -1 || tiny.cmp(&zero) != 1 || huge.integer() != true {
		t.Error("huge exponents are misordered")
	}
}

// FuzzDecimal compares the decimal arithmetic with big.Rat on any two
// literals big.Rat can read quickly.
func FuzzDecimal(f *testing.F) {
	for _, p := range [][2]string{{"0.3", "0.1"}, {"19.99", "0.01"}, {"-1.1", "0.1"}, {"1e3", "2.5e2"}, {"0", "7"}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		da, ok1 := parseDecimal([]byte(a))
		db, ok2 := parseDecimal([]byte(b))
		if !ok1 || !ok2 || len(a) > 80 || len(b) > 80 || da.huge || db.huge ||
			abs(da.exp) > 2000 || abs(db.exp) > 2000 {
			return
		}
		for _, lit := range []string{a, b} {
			if _, ok := new(big.Rat).SetString(strings.Trim(lit, " \t\r\n")); !ok {
				return // an exponent big.Rat refuses (|e| > 1e6, even for zero)
			}
		}
		checkDecimal(t, a, b)
	})
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
