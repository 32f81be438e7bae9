//go:build unix

package metricflow

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// killGroup kills the provider's whole process group: the provider and
// anything it started that did not leave the group. The group id is the
// provider's pid (Setpgid). When the provider has already been reaped, the
// group lives on only while a descendant does; an empty group gets ESRCH.
// (In principle a new process could take the same id as its own group in
// the moment between reaping and this call; Linux hands out pids in
// sequence up to pid_max, so it does not happen in practice.)
//
// SIGKILL is delivered asynchronously: killGroup waits, briefly, until
// the group is empty, so that a request does not return while processes
// it started still run.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	for i := 0; i < 200; i++ { // at most about a second
		if !groupRunning(p.Pid) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return err
}
