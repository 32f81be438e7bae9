package search

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// fuzzTarget is a table like the ones search_data reads: text, numeric,
// nullable and vector columns with inverted and ANN indexes.
func fuzzTarget() *searchTarget {
	return &searchTarget{Database: "demo", Table: "docs",
		Columns: []columnInfo{{"id", "bigint", "bigint"}, {"title", "varchar", "varchar(200)"}, {"body", "text", "text"},
			{"note", "varchar", "varchar(100)"}, {"cat", "int", "int"}, {"price", "decimal", "decimal(10,2)"},
			{"emb", "array", "array<float>"}, {"Mixed Case", "varchar", "varchar(10)"}},
		Indexes: []searchIndexInfo{
			{Name: "i_title", Type: "INVERTED", Columns: []string{"title"}, Properties: map[string]string{"parser": "unicode"}},
			{Name: "i_body", Type: "INVERTED", Columns: []string{"body"}, Properties: map[string]string{"parser": "english", "support_phrase": "true"}},
			{Name: "i_cat", Type: "INVERTED", Columns: []string{"cat"}, Properties: map[string]string{}},
			{Name: "v", Type: "ANN", Columns: []string{"emb"}, Properties: map[string]string{"metric_type": "l2_distance", "dim": "3", "index_type": "hnsw"}},
		}}
}

// FuzzSearchDataArgs: whatever the arguments, a request search_data
// accepts becomes exactly one read-only SELECT that passes the guard,
// reads only the named table (one FROM, naming `demo`.`docs`, and no
// other table reference), quotes every identifier, and carries every
// caller value as a literal; a refused one is a structured *Error.
func FuzzSearchDataArgs(f *testing.F) {
	for _, s := range []string{
		`{"database":"demo","table":"docs","mode":"text","query":"hello world"}`,
		`{"database":"demo","table":"docs","mode":"text","query":"a' OR 1=1 --","fields":["body","title"],"text_operator":"phrase"}`,
		`{"database":"demo","table":"docs","mode":"vector","vector":[1,2,3],"top_k":5}`,
		`{"database":"demo","table":"docs","mode":"hybrid","query":"x","vector":[1e-3,-2,3.5],"vector_field":"emb","return_fields":["id","Mixed Case"]}`,
		`{"database":"demo","table":"docs","mode":"text","query":"q","filters":{"cat":{"operator":"in","values":[1,"2",true]},"price":{"operator":"gte","value":"9.5"},"note":{"operator":"is_null"}}}`,
		`{"database":"demo","table":"docs","mode":"text","query":"q","filters":{"title":"x\\u0000y","id":{"operator":"not_in","values":["1); DROP TABLE t; --"]}}}`,
		`{"database":"demo","table":"docs; DROP","mode":"text","query":"q"}`,
		`{"database":"demo","table":"docs","mode":"text","query":"q","fields":["body` + "`" + `"]}`,
	} {
		f.Add([]byte(s))
	}
	t0 := fuzzTarget()
	f.Fuzz(func(t *testing.T, raw []byte) {
		a, err := decodeSearchArgs(raw)
		if err != nil {
			return
		}
		topK, err := a.precheck(true, 10000)
		if err != nil {
			var de *doris.Error
			if !errors.As(err, &de) || de.Reason == "" {
				t.Fatalf("refusal is not a structured error: %v", err)
			}
			return
		}
		if a.Database != "demo" || a.Table != "docs" {
			return // another table: readTarget would not find it
		}
		cs, err := buildSearch(t0, a, topK, false)
		if err != nil {
			var de *doris.Error
			if !errors.As(err, &de) || de.Reason == "" || strings.Contains(de.Message, "SELECT") {
				t.Fatalf("refusal is not a clean structured error: %v", err)
			}
			return
		}
		st, err := guard.Check(cs.SQL)
		if err != nil || st.Kind != guard.Select {
			t.Fatalf("accepted request built SQL the guard refuses (%v):\n%s", err, cs.SQL)
		}
		toks, err := guard.Scan(cs.SQL)
		if err != nil {
			t.Fatal(err)
		}
		froms, selects := 0, 0
		for i, tk := range toks {
			up := strings.ToUpper(tk.Text)
			switch {
			case tk.Kind == guard.TokWord && up == "SELECT":
				selects++
			case tk.Kind == guard.TokWord && up == "FROM":
				froms++
				if i+3 >= len(toks) || toks[i+1].Text != "`demo`" || toks[i+2].Text != "." || toks[i+3].Text != "`docs`" {
					t.Fatalf("FROM does not name `demo`.`docs`:\n%s", cs.SQL)
				}
			case tk.Kind == guard.TokWord && (up == "JOIN" || up == "UNION" || up == "INTO" || up == "DROP" || up == "INSERT"):
				t.Fatalf("unexpected %s in\n%s", up, cs.SQL)
			case tk.Kind == guard.TokQuoted:
				name := strings.ReplaceAll(strings.Trim(tk.Text, "`"), "``", "`")
				if _, ok := t0.column(name); !ok && name != "demo" && name != "docs" && name != distanceAlias {
					t.Fatalf("identifier %s is not a column of the table:\n%s", tk.Text, cs.SQL)
				}
			case tk.Kind == guard.TokWord && i > 0 && toks[i-1].Text == "." && up != "`DOCS`":
				t.Fatalf("qualified bare word %s:\n%s", tk.Text, cs.SQL)
			}
		}
		if froms != 1 || selects != 1 {
			t.Fatalf("%d FROM and %d SELECT in\n%s", froms, selects, cs.SQL)
		}
		// The query text, when searched, is bound as a string literal.
		if len(cs.TextFields) > 0 && !slices.ContainsFunc(toks, func(tk guard.Token) bool { return tk.Kind == guard.TokString }) {
			t.Fatalf("no literal for the query text in\n%s", cs.SQL)
		}
	})
}
