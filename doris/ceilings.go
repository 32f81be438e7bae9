package doris

// Ceiling is a deployment bound the runtime enforces on an integer
// argument of a child: a call above it is an argument error. Discovery
// states it, so that a Host never offers a value this deployment refuses.
type Ceiling struct {
	Child    string // "domain.child"
	Argument string // a top-level input property
	Max      int
}

// Ceilings lists the bounds this runtime's configuration enforces, one per
// child argument the handlers check against it.
func (c *Config) Ceilings() []Ceiling {
	rows, ms := c.MaxResultRows, int(c.QueryTimeout.Milliseconds())
	lake, gov := c.Lakehouse, c.Governance
	return []Ceiling{
		{"doris_query.execute_query", "max_rows", rows},
		{"doris_query.execute_query", "timeout_ms", ms},
		{"doris_query.execute_adbc_query", "max_rows", rows},
		{"doris_query.execute_adbc_query", "timeout_ms", ms},
		{"doris_search.search_data", "top_k", rows},
		{"doris_semantic.get_metricflow_dimension_values", "limit", rows},
		{"doris_semantic.get_metricflow_dimension_values", "timeout_ms", ms},
		{"doris_semantic.compile_metricflow_query", "limit", rows},
		{"doris_semantic.execute_metricflow_query", "max_rows", rows},
		{"doris_semantic.execute_metricflow_query", "timeout_ms", ms},
		{"doris_lakehouse.inspect_external_catalog", "object_limit", lake.MaxCatalogObjects},
		{"doris_lakehouse.inspect_variant_column", "sample_rows", lake.MaxVariantSampleRows},
		{"doris_governance.analyze_data_access_patterns", "window_days", gov.MaxAuditWindowDays},
		{"doris_governance.get_recent_audit_logs", "window_minutes", gov.MaxAuditWindowDays * 1440},
	}
}
