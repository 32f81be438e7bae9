package search_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/sim"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// checkGolden compares v (as indented JSON) with testdata/golden/name.
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "testdata", "golden", name)
	if *doristest.UpdateGoldens {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./doris -run %s -update)", err, t.Name())
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Errorf("%s differs from its golden file; if intended, run go test ./doris -run %s -update and review the diff:\n%s", name, t.Name(), buf.String())
	}
}

// simFaultMatch makes Doris refuse to plan MATCH (a release without it).
func simFaultMatch() sim.Fault {
	return sim.Fault{Match: "MATCH_ANY 'doris'", ErrCode: 1105,
		ErrMsg: "errCode = 2, detailMessage = \nmismatched input 'MATCH_ANY' expecting {<EOF>, ';'}(line 1, pos 60)"}
}

// TestInspectSearchIndexes: the demo's indexes per profile, with their
// properties, capabilities and build jobs, as the simulator keeps them.
func TestInspectSearchIndexes(t *testing.T) {
	for _, profile := range []string{"3.0", "4.0"} {
		t.Run(profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile})
			var d struct {
				Indexes []map[string]any `json:"indexes"`
				Jobs    []map[string]any `json:"build_jobs"`
				Caps    map[string]any   `json:"capabilities"`
			}
			e.Ok("doris_search", "inspect_search_indexes", map[string]any{"database": "demo", "table": "documents"}).Decode(t, &d)
			var names []string
			for _, ix := range d.Indexes {
				names = append(names, ix["name"].(string)+":"+ix["index_type"].(string))
			}
			want := []string{"idx_body:INVERTED", "idx_title:INVERTED"}
			if profile == "4.0" {
				want = []string{"idx_body:INVERTED", "idx_embedding:ANN", "idx_title:INVERTED"}
			}
			if !slices.Equal(names, want) {
				t.Fatalf("indexes %v, want %v", names, want)
			}
			if d.Indexes[0]["parser"] != "english" || d.Indexes[0]["support_phrase"] != true || d.Caps["text"] != true {
				t.Errorf("idx_body %v, capabilities %v", d.Indexes[0], d.Caps)
			}
			if profile == "4.0" {
				ann := d.Indexes[1]
				if ann["dimension"] != float64(mariadb.DocumentsDim) || ann["metric_type"] != "l2_distance" || ann["ann_index_type"] != "hnsw" ||
					d.Caps["hybrid"] != true || len(d.Jobs) != 1 || d.Jobs[0]["state"] != "FINISHED" {
					t.Errorf("ANN %v, capabilities %v, jobs %v", ann, d.Caps, d.Jobs)
				}
			} else if d.Caps["vector"] != false || len(d.Jobs) != 0 {
				t.Errorf("3.0 capabilities %v, jobs %v", d.Caps, d.Jobs)
			}
			e.Ok("doris_search", "inspect_search_indexes", map[string]any{"database": "demo", "table": "documents", "index": "IDX_BODY"}).Decode(t, &d)
			if len(d.Indexes) != 1 || d.Indexes[0]["name"] != "idx_body" {
				t.Errorf("one index: %v", d.Indexes)
			}
			e.Fail("doris_search", "inspect_search_indexes", map[string]any{"database": "demo", "table": "documents", "index": "nope"},
				"CHILD_ARGUMENTS_INVALID", "SEARCH_INDEX_NOT_FOUND")
			e.Fail("doris_search", "inspect_search_indexes", map[string]any{"database": "demo", "table": "nope"},
				"CHILD_ARGUMENTS_INVALID", "SEARCH_TABLE_NOT_FOUND")
		})
	}
	// Build jobs come from BUILD INDEX through the simulator.
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "4.0"})
	w := doristest.SearchWriter(t, e)
	for _, q := range []string{"DROP TABLE IF EXISTS s_build",
		"CREATE TABLE s_build (id INT, note VARCHAR(50)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1",
		`CREATE INDEX i_note ON s_build (note) USING INVERTED PROPERTIES("parser"="unicode")`, "BUILD INDEX i_note ON s_build"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { w.Exec("DROP TABLE s_build") })
	var d struct {
		Jobs []map[string]any `json:"build_jobs"`
	}
	e.Ok("doris_search", "inspect_search_indexes", map[string]any{"database": "demo", "table": "s_build"}).Decode(t, &d)
	if len(d.Jobs) != 1 || !strings.Contains(d.Jobs[0]["alter_indexes"].(string), "INDEX i_note (`note`) USING INVERTED") {
		t.Errorf("build jobs %v", d.Jobs)
	}
}

