package mariadb

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// DemoDocuments is the number of rows of demo.documents.
const DemoDocuments = 48

// DocumentsDim is the length of demo.documents.embedding.
const DocumentsDim = 8

// documentsStatements builds demo.documents: short technical articles for
// text, vector and hybrid search. The simulator presents an english
// inverted index on body, a unicode one on title and (from Doris 4.0) an
// HNSW ANN index on embedding, an ARRAY<FLOAT> of DocumentsDim numbers
// kept as a JSON array. Each topic has its own direction in the embedding
// space, so documents of one topic are near each other.
func documentsStatements(now time.Time) []string {
	r := rand.New(rand.NewPCG(demoSeedNumber, 11))
	type topic struct {
		name, category string
		words          []string
	}
	topics := []topic{
		{"inverted index", "search", []string{"inverted", "index", "tokenizer", "phrase", "analyzer", "match"}},
		{"vector search", "search", []string{"vector", "embedding", "hnsw", "distance", "nearest", "neighbors"}},
		{"materialized views", "modeling", []string{"materialized", "view", "refresh", "rewrite", "aggregate", "partition"}},
		{"stream load", "ingestion", []string{"stream", "load", "label", "transaction", "kafka", "routine"}},
		{"query profile", "operations", []string{"profile", "explain", "pipeline", "operator", "memory", "spill"}},
		{"lakehouse catalogs", "lakehouse", []string{"iceberg", "catalog", "snapshot", "paimon", "hive", "metastore"}},
	}
	authors := []string{"ada.lovelace@example.com", "grace.hopper@example.org", "alan.turing@example.net", "edsger.dijkstra@example.com"}
	var out []string
	out = append(out, `CREATE TABLE demo.documents (
  doc_id BIGINT NOT NULL COMMENT 'Document key',
  title VARCHAR(200) NOT NULL COMMENT 'Title (inverted index, unicode parser)',
  body TEXT NOT NULL COMMENT 'Body text (inverted index, english parser)',
  category VARCHAR(32) NOT NULL COMMENT 'search, modeling, ingestion, operations or lakehouse',
  author_email VARCHAR(255) NULL COMMENT 'Author contact (PII: masked in results)',
  published_at DATETIME NOT NULL COMMENT 'Publication time (UTC)',
  views INT NOT NULL COMMENT 'Page views',
  embedding JSON NOT NULL COMMENT 'ARRAY<FLOAT> embedding (ANN index, dim 8, l2_distance)',
  PRIMARY KEY (doc_id)
) ENGINE=InnoDB COMMENT='Knowledge base articles for search'`)
	openers := []string{"How Doris handles", "A practical guide to", "Tuning", "Troubleshooting", "Why we chose", "Inside"}
	var rows []string
	for i := 1; i <= DemoDocuments; i++ {
		tp := topics[(i-1)%len(topics)]
		title := openers[r.IntN(len(openers))] + " " + tp.name
		var words []string
		for k := 0; k < 10; k++ {
			words = append(words, tp.words[r.IntN(len(tp.words))])
		}
		other := topics[r.IntN(len(topics))]
		body := fmt.Sprintf("This article explains %s in Apache Doris. Key terms: %s. See also %s and %s.",
			tp.name, strings.Join(words, " "), other.name, other.words[r.IntN(len(other.words))])
		emb := make([]string, DocumentsDim)
		axis := (i - 1) % len(topics)
		for k := range emb {
			v := r.Float64()*0.2 - 0.1
			if k == axis {
				v += 1
			}
			emb[k] = strconv.FormatFloat(v, 'f', 4, 64)
		}
		email := "NULL"
		if i%5 != 0 {
			email = quote(authors[r.IntN(len(authors))])
		}
		rows = append(rows, fmt.Sprintf("(%d,%s,%s,'%s',%s,'%s',%d,'[%s]')", i, quote(title), quote(body), tp.category, email,
			now.Add(-time.Duration(i)*37*time.Hour).Format("2006-01-02 15:04:05"), 50+r.IntN(5000), strings.Join(emb, ",")))
	}
	return append(out, batches("INSERT INTO demo.documents VALUES ", rows, 100)...)
}
