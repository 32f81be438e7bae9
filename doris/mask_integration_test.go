package doris_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/doristest"
)

// piiRows are personal data in several formats and how each comes back.
var piiRows = []struct{ phone, email, idCard, phoneMasked, emailMasked, idMasked string }{
	{"13812345678", "zhang.wei@example.com", "110101199003074578", "138****5678", "z*******i@example.com", "110101********4578"},
	{"+1-555-123-4567", "ab@example.org", "11010119900307457X", "+1-55*-***-4567", "**@example.org", "110101********457X"},
	{"(555) 987-6543", "o'brien+tag@mail.example.co.uk", "123-45-6789", "(555) ***-6543", "o*********g@mail.example.co.uk", "***-**-6789"},
	{"+86 139 8765 4321", "x.y@163.com", "E12345678", "+86 1** **** 4321", "x*y@163.com", "*****5678"},
}

// lookAlikes are values shaped like personal data that are not: none may
// change.
var lookAlikes = []struct{ orderID, ts, amount, uuid, ip, version, asset string }{
	{"13812345678", "2024-01-15 10:30:00", "1234567.89", "550e8400-e29b-41d4-a716-446655440000", "192.168.100.200", "2.1.7-rc03", "logo@2x.png"},
	{"110101199003074578", "2025-12-31T23:59:59Z", "-98765.43", "123e4567-e89b-12d3-a456-426614174000", "10.0.0.1", "v4.0.7", "pkg@1.2.3"},
}

// writePII creates the tables of personal data and of look-alikes through
// the simulator (and a searchable one with an e-mail column).
func writePII(t *testing.T, e *doristest.Env) {
	t.Helper()
	w := doristest.SearchWriter(t, e)
	var pii, looks, docs []string
	for i, r := range piiRows {
		pii = append(pii, fmt.Sprintf("(%d, %q, %q, %q, %q)", i+1, r.phone, r.email, r.idCard, "customer "+r.email))
		docs = append(docs, fmt.Sprintf("(%d, 'masked search %d', %q)", i+1, i, r.email))
	}
	for i, r := range lookAlikes {
		looks = append(looks, fmt.Sprintf("(%d, %s, %q, %s, %q, %q, %q, %q)", i+1, r.orderID, r.ts, r.amount, r.uuid, r.ip, r.version, r.asset))
	}
	for _, q := range []string{"DROP TABLE IF EXISTS m_pii", "DROP TABLE IF EXISTS m_looks", "DROP TABLE IF EXISTS m_docs",
		"CREATE TABLE m_pii (id INT, mobile_phone VARCHAR(32), email VARCHAR(100), id_card VARCHAR(32), note STRING) DUPLICATE KEY(id)",
		"INSERT INTO m_pii VALUES " + strings.Join(pii, ", "),
		"CREATE TABLE m_looks (id INT, order_id BIGINT, created_at VARCHAR(40), amount DECIMAL(12,2), trace_id VARCHAR(40), client_ip VARCHAR(40), version VARCHAR(20), asset VARCHAR(40)) DUPLICATE KEY(id)",
		"INSERT INTO m_looks VALUES " + strings.Join(looks, ", "),
		`CREATE TABLE m_docs (id INT, body STRING, author_email VARCHAR(100), INDEX i (body) USING INVERTED PROPERTIES("parser"="english")) DUPLICATE KEY(id)`,
		"INSERT INTO m_docs VALUES " + strings.Join(docs, ", "),
	} {
		if _, err := w.Exec(q); err != nil {
			t.Fatalf("%.100s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, tbl := range []string{"m_pii", "m_looks", "m_docs"} {
			w.Exec("DROP TABLE IF EXISTS " + tbl)
		}
	})
}

