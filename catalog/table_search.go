package catalog

import "github.com/doris-mcp/doris-mcp-server/doris/search"

// searchDomain is doris_search: text, vector and hybrid retrieval.
var searchDomain = Domain{
	Name:  "doris_search",
	Title: "Doris search and retrieval",
	Description: "Text, vector and hybrid retrieval over Apache Doris tables that have inverted or " +
		"ANN indexes: structured searches, tokenizer previews, search index inspection and search " +
		"query diagnosis. Raw SEARCH() DSL and free-form filter SQL are not accepted. Does not run " +
		"general SQL, browse catalog metadata, or cover cluster, pipeline, governance or semantic models.",
	Children: []Child{
		{
			Name:    "search_data",
			Handler: search.SearchData,
			Title:   "Search data",
			Description: "Runs a structured text, vector or hybrid search on one table and returns up " +
				"to top_k rows (default 10). Text needs an inverted index on every field; vector and " +
				"hybrid need Doris 4.0+ and an ANN index whose dim equals the vector length. Filters are " +
				"typed conditions, not SQL; raw SEARCH() DSL is not accepted.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"mode":{"enum":["text","vector","hybrid"]},
				"query":{"type":"string","minLength":1,"maxLength":16384,"description":"Search text (text and hybrid)"},
				"fields":{"type":"array","minItems":1,"maxItems":32,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256},"description":"Text columns to match"},
				"vector":{"type":"array","minItems":1,"maxItems":4096,"items":{"type":"number"},"description":"Query embedding (vector and hybrid)"},
				"vector_field":{"type":"string","minLength":1,"maxLength":256},
				"text_operator":{"enum":["any","all","phrase","phrase_prefix"],"default":"any"},
				"top_k":{"type":"integer","minimum":1,"maximum":1000,"default":10},
				"filters":{"type":"object","maxProperties":32,"propertyNames":{"minLength":1,"maxLength":256},"description":"column -> value (equality) or {operator, value|values}","additionalProperties":{"anyOf":[
					{"type":["string","number","boolean"],"maxLength":4096},
					{"type":"object","additionalProperties":false,"properties":{
						"operator":{"enum":["eq","ne","gt","gte","lt","lte","in","not_in","is_null","is_not_null"]},
						"value":{"type":["string","number","boolean"],"maxLength":4096},
						"values":{"type":"array","minItems":1,"maxItems":100,"items":{"type":["string","number","boolean"],"maxLength":4096}}},
						"required":["operator"]}]}},
				"return_fields":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}}},
				"required":["database","table","mode"],
				"allOf":[
					{"if":{"properties":{"mode":{"enum":["text","hybrid"]}}},"then":{"required":["query"]}},
					{"if":{"properties":{"mode":{"enum":["vector","hybrid"]}}},"then":{"required":["vector"]}}]}`,
			Family:  Query,
			Feature: "search.search_data",
			Scope:   ScopeAllComponents,
			Variants: []Variant{
				{Name: "vector_hybrid_search", Ranges: []string{"4.0.0-"}, Probes: []string{"search.vector_functions"}},
				{Name: "inverted_text_search", Ranges: []string{"2.0.0-"}, Probes: []string{"search.match_explain"},
					Limitations: []string{"Only mode text; vector and hybrid search need Doris 4.0 or later."}},
			},
			Probes: []string{"search.show_index"},
		},
		{
			Name:    "preview_text_analysis",
			Handler: search.PreviewTextAnalysis,
			Title:   "Preview text analysis",
			Description: "Shows the tokens Doris produces for a text with a given analyzer, or tokenizer " +
				"and token filters, using TOKENIZE. Use it to choose an inverted index parser or to " +
				"explain why a MATCH search did or did not hit. Reads no table data; text is limited to " +
				"64 KiB.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"text":{"type":"string","minLength":1,"maxLength":65536},
				"analyzer":{"type":"string","minLength":1,"maxLength":256,"description":"Parser or custom analyzer, e.g. english, chinese, unicode"},
				"tokenizer":{"type":"string","minLength":1,"maxLength":256},
				"token_filters":{"type":"array","minItems":1,"maxItems":16,"items":{"type":"string","minLength":1,"maxLength":256}}},
				"required":["text"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"analyzer":{"type":["string","null"]},
				"tokenizer":{"type":["string","null"]},
				"tokens":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"token":{"type":"string"},
					"position":{"type":["integer","null"]}},
					"required":["token"]}},
				"truncated":{"type":"boolean"}},
				"required":["tokens"]}`,
			Feature:  "search.preview_text_analysis",
			Scope:    ScopeMasterFE,
			Variants: []Variant{{Name: "tokenizer_preview", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"search.tokenize"},
		},
		{
			Name:    "inspect_search_indexes",
			Handler: search.InspectSearchIndexes,
			Title:   "Inspect search indexes",
			Description: "Returns the search-related indexes of one table (inverted, ANN, n-gram bloom " +
				"filter) with columns and properties such as parser, metric and dimension, plus index " +
				"build jobs from SHOW BUILD INDEX. Use it before search_data to see which fields are " +
				"searchable and how.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"database":{"type":"string","minLength":1,"maxLength":256},
				"table":{"type":"string","minLength":1,"maxLength":256},
				"index":{"type":"string","minLength":1,"maxLength":256,"description":"Only this index"}},
				"required":["database","table"]}`,
			Family: Detail,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"database":{"type":"string"},
				"table":{"type":"string"},
				"indexes":{"type":"array","items":{"type":"object","additionalProperties":true,"properties":{
					"name":{"type":"string"},
					"index_type":{"type":["string","null"]},
					"columns":{"type":"array","items":{"type":"string"}},
					"properties":{"type":["object","null"],"additionalProperties":true},
					"comment":{"type":["string","null"]}},
					"required":["name"]}},
				"build_jobs":{"type":["array","null"],"items":{"type":"object","additionalProperties":true}}},
				"required":["database","table","indexes"]}`,
			Feature: "search.inspect_search_indexes",
			Scope:   ScopeMasterFE,
			Variants: []Variant{
				{Name: "ann_index_metadata", Ranges: []string{"4.0.0-"}},
				{Name: "inverted_index_metadata", Ranges: []string{"2.0.0-"}},
			},
			Probes: []string{"search.show_index"},
		},
		{
			Name:    "diagnose_search_query",
			Handler: search.DiagnoseSearchQuery,
			Title:   "Diagnose a search query",
			Description: "Diagnoses a search given as a read-only SELECT (sql) or as a search_data " +
				"request: which indexes exist on the fields, whether the plan uses them (EXPLAIN) and, " +
				"with include_profile, the execution profile. Returns findings with evidence; sources " +
				"that cannot be read become unavailable sections.",
			Input: `{"type":"object","additionalProperties":false,"properties":{
				"sql":{"type":"string","minLength":1,"maxLength":1048576,"description":"A read-only SELECT"},
				"search_request":{"type":"object","additionalProperties":false,"description":"Same arguments as search_data","properties":{
					"database":{"type":"string","minLength":1,"maxLength":256},
					"table":{"type":"string","minLength":1,"maxLength":256},
					"mode":{"enum":["text","vector","hybrid"]},
					"query":{"type":"string","minLength":1,"maxLength":16384},
					"fields":{"type":"array","minItems":1,"maxItems":32,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}},
					"vector":{"type":"array","minItems":1,"maxItems":4096,"items":{"type":"number"}},
					"vector_field":{"type":"string","minLength":1,"maxLength":256},
					"text_operator":{"enum":["any","all","phrase","phrase_prefix"],"default":"any"},
					"top_k":{"type":"integer","minimum":1,"maximum":1000,"default":10},
					"filters":{"type":"object","maxProperties":32,"propertyNames":{"minLength":1,"maxLength":256},"additionalProperties":{"anyOf":[
						{"type":["string","number","boolean"],"maxLength":4096},
						{"type":"object","additionalProperties":false,"properties":{
							"operator":{"enum":["eq","ne","gt","gte","lt","lte","in","not_in","is_null","is_not_null"]},
							"value":{"type":["string","number","boolean"],"maxLength":4096},
							"values":{"type":"array","minItems":1,"maxItems":100,"items":{"type":["string","number","boolean"],"maxLength":4096}}},
							"required":["operator"]}]}},
					"return_fields":{"type":"array","minItems":1,"maxItems":64,"uniqueItems":true,"items":{"type":"string","minLength":1,"maxLength":256}}},
					"required":["database","table","mode"],
					"allOf":[
						{"if":{"properties":{"mode":{"enum":["text","hybrid"]}}},"then":{"required":["query"]}},
						{"if":{"properties":{"mode":{"enum":["vector","hybrid"]}}},"then":{"required":["vector"]}}]},
				"include_profile":{"type":"boolean","default":false}},
				"anyOf":[{"required":["sql"]},{"required":["search_request"]}]}`,
			Family: Diagnostic,
			Data: `{"type":"object","additionalProperties":true,"properties":{
				"target":{"enum":["sql","search_request"]},
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
			Feature:  "search.diagnose_search_query",
			Scope:    ScopeAllComponents,
			Variants: []Variant{{Name: "search_query_diagnosis", Ranges: []string{"2.0.0-"}}},
			Probes:   []string{"search.show_index", "search.explain"},
		},
	},
}
