//go:build !unix

package main

import "os"

// beHTTPSignals is empty where SIGUSR1 and SIGUSR2 do not exist.
func beHTTPSignals() []os.Signal { return nil }
