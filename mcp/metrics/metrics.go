// Package metrics is the server's Prometheus instrumentation: a small
// registry of counters, gauges and histograms whose labels come only from
// fixed value sets, and a hand-written text exposition (format 0.0.4) for
// GET /metrics. It has no client library and no global state.
//
// Label cardinality is bounded by construction: a label's values are a
// Labels set fixed when the metric is created, and any other value (a
// child name or method a client made up) is counted under "other". A
// vector holds one atomic cell per combination of its labels' values,
// allocated up front, so recording is an index computation and an atomic
// add: no map is written and nothing is allocated per call.
package metrics

import (
	"bufio"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Other is the label value every value outside a label's set is folded
// into.
const Other = "other"

// Labels is one label's fixed set of values, always including Other.
type Labels struct {
	name   string
	values []string
	index  map[string]int
	other  int
}

// NewLabels returns the set of values label name may take: values (in
// that order, duplicates dropped) and Other.
func NewLabels(name string, values []string) *Labels {
	l := &Labels{name: name, index: make(map[string]int, len(values)+1)}
	for _, v := range append(append([]string(nil), values...), Other) {
		if _, dup := l.index[v]; !dup {
			l.index[v] = len(l.values)
			l.values = append(l.values, v)
		}
	}
	l.other = l.index[Other]
	return l
}

// Index returns the position of value v, or Other's when v is not in the
// set. It does not allocate.
func (l *Labels) Index(v string) int {
	if i, ok := l.index[v]; ok {
		return i
	}
	return l.other
}

// Len is the number of values, Other included.
func (l *Labels) Len() int { return len(l.values) }

// Value returns the value at index i.
func (l *Labels) Value(i int) string { return l.values[i] }

// desc names and describes one metric family.
type desc struct {
	name, help, typ string
	dims            []*Labels
}

// cells is the number of label combinations of d.
func (d *desc) cells() int {
	n := 1
	for _, l := range d.dims {
		n *= l.Len()
	}
	return n
}

// offset is the cell of a combination of label indexes (mixed radix,
// first label most significant).
func (d *desc) offset(idx []int) int {
	o := 0
	for k, l := range d.dims {
		o = o*l.Len() + idx[k]
	}
	return o
}

// labelPairs renders the labels of cell o as alternating names and
// values.
func (d *desc) labelPairs(o int, extra ...string) []string {
	pairs := make([]string, 2*len(d.dims), 2*len(d.dims)+len(extra))
	for k := len(d.dims) - 1; k >= 0; k-- {
		l := d.dims[k]
		pairs[2*k], pairs[2*k+1] = l.name, l.values[o%l.Len()]
		o /= l.Len()
	}
	return append(pairs, extra...)
}

// CounterVec is a counter per combination of its labels' values.
type CounterVec struct {
	desc
	v []atomic.Uint64
	// dense writes every combination, zeros included (for small sets a
	// dashboard expects to see); otherwise only those counted.
	dense bool
}

// Add adds n to the counter at the label indexes idx (one per label, from
// the Labels' Index).
func (c *CounterVec) Add(n uint64, idx ...int) { c.v[c.offset(idx)].Add(n) }

// Inc1 adds one to a one-label counter.
func (c *CounterVec) Inc1(i int) { c.v[i].Add(1) }

// Add1 adds n to a one-label counter.
func (c *CounterVec) Add1(i int, n uint64) { c.v[i].Add(n) }

// Inc2 adds one to a two-label counter.
func (c *CounterVec) Inc2(i, j int) { c.v[i*c.dims[1].Len()+j].Add(1) }

// Value returns the count at idx.
func (c *CounterVec) Value(idx ...int) uint64 { return c.v[c.offset(idx)].Load() }

func (c *CounterVec) write(w *Writer) {
	w.Family(c.name, c.help, c.typ)
	for o := range c.v {
		n := c.v[o].Load()
		if n == 0 && !c.dense {
			continue
		}
		w.sampleUint(c.name, n, c.labelPairs(o)...)
	}
}

// Gauge is a value set or moved atomically.
type Gauge struct {
	desc
	v atomic.Int64
}

// Add moves the gauge by n.
func (g *Gauge) Add(n int64) { g.v.Add(n) }

// Value returns the gauge.
func (g *Gauge) Value() int64 { return g.v.Load() }

func (g *Gauge) write(w *Writer) {
	w.Family(g.name, g.help, g.typ)
	w.Sample(g.name, float64(g.v.Load()))
}

// DurationBuckets are the default upper bounds, in seconds, of duration
// histograms: from a cached discovery (a millisecond) to the longest query
// the server allows (an hour).
var DurationBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600}

// HistogramVec is a duration histogram per combination of its labels'
// values. Only combinations observed at least once are written.
type HistogramVec struct {
	desc
	bounds []float64       // upper bounds in seconds, increasing
	limits []time.Duration // the same, as durations
	n      int             // counters per series: one per bound, +Inf, then the sum in nanoseconds
	v      []atomic.Uint64
}

// Observe records a duration at the label indexes idx.
func (h *HistogramVec) Observe(d time.Duration, idx ...int) { h.observe(h.offset(idx), d) }

// Observe1 records a duration in a one-label histogram.
func (h *HistogramVec) Observe1(i int, d time.Duration) { h.observe(i, d) }

