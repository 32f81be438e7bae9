// Package lakehouse holds the handlers of doris_lakehouse: it inspects external catalogs, lakehouse tables (Iceberg, Hudi, Paimon, Hive) and VARIANT columns.
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Probes declares the
// capability probes its children need.
package lakehouse
