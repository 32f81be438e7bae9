// Package semanticprovider is the MetricFlow provider built into
// doris-mcp-server: it loads dbt semantic manifests
// (target/semantic_manifest.json) and answers the sidecar protocol
// doris-mcp-metricflow/v1 by compiling metric requests to Apache Doris SQL.
//
// # What it does
//
// New builds a Provider for manifests named by model ref (ParseSource reads
// the command line's --manifest [REF=]PATH); Provider.Serve answers one
// request from stdin, and Provider.Handle one request document. Each
// request reads its manifest within bounds and strictly per element: the
// document must be one JSON object with no duplicate or case-variant key
// at any depth (those refuse it whole); each semantic model, measure,
// metric, saved query and time spine is then decoded on its own, and one
// with an unknown key, a malformed field or a relation name that cannot
// be mapped to Doris (relation.go) is refused alone, as is whatever uses
// it. An element that loads but cannot be compiled (an expression outside
// the accepted grammar) makes only the metrics that use it refuse.
// get_status lists each with its reason code and JSON path. Free-form
// sections (config, meta, exports, ...) never refuse anything.
//
// compile_query turns a request (metrics or a saved query, group-bys, where
// filters in MetricFlow's template form, a time range, order and limit)
// into one Doris SELECT, as MetricFlow would plan it:
//   - measure inputs become aggregated subqueries over their semantic
//     model (one scan for the measures of a model that share filters),
//     LEFT OUTER JOINed to the models that own the requested dimensions
//     through entities (primary or unique on the far side, at most two
//     hops, as MetricFlow allows);
//   - subqueries of different inputs are combined by FULL OUTER JOIN on the
//     group-by columns (CROSS JOIN when there are none), and ratio and
//     derived metrics are computed over the combined row;
//   - cumulative metrics and offset inputs of derived metrics are joined to
//     the manifest's time spine, as MetricFlow does; without a time spine
//     they are refused.
//
// Everything it cannot compile faithfully is refused with a stable reason
// code (see the Reason constants), never approximated. Every identifier it
// writes is backquoted; every literal, including those inside manifest
// expressions and where filters, is re-emitted through guard.Bind, which
// also checks the finished statement. The same request and manifest always
// give the same SQL, byte for byte.
//
// # What it deliberately does not do
//
// It never connects to Doris and never executes SQL: the server runs the
// compiled statement through its own guard and bounded query runtime under
// the caller's identity. It does not support conversion metrics, discrete
// percentiles, semi-additive (non_additive_dimension) measures, SCD type-2
// (validity_params) dimensions, custom granularities, date_part group-bys
// or join_to_timespine on offset and cumulative inputs; each is refused,
// per metric, with its reason code.
//
// The package has no mutable package-level state (the embedded demo
// manifest is handed out as a copy) and imports only the standard library
// and guard. A Provider is immutable once built and safe for concurrent
// use.
package semanticprovider
