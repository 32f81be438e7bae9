package sim_test

import (
	"testing"
	"time"
)

// pollUntil checks cond every interval until it holds, for at most
// timeout, and reports whether it held. The simulator runs on real time
// over real connections to MariaDB, so what a test waits for there (a
// statement listed, a scheduled task run, a goroutine gone) is a
// condition checked again, never a fixed sleep; where the simulator has a
// hook (SyncAudit), tests use that instead.
func pollUntil(timeout, interval time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		select {
		case <-deadline.C:
			return cond()
		case <-tick.C:
		}
	}
}

// eventually polls f until it returns "" (the condition holds) or 20 s
// pass; the last complaint fails the test.
func eventually(t *testing.T, f func() string) {
	t.Helper()
	var msg string
	if !pollUntil(20*time.Second, 50*time.Millisecond, func() bool { msg = f(); return msg == "" }) {
		t.Fatal(msg)
	}
}

// waitFor polls cond until it holds, for at most 15 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	if !pollUntil(15*time.Second, 50*time.Millisecond, cond) {
		t.Fatal("condition not met within 15 s")
	}
}
