package doris_test

// The read-only guard end to end: every case of the deny corpus is sent
// to execute_query under the WRITE-capable account mcp_writer, and none of
// them reaches MariaDB or changes anything there.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/dorissim/mariadb"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// denyCase is one case of testdata/guard/deny (format: testdata/guard/README.md).
type denyCase struct {
	file, name, reason, sql string
}

func loadDenyCorpus(t testing.TB) []denyCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "guard", "deny", "*.sql"))
	if err != nil || len(files) == 0 {
		t.Fatalf("deny corpus: %v (%d files)", err, len(files))
	}
	slices.Sort(files)
	var out []denyCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		var cur *denyCase
		var body strings.Builder
		flush := func() {
			if cur != nil {
				cur.sql = strings.TrimSuffix(body.String(), "\n")
				out = append(out, *cur)
			}
			body.Reset()
		}
		for i, l := range lines {
			text := strings.TrimSuffix(l, "\n")
			if name, ok := strings.CutPrefix(text, "-- case: "); ok {
				flush()
				cur = &denyCase{file: filepath.Base(f), name: name}
				continue
			}
			if cur == nil {
				if strings.TrimSpace(text) != "" {
					t.Fatalf("%s: text before the first case", f)
				}
				continue
			}
			if r, ok := strings.CutPrefix(text, "-- reason: "); ok && body.Len() == 0 && cur.reason == "" &&
				strings.HasPrefix(lines[i-1], "-- case: ") {
				cur.reason = r
				continue
			}
			body.WriteString(l)
		}
		flush()
	}
	return out
}

// fingerprint is everything the replay could have changed, read as root
// straight from MariaDB: the demo tables' checksums, row counts and
// definitions, the schema objects, the accounts and their grants.
func fingerprint(t testing.TB, in *mariadb.Instance) []string {
	t.Helper()
	root := in.Root()
	var out []string
	add := func(prefix string, rows []string) {
		for _, r := range rows {
			out = append(out, prefix+": "+r)
		}
	}
	tables := doristest.Strings(t, root, "SELECT TABLE_NAME FROM information_schema.tables WHERE TABLE_SCHEMA = 'demo' AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME")
	for _, tbl := range tables {
		rows, err := root.Query("CHECKSUM TABLE demo." + tbl + " EXTENDED")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name, sum string
			rows.Scan(&name, &sum)
			out = append(out, "checksum: "+name+" "+sum)
		}
		rows.Close()
		out = append(out, "rows: "+tbl+" "+doristest.Scalar(t, root, "SELECT COUNT(*) FROM demo."+tbl))
		var n, ddl string
		root.QueryRow("SHOW CREATE TABLE demo."+tbl).Scan(&n, &ddl)
		out = append(out, "ddl: "+ddl)
	}
	add("table", doristest.Strings(t, root, "SELECT CONCAT_WS(' ', TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_COMMENT) FROM information_schema.tables "+
		"WHERE TABLE_SCHEMA NOT IN ('information_schema', 'performance_schema', 'mysql', 'sys') ORDER BY 1"))
	add("database", doristest.Strings(t, root, "SELECT SCHEMA_NAME FROM information_schema.schemata ORDER BY 1"))
	add("routine", doristest.Strings(t, root, "SELECT CONCAT(ROUTINE_SCHEMA, '.', ROUTINE_NAME) FROM information_schema.routines ORDER BY 1"))
	add("trigger", doristest.Strings(t, root, "SELECT CONCAT(TRIGGER_SCHEMA, '.', TRIGGER_NAME) FROM information_schema.triggers ORDER BY 1"))
	add("event", doristest.Strings(t, root, "SELECT CONCAT(EVENT_SCHEMA, '.', EVENT_NAME) FROM information_schema.events ORDER BY 1"))
	add("view", doristest.Strings(t, root, "SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME, ' ', VIEW_DEFINITION) FROM information_schema.views ORDER BY 1"))
	add("user", doristest.Strings(t, root, "SELECT CONCAT(User, '@', Host, ' ', authentication_string) FROM mysql.user ORDER BY 1"))
	for _, u := range []string{mariadb.ReaderUser, mariadb.WriterUser} {
		add("grants "+u, doristest.Strings(t, root, "SHOW GRANTS FOR '"+u+"'@'%'"))
	}
	add("variable", doristest.Strings(t, root, "SELECT CONCAT(VARIABLE_NAME, '=', VARIABLE_VALUE) FROM information_schema.global_variables "+
		"WHERE VARIABLE_NAME IN ('READ_ONLY', 'SQL_MODE', 'MAX_STATEMENT_TIME', 'EVENT_SCHEDULER', 'AUTOCOMMIT') ORDER BY 1"))
	return out
}

