package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sleepAllowed lists the test files that still let real time pass, and
// why. Remove a file's entry with its last sleep: an entry whose file no
// longer sleeps fails the test, so the list only shrinks.
var sleepAllowed = map[string]string{}

// TestNoSleepInTests: no test lets real time pass to wait for something.
// A test that sleeps is slow when it works and flaky when the machine is
// busy. A test waits on an event instead (a channel, a hook such as the
// simulator's SyncAudit or the server's Close), moves an injected clock,
// runs in a testing/synctest bubble, where time is fake, or, for another
// process that offers nothing to wait on, checks a condition until a
// deadline (waitFor).
//
// The check is syntactic, over every _test.go file of the module: a use
// of Sleep from package "time" under whatever name the file imports it
// (Sleep alone with a dot import), and the same sleep spelled otherwise:
// a bare <-time.After(d) (or Tick, or a new timer's C) as a statement, or
// as the only case of a select. Inside a function literal given to
// synctest.Test, time.Sleep moves the bubble's fake clock and is allowed;
// a helper declared outside the literal is not seen as inside it.
func TestNoSleepInTests(t *testing.T) {
	fset := token.NewFileSet()
	found := map[string][]string{} // by file: the offending positions
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, s := range sleepsIn(fset, f) {
			found[filepath.ToSlash(path)] = append(found[filepath.ToSlash(path)], s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range slices.Sorted(maps.Keys(found)) {
		if why, ok := sleepAllowed[file]; ok {
			t.Logf("%s sleeps %d times (allowed: %s)", file, len(found[file]), why)
			continue
		}
		for _, s := range found[file] {
			t.Errorf("%s: a test lets real time pass; wait on an event, an injected clock, testing/synctest or waitFor instead", s)
		}
	}
	for file := range sleepAllowed {
		if len(found[file]) == 0 {
			t.Errorf("%s no longer sleeps: remove it from sleepAllowed", file)
		}
	}
}

// sleepsIn returns the position and form of every sleep in f.
func sleepsIn(fset *token.FileSet, f *ast.File) []string {
	timeNames, synctestNames := map[string]bool{}, map[string]bool{}
	dot := false
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch path {
		case "time":
			if name == "." {
				dot = true
			} else if name != "_" {
				timeNames[name] = true
			}
		case "testing/synctest":
			synctestNames[name] = true
		}
	}
	// timeFunc reports whether e names one of the functions of package
	// time.
	timeFunc := func(e ast.Expr, funcs ...string) bool {
		switch e := e.(type) {
		case *ast.SelectorExpr:
			id, ok := e.X.(*ast.Ident)
			return ok && timeNames[id.Name] && slices.Contains(funcs, e.Sel.Name)
		case *ast.Ident:
			return dot && slices.Contains(funcs, e.Name)
		}
		return false
	}
	// timerWait reports whether e is <-time.After(d), <-time.Tick(d) or
	// <-time.NewTimer(d).C.
	timerWait := func(e ast.Expr) bool {
		u, ok := e.(*ast.UnaryExpr)
		if !ok || u.Op != token.ARROW {
			return false
		}
		switch x := u.X.(type) {
		case *ast.CallExpr:
			return timeFunc(x.Fun, "After", "Tick")
		case *ast.SelectorExpr:
			call, ok := x.X.(*ast.CallExpr)
			return ok && x.Sel.Name == "C" && timeFunc(call.Fun, "NewTimer", "NewTicker")
		}
		return false
	}

	// The synctest bubbles: function literals given to synctest.Test.
	var bubbles [][2]token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Test" {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); !ok || !synctestNames[id.Name] {
			return true
		}
		for _, a := range call.Args {
			if lit, ok := a.(*ast.FuncLit); ok {
				bubbles = append(bubbles, [2]token.Pos{lit.Pos(), lit.End()})
			}
		}
		return true
	})
	inBubble := func(p token.Pos) bool {
		return slices.ContainsFunc(bubbles, func(b [2]token.Pos) bool { return b[0] <= p && p < b[1] })
	}

	var out []string
	report := func(n ast.Node, form string) {
		if !inBubble(n.Pos()) {
			out = append(out, fset.Position(n.Pos()).String()+": "+form)
		}
	}
	notUse := map[*ast.Ident]bool{} // identifiers that name no package-level Sleep
	cases := map[ast.Stmt]bool{}    // the communications of select cases
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CommClause:
			cases[n.Comm] = true
		case *ast.SelectorExpr:
			notUse[n.Sel] = true
			if timeFunc(n, "Sleep") {
				report(n, "time.Sleep")
			}
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				notUse[id] = true
			}
		case *ast.Field:
			for _, id := range n.Names {
				notUse[id] = true
			}
		case *ast.Ident:
			if !notUse[n] && timeFunc(n, "Sleep") {
				report(n, "Sleep (time dot-imported)")
			}
		case *ast.ExprStmt:
			if !cases[n] && timerWait(n.X) {
				report(n, "a bare receive from a timer")
			}
		case *ast.SelectStmt:
			if len(n.Body.List) == 1 {
				if cc, ok := n.Body.List[0].(*ast.CommClause); ok && cc.Comm != nil {
					var recv ast.Expr
					switch c := cc.Comm.(type) {
					case *ast.ExprStmt:
						recv = c.X
					case *ast.AssignStmt:
						if len(c.Rhs) == 1 {
							recv = c.Rhs[0]
						}
					}
					if recv != nil && timerWait(recv) {
						report(n, "a select on a timer alone")
					}
				}
			}
		}
		return true
	})
	return out
}

// TestSleepsIn: what TestNoSleepInTests counts as a sleep, and what not.
func TestSleepsIn(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      int
	}{
		{"time.Sleep", `import "time"
func f() { time.Sleep(time.Second) }`, 1},
		{"as a value", `import "time"
var nap = time.Sleep`, 1},
		{"a renamed import", `import tm "time"
func f() { tm.Sleep(1) }`, 1},
		{"a dot import", `import . "time"
func f() { Sleep(Second) }`, 1},
		{"another package's Sleep", `import ("time"; "example.com/clock")
func f(c clock.C) { c.Sleep(time.Second); clock.Sleep(1) }`, 0},
		{"time not imported", `func f(time fake) { time.Sleep(1) }`, 0},
		{"a bare receive", `import "time"
func f() { <-time.After(time.Second) }`, 1},
		{"a bare timer", `import "time"
func f() { <-time.NewTimer(time.Second).C }`, 1},
		{"a select on a timer alone", `import "time"
func f() { select { case <-time.After(time.Second): } }`, 1},
		{"a timeout", `import "time"
func f(c chan int) { select { case <-c: case <-time.After(time.Second): } }`, 0},
		{"inside a synctest bubble", `import ("testing"; "testing/synctest"; "time")
func TestX(t *testing.T) { synctest.Test(t, func(t *testing.T) { time.Sleep(time.Hour) }) }`, 0},
		{"outside the bubble", `import ("testing"; "testing/synctest"; "time")
func TestX(t *testing.T) { time.Sleep(1); synctest.Test(t, func(t *testing.T) {}) }`, 1},
		{"Test of another package", `import ("testing"; "time")
func TestX(t *testing.T) { other.Test(t, func(t *testing.T) { time.Sleep(1) }) }`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x_test.go", "package x\n"+tc.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if got := sleepsIn(fset, f); len(got) != tc.want {
				t.Errorf("found %v, want %d", got, tc.want)
			}
		})
	}
}
