package doris_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

func TestRedactArguments(t *testing.T) {
	cases := []struct {
		name, in, want string
		cut            bool
	}{
		{"literals in sql", `{"sql":"SELECT * FROM t WHERE email = 'a@b.c' AND id = 42","max_rows":5}`,
			`{"max_rows":5,"sql":"SELECT * FROM t WHERE email = '***' AND id = 42"}`, false},
		{"secrets in sql", `{"sql":"SELECT 1 FROM s3(\"s3.secret_key\" = \"abc\", \"uri\" = \"s3://b/k\") /* pw: x */"}`,
			`{"sql":"SELECT 1 FROM s3('***' = '***', '***' = '***')"}`, false},
		{"bound parameters", `{"sql":"SELECT %(a)s","parameters":{"a":"ann","b":7,"c":null,"d":[1,"x"]}}`,
			`{"parameters":{"a":"***","b":"***","c":null,"d":["***","***"]},"sql":"SELECT %(a)s"}`, false},
		{"credential-named members", `{"password":"hunter2","api_token":12345,"nested":{"secret_key":"k"}}`,
			`{"api_token":"***","nested":{"secret_key":"***"},"password":"***"}`, false},
		{"names kept, free text masked", `{"child_tool":"search_columns","arguments":{"database":"demo","table":"orders","query":"customers named John Smith","columns":["id","total_amount"]}}`,
			`{"arguments":{"columns":["id","total_amount"],"database":"demo","query":"***","table":"orders"},"child_tool":"search_columns"}`, false},
		{"an access key is never a name", `{"name":"AKIAIOSFODNN7EXAMPLE"}`, `{"name":"***"}`, false},
		{"not an object", `["x"]`, `"***"`, false},
		{"not JSON", `{"sql":`, `"***"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, cut := doris.RedactArguments(json.RawMessage(c.in))
			if string(got) != c.want || cut != c.cut {
				t.Errorf("RedactArguments(%s)\n got %s (cut %v)\nwant %s (cut %v)", c.in, got, cut, c.want, c.cut)
			}
		})
	}
	t.Run("capped at 16 KiB", func(t *testing.T) {
		big := map[string]any{}
		for i := 0; i < 100; i++ {
			big["sql"+strings.Repeat("x", i)] = strings.Repeat("a", 1000)
		}
		big["sql"] = "SELECT " + strings.Repeat("c, ", 20000) + "1"
		in, _ := json.Marshal(big)
		got, cut := doris.RedactArguments(in)
		if !cut || len(got) > 16<<10 || !json.Valid(got) {
			t.Fatalf("%d bytes (cut %v, valid %v)", len(got), cut, json.Valid(got))
		}
	})
}

// TestGuardReasonsCoverTheGuard: the guard refusal metric's label set is
// every reason the guard declares.
func TestGuardReasonsCoverTheGuard(t *testing.T) {
	src, err := os.ReadFile("../guard/error.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := regexp.MustCompile(`(?m)^\s*Reason\w+\s*=\s*"([A-Z_0-9]+)"`).FindAllStringSubmatch(string(src), -1)
	if len(declared) < 20 {
		t.Fatalf("found only %d reasons in guard/error.go", len(declared))
	}
	for _, d := range declared {
		if !slices.Contains(doris.GuardReasons(), d[1]) {
			t.Errorf("guard reason %s is missing from doris.GuardReasons", d[1])
		}
	}
}
