package guard_test

import (
	"sort"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

func tpch(b *testing.B) []string {
	b.Helper()
	var qs []string
	for _, cs := range loadCorpus(b, "allow") {
		if cs.file == "tpch.sql" {
			qs = append(qs, cs.sql)
		}
	}
	if len(qs) != 22 {
		b.Fatalf("found %d TPC-H queries, want 22", len(qs))
	}
	return qs
}

// BenchmarkCheckTPCH checks all 22 TPC-H queries per iteration.
func BenchmarkCheckTPCH(b *testing.B) {
	qs := tpch(b)
	n := 0
	for _, q := range qs {
		n += len(q)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			if _, err := guard.Check(q); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCheckSmall is the per-call cost of a small query.
func BenchmarkCheckSmall(b *testing.B) {
	const q = "SELECT id, name FROM users WHERE id = 42"
	b.SetBytes(int64(len(q)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := guard.Check(q); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBindSmall(b *testing.B) {
	const q = "SELECT id, name FROM users WHERE id = %(id)s AND name LIKE %(name)s"
	params := map[string]any{"id": 42, "name": "%o'neil%"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := guard.Bind(q, params); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScanTPCH(b *testing.B) {
	qs := tpch(b)
	n := 0
	for _, q := range qs {
		n += len(q)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			if _, err := guard.Scan(q); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCheckAdversarial times Check on 1 MiB adversarial inputs; MB/s
// close to the TPC-H figure shows the work is linear.
func BenchmarkCheckAdversarial(b *testing.B) {
	inputs := adversarial()
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sql := inputs[name]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(sql)))
			b.ReportAllocs()
			for b.Loop() {
				guard.Check(sql)
			}
		})
	}
}
