package doris_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// holdSlow starts n execute_query calls that the simulator holds for
// hold before they run (fault injection: they burn no CPU), and returns
// a channel closed when all of them have answered.
func holdSlow(t *testing.T, e *doristest.Env, n int, hold time.Duration) <-chan struct{} {
	t.Helper()
	reached := make(chan struct{}, n)
	e.Sim.Inject(sim.Fault{Match: "slow_marker", Latency: hold, Reached: reached})
	t.Cleanup(e.Sim.ClearFaults)
	done := make(chan struct{})
	answered := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		go func() {
			e.Call("doris_query", "execute_query", map[string]any{"sql": "SELECT 'slow_marker' AS m", "timeout_ms": 60000})
			answered <- struct{}{}
		}()
	}
	go func() {
		for i := 0; i < n; i++ {
			<-answered
		}
		close(done)
	}()
	// Setup: every slow statement holds its slot and connection in the
	// simulator before the test goes on.
	timeout := time.After(30 * time.Second)
	for range n {
		select {
		case <-reached:
		case <-timeout:
			t.Fatal("setup: the slow statements did not reach the simulator")
		}
	}
	return done
}

// TestFastWorkNotBehindSlow: with as many slow queries in flight as
// DORIS_MAX_CONNECTIONS, a SELECT 1 and the readiness check are answered
// while the slow ones still run: admission is the only queue, and
// readiness uses a connection of its own.
func TestFastWorkNotBehindSlow(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxConnections = 3; c.MaxConcurrentQueries = 8 }})
	e.Discover("doris_query")
	slowDone := holdSlow(t, e, 3, 8*time.Second)

	q, _, _ := e.Query(map[string]any{"sql": "SELECT 1 AS one"})
	if len(q.Rows) != 1 {
		t.Fatalf("SELECT 1: %v", q.Rows)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.RT.Ping(ctx); err != nil {
		t.Fatalf("readiness with the pool busy: %v", err)
	}
	select {
	case <-slowDone:
		t.Fatal("the fast work was answered only after the slow queries finished")
	default:
	}
}

// TestAdmissionWaitsBriefly: a call above MAX_CONCURRENT_QUERIES waits
// for a slot within its own budget; when none frees in time it is told so
// with a retryable CONCURRENCY_LIMITED, and discovery is never held up.
func TestAdmissionWaitsBriefly(t *testing.T) {
	t.Run("a short burst waits and runs", func(t *testing.T) {
		e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxConcurrentQueries = 1 }})
		e.Discover("doris_query")
		slowDone := holdSlow(t, e, 1, 1500*time.Millisecond)
		select {
		case <-slowDone:
			t.Fatal("setup: the slot holder finished before the burst")
		default:
		}
		// Before the fix this was refused at once with CONCURRENCY_LIMITED.
		q, _, _ := e.Query(map[string]any{"sql": "SELECT 1 AS one"})
		if len(q.Rows) != 1 {
			t.Fatalf("SELECT 1: %v", q.Rows)
		}
	})
	t.Run("a sustained overload is refused", func(t *testing.T) {
		clock := doristest.NewClock()
		e := doristest.NewEnv(t, doristest.EnvOpts{Now: clock.Now, Config: func(c *doris.Config) { c.MaxConcurrentQueries = 1; c.CapabilityTTL = time.Second }})
		e.Discover("doris_query")
		slowDone := holdSlow(t, e, 1, 8*time.Second)
		clock.Advance(1200 * time.Millisecond) // past the capability TTL: the call takes a new snapshot
		ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1"}, "CHILD_EXECUTION_FAILED", "QUERY_CONCURRENCY_LIMITED")
		if !ev.Error.Retryable || ev.Error.Details.StatusCode != 429 || !strings.Contains(ev.Error.Message, "MAX_CONCURRENT_QUERIES") ||
			!strings.Contains(ev.Error.Message, "none finished within") {
			t.Fatalf("limited: %s", ev.Raw)
		}
		select {
		case <-slowDone:
			t.Fatal("the refusal came only after the slot holder finished")
		default:
		}
	})
}

// TestTimeoutSaysWhatHappened: when the server stops an overrunning
// query itself, the message says whether Doris confirmed the kill.
func TestTimeoutSaysWhatHappened(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kill  sim.Fault
		says  string
		never string
	}{
		{"kill confirmed", sim.Fault{}, "was stopped inside Doris", "may still be running"},
		{"kill not confirmed", sim.Fault{Match: "KILL QUERY", Latency: 20 * time.Second}, "has not confirmed", "was stopped"},
		{"kill could not be sent", sim.Fault{Match: "KILL QUERY", Drop: true}, "could not reach Doris", "was stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{})
			e.Sim.Inject(sim.Fault{Match: "held_by_fault", Latency: 30 * time.Second})
			if tc.kill.Match != "" {
				e.Sim.Inject(tc.kill)
			}
			t.Cleanup(e.Sim.ClearFaults)
			ev := e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 'held_by_fault' AS m", "timeout_ms": 1000},
				"CHILD_EXECUTION_TIMEOUT", "QUERY_TIMEOUT")
			if !strings.Contains(ev.Error.Message, tc.says) || strings.Contains(ev.Error.Message, tc.never) {
				t.Fatalf("message %q, want it to say %q", ev.Error.Message, tc.says)
			}
		})
	}
}
