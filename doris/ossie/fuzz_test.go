package ossie

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// knownReasons are every reason a model document can fail with.
var knownReasons = map[string]bool{
	ReasonEncoding: true, ReasonControl: true, ReasonNonFinite: true, ReasonMultipleDocuments: true,
	ReasonModelInvalid: true, ReasonNesting: true, ReasonString: true, ReasonDuplicateKey: true,
	ReasonVersion: true, ReasonExpressionLimit: true, ReasonExpressionUnsafe: true, ReasonDuplicateDialect: true,
	ReasonQuerySource: true, ReasonDependency: true, ReasonAmbiguous: true, ReasonModelNotFound: true,
	ReasonBindingInvalid: true,
}

// FuzzLoadModel feeds arbitrary bytes through the loader's document path:
// strict decoding, the pinned schema, and model building with every
// dataset bound. It must never panic; a refusal carries a known reason;
// an accepted document is valid JSON and yields models whose names,
// bindings and expressions keep the loader's promises.
func FuzzLoadModel(f *testing.F) {
	sch, err := compileSchemas()
	if err != nil {
		f.Fatal(err)
	}
	demo, err := os.ReadFile("../../testdata/semantic/ossie/models/retail.ossie.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(demo)
	for _, s := range []string{
		`{"version":"0.2.0.dev0","semantic_model":[{"name":"m","datasets":[{"name":"d","source":"a.b"}]}]}`,
		`{"version":"0.2.0.dev0","semantic_model":[{"name":"m","name":"n","datasets":[]}]}`,
		`{"version":"0.2.0.dev0","semantic_model":[]} {}`,
		`{"a":NaN}`, `{"a":1e999}`, `{"a":"\u0007"}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		`{"version":"0.2.0.dev0","semantic_model":[{"name":"m","datasets":[{"name":"d","source":"a","fields":[{"name":"f","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"'a.b' || d.f"}]}}]}],"metrics":[{"name":"x","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(d.f)"}]}}]}]}`,
	} {
		f.Add([]byte(s))
	}
	cfg := DefaultConfig()
	lim := decodeLimits{maxDepth: cfg.MaxDepth, maxString: cfg.MaxStringBytes}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > cfg.MaxFileBytes {
			return
		}
		mf, err := parseModelFile("m.json", data, lim, sch)
		if err != nil {
			check(t, err)
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		for _, raw := range arr(mf.doc, "semantic_model") {
			name := str(asMap(raw), "name")
			datasets := map[string]any{}
			for _, d := range arr(asMap(raw), "datasets") {
				datasets[str(asMap(d), "name")] = map[string]any{"catalog": "internal", "database": "db", "object": "t", "kind": "table"}
			}
			src := map[string]any{"model_file": "m.json", "model_name": name, "datasets": datasets}
			m, err := buildModel("ref", src, mf, cfg)
			if err != nil {
				check(t, err)
				continue
			}
			if !nameRE().MatchString(m.Name) || len(m.Revision) != 16 {
				t.Fatalf("model %q revision %q", m.Name, m.Revision)
			}
			for _, d := range m.Datasets {
				if !componentRE().MatchString(d.Name) || d.Binding.Object != "t" {
					t.Fatalf("dataset %q binding %+v", d.Name, d.Binding)
				}
				for _, fl := range d.Fields {
					for _, e := range fl.Expressions {
						if strings.Contains(e.Text, ";") || strings.Contains(e.Text, "--") || len(e.Text) > cfg.MaxExpressionBytes {
							t.Fatalf("unsafe expression kept: %q", e.Text)
						}
					}
				}
			}
		}
	})
}

func check(t *testing.T, err error) {
	t.Helper()
	var oe *Error
	if !errors.As(err, &oe) || !knownReasons[oe.Reason] {
		t.Fatalf("refusal without a known reason: %v", err)
	}
}
