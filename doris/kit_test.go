package doris

import (
	"database/sql"
	"database/sql/driver"
	"reflect"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/handle"
)

// TestKitHandsOutNoConnection: the handlers in the domain packages reach
// Doris only through *Runtime's exported methods. None of them takes or
// returns a pool, a connection or a transaction, and a *Route shows
// nothing of its account.
func TestKitHandsOutNoConnection(t *testing.T) {
	forbidden := []reflect.Type{
		reflect.TypeFor[*sql.DB](), reflect.TypeFor[*sql.Conn](), reflect.TypeFor[*sql.Tx](),
		reflect.TypeFor[*sql.Stmt](), reflect.TypeFor[driver.Conn](), reflect.TypeFor[driver.Connector](),
		reflect.TypeFor[*connector](),
	}
	rt := reflect.TypeFor[*Runtime]()
	for i := range rt.NumMethod() {
		m := rt.Method(i)
		ft := m.Type
		var types []reflect.Type
		for j := range ft.NumIn() {
			types = append(types, ft.In(j))
		}
		for j := range ft.NumOut() {
			types = append(types, ft.Out(j))
		}
		for _, ty := range types {
			for _, f := range forbidden {
				if ty == f {
					t.Errorf("(*Runtime).%s passes a %v: the kit hands out no pool or connection", m.Name, f)
				}
			}
		}
	}
	route := reflect.TypeFor[Route]()
	for i := range route.NumField() {
		if f := route.Field(i); f.IsExported() {
			t.Errorf("Route.%s is exported: a handler must not read a route's account", f.Name)
		}
	}
	if n := reflect.TypeFor[Runtime]().NumField(); n > 0 {
		for i := range n {
			if f := reflect.TypeFor[Runtime]().Field(i); f.IsExported() {
				t.Errorf("Runtime.%s is exported: the kit is methods only", f.Name)
			}
		}
	}
}

// TestSettingsWithoutPassword: the configuration handlers read has no
// password in it, while the runtime's own still does.
func TestSettingsWithoutPassword(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Password = "s3cret"
	signer, err := handle.NewRandom()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(cfg, Options{Handles: signer})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Settings().Password; got != "" {
		t.Errorf("Settings().Password = %q, want empty", got)
	}
	if r.cfg.Password != "s3cret" {
		t.Error("the runtime lost its own password")
	}
}
