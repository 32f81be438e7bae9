package metrics

import "syscall"

// maxFDs: Windows has handles, not a descriptor limit: the metric is left
// out.
func maxFDs() (float64, bool) { return 0, false }

// cpuSeconds is the user and kernel CPU time the process has spent
// (GetProcessTimes, in 100 ns units).
func cpuSeconds() (float64, bool) {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, false
	}
	var created, exited, kernel, user syscall.Filetime
	if syscall.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0, false
	}
	ticks := func(f syscall.Filetime) float64 { return float64(uint64(f.HighDateTime)<<32 | uint64(f.LowDateTime)) }
	return (ticks(kernel) + ticks(user)) / 1e7, true
}
