package doris_test

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestFailover: DORIS_HOST first, then DORIS_HOSTS in order. With the first
// FE down the runtime uses the next; when the FE in use goes away, calls
// fail retryably and new connections go to the next FE that answers, with
// no restart.
func TestFailover(t *testing.T) {
	in := mariadb.SharedFor(t)
	second, err := sim.Start(context.Background(), sim.Options{Listen: "127.0.0.1:0", Upstream: in.Addr(),
		Users: in.UserMap(), Profile: "3.0", Logger: doristest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close() // nothing listens there now

	var first string
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) {
		first = net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
		host, port := doristest.HostPort(t, dead)
		c.Host, c.Port = host, port
		c.Hosts = []string{first, second.Addr()}
	}})
	ok := func(when string) {
		t.Helper()
		if r, _, env := e.Query(map[string]any{"sql": "SELECT 1 AS one"}); r.RowCount != 1 {
			t.Fatalf("%s: %+v", when, env)
		}
	}
	if ch := e.Discover("doris_query").Availability(t, "execute_query"); !ch.Availability.Callable {
		t.Fatalf("execute_query with DORIS_HOST down: %+v", ch.Availability)
	}
	ok("with DORIS_HOST down")

	// The FE in use goes down: at most a retryable failure, then the next FE.
	if err := e.Sim.SetDown(true); err != nil {
		t.Fatal(err)
	}
	recovered := false
	for i := 0; i < 3 && !recovered; i++ {
		env := e.Call("doris_query", "execute_query", map[string]any{"sql": "SELECT 1 AS one"})
		if env.Mode == "result" {
			recovered = true
			break
		}
		if env.Mode != "error" || !env.Error.Retryable {
			t.Fatalf("attempt %d after the FE in use went down: %+v", i, env)
		}
	}
	if !recovered {
		t.Fatal("no failover to the next FE within 3 calls")
	}
	ok("after failover")
}
