// Package cluster holds the handlers of doris_cluster: it reports the cluster: nodes, running tasks, FE/BE metrics, memory, caches, compaction, workload and compute groups, growth.
//
// Each handler is named in its child's row of the contract table
// (catalog/table_*.go) and runs through the doris core's kit (kit.go): it
// never holds a connection, a pool or a credential. Probes declares the
// capability probes its children need.
package cluster
