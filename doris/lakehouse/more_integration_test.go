package lakehouse_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// TestLakehouseNeverShowsSecrets plants credentials and credentialed
// locations in a catalog's and a table's properties, checks that Doris (the
// simulator) does show them, and then that no byte of any answer of the
// three children, of the manifest, or of the server's log contains one.
func TestLakehouseNeverShowsSecrets(t *testing.T) {
	secrets := []string{"SK-planted-7f3a9c", "AKIAPLANTED0000001", "pw-planted-5521", "wh-user", "wh-pass-9931",
		"rest-pass-4410", "tok9f8e7d6c5b4a39281706f5e4d3c2b1a0", "cred-planted-3141", "tp-pass-8080", "cm-secret-2718"}
	for _, p := range []string{"2.1", "4.0"} {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
			var logs doristest.SyncBuffer
			e.LogTo(&logs)
			name := "lhsecret" + strings.ReplaceAll(p, ".", "")
			l := doristest.NewLake(t, e, name, `"type" = "iceberg", "iceberg.catalog.type" = "rest",
				"warehouse" = "s3://wh-user:wh-pass-9931@bucket/warehouse", "uri" = "http://rest-user:rest-pass-4410@rest:8181",
				"s3.access_key" = "AKIAPLANTED0000001", "s3.secret_key" = "SK-planted-7f3a9c", "password" = "pw-planted-5521",
				"oauth2.credential" = "cred-planted-3141", "hive.version" = "tok9f8e7d6c5b4a39281706f5e4d3c2b1a0", "custom.setting" = "plain"`, "db")
			l.Grant("db")
			l.Exec("CREATE TABLE "+name+".db.t (id INT, dt DATE) PARTITION BY LIST (dt) () PROPERTIES ("+
				`"write-format" = "parquet", "write.object-storage.path" = "s3://tp-user:tp-pass-8080@b/p", "comment-note" = "cm-secret-2718")`,
				"INSERT INTO "+name+".db.t VALUES (1, '2024-01-01')", "INSERT INTO "+name+".db.t VALUES (2, '2024-01-02')")

			// Doris shows them: the planting worked.
			var shown []string
			for _, q := range []string{"SHOW CATALOG " + name, "SHOW CREATE TABLE " + name + ".db.t"} {
				rows, err := l.Root.QueryContext(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var a, b string
					rows.Scan(&a, &b)
					shown = append(shown, a+"="+b)
				}
				rows.Close()
			}
			all := strings.Join(shown, "\n")
			for _, s := range []string{"SK-planted-7f3a9c", "wh-pass-9931", "tp-pass-8080", "cred-planted-3141"} {
				if !strings.Contains(all, s) {
					t.Fatalf("the simulator does not show the planted %q; the test would prove nothing", s)
				}
			}

			var out []string
			var cat catalogResult
			ev := e.Ok("doris_lakehouse", "inspect_external_catalog", map[string]any{"catalog": name, "include_objects": true})
			ev.Decode(t, &cat)
			out = append(out, string(ev.Raw))
			out = append(out, string(e.Ok("doris_lakehouse", "inspect_lakehouse_table", map[string]any{"catalog": name, "database": "db",
				"table": "t", "include_snapshots": true, "include_partitions": true}).Raw))
			out = append(out, string(e.Call("doris_lakehouse", "inspect_variant_column", map[string]any{"catalog": name, "database": "db",
				"table": "t", "column": "id"}).Raw))
			out = append(out, string(e.Discover("doris_lakehouse").Raw))
			out = append(out, logs.String())
			for i, o := range out {
				for _, s := range secrets {
					if strings.Contains(o, s) {
						t.Errorf("output %d contains the planted secret %q", i, s)
					}
				}
			}
			// What is shown is the harmless part, and the user learns what was withheld.
			if cat.Properties["iceberg.catalog.type"] != "rest" || cat.Properties["type"] != "iceberg" || cat.Properties["hive.version"] != "" ||
				!containsAll(cat.Withheld, "custom.setting", "hive.version", "uri", "warehouse") || cat.Secret != 4 {
				t.Fatalf("properties %v, withheld %v, secret %d", cat.Properties, cat.Withheld, cat.Secret)
			}
		})
	}
}

func containsAll(list []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, x := range list {
			found = found || x == w
		}
		if !found {
			return false
		}
	}
	return true
}

// variantDoc is a document the variant test inserts, with the leaves the
// test knows it has.
func variantDocs(n int) []map[string]any {
	var out []map[string]any
	for i := 0; i < n; i++ {
		d := map[string]any{"user": map[string]any{"id": i * 37, "name": fmt.Sprintf("secret-name-%d", i)}, "amount": float64(i) + 0.5}
		if i%2 == 0 {
			d["tags"] = []any{"a", "b"}
		}
		if i%3 == 0 {
			d["flag"] = i%6 == 0
			d["geo"] = map[string]any{"lat": 1.25, "city": "x"}
		}
		if i%7 == 0 {
			d["big"] = int64(10_000_000_000) + int64(i)
		}
		if i%5 == 0 {
			d["gone"] = nil // a null leaves no path
		}
		out = append(out, d)
	}
	return out
}

