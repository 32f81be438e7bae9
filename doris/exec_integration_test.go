package doris_test

// The statement runner's connection handling against the simulator over
// real MariaDB: which results end normally and keep their connection,
// which are killed and lose it.

import (
	"fmt"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestMetadataReadsDrainSmallOverflow: a metadata read a little over its
// row limit reads the rest and ends normally, keeping its connection; a
// read far over it is killed and its connection dropped.
func TestMetadataReadsDrainSmallOverflow(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxConnections = 1 }})
	id := e.ConnID()
	n, truncated, err := e.RT.TextForTest(e.Ctx(), e.ID, "SELECT seq FROM seq_1_to_500", 100)
	if err != nil || n != 100 || !truncated {
		t.Fatalf("small overflow: %d %v %v", n, truncated, err)
	}
	if got := e.ConnID(); got != id {
		t.Fatalf("a small overflow cost the connection (%s -> %s)", id, got)
	}
	n, truncated, err = e.RT.TextForTest(e.Ctx(), e.ID, "SELECT seq FROM seq_1_to_1000000", 100)
	if err != nil || n != 100 || !truncated {
		t.Fatalf("large overflow: %d %v %v", n, truncated, err)
	}
	if got := e.ConnID(); got == id {
		t.Fatal("a killed read's connection went back to the pool")
	}
	doristest.WaitGone(t, e.DB, "seq_1_to_1000000", time.Second)
	// Exactly the limit: not truncated, connection kept.
	id = e.ConnID()
	n, truncated, err = e.RT.TextForTest(e.Ctx(), e.ID, "SELECT seq FROM seq_1_to_100", 100)
	if err != nil || n != 100 || truncated || e.ConnID() != id {
		t.Fatalf("exact: %d %v %v", n, truncated, err)
	}
}

// TestTruncatedQueryIsKilled: execute_query stops at its budget, kills
// the query in Doris and drops the connection rather than draining it.
func TestTruncatedQueryIsKilled(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxConnections = 1 }})
	id := e.ConnID()
	q, _, _ := e.Query(map[string]any{"sql": "SELECT seq FROM seq_1_to_1000000 a", "max_rows": 5})
	if q.RowCount != 5 || !q.Truncated {
		t.Fatalf("%d rows", q.RowCount)
	}
	gone := doristest.WaitGone(t, e.DB, "seq_1_to_1000000 a", time.Second)
	if got := e.ConnID(); got == id {
		t.Fatal("the truncated query's connection went back to the pool")
	}
	t.Logf("query gone from MariaDB %v after the answer", gone)
	// A result that ends within the budget keeps the connection.
	id = e.ConnID()
	e.Query(map[string]any{"sql": "SELECT seq FROM seq_1_to_5", "max_rows": 5})
	if got := e.ConnID(); got != id {
		t.Fatal("a complete result cost the connection")
	}
	// An error from Doris (a clean answer) keeps it too.
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT * FROM nope"}, "CHILD_EXECUTION_FAILED", "QUERY_OBJECT_NOT_FOUND")
	if got := e.ConnID(); got != id {
		t.Fatal("a Doris error cost the connection")
	}
}

// TestRefusedSessionKeepsConnection: a database Doris refuses (USE fails)
// is a clean answer: the connection stays in the pool, and the next call
// on it gets the session it asks for.
func TestRefusedSessionKeepsConnection(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.MaxConnections = 1 }})
	id := e.ConnID()
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "database": "nope"}, "CHILD_EXECUTION_FAILED", "QUERY_PERMISSION_DENIED")
	e.Fail("doris_query", "execute_query", map[string]any{"sql": "SELECT 1", "catalog": "nope"}, "CHILD_EXECUTION_FAILED", "QUERY_OBJECT_NOT_FOUND")
	q, _, _ := e.Query(map[string]any{"sql": "SELECT CONNECTION_ID() AS id, DATABASE() AS db"})
	if fmt.Sprint(q.Rows[0]["id"]) != id || q.Rows[0]["db"] != "demo" {
		t.Fatalf("after refused sessions: %v (connection was %s)", q.Rows[0], id)
	}
}
