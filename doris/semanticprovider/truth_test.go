package semanticprovider_test

import (
	"context"
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
	Tables map[string]struct {
		Columns string   `json:"columns"`
		Rows    [][]any  `json:"rows"`
		Days    []string `json:"days"`
	} `json:"tables"`
	Cases []struct {
		Name       string         `json:"name"`
		Request    map[string]any `json:"request"`
		CheckQuery string         `json:"check_query"`
		Ordered    bool           `json:"ordered"`
	} `json:"cases"`
}

// TestMetricFlowTruth compiles each ported case, runs it on the Doris
// simulator and compares the rows with those of MetricFlow's check query
// over the same tables.
func TestMetricFlowTruth(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(truthDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tc truthCases
	if err := json.Unmarshal(raw, &tc); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	execAll(t, e.maria, "DROP DATABASE IF EXISTS `mf`", "CREATE DATABASE `mf`")
	t.Cleanup(func() { e.maria.ExecContext(context.Background(), "DROP DATABASE IF EXISTS `mf`") })
	for name, tb := range tc.Tables {
		execAll(t, e.maria, "CREATE TABLE `mf`.`"+name+"` ("+tb.Columns+")")
		var vals []string
		for _, r := range tb.Rows {
			var vs []string
			for _, v := range r {
				switch x := v.(type) {
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
		execAll(t, e.maria, "INSERT INTO `mf`.`"+name+"` VALUES "+strings.Join(vals, ", "))
	}
	pv := newProvider(t, "mf", filepath.Join(truthDir, "semantic_manifest.json"))
	for _, c := range tc.Cases {
		t.Run(c.Name, func(t *testing.T) {
			got := runQuery(t, e.doris, pv.compile(t, c.Request))
			sameRows(t, got, runQuery(t, e.maria, c.CheckQuery), c.Ordered)
		})
	}
}
