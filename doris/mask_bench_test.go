package doris_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// BenchmarkMaskingExecuteQuery1000Rows measures what masking costs a
// 1,000-row execute_query of customer-like rows (a phone, an e-mail and
// an identity number per row, plus ordinary columns), through the
// runtime's handler, with masking on and off:
//
//	go test ./doris -run '^$' -bench MaskingExecuteQuery -benchtime 200x -count 5
func BenchmarkMaskingExecuteQuery1000Rows(b *testing.B) {
	e := newEnv(b, envOpts{noAudit: true})
	w := searchWriter(b, e)
	var rows []string
	for i := 1; i <= 1000; i++ {
		rows = append(rows, fmt.Sprintf("(%d, 'Customer %d', 'customer.%d@example.com', '+1-555-%03d-%04d', '1101011990%08d', %d.%02d, '2024-01-%02d 10:30:00', 'order %d shipped to the warehouse')",
			i, i, i, i%1000, i, i, i*7, i%100, 1+i%28, 100000+i))
	}
	for _, q := range []string{"DROP TABLE IF EXISTS m_bench",
		"CREATE TABLE m_bench (id INT, full_name VARCHAR(64), email VARCHAR(64), phone VARCHAR(32), id_card VARCHAR(32), amount DECIMAL(12,2), created_at DATETIME, note VARCHAR(100)) DUPLICATE KEY(id)",
		"INSERT INTO m_bench VALUES " + strings.Join(rows, ", ")} {
		if _, err := w.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	b.Cleanup(func() { w.Exec("DROP TABLE IF EXISTS m_bench") })
	call := &doris.Call{Domain: "doris_query", Child: "execute_query", Identity: e.id,
		Args: json.RawMessage(`{"sql":"SELECT * FROM m_bench ORDER BY id","max_rows":1000}`)}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("masking_%v", on), func(b *testing.B) {
			e.cfg.EnableMasking = on
			e.open()
			h := e.rt.Handler("doris_query", "execute_query")
			ctx := context.Background()
			if _, err := h(ctx, call); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := h(ctx, call)
				if err != nil {
					b.Fatal(err)
				}
				if want := on; (res.Masking.MaskedValues == 3000) != want {
					b.Fatalf("masked %d values with masking %v", res.Masking.MaskedValues, on)
				}
			}
		})
	}
}
