package lakehouse

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// What the lakehouse children may repeat from Doris's metadata. Catalog
// and table properties hold credentials (s3.secret_key, passwords, tokens)
// and storage locations (warehouse paths, metastore and JDBC URLs, which
// may carry user:password@), so nothing is repeated unless its key is on
// an allowlist of settings that never hold either, and its value also
// looks like a setting: short, no URL, no "@", no "=", no long run of
// letters and digits. Everything else is withheld; a withheld key is named
// only when the name itself is harmless (it does not look like a secret's
// name), so that a user can see that, say, a warehouse is configured.

// safeCatalogKeys are catalog properties whose values are settings.
var safeCatalogKeys = map[string]bool{
	"type": true, "iceberg.catalog.type": true, "paimon.catalog.type": true, "hive.version": true,
	"hive.metastore.type": true, "use_meta_cache": true, "metadata_refresh_interval_sec": true,
	"file.meta.cache.ttl-second": true, "schema.cache.ttl-second": true, "partition.cache.ttl-second": true,
	"list-all-tables": true, "enable.mapping.varbinary": true, "enable.mapping.timestamp_tz": true,
	"create_time": true, "lower_case_meta_names": true, "lower_case_table_names": true, "only_specified_database": true,
	"hadoop.security.authentication": true, "s3.region": true, "aws_region": true, "glue.region": true,
	"use_path_style": true, "s3.path.style.access": true, "driver_class": true, "iceberg.rest.security.type": true,
	"iceberg.rest.nested-namespace-enabled": true, "enable_auto_analyze": true, "ipc.client.fallback-to-simple-auth-allowed": true,
	"hive.enable_hms_events_incremental_sync": true, "hive.hms_events_batch_size_per_rpc": true, "es.nodes.discovery": true,
	"es.http_ssl_enabled": true, "enable_docvalue_scan": true, "enable_keyword_sniff": true,
}

// safeTableKeys are table properties (SHOW CREATE TABLE) whose values are
// settings of the format.
var safeTableKeys = map[string]bool{
	"format-version": true, "write-format": true, "write.format.default": true, "write.parquet.compression-codec": true,
	"write.orc.compression-codec": true, "compression-codec": true, "file_format": true, "file.format": true,
	"bucket": true, "bucket-key": true, "primary-key": true, "merge-engine": true, "changelog-producer": true,
	"table_type": true, "hoodie.table.type": true, "write.delete.mode": true, "write.update.mode": true,
	"write.merge.mode": true, "transient_lastddltime": true, "numfiles": true, "numrows": true, "totalsize": true,
}

// safeVariantKeys are the VARIANT storage settings reported by
// inspect_variant_column.
var safeVariantKeys = map[string]bool{
	"storage_format": true, "variant_doc_hash_shard_count": true, "variant_doc_materialization_min_rows": true,
	"variant_enable_doc_mode": true, "variant_enable_typed_paths_to_sparse": true, "variant_flatten_nested": true,
	"variant_enable_flatten_nested": true, "variant_max_sparse_column_statistics_size": true,
	"variant_max_subcolumns_count": true, "variant_sparse_hash_shard_count": true,
}

// secretWords mark a property name that may hold a credential.
var secretWords = []string{"password", "passwd", "pwd", "secret", "token", "credential", "key", "keytab", "private",
	"auth", "sas", "signature", "session", "cert", "principal", "sign"}

// secretLooking reports a key whose name suggests a credential, or that is
// not a plain setting name at all.
func secretLooking(key string) bool {
	k := strings.ToLower(key)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return !plainKey(key) || longToken(key, 20)
}

// plainKey is a property name of letters, digits and . _ - (1..128).
func plainKey(k string) bool {
	if k == "" || len(k) > 128 {
		return false
	}
	for _, r := range k {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// longToken reports a run of at least n letters and digits: the shape of
// access keys and tokens, never of a setting.
func longToken(s string, n int) bool {
	run := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if run++; run >= n {
				return true
			}
			continue
		}
		run = 0
	}
	return false
}

