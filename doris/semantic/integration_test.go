package semantic_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// The Ossie children against the demo model (testdata/semantic/ossie) over
// the demo schema. Expectations come from the model file itself and from
// MariaDB, never from what the server answered.

const demoOssie = "../../testdata/semantic/ossie"

// withOssie enables Ossie on the demo model, or on dir when given.
func withOssie(t testing.TB, dir string) func(*doris.Config) {
	t.Helper()
	if dir == "" {
		dir = demoOssie
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return func(c *doris.Config) {
		c.Ossie.Enabled = true
		c.Ossie.ModelDirectory = filepath.Join(abs, "models")
		c.Ossie.BindingManifest = filepath.Join(abs, "bindings.json")
	}
}

// demoFile is the demo model file as plain JSON, read by the test.
type demoFile struct {
	SemanticModel []struct {
		Name     string `json:"name"`
		Datasets []struct {
			Name   string `json:"name"`
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
			Metrics []struct {
				Name string `json:"name"`
			} `json:"metrics"`
		} `json:"datasets"`
		Metrics []struct {
			Name string `json:"name"`
		} `json:"metrics"`
		Relationships []struct {
			Name string `json:"name"`
		} `json:"relationships"`
	} `json:"semantic_model"`
}

func readDemo(t testing.TB) demoFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(demoOssie, "models", "retail.ossie.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f demoFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func refs(items []doristest.ModelItem) string {
	var out []string
	for _, it := range items {
		out = append(out, it.ModelRef)
	}
	return strings.Join(out, ",")
}

func TestOssieListAndFilters(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withOssie(t, "")})
	all := e.Models(map[string]any{})
	if got := refs(all); got != "retail/products,retail/sales" {
		t.Fatalf("models %s, want retail/products,retail/sales", got)
	}
	if s := all[1]; s.Name != "retail_sales" || s.Namespace != "retail" || s.Datasets != 4 || s.VisibleDatasets != 4 ||
		s.MappingStatus != "resolved" || !slices.Equal(s.Tags, []string{"demo", "sales"}) {
		t.Errorf("retail/sales %+v", s)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"namespace": "retail"}, "retail/products,retail/sales"},
		{map[string]any{"namespace": "Retail"}, ""},
		{map[string]any{"tag": "catalog"}, "retail/products"},
		{map[string]any{"pattern": "retail_*"}, "retail/sales"},
		{map[string]any{"pattern": "*catalog", "tag": "demo"}, "retail/products"},
		{map[string]any{"pattern": "sales"}, ""},
	} {
		if got := refs(e.Models(tt.args)); got != tt.want {
			t.Errorf("list_semantic_models(%v) = %q, want %q", tt.args, got, tt.want)
		}
	}
	e.Fail("doris_semantic", "list_semantic_models", map[string]any{"pattern": "[x"}, "CHILD_ARGUMENTS_INVALID", "SEMANTIC_PATTERN_INVALID")
}

