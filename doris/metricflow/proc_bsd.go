//go:build unix && !linux

package metricflow

import "syscall"

// sysProcAttr puts the provider in a process group of its own, so that
// killGroup reaches everything it started.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// groupRunning reports whether the group has members (zombies included:
// without /proc they cannot be told apart).
func groupRunning(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
