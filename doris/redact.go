package doris

import (
	"regexp"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// Secret redaction for text that leaves the server and may carry a
// credential: statements read back from the audit log or from job
// metadata, view and materialized-view definitions, and error messages
// Doris recorded about loads and refreshes.
//
// SQL is redacted with the guard's Doris lexer, not with patterns: every
// string literal becomes '***' (passwords in IDENTIFIED BY, keys in S3 or
// catalog properties, tokens in URLs, personal values in predicates),
// comments become a space, and hints that carry a quoted value are blanked.
// What remains is the statement's shape: keywords, names, numbers and
// operators. Text the lexer cannot read is withheld whole rather than
// guessed at.

// WithheldStatement stands for a statement that could not be read safely.
const WithheldStatement = "/* statement withheld: it could not be read safely */"

// RedactSQL returns sql with its secrets removed (see above).
func RedactSQL(sql string) string {
	toks, err := guard.Scan(sql)
	if err != nil {
		return WithheldStatement
	}
	var b strings.Builder
	b.Grow(len(sql))
	last := 0
	for _, t := range toks {
		b.WriteString(sql[last:t.Pos])
		switch t.Kind {
		case guard.TokString:
			// Adjacent literals ('a''b' is two in Doris after X'..')
			// must not merge into one once masked.
			if s := b.String(); len(s) > 0 && (s[len(s)-1] == '\'' || s[len(s)-1] == '"') {
				b.WriteByte(' ')
			}
			b.WriteString("'***'")
		case guard.TokComment:
			// Dropped, but what it separated stays apart: "/ /**/ *"
			// must not become "/*".
			b.WriteByte(' ')
		case guard.TokHint:
			if strings.ContainsAny(t.Text, `'"`) {
				b.WriteString("/*+ *** */")
			} else {
				b.WriteString(t.Text)
			}
		default:
			b.WriteString(t.Text)
		}
		last = t.Pos + len(t.Text)
	}
	b.WriteString(sql[last:])
	return b.String()
}

var (
	// key = value, key: value, "key" = "value" where the key names a secret.
	reSecretPair = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(["']?[\w.\-]*(?:password|passwd|pwd|secret|token|credential|access[_.\-]?key|private[_.\-]?key|api[_.\-]?key|sasl)[\w.\-]*["']?\s*(?:=|:)\s*)("[^"]*"|'[^']*'|[^\s,;)}\]]+)`)
	})
	// scheme://user:password@host
	reURLCredential = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.\-]*://)[^/\s:@'"]+:[^/\s@'"]+@`)
	})
	// Authorization: Bearer <token>, Basic <token>
	reBearer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]+=*`) })
	// AWS-style access key ids and long opaque tokens.
	reAccessKeyID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(?:AKIA|ASIA|AIDA)[0-9A-Z]{16}\b`) })
	reOpaque      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Za-z0-9+/_\-]{40,}={0,2}`) })
	// Data values an error message quotes: Duplicate entry 'x', value 'x'.
	reQuotedValue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b((?:entry|value|values|src value is|input str)\s*:?\s*)('[^']*'|"[^"]*"|\[[^\]]*\])`)
	})
	// IDENTIFIED BY 'x' in text that is not a whole statement.
	reIdentified = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(identified\s+by\s+(?:password\s+)?)('[^']*'|"[^"]*"|\S+)`)
	})
)

// RedactText masks credentials in free text such as an error message:
// values of secret-named keys, passwords in URLs and IDENTIFIED BY,
// bearer tokens, access key ids, long opaque tokens, and data values an
// error quotes (Duplicate entry '...', value '...').
func RedactText(s string) string {
	s = reURLCredential().ReplaceAllString(s, "${1}***@")
	s = reIdentified().ReplaceAllString(s, "${1}'***'")
	s = reSecretPair().ReplaceAllString(s, "${1}***")
	s = reQuotedValue().ReplaceAllString(s, "${1}'***'")
	s = reBearer().ReplaceAllString(s, "$1 ***")
	s = reAccessKeyID().ReplaceAllString(s, "***")
	s = reOpaque().ReplaceAllString(s, "***")
	return s
}

// safePropertyKeys are materialized-view and table property keys whose
// values are configuration, never credentials; other values are masked.
var safePropertyKeys = map[string]bool{
	"replication_num": true, "replication_allocation": true, "grace_period": true, "excluded_trigger_tables": true,
	"refresh_partition_num": true, "workload_group": true, "partition_sync_limit": true, "partition_sync_time_unit": true,
	"partition_date_format": true, "storage_medium": true, "storage_cooldown_time": true, "use_for_rewrite": true,
	"enable_nondeterministic_function": true, "query_rewrite_consistency": true, "compute_group": true,
	"enable_unique_key_merge_on_write": true, "light_schema_change": true, "min_load_replica_num": true,
	"is_being_synced": true, "storage_format": true, "inverted_index_storage_format": true, "compression": true,
	"in_memory": true, "disable_auto_compaction": true, "store_row_column": true, "bloom_filter_columns": true,
	"dynamic_partition.enable": true, "dynamic_partition.time_unit": true, "dynamic_partition.start": true,
	"dynamic_partition.end": true, "dynamic_partition.prefix": true, "dynamic_partition.buckets": true,
	"storage_policy": true, "time_series_compaction_goal_size_mbytes": true, "compaction_policy": true,
	"enable_single_replica_compaction": true, "group_commit_interval_ms": true, "group_commit_data_bytes": true,
}

// JavaMapProperties reads a Java Map.toString ("{k=v, k2=v2}") into
// ordered pairs, masking values of keys not known to be safe.
func JavaMapProperties(s string) map[string]any {
	out := map[string]any{}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if strings.TrimSpace(s) == "" {
		return out
	}
	var key string
	var val strings.Builder
	flush := func() {
		if key == "" {
			return
		}
		if safePropertyKeys[strings.ToLower(key)] {
			out[key] = strings.TrimSpace(val.String())
		} else {
			out[key] = "***"
		}
		key = ""
		val.Reset()
	}
	for _, part := range strings.Split(s, ", ") {
		k, v, ok := strings.Cut(part, "=")
		if ok && !strings.ContainsAny(k, " {}") {
			flush()
			key = strings.TrimSpace(k)
			val.WriteString(v)
			continue
		}
		if key != "" {
			val.WriteString(", " + part)
		}
	}
	flush()
	return out
}
