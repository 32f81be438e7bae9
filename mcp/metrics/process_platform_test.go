package metrics

import "testing"

// TestProcessCPU: the platform's CPU reading (process_unix.go,
// process_windows.go) sees the CPU this test spends.
func TestProcessCPU(t *testing.T) {
	before, ok := cpuSeconds()
	if !ok {
		t.Fatal("cpuSeconds: no reading on this platform")
	}
	x := 0
	for i := range 50_000_000 {
		x ^= i
	}
	after, _ := cpuSeconds()
	if after <= before || x == 1 {
		t.Errorf("CPU seconds went from %v to %v across a busy loop", before, after)
	}
}
