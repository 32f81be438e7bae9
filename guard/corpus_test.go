package guard_test

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// corpusCase is one case of a testdata/guard corpus file; the format is
// described in testdata/guard/README.md.
type corpusCase struct {
	file   string
	line   int // line of the "-- case:" separator
	name   string
	reason string // expected Reason, deny files only; "" if not declared
	sql    string
}

const (
	caseMarker   = "-- case: "
	reasonMarker = "-- reason: "
)

// parseCorpus splits a corpus file into cases.
func parseCorpus(file string, data string) ([]corpusCase, error) {
	var cases []corpusCase
	lines := strings.SplitAfter(data, "\n")
	var cur *corpusCase
	var body strings.Builder
	flush := func() {
		if cur != nil {
			cur.sql = strings.TrimSuffix(body.String(), "\n")
			cases = append(cases, *cur)
		}
		body.Reset()
	}
	for i, l := range lines {
		text := strings.TrimSuffix(l, "\n")
		if strings.HasPrefix(text, caseMarker) {
			flush()
			cur = &corpusCase{file: file, line: i + 1, name: strings.TrimPrefix(text, caseMarker)}
			continue
		}
		if cur == nil {
			if strings.TrimSpace(text) != "" {
				return nil, errors.New(file + ": text before the first case")
			}
			continue
		}
		if body.Len() == 0 && cur.reason == "" && strings.HasPrefix(text, reasonMarker) && i > 0 &&
			strings.HasPrefix(lines[i-1], caseMarker) {
			cur.reason = strings.TrimPrefix(text, reasonMarker)
			continue
		}
		body.WriteString(l)
	}
	flush()
	return cases, nil
}

func loadCorpus(t testing.TB, dir string) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "guard", dir, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var all []corpusCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases, err := parseCorpus(filepath.Base(f), string(data))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, cases...)
	}
	return all
}

func TestParseCorpus(t *testing.T) {
	data := "-- header comment is allowed? no\n"
	if _, err := parseCorpus("x.sql", data); err == nil {
		t.Errorf("text before the first case: got no error")
	}
	data = "\n-- case: one\n-- reason: WRITE_STATEMENT\nDROP TABLE t\n\n-- case: two\nSELECT 1\n-- reason: NOT_A_REASON_LINE\n-- case: three\n-- case: four\nx"
	got, err := parseCorpus("x.sql", data)
	if err != nil {
		t.Fatal(err)
	}
	want := []corpusCase{
		{file: "x.sql", line: 2, name: "one", reason: "WRITE_STATEMENT", sql: "DROP TABLE t\n"},
		{file: "x.sql", line: 6, name: "two", sql: "SELECT 1\n-- reason: NOT_A_REASON_LINE"},
		{file: "x.sql", line: 9, name: "three", sql: ""},
		{file: "x.sql", line: 10, name: "four", sql: "x"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d cases, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("case %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// TestCorpus requires zero misclassifications on both corpora.
func TestCorpus(t *testing.T) {
	allow := loadCorpus(t, "allow")
	deny := loadCorpus(t, "deny")
	var wrongAllow, wrongDeny, wrongReason, declared int
	for _, cs := range allow {
		if _, err := guard.Check(cs.sql); err != nil {
			wrongAllow++
			t.Errorf("allow %s:%d %q refused: %v", cs.file, cs.line, cs.name, err)
		}
	}
	names := map[string]bool{}
	for _, cs := range deny {
		key := cs.file + "/" + cs.name
		if names[key] {
			t.Errorf("deny %s:%d duplicate case name %q", cs.file, cs.line, cs.name)
		}
		names[key] = true
		_, err := guard.Check(cs.sql)
		if err == nil {
			wrongDeny++
			t.Errorf("deny %s:%d %q accepted", cs.file, cs.line, cs.name)
			continue
		}
		var ge *guard.Error
		if !errors.As(err, &ge) {
			t.Errorf("deny %s:%d %q: error %T is not *guard.Error", cs.file, cs.line, cs.name, err)
			continue
		}
		if len(cs.sql) > 10 && strings.Contains(ge.Msg, cs.sql) {
			t.Errorf("deny %s:%d %q: message echoes the SQL text", cs.file, cs.line, cs.name)
		}
		if cs.reason != "" {
			declared++
			if ge.Reason != cs.reason {
				wrongReason++
				t.Errorf("deny %s:%d %q: reason %s (%v), want %s", cs.file, cs.line, cs.name, ge.Reason, err, cs.reason)
			}
		}
	}
	t.Logf("allow: %d cases, %d refused; deny: %d cases, %d accepted, %d with a declared reason, %d with another reason",
		len(allow), wrongAllow, len(deny), wrongDeny, declared, wrongReason)
	if len(allow) < 300 {
		t.Errorf("allow corpus has %d cases, want at least 300", len(allow))
	}
	if len(deny) < 250 {
		t.Errorf("deny corpus has %d cases, want at least 250", len(deny))
	}
}
