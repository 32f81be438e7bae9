package catalog

import "github.com/doris-mcp/doris-mcp-server/doris/pipeline"

// pipelineDomain is doris_pipeline: ingestion jobs, materialized views,
// freshness and inferred dependencies.
var pipelineDomain = Domain{
	Name:  "doris_pipeline",
	Title: "Doris ingestion pipelines",
	Description: "Ingestion and freshness in Apache Doris: batch, stream, routine, INSERT and " +
		"continuous load jobs, ingestion diagnosis, asynchronous materialized view jobs and refresh " +
		"tasks, table freshness and inferred upstream and downstream dependencies. Does not run " +
		"ad-hoc SQL, trace column lineage or audit trails (governance), or report cluster resources.",
	Children: []Child{
		{
			Name:    "get_ingestion_status",
			Handler: pipeline.GetIngestionStatus,
			Title:   "Get ingestion status",
			Description: "Lists load jobs of one database: batch loads, stream load records, routine " +
				"loads, INSERT jobs and, on Doris 4.1+, continuous loads, with state, progress, times " +
				"and an error summary. database defaults to the session database. Filter by job_types, " +
				"table and states; at most 200 jobs.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"job_types":{"type":"array","minItems":1,"uniqueItems":true,"items":{"enum":["batch_load","stream_load","routine_load","insert_job","continuous_load"]},"description":"Omit for every type the cluster supports"},
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"states":{"type":"array","minItems":1,"maxItems":32,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":64}},
				"limit":{"type":"integer","minimum":1,"maximum":200,"default":100}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"job_type":{"enum":["batch_load","stream_load","routine_load","insert_job","continuous_load"]},
				"job_id":{"type":["string","null"]},
				"label":{"type":["string","null"]},
				"database":{"type":["string","null"]},
				"table":{"type":["string","null"]},
				"state":{"type":["string","null"]},
				"progress":{"type":["string","null"]},
				"created_at":{"type":["string","null"]},
				"finished_at":{"type":["string","null"]},
				"error":{"type":["string","null"]}},
				"required":["job_type"]}`,
			Feature: "pipeline.get_ingestion_status",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "continuous_load", Ranges: []string{"4.1.0-"}, Probes: []string{"pipeline.insert_jobs"}},
				{Name: "load_jobs", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"pipeline.show_load"},
		},
		{
			Name:    "diagnose_ingestion",
			Handler: pipeline.DiagnoseIngestion,
			Title:   "Diagnose ingestion",
			Description: "Diagnoses an ingestion problem for one job_id, or for a database and table: " +
				"job state and errors, table freshness, optionally upstream dependencies, and recent " +
				"load statements from the audit log within window_minutes. Returns findings with " +
				"evidence; unreadable sources are reported as unavailable sections.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"job_id":{"type":"string","minLength":1,"maxLength":256},
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"window_minutes":{"type":"integer","minimum":1,"maximum":43200,"default":60},
				"include_dependencies":{"type":"boolean","default":false}},
				"anyOf":[{"required":["job_id"]},{"required":["database","table"]}]}`,
			Family: Diagnostic,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"target":{"type":"object","additionalProperties":true,"properties":{
					"job_id":{"type":["string","null"]},
					"database":{"type":["string","null"]},
					"table":{"type":["string","null"]}}},
				"findings":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"code":{"type":"string"},
					"severity":{"type":"string"},
					"message":{"type":"string"}},
					"required":["code"]}},
				"sections":{"type":"object","additionalProperties":{"type":"object","additionalProperties":true,"properties":{
					"status":{"enum":["success","partial","unavailable"]},
					"reason_code":{"type":"string"}},
					"required":["status"]}}},
				"required":["findings","sections"]}`,
			Feature:  "pipeline.diagnose_ingestion",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "deterministic_ingestion_diagnosis", Ranges: []string{"2.0.0-"}}},
		},
		{
			Name:    "get_materialized_view_status",
			Handler: pipeline.GetMaterializedViewStatus,
			Title:   "Get materialized view status",
			Description: "Lists asynchronous materialized views with state, refresh state and mode, " +
				"sync status with base tables and their scheduler jobs, plus up to 500 recent refresh " +
				"tasks with include_refresh_history, and synchronous MV build jobs. On cloud deployments " +
				"of 4.0.7+ or 4.1.2+ it also reports the refresh compute group.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"view":{"type":"string","minLength":1,"maxLength":256},
				"states":{"type":"array","minItems":1,"maxItems":32,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":64}},
				"include_refresh_history":{"type":"boolean","default":false}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"id":{"type":["string","null"]},
				"name":{"type":"string"},
				"database":{"type":["string","null"]},
				"kind":{"type":["string","null"],"description":"async or sync"},
				"job_name":{"type":["string","null"]},
				"state":{"type":["string","null"]},
				"schema_change_detail":{"type":["string","null"]},
				"refresh_state":{"type":["string","null"]},
				"refresh_info":{"type":["string","null"]},
				"sync_with_base_tables":{"type":["boolean","string","null"]},
				"compute_group":{"type":["string","null"]},
				"jobs":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}},
				"refresh_history":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}}},
				"required":["name"]}`,
			Feature: "pipeline.get_materialized_view_status",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "mtmv_compute_group", Ranges: []string{"4.0.7-4.1.0", "4.1.2-"}, Modes: []string{"cloud", "shared_data"}},
				{Name: "materialized_view_metadata", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"pipeline.mv_jobs"},
		},
		{
			Name:    "monitor_data_freshness",
			Handler: pipeline.MonitorDataFreshness,
			Title:   "Monitor data freshness",
			Description: "Checks how stale one table is against threshold_seconds: from MAX(time_column) " +
				"when given, else from partition visible-version times, else from the latest load in " +
				"the audit log. Returns the last update time, lag in seconds, a fresh, stale or unknown " +
				"verdict and the method used.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"threshold_seconds":{"type":"integer","minimum":1,"maximum":31536000,"default":86400},
				"time_column":{"type":"string","minLength":1,"maxLength":256,"description":"Event-time column to take MAX() of"}},
				"required":["database","table"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"database":{"type":"string"},
				"table":{"type":"string"},
				"method":{"enum":["time_column","partition_visible_time","audit_log","none"]},
				"last_update_time":{"type":["string","null"]},
				"lag_seconds":{"type":["integer","null"]},
				"threshold_seconds":{"type":"integer"},
				"status":{"enum":["fresh","stale","unknown"]}},
				"required":["database","table","method","status"]}`,
			Feature:  "pipeline.monitor_data_freshness",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "freshness_evidence", Ranges: []string{"2.0.0-"}}},
		},
		{
			Name:    "analyze_data_dependencies",
			Handler: pipeline.AnalyzeDataDependencies,
			Title:   "Analyze data dependencies",
			Description: "Returns upstream and/or downstream dependencies of one object, inferred from " +
				"materialized view queries, view definitions and INSERT or CREATE VIEW statements in the " +
				"last 30 days of the audit log. depth 1 to 5, at most 500 edges; edges are inferred, not " +
				"native lineage (see trace_column_lineage).",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"object":{"type":"string","minLength":1,"maxLength":256,"description":"Table, view or MV name, optionally db-qualified"},
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"database":{"type":"string","minLength":1,"maxLength":256},
				"direction":{"enum":["upstream","downstream","both"],"default":"both"},
				"depth":{"type":"integer","minimum":1,"maximum":5,"default":3}},
				"required":["object"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"root":{"type":"string"},
				"direction":{"type":"string"},
				"depth":{"type":"integer"},
				"evidence_quality":{"type":"string"},
				"edges":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"source":{"type":"string"},
					"target":{"type":"string"},
					"relation":{"type":["string","null"]},
					"evidence_source":{"type":["string","null"],"description":"mv_infos, views or audit_log"}},
					"required":["source","target"]}},
				"truncated":{"type":"boolean"}},
				"required":["root","edges","truncated"]}`,
			Feature:  "pipeline.analyze_data_dependencies",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "audit_sql_dependencies", Ranges: []string{"2.0.0-"}}},
		},
	},
}
