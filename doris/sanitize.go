package doris

import (
	"encoding/json"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// The governance sanitiser: everything the server returns from Doris that
// can carry a secret passes through one of these functions first. They
// work on the guard's Doris token stream, never on regular expressions,
// and fail closed: text they cannot read is withheld, not passed through.
//
//   - sanitizeStatement: audit statements and SQL-like values. Every
//     string literal becomes '***'; comments and hints are dropped; the
//     value after IDENTIFIED BY, PASSWORD, and after "=" or ":" of a key
//     that names a credential (password, secret, token, access key, ak/sk,
//     ...) is masked whatever its kind; bare words shaped like cloud
//     access keys are masked; unreadable text ends the statement.
//   - tableProperties: the PROPERTIES of SHOW CREATE TABLE, kept only for
//     allowlisted keys and plain values.
//   - configValue: FE configuration values, kept only when they have the
//     shape their key allows (a boolean, a number, a list of names).
//   - safeURL: a location without user info, query or fragment.

// redacted replaces a masked value.
const redacted = "'***'"

// maxSanitizeInput bounds the text the sanitiser reads; Doris itself cuts
// audit statements at audit_plugin_max_sql_length (4096 by default).
const maxSanitizeInput = 64 << 10

// sensitiveKeyParts mark a property, parameter or configuration key whose
// value is a credential. Keys are compared in lower case with '.', '-'
// and ' ' read as '_'.
var sensitiveKeyParts = []string{"password", "passwd", "pwd", "secret", "token", "credential", "access_key",
	"accesskey", "secret_key", "secretkey", "private_key", "privatekey", "api_key", "apikey", "authorization", "keytab",
	"sas", "signature", "session_key", "cookie", "bearer", "jaas", "truststore_password", "keystore"}

// sensitiveKeyNames are whole keys (or final key segments) that are
// credentials although they contain none of sensitiveKeyParts: the AK/SK
// pairs of object stores.
var sensitiveKeyNames = map[string]bool{"ak": true, "sk": true, "key": true, "access": true, "account_key": true}

// sensitiveKey reports whether a property or configuration key names a
// credential.
func sensitiveKey(k string) bool {
	k = strings.ToLower(strings.Trim(k, "'\"`"))
	k = strings.NewReplacer(".", "_", "-", "_", " ", "_").Replace(k)
	for _, p := range sensitiveKeyParts {
		if strings.Contains(k, p) {
			return true
		}
	}
	if sensitiveKeyNames[k] {
		return true
	}
	if i := strings.LastIndexByte(k, '_'); i >= 0 && sensitiveKeyNames[k[i+1:]] {
		return true
	}
	return false
}

// SanitizeStatement returns s with everything that can carry a secret
// removed (see the file comment), on one line, cut at maxChars characters;
// cut reports that it was shortened.
func SanitizeStatement(s string, maxChars int) (out string, cut bool) {
	if len(s) > maxSanitizeInput {
		s, cut = s[:maxSanitizeInput], true
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	toks, err := guard.Scan(s)
	var b strings.Builder
	var (
		mask     bool        // mask the next value token (IDENTIFIED BY ...)
		maskTo   = -1        // mask every token until a list item at this depth ends
		depth    int         // parenthesis depth
		prev     guard.Token // the last significant token
		lastEnd  int         // end of the last token written or dropped
		lastMask bool        // the last thing written was the mask
	)
	write := func(t guard.Token, text string) {
		if t.Pos > lastEnd && b.Len() > 0 {
			b.WriteByte(' ') // any run of whitespace or dropped comments
		}
		b.WriteString(text)
		lastEnd, lastMask = t.Pos+len(t.Text), text == redacted
	}
	for _, t := range toks {
		if t.Kind == guard.TokComment || t.Kind == guard.TokHint {
			continue // comments say whatever their author wanted; none is needed
		}
		punct := t.Kind == guard.TokPunct
		if punct && t.Text == "(" {
			depth++
		}
		if punct && t.Text == ")" {
			depth--
		}
		if maskTo >= 0 {
			if punct && (t.Text == "," && depth == maskTo || t.Text == ")" && depth < maskTo || t.Text == ";") {
				maskTo = -1
			} else {
				if !lastMask {
					write(t, redacted)
				}
				lastEnd = t.Pos + len(t.Text)
				prev = t
				continue
			}
		}
		switch {
		case mask && !punct && !IsWord(t, "PASSWORD"):
			mask = false
			write(t, redacted)
		case t.Kind == guard.TokString:
			write(t, redacted)
		case t.Kind == guard.TokWord && accessKeyShaped(t.Text):
			write(t, redacted)
		default:
			write(t, t.Text)
		}
		// What follows this token and must be masked.
		switch {
		case IsWord(t, "BY") && IsWord(prev, "IDENTIFIED"), IsWord(t, "PASSWORD") && IsWord(prev, "BY"):
			mask = true // IDENTIFIED BY [PASSWORD] 'secret'
		case punct && (t.Text == "=" || t.Text == ":" || t.Text == ":=") && keyToken(prev) && sensitiveKey(KeyText(prev)):
			maskTo = depth // "s3.secret_key" = ..., up to the next item
		case punct && t.Text == "(" && IsWord(prev, "PASSWORD"):
			maskTo = depth // PASSWORD('...'), up to its closing parenthesis
		}
		prev = t
	}
	if err != nil {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("/* rest not shown: it could not be read safely */")
	}
	out = b.String()
	if maxChars > 0 && utf8.RuneCountInString(out) > maxChars {
		r := []rune(out)
		out, cut = string(r[:maxChars]), true
	}
	return out, cut
}

func IsWord(t guard.Token, w string) bool {
	return t.Kind == guard.TokWord && strings.EqualFold(t.Text, w)
}

// keyToken reports tokens that can be the key of key = value.
func keyToken(t guard.Token) bool {
	return t.Kind == guard.TokWord || t.Kind == guard.TokString || t.Kind == guard.TokQuoted
}

// KeyText is the key a token names: a string literal's or quoted
// identifier's content, or the word itself.
func KeyText(t guard.Token) string {
	s := t.Text
	switch t.Kind {
	case guard.TokString, guard.TokQuoted:
		if len(s) >= 2 {
			if s[0] == 'r' || s[0] == 'R' {
				s = s[1:]
			}
			s = s[1 : len(s)-1]
		}
	}
	return s
}

// accessKeyShaped reports bare words shaped like cloud credentials: AWS
// access key ids (AKIA/ASIA + 16), and long random-looking tokens (at
// least 32 characters mixing letters and digits). Such a word appears in
// audited SQL only when someone typed a credential without quotes.
func accessKeyShaped(w string) bool {
	if len(w) == 20 && (strings.HasPrefix(w, "AKIA") || strings.HasPrefix(w, "ASIA") || strings.HasPrefix(w, "LTAI")) {
		return true
	}
	if len(w) < 32 {
		return false
	}
	var letters, digits int
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return letters > 0 && digits > 0
}

// tableProperty lists the SHOW CREATE TABLE property keys that describe
// storage and never hold a credential or a location.
var tablePropertyAllowlist = map[string]bool{
	"replication_allocation": true, "replication_num": true, "storage_medium": true, "storage_format": true,
	"inverted_index_storage_format": true, "compression": true, "enable_unique_key_merge_on_write": true,
	"light_schema_change": true, "disable_auto_compaction": true, "enable_single_replica_compaction": true,
	"is_being_synced": true, "min_load_replica_num": true, "group_commit_interval_ms": true,
	"group_commit_data_bytes": true, "compaction_policy": true, "time_series_compaction_goal_size_mbytes": true,
	"time_series_compaction_file_count_threshold": true, "time_series_compaction_time_threshold_seconds": true,
	"time_series_compaction_empty_rowsets_threshold": true, "time_series_compaction_level_threshold": true,
	"store_row_column": true, "row_store_page_size": true, "storage_page_size": true, "skip_write_index_on_load": true,
	"enable_mow_light_delete": true, "in_memory": true, "bloom_filter_columns": true, "bloom_filter_fpp": true,
	"dynamic_partition.enable": true, "dynamic_partition.time_unit": true, "dynamic_partition.start": true,
	"dynamic_partition.end": true, "dynamic_partition.prefix": true, "dynamic_partition.buckets": true,
	"dynamic_partition.create_history_partition": true, "dynamic_partition.history_partition_num": true,
	"partition.retention_count": true, "file_cache_ttl_seconds": true, "ttl_seconds": true, "estimate_partition_size": true,
	"binlog.enable": true, "binlog.ttl_seconds": true, "binlog.max_bytes": true, "binlog.max_history_nums": true,
	"enable_light_schema_change": true, "storage_policy": true, "storage_vault_name": true, "function_column.sequence_col": true,
	"function_column.sequence_type": true, "auto_bucket": true, "variant_enable_flatten_nested": true,
	"variant_max_subcolumns_count": true, "variant_max_sparse_column_statistics_size": true,
	"variant_enable_typed_paths_to_sparse": true, "variant_sparse_hash_shard_count": true, "enable_variant_flatten_nested": true,
}

// ddlClauses is what SHOW CREATE TABLE says about a table, read from its
// token stream.
type ddlClauses struct {
	KeyModel     string // DUPLICATE, UNIQUE, AGGREGATE or PRIMARY KEY(...)
	KeyColumns   []string
	Distribution string // HASH(a, b) BUCKETS 10 | RANDOM BUCKETS AUTO
	Partitioning string // RANGE(col) | LIST(col) | ""
	Properties   map[string]any
	Withheld     int // properties left out: not allowlisted, or not a plain value
}

// ParseCreateTable reads the clauses of a SHOW CREATE TABLE text. Only
// allowlisted properties with plain values are kept; the others are
// counted. Text the guard cannot scan yields what was read before it.
func ParseCreateTable(ddl string) ddlClauses {
	c := ddlClauses{Properties: map[string]any{}}
	toks, _ := guard.Scan(ddl)
	var sig []guard.Token
	for _, t := range toks {
		if t.Kind != guard.TokComment && t.Kind != guard.TokHint {
			sig = append(sig, t)
		}
	}
	depth := 0
	for i := 0; i < len(sig); i++ {
		t := sig[i]
		if t.Kind == guard.TokPunct {
			switch t.Text {
			case "(":
				depth++
			case ")":
				depth--
			}
			continue
		}
		if depth != 0 || t.Kind != guard.TokWord {
			continue
		}
		at := func(k int) guard.Token {
			if k < len(sig) {
				return sig[k]
			}
			return guard.Token{}
		}
		switch up := strings.ToUpper(t.Text); {
		case (up == "DUPLICATE" || up == "UNIQUE" || up == "AGGREGATE" || up == "PRIMARY") && IsWord(at(i+1), "KEY") && at(i+2).Text == "(":
			c.KeyModel = up
			j := i + 3
			for ; j < len(sig) && sig[j].Text != ")"; j++ {
				if sig[j].Kind == guard.TokWord || sig[j].Kind == guard.TokQuoted {
					c.KeyColumns = append(c.KeyColumns, IdentText(sig[j]))
				}
			}
			i = j
		case up == "DISTRIBUTED" && IsWord(at(i+1), "BY"):
			var parts []string
			j := i + 2
			for ; j < len(sig) && !IsWord(sig[j], "PROPERTIES") && !IsWord(sig[j], "ROLLUP"); j++ {
				if sig[j].Kind == guard.TokString {
					break
				}
				parts = append(parts, IdentText(sig[j]))
			}
			c.Distribution = joinDDL(parts)
			i = j - 1
		case up == "PARTITION" && IsWord(at(i+1), "BY"):
			var parts []string
			for j := i + 2; j < len(sig) && len(parts) < 64; j++ {
				parts = append(parts, IdentText(sig[j]))
				if sig[j].Text == ")" {
					break
				}
			}
			c.Partitioning = joinDDL(parts)
		case up == "PROPERTIES" && at(i+1).Text == "(":
			j := i + 2
			for j+2 < len(sig) && sig[j].Text != ")" {
				k, eq, v := sig[j], sig[j+1], sig[j+2]
				if k.Kind != guard.TokString || eq.Text != "=" {
					c.Withheld++
					j++
					continue
				}
				key := strings.ToLower(KeyText(k))
				if tablePropertyAllowlist[key] && v.Kind == guard.TokString && PlainValue(KeyText(v)) {
					c.Properties[key] = KeyText(v)
				} else {
					c.Withheld++
				}
				j += 3
				if j < len(sig) && sig[j].Text == "," {
					j++
				}
			}
			i = j
		}
	}
	return c
}

func IdentText(t guard.Token) string {
	if t.Kind == guard.TokQuoted {
		return strings.ReplaceAll(t.Text[1:len(t.Text)-1], "``", "`")
	}
	return t.Text
}

// joinDDL prints clause tokens with spaces only where SQL needs them.
func joinDDL(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && p != "(" && p != ")" && p != "," && parts[i-1] != "(" {
			b.WriteByte(' ')
		}
		b.WriteString(p)
	}
	return b.String()
}

// PlainValue reports a short value made of name characters, digits, and
// the punctuation Doris settings use (":", ",", "%", ".", "-", "_", " ").
// Anything else (a URL, an escaped blob, a long opaque string) is not a
// setting a DBA needs to see and may be a credential.
func PlainValue(v string) bool {
	if len(v) > 256 || strings.Contains(v, "://") || accessKeyShaped(v) {
		return false
	}
	for _, r := range v {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r):
		case strings.ContainsRune(":,%.-_ /", r):
		default:
			return false
		}
	}
	return true
}

