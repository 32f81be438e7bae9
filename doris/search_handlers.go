package doris

// searchHandlers binds the children of doris_search that this build runs.
func (r *Runtime) searchHandlers() map[string]Handler {
	return map[string]Handler{}
}

// searchProbeSQL are the SQL capability probes of doris_search.
var searchProbeSQL = map[string]string{
	"search.show_index":       "SHOW INDEX FROM information_schema.tables",
	"search.tokenize":         `SELECT TOKENIZE('Doris search', '"parser"="english"')`,
	"search.vector_functions": "SELECT l2_distance_approximate([0.0], [0.0])",
	"search.explain":          "EXPLAIN SELECT 1",
}
