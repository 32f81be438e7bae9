package catalog

import "github.com/doris-mcp/doris-mcp-server/doris/lakehouse"

// lakehouseDomain is doris_lakehouse: external catalogs, lakehouse tables and
// semi-structured VARIANT columns.
var lakehouseDomain = Domain{
	Name:  "doris_lakehouse",
	Title: "Doris lakehouse",
	Description: "External and semi-structured data in Apache Doris: sanitized external catalog " +
		"details; format, snapshots, partitions, statistics and pushdown evidence of Iceberg, Hudi, " +
		"Paimon and Delta tables; and VARIANT column path and type profiles. Returns no sample " +
		"values, runs no free-form SQL, and does not list ordinary catalog objects (catalog domain).",
	Children: []Child{
		{
			Name:    "inspect_external_catalog",
			Handler: lakehouse.InspectExternalCatalog,
			Title:   "Inspect external catalog",
			Description: "Describes one external catalog: type, state, properties with secrets and " +
				"storage locations removed, and what can be inspected in it, optionally with a bounded " +
				"sample of its databases and tables (object_limit, at most 500). Use it to understand a " +
				"Hive, Iceberg, Hudi, Paimon, Delta or JDBC catalog.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"include_objects":{"type":"boolean","default":false},
				"object_limit":{"type":"integer","minimum":1,"maximum":500,"default":50}},
				"required":["catalog"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"type":{"type":["string","null"]},
				"state":{"type":["string","null"]},
				"properties":{"type":"object","additionalProperties":{"type":["string","null"]}},
				"capabilities":{"type":"array","items":{"type":"string"}},
				"databases":{"type":["array","null"],"items":{"type":"object","additionalProperties":true,"properties":{
					"name":{"type":"string"},
					"objects":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
						"name":{"type":"string"},
						"type":{"type":["string","null"]}},
						"required":["name"]}}},
					"required":["name"]}},
				"truncated":{"type":"boolean"}},
				"required":["name"]}`,
			Feature:  "lakehouse.inspect_external_catalog",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "external_catalog_metadata", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"lakehouse.show_catalogs"},
		},
		{
			Name:    "inspect_lakehouse_table",
			Handler: lakehouse.InspectLakehouseTable,
			Title:   "Inspect lakehouse table",
			Description: "Describes one external lakehouse table: format, columns and statistics, " +
				"snapshots (Iceberg and Paimon only) and partitions when asked, and pushdown evidence " +
				"from EXPLAIN. On Doris 4.1+ it also reports Iceberg deletion vectors and row lineage. " +
				"Sample rows are never returned.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"include_snapshots":{"type":"boolean","default":false},
				"include_partitions":{"type":"boolean","default":false}},
				"required":["catalog","database","table"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"catalog":{"type":"string"},
				"database":{"type":"string"},
				"table":{"type":"string"},
				"format":{"type":["string","null"],"description":"iceberg, hudi, paimon, delta, hive, ..."},
				"columns":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"name":{"type":"string"},
					"type":{"type":["string","null"]},
					"nullable":{"type":["boolean","string","null"]},
					"comment":{"type":["string","null"]}},
					"required":["name"]}},
				"statistics":{"type":["object","null"],"additionalProperties":true},
				"snapshots":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}},
				"partitions":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}},
				"pushdown":{"type":["object","null"],"additionalProperties":true},
				"lifecycle":{"type":["object","null"],"additionalProperties":true}},
				"required":["catalog","database","table"]}`,
			Feature: "lakehouse.inspect_lakehouse_table",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "lakehouse_lifecycle_4_1", Ranges: []string{"4.1.0-"}},
				{Name: "lakehouse_table_metadata", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"lakehouse.show_catalogs"},
		},
		{
			Name:    "inspect_variant_column",
			Handler: lakehouse.InspectVariantColumn,
			Title:   "Inspect VARIANT column",
			Description: "Profiles one VARIANT column: the sub-paths present, their inferred types and " +
				"how sparse they are over up to sample_rows rows, and safe VARIANT storage properties. " +
				"Returns types only, never values; path limits it to one sub-path. Needs Doris 2.1+; " +
				"4.1+ adds sparse and doc-mode settings.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"column":{"type":"string","minLength":1,"maxLength":256},
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"path":{"type":"string","minLength":1,"maxLength":256,"description":"Sub-path inside the VARIANT, e.g. a.b"},
				"sample_rows":{"type":"integer","minimum":1,"maximum":500,"default":20}},
				"required":["database","table","column"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"column":{"type":"string"},
				"data_type":{"type":["string","null"]},
				"properties":{"type":"object","additionalProperties":{"type":["string","null"]}},
				"sampled_rows":{"type":"integer"},
				"paths":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"path":{"type":"string"},
					"types":{"type":"array","items":{"type":"string"}},
					"present_ratio":{"type":["number","null"]}},
					"required":["path","types"]}},
				"truncated":{"type":"boolean"}},
				"required":["column","paths"]}`,
			Feature: "lakehouse.inspect_variant_column",
			Scope:   ScopeAllComponents,
			Variants: []Variant{
				{Name: "variant_advanced_4_1", Ranges: []string{"4.1.0-"}},
				{Name: "variant_type", Ranges: []string{"2.1.0-"}},
			},
		},
	},
}
