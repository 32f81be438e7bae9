package search_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// doris_search against truth computed here from the rows the test writes
// through the simulator.

// corpus is a table of documents the test wrote, with everything needed to
// compute the right answer of any search over it.
type corpus struct {
	table   string
	body    map[int]*string // nil: NULL
	cat     map[int]int
	price   map[int]float64
	tag     map[int]*string
	l2, ip  map[int][]float64
	vocab   []string
	dim     int
	vectors bool
}

// writeCorpus creates table (through the simulator, in Doris DDL) with an
// english inverted index on body (phrase support on), an untokenized one
// on tag, no index on note, and with vectors two ANN-indexed ARRAY<FLOAT>
// columns (l2 and inner product), then writes n documents.
func writeCorpus(t *testing.T, e *doristest.Env, table string, n int, vectors bool) *corpus {
	t.Helper()
	w := doristest.SearchWriter(t, e)
	exec := func(q string) {
		t.Helper()
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%.160s: %v", q, err)
		}
	}
	exec("DROP TABLE IF EXISTS " + table)
	t.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS " + table) })
	c := &corpus{table: table, body: map[int]*string{}, cat: map[int]int{}, price: map[int]float64{}, tag: map[int]*string{},
		l2: map[int][]float64{}, ip: map[int][]float64{}, dim: 6, vectors: vectors,
		vocab: []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"}}
	vecCols, vecIdx := "", ""
	if vectors {
		vecCols = ", emb_l2 ARRAY<FLOAT> NOT NULL, emb_ip ARRAY<FLOAT> NOT NULL"
		vecIdx = `, INDEX v_l2 (emb_l2) USING ANN PROPERTIES("index_type"="hnsw", "metric_type"="l2_distance", "dim"="6")` +
			`, INDEX v_ip (emb_ip) USING ANN PROPERTIES("index_type"="hnsw", "metric_type"="inner_product", "dim"="6")`
	}
	exec(`CREATE TABLE ` + table + ` (
  id INT NOT NULL COMMENT 'document id',
  body STRING NULL,
  cat INT NOT NULL,
  price DECIMAL(10,2) NOT NULL,
  tag VARCHAR(20) NULL,
  note VARCHAR(100) NULL` + vecCols + `,
  INDEX i_body (body) USING INVERTED PROPERTIES("parser" = "english", "support_phrase" = "true"),
  INDEX i_tag (tag) USING INVERTED,
  INDEX i_note_ng (note) USING NGRAM_BF PROPERTIES("gram_size" = "3", "bf_size" = "256")` + vecIdx + `
) ENGINE=OLAP DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	r := rand.New(rand.NewPCG(uint64(n), 99))
	seps := []string{" ", ", ", "-", ". ", " / ", "\n"}
	tags := []string{"red", "green", "blue"}
	var rows []string
	vec := func() []float64 {
		v := make([]float64, c.dim)
		for k := range v {
			v[k] = math.Round((r.Float64()*2-1)*1e4) / 1e4
		}
		return v
	}
	lit := func(v []float64) string {
		parts := make([]string, len(v))
		for k, f := range v {
			parts[k] = strconv.FormatFloat(f, 'f', -1, 64)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	for i := 1; i <= n; i++ {
		body := "NULL"
		if i%17 != 0 {
			var b strings.Builder
			for k := 0; k < 2+r.IntN(7); k++ {
				if k > 0 {
					b.WriteString(seps[r.IntN(len(seps))])
				}
				wd := c.vocab[r.IntN(len(c.vocab))]
				if r.IntN(4) == 0 {
					wd = strings.ToUpper(wd[:1]) + wd[1:]
				}
				b.WriteString(wd)
			}
			s := b.String()
			c.body[i] = &s
			body = "'" + strings.ReplaceAll(s, "\n", `\n`) + "'"
		} else {
			c.body[i] = nil
		}
		c.cat[i] = r.IntN(5)
		c.price[i] = float64(r.IntN(100000)) / 100
		tag := "NULL"
		if r.IntN(5) > 0 {
			tg := tags[r.IntN(len(tags))]
			c.tag[i], tag = &tg, "'"+tg+"'"
		}
		row := fmt.Sprintf("(%d, %s, %d, %.2f, %s, NULL", i, body, c.cat[i], c.price[i], tag)
		if vectors {
			c.l2[i], c.ip[i] = vec(), vec()
			row += ", " + lit(c.l2[i]) + ", " + lit(c.ip[i])
		}
		rows = append(rows, row+")")
	}
	for k := 0; k < len(rows); k += 200 {
		exec("INSERT INTO " + table + " VALUES " + strings.Join(rows[k:min(k+200, len(rows))], ", "))
	}
	return c
}

// tokens is the english parser, written here independently of the
// simulator: lower-cased runs of ASCII letters and digits.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
}

// matches is the truth of "body MATCH_<op> q".
func (c *corpus) matches(op, q string, id int) bool {
	if c.body[id] == nil {
		return false
	}
	dt, qt := tokens(*c.body[id]), tokens(q)
	if len(qt) == 0 {
		return false
	}
	switch op {
	case "any":
		return slices.ContainsFunc(qt, func(x string) bool { return slices.Contains(dt, x) })
	case "all":
		return !slices.ContainsFunc(qt, func(x string) bool { return !slices.Contains(dt, x) })
	}
	for s := 0; s+len(qt) <= len(dt); s++ {
		ok := true
		for k, x := range qt {
			if op == "phrase_prefix" && k == len(qt)-1 {
				ok = ok && strings.HasPrefix(dt[s+k], x)
			} else {
				ok = ok && dt[s+k] == x
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (c *corpus) ids(keep func(id int) bool) []int {
	var out []int
	for id := range c.cat {
		if keep(id) {
			out = append(out, id)
		}
	}
	sort.Ints(out)
	return out
}

// searchRows runs search_data and returns the rows' ids (in order) and
// distances, with the child data.
func searchRows(t *testing.T, e *doristest.Env, args map[string]any) ([]int, []float64, doristest.ChildData) {
	t.Helper()
	var q doristest.QueryResult
	ev := e.Ok("doris_search", "search_data", args)
	cd := ev.Child(t)
	dec := json.NewDecoder(strings.NewReader(string(cd.Data)))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		t.Fatal(err)
	}
	var ids []int
	var dists []float64
	for _, row := range q.Rows {
		id, _ := strconv.Atoi(row["id"].(json.Number).String())
		ids = append(ids, id)
		if d, ok := row["__mcp_vector_distance"].(json.Number); ok {
			f, _ := d.Float64()
			dists = append(dists, f)
		}
	}
	if q.RowCount != len(q.Rows) {
		t.Fatalf("row_count %d for %d rows", q.RowCount, len(q.Rows))
	}
	return ids, dists, cd
}

func sortedInts(v []int) []int { s := slices.Clone(v); sort.Ints(s); return s }

// TestSearchDataText: text mode returns exactly the documents whose tokens
// match, under each operator, on every profile.
func TestSearchDataText(t *testing.T) {
	for _, profile := range []string{"2.1", "3.0", "4.0"} {
		t.Run(profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile})
			c := writeCorpus(t, e, "s_text_"+strings.ReplaceAll(profile, ".", ""), 300, false)
			cases := []struct{ op, q string }{
				{"any", "alpha"}, {"any", "Bravo, ECHO"}, {"any", "zulu"}, {"any", "juliet hotel india"},
				{"all", "alpha bravo"}, {"all", "charlie delta echo"}, {"all", "golf"},
				{"phrase", "alpha bravo"}, {"phrase", "hotel India"}, {"phrase", "echo echo"},
				{"phrase_prefix", "delta ec"}, {"phrase_prefix", "ju"}, {"phrase_prefix", "alpha bravo ch"},
			}
			for _, tc := range cases {
				want := c.ids(func(id int) bool { return c.matches(tc.op, tc.q, id) })
				got, _, cd := searchRows(t, e, map[string]any{"database": "demo", "table": c.table, "mode": "text",
					"query": tc.q, "fields": []string{"body"}, "text_operator": tc.op, "top_k": 1000, "return_fields": []string{"id"}})
				if !slices.Equal(sortedInts(got), want) {
					t.Errorf("%s %q: got %d ids, want %d\n got %v\nwant %v", tc.op, tc.q, len(got), len(want), sortedInts(got), want)
				}
				if m, _ := cd.Metadata["masking"].(map[string]any); m["applied"] != true {
					t.Errorf("%s %q: metadata.masking = %v", tc.op, tc.q, cd.Metadata["masking"])
				}
			}
			// top_k cuts, and says more rows match.
			all := c.ids(func(id int) bool { return c.matches("any", "alpha bravo", id) })
			got, _, cd := searchRows(t, e, map[string]any{"database": "demo", "table": c.table, "mode": "text",
				"query": "alpha bravo", "fields": []string{"body"}, "top_k": 5})
			if len(got) != 5 || len(all) <= 5 || !strings.Contains(strings.Join(cd.Warnings, " "), "More rows match than top_k (5)") {
				t.Errorf("top_k 5: %d rows (of %d), warnings %v", len(got), len(all), cd.Warnings)
			}
			for _, id := range got {
				if !slices.Contains(all, id) {
					t.Errorf("top_k returned %d, which does not match", id)
				}
			}
		})
	}
}

// TestSearchDataFilters: every typed filter narrows exactly.
func TestSearchDataFilters(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	c := writeCorpus(t, e, "s_filters", 300, false)
	q := strings.Join(c.vocab, " ")
	base := func(id int) bool { return c.matches("any", q, id) }
	eq := func(p *string, v string) bool { return p != nil && *p == v }
	cases := []struct {
		name    string
		filters map[string]any
		keep    func(id int) bool
	}{
		{"scalar eq", map[string]any{"cat": 2}, func(id int) bool { return c.cat[id] == 2 }},
		{"eq string", map[string]any{"tag": map[string]any{"operator": "eq", "value": "red"}}, func(id int) bool { return eq(c.tag[id], "red") }},
		{"ne", map[string]any{"cat": map[string]any{"operator": "ne", "value": 0}}, func(id int) bool { return c.cat[id] != 0 }},
		{"gt", map[string]any{"price": map[string]any{"operator": "gt", "value": 500.5}}, func(id int) bool { return c.price[id] > 500.5 }},
		{"gte lte", map[string]any{"cat": map[string]any{"operator": "gte", "value": 1}, "price": map[string]any{"operator": "lte", "value": "250"}},
			func(id int) bool { return c.cat[id] >= 1 && c.price[id] <= 250 }},
		{"lt", map[string]any{"id": map[string]any{"operator": "lt", "value": 40}}, func(id int) bool { return id < 40 }},
		{"in", map[string]any{"cat": map[string]any{"operator": "in", "values": []any{1, 3}}}, func(id int) bool { return c.cat[id] == 1 || c.cat[id] == 3 }},
		{"not_in", map[string]any{"tag": map[string]any{"operator": "not_in", "values": []any{"red", "blue"}}},
			func(id int) bool { return c.tag[id] != nil && *c.tag[id] != "red" && *c.tag[id] != "blue" }},
		{"is_null", map[string]any{"tag": map[string]any{"operator": "is_null"}}, func(id int) bool { return c.tag[id] == nil }},
		{"is_not_null", map[string]any{"tag": map[string]any{"operator": "is_not_null"}, "cat": 4}, func(id int) bool { return c.tag[id] != nil && c.cat[id] == 4 }},
		{"quote in value", map[string]any{"tag": "red' OR '1'='1"}, func(int) bool { return false }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := c.ids(func(id int) bool { return base(id) && tc.keep(id) })
			got, _, _ := searchRows(t, e, map[string]any{"database": "demo", "table": c.table, "mode": "text", "query": q,
				"fields": []string{"body"}, "filters": tc.filters, "top_k": 1000, "return_fields": []string{"id", "tag"}})
			if !slices.Equal(sortedInts(got), want) {
				t.Errorf("got %d ids, want %d\n got %v\nwant %v", len(got), len(want), sortedInts(got), want)
			}
		})
	}
}

func l2(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += (a[k] - b[k]) * (a[k] - b[k])
	}
	return math.Sqrt(s)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// TestSearchDataVectorAndHybrid: vector mode returns the true top_k by the
// index's metric (l2 ascending, inner product descending), with the true
// distances; hybrid returns the top_k by distance among the documents the
// text matches.
func TestSearchDataVectorAndHybrid(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "4.0"})
	c := writeCorpus(t, e, "s_vectors", 300, true)
	q := []float64{0.12, -0.4, 0.33, 0.05, -0.9, 0.6}
	rank := func(cands []int, field string) []int {
		out := slices.Clone(cands)
		sort.Slice(out, func(a, b int) bool {
			if field == "emb_ip" {
				return dot(c.ip[out[a]], q) > dot(c.ip[out[b]], q)
			}
			return l2(c.l2[out[a]], q) < l2(c.l2[out[b]], q)
		})
		return out
	}
	every := c.ids(func(int) bool { return true })
	for _, tc := range []struct {
		name, mode, field, query string
		filters                  map[string]any
		topK                     int
		keep                     func(id int) bool
	}{
		{"l2", "vector", "emb_l2", "", nil, 10, nil},
		{"inner product", "vector", "emb_ip", "", nil, 7, nil},
		{"l2 filtered", "vector", "emb_l2", "", map[string]any{"cat": map[string]any{"operator": "in", "values": []any{0, 1}}}, 12,
			func(id int) bool { return c.cat[id] <= 1 }},
		{"hybrid", "hybrid", "emb_l2", "alpha", nil, 8, func(id int) bool { return c.matches("any", "alpha", id) }},
		{"hybrid phrase ip", "hybrid", "emb_ip", "bravo charlie", nil, 5, func(id int) bool { return c.matches("phrase", "bravo charlie", id) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands := every
			if tc.keep != nil {
				cands = c.ids(tc.keep)
			}
			want := rank(cands, tc.field)
			want = want[:min(tc.topK, len(want))]
			args := map[string]any{"database": "demo", "table": c.table, "mode": tc.mode, "vector": q, "vector_field": tc.field,
				"top_k": tc.topK, "return_fields": []string{"id"}}
			if tc.filters != nil {
				args["filters"] = tc.filters
			}
			if tc.mode == "hybrid" {
				args["query"], args["fields"] = tc.query, []string{"body"}
				if strings.Contains(tc.query, " ") {
					args["text_operator"] = "phrase"
				}
			}
			got, dists, cd := searchRows(t, e, args)
			if !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
			for k, id := range got {
				truth := l2(c.l2[id], q)
				if tc.field == "emb_ip" {
					truth = dot(c.ip[id], q)
				}
				if math.Abs(dists[k]-truth) > 1e-9 {
					t.Errorf("rank %d (id %d): distance %v, want %v", k, id, dists[k], truth)
				}
			}
			ev := cd.Evidence[1]
			if ev["vector_dimension"] != float64(6) || ev["vector_field"] != tc.field {
				t.Errorf("evidence %v", ev)
			}
		})
	}
	// Without vector_field the one... two ANN columns: vector_field is required.
	e.Fail("doris_search", "search_data", map[string]any{"database": "demo", "table": c.table, "mode": "vector", "vector": q},
		"CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID")
}

// TestSearchDataRefusals: each problem gets its reason code, and nothing
// runs.
func TestSearchDataRefusals(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Profile: "4.0"})
	c := writeCorpus(t, e, "s_refuse", 40, true)
	w := doristest.SearchWriter(t, e)
	if _, err := w.Exec(`CREATE TABLE s_nophrase (id INT, body STRING, INDEX i (body) USING INVERTED PROPERTIES("parser"="english", "support_phrase"="false")) DUPLICATE KEY(id)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Exec("DROP TABLE s_nophrase") })
	q6 := []float64{1, 2, 3, 4, 5, 6}
	base := func(extra map[string]any) map[string]any {
		a := map[string]any{"database": "demo", "table": c.table}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	for _, tc := range []struct {
		name         string
		args         map[string]any
		code, reason string
	}{
		{"text field without index", base(map[string]any{"mode": "text", "query": "x", "fields": []string{"note"}}), "CHILD_EXECUTION_FAILED", "SEARCH_TEXT_INDEX_REQUIRED"},
		{"one field of two without index", base(map[string]any{"mode": "text", "query": "x", "fields": []string{"body", "note"}}), "CHILD_EXECUTION_FAILED", "SEARCH_TEXT_INDEX_REQUIRED"},
		{"phrase without support_phrase", map[string]any{"database": "demo", "table": "s_nophrase", "mode": "text", "query": "a b", "text_operator": "phrase"},
			"CHILD_EXECUTION_FAILED", "SEARCH_PHRASE_SUPPORT_REQUIRED"},
		{"vector field without ANN index", base(map[string]any{"mode": "vector", "vector": q6, "vector_field": "price"}), "CHILD_EXECUTION_FAILED", "SEARCH_ANN_INDEX_REQUIRED"},
		{"wrong dimension", base(map[string]any{"mode": "vector", "vector": []float64{1, 2, 3}, "vector_field": "emb_l2"}), "CHILD_ARGUMENTS_INVALID", "SEARCH_VECTOR_DIMENSION_MISMATCH"},
		{"unknown text field", base(map[string]any{"mode": "text", "query": "x", "fields": []string{"nope"}}), "CHILD_ARGUMENTS_INVALID", "SEARCH_COLUMN_NOT_FOUND"},
		{"unknown filter column", base(map[string]any{"mode": "text", "query": "x", "filters": map[string]any{"nope": 1}}), "CHILD_ARGUMENTS_INVALID", "SEARCH_COLUMN_NOT_FOUND"},
		{"unknown return field", base(map[string]any{"mode": "text", "query": "x", "return_fields": []string{"id", "nope"}}), "CHILD_ARGUMENTS_INVALID", "SEARCH_COLUMN_NOT_FOUND"},
		{"unknown vector field", base(map[string]any{"mode": "vector", "vector": q6, "vector_field": "nope"}), "CHILD_ARGUMENTS_INVALID", "SEARCH_COLUMN_NOT_FOUND"},
		{"unknown table", map[string]any{"database": "demo", "table": "nope", "mode": "text", "query": "x"}, "CHILD_ARGUMENTS_INVALID", "SEARCH_TABLE_NOT_FOUND"},
		{"invisible table", map[string]any{"database": "secret", "table": "salaries", "mode": "text", "query": "x"}, "CHILD_ARGUMENTS_INVALID", "SEARCH_TABLE_NOT_FOUND"},
		{"identifier with a backtick", base(map[string]any{"mode": "text", "query": "x", "fields": []string{"bo`dy"}}), "CHILD_ARGUMENTS_INVALID", "SEARCH_IDENTIFIER_INVALID"},
		{"query in vector mode", base(map[string]any{"mode": "vector", "vector": q6, "vector_field": "emb_l2", "query": "x"}), "CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID"},
		{"blank query", base(map[string]any{"mode": "text", "query": "   "}), "CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID"},
		{"in without values", base(map[string]any{"mode": "text", "query": "x", "filters": map[string]any{"cat": map[string]any{"operator": "in"}}}), "CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID"},
		{"is_null with a value", base(map[string]any{"mode": "text", "query": "x", "filters": map[string]any{"cat": map[string]any{"operator": "is_null", "value": 1}}}), "CHILD_ARGUMENTS_INVALID", "SEARCH_ARGUMENT_INVALID"},
		{"schema: unknown operator", base(map[string]any{"mode": "text", "query": "x", "filters": map[string]any{"cat": map[string]any{"operator": "like", "value": "%"}}}), "CHILD_ARGUMENTS_INVALID", ""},
		{"schema: SQL in filters", base(map[string]any{"mode": "text", "query": "x", "filters": map[string]any{"cat": []any{"1) OR (1=1"}}}), "CHILD_ARGUMENTS_INVALID", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := e.Fail("doris_search", "search_data", tc.args, tc.code, tc.reason)
			if strings.Contains(ev.Error.Message, "errCode") || strings.Contains(ev.Error.Message, "SELECT") {
				t.Errorf("backend or SQL text in the message: %s", ev.Error.Message)
			}
		})
	}
}