// TestPreviewTextAnalysis: the tokens Doris's TOKENIZE returns, in each
// release's format, and the refusals.
func TestPreviewTextAnalysis(t *testing.T) {
	type preview struct {
		Tokens []struct {
			Token    string `json:"token"`
			Position *int   `json:"position"`
		} `json:"tokens"`
		Count int `json:"token_count"`
	}
	for _, profile := range []string{"2.1", "3.0", "4.0"} {
		t.Run(profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile})
			var p preview
			e.Ok("doris_search", "preview_text_analysis", map[string]any{"text": "The QUICK brown-fox, 42 times", "analyzer": "english"}).Decode(t, &p)
			var got []string
			for _, tk := range p.Tokens {
				got = append(got, tk.Token)
			}
			if want := []string{"quick", "brown", "fox", "42", "times"}; !slices.Equal(got, want) || p.Count != 5 {
				t.Errorf("english tokens %v, want %v (the stop word dropped, lower-cased)", got, want)
			}
			e.Ok("doris_search", "preview_text_analysis", map[string]any{"text": "我来到北京清华大学", "analyzer": "chinese"}).Decode(t, &p)
			got = got[:0]
			for _, tk := range p.Tokens {
				got = append(got, tk.Token)
			}
			if want := []string{"我", "来到", "北京", "清华大学"}; !slices.Equal(got, want) {
				t.Errorf("chinese tokens %v, want %v", got, want)
			}
			e.Fail("doris_search", "preview_text_analysis", map[string]any{"text": "x", "analyzer": "english", "tokenizer": "standard"},
				"CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID")
			e.Fail("doris_search", "preview_text_analysis", map[string]any{"text": "x", "token_filters": []string{"lowercase"}},
				"CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID")
			if profile == "4.0" {
				// Custom analyzers are listed by SHOW INVERTED INDEX ANALYZER, which
				// needs ADMIN: the reader is told so, never the backend text.
				e.Fail("doris_search", "preview_text_analysis", map[string]any{"text": "x", "analyzer": "my_analyzer"},
					"CHILD_EXECUTION_FAILED", "SEARCH_PERMISSION_DENIED")
			} else {
				e.Fail("doris_search", "preview_text_analysis", map[string]any{"text": "x", "analyzer": "my_analyzer"},
					"CHILD_EXECUTION_FAILED", "SEARCH_CAPABILITY_UNSUPPORTED")
			}
		})
	}
	root := doristest.NewEnv(t, doristest.EnvOpts{Profile: "4.0", User: "root", Password: mariadb.DefaultRootPassword})
	root.Fail("doris_search", "preview_text_analysis", map[string]any{"text": "x", "analyzer": "my_analyzer"},
		"CHILD_ARGUMENTS_INVALID", "SEARCH_ANALYZER_NOT_FOUND")
}

