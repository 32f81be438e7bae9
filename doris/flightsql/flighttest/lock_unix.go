//go:build unix

package flighttest

import (
	"os"
	"syscall"
)

// lock holds an exclusive lock on f until the returned func is called:
// test binaries of several packages build the peer one at a time.
func lock(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