// configShape says what an FE configuration key may hold.
type configShape int

const (
	shapeBool configShape = iota
	shapeInt
	shapeName     // one name: default, ldap, oidc, ...
	shapeNameList // comma-separated names, possibly in [ ]
)

// configShapes are the FE configuration keys the governance children read.
var configShapes = map[string]configShape{
	"authentication_type":         shapeName,
	"ldap_authentication_enabled": shapeBool,
	"ldap_use_ssl":                shapeBool,
	"ldap_default_roles":          shapeNameList,
	"activate_lineage_plugin":     shapeNameList,
	"lineage_event_queue_size":    shapeInt,
}

// ConfigValue returns the value of an FE configuration key when it has
// the shape the key allows; ok is false (and the value must be withheld)
// otherwise, or for a key the server does not know.
func ConfigValue(key, value string) (v any, ok bool) {
	shape, known := configShapes[key]
	if !known || sensitiveKey(key) {
		return nil, false
	}
	value = strings.TrimSpace(value)
	switch shape {
	case shapeBool:
		switch strings.ToLower(value) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case shapeInt:
		if n := AtoiOrNil(value); n != nil {
			return n, true
		}
	case shapeName:
		if nameShaped(value) {
			return value, true
		}
	case shapeNameList:
		names := SplitNames(value)
		for _, n := range names {
			if !nameShaped(n) {
				return nil, false
			}
		}
		return names, true
	}
	return nil, false
}

// SplitNames reads "a,b", "[a, b]", `["a","b"]` and "" as a list of names.
func SplitNames(v string) []string {
	var arr []string
	if json.Unmarshal([]byte(v), &arr) == nil && arr != nil {
		return arr
	}
	v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "["), "]")
	out := []string{}
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// nameShaped reports a role, plugin or mode name: 1-64 letters, digits,
// '_', '-' and '.', starting with a letter.
func nameShaped(s string) bool {
	if s == "" || len(s) > 64 || accessKeyShaped(s) {
		return false
	}
	for i, r := range s {
		switch {
		case r < 0x80 && unicode.IsLetter(r):
		case i > 0 && (unicode.IsDigit(r) || r == '_' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}

// SafeURL returns a location reduced to scheme, host and path: user info,
// query (where presigned URLs carry their signature) and fragment are
// dropped. Anything that is not a URL is withheld ("").
func SafeURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme == "" || u.Opaque != "" {
		return ""
	}
	clean := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	out := clean.String()
	if !PlainValue(strings.TrimPrefix(strings.ReplaceAll(out, u.Scheme+"://", ""), "/")) {
		return u.Scheme + "://" + u.Host + "/…"
	}
	return out
}
