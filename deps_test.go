package main

// TestLayering keeps the package map of the design true: imports point one
// way (main -> mcp -> catalog -> doris -> guard), the security packages
// and the telemetry writers (mcp/metrics, mcp/audit) depend on nothing
// outside the standard library (auth on the JSON layer, doris/schema, as
// well), the JSON layer on nothing but the standard library and knows no
// MCP or Doris member, and go.mod requires exactly the two modules the
// design allows.

import (
	"bufio"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/doris-mcp/doris-mcp-server"

type listedPackage struct {
	ImportPath string
	Standard   bool
	Deps       []string
	Imports    []string
}

// domainPackages are the packages of the eight domains, one each, under
// doris/.
var domainPackages = []string{"doris/metadata", "doris/query", "doris/cluster", "doris/pipeline",
	"doris/search", "doris/governance", "doris/lakehouse", "doris/semantic"}

// domainOf returns the domain package an import path is (or is under),
// without the doris/ prefix, or "".
func domainOf(path string) string {
	for _, d := range domainPackages {
		if under(path, d) {
			return strings.TrimPrefix(d, "doris/")
		}
	}
	return ""
}

// listPackages runs go list over the module's packages (tests excluded).
func listPackages(t *testing.T) map[string]listedPackage {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

// isStd reports whether an import path is in the standard library (no dot
// in its first element).
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func under(path, pkg string) bool {
	return path == module+"/"+pkg || strings.HasPrefix(path, module+"/"+pkg+"/")
}

func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	for path, p := range pkgs {
		switch {
		case under(path, "guard"), under(path, "handle"), under(path, "mcp/metrics"), under(path, "mcp/audit"), under(path, "doris/schema"), under(path, "doris/flightsql"):
			// The metrics registry and the audit log writer know nothing of
			// MCP or Doris: main and package mcp feed them. doris/schema is
			// the JSON layer and the validator. doris/flightsql is the Arrow
			// Flight SQL client, built on the standard library alone.
			for _, d := range p.Deps {
				if !isStd(d) {
					t.Errorf("%s depends on %s; guard, handle, doris/schema, doris/flightsql, mcp/metrics and mcp/audit use only the standard library", path, d)
				}
			}
		case under(path, "auth"):
			// auth reads its security documents with the one strict JSON
			// decoder, doris/schema, which is standard library only itself.
			for _, d := range p.Deps {
				if !isStd(d) && !under(d, "auth") && d != module+"/doris/schema" {
					t.Errorf("%s depends on %s; auth uses only the standard library and doris/schema", path, d)
				}
			}
		case under(path, "doris/doristest"):
			// The shared integration harness drives the catalog surface as a
			// Host does; tests alone import it (checked below).
		case under(path, "doris"):
			for _, d := range p.Deps {
				if under(d, "catalog") || under(d, "mcp") {
					t.Errorf("%s imports %s; doris never imports catalog or mcp", path, d)
				}
			}
			if domain := domainOf(path); domain != "" {
				// A handler reaches Doris only through the core's kit: no
				// connection, pool or driver of its own, and no other
				// domain's internals (query, which others may reuse, aside).
				for _, d := range p.Imports {
					if d == "database/sql" || d == "database/sql/driver" || d == "github.com/go-sql-driver/mysql" || under(d, "doris/flightsql") {
						t.Errorf("domain package %s imports %s; handlers reach Doris only through the doris core", path, d)
					}
					if other := domainOf(d); other != "" && other != domain && other != "query" {
						t.Errorf("domain package %s imports domain %s; a domain imports the core and at most doris/query", path, d)
					}
				}
			}
		case under(path, "mcp"):
			// The protocol layer knows no Doris: what it needs of the
			// runtime (the trace context, refusal labels) reaches it through
			// catalog.
			for _, d := range p.Imports {
				if d == module+"/doris" || domainOf(d) != "" {
					t.Errorf("%s imports %s; mcp reaches the Doris side only through catalog", path, d)
				}
			}
		case under(path, "catalog"):
			for _, d := range p.Deps {
				if under(d, "mcp") {
					t.Errorf("%s imports %s; catalog never imports mcp", path, d)
				}
			}
		}
	}
	for path, p := range pkgs {
		for _, d := range p.Imports {
			if under(d, "doris/doristest") || under(d, "doris/flightsql/flighttest") {
				t.Errorf("%s imports the test harness %s; only tests may", path, d)
			}
		}
	}
	for _, want := range append([]string{"guard", "handle", "auth", "doris", "doris/schema", "catalog", "mcp", "mcp/metrics", "mcp/audit"}, domainPackages...) {
		if _, ok := pkgs[module+"/"+want]; !ok {
			t.Errorf("package %s not found by go list", want)
		}
	}
}

// TestGoModRequiresTheTwoModules: the design's two dependencies are the
// only direct requirements.
func TestGoModRequiresTheTwoModules(t *testing.T) {
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var direct []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "require (":
			inBlock = true
			continue
		case inBlock && line == ")":
			inBlock = false
			continue
		case strings.HasPrefix(line, "require "):
			line = strings.TrimPrefix(line, "require ")
		case !inBlock:
			continue
		}
		if line == "" || strings.HasPrefix(line, "//") || strings.Contains(line, "// indirect") {
			continue
		}
		direct = append(direct, strings.Fields(line)[0])
	}
	slices.Sort(direct)
	want := []string{"github.com/go-sql-driver/mysql", "github.com/kaptinlin/jsonschema"}
	if !slices.Equal(direct, want) {
		t.Errorf("go.mod requires %v directly, want exactly %v", direct, want)
	}
}

