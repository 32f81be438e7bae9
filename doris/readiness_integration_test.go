package doris_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestMissingDatabaseReadiness: a DORIS_DATABASE the account cannot open
// (Doris answers 1044 for a missing database too) makes Ping and the
// capability snapshot say DORIS_DATABASE_UNAVAILABLE, naming the setting,
// not that the account may not read its server version.
func TestMissingDatabaseReadiness(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.Database = "no_such_database" }})
	var de *doris.Error
	if err := e.RT.Ping(context.Background()); !errors.As(err, &de) || de.Reason != doris.ReasonDatabaseUnavailable {
		t.Fatalf("Ping: %v, want %s", err, doris.ReasonDatabaseUnavailable)
	}
	s := e.RT.Snapshot(context.Background(), e.ID, nil)
	if s.Unavailable != doris.ReasonDatabaseUnavailable || !strings.Contains(s.Detail, "DORIS_DATABASE") || strings.Contains(s.Detail, "no_such_database") {
		t.Fatalf("snapshot: %s %q", s.Unavailable, s.Detail)
	}
	// The account itself is fine: Ping with the demo database passes.
	ok := doristest.NewEnv(t, doristest.EnvOpts{})
	if err := ok.RT.Ping(context.Background()); err != nil {
		t.Fatalf("Ping with the demo database: %v", err)
	}
}
