//go:build unix

package doris_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// BenchmarkMaskingExecuteQuery1000Rows measures what masking costs a
// 1,000-row execute_query of customer-like rows (a phone, an e-mail and
// an identity number per row, plus ordinary columns), through the
// runtime's handler, with masking on and off, alternately; it reports
// the median and minimum of each and the overhead of the medians:
//
//	go test ./doris -run '^$' -bench MaskingExecuteQuery -benchtime 300x
func BenchmarkMaskingExecuteQuery1000Rows(b *testing.B) {
	e := doristest.NewEnv(b, doristest.EnvOpts{NoAudit: true})
	w := doristest.SearchWriter(b, e)
	var rows []string
	for i := 1; i <= 1000; i++ {
		rows = append(rows, fmt.Sprintf("(%d, 'Customer %d', 'customer.%d@example.com', '+1-555-%03d-%04d', '1101011990%08d', %d.%02d, '2024-01-%02d 10:30:00', 'order %d shipped to the warehouse')",
			i, i, i, i%1000, i, i, i*7, i%100, 1+i%28, 100000+i))
	}
	for _, q := range []string{"DROP TABLE IF EXISTS m_bench",
		"CREATE TABLE m_bench (id INT, full_name VARCHAR(64), email VARCHAR(64), phone VARCHAR(32), id_card VARCHAR(32), amount DECIMAL(12,2), created_at DATETIME, note VARCHAR(100)) DUPLICATE KEY(id)",
		"INSERT INTO m_bench VALUES " + strings.Join(rows, ", ")} {
		if _, err := w.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS m_bench") })
	call := &doris.Call{Domain: "doris_query", Child: "execute_query", Identity: e.ID,
		Args: json.RawMessage(`{"sql":"SELECT * FROM m_bench ORDER BY id","max_rows":1000}`)}
	// Two runtimes on the same simulator, run alternately so that the
	// load of a shared machine falls on both alike.
	handlers := map[bool]doris.Handler{}
	for _, on := range []bool{false, true} {
		e.Cfg.EnableMasking = on
		e.Open()
		handlers[on] = e.RT.Handler("doris_query", "execute_query")
	}
	ctx := context.Background()
	took := map[bool][]time.Duration{}
	cpu := map[bool][]time.Duration{}
	cpuTime := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, on := range []bool{false, true} {
			start, c0 := time.Now(), cpuTime()
			res, err := handlers[on](ctx, call)
			took[on] = append(took[on], time.Since(start))
			cpu[on] = append(cpu[on], cpuTime()-c0)
			if err != nil {
				b.Fatal(err)
			}
			if (res.Masking.MaskedValues == 3000) != on || res.Masking.Applied != on {
				b.Fatalf("masked %d values with masking %v", res.Masking.MaskedValues, on)
			}
		}
	}
	mean := func(d []time.Duration) time.Duration {
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		return sum / time.Duration(len(d))
	}
	median := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	off, on := median(took[false]), median(took[true])
	b.ReportMetric(float64(off.Microseconds()), "off-median-µs")
	b.ReportMetric(float64(on.Microseconds()), "on-median-µs")
	b.ReportMetric(float64(slices.Min(took[false]).Microseconds()), "off-min-µs")
	b.ReportMetric(float64(slices.Min(took[true]).Microseconds()), "on-min-µs")
	b.ReportMetric(100*float64(on-off)/float64(off), "overhead-%")
	// The process's CPU time (the server and the in-process simulator,
	// not MariaDB): less sensitive to a busy machine than wall time.
	cpuOff, cpuOn := mean(cpu[false]), mean(cpu[true])
	b.ReportMetric(float64(cpuOff.Microseconds()), "cpu-off-mean-µs")
	b.ReportMetric(float64(cpuOn.Microseconds()), "cpu-on-mean-µs")
	b.ReportMetric(100*float64(cpuOn-cpuOff)/float64(cpuOff), "cpu-overhead-%")
}
