// Package query holds the handlers of doris_query: it runs one bounded read-only statement, explains and profiles it, and reads slow queries from the audit log.
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Probes declares the
// capability probes its children need.
package query
