package cluster

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// feSample and beSample are /metrics bodies in the shapes Doris serves:
// the FE with HELP lines and ", " between labels, the BE with TYPE lines
// only and "," between labels.
const feSample = `# HELP doris_fe_query_total total query
# TYPE doris_fe_query_total counter
doris_fe_query_total 1284
# HELP doris_fe_query_latency_ms query latency
# TYPE doris_fe_query_latency_ms summary
doris_fe_query_latency_ms{quantile="0.75"} 12
doris_fe_query_latency_ms{quantile="0.99", user="root"} 940
doris_fe_query_latency_ms_sum 20213
doris_fe_query_latency_ms_count 1284
# HELP jvm_heap_size_bytes jvm heap stat
# TYPE jvm_heap_size_bytes gauge
jvm_heap_size_bytes{type="max"} 8589934592
jvm_heap_size_bytes{type="used"} 5.4e+08
node_info{type="is_master"} 1
`

const beSample = "# TYPE doris_be_memory_allocated_bytes gauge\n" +
	"doris_be_memory_allocated_bytes 1610612736\r\n" +
	"# TYPE doris_be_file_cache_hits_ratio gauge\n" +
	"doris_be_file_cache_hits_ratio{path=\"/opt/doris/be/file_cache/\"} 0.853963\n" +
	"doris_be_cpu{device=\"cpu\",mode=\"user\"} 1834561\n" +
	"doris_be_compaction_bytes_total{type=\"base\",} 104857600 1737460114345\n"

func TestParsePrometheus(t *testing.T) {
	lim := metricsLimits(1 << 20)
	got, st, err := parsePrometheus([]byte(feSample+beSample), lim, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []promSample{
		{Name: "doris_fe_query_total", Value: 1284},
		{Name: "doris_fe_query_latency_ms", Labels: []promLabel{{"quantile", "0.75"}}, Value: 12},
		{Name: "doris_fe_query_latency_ms", Labels: []promLabel{{"quantile", "0.99"}, {"user", "root"}}, Value: 940},
		{Name: "doris_fe_query_latency_ms_sum", Value: 20213},
		{Name: "doris_fe_query_latency_ms_count", Value: 1284},
		{Name: "jvm_heap_size_bytes", Labels: []promLabel{{"type", "max"}}, Value: 8589934592},
		{Name: "jvm_heap_size_bytes", Labels: []promLabel{{"type", "used"}}, Value: 5.4e8},
		{Name: "node_info", Labels: []promLabel{{"type", "is_master"}}, Value: 1},
		{Name: "doris_be_memory_allocated_bytes", Value: 1610612736},
		{Name: "doris_be_file_cache_hits_ratio", Labels: []promLabel{{"path", "/opt/doris/be/file_cache/"}}, Value: 0.853963},
		{Name: "doris_be_cpu", Labels: []promLabel{{"device", "cpu"}, {"mode", "user"}}, Value: 1834561},
		{Name: "doris_be_compaction_bytes_total", Labels: []promLabel{{"type", "base"}}, Value: 104857600},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if st.Malformed != 0 || st.Dropped != 0 || st.Truncated {
		t.Fatalf("stats %+v, want nothing skipped", st)
	}
}

func TestParsePrometheusLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string
		want  *promSample // nil: the line is refused
		value float64
	}{
		{name: "escapes", line: `m{a="x\"y\\z\nw"} 1`, want: &promSample{Name: "m", Labels: []promLabel{{"a", "x\"y\\z\nw"}}, Value: 1}},
		{name: "colon name", line: `a:b_c 2`, want: &promSample{Name: "a:b_c", Value: 2}},
		{name: "empty labels", line: `m{} 3`, want: &promSample{Name: "m", Value: 3}},
		{name: "spaces in labels", line: `m{ a = "1" , b="2" } -4.5`, want: &promSample{Name: "m", Labels: []promLabel{{"a", "1"}, {"b", "2"}}, Value: -4.5}},
		{name: "positive infinity", line: `m +Inf`, value: math.Inf(1)},
		{name: "NaN", line: `m NaN`, value: math.NaN()},
		{name: "no value", line: `m`},
		{name: "unclosed labels", line: `m{a="1" 2`},
		{name: "unquoted label", line: `m{a=1} 2`},
		{name: "bad escape", line: `m{a="\t"} 2`},
		{name: "hex float", line: `m 0x1p3`},
		{name: "underscore number", line: `m 1_000`},
		{name: "word value", line: `m infinity`},
		{name: "bad timestamp", line: `m 1 soon`},
		{name: "three fields", line: `m 1 2 3`},
		{name: "digit first", line: `1m 2`},
		{name: "label digit first", line: `m{1a="x"} 2`},
		{name: "invalid utf-8", line: "m{a=\"\xff\"} 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parsePromLine([]byte(tc.line), 16)
			refused := tc.want == nil && tc.value == 0
			if refused {
				if err == nil {
					t.Fatalf("parsePromLine(%q) = %+v, want an error", tc.line, s)
				}
				return
			}
			if err != nil {
				t.Fatalf("parsePromLine(%q): %v", tc.line, err)
			}
			if tc.want != nil && !reflect.DeepEqual(s, *tc.want) {
				t.Fatalf("got %+v, want %+v", s, *tc.want)
			}
			if tc.want == nil && !(s.Value == tc.value || math.IsNaN(tc.value) && math.IsNaN(s.Value)) {
				t.Fatalf("value %v, want %v", s.Value, tc.value)
			}
		})
	}
}

