package semanticprovider

import (
	"strings"
	"time"
)

// parseTime reads start_time or end_time: an ISO 8601 date, or a date and
// time with an optional fraction and an optional UTC offset of zero. Doris
// DATETIME values carry no zone, so a non-zero offset would make the
// bound a guess; it is refused.
func parseTime(s string) (time.Time, *Error) {
	if len(s) > 64 {
		return time.Time{}, fail(ReasonTimeInvalid, "time longer than 64 bytes")
	}
	v := strings.Replace(s, " ", "T", 1)
	switch {
	case strings.HasSuffix(v, "Z"):
		v = strings.TrimSuffix(v, "Z")
	case strings.HasSuffix(v, "+00:00"):
		v = strings.TrimSuffix(v, "+00:00")
	case strings.HasSuffix(v, "+0000"):
		v = strings.TrimSuffix(v, "+0000")
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	if i := strings.LastIndexAny(v, "+-"); i > 10 {
		return time.Time{}, fail(ReasonTimeInvalid, "only UTC times (Z or +00:00) are accepted")
	}
	return time.Time{}, fail(ReasonTimeInvalid, "not an ISO 8601 date or date and time")
}

// timeLiteral writes a bound as Doris compares it: a date when it is
// midnight, else a date and time.
func timeLiteral(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02 15:04:05")
}

// timeRange is the half-open interval [lo, hi) of metric_time, widened to
// whole periods of the query's granularity, as MetricFlow adjusts it.
type timeRange struct {
	lo, hi time.Time
	hasLo  bool
	hasHi  bool
}

func makeRange(start, end *string, g grain) (timeRange, *Error) {
	var r timeRange
	if start != nil {
		t, err := parseTime(*start)
		if err != nil {
			return r, err
		}
		r.lo, r.hasLo = truncate(t, g), true
	}
	if end != nil {
		t, err := parseTime(*end)
		if err != nil {
			return r, err
		}
		r.hi, r.hasHi = next(truncate(t, g), g), true
	}
	if r.hasLo && r.hasHi && !r.lo.Before(r.hi) {
		return r, fail(ReasonTimeInvalid, "start_time is after end_time")
	}
	return r, nil
}

// conds returns the conditions that keep x within the range.
func (r timeRange) conds(p *params, x string) []string {
	var out []string
	if r.hasLo {
		out = append(out, x+" >= "+p.str(timeLiteral(r.lo)))
	}
	if r.hasHi {
		out = append(out, x+" < "+p.str(timeLiteral(r.hi)))
	}
	return out
}
