package cluster

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A small reader of the Prometheus text exposition format (version 0.0.4),
// which FE and BE /metrics serve. It is written for bodies that come from
// the network and are not trusted: the body, every line, the number of
// kept series and the labels of a sample are bounded, and only the metric
// families the caller keeps are stored. Lines it cannot read are counted
// and skipped, never guessed at.

// promLimits bound what parsePrometheus reads.
type promLimits struct {
	MaxBytes  int // the whole body
	MaxLine   int // one line, in bytes
	MaxSeries int // samples kept (after the keep filter)
	MaxLabels int // labels of one sample
}

// metricsLimits are generous for a Doris node (a BE serves a few
// thousand lines of under 200 bytes) and small for this server; maxBytes
// is the HTTP response cap (DORIS_HTTP_MAX_RESPONSE_BYTES).
func metricsLimits(maxBytes int) promLimits {
	return promLimits{MaxBytes: maxBytes, MaxLine: 4096, MaxSeries: 4096, MaxLabels: 16}
}

// promLabel is one label pair.
type promLabel struct{ Name, Value string }

// promSample is one series' current value.
type promSample struct {
	Name   string
	Labels []promLabel
	Value  float64
}

// label returns the value of the named label, or "".
func (s *promSample) label(name string) string {
	for _, l := range s.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// promStats says what a parse skipped.
type promStats struct {
	Lines     int  // lines read
	Malformed int  // sample lines that could not be read
	Dropped   int  // samples with too many labels or an overlong line
	Truncated bool // MaxSeries was reached; later samples were not kept
}

var (
	errPromTooLarge = errors.New("doris: metrics body exceeds its size limit")
	errPromNotText  = errors.New("doris: metrics body is not Prometheus text")
)

// parsePrometheus reads body and returns the samples whose metric name
// keep accepts (keep nil keeps all). It fails only when the body is over
// MaxBytes, or when it has content but not one readable sample line (an
// HTML error page, a JSON answer).
func parsePrometheus(body []byte, lim promLimits, keep func(name string) bool) ([]promSample, promStats, error) {
	var st promStats
	if len(body) > lim.MaxBytes {
		return nil, st, errPromTooLarge
	}
	var out []promSample
	good := 0
	for len(body) > 0 {
		var line []byte
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			line, body = body, nil
		}
		st.Lines++
		line = bytes.TrimRight(line, "\r")
		if len(line) > lim.MaxLine {
			st.Dropped++
			continue
		}
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		s, err := parsePromLine(line, lim.MaxLabels)
		if errors.Is(err, errPromLabels) {
			good++
			st.Dropped++
			continue
		}
		if err != nil {
			st.Malformed++
			continue
		}
		good++
		if keep != nil && !keep(s.Name) {
			continue
		}
		if len(out) >= lim.MaxSeries {
			st.Truncated = true
			continue
		}
		out = append(out, s)
	}
	if good == 0 && st.Malformed > 0 {
		return nil, st, errPromNotText
	}
	return out, st, nil
}

var (
	errPromLine   = errors.New("malformed sample line")
	errPromLabels = errors.New("too many labels")
)

// parsePromLine reads `name{l="v",...} value [timestamp]`.
func parsePromLine(line []byte, maxLabels int) (promSample, error) {
	var s promSample
	i := 0
	for i < len(line) && isPromNameByte(line[i], i == 0) {
		i++
	}
	if i == 0 {
		return s, errPromLine
	}
	s.Name = string(line[:i])
	if j := skipBlank(line, i); j < len(line) && line[j] == '{' {
		i = j + 1
		for {
			i = skipBlank(line, i)
			if i < len(line) && line[i] == '}' {
				i++
				break
			}
			start := i
			for i < len(line) && isPromLabelByte(line[i], i == start) {
				i++
			}
			if i == start {
				return s, errPromLine
			}
			name := string(line[start:i])
			i = skipBlank(line, i)
			if i >= len(line) || line[i] != '=' {
				return s, errPromLine
			}
			i = skipBlank(line, i+1)
			value, n, ok := readPromString(line[i:])
			if !ok {
				return s, errPromLine
			}
			i += n
			if len(s.Labels) == maxLabels {
				return s, errPromLabels
			}
			s.Labels = append(s.Labels, promLabel{name, value})
			i = skipBlank(line, i)
			if i < len(line) && line[i] == ',' {
				i++
				continue
			}
			if i < len(line) && line[i] == '}' {
				i++
				break
			}
			return s, errPromLine
		}
	}
	if i >= len(line) || (line[i] != ' ' && line[i] != '\t') {
		return s, errPromLine
	}
	value, rest := nextField(line, skipBlank(line, i))
	ts, rest := nextField(line, skipBlank(line, rest))
	if len(value) == 0 || skipBlank(line, rest) != len(line) {
		return s, errPromLine
	}
	v, err := parsePromValue(string(value))
	if err != nil {
		return s, errPromLine
	}
	if len(ts) > 0 {
		if _, err := strconv.ParseInt(string(ts), 10, 64); err != nil {
			return s, errPromLine
		}
	}
	s.Value = v
	return s, nil
}

// nextField returns the bytes from i up to the next blank, and where it
// ended.
func nextField(b []byte, i int) ([]byte, int) {
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], j
}

func skipBlank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

func isPromNameByte(c byte, first bool) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

func isPromLabelByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// readPromString reads a double-quoted label value with the escapes \\,
// \" and \n; it returns the value and the bytes consumed. A value that is
// not valid UTF-8 is refused.
func readPromString(b []byte) (string, int, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", 0, false
	}
	if end := bytes.IndexByte(b[1:], '"'); end >= 0 && bytes.IndexByte(b[1:1+end], '\\') < 0 {
		v := string(b[1 : 1+end])
		if !utf8.ValidString(v) {
			return "", 0, false
		}
		return v, end + 2, true
	}
	var sb strings.Builder
	for i := 1; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			v := sb.String()
			if !utf8.ValidString(v) {
				return "", 0, false
			}
			return v, i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return "", 0, false
			}
			i++
			switch b[i] {
			case '\\':
				sb.WriteByte('\\')
			case '"':
				sb.WriteByte('"')
			case 'n':
				sb.WriteByte('\n')
			default:
				return "", 0, false
			}
		default:
			sb.WriteByte(c)
		}
	}
	return "", 0, false
}

// parsePromValue reads a sample value: a Go float, or NaN, +Inf, -Inf.
func parsePromValue(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "+Inf", "Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	}
	// Refuse the forms ParseFloat accepts that Prometheus text does not
	// (hex floats, underscores, "infinity").
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, errPromLine
		}
	}
	return strconv.ParseFloat(s, 64)
}

// jsonNumber is v for JSON, or nil for NaN and infinities (which JSON
// cannot carry).
func jsonNumber(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return int64(v)
	}
	return v
}
