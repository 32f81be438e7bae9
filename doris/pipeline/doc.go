// Package pipeline holds the handlers of doris_pipeline: it reports ingestion (loads, routine loads, jobs), materialized views, data freshness and dependencies between tables.
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Probes declares the
// capability probes its children need.
package pipeline