// TestOssieSummaryMatchesTheFile: the summary holds exactly the file's
// datasets, fields, metrics and relationships, and the bindings name the
// manifest's Doris tables.
func TestOssieSummaryMatchesTheFile(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withOssie(t, "")})
	file := readDemo(t).SemanticModel[0]
	var sum struct {
		Name     string `json:"name"`
		Revision string `json:"revision"`
		Datasets []struct {
			Name    string   `json:"name"`
			Fields  []string `json:"fields"`
			Metrics []string `json:"metrics"`
		} `json:"datasets"`
		Metrics []struct {
			Name      string   `json:"name"`
			DependsOn []string `json:"depends_on"`
		} `json:"metrics"`
		Dimensions    []struct{ Name string } `json:"dimensions"`
		Relationships []struct{ Name string } `json:"relationships"`
		Omitted       []string                `json:"omitted"`
		Bindings      []struct {
			Dataset, Catalog, Database, Object, Kind, Status string
		} `json:"bindings"`
	}
	cd := e.Ok("doris_semantic", "get_semantic_model_summary", map[string]any{"model_ref": "retail/sales", "include_bindings": true}).Decode(t, &sum)
	if cd.Status != "success" || sum.Name != file.Name || len(sum.Omitted) != 0 {
		t.Fatalf("summary %s status %s omitted %v", sum.Name, cd.Status, sum.Omitted)
	}
	var wantDatasets, gotDatasets, wantMetrics, gotMetrics, wantDims, gotDims []string
	for i, d := range file.Datasets {
		wantDatasets = append(wantDatasets, d.Name)
		var fields []string
		for _, f := range d.Fields {
			fields = append(fields, f.Name)
			wantDims = append(wantDims, d.Name+"."+f.Name)
		}
		if !slices.Equal(sum.Datasets[i].Fields, fields) {
			t.Errorf("dataset %s fields %v, want %v", d.Name, sum.Datasets[i].Fields, fields)
		}
		for _, m := range d.Metrics {
			wantMetrics = append(wantMetrics, d.Name+"."+m.Name)
		}
	}
	for _, m := range file.Metrics {
		wantMetrics = append(wantMetrics, m.Name)
	}
	for _, d := range sum.Datasets {
		gotDatasets = append(gotDatasets, d.Name)
	}
	for _, m := range sum.Metrics {
		gotMetrics = append(gotMetrics, m.Name)
	}
	for _, d := range sum.Dimensions {
		gotDims = append(gotDims, d.Name)
	}
	slices.Sort(wantMetrics)
	slices.Sort(gotMetrics)
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"datasets", gotDatasets, wantDatasets}, {"metrics", gotMetrics, wantMetrics}, {"dimensions", gotDims, wantDims}} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s %v, want %v", c.what, c.got, c.want)
		}
	}
	if len(sum.Relationships) != len(file.Relationships) {
		t.Errorf("%d relationships, want %d", len(sum.Relationships), len(file.Relationships))
	}
	if len(sum.Bindings) != 4 {
		t.Fatalf("bindings %+v", sum.Bindings)
	}
	for _, b := range sum.Bindings {
		if b.Catalog != "internal" || b.Database != "demo" || b.Object != b.Dataset || b.Kind != "table" || b.Status != "ready" {
			t.Errorf("binding %+v: want internal.demo.%s, a ready table", b, b.Dataset)
		}
	}
	e.Fail("doris_semantic", "get_semantic_model_summary", map[string]any{"model_ref": "retail/sale"}, "CHILD_ARGUMENTS_INVALID", "SEMANTIC_MODEL_NOT_FOUND")
	e.Fail("doris_semantic", "get_semantic_model_summary", map[string]any{"model_ref": "retail/sales+x"}, "CHILD_ARGUMENTS_INVALID", "SEMANTIC_MODEL_NOT_FOUND")
}

// TestOssieMappingMatchesLiveSchema: every demo binding is ready, and the
// physical columns of its fields are the table's columns in MariaDB.
func TestOssieMappingMatchesLiveSchema(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withOssie(t, "")})
	var st struct {
		Ready    bool `json:"ready"`
		Bindings []struct {
			Dataset, Object, Status string
			ReasonCode              *string  `json:"reason_code"`
			Unchecked               []string `json:"unchecked_fields"`
		} `json:"bindings"`
	}
	e.Ok("doris_semantic", "get_semantic_mapping_status", map[string]any{"model_ref": "retail/sales"}).Decode(t, &st)
	if !st.Ready || len(st.Bindings) != 4 {
		t.Fatalf("mapping %+v", st)
	}
	for _, b := range st.Bindings {
		if b.Status != "ready" || b.ReasonCode != nil || b.Object != "internal.demo."+b.Dataset {
			t.Errorf("binding %+v", b)
		}
	}
	if b := st.Bindings[0]; b.Dataset != "orders" || !slices.Equal(b.Unchecked, []string{"net_amount"}) {
		t.Errorf("orders: unchecked fields %v, want the computed net_amount", b.Unchecked)
	}
	// The fields the server found are columns MariaDB has.
	reg, err := ossie.Load(e.Cfg.Ossie)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range reg.Get("retail/sales").Datasets {
		rows, err := e.DB.Root().QueryContext(context.Background(),
			"SELECT COLUMN_NAME FROM information_schema.columns WHERE TABLE_SCHEMA = 'demo' AND TABLE_NAME = ?", d.Binding.Object)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var c string
			rows.Scan(&c)
			cols = append(cols, c)
		}
		rows.Close()
		for _, f := range d.Fields {
			if f.Column != "" && !slices.Contains(cols, f.Column) {
				t.Errorf("%s.%s: column %s is not in demo.%s, yet the mapping is ready", d.Name, f.Name, f.Column, d.Binding.Object)
			}
		}
	}
	e.Fail("doris_semantic", "get_semantic_mapping_status", map[string]any{"model_ref": "retail/sales", "datasource": "shipments"},
		"CHILD_ARGUMENTS_INVALID", "SEMANTIC_DATASOURCE_NOT_FOUND")
	var one struct {
		Bindings []struct{ Dataset string } `json:"bindings"`
	}
	e.Ok("doris_semantic", "get_semantic_mapping_status", map[string]any{"model_ref": "retail/sales", "datasource": "products"}).Decode(t, &one)
	if len(one.Bindings) != 1 || one.Bindings[0].Dataset != "products" {
		t.Errorf("datasource products: %+v", one.Bindings)
	}
}

