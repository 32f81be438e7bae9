// Package search holds the handlers of doris_search: it inspects inverted and vector indexes, previews text analysis, runs bounded searches and diagnoses search queries.
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Probes declares the
// capability probes its children need.
package search
