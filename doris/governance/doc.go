// Package governance holds the handlers of doris_governance: it reads the audit log, access patterns, column lineage, storage, UDFs and authentication mappings, every value passed through the sanitiser.
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Probes declares the
// capability probes its children need.
package governance
