package sim_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
)

// The simulator's search support, against truth computed here from the
// rows the test writes.

func writer(t testing.TB, addr string) *sql.DB {
	return open(t, addr, mariadb.WriterUser, mariadb.WriterPassword, "demo")
}

func mustExec(t testing.TB, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%.120s: %v", q, err)
	}
}

// englishTokens is the english parser, written independently of the
// simulator: lower-cased runs of ASCII letters and digits.
func englishTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

func TestSimSearchText(t *testing.T) {
	s, _ := startSim(t, "3.0")
	w := writer(t, s.Addr())
	mustExec(t, w, "DROP TABLE IF EXISTS sim_docs")
	mustExec(t, w, `CREATE TABLE sim_docs (
  id BIGINT NOT NULL,
  body STRING NULL,
  plain VARCHAR(100) NULL,
  INDEX idx_body (body) USING INVERTED PROPERTIES("parser" = "english", "support_phrase" = "true", "stopwords" = "none") COMMENT 'body words'
) ENGINE=OLAP DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS sim_docs") })
	vocab := []string{"apple", "Banana", "cherry", "date", "elder", "fig", "grape"}
	r := rand.New(rand.NewPCG(1, 2))
	docs := map[int]string{}
	var vals []string
	for i := 1; i <= 150; i++ {
		var ws []string
		for k := 0; k < 1+r.IntN(5); k++ {
			ws = append(ws, vocab[r.IntN(len(vocab))])
		}
		seps := []string{" ", ", ", "-", ". "}
		body := ""
		for k, wd := range ws {
			if k > 0 {
				body += seps[r.IntN(len(seps))]
			}
			body += wd
		}
		docs[i] = body
		vals = append(vals, fmt.Sprintf("(%d, '%s', 'x')", i, body))
	}
	mustExec(t, w, "INSERT INTO sim_docs VALUES "+strings.Join(vals, ","))

	rd := reader(t, s)
	idx := mustQuery(t, rd, "SHOW INDEX FROM demo.sim_docs")
	if len(idx.rows) != 1 || idx.rows[0][idx.col("Key_name")].String != "idx_body" || idx.rows[0][idx.col("Index_type")].String != "INVERTED" ||
		idx.rows[0][idx.col("Properties")].String != `("parser" = "english", "stopwords" = "none", "support_phrase" = "true")` {
		t.Fatalf("SHOW INDEX: %v", idx.rows)
	}
	ddl := mustQuery(t, rd, "SHOW CREATE TABLE sim_docs").rows[0][1].String
	if !strings.Contains(ddl, "INDEX idx_body (`body`) USING INVERTED PROPERTIES(\"parser\" = \"english\"") {
		t.Errorf("SHOW CREATE TABLE lacks the index:\n%s", ddl)
	}

	truth := func(op, q string) []string {
		qt := englishTokens(q)
		var out []string
		for id, body := range docs {
			dt := englishTokens(body)
			ok := false
			switch op {
			case "MATCH_ANY":
				for _, x := range qt {
					ok = ok || slices.Contains(dt, x)
				}
			case "MATCH_ALL":
				ok = len(qt) > 0
				for _, x := range qt {
					ok = ok && slices.Contains(dt, x)
				}
			case "MATCH_PHRASE", "MATCH_PHRASE_PREFIX":
				for start := 0; start+len(qt) <= len(dt) && !ok; start++ {
					ok = len(qt) > 0
					for k, x := range qt {
						last := k == len(qt)-1
						if op == "MATCH_PHRASE_PREFIX" && last {
							ok = ok && strings.HasPrefix(dt[start+k], x)
						} else {
							ok = ok && dt[start+k] == x
						}
					}
				}
			}
			if ok {
				out = append(out, strconv.Itoa(id))
			}
		}
		sort.Strings(out)
		return out
	}
	cases := []struct{ op, q string }{
		{"MATCH_ANY", "apple"}, {"MATCH_ANY", "BANANA fig"}, {"MATCH_ANY", "zzz"}, {"MATCH_ANY", "!!"},
		{"MATCH_ALL", "apple banana"}, {"MATCH_ALL", "cherry,date,fig"},
		{"MATCH_PHRASE", "apple banana"}, {"MATCH_PHRASE", "grape"}, {"MATCH_PHRASE", "date elder fig"},
		{"MATCH_PHRASE_PREFIX", "apple ban"}, {"MATCH_PHRASE_PREFIX", "gr"}, {"MATCH_PHRASE_PREFIX", "cherry d"},
	}
	for _, c := range cases {
		t.Run(c.op+"/"+c.q, func(t *testing.T) {
			got := mustQuery(t, rd, "SELECT id FROM sim_docs WHERE body "+c.op+" ? ORDER BY id", c.q)
			var ids []string
			for _, row := range got.rows {
				ids = append(ids, row[0].String)
			}
			sort.Strings(ids)
			if want := truth(c.op, c.q); !slices.Equal(ids, want) {
				t.Errorf("got %d rows %v, want %d %v", len(ids), ids, len(want), want)
			}
		})
	}
	// MATCH on a column without an inverted index fails as Doris does.
	_, err := query(t, rd, "SELECT id FROM sim_docs WHERE plain MATCH_ANY 'x'")
	if err == nil || !strings.Contains(err.Error(), "[INVERTED_INDEX_NOT_SUPPORTED]match_any not support execute_match") {
		t.Errorf("MATCH without an index: %v", err)
	}
	// EXPLAIN keeps the MATCH predicate.
	plan := mustQuery(t, rd, "EXPLAIN SELECT id FROM sim_docs WHERE body MATCH_ANY 'apple'")
	var text []string
	for _, row := range plan.rows {
		text = append(text, row[0].String)
	}
	if !strings.Contains(strings.Join(text, "\n"), "PREDICATES: body MATCH_ANY 'apple'") {
		t.Errorf("EXPLAIN:\n%s", strings.Join(text, "\n"))
	}
	// DROP TABLE forgets the indexes.
	mustExec(t, w, "DROP TABLE sim_docs")
	mustExec(t, w, "CREATE TABLE sim_docs (id INT, body STRING) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1")
	if idx := mustQuery(t, rd, "SHOW INDEX FROM sim_docs"); len(idx.rows) != 0 {
		t.Errorf("indexes survived DROP TABLE: %v", idx.rows)
	}
}

func TestSimTokenize(t *testing.T) {
	for _, c := range []struct{ profile, props, want string }{
		{"3.0", `"parser"="english"`, `["hello", "world", "42"]`},
		{"2.1", `"parser"="chinese"`, `["hello", "world", "42"]`},
		{"4.0", `"parser"="english"`, `[{ "token": "hello" }, { "token": "world" }, { "token": "42" }]`},
		{"4.0", `"parser"="english", "support_phrase"="true"`, `[{ "token": "hello", "position": 0 }, { "token": "world", "position": 2 }, { "token": "42", "position": 3 }]`},
	} {
		t.Run(c.profile+"/"+c.props, func(t *testing.T) {
			s, _ := startSim(t, c.profile)
			got := mustQuery(t, reader(t, s), "SELECT TOKENIZE('Hello, the World-42', ?)", c.props)
			if got.rows[0][0].String != c.want {
				t.Errorf("got %s, want %s", got.rows[0][0].String, c.want)
			}
		})
	}
	s, _ := startSim(t, "3.0")
	got := mustQuery(t, reader(t, s), `SELECT TOKENIZE('我来到北京清华大学', '"parser"="chinese"')`)
	if want := `["我", "来到", "北京", "清华大学"]`; got.rows[0][0].String != want {
		t.Errorf("chinese: got %s, want %s", got.rows[0][0].String, want)
	}
}

func TestSimVectorSearch(t *testing.T) {
	s, _ := startSim(t, "4.0")
	w := writer(t, s.Addr())
	mustExec(t, w, "DROP TABLE IF EXISTS sim_vecs")
	mustExec(t, w, `CREATE TABLE sim_vecs (
  id INT NOT NULL,
  emb ARRAY<FLOAT> NOT NULL,
  INDEX v (emb) USING ANN PROPERTIES("index_type"="hnsw", "metric_type"="l2_distance", "dim"="4")
) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1`)
	t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS sim_vecs") })
	r := rand.New(rand.NewPCG(3, 4))
	vecs := map[int][]float64{}
	var vals []string
	for i := 1; i <= 300; i++ {
		v := make([]float64, 4)
		parts := make([]string, 4)
		for k := range v {
			v[k] = math.Round((r.Float64()*2-1)*1e4) / 1e4
			parts[k] = strconv.FormatFloat(v[k], 'f', -1, 64)
		}
		vecs[i] = v
		vals = append(vals, fmt.Sprintf("(%d, [%s])", i, strings.Join(parts, ", ")))
	}
	mustExec(t, w, "INSERT INTO sim_vecs VALUES "+strings.Join(vals, ","))
	q := []float64{0.1, -0.2, 0.3, 0.05}
	rd := reader(t, s)
	for _, c := range []struct {
		fn, dir string
		dist    func(a, b []float64) float64
	}{
		{"l2_distance_approximate", "ASC", func(a, b []float64) float64 {
			s := 0.0
			for k := range a {
				s += (a[k] - b[k]) * (a[k] - b[k])
			}
			return math.Sqrt(s)
		}},
		{"inner_product_approximate", "DESC", func(a, b []float64) float64 {
			s := 0.0
			for k := range a {
				s += a[k] * b[k]
			}
			return s
		}},
	} {
		t.Run(c.fn, func(t *testing.T) {
			got := mustQuery(t, rd, fmt.Sprintf("SELECT id, %s(emb, [0.1, -0.2, 0.3, 0.05]) AS d FROM sim_vecs ORDER BY d %s LIMIT 10", c.fn, c.dir))
			ids := make([]int, 0, len(vecs))
			for id := range vecs {
				ids = append(ids, id)
			}
			sort.Slice(ids, func(a, b int) bool {
				da, db := c.dist(vecs[ids[a]], q), c.dist(vecs[ids[b]], q)
				if c.dir == "DESC" {
					return da > db
				}
				return da < db
			})
			for k, row := range got.rows {
				d, _ := strconv.ParseFloat(row[1].String, 64)
				if row[0].String != strconv.Itoa(ids[k]) || math.Abs(d-c.dist(vecs[ids[k]], q)) > 1e-9 {
					t.Errorf("rank %d: got id %s distance %s, want id %d distance %v", k, row[0].String, row[1].String, ids[k], c.dist(vecs[ids[k]], q))
				}
			}
			if len(got.rows) != 10 {
				t.Errorf("%d rows, want 10", len(got.rows))
			}
		})
	}
	// A query vector of the wrong dimension is refused.
	if _, err := query(t, rd, "SELECT id FROM sim_vecs ORDER BY l2_distance_approximate(emb, [1, 2]) LIMIT 3"); err == nil ||
		!strings.Contains(err.Error(), "different input element sizes of array: 4 and 2") {
		t.Errorf("wrong dimension: %v", err)
	}
	// The plan shows the ANN top-n pushdown.
	plan := mustQuery(t, rd, "EXPLAIN SELECT id, l2_distance_approximate(emb, CAST('[0.1,0.2,0.3,0.4]' AS ARRAY<FLOAT>)) AS d FROM sim_vecs ORDER BY d LIMIT 5")
	var text []string
	for _, row := range plan.rows {
		text = append(text, row[0].String)
	}
	if j := strings.Join(text, "\n"); !strings.Contains(j, "ANN SORT INFO:") || !strings.Contains(j, "ANN SORT LIMIT: 5") {
		t.Errorf("EXPLAIN lacks the ANN pushdown:\n%s", j)
	}
	// BUILD INDEX leaves a job behind.
	mustExec(t, w, "BUILD INDEX v ON sim_vecs")
	jobs := mustQuery(t, rd, "SHOW BUILD INDEX FROM demo WHERE TableName = 'sim_vecs'")
	if len(jobs.rows) != 1 || jobs.rows[0][jobs.col("State")].String != "FINISHED" ||
		!strings.HasPrefix(jobs.rows[0][jobs.col("AlterInvertedIndexes")].String, "[ADD INDEX v (`emb`) USING ANN PROPERTIES(") {
		t.Errorf("SHOW BUILD INDEX: %v", jobs.rows)
	}
	var raw string
	if err := rd.QueryRow("SELECT emb FROM sim_vecs WHERE id = 1").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var back []float64
	if err := json.Unmarshal([]byte(raw), &back); err != nil || !slices.Equal(back, vecs[1]) {
		t.Errorf("stored array %s, want %v (%v)", raw, vecs[1], err)
	}
}

func TestSimVectorNeeds40(t *testing.T) {
	s, _ := startSim(t, "3.0")
	rd := reader(t, s)
	if _, err := query(t, rd, "SELECT l2_distance_approximate([0.0], [0.0])"); err == nil || !strings.Contains(err.Error(), "Can not found function 'l2_distance_approximate'") {
		t.Errorf("3.0 approximate distance: %v", err)
	}
	got := mustQuery(t, rd, "SELECT l2_distance([0, 3], [4, 0])")
	if got.rows[0][0].String != "5" {
		t.Errorf("l2_distance = %s, want 5", got.rows[0][0].String)
	}
	w := writer(t, s.Addr())
	_, err := w.Exec("CREATE TABLE sim_ann30 (id INT, e ARRAY<FLOAT> NOT NULL, INDEX v (e) USING ANN PROPERTIES(\"dim\"=\"2\")) DUPLICATE KEY(id)")
	if err == nil || !strings.Contains(err.Error(), "mismatched input 'ANN'") {
		t.Errorf("ANN index on 3.0: %v", err)
	}
	if idx := mustQuery(t, rd, "SHOW INDEX FROM demo.documents"); len(idx.rows) != 2 {
		t.Errorf("demo.documents on 3.0 shows %d indexes, want the 2 inverted ones: %v", len(idx.rows), idx.rows)
	}
}
