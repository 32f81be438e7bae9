package semanticprovider_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/semanticprovider"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// corpusDir holds the real manifests whose licenses allow redistribution,
// and SOURCES.tsv, where every manifest of the corpus came from (those
// without a license are listed there and read from
// $DORIS_MCP_SEMANTIC_CORPUS; testdata/corpus/README.md says how to
// assemble it).
const corpusDir = "testdata/corpus"

type corpusEntry struct {
	file, repo, commit, path, sha, license string
	data                                   []byte
}

// loadCorpus returns the corpus entries that are present, each checked
// against its recorded SHA-256.
func loadCorpus(t *testing.T) (present []corpusEntry, listed int) {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "SOURCES.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	extra := os.Getenv("DORIS_MCP_SEMANTIC_CORPUS")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) < 6 {
			t.Fatalf("SOURCES.tsv: bad line %q", line)
		}
		listed++
		e := corpusEntry{file: c[0], repo: c[1], commit: c[2], path: c[3], sha: c[4], license: c[5]}
		candidates := []string{filepath.Join(corpusDir, e.file), filepath.Join("testdata", e.file)}
		if extra != "" {
			candidates = append(candidates, filepath.Join(extra, e.file))
		}
		for _, p := range candidates {
			if b, err := os.ReadFile(p); err == nil {
				e.data = b
				break
			}
		}
		if e.data == nil {
			continue
		}
		sum := sha256.Sum256(e.data)
		if hex.EncodeToString(sum[:]) != e.sha {
			t.Fatalf("%s: SHA-256 differs from SOURCES.tsv: not the manifest recorded there", e.file)
		}
		present = append(present, e)
	}
	return present, listed
}

