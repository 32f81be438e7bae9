package metrics

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestLabelsFoldUnknownValues(t *testing.T) {
	l := NewLabels("child", []string{"doris_query.execute_query", "doris_catalog.list_tables", "doris_query.execute_query"})
	if l.Len() != 3 {
		t.Fatalf("%d values, want the two names and other", l.Len())
	}
	for _, v := range []string{"", "other", "x\"}\n# HELP", strings.Repeat("a", 1<<16), "DORIS_QUERY.EXECUTE_QUERY"} {
		if got := l.Value(l.Index(v)); got != Other {
			t.Errorf("Index(%.20q) is %q, want %q", v, got, Other)
		}
	}
	if got := l.Value(l.Index("doris_catalog.list_tables")); got != "doris_catalog.list_tables" {
		t.Errorf("a known value folded into %q", got)
	}
}

func TestExposition(t *testing.T) {
	r := NewRegistry()
	method := NewLabels("method", []string{"tools/call"})
	outcome := NewLabels("outcome", []string{"OK", "ERR"})
	c := r.Counter("x_calls_total", "Calls,\nwith a newline and a \\ backslash.", false, method, outcome)
	c.Inc2(method.Index("tools/call"), outcome.Index("OK"))
	c.Add(2, method.Index("made/up"), outcome.Index("ERR"))
	h := r.Histogram("x_duration_seconds", "Durations.", []float64{0.01, 0.1}, method)
	for _, d := range []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond, time.Second} {
		h.Observe1(method.Index("tools/call"), d)
	}
	g := r.Gauge("x_in_flight", "In flight.")
	g.Add(3)
	g.Add(-1)
	r.Collect("extra", func(w *Writer) {
		w.Family("x_route_info", "A label value to escape.", "gauge")
		w.Sample("x_route_info", 1, "route", "a\"b\\c\nd")
	})
	var out bytes.Buffer
	if _, err := r.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	want := `# HELP x_calls_total Calls,\nwith a newline and a \\ backslash.
# TYPE x_calls_total counter
x_calls_total{method="tools/call",outcome="OK"} 1
x_calls_total{method="other",outcome="ERR"} 2
# HELP x_duration_seconds Durations.
# TYPE x_duration_seconds histogram
x_duration_seconds_bucket{method="tools/call",le="0.01"} 2
x_duration_seconds_bucket{method="tools/call",le="0.1"} 3
x_duration_seconds_bucket{method="tools/call",le="+Inf"} 4
x_duration_seconds_sum{method="tools/call"} 1.065
x_duration_seconds_count{method="tools/call"} 4
# HELP x_in_flight In flight.
# TYPE x_in_flight gauge
x_in_flight 2
# HELP x_route_info A label value to escape.
# TYPE x_route_info gauge
x_route_info{route="a\"b\\c\nd"} 1
`
	if out.String() != want {
		t.Errorf("exposition:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	r := NewRegistry()
	r.Gauge("x", "x")
	defer func() {
		if recover() == nil {
			t.Error("a second family of the same name was accepted")
		}
	}()
	r.Gauge("x", "x")
}

// TestRecordingDoesNotAllocate: the per-call path is index lookups and
// atomic adds.
func TestRecordingDoesNotAllocate(t *testing.T) {
	r := NewRegistry()
	child := NewLabels("child", []string{"a.b", "c.d"})
	outcome := NewLabels("outcome", []string{"OK"})
	c := r.Counter("c_total", "c", false, child, outcome)
	h := r.Histogram("h_seconds", "h", nil, child)
	name := strings.Repeat("x", 3) // not a constant
	if n := testing.AllocsPerRun(1000, func() {
		i := child.Index(name)
		c.Inc2(i, outcome.Index("OK"))
		c.Add(1, i, 0)
		h.Observe1(i, time.Millisecond)
	}); n != 0 {
		t.Errorf("recording allocates %v times per call", n)
	}
}

func BenchmarkRecordCall(b *testing.B) {
	r := NewRegistry()
	child := NewLabels("child", []string{"doris_query.execute_query", "doris_catalog.list_tables"})
	outcome := NewLabels("outcome", []string{"OK", "CHILD_EXECUTION_FAILED"})
	c := r.Counter("c_total", "c", false, child, outcome)
	h := r.Histogram("h_seconds", "h", nil, child)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := child.Index("doris_query.execute_query")
			c.Inc2(i, outcome.Index("OK"))
			h.Observe1(i, 3*time.Millisecond)
		}
	})
}
