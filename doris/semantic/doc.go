// Package semantic holds the handlers of doris_semantic: it answers from the semantic layer: Ossie models and the MetricFlow provider (doris/ossie, doris/metricflow, doris/semanticprovider beside it).
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Its providers' health
// is a core probe (semantic.metricflow), so it declares no Probes.
package semantic
