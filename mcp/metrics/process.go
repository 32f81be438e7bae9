package metrics

import (
	"bytes"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"strconv"
	"time"
)

// Build identifies the running binary for doris_mcp_build_info.
type Build struct {
	Version, Revision, GoVersion string
}

// ProcessCollector registers the process and Go runtime metrics, under
// the names Prometheus's own clients use (process_*, go_*), and
// doris_mcp_build_info. started is when the process started.
func (r *Registry) ProcessCollector(started time.Time, b Build) {
	r.Collect("process", func(w *Writer) {
		w.Family("doris_mcp_build_info", "The running build: version, VCS revision and Go version (always 1).", "gauge")
		w.Sample("doris_mcp_build_info", 1, "version", b.Version, "revision", b.Revision, "goversion", b.GoVersion)

		w.Family("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", "gauge")
		w.Sample("process_start_time_seconds", float64(started.UnixNano())/1e9)
		if rss, vsz, ok := memory(); ok {
			w.Family("process_resident_memory_bytes", "Resident memory size, in bytes.", "gauge")
			w.Sample("process_resident_memory_bytes", rss)
			w.Family("process_virtual_memory_bytes", "Virtual memory size, in bytes.", "gauge")
			w.Sample("process_virtual_memory_bytes", vsz)
		}
		if n, ok := openFDs(); ok {
			w.Family("process_open_fds", "Open file descriptors.", "gauge")
			w.Sample("process_open_fds", float64(n))
		}
		if n, ok := maxFDs(); ok {
			w.Family("process_max_fds", "The limit on open file descriptors.", "gauge")
			w.Sample("process_max_fds", n)
		}
		if cpu, ok := cpuSeconds(); ok {
			w.Family("process_cpu_seconds_total", "User and system CPU time spent, in seconds.", "counter")
			w.Sample("process_cpu_seconds_total", cpu)
		}

		w.Family("go_info", "The Go version the binary was built with (always 1).", "gauge")
		w.Sample("go_info", 1, "version", runtime.Version())
		w.Family("go_goroutines", "Goroutines that currently exist.", "gauge")
		w.Sample("go_goroutines", float64(runtime.NumGoroutine()))
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		w.Family("go_memstats_heap_alloc_bytes", "Heap bytes allocated and still in use.", "gauge")
		w.Sample("go_memstats_heap_alloc_bytes", float64(ms.HeapAlloc))
		w.Family("go_memstats_sys_bytes", "Bytes obtained from the operating system.", "gauge")
		w.Sample("go_memstats_sys_bytes", float64(ms.Sys))
		w.Family("go_memstats_next_gc_bytes", "Heap size at which the next garbage collection runs.", "gauge")
		w.Sample("go_memstats_next_gc_bytes", float64(ms.NextGC))
		w.Family("go_gc_cycles_total", "Completed garbage collection cycles.", "counter")
		w.sampleUint("go_gc_cycles_total", uint64(ms.NumGC))
		w.Family("go_gc_pause_seconds_total", "Total stop-the-world pause time of garbage collection, in seconds.", "counter")
		w.Sample("go_gc_pause_seconds_total", float64(ms.PauseTotalNs)/1e9)
		if ms.LastGC > 0 {
			w.Family("go_memstats_last_gc_time_seconds", "When the last garbage collection finished, since the Unix epoch, in seconds.", "gauge")
			w.Sample("go_memstats_last_gc_time_seconds", float64(ms.LastGC)/1e9)
		}
		gogc := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}}
		if rtmetrics.Read(gogc); gogc[0].Value.Kind() == rtmetrics.KindUint64 {
			w.Family("go_gc_gogc_percent", "The GOGC setting.", "gauge")
			w.Sample("go_gc_gogc_percent", float64(gogc[0].Value.Uint64()))
		}
	})
}

// memory reads resident and virtual size from /proc/self/statm (Linux);
// ok is false elsewhere.
func memory() (rss, vsz float64, ok bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, 0, false
	}
	pages, err1 := strconv.ParseUint(string(f[0]), 10, 64)
	res, err2 := strconv.ParseUint(string(f[1]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	ps := float64(os.Getpagesize())
	return float64(res) * ps, float64(pages) * ps, true
}

// openFDs counts /proc/self/fd (Linux); ok is false elsewhere.
func openFDs() (int, bool) {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0, false
	}
	return len(names) - 1, true // the directory itself is open while listed
}
