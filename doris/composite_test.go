package doris

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRunPlan: sections run concurrently, each within its own bound; the
// required step's failure is the plan's failure; an optional step that
// fails, panics, hangs or depends on a failed step is an unavailable
// section and the rest still arrives.
func TestRunPlan(t *testing.T) {
	var r Runtime
	ok := func(v string) func(context.Context) (Section, error) {
		return func(context.Context) (Section, error) { return Section{Status: "success", Data: v}, nil }
	}
	fail := func(reason string) func(context.Context) (Section, error) {
		return func(context.Context) (Section, error) { return Section{}, &Error{Reason: reason} }
	}
	hang := func(ctx context.Context) (Section, error) { <-ctx.Done(); return Section{}, ctx.Err() }

	start := time.Now()
	p, err := r.RunPlan(context.Background(), []Step{
		{Name: "nodes", Required: true, Run: ok("n")},
		{Name: "slow", Timeout: 50 * time.Millisecond, Run: hang},
		{Name: "broken", Run: fail("CLUSTER_METRICS_UNAVAILABLE")},
		{Name: "panics", Run: func(context.Context) (Section, error) { panic("bug") }},
		{Name: "after_broken", After: "broken", Run: ok("never")},
		{Name: "after_nodes", After: "nodes", Run: ok("x")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("plan took %s, want about its slowest bound (50 ms)", d)
	}
	want := map[string]string{"nodes": "success", "slow": "SECTION_TIMEOUT", "broken": "CLUSTER_METRICS_UNAVAILABLE",
		"panics": "SECTION_FAILED", "after_broken": "SECTION_DEPENDENCY_UNAVAILABLE", "after_nodes": "success"}
	for name, w := range want {
		s := p.Sections[name]
		got := s.Status
		if s.Status != "success" {
			got = s.ReasonCode
		}
		if got != w {
			t.Errorf("section %s = %s (%+v), want %s", name, got, s, w)
		}
	}
	if !p.Partial {
		t.Error("plan with unavailable sections is not partial")
	}

	_, err = r.RunPlan(context.Background(), []Step{
		{Name: "nodes", Required: true, Run: fail("CLUSTER_NODE_METADATA_UNAVAILABLE")},
		{Name: "slow", Run: hang},
	})
	if !errors.Is(err, &Error{Reason: "CLUSTER_NODE_METADATA_UNAVAILABLE"}) {
		t.Fatalf("required failure = %v, want the step's error", err)
	}
}
