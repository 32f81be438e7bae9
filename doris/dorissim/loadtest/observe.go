//go:build unix

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// figures are the server process's resource figures at one moment.
// They come from the server's own GET /metrics when it answers
// (go_goroutines, process_resident_memory_bytes, process_open_fds), else
// from /proc; goroutines are then unknown (-1), since only the process
// itself can count them.
type figures struct {
	AtS        float64 `json:"at_s"`
	RSSMiB     float64 `json:"rss_mib"`
	Goroutines int     `json:"goroutines"` // -1: unknown
	FDs        int     `json:"fds"`
	Threads    int     `json:"threads"`
	Source     string  `json:"source"` // "metrics" or "proc"
}

// goroutineText is Goroutines for a table.
func (f figures) goroutineText() string {
	if f.Goroutines < 0 {
		return "unknown"
	}
	return strconv.Itoa(f.Goroutines)
}

// observer reads figures of one server process.
type observer struct {
	pid   int
	base  string // the server's URL
	hc    *http.Client
	start time.Time
}

func newObserver(pid int, base string, start time.Time) *observer {
	return &observer{pid: pid, base: base, start: start, hc: &http.Client{Timeout: 2 * time.Second}}
}

func (o *observer) read(ctx context.Context) figures {
	f := figures{AtS: time.Since(o.start).Seconds(), Goroutines: -1, FDs: -1, Source: "proc"}
	m := o.metrics(ctx)
	if v, ok := m["go_goroutines"]; ok {
		f.Goroutines, f.Source = int(v), "metrics"
	}
	if v, ok := m["process_resident_memory_bytes"]; ok {
		f.RSSMiB = v / (1 << 20)
	} else {
		f.RSSMiB = rssMiB(o.pid)
	}
	if v, ok := m["process_open_fds"]; ok {
		f.FDs = int(v)
	} else if ents, err := os.ReadDir("/proc/" + strconv.Itoa(o.pid) + "/fd"); err == nil {
		f.FDs = len(ents)
	}
	f.Threads = procStatusInt(o.pid, "Threads:")
	return f
}

// metrics reads the unlabelled samples of GET /metrics; nil when the
// endpoint does not answer 200 (a server without it).
func (o *observer) metrics(ctx context.Context) map[string]float64 {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.base+"/metrics", nil)
	if err != nil {
		return nil
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 8<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || strings.ContainsRune(line, '{') {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			out[f[0]] = v
		}
	}
	return out
}

// procStatusInt is an integer field of /proc/PID/status (0 if unread).
func procStatusInt(pid int, key string) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// sampler reads figures every interval until stopped, for a curve.
type sampler struct {
	stop chan struct{}
	done chan []figures
}

func (o *observer) sample(ctx context.Context, every time.Duration) *sampler {
	s := &sampler{stop: make(chan struct{}), done: make(chan []figures, 1)}
	go func() {
		var out []figures
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				s.done <- out
				return
			case <-ctx.Done():
				s.done <- out
				return
			case <-t.C:
				out = append(out, o.read(ctx))
			}
		}
	}()
	return s
}

func (s *sampler) finish() []figures {
	close(s.stop)
	return <-s.done
}
