package cluster_test

// doris_cluster benchmarks against the simulator over real MariaDB:
//
//	go test ./doris -run '^$' -bench 'Cluster' -benchtime 200x
//
// They measure what a Host waits for: the composite overview (six
// sections run concurrently), the metrics scrape of FE and BE, the task
// listing, and the cost of a dead BE on a scrape (it must not add a
// timeout: a refused connection fails at once).

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

func benchChild(b *testing.B, e *doristest.Env, child string, args map[string]any) {
	b.Helper()
	outer, _ := json.Marshal(map[string]any{"child_tool": child, "arguments": args})
	ctx := context.Background()
	e.Ok("doris_cluster", child, args) // capability evidence and pooled connections
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.SF.CallTool(ctx, e.ID, "doris_cluster", outer, nil)
		if err != nil || res.IsError {
			b.Fatalf("%v %s", err, res.Structured)
		}
	}
}

func BenchmarkClusterChildren(b *testing.B) {
	e := doristest.NewEnv(b, asRoot(doristest.EnvOpts{Profile: "4.0", NoAudit: true}))
	for _, c := range []struct {
		child string
		args  map[string]any
	}{
		{"get_cluster_overview", map[string]any{}},
		{"get_monitoring_metrics", map[string]any{}},
		{"list_active_tasks", map[string]any{"task_types": []string{"query", "compaction"}}},
		{"get_memory_stats", map[string]any{"detail": "top_consumers"}},
		{"analyze_resource_growth", map[string]any{"window_days": 7, "granularity": "hour"}},
	} {
		b.Run(c.child, func(b *testing.B) { benchChild(b, e, c.child, c.args) })
	}
}

func BenchmarkClusterMetricsDeadBE(b *testing.B) {
	dead := deadAddr(b)
	e := doristest.NewEnv(b, doristest.EnvOpts{Profile: "3.0", NoAudit: true, Config: func(c *doris.Config) { c.BEHosts = append(c.BEHosts, dead) }})
	benchChild(b, e, "get_monitoring_metrics", map[string]any{})
}
