package ossie_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
)

// demoDir is the demo model shipped with the server.
const demoDir = "../../testdata/semantic/ossie"

// fixture is a copy of the demo model and bindings in a fresh directory,
// for a test to break.
type fixture struct {
	t        *testing.T
	dir      string // holds models/ and bindings.json
	models   string
	manifest string
	cfg      ossie.Config
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, dir: dir, models: filepath.Join(dir, "models"), manifest: filepath.Join(dir, "bindings.json")}
	if err := os.Mkdir(f.models, 0o755); err != nil {
		t.Fatal(err)
	}
	f.copy(filepath.Join(demoDir, "models", "retail.ossie.json"), filepath.Join(f.models, "retail.ossie.json"))
	f.copy(filepath.Join(demoDir, "bindings.json"), f.manifest)
	f.cfg = ossie.DefaultConfig()
	f.cfg.Enabled, f.cfg.ModelDirectory, f.cfg.BindingManifest = true, f.models, f.manifest
	return f
}

func (f *fixture) copy(from, to string) {
	f.t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		f.t.Fatal(err)
	}
	f.write(to, string(b))
}

func (f *fixture) write(path, content string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// model replaces the model file with a one-model document whose
// semantic_model entry is body, bound by a manifest of the one model.
func (f *fixture) model(body string) {
	f.t.Helper()
	f.write(filepath.Join(f.models, "m.json"), `{"version":"0.2.0.dev0","semantic_model":[`+body+`]}`)
	f.bindings(`"m": {"model_file": "m.json", "datasets": {"d": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
}

// bindings replaces the manifest's model_sources.
func (f *fixture) bindings(sources string) {
	f.t.Helper()
	f.write(f.manifest, `{"api_version":"doris-mcp.apache.org/ossie-binding/v1alpha1","model_sources":{`+sources+`}}`)
}

// minimal is a valid one-dataset model body with one hole for extra
// dataset members and one for extra model members.
func minimal(datasetExtra, modelExtra string) string {
	return `{"name":"m","datasets":[{"name":"d","source":"demo.orders","fields":[` +
		`{"name":"order_id","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"order_id"}]}}]` + datasetExtra + `}]` + modelExtra + `}`
}

func TestLoadDemo(t *testing.T) {
	f := newFixture(t)
	reg, err := ossie.Load(f.cfg)
	if err != nil {
		t.Fatalf("the demo model does not load: %v", err)
	}
	var refs []string
	for _, m := range reg.Models() {
		refs = append(refs, m.Ref)
	}
	if got := strings.Join(refs, ","); got != "retail/products,retail/sales" {
		t.Fatalf("refs %s, want retail/products,retail/sales", got)
	}
	m := reg.Get("retail/sales")
	if m.Name != "retail_sales" || m.Namespace != "retail" || len(m.Datasets) != 4 || len(m.Metrics) != 4 || len(m.Relationships) != 3 {
		t.Fatalf("retail/sales: name %s namespace %s, %d datasets %d metrics %d relationships; want retail_sales retail 4 4 3",
			m.Name, m.Namespace, len(m.Datasets), len(m.Metrics), len(m.Relationships))
	}
	if b := m.Dataset("orders").Binding; b != (ossie.Binding{Catalog: "internal", Database: "demo", Object: "orders", Kind: "table"}) {
		t.Errorf("orders binding %+v", b)
	}
	if f := m.Dataset("orders").Field("net_amount"); f == nil || f.Column != "" {
		t.Errorf("net_amount is computed: got %+v, want no physical column", f)
	}
	if f := m.Dataset("orders").Field("order_date"); f == nil || f.Column != "order_date" || !f.IsTime {
		t.Errorf("order_date: got %+v, want column order_date and a time dimension", f)
	}
	if f := m.Dataset("orders").Field("order_ts"); f.IsTime {
		t.Error("order_ts opts out of time with dimension.is_time false, but is a time dimension")
	}
	aov := m.Metrics[2]
	if aov.Name != "average_order_value" || len(aov.Dependencies) != 2 || aov.Dependencies[0].String() != "orders.total_amount" {
		t.Errorf("average_order_value dependencies %v", aov.Dependencies)
	}
	if li := m.Dataset("order_items").Metrics; len(li) != 1 || li[0].QualifiedName() != "order_items.line_revenue" {
		t.Errorf("dataset-scoped metrics %v", li)
	}
	if reg.Get("retail/sale") != nil || reg.Get("Retail/Sales") != nil || reg.Get("retail/sales ") != nil {
		t.Error("a model_ref that is not exact matched")
	}
	if len(m.Revision) != 16 || m.Revision == reg.Get("retail/products").Revision {
		t.Errorf("revisions %q / %q: want 16 hex digits, different per binding", m.Revision, reg.Get("retail/products").Revision)
	}
}

func TestSchemaDigest(t *testing.T) {
	b, err := os.ReadFile("ossie-schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != ossie.SchemaDigest {
		t.Fatalf("ossie-schema.json has digest %s, SchemaDigest says %s: the embedded schema changed", got, ossie.SchemaDigest)
	}
}

// TestLoadRefuses is the hostile-input table: each broken configuration
// fails with its own reason code, and nothing loads.
func TestLoadRefuses(t *testing.T) {
	deep := `{"x":` + strings.Repeat(`{"x":`, 40) + `1` + strings.Repeat(`}`, 40) + `}`
	tests := []struct {
		name   string
		break_ func(f *fixture)
		reason string
	}{
		{"model file is a symlink", func(f *fixture) {
			os.Rename(filepath.Join(f.models, "retail.ossie.json"), filepath.Join(f.dir, "elsewhere.json"))
			os.Symlink(filepath.Join(f.dir, "elsewhere.json"), filepath.Join(f.models, "retail.ossie.json"))
		}, ossie.ReasonSymlink},
		{"directory on the way is a symlink", func(f *fixture) {
			os.Mkdir(filepath.Join(f.dir, "real"), 0o755)
			f.copy(filepath.Join(f.models, "retail.ossie.json"), filepath.Join(f.dir, "real", "retail.ossie.json"))
			os.Symlink(filepath.Join(f.dir, "real"), filepath.Join(f.models, "sub"))
			f.bindings(`"m": {"model_file": "sub/retail.ossie.json", "model_name": "product_catalog", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonSymlink},
		{"model directory is a symlink", func(f *fixture) {
			os.Symlink(f.models, filepath.Join(f.dir, "link"))
			f.cfg.ModelDirectory = filepath.Join(f.dir, "link")
		}, ossie.ReasonDirectoryInvalid},
		{"binding manifest is a symlink", func(f *fixture) {
			os.Rename(f.manifest, filepath.Join(f.dir, "real.json"))
			os.Symlink(filepath.Join(f.dir, "real.json"), f.manifest)
		}, ossie.ReasonBindingFileInvalid},
		{".. escape", func(f *fixture) {
			f.copy(filepath.Join(f.models, "retail.ossie.json"), filepath.Join(f.dir, "outside.json"))
			f.bindings(`"m": {"model_file": "../outside.json", "model_name": "product_catalog", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonOutsideRoot},
		{"inner .. that stays inside", func(f *fixture) {
			f.bindings(`"m": {"model_file": "x/../retail.ossie.json", "model_name": "product_catalog", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonOutsideRoot},
		{"absolute path outside", func(f *fixture) {
			f.copy(filepath.Join(f.models, "retail.ossie.json"), filepath.Join(f.dir, "outside.json"))
			f.bindings(`"m": {"model_file": "` + filepath.Join(f.dir, "outside.json") + `", "model_name": "product_catalog", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonOutsideRoot},
		{"the model directory itself", func(f *fixture) {
			f.bindings(`"m": {"model_file": "` + f.models + `", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonOutsideRoot},
		{"missing file", func(f *fixture) {
			f.bindings(`"m": {"model_file": "nope.json", "datasets": {"d": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
		}, ossie.ReasonFileNotFound},
		{"file is a directory", func(f *fixture) {
			os.Mkdir(filepath.Join(f.models, "dir.json"), 0o755)
			f.bindings(`"m": {"model_file": "dir.json", "datasets": {"d": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
		}, ossie.ReasonFileInvalid},
		{"oversize file", func(f *fixture) { f.cfg.MaxFileBytes, f.cfg.MaxTotalBytes = 4096, 1<<20 }, ossie.ReasonFileSize},
		{"oversize manifest", func(f *fixture) {
			f.write(f.manifest, `{"api_version":"doris-mcp.apache.org/ossie-binding/v1alpha1"`+strings.Repeat(" ", 5000)+`}`)
			f.cfg.MaxFileBytes = 4096
		}, ossie.ReasonBindingFileSize},
		{"empty file", func(f *fixture) { f.write(filepath.Join(f.models, "retail.ossie.json"), "") }, ossie.ReasonFileSize},
		{"total size", func(f *fixture) { f.cfg.MaxFileBytes, f.cfg.MaxTotalBytes = 9000, 9000 }, ossie.ReasonTotalSize},
		{"too many models", func(f *fixture) { f.cfg.MaxModels = 1 }, ossie.ReasonModelLimit},
		{"too deep", func(f *fixture) { f.model(minimal(`,"ai_context":`+deep, ``)) }, ossie.ReasonNesting},
		{"too many aliases (YAML is not read)", func(f *fixture) {
			f.write(filepath.Join(f.models, "m.yaml"), "a: &x [1]\nb: [*x, *x, *x]\n")
			f.bindings(`"m": {"model_file": "m.yaml", "datasets": {"d": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
		}, ossie.ReasonFileType},
		{"duplicate key", func(f *fixture) { f.model(`{"name":"m","name":"n","datasets":[]}`) }, ossie.ReasonDuplicateKey},
		{"duplicate key in the manifest", func(f *fixture) {
			f.write(f.manifest, `{"api_version":"doris-mcp.apache.org/ossie-binding/v1alpha1","model_sources":{},"model_sources":{}}`)
		}, ossie.ReasonDuplicateKey},
		{"raw control character", func(f *fixture) { f.model(minimal(`,"description":"a`+"\x07"+`b"`, ``)) }, ossie.ReasonControl},
		{"escaped control character", func(f *fixture) { f.model(minimal(`,"description":"a\u0007b"`, ``)) }, ossie.ReasonControl},
		{"bidirectional override", func(f *fixture) { f.model(minimal(`,"description":"a\u202eb"`, ``)) }, ossie.ReasonControl},
		{"NaN", func(f *fixture) { f.model(minimal(`,"ai_context":{"weight":NaN}`, ``)) }, ossie.ReasonNonFinite},
		{"-Infinity", func(f *fixture) { f.model(minimal(`,"ai_context":{"weight":-Infinity}`, ``)) }, ossie.ReasonNonFinite},
		{"number beyond float64", func(f *fixture) { f.model(minimal(`,"ai_context":{"weight":1e999}`, ``)) }, ossie.ReasonNonFinite},
		{"wrong version", func(f *fixture) {
			f.write(filepath.Join(f.models, "m.json"), `{"version":"0.1.1","semantic_model":[`+minimal("", "")+`]}`)
			f.bindings(`"m": {"model_file": "m.json", "datasets": {"d": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
		}, ossie.ReasonVersion},
		{"unknown field", func(f *fixture) { f.model(minimal(`,"colour":"blue"`, ``)) }, ossie.ReasonModelInvalid},
		{"second document", func(f *fixture) {
			f.write(filepath.Join(f.models, "m.json"), `{"version":"0.2.0.dev0","semantic_model":[`+minimal("", "")+`]} {}`)
			f.bindings(`"m": {"model_file": "m.json", "datasets": {"d": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
		}, ossie.ReasonMultipleDocuments},
		{"invalid UTF-8", func(f *fixture) { f.model(minimal(`,"description":"a`+"\xff"+`"`, ``)) }, ossie.ReasonEncoding},
		{"byte-order mark", func(f *fixture) {
			f.write(f.manifest, "\xef\xbb\xbf"+`{"api_version":"doris-mcp.apache.org/ossie-binding/v1alpha1","model_sources":{}}`)
		}, ossie.ReasonEncoding},
		{"truncated JSON", func(f *fixture) { f.model(`{"name":"m","datasets":[`) }, ossie.ReasonModelInvalid},
		{"string too long", func(f *fixture) {
			f.cfg.MaxStringBytes = 64
			f.model(minimal(`,"description":"`+strings.Repeat("x", 65)+`"`, ``))
		}, ossie.ReasonString},
		{"expression too long", func(f *fixture) {
			f.cfg.MaxExpressionBytes = 16
			f.model(minimal(``, `,"metrics":[{"name":"x","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(d.order_id) + SUM(d.order_id)"}]}}]`))
		}, ossie.ReasonExpressionLimit},
		{"expression with a subquery", func(f *fixture) {
			f.model(minimal(``, `,"metrics":[{"name":"x","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"(SELECT MAX(d.order_id) FROM secret.salaries)"}]}}]`))
		}, ossie.ReasonExpressionUnsafe},
		{"expression with a statement separator", func(f *fixture) {
			f.model(minimal(``, `,"metrics":[{"name":"x","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(d.order_id); DROP TABLE t"}]}}]`))
		}, ossie.ReasonExpressionUnsafe},
		{"dialect twice", func(f *fixture) {
			f.model(minimal(``, `,"metrics":[{"name":"x","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(d.order_id)"},{"dialect":"ANSI_SQL","expression":"COUNT(d.order_id)"}]}}]`))
		}, ossie.ReasonDuplicateDialect},
		{"query source", func(f *fixture) {
			f.model(`{"name":"m","datasets":[{"name":"d","source":"SELECT * FROM demo.orders"}]}`)
		}, ossie.ReasonQuerySource},
		{"metric on an unknown field", func(f *fixture) {
			f.model(minimal(``, `,"metrics":[{"name":"x","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(d.nope)"}]}}]`))
		}, ossie.ReasonDependency},
		{"relationship to an unknown dataset", func(f *fixture) {
			f.model(minimal(``, `,"relationships":[{"name":"r","from":"d","to":"e","from_columns":["order_id"],"to_columns":["order_id"]}]`))
		}, ossie.ReasonDependency},
		{"binding version", func(f *fixture) {
			f.write(f.manifest, `{"api_version":"doris-mcp.apache.org/ossie-binding/v2","model_sources":{}}`)
		}, ossie.ReasonBindingVersion},
		{"binding with an unknown member", func(f *fixture) {
			f.bindings(`"m": {"model_file": "retail.ossie.json", "model_name": "product_catalog", "owner": "me", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonBindingInvalid},
		{"binding misses a dataset", func(f *fixture) {
			f.bindings(`"m": {"model_file": "retail.ossie.json", "model_name": "retail_sales", "datasets": {"orders": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
		}, ossie.ReasonBindingInvalid},
		{"binding of a dataset the model lacks", func(f *fixture) {
			f.bindings(`"m": {"model_file": "retail.ossie.json", "model_name": "product_catalog", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}, "orders": {"catalog": "internal", "database": "demo", "object": "orders", "kind": "table"}}}`)
		}, ossie.ReasonBindingInvalid},
		{"binding to a quoted name", func(f *fixture) {
			f.bindings("\"m\": {\"model_file\": \"retail.ossie.json\", \"model_name\": \"product_catalog\", \"datasets\": {\"products\": {\"catalog\": \"internal\", \"database\": \"demo\", \"object\": \"products`; DROP\", \"kind\": \"table\"}}}")
		}, ossie.ReasonBindingInvalid},
		{"model_name not in the file", func(f *fixture) {
			f.bindings(`"m": {"model_file": "retail.ossie.json", "model_name": "nope", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonModelNotFound},
		{"two models, no model_name", func(f *fixture) {
			f.bindings(`"m": {"model_file": "retail.ossie.json", "datasets": {"products": {"catalog": "internal", "database": "demo", "object": "products", "kind": "table"}}}`)
		}, ossie.ReasonAmbiguous},
		{"model directory missing", func(f *fixture) { f.cfg.ModelDirectory = filepath.Join(f.dir, "nope") }, ossie.ReasonDirectoryInvalid},
		{"model directory is a file", func(f *fixture) { f.cfg.ModelDirectory = f.manifest }, ossie.ReasonDirectoryInvalid},
		{"manifest is YAML", func(f *fixture) {
			f.write(filepath.Join(f.dir, "b.yaml"), "api_version: x\n")
			f.cfg.BindingManifest = filepath.Join(f.dir, "b.yaml")
		}, ossie.ReasonFileType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.break_(f)
			reg, err := ossie.Load(f.cfg)
			if err == nil {
				t.Fatalf("loaded %d models, want %s", len(reg.Models()), tt.reason)
			}
			var oe *ossie.Error
			if !errors.As(err, &oe) {
				t.Fatalf("got %v, want an *ossie.Error with %s", err, tt.reason)
			}
			if oe.Reason != tt.reason {
				t.Fatalf("got %s (%v), want %s", oe.Reason, err, tt.reason)
			}
			if !errors.Is(err, &ossie.Error{Reason: tt.reason}) {
				t.Error("errors.Is does not match the reason")
			}
		})
	}
}

// TestConfigValidate: bounds and required paths fail with the variable
// named.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *ossie.Config)
		want string
	}{
		{"enabled without paths", func(c *ossie.Config) { c.Enabled = true }, "OSSIE_CONFIGURATION_INCOMPLETE"},
		{"relative directory", func(c *ossie.Config) {
			c.Enabled, c.ModelDirectory, c.BindingManifest = true, "models", "/b.json"
		}, "OSSIE_MODEL_DIRECTORY"},
		{"relative manifest", func(c *ossie.Config) {
			c.Enabled, c.ModelDirectory, c.BindingManifest = true, "/m", "b.json"
		}, "OSSIE_BINDING_MANIFEST"},
		{"file bound", func(c *ossie.Config) { c.MaxFileBytes = 10 }, "OSSIE_MAX_FILE_BYTES"},
		{"context above hard max", func(c *ossie.Config) { c.ContextMaxBytes, c.ContextHardMaxBytes = 4096, 2048 }, "OSSIE_CONTEXT_MAX_BYTES"},
		{"hard max above the schema's", func(c *ossie.Config) { c.ContextHardMaxBytes = 1 << 20 }, "OSSIE_CONTEXT_HARD_MAX_BYTES"},
		{"depth", func(c *ossie.Config) { c.MaxDepth = 0 }, "OSSIE_MAX_DEPTH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ossie.DefaultConfig()
			tt.edit(&c)
			errs := c.Validate()
			if len(errs) == 0 || !strings.Contains(errors.Join(errs...).Error(), tt.want) {
				t.Fatalf("got %v, want a problem naming %s", errs, tt.want)
			}
		})
	}
	c := ossie.DefaultConfig()
	if errs := c.Validate(); len(errs) != 0 {
		t.Fatalf("the defaults are invalid: %v", errs)
	}
}

// BenchmarkLoadDemo measures a startup load of the demo model and its
// bindings, schema compilation included.
func BenchmarkLoadDemo(b *testing.B) {
	cfg := ossie.DefaultConfig()
	cfg.Enabled = true
	var err error
	if cfg.ModelDirectory, err = filepath.Abs(filepath.Join(demoDir, "models")); err != nil {
		b.Fatal(err)
	}
	if cfg.BindingManifest, err = filepath.Abs(filepath.Join(demoDir, "bindings.json")); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ossie.Load(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