// TestMaskingOnEveryDataPath: execute_query and search_data return
// personal data masked, say how many values were masked, leave look-alikes
// alone, and return raw values with ENABLE_MASKING=false.
func TestMaskingOnEveryDataPath(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	writePII(t, e)
	q, cd, _ := e.Query(map[string]any{"sql": "SELECT * FROM m_pii ORDER BY id"})
	raw := string(cd.Data)
	for i, r := range piiRows {
		row := q.Rows[i]
		if row["mobile_phone"] != r.phoneMasked || row["email"] != r.emailMasked || row["id_card"] != r.idMasked ||
			row["note"] != "customer "+r.emailMasked {
			t.Errorf("row %d: %v, want %s / %s / %s", i+1, row, r.phoneMasked, r.emailMasked, r.idMasked)
		}
		for _, secret := range []string{r.phone, r.email, r.idCard} {
			if strings.Contains(raw, secret) {
				t.Errorf("raw value %q in the result", secret)
			}
		}
	}
	if applied, n := doristest.MaskingMeta(t, cd); !applied || n != 4*len(piiRows) {
		t.Errorf("masking metadata: applied %v, %d values; want %d", applied, n, 4*len(piiRows))
	}
	// Aliases do not hide e-mail addresses; phones and identity numbers
	// are masked by column name.
	q, _, _ = e.Query(map[string]any{"sql": "SELECT email AS contact, mobile_phone AS mp FROM m_pii WHERE id = 1"})
	if q.Rows[0]["contact"] != piiRows[0].emailMasked {
		t.Errorf("aliased e-mail: %v", q.Rows[0])
	}

	// Look-alikes come back exactly as MariaDB holds them.
	q, cd, _ = e.Query(map[string]any{"sql": "SELECT order_id, created_at, amount, trace_id, client_ip, version, asset FROM m_looks ORDER BY id"})
	for i, r := range lookAlikes {
		got := q.Rows[i]
		want := map[string]string{"order_id": r.orderID, "created_at": r.ts, "amount": r.amount, "trace_id": r.uuid,
			"client_ip": r.ip, "version": r.version, "asset": r.asset}
		for k, v := range want {
			if fmt.Sprint(got[k]) != v {
				t.Errorf("look-alike %s: got %v, want %s", k, got[k], v)
			}
		}
	}
	if applied, n := doristest.MaskingMeta(t, cd); !applied || n != 0 {
		t.Errorf("look-alikes: applied %v, %d masked", applied, n)
	}

	// search_data goes through the same runtime.
	var sd doristest.QueryResult
	ev := e.Ok("doris_search", "search_data", map[string]any{"database": "demo", "table": "m_docs", "mode": "text", "query": "masked"})
	scd := ev.Decode(t, &sd)
	if len(sd.Rows) != len(piiRows) {
		t.Fatalf("search_data rows %d", len(sd.Rows))
	}
	for _, row := range sd.Rows {
		if s := row["author_email"].(string); !strings.Contains(s, "*") {
			t.Errorf("search_data returned %q unmasked", s)
		}
	}
	if applied, n := doristest.MaskingMeta(t, scd); !applied || n != len(piiRows) {
		t.Errorf("search_data masking metadata: %v %d", applied, n)
	}

	// ENABLE_MASKING=false returns raw values, and says masking was off.
	off := doristest.NewEnv(t, doristest.EnvOpts{Config: func(c *doris.Config) { c.EnableMasking = false }})
	q, cd, _ = off.Query(map[string]any{"sql": "SELECT * FROM m_pii ORDER BY id"})
	for i, r := range piiRows {
		if q.Rows[i]["mobile_phone"] != r.phone || q.Rows[i]["email"] != r.email || q.Rows[i]["id_card"] != r.idCard {
			t.Errorf("masking off, row %d: %v", i+1, q.Rows[i])
		}
	}
	if applied, n := doristest.MaskingMeta(t, cd); applied || n != 0 {
		t.Errorf("masking off: applied %v, %d values", applied, n)
	}
}

// TestMaskingByteBudget: the byte budget counts the masked text as sent.
// A rule that masks with a 3-byte character makes rows larger; the result
// is cut where the masked rows reach MAX_RESULT_BYTES.
func TestMaskingByteBudget(t *testing.T) {
	e := doristest.NewEnv(t, doristest.EnvOpts{})
	writePII(t, e)
	const sqlText = "SELECT id, note FROM m_pii ORDER BY id"
	q, _, _ := e.Query(map[string]any{"sql": sqlText})
	rowBytes := func(v any) int { b, _ := json.Marshal(v); return len(b) }
	masked := e.Cfg
	masked.MaskingRules = `[{"name":"notes","columns":["note"],"mask_char":"•"}]`
	var sizes []int
	for _, r := range piiRows {
		// {"id":N,"note":"•••..."}: every character of the note becomes 3 bytes.
		n := len([]rune("customer " + r.email))
		sizes = append(sizes, len(`{"id":1,"note":""}`)+3*n)
	}
	budget := sizes[0] + sizes[1] + sizes[2] - 1 // fits two masked rows, not three
	if plain := rowBytes(q.Rows[0]) + rowBytes(q.Rows[1]) + rowBytes(q.Rows[2]); plain > budget {
		t.Fatalf("the test needs three plain rows (%d bytes) to fit in %d", plain, budget)
	}
	masked.MaxResultBytes = budget
	e.Cfg = masked
	e.Open()
	q, cd, ev := e.Query(map[string]any{"sql": sqlText})
	if q.RowCount != 2 || !q.Truncated || !ev.Metadata.Truncated {
		t.Fatalf("budget %d: %d rows (truncated %v), want 2 masked rows", budget, q.RowCount, q.Truncated)
	}
	if applied, n := doristest.MaskingMeta(t, cd); !applied || n != 2 || !strings.HasPrefix(q.Rows[0]["note"].(string), "•••") {
		t.Errorf("masked %d values, rows %v", n, q.Rows)
	}
}