func (h *HistogramVec) observe(o int, d time.Duration) {
	if d < 0 {
		d = 0
	}
	b := len(h.limits) // +Inf
	for i, l := range h.limits {
		if d <= l {
			b = i
			break
		}
	}
	base := o * h.n
	h.v[base+b].Add(1)
	h.v[base+h.n-1].Add(uint64(d))
}

// Count returns the observations at idx.
func (h *HistogramVec) Count(idx ...int) uint64 {
	base := h.offset(idx) * h.n
	var n uint64
	for i := 0; i <= len(h.bounds); i++ {
		n += h.v[base+i].Load()
	}
	return n
}

func (h *HistogramVec) write(w *Writer) {
	w.Family(h.name, h.help, "histogram")
	series := len(h.v) / h.n
	for o := 0; o < series; o++ {
		base := o * h.n
		var total uint64
		counts := make([]uint64, len(h.bounds)+1)
		for i := range counts {
			counts[i] = h.v[base+i].Load()
			total += counts[i]
		}
		if total == 0 {
			continue
		}
		var cum uint64
		for i, b := range h.bounds {
			cum += counts[i]
			w.sampleUint(h.name+"_bucket", cum, h.labelPairs(o, "le", formatFloat(b))...)
		}
		w.sampleUint(h.name+"_bucket", total, h.labelPairs(o, "le", "+Inf")...)
		w.Sample(h.name+"_sum", float64(h.v[base+h.n-1].Load())/1e9, h.labelPairs(o)...)
		w.sampleUint(h.name+"_count", total, h.labelPairs(o)...)
	}
}

// Registry holds metric families in the order they were added, and
// collectors that write families of their own when scraped.
type Registry struct {
	mu       sync.Mutex
	families []interface{ write(*Writer) }
	names    map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

func (r *Registry) add(name string, f interface{ write(*Writer) }) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.names[name] {
		panic("metrics: " + name + " registered twice")
	}
	r.names[name] = true
	r.families = append(r.families, f)
}

// Counter registers a counter vector over labels (none: one counter).
// dense counters write every label combination, zeros included.
func (r *Registry) Counter(name, help string, dense bool, labels ...*Labels) *CounterVec {
	c := &CounterVec{desc: desc{name: name, help: help, typ: "counter", dims: labels}, dense: dense || len(labels) == 0}
	c.v = make([]atomic.Uint64, c.cells())
	r.add(name, c)
	return c
}

// Gauge registers a gauge without labels.
func (r *Registry) Gauge(name, help string) *Gauge {
	g := &Gauge{desc: desc{name: name, help: help, typ: "gauge"}}
	r.add(name, g)
	return g
}

// Histogram registers a duration histogram vector with upper bounds in
// seconds (nil: DurationBuckets).
func (r *Registry) Histogram(name, help string, bounds []float64, labels ...*Labels) *HistogramVec {
	if bounds == nil {
		bounds = DurationBuckets
	}
	h := &HistogramVec{desc: desc{name: name, help: help, typ: "histogram", dims: labels}, bounds: bounds, n: len(bounds) + 2}
	for _, b := range bounds {
		h.limits = append(h.limits, time.Duration(b*float64(time.Second)))
	}
	h.v = make([]atomic.Uint64, h.cells()*h.n)
	r.add(name, h)
	return h
}

// collector writes families read at scrape time.
type collector func(w *Writer)

func (c collector) write(w *Writer) { c(w) }

// Collect registers f, called on every scrape to write families of its
// own (through Writer.Family and Writer.Sample). name identifies it.
func (r *Registry) Collect(name string, f func(w *Writer)) { r.add("collector:"+name, collector(f)) }

// WriteTo writes every family in the text exposition format.
func (r *Registry) WriteTo(out io.Writer) (int64, error) {
	r.mu.Lock()
	fams := append([]interface{ write(*Writer) }(nil), r.families...)
	r.mu.Unlock()
	w := &Writer{b: bufio.NewWriterSize(out, 32<<10)}
	for _, f := range fams {
		f.write(w)
	}
	err := w.b.Flush()
	return w.n, err
}

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the registry (GET and HEAD only).
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		w.Header().Set("Cache-Control", "no-store")
		if req.Method == http.MethodHead {
			return
		}
		r.WriteTo(w)
	})
}

// Writer writes the text exposition format.
type Writer struct {
	b *bufio.Writer
	n int64
}

func (w *Writer) str(s string) {
	n, _ := w.b.WriteString(s)
	w.n += int64(n)
}

// Family starts a family: its HELP and TYPE lines. typ is counter, gauge,
// histogram or untyped.
func (w *Writer) Family(name, help, typ string) {
	w.str("# HELP " + name + " " + escapeHelp(help) + "\n# TYPE " + name + " " + typ + "\n")
}

// Sample writes one sample: name, labels as alternating names and
// values, and the value.
func (w *Writer) Sample(name string, value float64, labels ...string) {
	w.sample(name, formatFloat(value), labels)
}

func (w *Writer) sampleUint(name string, value uint64, labels ...string) {
	w.sample(name, strconv.FormatUint(value, 10), labels)
}

func (w *Writer) sample(name, value string, labels []string) {
	w.str(name)
	if len(labels) > 0 {
		w.str("{")
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				w.str(",")
			}
			w.str(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
		}
		w.str("}")
	}
	w.str(" " + value + "\n")
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
