//go:build !unix

package metricflow

import (
	"os"
	"syscall"
)

// Without process groups, only the provider itself is killed.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}

func sysProcAttr() *syscall.SysProcAttr { return nil }
