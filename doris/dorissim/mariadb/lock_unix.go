//go:build unix

package mariadb

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting: an error means
// another process holds it.
func tryLock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// killPID stops a process at once.
func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