// TestDiagnoseSearchQuery: the three sections, their findings and the
// refusals, for SQL and for search requests.
func TestDiagnoseSearchQuery(t *testing.T) {
	type diag struct {
		Target   string `json:"target"`
		Findings []struct {
			Code     string `json:"code"`
			Severity string `json:"severity"`
		} `json:"findings"`
		Sections map[string]struct {
			Status     string         `json:"status"`
			ReasonCode string         `json:"reason_code"`
			Data       map[string]any `json:"data"`
		} `json:"sections"`
	}
	codes := func(d diag) []string {
		var out []string
		for _, f := range d.Findings {
			out = append(out, f.Code)
		}
		return out
	}
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "4.0"})
	var d diag
	cd := e.Ok("doris_search", "diagnose_search_query", map[string]any{"include_profile": true, "search_request": map[string]any{
		"database": "demo", "table": "documents", "mode": "hybrid", "query": "vector", "fields": []string{"body"},
		"vector": []float64{0, 1, 0, 0, 0, 0, 0, 0}, "top_k": 5}}).Decode(t, &d)
	for _, want := range []string{"TEXT_INDEX_CONFIGURED", "ANN_INDEX_CONFIGURED", "MATCH_PREDICATE_PLANNED", "ANN_PUSHDOWN_OBSERVED"} {
		if !slices.Contains(codes(d), want) {
			t.Errorf("hybrid diagnosis lacks %s: %v", want, codes(d))
		}
	}
	for _, s := range []string{"indexes", "explain", "profile"} {
		if d.Sections[s].Status != "success" {
			t.Errorf("section %s: %+v", s, d.Sections[s])
		}
	}
	if len(cd.Evidence) == 0 || cd.Status != "success" || d.Target != "search_request" {
		t.Errorf("status %s, target %s, evidence %v", cd.Status, d.Target, cd.Evidence)
	}

	// Raw SQL over a column without an inverted index; an l2 ordering
	// without LIMIT gets no ANN pushdown.
	d = diag{}
	e.Ok("doris_search", "diagnose_search_query", map[string]any{
		"sql": "SELECT doc_id FROM demo.documents WHERE category MATCH_ANY 'search' ORDER BY l2_distance_approximate(embedding, [0,1,0,0,0,0,0,0])"}).Decode(t, &d)
	for _, want := range []string{"TEXT_INDEX_MISSING", "ANN_INDEX_CONFIGURED", "ANN_PUSHDOWN_NOT_OBSERVED"} {
		if !slices.Contains(codes(d), want) {
			t.Errorf("raw SQL diagnosis lacks %s: %v", want, codes(d))
		}
	}
	if _, ok := d.Sections["profile"]; ok {
		t.Error("a profile section without include_profile")
	}
	// A search request with index problems is diagnosed, not refused.
	d = diag{}
	e.Ok("doris_search", "diagnose_search_query", map[string]any{"search_request": map[string]any{
		"database": "demo", "table": "documents", "mode": "text", "query": "x", "fields": []string{"category"}}}).Decode(t, &d)
	if !slices.Contains(codes(d), "TEXT_INDEX_MISSING") || d.Sections["explain"].Status != "success" {
		t.Errorf("missing index diagnosis: %v %+v", codes(d), d.Sections)
	}
	// A target the SQL does not name plainly.
	d = diag{}
	e.Ok("doris_search", "diagnose_search_query", map[string]any{"sql": "SELECT 1"}).Decode(t, &d)
	if d.Sections["indexes"].Status != "partial" || !slices.Contains(codes(d), "INDEX_METADATA_NOT_BOUND") {
		t.Errorf("SELECT 1: %v %+v", codes(d), d.Sections)
	}
	e.Fail("doris_search", "diagnose_search_query", map[string]any{"sql": "DELETE FROM demo.documents"}, "CHILD_ARGUMENTS_INVALID", "SEARCH_READ_ONLY_VIOLATION")
	e.Fail("doris_search", "diagnose_search_query", map[string]any{"sql": "SHOW TABLES"}, "CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID")
	e.Fail("doris_search", "diagnose_search_query", map[string]any{"sql": "SELECT 1", "search_request": map[string]any{
		"database": "demo", "table": "documents", "mode": "text", "query": "x"}}, "CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID")
	e.Fail("doris_search", "diagnose_search_query", map[string]any{"sql": "SELECT * FROM demo.nope WHERE a MATCH_ANY 'x'"},
		"CHILD_ARGUMENTS_INVALID", "SEARCH_TABLE_NOT_FOUND")
}
