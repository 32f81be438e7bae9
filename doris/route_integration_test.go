package doris_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestOwnAccountRoutes: an identity with a Doris account of its own runs
// on a pool of that account, so Doris's grants for that account decide
// what it sees; an identity bound to a route of its own without a
// credential, or with a wrong one, gets an error and never the global
// service account.
func TestOwnAccountRoutes(t *testing.T) {
	doristest.NewAccount(t, mariadb.SharedFor(t), "route_narrow", "narrow-pw-1",
		"SELECT ON demo.customers", "SELECT ON __internal_schema.*", "SELECT ON __doris_sim.*")
	e := doristest.NewEnv(t, doristest.EnvOpts{NoFEHTTP: true, Users: map[string]string{"route_narrow": "narrow-pw-1"}})

	tables := func(id auth.Identity) (names []string, ev *doristest.Envelope) {
		e.ID = id
		ev = e.Call("doris_catalog", "list_tables", map[string]any{"database": "demo"})
		if ev.Mode != "result" {
			return nil, ev
		}
		var c struct {
			Items []struct {
				Name string `json:"name"`
			} `json:"items"`
		}
		ev.Decode(t, &c)
		for _, it := range c.Items {
			names = append(names, it.Name)
		}
		return names, ev
	}
	global, _ := tables(auth.Anonymous())
	narrowID := auth.Identity{Method: "test", Subject: "narrow", Route: "person:route_narrow",
		Credential: &auth.Credential{User: "route_narrow", Password: "narrow-pw-1"}}
	narrow, ev := tables(narrowID)
	if len(global) < 4 || len(narrow) != 1 || narrow[0] != "customers" {
		t.Fatalf("global sees %v, the narrow account sees %v (%s); want all demo tables vs only customers", global, narrow, ev.Raw)
	}
	e.ID = narrowID
	ev = e.Call("doris_query", "execute_query", map[string]any{"sql": "SELECT COUNT(*) FROM demo.orders"})
	if ev.Error.Details.ReasonCode != "QUERY_PERMISSION_DENIED" {
		t.Fatalf("the narrow account read orders: %s", ev.Raw)
	}
	e.ID = auth.Anonymous()
	e.Ok("doris_query", "execute_query", map[string]any{"sql": "SELECT COUNT(*) FROM demo.orders"})

	// A route of its own without its credential: unavailable, not global.
	e.ID = auth.Identity{Method: "test", Subject: "lost", Route: "person:lost"}
	ev = e.Call("doris_query", "execute_query", map[string]any{"sql": "SELECT 1"})
	if ev.Mode != "error" || ev.Error.Details.ReasonCode != "ROUTE_UNAVAILABLE" {
		t.Fatalf("a route without a credential: %s", ev.Raw)
	}
	// A wrong password: authentication fails, nothing runs as anyone else.
	e.ID = auth.Identity{Method: "test", Subject: "narrow", Route: "person:route_narrow",
		Credential: &auth.Credential{User: "route_narrow", Password: "wrong"}}
	ev = e.Call("doris_query", "execute_query", map[string]any{"sql": "SELECT 1"})
	if ev.Mode != "error" || ev.Error.Details.ReasonCode != "DORIS_AUTHENTICATION_FAILED" {
		t.Fatalf("a wrong own password: %s", ev.Raw)
	}
	// The global route cannot be given a credential.
	e.ID = auth.Identity{Method: "test", Route: "global", Credential: &auth.Credential{User: "root"}}
	ev = e.Call("doris_query", "execute_query", map[string]any{"sql": "SELECT 1"})
	if ev.Mode != "error" || ev.Error.Details.ReasonCode != "ROUTE_UNAVAILABLE" {
		t.Fatalf("global route with a credential: %s", ev.Raw)
	}
	if b, _ := json.Marshal(narrowID); strings.Contains(string(b), "narrow-pw-1") {
		t.Fatalf("an Identity marshals its password: %s", b)
	}
}
