//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// logScan reads the server's JSON log lines as they are written and keeps
// what a run reports: how many lines of each level, and how many
// warnings and errors of each kind (level, message, reason and error
// only: never the whole line).
type logScan struct {
	mu      sync.Mutex
	partial []byte
	levels  map[string]int
	kinds   map[string]int
	tee     io.Writer // the whole log, when set
}

// maxLogKinds bounds the distinct warning kinds kept.
const maxLogKinds = 40

func newLogScan() *logScan { return &logScan{levels: map[string]int{}, kinds: map[string]int{}} }

func (l *logScan) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tee != nil {
		l.tee.Write(p)
	}
	buf := append(l.partial, p...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		l.line(buf[:i])
		buf = buf[i+1:]
	}
	if len(buf) > 64<<10 { // a line this long is not a log line: drop it
		buf = buf[:0]
	}
	l.partial = append(l.partial[:0], buf...)
	return len(p), nil
}

func (l *logScan) line(b []byte) {
	// Most lines are INFO: skip decoding them.
	if bytes.Contains(b, []byte(`"level":"INFO"`)) {
		l.levels["INFO"]++
		return
	}
	var e struct {
		Level  string `json:"level"`
		Msg    string `json:"msg"`
		Err    any    `json:"err"`
		Reason string `json:"reason"`
	}
	if json.Unmarshal(b, &e) != nil || e.Level == "" {
		l.levels["unparsed"]++
		return
	}
	l.levels[e.Level]++
	if e.Level == "WARN" || e.Level == "ERROR" {
		s := e.Level + " " + e.Msg
		if e.Reason != "" {
			s += " reason=" + e.Reason
		}
		if e.Err != nil {
			if b, err := json.Marshal(e.Err); err == nil {
				s += " err=" + string(b)
			}
		}
		if len(s) > 300 {
			s = s[:300]
		}
		if _, ok := l.kinds[s]; ok || len(l.kinds) < maxLogKinds {
			l.kinds[s]++
		}
	}
}

// logSummary is what the server logged during a run.
type logSummary struct {
	Levels   map[string]int `json:"levels"`
	Warnings map[string]int `json:"warnings,omitempty"` // by level, message, reason and error
}

func (l *logScan) summary() logSummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	lv := map[string]int{}
	for k, v := range l.levels {
		lv[k] = v
	}
	kinds := map[string]int{}
	for k, v := range l.kinds {
		kinds[k] = v
	}
	return logSummary{Levels: lv, Warnings: kinds}
}