// TestOssieBrokenBindings: readiness is judged against what Doris holds: a
// missing table, a missing column, a datatype that does not fit, a view
// bound as a table, a table of another database the account cannot see,
// and a view whose table was dropped each get their own status.
func TestOssieBrokenBindings(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "models"), 0o755)
	field := func(name, typ string) string {
		return `{"name":"` + name + `","datatype":"` + typ + `","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"` + name + `"}]}}`
	}
	ds := func(name, fields string) string {
		return `{"name":"` + name + `","source":"x.` + name + `","fields":[` + fields + `]}`
	}
	model := `{"version":"0.2.0.dev0","semantic_model":[{"name":"broken","datasets":[` +
		ds("gone", field("a", "String")) + `,` +
		ds("short", field("order_id", "Integer")+`,`+field("no_such_column", "String")) + `,` +
		ds("mistyped", field("status", "Integer")) + `,` +
		ds("daily", field("sales_date", "Date")) + `,` +
		ds("salaries", field("employee_id", "Integer")) + `,` +
		ds("fine", field("customer_id", "Integer")+`,`+field("country", "String")) + `,` +
		ds("stale_view", field("a", "Integer")) + `]}]}`
	bind := func(name, db, obj string) string {
		return `"` + name + `":{"catalog":"internal","database":"` + db + `","object":"` + obj + `","kind":"table"}`
	}
	manifest := `{"api_version":"doris-mcp.apache.org/ossie-binding/v1alpha1","model_sources":{"test/broken":{"model_file":"broken.json","datasets":{` +
		bind("gone", "demo", "no_such_table") + `,` + bind("short", "demo", "orders") + `,` + bind("mistyped", "demo", "orders") + `,` +
		bind("daily", "demo", "v_daily_sales") + `,` + bind("salaries", "secret", "salaries") + `,` + bind("fine", "demo", "customers") + `,` +
		strings.Replace(bind("stale_view", "semantic_fixture", "v"), `"table"`, `"view"`, 1) + `}}}}`
	os.WriteFile(filepath.Join(dir, "models", "broken.json"), []byte(model), 0o644)
	os.WriteFile(filepath.Join(dir, "bindings.json"), []byte(manifest), 0o644)
	// A view whose table was dropped: listed, but not readable.
	in := mariadb.SharedFor(t)
	if err := in.Exec(context.Background(), "CREATE DATABASE IF NOT EXISTS semantic_fixture", "CREATE TABLE semantic_fixture.t (a INT)",
		"CREATE VIEW semantic_fixture.v AS SELECT a FROM semantic_fixture.t", "GRANT SELECT ON semantic_fixture.* TO '"+mariadb.ReaderUser+"'@'%'",
		"DROP TABLE semantic_fixture.t"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Exec(context.Background(), "REVOKE SELECT ON semantic_fixture.* FROM '"+mariadb.ReaderUser+"'@'%'", "DROP DATABASE IF EXISTS semantic_fixture")
	})
	e := doristest.NewEnv(t, doristest.EnvOpts{Config: withOssie(t, dir)})
	var st struct {
		Ready    bool `json:"ready"`
		Bindings []struct {
			Dataset, Status string
			Object          *string  `json:"object"`
			ReasonCode      string   `json:"reason_code"`
			Missing         []string `json:"missing_columns"`
			Conflicts       []string `json:"type_conflicts"`
		} `json:"bindings"`
	}
	e.Ok("doris_semantic", "get_semantic_mapping_status", map[string]any{"model_ref": "test/broken"}).Decode(t, &st)
	want := map[string][2]string{
		"gone": {"not_visible", "SEMANTIC_OBJECT_NOT_VISIBLE"}, "short": {"columns_missing", "SEMANTIC_COLUMNS_MISSING"},
		"mistyped": {"type_conflict", "SEMANTIC_TYPE_CONFLICT"}, "daily": {"kind_mismatch", "SEMANTIC_OBJECT_KIND_MISMATCH"},
		"salaries": {"not_visible", "SEMANTIC_OBJECT_NOT_VISIBLE"}, "fine": {"ready", ""},
		"stale_view": {"unreadable", "SEMANTIC_OBJECT_UNREADABLE"},
	}
	if st.Ready || len(st.Bindings) != len(want) {
		t.Fatalf("mapping %+v", st)
	}
	for _, b := range st.Bindings {
		if w := want[b.Dataset]; b.Status != w[0] || b.ReasonCode != w[1] {
			t.Errorf("%s: %s/%s, want %s/%s", b.Dataset, b.Status, b.ReasonCode, w[0], w[1])
		}
		if b.Status == "not_visible" && b.Object != nil {
			t.Errorf("%s: a binding the caller cannot see names its object %q", b.Dataset, *b.Object)
		}
	}
	if b := st.Bindings[1]; !slices.Equal(b.Missing, []string{"no_such_column"}) {
		t.Errorf("short: missing %v", b.Missing)
	}
	if b := st.Bindings[2]; !slices.Equal(b.Conflicts, []string{"status"}) {
		t.Errorf("mistyped: conflicts %v", b.Conflicts)
	}
}

