package dorisoauth

import (
	"html"
	"strings"
	"testing"
)

// TestPagesEscapeEveryValue: with markup, quotes and ampersands in every
// field, the pages have exactly the structure they have with plain values:
// no value can close an attribute, open a tag or start a script.
func TestPagesEscapeEveryValue(t *testing.T) {
	const hostile = `"><script>alert(1)</script><img src=x onerror='x'>&amp;`
	fill := func(v string) page {
		return page{Title: v, ClientName: v, ClientHost: v, RedirectHost: v, Loopback: true,
			Access: []string{v, v}, Error: v, TxnID: v, CSRF: v, User: v}
	}
	var plain, attacked strings.Builder
	writeLogin(&plain, fill("X"))
	writeLogin(&attacked, fill(hostile))
	if strings.Contains(attacked.String(), "<script") || strings.Contains(attacked.String(), hostile) {
		t.Fatal("a value reached the page unescaped")
	}
	if got := strings.ReplaceAll(attacked.String(), html.EscapeString(hostile), "X"); got != plain.String() {
		t.Fatalf("the login page's structure changed with hostile values:\n%s", attacked.String())
	}
	plain.Reset()
	attacked.Reset()
	writeError(&plain, "X", "X")
	writeError(&attacked, hostile, hostile)
	if got := strings.ReplaceAll(attacked.String(), html.EscapeString(hostile), "X"); got != plain.String() {
		t.Fatalf("the error page's structure changed with hostile values:\n%s", attacked.String())
	}
}
