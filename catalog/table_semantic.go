package catalog

// semanticDomain is doris_semantic: optional Apache Ossie grounding and
// MetricFlow consumption.
var semanticDomain = Domain{
	Name:  "doris_semantic",
	Title: "Doris semantic layer",
	Description: "Optional semantic grounding for Apache Doris, off by default: Apache Ossie model " +
		"refs, summaries, permission-filtered grounding context and binding readiness, and MetricFlow " +
		"models, metrics, group-bys, saved queries, dimension values and compiled or executed metric " +
		"queries. Does not browse raw metadata, run free-form SQL, or report cluster, pipeline or " +
		"governance state.",
	Children: []Child{
		{
			Name:  "list_semantic_models",
			Title: "List semantic models",
			Description: "Lists the Apache Ossie semantic models the caller may use, with model_ref, " +
				"name, namespace, tags and description. Filter by namespace, tag or a name glob. Needs " +
				"the Ossie provider to be enabled; models are local files validated by the server, not " +
				"Doris objects.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"namespace":{"type":"string","minLength":1,"maxLength":192},
				"tag":{"type":"string","minLength":1,"maxLength":192},
				"pattern":{"type":"string","minLength":1,"maxLength":192,"description":"Glob on model names (* and ?)"}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"model_ref":{"type":"string"},
				"name":{"type":["string","null"]},
				"namespace":{"type":["string","null"]},
				"version":{"type":["string","null"]},
				"tags":{"type":"array","items":{"type":"string"}},
				"description":{"type":["string","null"]}},
				"required":["model_ref"]}`,
			Feature:  "semantic.list_semantic_models",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "ossie_model_registry", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderOssie,
		},
		{
			Name:  "get_semantic_model_summary",
			Title: "Get semantic model summary",
			Description: "Summarizes one Apache Ossie model given its exact model_ref: datasets, " +
				"metrics, dimensions and relationships and, with include_bindings, the Doris objects " +
				"they are bound to. Use it to see what a model offers before asking for grounding " +
				"context.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"include_bindings":{"type":"boolean","default":false}},
				"required":["model_ref"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"model_ref":{"type":"string"},
				"name":{"type":["string","null"]},
				"description":{"type":["string","null"]},
				"datasets":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{"name":{"type":"string"}},"required":["name"]}},
				"metrics":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{"name":{"type":"string"}},"required":["name"]}},
				"dimensions":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{"name":{"type":"string"}},"required":["name"]}},
				"relationships":{"type":"array","items":{"type":"object","additionalProperties":true}},
				"bindings":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}}},
				"required":["model_ref"]}`,
			Feature:  "semantic.get_semantic_model_summary",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "ossie_model_summary", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderOssie,
		},
		{
			Name:  "get_semantic_context",
			Title: "Get semantic context",
			Description: "Returns grounding context from one Apache Ossie model for a question or for " +
				"named metrics, dimensions or datasets, filtered to what the caller may see and capped " +
				"at max_bytes. No SQL is compiled or run; use the context to write or check a query " +
				"yourself.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"request":{"type":"object","additionalProperties":false,"properties":{
					"question":{"type":"string","minLength":1,"maxLength":4096},
					"metrics":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"}},
					"dimensions":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"}},
					"datasets":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"}},
					"max_bytes":{"type":"integer","minimum":1024,"maximum":65536,"default":16384}},
					"anyOf":[{"required":["question"]},{"required":["metrics"]},{"required":["dimensions"]},{"required":["datasets"]}]}},
				"required":["model_ref","request"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"model_ref":{"type":"string"},
				"context":{"type":"object","additionalProperties":true},
				"bytes":{"type":"integer","minimum":0},
				"truncated":{"type":"boolean"},
				"omitted":{"type":"array","items":{"type":"string"}}},
				"required":["model_ref","context","truncated"]}`,
			Feature:  "semantic.get_semantic_context",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "ossie_semantic_context", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderOssie,
		},
		{
			Name:  "get_semantic_mapping_status",
			Title: "Get semantic mapping status",
			Description: "Checks whether the Doris bindings of one Apache Ossie model are ready: each " +
				"bound dataset's catalog, database and table exist and are visible to the caller. " +
				"Optionally limited to one datasource. Problems are reported per binding; nothing is " +
				"created or changed.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"datasource":{"type":"string","minLength":1,"maxLength":128}},
				"required":["model_ref"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"model_ref":{"type":"string"},
				"ready":{"type":"boolean"},
				"bindings":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"dataset":{"type":"string"},
					"datasource":{"type":["string","null"]},
					"object":{"type":["string","null"]},
					"status":{"type":"string","description":"ready, or why the binding is not usable"},
					"reason_code":{"type":["string","null"]}},
					"required":["dataset","status"]}}},
				"required":["model_ref","ready","bindings"]}`,
			Feature:  "semantic.get_semantic_mapping_status",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "ossie_doris_mapping", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderOssie,
		},
		{
			Name:  "list_metricflow_models",
			Title: "List MetricFlow models",
			Description: "Lists the MetricFlow model refs offered by the configured MetricFlow sidecar. " +
				"Takes no arguments and needs the MetricFlow provider to be enabled. Pass a returned " +
				"model_ref to the other MetricFlow children.",
			Input:  `{"type":"object","additionalProperties":false,"properties":{}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"model_ref":{"type":"string"},
				"name":{"type":["string","null"]},
				"description":{"type":["string","null"]}},
				"required":["model_ref"]}`,
			Feature:  "semantic.list_metricflow_models",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
		{
			Name:  "get_metricflow_status",
			Title: "Get MetricFlow status",
			Description: "Checks one MetricFlow model_ref end to end: whether the sidecar answers, the " +
				"model validates and the Doris dialect is set. Use it before compiling queries or when " +
				"another MetricFlow call fails.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"}},
				"required":["model_ref"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"model_ref":{"type":"string"},
				"provider_ready":{"type":"boolean"},
				"model_valid":{"type":["boolean","null"]},
				"dialect":{"type":["string","null"]},
				"protocol_version":{"type":["string","null"]},
				"issues":{"type":"array","items":{"type":"string"}}},
				"required":["model_ref","provider_ready"]}`,
			Feature:  "semantic.get_metricflow_status",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
		{
			Name:  "list_metricflow_metrics",
			Title: "List MetricFlow metrics",
			Description: "Lists the metrics of one MetricFlow model with type, label and description " +
				"and, with include_dimensions, the dimensions each can be grouped by. search filters by " +
				"substring; at most limit items (1 to 1000).",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"search":{"type":"string","minLength":1,"maxLength":192},
				"include_dimensions":{"type":"boolean","default":false},
				"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100}},
				"required":["model_ref"]}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"type":{"type":["string","null"]},
				"label":{"type":["string","null"]},
				"description":{"type":["string","null"]},
				"dimensions":{"type":["array","null"],"items":{"type":"string"}}},
				"required":["name"]}`,
			Feature:  "semantic.list_metricflow_metrics",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
		{
			Name:  "get_metricflow_group_bys",
			Title: "Get MetricFlow group-bys",
			Description: "Lists the dimensions, time dimensions and entities that can group all of the " +
				"given metrics (1 to 64) in one MetricFlow model, i.e. the valid group_by values for " +
				"compile_metricflow_query and execute_metricflow_query.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"metrics":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"}}},
				"required":["model_ref","metrics"]}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"type":{"type":["string","null"],"description":"dimension, time_dimension or entity"},
				"granularities":{"type":["array","null"],"items":{"type":"string"}},
				"description":{"type":["string","null"]}},
				"required":["name"]}`,
			Feature:  "semantic.get_metricflow_group_bys",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
		{
			Name:  "list_metricflow_saved_queries",
			Title: "List MetricFlow saved queries",
			Description: "Lists the saved queries of one MetricFlow model with name, description, " +
				"metrics and group-bys. Metadata only; pass a name as saved_query to compile or execute " +
				"it. search filters by substring; at most limit items (1 to 1000).",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"search":{"type":"string","minLength":1,"maxLength":192},
				"limit":{"type":"integer","minimum":1,"maximum":1000,"default":100}},
				"required":["model_ref"]}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"description":{"type":["string","null"]},
				"metrics":{"type":"array","items":{"type":"string"}},
				"group_by":{"type":"array","items":{"type":"string"}}},
				"required":["name"]}`,
			Feature:  "semantic.list_metricflow_saved_queries",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
		{
			Name:  "get_metricflow_dimension_values",
			Title: "Get MetricFlow dimension values",
			Description: "Returns the distinct values of one dimension for the given metrics, " +
				"optionally within start_time and end_time. MetricFlow compiles the query; Doris runs it " +
				"through the read-only guard with limit (up to 10000) and timeout_ms caps.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"metrics":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"}},
				"dimension":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"},
				"start_time":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$","description":"ISO 8601 date or timestamp"},
				"end_time":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$","description":"ISO 8601 date or timestamp"},
				"limit":{"type":"integer","minimum":1,"maximum":10000,"default":100},
				"timeout_ms":{"type":"integer","minimum":1,"maximum":300000,"default":30000}},
				"required":["model_ref","metrics","dimension"]}`,
			Family:   Query,
			Feature:  "semantic.get_metricflow_dimension_values",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
		{
			Name:  "compile_metricflow_query",
			Title: "Compile a MetricFlow query",
			Description: "Compiles a MetricFlow request (metrics or one saved query, group-bys, where " +
				"filters, time range, order and limit) into Doris SQL without running it. Use it to " +
				"review or explain the SQL; execute_metricflow_query runs the same request.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"request":{"type":"object","additionalProperties":false,"properties":{
					"metrics":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"}},
					"saved_query":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"},
					"group_by":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}},
					"where":{"type":"array","minItems":1,"maxItems":16,"items":{"type":"string","minLength":1,"maxLength":2048}},
					"start_time":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$"},
					"end_time":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$"},
					"order_by":{"type":"array","minItems":1,"maxItems":64,"items":{"type":"string","minLength":1,"maxLength":257},"description":"Prefix a name with - for descending"},
					"limit":{"type":"integer","minimum":1,"maximum":100000}},
					"oneOf":[{"required":["metrics"]},{"required":["saved_query"]}]}},
				"required":["model_ref","request"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"model_ref":{"type":"string"},
				"sql":{"type":"string","minLength":1},
				"dialect":{"type":["string","null"]}},
				"required":["sql"]}`,
			Feature:  "semantic.compile_metricflow_query",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
		{
			Name:  "execute_metricflow_query",
			Title: "Execute a MetricFlow query",
			Description: "Compiles a MetricFlow request to Doris SQL and runs it through the read-only " +
				"query guard, returning bounded columns and rows. max_rows and timeout_ms cap the run as " +
				"in execute_query; use compile_metricflow_query to see the SQL first.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"model_ref":{"type":"string","minLength":1,"maxLength":192,"pattern":"^[A-Za-z0-9_.:/@-]+(?:\\+[A-Za-z0-9_.-]+)*$"},
				"request":{"type":"object","additionalProperties":false,"properties":{
					"metrics":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"}},
					"saved_query":{"type":"string","pattern":"^[A-Za-z_][A-Za-z0-9_.:-]{0,191}$"},
					"group_by":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}},
					"where":{"type":"array","minItems":1,"maxItems":16,"items":{"type":"string","minLength":1,"maxLength":2048}},
					"start_time":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$"},
					"end_time":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]+(Z|[+-][0-9]{2}:?[0-9]{2})?)?$"},
					"order_by":{"type":"array","minItems":1,"maxItems":64,"items":{"type":"string","minLength":1,"maxLength":257},"description":"Prefix a name with - for descending"},
					"limit":{"type":"integer","minimum":1,"maximum":100000}},
					"oneOf":[{"required":["metrics"]},{"required":["saved_query"]}]},
				"max_rows":{"type":"integer","minimum":1,"maximum":100000,"default":100},
				"timeout_ms":{"type":"integer","minimum":1,"maximum":300000,"default":30000}},
				"required":["model_ref","request"]}`,
			Family:   Query,
			Feature:  "semantic.execute_metricflow_query",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "metricflow_sidecar", Ranges: []string{"2.0.0-"}}},
			Provider: ProviderMetricFlow,
		},
	},
}