// safeValue reports a value that reads as a setting: short, printable, no
// URL, userinfo, assignment or token-like run.
func safeValue(v string) bool {
	if len(v) > 128 || strings.Contains(v, "://") || strings.ContainsAny(v, "@=\\") || longToken(v, 24) {
		return false
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// sanitized is what may be shown of a set of properties.
type sanitized struct {
	Shown    map[string]string // allowlisted keys with safe values
	Withheld []string          // other keys whose names are harmless, sorted
	Secret   int               // keys not named: they look like credentials
}

// sanitize splits properties by the allowlist safe.
func sanitize(props [][2]string, safe map[string]bool) sanitized {
	out := sanitized{Shown: map[string]string{}}
	seen := map[string]bool{}
	for _, kv := range props {
		k, v := kv[0], kv[1]
		lk := strings.ToLower(k)
		if seen[lk] {
			continue
		}
		seen[lk] = true
		switch {
		case safe[lk] && plainKey(k) && safeValue(v):
			out.Shown[lk] = v
		case secretLooking(k):
			out.Secret++
		default:
			out.Withheld = append(out.Withheld, lk)
		}
	}
	sort.Strings(out.Withheld)
	return out
}

// DDL names and property texts longer than these are skipped, not shown.
const (
	maxDDLName  = 256  // a property key or a partition column
	maxDDLValue = 1000 // a property value
)

// reDDLProps finds "key" = "value" or 'key'='value' pairs in DDL text. Its
// runs are unbounded and ddlProperties applies the bounds: a counted
// repetition such as {0,1000} compiles to a thousand nested alternatives
// (over a megabyte of stack and heap to compile, at every start).
var reDDLProps = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`["']([^"'\n]+)["']\s*=\s*["']([^"'\n]*)["']`)
})

// ddlProperties extracts the quoted key/value pairs of a CREATE TABLE
// (PROPERTIES, TBLPROPERTIES, column properties(...)). A pair whose key or
// value is over its bound is skipped whole.
func ddlProperties(ddl string) [][2]string {
	var out [][2]string
	for _, m := range reDDLProps().FindAllStringSubmatch(ddl, -1) {
		if utf8.RuneCountInString(m[1]) <= maxDDLName && utf8.RuneCountInString(m[2]) <= maxDDLValue {
			out = append(out, [2]string{m[1], m[2]})
		}
	}
	return out
}

var (
	rePartitionBy = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)\bPARTITION(?:ED)?\s+BY\s*(?:LIST|RANGE)?\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)`)
	})
	// reIdentInDDL finds a backquoted name or a bare word; partitionColumns
	// applies maxDDLName (see reDDLProps).
	reIdentInDDL = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("`([^`]+)`|\\b([A-Za-z_][A-Za-z0-9_]*)\\b")
	})
	reEngine     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\)\s*ENGINE\s*=\s*([A-Za-z_]+)`) })
	reHudiFormat = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)org\.apache\.hudi`) })
	reScanNode   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\d+:(V?[A-Za-z_]*SCAN[A-Za-z_]*|V?[A-Za-z]*ScanNode)\(`)
	})
	rePartitionSel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bpartition(?:s)?=(\d+)/(\d+)`) })
	reSplits       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`inputSplitNum=(\d+)`) })
	rePushdownAgg  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)pushdown agg=([A-Z_]+)`) })
)

// partitionColumns reads the partition columns of a CREATE TABLE: the
// names inside PARTITION BY [LIST|RANGE] (...) or PARTITIONED BY (...).
// Transforms (day(ts), bucket(16, id)) yield their column. A name longer
// than maxDDLName is skipped whole.
func partitionColumns(ddl string) []string {
	m := rePartitionBy().FindStringSubmatch(ddl)
	if m == nil {
		return []string{}
	}
	out := []string{}
	seen := map[string]bool{}
	skip := map[string]bool{"string": true, "int": true, "bigint": true, "date": true, "timestamp": true, "varchar": true,
		"day": true, "days": true, "month": true, "months": true, "year": true, "years": true, "hour": true, "hours": true,
		"bucket": true, "truncate": true, "date_trunc": true, "identity": true}
	for _, im := range reIdentInDDL().FindAllStringSubmatch(m[1], -1) {
		name := im[1]
		if name == "" {
			name = im[2]
			if skip[strings.ToLower(name)] {
				continue
			}
		}
		if utf8.RuneCountInString(name) > maxDDLName || !doris.PlainIdentChain(name) || seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, name)
	}
	return out
}

// summaryCounts keeps the counters of an Iceberg snapshot summary (added-,
// deleted-, removed-, changed- and total- keys with integer values) and
// drops the rest (engine job ids, anything free-form).
func summaryCounts(raw string) map[string]int64 {
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil {
		return nil
	}
	out := map[string]int64{}
	for k, v := range m {
		if !plainKey(k) {
			continue
		}
		prefix, _, _ := strings.Cut(k, "-")
		switch prefix {
		case "added", "deleted", "removed", "changed", "total":
		default:
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out[k] = n
		}
	}
	return out
}
