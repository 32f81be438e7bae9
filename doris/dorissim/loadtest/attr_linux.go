package main

import "syscall"

// childAttr makes the kernel kill a child (simulator, server) when the
// load command dies, so an interrupted run leaves nothing behind.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