// TestBinaryDependencies: the server binary links the driver and the
// standard library only. kaptinlin/jsonschema is the tests' reference
// validator (doris/schema is the one that runs), and text/template (with
// html/template) would make the linker keep every exported method of
// every type, about two megabytes of binary.
func TestBinaryDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(dep, "github.com/kaptinlin/"), dep == "text/template", dep == "html/template":
			t.Errorf("the binary links %s", dep)
		case !isStd(dep) && !strings.HasPrefix(dep, module) && !strings.HasPrefix(dep, "github.com/go-sql-driver/mysql") &&
			!strings.HasPrefix(dep, "filippo.io/edwards25519"):
			t.Errorf("the binary links %s, which is not one of the design's dependencies", dep)
		}
	}
}

// TestOnlyMainReadsTheEnvironment: the program (package main) is the one
// reader of the environment; every other package is configured with typed
// structs. Separate programs (other main packages), the Doris
// simulator's test tooling (doris/dorissim), the integration harness
// (doris/doristest, DORIS_TEST_LOG) and the Arrow peer's runner
// (doris/flightsql/flighttest, DORIS_MCP_ARROWPEER_DIR) are theirs to read.
func TestOnlyMainReadsTheEnvironment(t *testing.T) {
	readers := []string{"Getenv", "LookupEnv", "Environ", "ExpandEnv"}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || path == filepath.Join("doris", "dorissim") || path == filepath.Join("doris", "doristest") || path == filepath.Join("doris", "flightsql", "flighttest")) {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Dir(path) == "." || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && slices.Contains(readers, sel.Sel.Name) {
					t.Errorf("%s: os.%s: only package main reads the environment", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestJSONLayerNamesNoMember: doris/schema is the JSON layer for every
// package above it, so it knows JSON and JSON Schema only. No identifier
// or string literal in its sources names an MCP, JSON-RPC or Doris member
// or method: a name it needs to treat specially (interning, say) comes
// from its caller or from what it reads.
func TestJSONLayerNamesNoMember(t *testing.T) {
	forbidden := []string{"jsonrpc", "json-rpc", "mcp", "modelcontextprotocol", "tools/", "resources/", "prompts/",
		"_meta", "progresstoken", "protocolversion", "clientcapabilities", "doris", "execute_query", "child_tool",
		"manifest_version", "max_rows", "timeout_ms", "sql", "catalog", "database", "cursor"}
	files, err := filepath.Glob("doris/schema/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources in doris/schema: %v", err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var text string
			switch x := n.(type) {
			case *ast.Ident:
				text = x.Name
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				text = x.Value
			default:
				return true
			}
			lower := strings.ToLower(text)
			for _, w := range forbidden {
				if strings.Contains(lower, w) {
					t.Errorf("%s: %s names %q; the JSON layer knows no protocol member", fset.Position(n.Pos()), text, w)
				}
			}
			return true
		})
	}
}
