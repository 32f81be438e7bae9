// Package metadata holds the handlers of doris_catalog: it browses what Doris holds: catalogs, databases, tables, a table's context (schema, comments, indexes, partitions) and its size. It is named metadata so that it does not clash with the top-level catalog package, which holds the contract table.
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Probes declares the
// capability probes its children need.
package metadata
