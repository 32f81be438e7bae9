package sim_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
)

// TestUpstreamLostIsBackendNotAlive: a statement whose upstream (the
// simulated backend) goes away mid-query is answered with Doris's own
// text for a dead backend, and the simulator serves new sessions once
// the upstream is back.
func TestUpstreamLostIsBackendNotAlive(t *testing.T) {
	mariadb.Require(t)
	ctx := context.Background()
	in, err := mariadb.Start(ctx, mariadb.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Stop() })
	s, err := sim.Start(ctx, sim.Options{Listen: "127.0.0.1:0", Upstream: in.Addr(), Users: in.UserMap(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	db := reader(t, s)
	mustQuery(t, db, "SELECT 1")
	errc := make(chan error, 1)
	go func() {
		_, err := query(t, db, "SELECT SLEEP(30)")
		errc <- err
	}()
	eventually(t, func() string {
		var n int
		in.Root().QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.processlist WHERE INFO = 'SELECT SLEEP(30)'").Scan(&n)
		if n == 0 {
			return "SELECT SLEEP(30) has not reached MariaDB"
		}
		return ""
	})
	if err := in.Restart(ctx, 0); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-errc:
	case <-time.After(20 * time.Second):
		t.Fatal("the statement was not answered after its upstream went away")
	}
	me := mysqlErr(t, err)
	if me.Number != 1105 || !strings.Contains(me.Message, "No backend available as scan node") || !strings.Contains(me.Message, "not alive") {
		t.Fatalf("got %d %q, want 1105 with Doris's dead-backend text", me.Number, me.Message)
	}
	mustQuery(t, reader(t, s), "SELECT 1")
}