// narrowEnv is the demo model seen by an identity with a Doris account of
// its own that may SELECT customers and products only, and may INSERT
// into order_items (so order_items is listed but not selectable).
func narrowEnv(t *testing.T) (*doristest.Env, auth.Identity) {
	t.Helper()
	doristest.NewAccount(t, mariadb.SharedFor(t), "sem_narrow", "sem-narrow-pw-1",
		"SELECT ON demo.customers", "SELECT ON demo.products", "INSERT ON demo.order_items",
		"SELECT ON __internal_schema.*", "SELECT ON __doris_sim.*")
	e := doristest.NewEnv(t, doristest.EnvOpts{NoFEHTTP: true, Users: map[string]string{"sem_narrow": "sem-narrow-pw-1"}, Config: withOssie(t, "")})
	return e, auth.Identity{Method: "test", Subject: "narrow", Route: "person:sem_narrow",
		Credential: &auth.Credential{User: "sem_narrow", Password: "sem-narrow-pw-1"}}
}

// TestOssieCallerWithoutSelect: a caller without SELECT on a bound table
// does not see that dataset, nor the metrics and joins that need it, on
// its own route; the answer says what was left out. The global route,
// which may read everything, sees it all.
func TestOssieCallerWithoutSelect(t *testing.T) {
	e, narrow := narrowEnv(t)
	if s := e.Models(map[string]any{})[1]; s.VisibleDatasets != 4 {
		t.Fatalf("the global route sees %d datasets of retail/sales, want 4", s.VisibleDatasets)
	}
	e.ID = narrow
	items := e.Models(map[string]any{})
	if len(items) != 2 || items[1].ModelRef != "retail/sales" || items[1].VisibleDatasets != 2 || items[1].MappingStatus != "partial" {
		t.Fatalf("the narrow caller's models %+v", items)
	}
	var sum struct {
		Datasets      []struct{ Name string } `json:"datasets"`
		Metrics       []struct{ Name string } `json:"metrics"`
		Relationships []struct{ Name string } `json:"relationships"`
		Omitted       []string                `json:"omitted"`
	}
	cd := e.Ok("doris_semantic", "get_semantic_model_summary", map[string]any{"model_ref": "retail/sales"}).Decode(t, &sum)
	var names []string
	for _, d := range sum.Datasets {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "customers,products" || strings.Join(sum.Omitted, ",") != "orders,order_items" {
		t.Errorf("the narrow caller sees %v and misses %v; want customers,products and orders,order_items", names, sum.Omitted)
	}
	if len(sum.Metrics) != 0 || len(sum.Relationships) != 0 {
		t.Errorf("metrics %v and relationships %v need orders or order_items", sum.Metrics, sum.Relationships)
	}
	if cd.Status != "partial" || len(cd.Warnings) == 0 || !strings.Contains(cd.Warnings[0], "orders") {
		t.Errorf("the summary does not say what was left out: %s %v", cd.Status, cd.Warnings)
	}
	var st struct {
		Bindings []struct {
			Dataset, Status string
			Object          *string `json:"object"`
		} `json:"bindings"`
	}
	e.Ok("doris_semantic", "get_semantic_mapping_status", map[string]any{"model_ref": "retail/sales"}).Decode(t, &st)
	want := map[string]string{"orders": "not_visible", "order_items": "permission_denied", "customers": "ready", "products": "ready"}
	for _, b := range st.Bindings {
		if b.Status != want[b.Dataset] {
			t.Errorf("%s: %s, want %s", b.Dataset, b.Status, want[b.Dataset])
		}
		if b.Dataset == "orders" && b.Object != nil {
			t.Errorf("orders is invisible to the caller, yet its object %q is named", *b.Object)
		}
	}
	var ctx struct {
		Context struct {
			Datasets []struct{ Name, Table string } `json:"datasets"`
			Metrics  []struct{ Name string }        `json:"metrics"`
		} `json:"context"`
		Omitted []string `json:"omitted"`
	}
	cd = e.Ok("doris_semantic", "get_semantic_context", map[string]any{"model_ref": "retail/sales",
		"request": map[string]any{"metrics": []string{"revenue"}, "dimensions": []string{"customers.country"}}}).Decode(t, &ctx)
	if len(ctx.Context.Metrics) != 0 || len(ctx.Context.Datasets) != 1 || ctx.Context.Datasets[0].Name != "customers" {
		t.Errorf("the narrow caller's context %+v", ctx.Context)
	}
	if !strings.Contains(strings.Join(cd.Warnings, " "), "revenue") {
		t.Errorf("the context does not say revenue was left out: %v", cd.Warnings)
	}
	// A model none of whose tables the caller can see is not shown at all.
	e.Fail("doris_semantic", "get_semantic_context", map[string]any{"model_ref": "retail/sales",
		"request": map[string]any{"metrics": []string{"no_such_metric"}}}, "CHILD_ARGUMENTS_INVALID", "SEMANTIC_CONCEPT_NOT_FOUND")
}

// TestOssieDisabledAndBroken: Ossie off leaves its four children listed,
// not callable, with the precise reason; a model directory that does not
// load stops the runtime from opening, with its reason code.
func TestOssieDisabledAndBroken(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	m := e.Discover("doris_semantic")
	for _, c := range []string{"list_semantic_models", "get_semantic_model_summary", "get_semantic_context", "get_semantic_mapping_status"} {
		a := m.Availability(t, c).Availability
		if a.Callable || a.Status != "misconfigured" || a.ReasonCode != "PROVIDER_NOT_CONFIGURED" || !strings.Contains(strings.Join(a.Limitations, " "), "OSSIE_ENABLED") {
			t.Errorf("%s with Ossie off: %+v", c, a)
		}
	}
	e.Fail("doris_semantic", "list_semantic_models", map[string]any{}, "CHILD_CAPABILITY_UNAVAILABLE", "PROVIDER_NOT_CONFIGURED")

	cfg := e.Cfg
	withOssie(t, "")(&cfg)
	cfg.Ossie.ModelDirectory = filepath.Join(t.TempDir(), "missing")
	if errs := cfg.CheckFiles(); len(errs) != 1 || !errors.Is(errs[0], &ossie.Error{Reason: ossie.ReasonDirectoryInvalid}) ||
		!strings.Contains(errs[0].Error(), "OSSIE_MODEL_DIRECTORY") {
		t.Errorf("CheckFiles of a missing model directory: %v", errs)
	}
	if _, err := doris.Open(cfg, doris.Options{Handles: testHandles(t)}); !errors.Is(err, &ossie.Error{Reason: ossie.ReasonDirectoryInvalid}) {
		t.Errorf("Open with a missing model directory: %v", err)
	}
}

func testHandles(t testing.TB) *handle.Signer {
	t.Helper()
	s, err := handle.NewRandom()
	if err != nil {
		t.Fatal(err)
	}
	return s
}
