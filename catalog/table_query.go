package catalog

import "github.com/doris-mcp/doris-mcp-server/doris/query"

// queryDomain is doris_query: read-only SQL, plans, profiles, slow queries
// and explicit ADBC access.
var queryDomain = Domain{
	Name:  "doris_query",
	Title: "Doris read-only queries",
	Description: "Read-only SQL on Apache Doris: run one bounded SELECT, SHOW, DESC or EXPLAIN " +
		"statement, read plans and FE query profiles, diagnose a slow query, list slow queries from " +
		"the audit log, and opt-in ADBC (Arrow Flight SQL) access. It never writes or changes " +
		"settings, and does not browse object metadata or report cluster, ingestion, governance, " +
		"search or semantic state.",
	Children: []Child{
		{
			Name:    "execute_query",
			Handler: query.ExecuteQuery,
			Title:   "Execute a read-only query",
			Description: "Runs exactly one read-only statement (SELECT, WITH ... SELECT, SHOW, DESC or " +
				"EXPLAIN) and returns columns and rows. Writes, DDL, multiple statements and side-effect " +
				"functions are rejected. Values go in parameters as %(name)s placeholders. Results stop " +
				"at max_rows (default 100), a byte cap and timeout_ms, and are flagged truncated.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"sql":{"type":"string","minLength":1,"maxLength":1048576},
				"catalog":{"type":"string","minLength":1,"maxLength":64},
				"database":{"type":"string","minLength":1,"maxLength":64},
				"parameters":{"type":"object","maxProperties":256,"propertyNames":{"pattern":"^[A-Za-z_][A-Za-z0-9_]{0,63}$"},"additionalProperties":{"type":["string","number","boolean","null"]},"description":"Values for %(name)s placeholders; positional %s is rejected"},
				"max_rows":{"type":"integer","minimum":1,"maximum":100000,"default":100},
				"timeout_ms":{"type":"integer","minimum":1,"maximum":300000,"default":30000}},
				"required":["sql"]}`,
			Family:   Query,
			Feature:  "query.execute_query",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "mysql_read_only", Ranges: []string{"2.0.0-"}}},
		},
		{
			Name:    "explain_query",
			Handler: query.ExplainQuery,
			Title:   "Explain a query",
			Description: "Returns the Doris plan of one read-only statement without running it, plus " +
				"facets pulled from the plan: partition pruning, predicate pushdown, join types and " +
				"index use. level verbose uses EXPLAIN VERBOSE; costs also uses it and adds a warning, " +
				"because Doris has no cost-only mode. Plan rows are capped.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"sql":{"type":"string","minLength":1,"maxLength":1048576},
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"database":{"type":"string","minLength":1,"maxLength":256},
				"level":{"enum":["normal","verbose","costs"],"default":"normal"}},
				"required":["sql"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"level":{"type":"string"},
				"plan":{"type":"array","items":{"type":"string"}},
				"truncated":{"type":"boolean"},
				"facets":{"type":"object","additionalProperties":true,"properties":{
					"partition_pruning":{"type":["array","object","null"]},
					"pushdown":{"type":["array","object","null"]},
					"joins":{"type":["array","object","null"]},
					"index_use":{"type":["array","object","null"]}}}},
				"required":["plan","truncated"]}`,
			Feature: "query.explain_query",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "search_plan_facets", Ranges: []string{"4.0.0-"}},
				{Name: "base_explain", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"query.explain"},
		},
		{
			Name:    "get_query_profile",
			Handler: query.GetQueryProfile,
			Title:   "Get a query profile",
			Description: "Returns the FE execution profile of one query: by query_id, by the trace_id of " +
				"an earlier MCP call (its newest profiled query), or by running the given read-only sql once " +
				"with profiling on. Needs the FE HTTP profile API (not on per-user Doris OAuth routes). " +
				"Long profile text is truncated; give exactly one of query_id, trace_id or sql.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"query_id":{"type":"string","minLength":1,"maxLength":128,"pattern":"^[A-Za-z0-9_-]+$"},
				"trace_id":{"type":"string","pattern":"^([0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$","description":"W3C trace id of an MCP call"},
				"sql":{"type":"string","minLength":1,"maxLength":1048576,"description":"Read-only statement to run once with profiling"},
				"recent_window_minutes":{"type":"integer","minimum":1,"maximum":129600,"default":60},
				"include_operator_tree":{"type":"boolean","default":false}},
				"oneOf":[{"required":["query_id"]},{"required":["trace_id"]},{"required":["sql"]}]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"query_id":{"type":"string"},
				"trace_id":{"type":["string","null"]},
				"trace_query_ids":{"type":"array","items":{"type":"string"}},
				"profile_text":{"type":"string"},
				"profile_truncated":{"type":"boolean"},
				"operator_tree":{"type":["array","object","null"]}},
				"required":["query_id","profile_text"]}`,
			Feature:  "query.get_query_profile",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "query_profile", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"query.profile_api"},
			Provider: ProviderFEHTTP,
		},
		{
			Name:    "diagnose_query_performance",
			Handler: query.DiagnoseQueryPerformance,
			Title:   "Diagnose query performance",
			Description: "Diagnoses one query, by query_id or by sql, from its plan, profile and audit " +
				"record using fixed rules: cross joins, spills, scans far larger than the result, long " +
				"duration and high peak memory. Returns findings with evidence; unreadable sources are " +
				"reported as unavailable sections. With sql the statement may run once for a profile.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"query_id":{"type":"string","minLength":1,"maxLength":128,"pattern":"^[A-Za-z0-9_-]+$"},
				"sql":{"type":"string","minLength":1,"maxLength":1048576},
				"database":{"type":"string","minLength":1,"maxLength":64},
				"include_cluster_context":{"type":"boolean","default":false}},
				"oneOf":[{"required":["query_id"]},{"required":["sql"]}]}`,
			Family: Diagnostic,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"rule_version":{"type":"string"},
				"query_id":{"type":["string","null"]},
				"findings":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"code":{"type":"string"},
					"severity":{"type":"string"},
					"message":{"type":"string"}},
					"required":["code"]}},
				"sections":{"type":"object","additionalProperties":{"type":"object","additionalProperties":true,"properties":{
					"status":{"enum":["success","partial","unavailable"]},
					"reason_code":{"type":"string"}},
					"required":["status"]}}},
				"required":["rule_version","findings"]}`,
			Feature:  "query.diagnose_query_performance",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "deterministic_query_diagnosis", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"query.explain"},
		},
		{
			Name:    "list_slow_queries",
			Handler: query.ListSlowQueries,
			Title:   "List slow queries",
			Description: "Lists finished queries slower than min_duration_ms within the last " +
				"window_minutes from internal.__internal_schema.audit_log, slowest first: user, " +
				"database, state, timings, scanned rows and bytes, peak memory and a masked statement " +
				"capped at 8192 characters. Needs the Doris audit log enabled and readable; it runs up " +
				"to a minute behind.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"window_minutes":{"type":"integer","minimum":1,"maximum":129600,"default":60},
				"limit":{"type":"integer","minimum":1,"maximum":1000,"default":20},
				"min_duration_ms":{"type":"integer","minimum":0,"maximum":86400000,"default":1000},
				"database":{"type":"string","minLength":1,"maxLength":64},
				"user":{"type":"string","minLength":1,"maxLength":128}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"query_id":{"type":"string"},
				"time":{"type":["string","null"]},
				"user":{"type":["string","null"]},
				"catalog":{"type":["string","null"]},
				"db":{"type":["string","null"]},
				"state":{"type":["string","null"]},
				"query_time":{"type":["integer","null"],"description":"milliseconds"},
				"cpu_time_ms":{"type":["integer","null"]},
				"scan_bytes":{"type":["integer","null"]},
				"scan_rows":{"type":["integer","null"]},
				"return_rows":{"type":["integer","null"]},
				"peak_memory_bytes":{"type":["integer","null"]},
				"sql_hash":{"type":["string","null"]},
				"sql_digest":{"type":["string","null"]},
				"stmt":{"type":["string","null"]},
				"trace_id":{"type":["string","null"],"description":"the MCP call that sent it"}},
				"required":["query_id"]}`,
			Feature:  "query.list_slow_queries",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "audit_slow_queries", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"query.audit_log"},
		},
		{
			Name:    "get_adbc_connection_info",
			Handler: query.GetADBCConnectionInfo,
			Title:   "Get ADBC connection info",
			Description: "Reports whether ADBC (Arrow Flight SQL) access is ready: driver presence, the " +
				"configured FE and BE Flight SQL ports and whether they answer. No credentials are " +
				"returned. Use only when the user explicitly asks for ADBC or Arrow; ordinary queries " +
				"belong in execute_query. Doris 2.1.0-2.1.4 gives reduced readiness evidence.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"explicit_adbc":{"const":true,"description":"Must be true: the user asked for ADBC"}},
				"required":["explicit_adbc"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"enabled":{"type":"boolean"},
				"driver_available":{"type":"boolean"},
				"route_supported":{"type":["boolean","null"]},
				"fe_flight_port":{"type":["integer","null"]},
				"be_flight_port":{"type":["integer","null"]},
				"fe_reachable":{"type":["boolean","null"]},
				"be_reachable":{"type":["boolean","null"]},
				"issues":{"type":"array","items":{"type":"string"}}},
				"required":["enabled","driver_available"]}`,
			Feature: "query.get_adbc_connection_info",
			Scope:   ScopeAllComponents,
			Variants: []Variant{
				{Name: "adbc_flight_sql", Ranges: []string{"2.1.5-"}},
				{Name: "adbc_flight_sql_early", Ranges: []string{"2.1.0-2.1.5"}, Degraded: true,
					Limitations: []string{"Arrow Flight SQL in Doris 2.1.0-2.1.4 is early; readiness evidence is reduced."}},
			},
			Probes:   []string{"query.adbc_flight"},
			Provider: ProviderADBC,
		},
		{
			Name:    "execute_adbc_query",
			Handler: query.ExecuteADBCQuery,
			Title:   "Execute a query over ADBC",
			Description: "Runs one read-only statement over Arrow Flight SQL (ADBC) and returns bounded " +
				"rows. Off unless the operator enables ADBC, only for explicit ADBC requests; every " +
				"caller runs as its own Doris account. The read-only guard, masking, max_rows, byte " +
				"and timeout_ms limits of execute_query apply here too.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"explicit_adbc":{"const":true,"description":"Must be true: the user asked for ADBC"},
				"sql":{"type":"string","minLength":1,"maxLength":1048576},
				"max_rows":{"type":"integer","minimum":1,"maximum":100000,"default":10000},
				"timeout_ms":{"type":"integer","minimum":1,"maximum":300000,"default":60000},
				"result_format":{"enum":["arrow","pandas","dict"],"default":"arrow"}},
				"required":["explicit_adbc","sql"]}`,
			Family:  Query,
			Feature: "query.execute_adbc_query",
			Scope:   ScopeAllComponents,
			Variants: []Variant{
				{Name: "adbc_read_only", Ranges: []string{"2.1.5-"}},
				{Name: "adbc_read_only_early", Ranges: []string{"2.1.0-2.1.5"}, Degraded: true,
					Limitations: []string{"Arrow Flight SQL in Doris 2.1.0-2.1.4 is early; prefer execute_query."}},
			},
			Probes:   []string{"query.adbc_flight"},
			Provider: ProviderADBC,
		},
	},
}
