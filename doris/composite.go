package doris

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Step is one section of a composite child (get_cluster_overview,
// diagnose_ingestion, diagnose_search_query, ...). Steps run concurrently,
// each under its own time bound.
type Step struct {
	// Name is the section's key in the result.
	Name string
	// Required marks the step whose failure is the child's failure. A
	// plan has at most one required step in practice; every other step
	// failing only makes its own section unavailable.
	Required bool
	// Timeout bounds the step; zero means the call's own deadline.
	Timeout time.Duration
	// After names a step that must succeed first (e.g. a profile that
	// needs the plan); when it does not, this step is unavailable with
	// the reason SECTION_DEPENDENCY_UNAVAILABLE and does not run.
	After string
	// Run produces the section. A returned error becomes
	// {status: "unavailable", reason_code} (or, for the required step,
	// the child's error); a returned section is used as it is.
	Run func(ctx context.Context) (Section, error)
}

// plan is the outcome of runPlan: every step's section by name, and
// whether any optional section is missing.
type plan struct {
	Sections map[string]Section
	Partial  bool
}

// warnings says, in step order, which sections are unavailable and why.
func (p *plan) Warnings(steps []Step) []string {
	var out []string
	for _, s := range steps {
		if sec := p.Sections[s.Name]; sec.Status != "success" {
			reason := sec.ReasonCode
			if reason == "" {
				reason = sec.Status
			}
			out = append(out, fmt.Sprintf("The %s section is %s (%s).", s.Name, sec.Status, reason))
		}
	}
	return out
}

// RunPlan runs steps concurrently and waits for all of them. A required
// step that fails fails the plan with its error (the other steps are
// cancelled); an optional one that fails, panics or runs out of its time
// becomes an unavailable section with a reason code, and the rest of the
// answer still arrives.
func (r *Runtime) RunPlan(ctx context.Context, steps []Step) (*plan, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		sec Section
		err error
	}
	done := make(map[string]chan struct{}, len(steps))
	results := make([]outcome, len(steps))
	for _, s := range steps {
		done[s.Name] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for i, s := range steps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[s.Name])
			if s.After != "" {
				if ch, ok := done[s.After]; ok {
					select {
					case <-ch:
					case <-ctx.Done():
					}
					for j, p := range steps {
						if p.Name == s.After && (results[j].err != nil || results[j].sec.Status == "unavailable") {
							results[i] = outcome{sec: Section{Status: "unavailable", ReasonCode: "SECTION_DEPENDENCY_UNAVAILABLE"}}
							return
						}
					}
				}
			}
			sctx, scancel := ctx, context.CancelFunc(func() {})
			if s.Timeout > 0 {
				sctx, scancel = context.WithTimeout(ctx, s.Timeout)
			}
			defer scancel()
			sec, err := runStep(sctx, s.Run)
			if err != nil && sctx.Err() != nil && ctx.Err() == nil && !s.Required {
				err = &Error{Kind: KindTimeout, Reason: "SECTION_TIMEOUT", Status: 504, Retryable: true,
					Message: "the section ran out of its time"}
			}
			results[i] = outcome{sec, err}
			if err != nil && s.Required {
				cancel() // nothing else matters once the required step failed
			}
		}()
	}
	wg.Wait()
	p := &plan{Sections: make(map[string]Section, len(steps))}
	for i, s := range steps {
		o := results[i]
		if o.err != nil {
			if s.Required {
				return nil, o.err
			}
			o.sec = Unavailable(o.err)
		}
		if o.sec.Status == "" {
			o.sec.Status = "success"
		}
		if o.sec.Status != "success" {
			p.Partial = true
		}
		p.Sections[s.Name] = o.sec
	}
	return p, nil
}

// runStep runs f, turning a panic into an error so one broken section
// never takes the call (or the server) down.
func runStep(ctx context.Context, f func(context.Context) (Section, error)) (sec Section, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &Error{Kind: KindFailed, Reason: "SECTION_FAILED", Status: 500, Message: "the section failed",
				Cause: fmt.Errorf("panic: %v", v)}
		}
	}()
	return f(ctx)
}
