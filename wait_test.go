package main

import "time"

// waitFor checks cond every interval until it holds, for at most timeout,
// and reports whether it held. It is for the state of another process
// (MariaDB's process list, a Prometheus server, the built binary) that
// offers nothing to wait on; what a process does offer (a flush, a
// channel, a ready line) is waited on directly instead. cond runs on the
// caller's goroutine, so it may call t.Fatal.
func waitFor(timeout, interval time.Duration, cond func() bool) bool {
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
