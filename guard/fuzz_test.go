package guard_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// FuzzCheck checks, for any input: Check does not panic; scanning is
// deterministic; an accepted input is, by Scan's own tokens, exactly one
// statement (empty statements aside) that starts with an allowed keyword,
// whose hints set no variable and which calls no function that reaches
// outside Doris; and binding parameters to an accepted input yields text
// that Check accepts again.
func FuzzCheck(f *testing.F) {
	for _, dir := range []string{"allow", "deny"} {
		for _, cs := range loadCorpus(f, dir) {
			f.Add(cs.sql)
		}
	}
	for _, tt := range lexTests {
		f.Add(tt.input)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		st, err := guard.Check(sql)

		toks, serr := guard.Scan(sql)
		toks2, serr2 := guard.Scan(sql)
		if !reflect.DeepEqual(toks, toks2) || !reflect.DeepEqual(serr, serr2) {
			t.Fatalf("Scan is not deterministic for %q", sql)
		}

		if err != nil {
			var ge *guard.Error
			if !errors.As(err, &ge) || ge.Reason == "" || ge.Msg == "" {
				t.Fatalf("Check(%q) error %#v is not a complete *guard.Error", sql, err)
			}
			if ge.Pos < 0 || (ge.Pos > len(sql) && ge.Reason != guard.ReasonTooLong) {
				t.Fatalf("Check(%q) error position %d outside the input", sql, ge.Pos)
			}
			return
		}

		// Accepted: judge from Scan's tokens alone.
		if serr != nil {
			t.Fatalf("Check accepted %q but Scan fails: %v", sql, serr)
		}
		var code []guard.Token
		for _, tk := range toks {
			switch tk.Kind {
			case guard.TokHint:
				inner, err := guard.Scan(tk.Text[3 : len(tk.Text)-2])
				if err != nil {
					t.Fatalf("Check accepted a hint that does not scan in %q", sql)
				}
				for _, it := range inner {
					if it.Kind == guard.TokComment || it.Kind == guard.TokHint ||
						it.Kind == guard.TokWord && strings.EqualFold(it.Text, "set_var") {
						t.Fatalf("Check accepted hint %q in %q", tk.Text, sql)
					}
				}
				continue
			case guard.TokComment:
				if strings.HasPrefix(tk.Text, "/*!") || strings.HasPrefix(tk.Text, "/*M!") {
					t.Fatalf("Check accepted an executable comment in %q", sql)
				}
				continue
			}
			code = append(code, tk)
		}
		if len(code) == 0 {
			t.Fatalf("Check accepted %q, which has no code tokens", sql)
		}
		for len(code) > 0 && code[0].Kind == guard.TokPunct && code[0].Text == ";" {
			code = code[1:]
		}
		for len(code) > 0 && code[len(code)-1].Kind == guard.TokPunct && code[len(code)-1].Text == ";" {
			code = code[:len(code)-1]
		}
		if len(code) == 0 {
			t.Fatalf("Check accepted %q, which has only empty statements", sql)
		}
		for _, tk := range code {
			if tk.Kind == guard.TokPunct && tk.Text == ";" {
				t.Fatalf("Check accepted %q, which has more than one statement", sql)
			}
		}
		first := code[0]
		allowed := first.Kind == guard.TokPunct && first.Text == "("
		if first.Kind == guard.TokWord {
			for _, k := range []string{"SELECT", "WITH", "VALUES", "SHOW", "DESC", "DESCRIBE", "EXPLAIN", "HELP"} {
				if strings.EqualFold(first.Text, k) {
					allowed = st.Keyword == k
				}
			}
		}
		if !allowed || (first.Text == "(" && st.Keyword != "(") {
			t.Fatalf("Check accepted %q starting with %v (keyword %q)", sql, first, st.Keyword)
		}

		for i, tk := range code {
			if (tk.Kind != guard.TokWord && tk.Kind != guard.TokQuoted) || i+1 == len(code) ||
				code[i+1].Kind != guard.TokPunct || code[i+1].Text != "(" {
				continue
			}
			name := strings.ToLower(strings.ReplaceAll(strings.Trim(tk.Text, "`"), "``", "`"))
			if !guard.ValidFunctionName(name) {
				continue // not a name Doris resolves to a builtin
			}
			if egressNames[name] || strings.HasPrefix(name, "ai_") || strings.HasPrefix(name, "llm_") {
				t.Fatalf("Check accepted a call of %s in %q", name, sql)
			}
		}

		// Bind every placeholder and check the result again.
		params := map[string]any{}
		values := []any{`x'; DROP TABLE t; -- \' "/*`, json.Number("-1.5e3"), true, nil, -7, 2.5, "\\", "a\nb\x00c\x1a"}
		for i, name := range st.Params {
			if _, ok := params[name]; !ok {
				params[name] = values[i%len(values)]
			}
		}
		bst, err := guard.Bind(sql, params)
		if err != nil {
			var ge *guard.Error
			if errors.As(err, &ge) && ge.Reason == guard.ReasonTooLong {
				return
			}
			t.Fatalf("Bind(%q, %v) failed: %v", sql, params, err)
		}
		bound := bst.SQL
		st2, err := guard.Check(bound)
		if err != nil {
			t.Fatalf("bound text %q of %q refused: %v", bound, sql, err)
		}
		if len(st2.Params) != 0 || st2.Kind != st.Kind || bst.Kind != st2.Kind || bst.SQL != st2.SQL || len(bst.Params) != 0 {
			t.Fatalf("bound text %q changed shape: %+v vs %+v", bound, st2, st)
		}
	})
}

// egressNames are functions that reach outside Doris (guard/egress.go),
// listed again here so that the fuzzer checks the guard against a second
// copy.
var egressNames = map[string]bool{
	"http": true, "http_stream": true, "local": true, "file": true, "list_file": true,
	"parquet_meta": true, "parquet_file_metadata": true, "parquet_kv_metadata": true,
	"parquet_bloom_probe": true, "s3": true, "hdfs": true, "query": true, "kafka": true,
	"cdc_stream": true, "cdc": true, "embed": true,
}
