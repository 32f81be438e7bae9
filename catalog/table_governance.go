package catalog

import "github.com/doris-mcp/doris-mcp-server/doris/governance"

// governanceDomain is doris_governance: quality, storage, lineage, audit,
// UDFs and auth mapping.
var governanceDomain = Domain{
	Name:  "doris_governance",
	Title: "Doris data governance",
	Description: "Governance evidence for Apache Doris: column quality profiles, table storage " +
		"layout, column lineage and its readiness, data access patterns, redacted recent audit " +
		"events, visible UDF metadata and LDAP or OIDC role-mapping readiness. Read-only; does not " +
		"run user SQL, change grants, or cover cluster state, ingestion jobs, search or semantic models.",
	Children: []Child{
		{
			Name:    "analyze_columns",
			Handler: governance.AnalyzeColumns,
			Title:   "Analyze columns",
			Description: "Profiles columns of one table: type, nullability, default, collected column " +
				"statistics and type risks and, only when sample_ratio is given, a sampled null ratio " +
				"and distinct estimate (TABLESAMPLE; complex types skipped). Up to 32 columns; the " +
				"server caps sample_ratio at its configured maximum (default 0.25).",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"columns":{"type":"array","minItems":1,"maxItems":32,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256},"description":"Omit for the first 32 columns"},
				"sample_ratio":{"type":"number","minimum":0,"maximum":1,"description":"Fraction of rows to sample; no sampling when omitted"}},
				"required":["database","table"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"database":{"type":"string"},
				"table":{"type":"string"},
				"sample_ratio":{"type":["number","null"]},
				"columns":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"name":{"type":"string"},
					"data_type":{"type":["string","null"]},
					"nullable":{"type":["boolean","null"]},
					"default":{"type":["string","null"]},
					"statistics":{"type":["object","null"],"additionalProperties":true},
					"null_ratio":{"type":["number","null"]},
					"distinct_estimate":{"type":["integer","null"]},
					"risks":{"type":"array","items":{"type":"string"}}},
					"required":["name"]}}},
				"required":["database","table","columns"]}`,
			Feature:  "governance.analyze_columns",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "column_statistics", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"governance.information_schema"},
		},
		{
			Name:    "analyze_table_storage",
			Handler: governance.AnalyzeTableStorage,
			Title:   "Analyze table storage",
			Description: "Describes how one table is stored: key model, distribution, replication, " +
				"compression, storage format, table statistics and sanitized properties, plus partitions " +
				"(up to 1000) and indexes when asked. On Doris 4.1+ it also reports storage format v3 " +
				"and VARIANT storage settings.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"include_partitions":{"type":"boolean","default":false},
				"include_indexes":{"type":"boolean","default":false}},
				"required":["database","table"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"database":{"type":"string"},
				"table":{"type":"string"},
				"key_model":{"type":["string","null"]},
				"distribution":{"type":["string","null"]},
				"replication":{"type":["string","integer","null"]},
				"compression":{"type":["string","null"]},
				"storage_format":{"type":["string","null"]},
				"row_count":{"type":["integer","null"]},
				"data_bytes":{"type":["integer","null"]},
				"properties":{"type":"object","additionalProperties":{"type":["string","null"]}},
				"partitions":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}},
				"indexes":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}}},
				"required":["database","table"]}`,
			Feature: "governance.analyze_table_storage",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "storage_v3_variant", Ranges: []string{"4.1.0-"}},
				{Name: "base_storage", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"governance.information_schema"},
		},
		{
			Name:    "get_lineage_capability_status",
			Handler: governance.GetLineageCapabilityStatus,
			Title:   "Get lineage capability status",
			Description: "Reports which lineage path is usable and why: the FE lineage plugin settings, " +
				"whether the configured lineage store table exists, is queryable and has recent events, " +
				"and whether the audit log has the fields SQL inference needs. Takes no arguments; call " +
				"it before trace_column_lineage.",
			Input:  `{"type":"object","additionalProperties":false,"properties":{}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"active_path":{"enum":["native_lineage_events","audit_sql_inference","none"]},
				"reasons":{"type":"array","items":{"type":"string"}},
				"plugin":{"type":"object","additionalProperties":true,"properties":{
					"activate_lineage_plugin":{"type":["string","null"]},
					"lineage_event_queue_size":{"type":["string","null"]}}},
				"store":{"type":"object","additionalProperties":true,"properties":{
					"configured":{"type":"boolean"},
					"queryable":{"type":["boolean","null"]},
					"row_count":{"type":["integer","null"]},
					"latest_event_time":{"type":["string","null"]}}},
				"audit_log":{"type":"object","additionalProperties":true,"properties":{
					"readable":{"type":"boolean"},
					"missing_fields":{"type":"array","items":{"type":"string"}}}}},
				"required":["active_path"]}`,
			Feature:  "governance.get_lineage_capability_status",
			Scope:    ScopeAllFE,
			Variants: []Variant{{Name: "lineage_status", Ranges: []string{"2.0.0-"}}},
		},
		{
			Name:    "trace_column_lineage",
			Handler: governance.TraceColumnLineage,
			Title:   "Trace column lineage",
			Description: "Traces lineage of a qualified table or column upstream, downstream or both, " +
				"up to depth 5 and a configured edge cap. Uses native lineage events (Doris 4.0.6+ with " +
				"the lineage plugin and store), otherwise infers edges from INSERT ... SELECT and CTAS " +
				"statements in the audit log (up to a minute behind); each edge states its evidence type.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"object":{"type":"string","minLength":3,"maxLength":256,"pattern":"^[^.]+(\\.[^.]+){1,3}$","description":"Qualified name: db.table or catalog.db.table"},
				"column":{"type":"string","minLength":1,"maxLength":256},
				"direction":{"enum":["upstream","downstream","both"],"default":"both"},
				"depth":{"type":"integer","minimum":1,"maximum":5,"default":3},
				"evidence_mode":{"enum":["auto","native","audit"],"default":"auto"}},
				"required":["object"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"root":{"type":"string"},
				"column":{"type":["string","null"]},
				"direction":{"type":"string"},
				"evidence_path":{"enum":["native","audit"]},
				"edges":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"source_object":{"type":"string"},
					"target_object":{"type":"string"},
					"source_column":{"type":["string","null"]},
					"target_column":{"type":["string","null"]},
					"dependency_type":{"type":["string","null"]},
					"statement_type":{"type":["string","null"]},
					"evidence_type":{"enum":["native_event","audit_sql_inference"]},
					"event_time":{"type":["string","null"]},
					"query_id":{"type":["string","null"]}},
					"required":["source_object","target_object","evidence_type"]}},
				"truncated":{"type":"boolean"}},
				"required":["root","evidence_path","edges","truncated"]}`,
			Feature: "governance.trace_column_lineage",
			Scope:   ScopeAllFE,
			Variants: []Variant{
				{Name: "native_lineage_events", Ranges: []string{"4.0.6-"},
					Probes: []string{"governance.lineage_plugin", "governance.lineage_store"}},
				{Name: "audit_sql_inference_fallback", Ranges: []string{"4.0.6-"},
					Probes: []string{"governance.audit_log"}, Degraded: true,
					Limitations: []string{"Native lineage is not ready; edges are inferred from audited SQL."}},
				{Name: "audit_sql_inference_primary", Ranges: []string{"2.0.0-4.0.6"},
					Probes: []string{"governance.audit_log"}},
			},
		},
		{
			Name:    "analyze_data_access_patterns",
			Handler: governance.AnalyzeDataAccessPatterns,
			Title:   "Analyze data access patterns",
			Description: "Summarizes who accessed which data and how often, from the audit log over " +
				"window_days (1 to 30), grouped by user, object, hour or operation, optionally for one " +
				"database or table. Raw SQL, client addresses and auth fields are never returned. " +
				"The audit log runs up to a minute behind.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"window_days":{"type":"integer","minimum":1,"maximum":30,"default":7},
				"group_by":{"enum":["user","object","hour","operation"],"default":"object"}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"window_days":{"type":"integer"},
				"group_by":{"type":"string"},
				"groups":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"key":{"type":["string","null"]},
					"event_count":{"type":"integer"},
					"distinct_users":{"type":["integer","null"]},
					"first_seen":{"type":["string","null"]},
					"last_seen":{"type":["string","null"]}},
					"required":["key","event_count"]}},
				"rows_read":{"type":["integer","null"]},
				"truncated":{"type":"boolean"}},
				"required":["groups"]}`,
			Feature:  "governance.analyze_data_access_patterns",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "audit_access_history", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"governance.audit_log"},
		},
		{
			Name:    "get_recent_audit_logs",
			Handler: governance.GetRecentAuditLogs,
			Title:   "Get recent audit logs",
			Description: "Lists recent audit events from the Doris audit log, newest first, with time, " +
				"user, database, state, operation and timings; statements are redacted. Filter by user, " +
				"operation, database and table within window_minutes (up to 30 days, default 24 " +
				"hours); at most 200 rows. The audit log runs up to a minute behind.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"window_minutes":{"type":"integer","minimum":1,"maximum":43200,"default":1440},
				"user":{"type":"string","minLength":1,"maxLength":256},
				"operation":{"type":"string","minLength":1,"maxLength":256,"description":"Statement kind, e.g. SELECT, INSERT"},
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"limit":{"type":"integer","minimum":1,"maximum":200,"default":100}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"time":{"type":["string","null"]},
				"query_id":{"type":["string","null"]},
				"user":{"type":["string","null"]},
				"catalog":{"type":["string","null"]},
				"database":{"type":["string","null"]},
				"state":{"type":["string","null"]},
				"operation":{"type":["string","null"]},
				"query_time_ms":{"type":["integer","null"]},
				"scan_rows":{"type":["integer","null"]},
				"return_rows":{"type":["integer","null"]},
				"stmt":{"type":["string","null"],"description":"redacted"},
				"trace_id":{"type":["string","null"],"description":"the MCP call that sent it"}},
				"required":["time"]}`,
			Feature: "governance.get_recent_audit_logs",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "audit_log_4_0_7", Ranges: []string{"4.0.7-4.1.0"}},
				{Name: "audit_log", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"governance.audit_log"},
		},
		{
			Name:    "list_udfs",
			Handler: governance.ListUDFs,
			Title:   "List UDFs",
			Description: "Lists user-defined functions the caller can see, in one database or " +
				"globally: name, signature, return type, kind and language (Java, and Python on Doris " +
				"4.1.3+). Metadata only; no function is executed. Filter by language and a name glob.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"language":{"type":"string","minLength":1,"maxLength":256,"description":"e.g. java, python"},
				"name_pattern":{"type":"string","minLength":1,"maxLength":256,"description":"Glob on function names (* and ?)"}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"database":{"type":["string","null"]},
				"scope":{"enum":["database","global"]},
				"signature":{"type":["string","null"]},
				"return_type":{"type":["string","null"]},
				"function_type":{"type":["string","null"]},
				"language":{"type":["string","null"]},
				"properties":{"type":["object","null"],"additionalProperties":true}},
				"required":["name"]}`,
			Feature: "governance.list_udfs",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "python_udf_family", Ranges: []string{"4.1.3-"}},
				{Name: "base_udf_metadata", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"governance.global_functions"},
		},
		{
			Name:    "get_auth_mapping_status",
			Handler: governance.GetAuthMappingStatus,
			Title:   "Get auth mapping status",
			Description: "Reports whether LDAP or OIDC role mapping is configured and ready: " +
				"authentication type, LDAP enablement, TLS and default roles and, on Doris 4.1.2+, role " +
				"mappings from information_schema.role_mappings. include_roles adds visible roles. No " +
				"secrets or bind passwords are returned.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"principal":{"type":"string","minLength":1,"maxLength":128},
				"provider":{"enum":["ldap","oidc"]},
				"include_roles":{"type":"boolean","default":false}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"authentication_type":{"type":["string","null"]},
				"ldap":{"type":["object","null"],"additionalProperties":true,"properties":{
					"enabled":{"type":["boolean","string","null"]},
					"use_ssl":{"type":["boolean","string","null"]},
					"default_roles":{"type":["string","null"]}}},
				"role_mappings":{"type":["object","null"],"additionalProperties":true,"properties":{
					"available":{"type":"boolean"},
					"items":{"type":"array","items":{"type":"object","additionalProperties":true}}}},
				"roles":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}},
				"ready":{"type":["boolean","null"]}},
				"required":["authentication_type"]}`,
			Feature: "governance.get_auth_mapping_status",
			Scope:   ScopeAllFE,
			Variants: []Variant{
				{Name: "oidc_role_mapping", Ranges: []string{"4.1.2-"}, Probes: []string{"governance.role_mappings"}},
				{Name: "ldap_mapping", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"governance.ldap_config"},
		},
	},
}
