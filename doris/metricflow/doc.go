// Package metricflow is the server's side of the MetricFlow sidecar
// boundary: it starts the operator's provider executable for one request,
// speaks the doris-mcp-metricflow/v1 protocol with it, and returns the
// provider's data or a failure with a stable reason code. It never runs
// Doris SQL: compiled SQL goes back to the caller, which sends it through
// the read-only guard and the bounded query runtime.
//
// # The protocol (doris-mcp-metricflow/v1)
//
// One process per request. The server starts the command of
// METRICFLOW_PROVIDER_COMMAND_JSON (a JSON array whose first element is an
// absolute executable) without a shell, in METRICFLOW_PROJECT_DIRECTORY
// when set, with exactly this environment and nothing inherited (so no
// credential reaches the provider):
//
//	LANG=C.UTF-8  LC_ALL=C.UTF-8  PYTHONUNBUFFERED=1
//
// It writes one JSON object to the provider's stdin and closes it:
//
//	{"arguments":{...},"operation":"compile_query",
//	 "protocol_version":"doris-mcp-metricflow/v1","request_id":"<uuid>"}
//
// The provider writes one JSON object to stdout and exits with status 0,
// whether it succeeded or not:
//
//	{"protocol_version":"doris-mcp-metricflow/v1","request_id":"<same uuid>",
//	 "ok":true,"data":{...}}
//	{"protocol_version":"doris-mcp-metricflow/v1","request_id":"<same uuid>",
//	 "ok":false,"error":{"reason_code":"METRICFLOW_METRIC_NOT_FOUND"}}
//
// Operations and their arguments (absent optional values are sent as
// null, as the reference server does):
//
//	list_models              {}
//	get_status               {model_ref}
//	list_metrics             {model_ref, search, include_dimensions, limit}
//	get_group_bys            {model_ref, metrics}
//	list_saved_queries       {model_ref, search, limit}
//	compile_dimension_values {model_ref, metrics, dimension, start_time, end_time, limit}
//	compile_query            {model_ref, request, dialect: "doris"}
//
// where request is the caller's compile_metricflow_query request: metrics
// or saved_query, group_by, where, start_time, end_time, order_by, limit.
// Collection operations (list_models, list_metrics, get_group_bys,
// list_saved_queries) answer data.items, an array of objects, and may set
// data.truncated; get_status answers an object; the compile operations
// answer a non-empty data.sql and, optionally, data.dialect, which must be
// "doris" when present.
//
// The server refuses, each with its reason code: an answer that is not
// valid UTF-8 or not exactly one JSON object (METRICFLOW_PROVIDER_RESPONSE_INVALID),
// a wrong protocol_version or request_id (METRICFLOW_PROVIDER_PROTOCOL_MISMATCH),
// more than METRICFLOW_MAX_OUTPUT_BYTES on stdout or 64 KiB on stderr
// (METRICFLOW_PROVIDER_OUTPUT_LIMIT_EXCEEDED), a non-zero exit
// (METRICFLOW_PROVIDER_FAILED), no answer within METRICFLOW_TIMEOUT_SECONDS
// (METRICFLOW_PROVIDER_TIMEOUT; the provider's whole process group is
// killed), and an executable that cannot be started
// (METRICFLOW_PROVIDER_START_FAILED). A provider's own reason_code
// (^[A-Z][A-Z0-9_]{0,127}$) is passed on; any other error shape becomes
// METRICFLOW_PROVIDER_REQUEST_FAILED. stderr is drained and discarded,
// never returned or logged. The same text is in PROTOCOL.md beside this
// file.
//
// The package imports only the standard library.
package metricflow