// TestSearchCapabilityPerProfile: all four children answer on 2.1, 3.0,
// 4.0 and 4.1; vector and hybrid search only from 4.0 (on the others a vector
// request is refused with its reason); the manifests match their goldens.
func TestSearchCapabilityPerProfile(t *testing.T) {
	for _, profile := range []string{"2.1", "3.0", "4.0", "4.1"} {
		t.Run(profile, func(t *testing.T) {
			e := doristest.NewEnv(t, doristest.EnvOpts{Profile: profile})
			m := e.Discover("doris_search")
			if len(m.Raw) > 16<<10 {
				t.Errorf("the doris_search manifest is %d bytes; the budget is 16 KiB", len(m.Raw))
			}
			wantVariant := map[string]string{"search_data": "inverted_text_search", "preview_text_analysis": "tokenizer_preview",
				"inspect_search_indexes": "inverted_index_metadata", "diagnose_search_query": "search_query_diagnosis"}
			if profile >= "4.0" {
				wantVariant["search_data"], wantVariant["inspect_search_indexes"] = "vector_hybrid_search", "ann_index_metadata"
			}
			golden := map[string]any{}
			for child, v := range wantVariant {
				a := m.Availability(t, child).Availability
				if !a.Callable || a.ActiveVariant != v || a.ReasonCode == "HANDLER_NOT_BOUND" {
					t.Errorf("%s: callable %v, variant %q (want %q), reason %s", child, a.Callable, a.ActiveVariant, v, a.ReasonCode)
				}
				golden[child] = map[string]any{"status": a.Status, "callable": a.Callable, "reason_code": a.ReasonCode,
					"active_variant": a.ActiveVariant, "limitations": a.Limitations, "detected_versions": a.DetectedVersions}
			}
			checkGolden(t, "search-availability-"+profile+".json", golden)
			vec := map[string]any{"database": "demo", "table": "documents", "mode": "vector", "vector": []float64{0, 1, 0, 0, 0, 0, 0, 0}, "top_k": 3}
			if profile >= "4.0" {
				e.Ok("doris_search", "search_data", vec)
				vec["mode"], vec["query"] = "hybrid", "vector"
				e.Ok("doris_search", "search_data", vec)
			} else {
				e.Fail("doris_search", "search_data", vec, "CHILD_EXECUTION_FAILED", "SEARCH_CAPABILITY_UNSUPPORTED")
				vec["mode"], vec["query"] = "hybrid", "vector"
				e.Fail("doris_search", "search_data", vec, "CHILD_EXECUTION_FAILED", "SEARCH_CAPABILITY_UNSUPPORTED")
			}
			// Each child answers on this profile.
			e.Ok("doris_search", "search_data", map[string]any{"database": "demo", "table": "documents", "mode": "text", "query": "index"})
			e.Ok("doris_search", "preview_text_analysis", map[string]any{"text": "Doris search"})
			e.Ok("doris_search", "inspect_search_indexes", map[string]any{"database": "demo", "table": "documents"})
			e.Ok("doris_search", "diagnose_search_query", map[string]any{"sql": "SELECT doc_id FROM demo.documents WHERE body MATCH_ANY 'index'"})
		})
	}
}

// TestSearchMatchProbeFails: a Doris that cannot plan MATCH makes text
// search unavailable with the probe's reason (the probe is real).
func TestSearchMatchProbeFails(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	e.Sim.Inject(simFaultMatch())
	defer e.Sim.ClearFaults()
	a := e.Discover("doris_search").Availability(t, "search_data").Availability
	if a.Callable || a.ReasonCode != "CAPABILITY_PROBE_NOT_SUPPORTED" {
		t.Fatalf("search_data with a failing MATCH probe: %+v", a)
	}
}
