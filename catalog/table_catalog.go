package catalog

import "github.com/doris-mcp/doris-mcp-server/doris/metadata"

// catalogDomain is doris_catalog: object metadata only (catalogs, databases,
// tables, schemas, comments, indexes, sizes).
var catalogDomain = Domain{
	Name:  "doris_catalog",
	Title: "Doris catalog metadata",
	Description: "Object metadata in Apache Doris: internal and external catalogs, databases, tables, " +
		"views and materialized views, column schemas, comments, indexes, key models, storage facts " +
		"and sizes. It returns metadata only: no SQL results, and nothing about cluster state, " +
		"ingestion pipelines, governance or audit, search, or semantic models.",
	Children: []Child{
		{
			Name:    "list_catalogs",
			Handler: metadata.ListCatalogs,
			Title:   "List catalogs",
			Description: "Lists the catalogs the caller can see: the internal catalog and, unless " +
				"include_external is false, external catalogs such as Hive, Iceberg or JDBC. Each item " +
				"has the catalog name, type and whether it is the session's current catalog. Use it " +
				"first when the user does not know where the data lives.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"include_external":{"type":"boolean","default":true,"description":"Also list external catalogs"},
				"pattern":{"type":"string","minLength":1,"maxLength":256,"description":"Glob on catalog names (* and ?)"},
				"page":{"type":"string","minLength":1,"maxLength":2048,"description":"Opaque next_cursor of the previous page"}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"type":{"type":"string","description":"internal, hms, iceberg, paimon, jdbc, ..."},
				"is_current":{"type":["boolean","string","null"]},
				"comment":{"type":["string","null"]}},
				"required":["name","type"]}`,
			Feature:  "catalog.list_catalogs",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "catalog_metadata", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"catalog.show_catalogs"},
		},
		{
			Name:    "list_databases",
			Handler: metadata.ListDatabases,
			Title:   "List databases",
			Description: "Lists the databases of one catalog, or of the session's current catalog when " +
				"catalog is omitted, optionally filtered by a name glob. Returns names only, without " +
				"table counts or sizes. Use it to find the database to pass to list_tables or " +
				"get_table_context.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"pattern":{"type":"string","minLength":1,"maxLength":256,"description":"Glob on database names (* and ?)"},
				"page":{"type":"string","minLength":1,"maxLength":2048,"description":"Opaque next_cursor of the previous page"}}}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"catalog":{"type":["string","null"]}},
				"required":["name"]}`,
			Feature:  "catalog.list_databases",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "database_metadata", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"catalog.show_databases"},
		},
		{
			Name:    "list_tables",
			Handler: metadata.ListTables,
			Title:   "List tables",
			Description: "Lists the tables, views and materialized views of one database with their " +
				"type and storage format, filtered by a name glob and by types. Items are sorted by name " +
				"and returned 100 per page; pass next_cursor back as page. A cursor expires, and fails " +
				"as stale if the table list changed meanwhile.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"pattern":{"type":"string","minLength":1,"maxLength":256,"description":"Glob on table names (* and ?)"},
				"types":{"type":"array","minItems":1,"uniqueItems":true,"items":{"enum":["table","view","materialized_view"]}},
				"page":{"type":"string","minLength":1,"maxLength":2048,"description":"Opaque next_cursor of the previous page"}},
				"required":["database"]}`,
			Family: Collection,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"name":{"type":"string"},
				"type":{"type":"string","description":"table, view or materialized_view"},
				"storage_format":{"type":["string","null"]},
				"inverted_index_storage_format":{"type":["string","null"]}},
				"required":["name","type"]}`,
			Feature:  "catalog.list_tables",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "table_metadata", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"catalog.show_databases"},
		},
		{
			Name:    "get_table_context",
			Handler: metadata.GetTableContext,
			Title:   "Get table context",
			Description: "Returns what is needed to understand or query one table: the column schema " +
				"(always included), plus table and column comments, indexes and basic facts such as " +
				"engine, key model, rows and size, as chosen by sections. Each section has its own " +
				"status, so an unreadable optional section makes the result partial, not failed.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"sections":{"type":"array","minItems":1,"uniqueItems":true,"items":{"enum":["schema","comments","indexes","basic"]},"default":["schema","comments","indexes","basic"],"description":"schema is always added"}},
				"required":["database","table"]}`,
			Family:  TableContext,
			Feature: "catalog.get_table_context",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "variant_v3_metadata", Ranges: []string{"4.1.0-"}},
				{Name: "vector_search_metadata", Ranges: []string{"4.0.0-"}},
				{Name: "base_sections", Ranges: []string{"2.0.0-"}},
			},
		},
		{
			Name:    "get_table_size",
			Handler: metadata.GetTableSize,
			Title:   "Get table size",
			Description: "Returns the row count and the data and index bytes of one table from " +
				"information_schema.tables and, with include_partitions, the same figures per partition " +
				"from information_schema.partitions. Figures are Doris statistics and can lag recent " +
				"loads. If partitions cannot be read the result is partial with a warning.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"catalog":{"type":"string","minLength":1,"maxLength":256},
				"include_partitions":{"type":"boolean","default":false}},
				"required":["database","table"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"catalog":{"type":["string","null"]},
				"database":{"type":"string"},
				"table":{"type":"string"},
				"row_count":{"type":["integer","null"]},
				"data_bytes":{"type":["integer","null"]},
				"index_bytes":{"type":["integer","null"]},
				"total_bytes":{"type":["integer","null"]},
				"partitions":{"type":["array","null"],"items":{"type":"object","additionalProperties":true,"properties":{
					"name":{"type":"string"},
					"ordinal_position":{"type":["integer","null"]},
					"row_count":{"type":["integer","null"]},
					"data_bytes":{"type":["integer","null"]},
					"index_bytes":{"type":["integer","null"]}},
					"required":["name"]}}},
				"required":["database","table"]}`,
			Feature:  "catalog.get_table_size",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "partition_statistics", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"catalog.information_schema_tables"},
		},
	},
}
