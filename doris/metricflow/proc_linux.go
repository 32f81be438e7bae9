//go:build linux

package metricflow

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the provider in a process group of its own, so that
// killGroup reaches everything it started, and has the kernel kill it if
// the server dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// groupRunning reports whether a process of group pgid is still running
// (a zombie waiting for its new parent to reap it does not count).
func groupRunning(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: the fields after the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid && pid != 0 {
			return true
		}
	}
	return false
}
