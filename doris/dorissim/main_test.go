package main

import (
	"testing"
	"time"
)

func TestHoldFlag(t *testing.T) {
	tests := []struct {
		in      string
		marker  string
		latency time.Duration
		wantErr bool
	}{
		{in: "slow_marker=30s", marker: "slow_marker", latency: 30 * time.Second},
		{in: "a=b=1500ms", wantErr: true}, // the duration is "b=1500ms"
		{in: "held=250ms", marker: "held", latency: 250 * time.Millisecond},
		{in: "nomarker", wantErr: true},
		{in: "=3s", wantErr: true},
		{in: "m=0s", wantErr: true},
		{in: "m=-1s", wantErr: true},
		{in: "m=soon", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var h holdFlags
			err := h.Set(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Set(%q) = nil, want an error (got %+v)", tt.in, h)
				}
				return
			}
			if err != nil {
				t.Fatalf("Set(%q): %v", tt.in, err)
			}
			if len(h) != 1 || h[0].Match != tt.marker || h[0].Latency != tt.latency {
				t.Fatalf("Set(%q) = %+v, want Match %q, Latency %v", tt.in, h, tt.marker, tt.latency)
			}
		})
	}
	var h holdFlags
	h.Set("one=1s")
	h.Set("two=2s")
	if got, want := h.String(), "one=1s,two=2s"; got != want {
		t.Fatalf("two flags: String() = %q, want %q", got, want)
	}
}
