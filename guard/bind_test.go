package guard_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

func TestBind(t *testing.T) {
	tests := []struct {
		sql    string
		params map[string]any
		want   string
	}{
		{"SELECT 1", nil, "SELECT 1"},
		{"SELECT * FROM t WHERE id = %(id)s", map[string]any{"id": 42}, "SELECT * FROM t WHERE id = 42"},
		{"SELECT %(s)s", map[string]any{"s": "it's"}, "SELECT 'it''s'"},
		{"SELECT %(s)s", map[string]any{"s": `a\b`}, `SELECT 'a\\b'`},
		{"SELECT %(s)s", map[string]any{"s": `\'`}, `SELECT '\\'''`},
		{"SELECT %(s)s", map[string]any{"s": "a\x00b\nc\rd\x1ae"}, `SELECT 'a\0b\nc\rd\Ze'`},
		{"SELECT %(s)s", map[string]any{"s": "'; DROP TABLE t; --"}, "SELECT '''; DROP TABLE t; --'"},
		{"SELECT %(s)s", map[string]any{"s": "/*! x */ %(t)s ?"}, "SELECT '/*! x */ %(t)s ?'"},
		{"SELECT %(s)s", map[string]any{"s": "名前"}, "SELECT '名前'"},
		{"SELECT %(b)s, %(c)s, %(n)s", map[string]any{"b": true, "c": false, "n": nil}, "SELECT TRUE, FALSE, NULL"},
		{"SELECT %(a)s + %(a)s", map[string]any{"a": int8(-3)}, "SELECT -3 + -3"},
		{"SELECT 1-%(a)s", map[string]any{"a": -3}, "SELECT 1- -3"},
		{"SELECT %(u)s", map[string]any{"u": uint64(math.MaxUint64)}, "SELECT 18446744073709551615"},
		{"SELECT %(f)s", map[string]any{"f": 2.5}, "SELECT 2.5"},
		{"SELECT %(f)s", map[string]any{"f": 1e21}, "SELECT 1000000000000000000000"},
		{"SELECT %(f)s", map[string]any{"f": math.Copysign(0, -1)}, "SELECT 0"},
		{"SELECT %(f)s", map[string]any{"f": float32(0.1)}, "SELECT 0.1"},
		{"SELECT %(j)s", map[string]any{"j": json.Number("1e5")}, "SELECT 100000"},
		{"SELECT %(j)s", map[string]any{"j": json.Number("-1.25E-3")}, "SELECT -0.00125"},
		{"SELECT %(j)s", map[string]any{"j": json.Number("12.500")}, "SELECT 12.500"},
		{"SELECT %(j)s", map[string]any{"j": json.Number("0e10")}, "SELECT 0"},
		{"SELECT %(j)s", map[string]any{"j": json.Number("123456789012345678901234567890")}, "SELECT 123456789012345678901234567890"},
		{"SELECT %(j)s", map[string]any{"j": json.Number("1.5e1")}, "SELECT 15"},
		{"SELECT x%(a)s", map[string]any{"a": 1}, "SELECT x 1"},
		{"SELECT %(a)s%(b)s", map[string]any{"a": "x", "b": "y"}, "SELECT 'x' 'y'"},
		{"SELECT * FROM t WHERE a IN (%(a)s,%(b)s)", map[string]any{"a": 1, "b": 2}, "SELECT * FROM t WHERE a IN (1,2)"},
		{"SELECT * FROM t LIMIT %(n)s", map[string]any{"n": json.Number("10")}, "SELECT * FROM t LIMIT 10"},
	}
	for _, tt := range tests {
		st, err := guard.Bind(tt.sql, tt.params)
		if err != nil {
			t.Errorf("Bind(%q, %v) = %v", tt.sql, tt.params, err)
			continue
		}
		got := st.SQL
		if got != tt.want {
			t.Errorf("Bind(%q, %v)\n got %q\nwant %q", tt.sql, tt.params, got, tt.want)
		}
		if _, err := guard.Check(got); err != nil {
			t.Errorf("bound text %q refused: %v", got, err)
		}
	}
}

func TestBindRefuses(t *testing.T) {
	const secret = "s3cr3t-value"
	tests := []struct {
		sql    string
		params map[string]any
		reason string
	}{
		{"DROP TABLE t", nil, guard.ReasonWriteStatement},
		{"SELECT %(a)s", nil, guard.ReasonMissingParameter},
		{"SELECT %(a)s, %(b)s", map[string]any{"a": 1}, guard.ReasonMissingParameter},
		{"SELECT %(a)s", map[string]any{"a": 1, "b": 2}, guard.ReasonUnknownParameter},
		{"SELECT 1", map[string]any{"a": secret}, guard.ReasonUnknownParameter},
		{"SELECT %(a)s", map[string]any{"a": math.NaN()}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": math.Inf(1)}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": float32(math.Inf(-1))}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": map[string]any{"k": secret}}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": []any{secret}}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": []byte(secret)}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": struct{}{}}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": "bad \xff " + secret}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number(secret)}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number("01")}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number("1.")}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number("+1")}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number("1e")}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number("NaN")}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number("1e999999")}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": json.Number("")}, guard.ReasonInvalidParameterValue},
		{"SELECT %(a)s", map[string]any{"a": strings.Repeat("x", guard.MaxLen)}, guard.ReasonTooLong},
	}
	for _, tt := range tests {
		_, err := guard.Bind(tt.sql, tt.params)
		var ge *guard.Error
		if !errors.As(err, &ge) || ge.Reason != tt.reason {
			t.Errorf("Bind(%q) = %v, want %s", tt.sql, err, tt.reason)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "\xff") {
			t.Errorf("Bind(%q) error %q echoes a value", tt.sql, err)
		}
	}
}