func TestParsePrometheusBounds(t *testing.T) {
	lim := promLimits{MaxBytes: 1 << 16, MaxLine: 64, MaxSeries: 3, MaxLabels: 2}
	t.Run("body over MaxBytes", func(t *testing.T) {
		_, _, err := parsePrometheus(make([]byte, lim.MaxBytes+1), lim, nil)
		if !errors.Is(err, errPromTooLarge) {
			t.Fatalf("got %v, want errPromTooLarge", err)
		}
	})
	t.Run("long line, many labels, series cap", func(t *testing.T) {
		body := "long" + strings.Repeat("x", 80) + " 1\n" +
			`three{a="1",b="2",c="3"} 1` + "\n" +
			"a 1\nb 2\nc 3\nd 4\n"
		got, st, err := parsePrometheus([]byte(body), lim, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[2].Name != "c" || st.Dropped != 2 || !st.Truncated {
			t.Fatalf("got %+v, stats %+v; want a, b, c kept, 2 dropped, truncated", got, st)
		}
	})
	t.Run("keep filters before the cap", func(t *testing.T) {
		got, st, err := parsePrometheus([]byte("x 1\ny 2\nx 3\nz 4\nx 5\n"), lim, func(n string) bool { return n == "x" })
		if err != nil || len(got) != 3 || st.Truncated {
			t.Fatalf("got %+v %+v %v, want the three x samples", got, st, err)
		}
	})
	t.Run("not Prometheus text", func(t *testing.T) {
		_, _, err := parsePrometheus([]byte("<html><body>502 Bad Gateway</body></html>\n"), lim, nil)
		if !errors.Is(err, errPromNotText) {
			t.Fatalf("got %v, want errPromNotText", err)
		}
	})
	t.Run("empty body", func(t *testing.T) {
		got, _, err := parsePrometheus(nil, lim, nil)
		if err != nil || len(got) != 0 {
			t.Fatalf("got %v %v, want nothing and no error", got, err)
		}
	})
}

// FuzzParsePrometheus: for any body, parsePrometheus does not panic, keeps
// its bounds, returns only well-formed names and valid UTF-8 labels, and
// gives the same answer twice.
func FuzzParsePrometheus(f *testing.F) {
	f.Add(feSample)
	f.Add(beSample)
	f.Add("m{a=\"\\\"\"} NaN 1\n# comment\n\r\n")
	f.Add("m{a=\"1\",} -Inf\nm{ } 1e308\n")
	lim := promLimits{MaxBytes: 1 << 16, MaxLine: 512, MaxSeries: 64, MaxLabels: 4}
	f.Fuzz(func(t *testing.T, body string) {
		got, st, err := parsePrometheus([]byte(body), lim, nil)
		again, st2, err2 := parsePrometheus([]byte(body), lim, nil)
		if !reflect.DeepEqual(st, st2) || (err == nil) != (err2 == nil) || len(got) != len(again) {
			t.Fatalf("not deterministic for %q", body)
		}
		if err != nil {
			if got != nil {
				t.Fatalf("samples returned with error %v", err)
			}
			return
		}
		if len(got) > lim.MaxSeries {
			t.Fatalf("%d samples kept, cap %d", len(got), lim.MaxSeries)
		}
		for _, s := range got {
			if s.Name == "" || len(s.Name) > lim.MaxLine || len(s.Labels) > lim.MaxLabels {
				t.Fatalf("sample %+v breaks the bounds", s)
			}
			for i := 0; i < len(s.Name); i++ {
				if !isPromNameByte(s.Name[i], i == 0) {
					t.Fatalf("name %q", s.Name)
				}
			}
			for _, l := range s.Labels {
				if l.Name == "" || !utf8.ValidString(l.Value) || len(l.Value) > lim.MaxLine {
					t.Fatalf("label %+v", l)
				}
			}
			if v := jsonNumber(s.Value); v != nil {
				if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
					t.Fatalf("jsonNumber(%v) = %v", s.Value, v)
				}
			}
		}
	})
}

// BenchmarkParsePrometheus parses a BE-sized body (about 1200 series),
// keeping the allowlisted families.
func BenchmarkParsePrometheus(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 100; i++ {
		sb.WriteString(beSample)
		sb.WriteString(feSample)
	}
	body := []byte(sb.String())
	lim := metricsLimits(8 << 20)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := parsePrometheus(body, lim, func(n string) bool { return allowed("be", n) }); err != nil {
			b.Fatal(err)
		}
	}
}
