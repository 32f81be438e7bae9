package catalog

import "github.com/doris-mcp/doris-mcp-server/doris/cluster"

// clusterDomain is doris_cluster: runtime and resource state.
var clusterDomain = Domain{
	Name:  "doris_cluster",
	Title: "Doris cluster operations",
	Description: "Runtime and resource state of an Apache Doris cluster: health overview, nodes, " +
		"running tasks, metric snapshots, memory, file cache, compaction, workload and compute " +
		"groups, recorded resource history and this server's capability view. The default domain " +
		"for any unqualified cluster question. Does not run user SQL or cover table metadata, " +
		"ingestion jobs, audit or lineage.",
	Children: []Child{
		{
			Name:    "get_cluster_overview",
			Handler: cluster.GetClusterOverview,
			Title:   "Get cluster overview",
			Description: "Returns one health summary of the cluster: node liveness (always), plus " +
				"running tasks, key metrics, memory, file cache and compaction as chosen by include. " +
				"Each section reports success or unavailable with a reason, so one failing source does " +
				"not fail the call. Start here for unqualified cluster health questions.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"include":{"type":"array","minItems":1,"uniqueItems":true,"items":{"enum":["nodes","tasks","metrics","memory","cache","compaction"]},"default":["nodes","tasks","metrics","memory","cache","compaction"],"description":"nodes is always included"}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"summary":{"type":"object","additionalProperties":true,"properties":{
					"fe_total":{"type":"integer"},
					"fe_alive":{"type":"integer"},
					"be_total":{"type":"integer"},
					"be_alive":{"type":"integer"},
					"broker_total":{"type":"integer"}}},
				"sections":{"type":"object","additionalProperties":{"type":"object","additionalProperties":true,"properties":{
					"status":{"enum":["success","partial","unavailable"]},
					"reason_code":{"type":"string"},
					"data":{}},
					"required":["status"]}}},
				"required":["sections"]}`,
			Feature:  "cluster.get_cluster_overview",
			Scope:    ScopeAllComponents,
			Variants: []Variant{{Name: "cluster_summary", Ranges: []string{"2.0.0-"}}},
		},
		{
			Name:    "list_cluster_nodes",
			Handler: cluster.ListClusterNodes,
			Title:   "List cluster nodes",
			Description: "Lists frontends, backends and brokers with host, ports, role, liveness, " +
				"version and resource figures from SHOW FRONTENDS, SHOW BACKENDS and SHOW BROKER. " +
				"node_types narrows the list; include_metrics adds a small /metrics snapshot per node " +
				"where FE or BE HTTP access is configured.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"node_types":{"type":"array","minItems":1,"uniqueItems":true,"items":{"enum":["fe","be","broker"]},"default":["fe","be","broker"]},
				"include_metrics":{"type":"boolean","default":false}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"node_type":{"enum":["fe","be","broker"]},
				"node_id":{"type":["string","null"]},
				"host":{"type":"string"},
				"role":{"type":["string","null"]},
				"is_master":{"type":["boolean","string","null"]},
				"alive":{"type":["boolean","string","null"]},
				"version":{"type":["string","null"]},
				"ports":{"type":["object","null"],"additionalProperties":true},
				"resources":{"type":["object","null"],"additionalProperties":true},
				"metrics":{"type":["object","null"],"additionalProperties":true}},
				"required":["node_type","host"]}`,
			Feature:  "cluster.list_cluster_nodes",
			Scope:    ScopeAllComponents,
			Variants: []Variant{{Name: "cluster_nodes", Ranges: []string{"2.0.0-"}}},
		},
		{
			Name:    "list_active_tasks",
			Handler: cluster.ListActiveTasks,
			Title:   "List active tasks",
			Description: "Lists running queries, longest first, and on request backend compaction tasks " +
				"(be_compaction_tasks, Doris 4.0+), with state, user and elapsed time. Queries come from " +
				"SHOW PROC '/current_queries', information_schema.active_queries or SHOW FULL PROCESSLIST, " +
				"whichever works first. At most 1000 rows; nothing is cancelled.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"task_types":{"type":"array","minItems":1,"uniqueItems":true,"items":{"enum":["query","compaction"]},"default":["query"]},
				"states":{"type":"array","minItems":1,"maxItems":32,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":64}},
				"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"task_type":{"enum":["query","compaction"]},
				"task_id":{"type":"string"},
				"state":{"type":["string","null"]},
				"user":{"type":["string","null"]},
				"database":{"type":["string","null"]},
				"node":{"type":["string","null"]},
				"started_at":{"type":["string","null"]},
				"elapsed_ms":{"type":["integer","null"]},
				"progress":{"type":["number","string","null"]},
				"statement":{"type":["string","null"]}},
				"required":["task_type","task_id"]}`,
			Feature: "cluster.list_active_tasks",
			Scope:   ScopeAllComponents,
			Variants: []Variant{
				{Name: "unified_task_progress", Ranges: []string{"4.1.1-"}, Probes: []string{"cluster.active_queries"}},
				{Name: "legacy_task_views", Ranges: []string{"2.0.0-"}},
			},
		},
		{
			Name:    "get_monitoring_metrics",
			Handler: cluster.GetMonitoringMetrics,
			Title:   "Get monitoring metrics",
			Description: "Returns a point-in-time snapshot of allowlisted metrics from FE /metrics and the " +
				"configured BEs' /metrics, filtered by metric_names (up to 100; default a core set) and " +
				"node_ids (web server host:port). A failing node is unavailable with a reason. window is " +
				"ignored with a warning: no history is synthesized (see analyze_resource_growth).",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"metric_names":{"type":"array","minItems":1,"maxItems":100,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256,"pattern":"^[A-Za-z_:][A-Za-z0-9_:]*$"}},
				"node_ids":{"type":"array","minItems":1,"maxItems":256,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}},
				"window":{"type":"string","minLength":1,"maxLength":64,"description":"Ignored: only current values exist"}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"captured_at":{"type":"string"},
				"nodes":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"node_id":{"type":"string"},
					"node_type":{"enum":["fe","be"]},
					"status":{"enum":["success","partial","unavailable"]},
					"metrics":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
						"name":{"type":"string"},
						"labels":{"type":"object","additionalProperties":{"type":"string"}},
						"value":{"type":["number","null"]}},
						"required":["name"]}}},
					"required":["node_id","node_type","status"]}}},
				"required":["nodes"]}`,
			Feature: "cluster.get_monitoring_metrics",
			Scope:   ScopeAllComponents,
			Variants: []Variant{
				{Name: "observability_4_0_7", Ranges: []string{"4.0.7-4.1.0"}},
				{Name: "base_metrics", Ranges: []string{"2.0.0-"}},
			},
			Probes:   []string{"cluster.fe_metrics"},
			Provider: ProviderFEHTTP,
		},
		{
			Name:    "get_memory_stats",
			Handler: cluster.GetMemoryStats,
			Title:   "Get memory stats",
			Description: "Returns backend memory use from BE /metrics: per-node process usage and " +
				"limits (summary), memory trackers (trackers) or the 20 largest consumers " +
				"(top_consumers). Needs BE HTTP hosts to be configured on the server. Values are a " +
				"point-in-time snapshot, not a history.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"node_ids":{"type":"array","minItems":1,"maxItems":256,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}},
				"detail":{"enum":["summary","trackers","top_consumers"],"default":"summary"}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"detail":{"type":"string"},
				"nodes":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"node_id":{"type":"string"},
					"status":{"enum":["success","partial","unavailable"]},
					"used_bytes":{"type":["integer","null"]},
					"limit_bytes":{"type":["integer","null"]},
					"trackers":{"type":["array","null"],"items":{"type":"object","additionalProperties":true,"properties":{
						"name":{"type":"string"},
						"bytes":{"type":["integer","null"]},
						"peak_bytes":{"type":["integer","null"]}},
						"required":["name"]}}},
					"required":["node_id","status"]}}},
				"required":["nodes"]}`,
			Feature:  "cluster.get_memory_stats",
			Scope:    ScopeAllBE,
			Variants: []Variant{{Name: "memory_trackers", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"cluster.be_metrics"},
			Provider: ProviderBEHTTP,
		},
		{
			Name:    "get_cache_status",
			Handler: cluster.GetCacheStatus,
			Title:   "Get cache status",
			Description: "Returns backend file cache state (capacity, usage, hits and, with " +
				"include_queues, per-queue figures) from information_schema.file_cache_statistics, " +
				"falling back to BE /metrics cache families. Doris 4.1+ adds condition and Parquet page " +
				"caches. scope filters cache names by substring; node_ids limits the backends.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"scope":{"type":"string","minLength":1,"maxLength":256,"description":"Substring filter on cache names"},
				"node_ids":{"type":"array","minItems":1,"maxItems":256,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}},
				"include_queues":{"type":"boolean","default":false}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"source":{"type":"string","description":"information_schema or be_metrics"},
				"caches":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"node_id":{"type":"string"},
					"cache_type":{"type":"string"},
					"path":{"type":["string","null"]},
					"stats":{"type":"object","additionalProperties":true}},
					"required":["node_id","cache_type"]}},
				"queues":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}}},
				"required":["caches"]}`,
			Feature: "cluster.get_cache_status",
			Scope:   ScopeAllBE,
			Variants: []Variant{
				{Name: "advanced_cache_types", Ranges: []string{"4.1.0-"}, Probes: []string{"cluster.file_cache_statistics"}},
				{Name: "file_cache_queue_metrics", Ranges: []string{"4.0.7-4.1.0"}, Probes: []string{"cluster.be_metrics"}},
				{Name: "file_cache", Ranges: []string{"2.0.0-"}},
			},
		},
		{
			Name:    "get_compaction_status",
			Handler: cluster.GetCompactionStatus,
			Title:   "Get compaction status",
			Description: "Returns backend compaction work: running and recent tasks from " +
				"information_schema.be_compaction_tasks where Doris has the native tracker (4.0.6 to " +
				"before 4.1.0, and 4.1.1+), otherwise an aggregate summary from BE /metrics. Filter by " +
				"database, table and state; at most 1000 tasks.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"state":{"type":"string","minLength":1,"maxLength":64},
				"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"source":{"enum":["task_tracker","metrics_summary"]},
				"tasks":{"type":["array","null"],"items":{"type":"object","additionalProperties":true,"properties":{
					"backend_id":{"type":["string","integer","null"]},
					"tablet_id":{"type":["string","integer","null"]},
					"compaction_type":{"type":["string","null"]},
					"status":{"type":["string","null"]},
					"database":{"type":["string","null"]},
					"table":{"type":["string","null"]}}}},
				"summary":{"type":["object","null"],"additionalProperties":true},
				"truncated":{"type":"boolean"}},
				"required":["source"]}`,
			Feature: "cluster.get_compaction_status",
			Scope:   ScopeAllBE,
			Variants: []Variant{
				{Name: "compaction_task_tracker", Ranges: []string{"4.0.6-4.1.0", "4.1.1-"}, Probes: []string{"cluster.compaction_tasks"}},
				{Name: "legacy_summary", Ranges: []string{"2.0.0-"}, Probes: []string{"cluster.be_metrics"},
					Limitations: []string{"Aggregate compaction metrics only; no per-task detail."}},
			},
		},
		{
			Name:    "get_workload_group_status",
			Handler: cluster.GetWorkloadGroupStatus,
			Title:   "Get workload group status",
			Description: "Lists workload groups with their resource settings (CPU, memory, " +
				"concurrency, queueing) from SHOW WORKLOAD GROUPS and, with include_usage, their current " +
				"usage. Filter by exact name. Use it to explain query queueing or resource isolation; " +
				"no group is changed.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"name":{"type":"string","minLength":1,"maxLength":256},
				"include_usage":{"type":"boolean","default":false}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"id":{"type":["string","null"]},
				"name":{"type":"string"},
				"properties":{"type":"object","additionalProperties":{"type":["string","null"]}},
				"usage":{"type":["object","null"],"additionalProperties":true}},
				"required":["name"]}`,
			Feature:  "cluster.get_workload_group_status",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "workload_group_metrics", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"cluster.workload_groups"},
		},
		{
			Name:    "get_compute_group_status",
			Handler: cluster.GetComputeGroupStatus,
			Title:   "Get compute group status",
			Description: "Lists the compute groups of a cloud (shared-data) deployment from SHOW " +
				"COMPUTE GROUPS, with member backends (include_nodes) and usage (include_usage). " +
				"Unavailable on integrated shared-nothing clusters, which have no compute groups. " +
				"Filter by exact name.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"name":{"type":"string","minLength":1,"maxLength":256},
				"include_nodes":{"type":"boolean","default":false},
				"include_usage":{"type":"boolean","default":false}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"id":{"type":["string","null"]},
				"is_current":{"type":["boolean","string","null"]},
				"users":{"type":["string","null"]},
				"backend_count":{"type":["integer","null"]},
				"nodes":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}},
				"usage":{"type":["object","null"],"additionalProperties":true}},
				"required":["name"]}`,
			Feature: "cluster.get_compute_group_status",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "compute_group", Ranges: []string{"3.0.0-"}, Modes: []string{"cloud", "shared_data"},
					Probes: []string{"cluster.compute_groups"}},
			},
		},
		{
			Name:    "analyze_resource_growth",
			Handler: cluster.AnalyzeResourceGrowth,
			Title:   "Analyze resource growth",
			Description: "Returns recorded history, bucketed by hour, day or week over exactly window_days " +
				"by Doris's clock: storage (partition sizes by creation), query volume and distinct " +
				"users (audit log, up to a minute late). No forecasting; hourly buckets cover at most 180 days. Omit resource " +
				"to get every series with at least two buckets; the others are listed with a reason.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"resource":{"enum":["storage","query_volume","user_activity"],"description":"Omit for all series"},
				"window_days":{"type":"integer","minimum":1,"maximum":3650,"default":30},
				"granularity":{"enum":["hour","day","week"],"default":"day"}},
				"if":{"properties":{"granularity":{"const":"hour"}},"required":["granularity"]},
				"then":{"properties":{"window_days":{"maximum":180}}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"window_days":{"type":"integer"},
				"granularity":{"type":"string"},
				"series":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"resource":{"enum":["storage","query_volume","user_activity"]},
					"unit":{"type":"string"},
					"points":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
						"bucket_start":{"type":"string"},
						"value":{"type":["number","null"]}},
						"required":["bucket_start"]}}},
					"required":["resource","points"]}},
				"unavailable":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"resource":{"type":"string"},
					"reason_code":{"type":"string"}}}}},
				"required":["series"]}`,
			Feature:  "cluster.analyze_resource_growth",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "historical_resource_metrics", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"cluster.history_buckets"},
		},
		{
			Name:    "get_runtime_capabilities",
			Handler: cluster.GetRuntimeCapabilities,
			Title:   "Get runtime capabilities",
			Description: "Returns this server's sanitized view of the Doris deployment: FE and BE " +
				"versions, mixed-version and staleness flags, deployment mode, patch certification and " +
				"probe outcome counts, with per-probe status and reason when detail is full. Use it to " +
				"explain why a tool is unavailable or degraded.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"detail":{"enum":["summary","full"],"default":"summary"}}}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"versions":{"type":"object","additionalProperties":true,"properties":{
					"master_fe":{"type":["string","null"]},
					"frontends":{"type":"array","items":{"type":"string"}},
					"backends":{"type":"array","items":{"type":"string"}}}},
				"deployment_mode":{"type":["string","null"]},
				"mixed_versions":{"type":"boolean"},
				"stale":{"type":"boolean"},
				"patch_certification":{"type":["object","null"],"additionalProperties":true},
				"probe_counts":{"type":"object","additionalProperties":{"type":"integer"}},
				"probed_domains":{"type":"array","items":{"type":"string"}},
				"probes":{"type":["array","null"],"items":{"type":"object","additionalProperties":true,"properties":{
					"id":{"type":"string"},
					"status":{"type":"string"},
					"reason_code":{"type":["string","null"]}},
					"required":["id","status"]}}},
				"required":["versions","mixed_versions","stale"]}`,
			Feature:  "cluster.get_runtime_capabilities",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "capability_snapshot", Ranges: []string{"2.0.0-"}}},
		},
	},
}
