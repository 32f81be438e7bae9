package semanticprovider

import (
	"strings"
	"time"
)

// grain is a standard time granularity, ordered from fine to coarse.
type grain int

const (
	grainNone grain = iota
	grainSecond
	grainMinute
	grainHour
	grainDay
	grainWeek
	grainMonth
	grainQuarter
	grainYear
)

var grainNames = [...]string{"", "second", "minute", "hour", "day", "week", "month", "quarter", "year"}

func (g grain) String() string { return grainNames[g] }

// parseGrain reads a granularity name as dbt writes it (lower case). The
// sub-second granularities dbt knows are reported separately so that they
// are refused as unsupported rather than unknown.
func parseGrain(s string) (g grain, known bool) {
	for i, n := range grainNames {
		if i > 0 && n == s {
			return grain(i), true
		}
	}
	switch s {
	case "nanosecond", "microsecond", "millisecond":
		return grainNone, true
	}
	return grainNone, false
}

// parseWindowGrain also accepts the plural ("months") that dbt allows in a
// window string.
func parseWindowGrain(s string) (grain, bool) {
	s = strings.ToLower(s)
	if g, ok := parseGrain(s); ok && g != grainNone {
		return g, true
	}
	if strings.HasSuffix(s, "s") {
		if g, ok := parseGrain(s[:len(s)-1]); ok && g != grainNone {
			return g, true
		}
	}
	return grainNone, false
}

// dividesInto reports whether every period of coarse is a whole number of
// periods of g (so that shifting a g-aligned time by whole coarse periods
// keeps it aligned): days divide weeks, months divide quarters and years.
func (g grain) dividesInto(coarse grain) bool {
	if g == coarse {
		return true
	}
	switch g {
	case grainSecond, grainMinute, grainHour, grainDay:
		return coarse > g
	case grainWeek:
		return false
	case grainMonth:
		return coarse == grainQuarter || coarse == grainYear
	case grainQuarter:
		return coarse == grainYear
	}
	return false
}

// intervalUnit is the Doris INTERVAL unit of a grain; a quarter and a week
// are written in months and days by the caller.
func (g grain) intervalUnit() string { return strings.ToUpper(g.String()) }

// truncate returns the start of the period of g that contains t, with
// Doris's DATE_TRUNC semantics (weeks start on Monday).
func truncate(t time.Time, g grain) time.Time {
	y, m, d := t.Date()
	switch g {
	case grainSecond:
		return t.Truncate(time.Second)
	case grainMinute:
		return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, time.UTC)
	case grainHour:
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, time.UTC)
	case grainDay:
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	case grainWeek:
		wd := (int(t.Weekday()) + 6) % 7 // Monday = 0
		return time.Date(y, m, d-wd, 0, 0, 0, 0, time.UTC)
	case grainMonth:
		return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	case grainQuarter:
		return time.Date(y, ((m-1)/3)*3+1, 1, 0, 0, 0, 0, time.UTC)
	case grainYear:
		return time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return t
}

// next returns the start of the period after the one that starts at t.
func next(t time.Time, g grain) time.Time {
	switch g {
	case grainSecond:
		return t.Add(time.Second)
	case grainMinute:
		return t.Add(time.Minute)
	case grainHour:
		return t.Add(time.Hour)
	case grainDay:
		return t.AddDate(0, 0, 1)
	case grainWeek:
		return t.AddDate(0, 0, 7)
	case grainMonth:
		return t.AddDate(0, 1, 0)
	case grainQuarter:
		return t.AddDate(0, 3, 0)
	case grainYear:
		return t.AddDate(1, 0, 0)
	}
	return t
}
