package doris

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

func TestCheckIdent(t *testing.T) {
	for _, ok := range []string{"demo", "order_items", "Sales 2025", "a.b", "中文表", "x", strings.Repeat("a", 256), "émoji😀", "semi;colon", "--dash"} {
		if e := CheckIdent("CATALOG", "table", ok); e != nil {
			t.Errorf("%q refused: %v", ok, e)
		}
	}
	for _, bad := range []string{"", strings.Repeat("a", 257), "a`b", "a'b", `a"b`, `a\b`, "a\nb", "a\x00b", "a\x7fb", "\xff", "tab\t", "\x1b[31m"} {
		e := CheckIdent("CATALOG", "table", bad)
		if e == nil {
			t.Errorf("%q accepted", bad)
			continue
		}
		if e.Kind != KindArguments || e.Reason != "CATALOG_IDENTIFIER_INVALID" || e.Status != 400 || strings.Contains(e.Message, bad) && bad != "" {
			t.Errorf("%q: %+v", bad, e)
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{"demo": "`demo`", "a`b": "`a``b`", "": "``"} {
		if got := QuoteIdent(in); got != want {
			t.Errorf("quoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Qualified("", "demo", "orders"); got != "`demo`.`orders`" {
		t.Errorf("qualified %s", got)
	}
	if got := Qualified("hive", "db", "t"); got != "`hive`.`db`.`t`" {
		t.Errorf("qualified %s", got)
	}
}

// TestIdentsPassTheBoundary: every name checkIdent accepts makes session
// statements that the connection boundary accepts, so a valid catalog or
// database can never be refused there (or smuggle anything through it).
func TestIdentsPassTheBoundary(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("abcXYZ019_ -.;/*#$%中😀é()'\"`\\\n\t\x00")
	accepted := 0
	for range 20000 {
		n := 1 + r.IntN(12)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		name := b.String()
		if CheckIdent("Q", "database", name) != nil {
			continue
		}
		accepted++
		for _, q := range []string{"USE " + QuoteIdent(name), "SWITCH " + QuoteIdent(name), "USE `internal`." + QuoteIdent(name)} {
			if !guard.SessionControl(q) {
				t.Fatalf("%q: the boundary refuses %q", name, q)
			}
		}
		// And it is never read as anything but a name by the guard.
		if _, err := guard.Check("SELECT 1 FROM " + Qualified("internal", name, name)); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
	}
	if accepted < 1000 {
		t.Fatalf("only %d names accepted", accepted)
	}
}

func TestBoundary(t *testing.T) {
	for _, ok := range []string{"SELECT 1", "SHOW TABLES", "SET query_timeout = 30", "USE `demo`", "SWITCH `hive`", "KILL QUERY 42",
		`SET session_context = "trace_id:1a629a10-153f-4235-a2d8-5c2688eb3bd6"`, "SET enable_profile = true"} {
		if err := boundary(ok, nil); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"DELETE FROM t", "SET GLOBAL read_only = 0", "KILL 42", "USE demo; DROP TABLE t", "SET query_timeout = 0", "SELECT 1; SELECT 2"} {
		if err := boundary(bad, nil); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
