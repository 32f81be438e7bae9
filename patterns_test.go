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
	seen := 0
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
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "MustCompile" {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "regexp" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true // built at run time; its own tests cover it
			}
			pattern, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
				return true
			}
			seen++
			if _, err := regexp.Compile(pattern); err != nil {
				t.Errorf("%s: %v", fset.Position(lit.Pos()), err)
			}
			for _, m := range bigRepeat.FindAllStringSubmatch(pattern, -1) {
				if n, _ := strconv.Atoi(m[1]); n > maxRepeat {
					t.Errorf("%s: repetition %s: bound it in code after an unbounded match (see reDDLProps)", fset.Position(lit.Pos()), m[0])
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("found %d literal patterns; the walk is broken", seen)
	}
}

// maxRepeat is the largest counted repetition a pattern may use.
const maxRepeat = 128

var bigRepeat = regexp.MustCompile(`\{(?:\d+,)?(\d+)\}`)