// leafTypes is the test's own reading of a document: each leaf path and
// the type Doris infers for it.
func leafTypes(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			leafTypes(p, c, out)
		}
	case nil:
	case bool:
		out[prefix] = "boolean"
	case string:
		out[prefix] = "string"
	case float64:
		out[prefix] = "double"
	case int:
		leafTypes(prefix, int64(x), out)
	case int64:
		switch {
		case x >= -128 && x <= 127:
			out[prefix] = "tinyint"
		case x >= -32768 && x <= 32767:
			out[prefix] = "smallint"
		case x >= -1<<31 && x < 1<<31:
			out[prefix] = "int"
		default:
			out[prefix] = "bigint"
		}
	case []any:
		out[prefix] = "array<string>" // the test's arrays hold strings
	}
}

type variantResult struct {
	DataType    string            `json:"data_type"`
	Properties  map[string]string `json:"properties"`
	SampledRows int               `json:"sampled_rows"`
	Paths       []struct {
		Path         string   `json:"path"`
		Types        []string `json:"types"`
		PresentRows  int      `json:"present_rows"`
		PresentRatio float64  `json:"present_ratio"`
	} `json:"paths"`
	Truncated bool `json:"truncated"`
}

// TestLakehouseVariantAgainstDocuments: the paths, types and sparsity
// inspect_variant_column reports are those of the documents the test
// inserted, computed here; no value comes back.
func TestLakehouseVariantAgainstDocuments(t *testing.T) {
	const n = 50
	docs := variantDocs(n)
	for _, p := range []string{"2.1", "3.0", "4.0"} {
		t.Run(p, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true, Config: func(c *doris.Config) {
				c.Lakehouse.MaxVariantSampleRows = 100
			}})
			tbl := "lh_events_" + strings.ReplaceAll(p, ".", "")
			pool := doristest.Direct(t, e.Sim.Addr(), "root", e.DB.RootPassword(), "demo")
			t.Cleanup(func() { e.RootDB().Exec("DROP TABLE IF EXISTS demo." + tbl) })
			stmts := []string{"DROP TABLE IF EXISTS demo." + tbl,
				"CREATE TABLE demo." + tbl + ` (id BIGINT NOT NULL, payload VARIANT NULL) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1
				 PROPERTIES ("replication_num" = "1", "variant_max_subcolumns_count" = "2048")`}
			var values []string
			for i, d := range docs {
				b, _ := json.Marshal(d)
				values = append(values, fmt.Sprintf("(%d, '%s')", i, b))
			}
			values = append(values, "(1000, NULL)", "(1001, NULL)")
			stmts = append(stmts, "INSERT INTO demo."+tbl+" VALUES "+strings.Join(values, ", "))
			for _, s := range stmts {
				if _, err := pool.Exec(s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}

			// The truth, from the documents.
			type stat struct {
				rows  int
				types map[string]int
			}
			truth := func(sub string) map[string]*stat {
				out := map[string]*stat{}
				for _, d := range docs {
					var v any = d
					for _, k := range strings.Split(sub, ".") {
						if k == "" {
							break
						}
						m, _ := v.(map[string]any)
						v = m[k]
					}
					leaves := map[string]string{}
					leafTypes(sub, v, leaves)
					for path, typ := range leaves {
						s := out[path]
						if s == nil {
							s = &stat{types: map[string]int{}}
							out[path] = s
						}
						s.rows++
						s.types[typ]++
					}
				}
				return out
			}
			check := func(args map[string]any, want map[string]*stat) variantResult {
				t.Helper()
				var got variantResult
				ev := e.Ok("doris_lakehouse", "inspect_variant_column", args)
				ev.Decode(t, &got)
				if strings.Contains(string(ev.Raw), "secret-name-") {
					t.Fatalf("a sample value came back: %s", ev.Raw)
				}
				if got.SampledRows != n || got.DataType != "variant" {
					t.Fatalf("sampled %d rows of %s, want %d of variant", got.SampledRows, got.DataType, n)
				}
				var paths []string
				for p := range want {
					paths = append(paths, p)
				}
				sort.Slice(paths, func(i, j int) bool {
					if want[paths[i]].rows != want[paths[j]].rows {
						return want[paths[i]].rows > want[paths[j]].rows
					}
					return paths[i] < paths[j]
				})
				if len(got.Paths) > len(paths) {
					t.Fatalf("got %d paths, want %d", len(got.Paths), len(paths))
				}
				for i, gp := range got.Paths {
					w := want[paths[i]]
					var types []string
					for typ := range w.types {
						types = append(types, typ)
					}
					sort.Strings(types)
					if gp.Path != paths[i] || gp.PresentRows != w.rows || gp.PresentRatio != float64(w.rows)/float64(n) ||
						strings.Join(gp.Types, ",") != strings.Join(types, ",") {
						t.Errorf("path %d: got %s %v in %d rows (%v), want %s %v in %d rows", i, gp.Path, gp.Types, gp.PresentRows,
							gp.PresentRatio, paths[i], types, w.rows)
					}
				}
				return got
			}
			all := check(map[string]any{"database": "demo", "table": tbl, "column": "payload", "sample_rows": 60}, truth(""))
			if len(all.Paths) != len(truth("")) || all.Truncated || fmt.Sprint(all.Properties) != "map[storage_format:V2 variant_max_subcolumns_count:2048]" {
				t.Fatalf("paths %d (truncated %v), properties %v", len(all.Paths), all.Truncated, all.Properties)
			}
			check(map[string]any{"database": "demo", "table": tbl, "column": "payload", "path": "user", "sample_rows": 60}, truth("user"))
			check(map[string]any{"database": "demo", "catalog": "internal", "table": tbl, "column": "payload", "path": "$.geo",
				"sample_rows": 60}, truth("geo"))
		})
	}
}