func TestGuardDenyCorpusEndToEnd(t *testing.T) {
	cases := loadDenyCorpus(t)
	if len(cases) < 300 {
		t.Fatalf("only %d deny cases", len(cases))
	}
	e := doristest.NewEnv(t, doristest.EnvOpts{User: mariadb.WriterUser, Password: mariadb.WriterPassword})
	// The writer really can write (so a refusal is the guard's doing):
	// prove it on a scratch table outside demo.
	w := doristest.Direct(t, e.DB.Addr(), mariadb.WriterUser, mariadb.WriterPassword, "demo")
	if _, err := w.Exec("SELECT 1 FROM demo.orders LIMIT 1 FOR UPDATE"); err != nil {
		t.Fatalf("writer account: %v", err)
	}
	e.Discover("doris_query") // capability evidence first: only the replay remains
	before := fingerprint(t, e.DB)
	statements, reset := doristest.GeneralLog(t, e.DB)
	reset()

	handler := e.RT.Handler("doris_query", "execute_query")
	reasons := map[string]int{}
	var notUTF8 []denyCase
	for _, c := range cases {
		label := c.file + ": " + c.name
		if !utf8.ValidString(c.sql) {
			notUTF8 = append(notUTF8, c) // see below
			continue
		}
		// Through the catalog, as a Host sends it.
		ev := e.Call("doris_query", "execute_query", map[string]any{"sql": c.sql})
		if ev.Mode != "error" || ev.Error.Code != "CHILD_ARGUMENTS_INVALID" {
			t.Errorf("%s: %.300s", label, ev.Raw)
			continue
		}
		r := ev.Error.Details.ReasonCode
		if r == "" && c.sql == "" {
			r = "schema" // an empty sql fails the input schema (minLength 1)
		}
		reasons[r]++
		if r != "QUERY_READ_ONLY_VIOLATION" && r != "QUERY_PARAMETERS_INVALID" && r != "schema" {
			t.Errorf("%s: reason %s: %s", label, r, ev.Raw)
		}
		if c.reason != "" && r != "schema" && !strings.Contains(ev.Error.Message, "("+c.reason+")") {
			t.Errorf("%s: the guard gave another reason than %s: %s", label, c.reason, ev.Error.Message)
		}
		// Straight to the runtime's handler too, bypassing the schema.
		args, _ := json.Marshal(map[string]any{"sql": c.sql})
		_, err := handler(context.Background(), &doris.Call{Domain: "doris_query", Child: "execute_query", Identity: e.ID, Args: args})
		var de *doris.Error
		if !errors.As(err, &de) || de.Kind != doris.KindArguments {
			t.Errorf("%s: handler answered %v", label, err)
		}
	}
	t.Logf("%d deny cases refused: %v", len(cases)-len(notUTF8), reasons)
	if got := statements(mariadb.WriterUser); len(got) != 0 {
		t.Fatalf("%d statements of the writer reached MariaDB, first %q", len(got), got[0])
	}

	// Bytes that are not UTF-8 cannot travel in JSON: a Host's text
	// arrives with U+FFFD in their place, and so does anything the
	// runtime's handler decodes. The raw bytes are refused by the guard
	// (its own corpus test); what can arrive is different text, which is
	// either refused too or a read the guard accepts. Either way nothing
	// may change.
	for _, c := range notUTF8 {
		var arrived struct {
			SQL string `json:"sql"`
		}
		b, _ := json.Marshal(map[string]any{"sql": c.sql})
		json.Unmarshal(b, &arrived)
		if arrived.SQL == c.sql || !utf8.ValidString(arrived.SQL) {
			t.Fatalf("%s: JSON carried the bytes unchanged", c.name)
		}
		if _, err := guard.Check(c.sql); err == nil {
			t.Fatalf("%s: the guard accepts the raw bytes", c.name)
		}
		ev := e.Call("doris_query", "execute_query", map[string]any{"sql": c.sql})
		_, gerr := guard.Check(arrived.SQL)
		if ev.Error.Code == "CHILD_ARGUMENTS_INVALID" {
			continue
		}
		if gerr != nil {
			t.Fatalf("%s: refused text was run: %s", c.name, ev.Raw)
		}
		t.Logf("%s: arrives as the read %q (%s)", c.name, arrived.SQL, map[bool]string{true: "ran", false: ev.Error.Details.ReasonCode}[ev.Mode == "result"])
	}

	after := fingerprint(t, e.DB)
	if !slices.Equal(before, after) {
		for i := range max(len(before), len(after)) {
			b, a := at(before, i), at(after, i)
			if a != b {
				t.Fatalf("MariaDB changed: %q -> %q", b, a)
			}
		}
	}
	t.Logf("fingerprint of %d facts identical before and after", len(before))
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return fmt.Sprintf("<missing %d>", i)
}
