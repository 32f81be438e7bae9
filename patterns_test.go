package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEveryPatternCompiles: package-level patterns are compiled on first
// use (sync.OnceValue), not at start, so a broken one would panic in the
// middle of a call instead of at init. This compiles every literal pattern
// given to regexp.MustCompile anywhere in the module, and keeps counted
// repetitions small: {0,1000} compiles to a thousand nested alternatives,
// a megabyte of stack and heap for one pattern.
func TestEveryPatternCompiles(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string][]*ast.File{} // by directory: a package's constants are its files'
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[filepath.Dir(path)] = append(files[filepath.Dir(path)], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, pkgFiles := range files {
		consts := stringConstants(pkgFiles)
		for _, f := range pkgFiles {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "MustCompile" && sel.Sel.Name != "Compile") {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "regexp" {
					return true
				}
				var pattern string
				switch arg := call.Args[0].(type) {
				case *ast.BasicLit:
					if arg.Kind != token.STRING {
						return true
					}
					if pattern, err = strconv.Unquote(arg.Value); err != nil {
						t.Errorf("%s: %v", fset.Position(arg.Pos()), err)
						return true
					}
				case *ast.Ident:
					if pattern, ok = consts[arg.Name]; !ok {
						return true // a variable: built at run time; its own tests cover it
					}
				default:
					return true // built at run time; its own tests cover it
				}
				seen++
				at := fset.Position(call.Pos())
				if _, err := regexp.Compile(pattern); err != nil {
					t.Errorf("%s: %v", at, err)
				}
				for _, m := range repetition.FindAllStringSubmatch(pattern, -1) {
					for _, bound := range m[1:] {
						if n, _ := strconv.Atoi(bound); n > maxRepeat {
							t.Errorf("%s: repetition %s: bound it in code after an unbounded match (see reDDLProps)", at, m[0])
						}
					}
				}
				return true
			})
		}
	}
	if seen < 50 {
		t.Fatalf("found %d literal patterns; the walk is broken", seen)
	}
}

// stringConstants are the package-level string constants of one package
// that are a single literal.
func stringConstants(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if v, err := strconv.Unquote(lit.Value); err == nil {
							out[name.Name] = v
						}
					}
				}
			}
		}
	}
	return out
}

// maxRepeat is the largest counted repetition a pattern may use.
const maxRepeat = 128

// repetition finds counted repetitions: {n}, {n,} and {n,m}.
var repetition = regexp.MustCompile(`\{(\d+)(?:,(\d*))?\}`)
