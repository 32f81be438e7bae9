//go:build unix

package main

import (
	"os"
	"syscall"
)

// beHTTPSignals are the signals that close (the first) and reopen (the
// second) the BE web server.
func beHTTPSignals() []os.Signal { return []os.Signal{syscall.SIGUSR1, syscall.SIGUSR2} }
