package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// fakeRuntime is a deterministic Runtime: a fixed capability snapshot and
// a few handlers that count their calls.
type fakeRuntime struct {
	snap     doris.Snapshot
	probe    map[string]string // probe outcomes other than OK
	handlers map[string]doris.Handler
	calls    atomic.Int64
}

// healthy is a 3.0.4 cluster where every probe passes and FE HTTP is set.
func healthy() doris.Snapshot {
	return doris.Snapshot{
		Route: "global", Master: doris.Version{Major: 3, Patch: 4}, Brand: "Doris version doris-3.0.4-rc02-39f9074cec",
		Frontends: []doris.Node{{Role: "fe", Host: "127.0.0.1", Master: true, Alive: true, Version: "3.0.4"}},
		Backends:  []doris.Node{{Role: "be", Host: "127.0.0.1", Alive: true, Version: "3.0.4"}},
		FEVisible: true, BEVisible: true, Mode: "integrated",
		Providers: map[string]bool{"fe_http": true, "be_http": true},
		TakenAt:   time.Unix(1_800_000_000, 0),
	}
}

func newFakeRuntime() *fakeRuntime {
	f := &fakeRuntime{snap: healthy()}
	ok := func(data any) doris.Handler {
		return func(ctx context.Context, c *doris.Call) (*doris.Result, error) {
			f.calls.Add(1)
			return &doris.Result{Status: "success", Data: data}, nil
		}
	}
	f.handlers = map[string]doris.Handler{
		"doris_catalog.list_databases":           ok(map[string]any{"items": []any{map[string]any{"name": "demo", "catalog": nil}}, "next_cursor": nil, "truncated": false}),
		"doris_catalog.list_tables":              ok(map[string]any{"items": []any{map[string]any{"name": "orders", "type": "table"}}, "next_cursor": nil, "truncated": false}),
		"doris_cluster.get_runtime_capabilities": ok(map[string]any{"versions": map[string]any{"master_fe": "3.0.4"}, "mixed_versions": false, "stale": false}),
		// A handler whose output breaks its own schema.
		"doris_catalog.list_catalogs": ok(map[string]any{"wrong": true}),
		"doris_query.execute_query": func(ctx context.Context, c *doris.Call) (*doris.Result, error) {
			f.calls.Add(1)
			var a struct {
				SQL string `json:"sql"`
			}
			json.Unmarshal(c.Args, &a)
			switch a.SQL {
			case "timeout":
				return nil, &doris.Error{Kind: doris.KindTimeout, Reason: "QUERY_TIMEOUT", Retryable: true, Status: 504, Message: "the query ran past its limit"}
			case "fail":
				return nil, &doris.Error{Kind: doris.KindFailed, Reason: "QUERY_BACKEND_UNAVAILABLE", Retryable: true, Status: 503, Message: "Doris dropped the connection",
					Cause: errors.New("backend said: secret internal detail")}
			case "write":
				return nil, &doris.Error{Kind: doris.KindArguments, Reason: "QUERY_READ_ONLY_VIOLATION", Status: 400, Position: new(int), Message: "refused by the read-only guard"}
			case "panic":
				panic("handler bug")
			}
			return &doris.Result{Status: "success", Data: map[string]any{"columns": []any{map[string]any{"name": "1", "type": "bigint"}},
				"rows": []any{map[string]any{"1": 1}}, "row_count": 1, "truncated": false}}, nil
		},
	}
	return f
}

func (f *fakeRuntime) Snapshot(ctx context.Context, id auth.Identity, probes []string) *doris.Snapshot {
	s := f.snap
	if s.Unavailable == "" {
		s.Probes = map[string]string{}
		for _, p := range probes {
			s.Probes[p] = doris.ProbeOK
			if o, ok := f.probe[p]; ok {
				s.Probes[p] = o
			}
		}
	}
	return &s
}

func (f *fakeRuntime) Handler(domain, child string) doris.Handler {
	return f.handlers[domain+"."+child]
}

func (f *fakeRuntime) Names(ctx context.Context, id auth.Identity, cat, db, prefix string, limit int) ([]string, error) {
	switch {
	case cat == "":
		return []string{"hive", "internal"}, nil
	case db == "":
		return []string{"demo", "demo_archive"}, nil
	}
	return []string{"orders", "order_items"}, nil
}

func (f *fakeRuntime) Objects(ctx context.Context, id auth.Identity, limit int) ([]doris.ObjectRef, error) {
	return []doris.ObjectRef{{Catalog: "internal", Database: "demo", Name: "orders", Kind: "table"},
		{Catalog: "internal", Database: "demo", Name: "v_daily_sales", Kind: "view"}}, nil
}

func (f *fakeRuntime) ReadObject(ctx context.Context, id auth.Identity, kind, cat, db, name string) ([]byte, error) {
	if db == "demo" && name == "orders" {
		return []byte(`{"columns":[{"name":"order_id"}]}`), nil
	}
	return nil, doris.ErrNotFound
}

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

func testSigner(t testing.TB) *handle.Signer {
	t.Helper()
	signer, err := handle.New([]byte("catalog-test-secret-0123456789abcdef!"))
	if err != nil {
		t.Fatal(err)
	}
	return signer
}

func newSurface(t testing.TB, cfg catalog.Config, rt catalog.Runtime) *catalog.Surface {
	t.Helper()
	cfg.Handles = testSigner(t)
	cfg.ValidateResults = true
	var err error
	cfg.Now = fixedNow
	s, err := catalog.New(cfg, rt)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// call invokes a tool and decodes the envelope.
func call(t testing.TB, s *catalog.Surface, id auth.Identity, tool, args string) (map[string]any, *catalog.ToolResult) {
	t.Helper()
	res, err := s.CallTool(context.Background(), id, tool, json.RawMessage(args), nil)
	if err != nil {
		t.Fatalf("CallTool(%s, %s): %v", tool, args, err)
	}
	var env map[string]any
	if err := json.Unmarshal(res.Structured, &env); err != nil {
		t.Fatal(err)
	}
	return env, res
}
