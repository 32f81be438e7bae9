package semanticprovider_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// truthDir holds cases ported from MetricFlow's own integration tests:
// the semantic model and metrics of its SIMPLE_MODEL that the cases use
// (as dbt would write them to semantic_manifest.json), the rows of its
// table snapshots, and each case's request with its check query rendered
// for MariaDB. See testdata/metricflow/README.md.
const truthDir = "testdata/metricflow"

type truthCases struct {
	Database string `json:"database"` // default mf
	Manifest string `json:"manifest"` // default semantic_manifest.json
	Tables   map[string]struct {
		Columns string   `json:"columns"`
		Rows    [][]any  `json:"rows"`
		Days    []string `json:"days"`
	} `json:"tables"`
	Cases []struct {
		Name       string         `json:"name"`
		Request    map[string]any `json:"request"`
		CheckQuery string         `json:"check_query"`
		Ordered    bool           `json:"ordered"`
		Refused    string         `json:"refused"` // the reason code the provider still refuses it with
	} `json:"cases"`
}

// TestMetricFlowTruth compiles each ported case, runs it on the Doris
// simulator and compares the rows with those of MetricFlow's check query
// over the same tables. cases.json is ported by hand; simple_cases.json
// by port.py from MetricFlow's SIMPLE_MODEL. A case marked refused must
// still be refused with that reason code (and is listed in the README).
func TestMetricFlowTruth(t *testing.T) {
	e := newEnv(t)
	for _, file := range []string{"cases.json", "simple_cases.json"} {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) { truthFile(t, e, file) })
	}
}

func truthFile(t *testing.T, e *env, file string) {
	raw, err := os.ReadFile(filepath.Join(truthDir, file))
	if err != nil {
		t.Fatal(err)
	}
	var tc truthCases
	if err := json.Unmarshal(raw, &tc); err != nil {
		t.Fatal(err)
	}
	db, manifest := tc.Database, tc.Manifest
	if db == "" {
		db = "mf"
	}
	if manifest == "" {
		manifest = "semantic_manifest.json"
	}
	execAll(t, e.maria, "DROP DATABASE IF EXISTS `"+db+"`", "CREATE DATABASE `"+db+"`")
	t.Cleanup(func() { e.maria.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `"+db+"`") })
	for name, tb := range tc.Tables {
		execAll(t, e.maria, "CREATE TABLE `"+db+"`.`"+name+"` ("+tb.Columns+")")
		var vals []string
		for _, r := range tb.Rows {
			var vs []string
			for _, v := range r {
				switch x := v.(type) {
				case nil:
					vs = append(vs, "NULL")
				case string:
					vs = append(vs, "'"+strings.ReplaceAll(x, "'", "''")+"'")
				default:
					vs = append(vs, fmt.Sprint(x))
				}
			}
			vals = append(vals, "("+strings.Join(vs, ", ")+")")
		}
		if len(tb.Days) == 2 {
			from, _ := time.Parse("2006-01-02", tb.Days[0])
			to, _ := time.Parse("2006-01-02", tb.Days[1])
			for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
				vals = append(vals, "('"+d.Format("2006-01-02")+"')")
			}
		}
		for len(vals) > 0 {
			n := min(len(vals), 2000)
			execAll(t, e.maria, "INSERT INTO `"+db+"`.`"+name+"` VALUES "+strings.Join(vals[:n], ", "))
			vals = vals[n:]
		}
	}
	pv := newProvider(t, db, filepath.Join(truthDir, manifest))
	for _, c := range tc.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Refused != "" {
				reason, _ := compileReason(t, pv, c.Request)
				if reason != c.Refused {
					t.Fatalf("refused with %q, want %q (if it compiles now, drop refused and check the rows)", reason, c.Refused)
				}
				return
			}
			got := runQuery(t, e.doris, pv.compile(t, c.Request))
			sameRows(t, got, byColumns(t, runQuery(t, e.maria, c.CheckQuery), got.cols), c.Ordered)
		})
	}
}

// byColumns puts want's columns in the order of names (MetricFlow's check
// queries list metrics first, the provider lists group-bys first), matching
// names case-insensitively; it fails unless both have the same columns.
func byColumns(t *testing.T, want table, names []string) table {
	t.Helper()
	pos := map[string]int{}
	for i, c := range want.cols {
		pos[strings.ToLower(c)] = i
	}
	if len(names) != len(want.cols) {
		t.Fatalf("columns %v, check query has %v", names, want.cols)
	}
	idx := make([]int, len(names))
	for i, n := range names {
		j, ok := pos[strings.ToLower(n)]
		if !ok {
			t.Fatalf("column %s is not in the check query's %v", n, want.cols)
		}
		idx[i] = j
	}
	out := table{cols: names}
	for _, r := range want.rows {
		nr := make([]sql.NullString, len(r))
		for i, j := range idx {
			nr[i] = r[j]
		}
		out.rows = append(out.rows, nr)
	}
	return out
}