// TestLakehouseAvailabilityPerProfile: every child is callable on each
// simulated release; the per-release manifests (availability only) are
// goldens in testdata/lakehouse-availability.json.
func TestLakehouseAvailabilityPerProfile(t *testing.T) {
	got := map[string]any{}
	for _, p := range []string{"2.1", "3.0", "4.0", "4.1"} {
		e := doristest.NewEnv(t, doristest.EnvOpts{Profile: p, NoAudit: true})
		m := e.Discover("doris_lakehouse")
		var children []map[string]any
		for _, c := range m.Children {
			a := c.Availability
			if !a.Callable || a.ReasonCode == "HANDLER_NOT_BOUND" {
				t.Errorf("%s: %s is not callable: %+v", p, c.Name, a)
			}
			children = append(children, map[string]any{"name": c.Name, "status": a.Status, "callable": a.Callable,
				"reason_code": a.ReasonCode, "active_variant": a.ActiveVariant, "detected_versions": a.DetectedVersions})
		}
		got[p] = children
	}
	b, _ := json.MarshalIndent(got, "", "  ")
	b = append(b, '\n')
	path := filepath.Join("testdata", "lakehouse-availability.json")
	if *doristest.UpdateGoldens {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./doris -run TestLakehouseAvailabilityPerProfile -update)", err)
	}
	if !bytes.Equal(want, b) {
		t.Errorf("lakehouse availability differs from %s:\n%s", path, b)
	}
}

// BenchmarkLakehouse measures each child end to end (catalog dispatch,
// runtime, the simulator and MariaDB):
//
//	go test ./doris -run '^$' -bench Lakehouse -benchtime 200x
func BenchmarkLakehouse(b *testing.B) {
	e := doristest.NewEnv(b, doristest.EnvOpts{Profile: "4.0", NoAudit: true})
	l := doristest.NewLake(b, e, "lhbench", `"type" = "iceberg", "warehouse" = "s3://bench/wh"`, "db")
	l.Grant("db")
	l.Exec("CREATE TABLE lhbench.db.t (id INT, dt DATE) PARTITION BY LIST (dt) ()")
	for i := 0; i < 10; i++ {
		l.Exec(fmt.Sprintf("INSERT INTO lhbench.db.t VALUES (%d, '2024-01-%02d'), (%d, '2024-01-%02d')", 2*i, 1+i, 2*i+1, 1+i))
	}
	b.Cleanup(func() { e.RootDB().Exec("DROP TABLE IF EXISTS demo.lh_bench_events") })
	l.Exec("DROP TABLE IF EXISTS demo.lh_bench_events",
		"CREATE TABLE demo.lh_bench_events (id BIGINT NOT NULL, v VARIANT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
	var values []string
	for i, d := range variantDocs(200) {
		j, _ := json.Marshal(d)
		values = append(values, fmt.Sprintf("(%d, '%s')", i, j))
	}
	l.Exec("INSERT INTO demo.lh_bench_events VALUES " + strings.Join(values, ", "))
	for _, c := range []struct {
		name, child string
		args        map[string]any
	}{
		{"inspect_external_catalog", "inspect_external_catalog", map[string]any{"catalog": "lhbench", "include_objects": true}},
		{"inspect_lakehouse_table", "inspect_lakehouse_table", map[string]any{"catalog": "lhbench", "database": "db", "table": "t",
			"include_snapshots": true, "include_partitions": true}},
		{"inspect_variant_column_20rows", "inspect_variant_column", map[string]any{"database": "demo", "table": "lh_bench_events", "column": "v"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			e.Ok("doris_lakehouse", c.child, c.args)
			b.ReportAllocs()
			for b.Loop() {
				e.Ok("doris_lakehouse", c.child, c.args)
			}
		})
	}
}
