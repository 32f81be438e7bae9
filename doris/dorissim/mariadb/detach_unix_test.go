//go:build unix

package mariadb_test

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, without a controlling
// terminal, so that what it prints goes to its output only.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