// dorisStyle re-renders a manifest's relations as dbt-doris writes them:
// `schema`.`alias`, no database part.
func dorisStyle(t *testing.T, data []byte) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	bq := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	models, _ := doc["semantic_models"].([]any)
	for _, m := range models {
		nr, _ := m.(map[string]any)["node_relation"].(map[string]any)
		if nr == nil {
			continue
		}
		s, _ := nr["schema_name"].(string)
		a, _ := nr["alias"].(string)
		nr["relation_name"] = bq(s) + "." + bq(a)
		nr["database"] = nil
	}
	if pc, _ := doc["project_configuration"].(map[string]any); pc != nil {
		tcs, _ := pc["time_spine_table_configurations"].([]any)
		for _, tc := range tcs {
			m := tc.(map[string]any)
			loc, _ := m["location"].(string)
			parts := strings.Split(loc, ".")
			if len(parts) >= 2 {
				unq := func(s string) string { return strings.Trim(s, "\"`") }
				m["location"] = bq(unq(parts[len(parts)-2])) + "." + bq(unq(parts[len(parts)-1]))
			}
		}
		spines, _ := pc["time_spines"].([]any)
		for _, sp := range spines {
			nr, _ := sp.(map[string]any)["node_relation"].(map[string]any)
			if nr == nil {
				continue
			}
			s, _ := nr["schema_name"].(string)
			a, _ := nr["alias"].(string)
			nr["relation_name"] = bq(s) + "." + bq(a)
			nr["database"] = nil
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// corpusCounts is what one style of the corpus gives.
type corpusCounts struct {
	manifests, metrics, compiled int
	refused                      map[string]int
	sqls                         map[string]string // manifest/metric -> SQL
}

// acceptableRefusals are the reasons a real manifest's metric may be
// refused for: a feature the provider does not compile, or an element
// the manifest itself gets wrong. Any other reason is a provider bug.
var acceptableRefusals = map[string]bool{
	semanticprovider.ReasonConversionUnsupported:  true,
	semanticprovider.ReasonNonAdditiveUnsupported: true,
	semanticprovider.ReasonAggregationUnsupported: true,
	semanticprovider.ReasonGrainUnsupported:       true,
	semanticprovider.ReasonExpressionUnsupported:  true,
	semanticprovider.ReasonTimeSpineRequired:      true,
	semanticprovider.ReasonValidityUnsupported:    true,
	semanticprovider.ReasonElementInvalid:         true,
	semanticprovider.ReasonFieldUnknown:           true,
	semanticprovider.ReasonRelationInvalid:        true,
	semanticprovider.ReasonWhereInvalid:           true,
	semanticprovider.ReasonJoinAmbiguous:          true,
	semanticprovider.ReasonOffsetUnsupported:      true,
}

// runCorpus loads every manifest and compiles each metric, grouped by
// metric_time when the metric has it, else alone.
func runCorpus(t *testing.T, entries []corpusEntry, style func(*testing.T, []byte) []byte) corpusCounts {
	t.Helper()
	cc := corpusCounts{refused: map[string]int{}, sqls: map[string]string{}}
	for _, e := range entries {
		data := e.data
		if style != nil {
			data = style(t, data)
		}
		if err := semanticprovider.CheckManifest(data); err != nil {
			t.Errorf("%s (%s@%s) does not load: %v", e.file, e.repo, e.commit, err)
			continue
		}
		cc.manifests++
		pv := newProvider(t, "c", writeManifest(t, string(data)))
		for _, is := range issues(t, pv) {
			t.Logf("%s: %s", e.file, is)
		}
		lst, reason := pv.call(t, "list_metrics", map[string]any{"limit": 1000, "include_dimensions": true})
		if reason != "" {
			t.Fatalf("%s: list_metrics refused with %s", e.file, reason)
		}
		for _, it := range lst["items"].([]any) {
			m := it.(map[string]any)
			name := m["name"].(string)
			cc.metrics++
			req := map[string]any{"metrics": []string{name}}
			hasTime := false
			if dims, ok := m["dimensions"].([]any); ok {
				for _, d := range dims {
					if d == "metric_time" {
						hasTime = true
					}
				}
			}
			if hasTime {
				req["group_by"] = []string{"metric_time"}
			}
			r, sql := compileReason(t, pv, req)
			if r != "" {
				t.Logf("%s: metric %s refused with %s", e.file, name, r)
				cc.refused[r]++
				if !acceptableRefusals[r] {
					t.Errorf("%s: metric %s refused with %s", e.file, name, r)
				}
				continue
			}
			if _, err := guard.Check(sql); err != nil {
				t.Errorf("%s: metric %s compiles to SQL the guard refuses: %v", e.file, name, err)
			}
			cc.compiled++
			cc.sqls[e.file+"/"+name] = sql
		}
	}
	return cc
}

func (cc corpusCounts) String() string {
	var rs []string
	for r, n := range cc.refused {
		rs = append(rs, r+"="+itoa(n))
	}
	sort.Strings(rs)
	return itoa(cc.manifests) + " manifests, " + itoa(cc.metrics) + " metrics: " + itoa(cc.compiled) + " compiled, refused: " + strings.Join(rs, ", ")
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestCorpus loads real public semantic manifests (see
// testdata/corpus/SOURCES.tsv), as dbt wrote them and re-rendered with
// dbt-doris's quoting: each loads, every metric compiles to SQL the guard
// accepts or is refused alone with a known reason, and both renderings
// compile alike.
func TestCorpus(t *testing.T) {
	entries, listed := loadCorpus(t)
	if os.Getenv("DORIS_MCP_SEMANTIC_CORPUS") != "" && len(entries) != listed {
		t.Fatalf("DORIS_MCP_SEMANTIC_CORPUS is set but only %d of the %d listed manifests are there", len(entries), listed)
	}
	orig := runCorpus(t, entries, nil)
	doris := runCorpus(t, entries, dorisStyle)
	t.Logf("as written: %s", orig)
	t.Logf("dbt-doris:  %s", doris)
	if orig.String() != doris.String() {
		t.Errorf("the two renderings compile differently:\n%s\n%s", orig, doris)
	}
	if len(entries) < 8 {
		t.Fatalf("only %d corpus manifests are present", len(entries))
	}
}
