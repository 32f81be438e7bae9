package guard

import "strings"

// The egress policy: a statement may read only what Doris holds in its
// catalogs. Some read-shaped statements make Doris act outside them on the
// caller's behalf: fetch a URL (http()), read a backend's files (local(),
// file(), parquet_meta()), reach an object store or HDFS the caller names
// with credentials the caller supplies (s3(), hdfs()), pass SQL to another
// database (query()), or send rows to a model endpoint (ai_generate(),
// embed()). Doris's privileges do not stop these (http() checks none), so
// the guard refuses them unless the operator allowed the function by name.
//
// The tables below are drawn from Doris's own registries, in the versions
// of the 2.x to 4.x sources that could be read:
// fe/fe-core/src/main/java/org/apache/doris/catalog/BuiltinTableValuedFunctions.java,
// .../tablefunction/TableValuedFunctionIf.java (getTableFunction), the
// table-function classes of .../nereids/trees/expressions/functions/table/
// (their names) and .../nereids/trees/expressions/functions/ai/ (the AI
// functions, llm_* before they were renamed). A table function the guard
// does not know is refused the same way, so a new Doris version's TVF, or
// one whose name could not be confirmed, is judged by a person, not by
// default.

// Policy is what a statement may reach outside Doris's catalogs. The zero
// Policy (and a nil *Policy) refuses every function that reaches outside;
// Check and Bind use it.
type Policy struct {
	// AllowFunctions names functions that the egress policy would refuse
	// and that the operator allows anyway (EGRESS_ALLOWED_FUNCTIONS), in
	// any ASCII case, e.g. "s3" or "ai_generate". Unknown table functions
	// may be named too. It allows nothing else: writes, hints that set
	// variables and statements that fetch a location stay refused.
	AllowFunctions []string
}

// Check is the package-level Check under policy p.
func (p *Policy) Check(sql string) (*Statement, error) {
	st, err := checkPolicy(sql, p)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// Bind is the package-level Bind under policy p.
func (p *Policy) Bind(sql string, params map[string]any) (*Statement, error) {
	st, err := bindPolicy(sql, params, p)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// allows reports whether the operator allowed the function name (lower
// case).
func (p *Policy) allows(name string) bool {
	if p == nil || name == "" {
		return false
	}
	for _, a := range p.AllowFunctions {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// ValidFunctionName reports whether name can be listed in
// Policy.AllowFunctions: an unquoted Doris identifier of 1 to 64 ASCII
// letters, digits and underscores, not starting with a digit.
func ValidFunctionName(name string) bool {
	if len(name) == 0 || len(name) > 64 || isDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isASCIILetter(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

// egressKind says why a function reaches outside Doris.
type egressKind int

const (
	egressNone    egressKind = iota
	egressURL                // fetches a URL
	egressFile               // reads files on a backend (or any filesystem it names)
	egressStorage            // object store or HDFS at a caller-named location
	egressSQL                // passes SQL text to another database
	egressStream             // reads an external stream or source system
	egressModel              // sends data to an external model endpoint
)

func (k egressKind) why() string {
	switch k {
	case egressURL:
		return "makes Doris fetch a URL the caller names"
	case egressFile:
		return "reads files at a path the caller names (on a backend or a remote filesystem)"
	case egressStorage:
		return "reaches an object store or HDFS at a location, with credentials, the caller names"
	case egressSQL:
		return "passes SQL text to another database through a catalog"
	case egressStream:
		return "reads an external stream or source database"
	case egressModel:
		return "sends data to an external AI model endpoint"
	}
	return ""
}

// tableFunction classifies a table-valued function (lower-case name):
// internal reports that it reads only what Doris holds, else kind says how
// it reaches out. Neither means unknown.
func tableFunction(name string) (internal bool, kind egressKind) {
	switch name {
	// Metadata and generators inside Doris: nodes, jobs, views, partitions,
	// workload groups, the metadata of tables in Doris's own catalogs.
	case "numbers", "backends", "frontends", "frontends_disks", "brokers",
		"catalogs", "workload_groups", "workload_schedule_policy",
		"mv_infos", "jobs", "tasks", "partitions", "partition_values",
		"active_queries", "queries", "active_be_tasks", "tablets",
		"iceberg_meta", "hudi_meta", "paimon_meta", "index_disk_usage",
		"authentication_integrations", "group_commit", "binlog":
		return true, egressNone
	case "http":
		return false, egressURL
	case "http_stream":
		return false, egressURL
	case "local", "file", "list_file",
		"parquet_meta", "parquet_file_metadata", "parquet_kv_metadata", "parquet_bloom_probe":
		return false, egressFile
	case "s3", "hdfs":
		return false, egressStorage
	case "query":
		return false, egressSQL
	case "kafka", "cdc_stream", "cdc":
		return false, egressStream
	}
	return false, egressNone
}

// scalarEgress classifies a function called in an expression. Only the
// functions that reach outside Doris are listed: every other builtin, and
// user functions, are left to Doris. The table functions that reach out
// are refused here too, so that no position (a table function in an
// expression, a DESCRIBE FUNCTION target) escapes the policy.
func scalarEgress(name string) egressKind {
	if strings.HasPrefix(name, "ai_") || strings.HasPrefix(name, "llm_") {
		return egressModel // ai_generate, ai_classify, ..., ai_agg; llm_* before 4.0
	}
	if name == "embed" {
		return egressModel
	}
	if internal, k := tableFunction(name); !internal && k != egressNone {
		return k
	}
	return egressNone
}

// generator reports whether name is a LATERAL VIEW table-generating
// function of Doris (explode and its variants, json_each, unnest), which
// computes rows from values and reaches nothing.
func generator(name string) bool {
	switch {
	case strings.HasPrefix(name, "explode"), strings.HasPrefix(name, "posexplode"),
		strings.HasPrefix(name, "json_each"), name == "unnest":
		return true
	}
	return false
}

// lowerName returns the lower-case name of a function-name token (a word,
// or a backquoted identifier with doubled backquotes undoubled), or "" when
// it is no ASCII identifier (such a name is never a builtin). Doris looks
// functions up by Java's toLowerCase, which maps the Kelvin sign U+212A to
// k (so a backquoted ai_mas<U+212A> is ai_mask); strings.ToLower maps it,
// and U+0130, to ASCII too, so the guard sees the name Doris resolves, or
// a stricter one.
func lowerName(t Token) string {
	s := t.Text
	if t.Kind == TokQuoted {
		s = strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	s = strings.ToLower(s)
	if !ValidFunctionName(s) {
		return ""
	}
	return s
}

// egressError is the refusal of the function named by t.
func egressError(t Token, name string, table bool, kind egressKind) *Error {
	what := "function "
	if table {
		what = "table function "
	}
	shown := name
	if shown == "" {
		shown = "(not an ASCII identifier)"
	}
	var why string
	if kind != egressNone {
		why = kind.why()
	} else {
		why = "is not one the guard knows to stay inside Doris"
	}
	e := newError(t.Pos, ReasonEgressFunction, what+shown+" "+why+
		"; refused by the egress policy unless the operator allows it by name")
	e.Name = name
	return e
}
