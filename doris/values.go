package doris

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// maxSafeInteger is the largest integer a JSON number carries exactly in
// every client (2^53 - 1); larger integers travel as strings.
const maxSafeInteger = 1<<53 - 1

// jsonTypeName is the column type reported to clients: the driver's
// database type name, lower-cased.
func jsonTypeName(dbType string) string {
	if dbType == "" {
		return "unknown"
	}
	return strings.ToLower(dbType)
}

// appendValue appends the JSON form of one text-protocol value:
// integers as numbers up to 2^53 and as strings beyond; decimals as
// strings (exact); floats as numbers; dates and times in ISO 8601; binary
// as base64; text as strings; NULL as null.
func appendValue(dst []byte, dbType string, v []byte) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch kindOf(dbType) {
	case kindInt:
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n <= maxSafeInteger && n >= -maxSafeInteger {
			return strconv.AppendInt(dst, n, 10)
		}
		if n, err := strconv.ParseUint(string(v), 10, 64); err == nil && n <= maxSafeInteger {
			return strconv.AppendUint(dst, n, 10)
		}
		return appendString(dst, v)
	case kindFloat:
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && !isInfOrNaN(f) {
			return strconv.AppendFloat(dst, f, 'g', -1, 64)
		}
		return appendString(dst, v)
	case kindDateTime:
		// "2006-01-02 15:04:05[.ffffff]" -> "2006-01-02T15:04:05[.ffffff]"
		if len(v) >= 19 && v[10] == ' ' && plainDateTime(v) {
			dst = append(dst, '"')
			dst = append(dst, v[:10]...)
			dst = append(dst, 'T')
			dst = append(dst, v[11:]...)
			return append(dst, '"')
		}
		return appendString(dst, v)
	case kindBinary:
		return appendBase64(dst, v)
	}
	if !utf8.Valid(v) {
		// Text columns that hold bytes which are not UTF-8 travel as
		// base64 rather than being silently altered.
		return appendBase64(dst, v)
	}
	return appendString(dst, v)
}

type valueKind int

const (
	kindText valueKind = iota
	kindInt
	kindFloat
	kindDateTime
	kindBinary
)

func kindOf(dbType string) valueKind {
	t := strings.TrimPrefix(dbType, "UNSIGNED ")
	switch t {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "YEAR":
		return kindInt
	case "FLOAT", "DOUBLE", "REAL":
		return kindFloat
	case "DATETIME", "TIMESTAMP":
		return kindDateTime
	case "BINARY", "VARBINARY", "BLOB", "TINYBLOB", "MEDIUMBLOB", "LONGBLOB", "BIT", "GEOMETRY":
		return kindBinary
	}
	return kindText // DECIMAL, DATE, TIME, CHAR, VARCHAR, TEXT, JSON, ENUM, SET, LARGEINT, ...
}

func isInfOrNaN(f float64) bool {
	return f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308
}

// appendString appends s as a JSON string, byte for byte what
// encoding/json writes, without allocating (schema.AppendString).
func appendString[S ~string | ~[]byte](dst []byte, s S) []byte { return schema.AppendString(dst, s) }

// appendBase64 appends the standard base64 of v as a JSON string.
func appendBase64(dst []byte, v []byte) []byte {
	dst = append(dst, '"')
	dst = base64.StdEncoding.AppendEncode(dst, v)
	return append(dst, '"')
}

// plainDateTime reports whether v holds only the characters of a datetime
// (digits, '-', ':', '.', ' '), which need no JSON escaping.
func plainDateTime(v []byte) bool {
	for _, c := range v {
		if (c < '0' || c > '9') && c != '-' && c != ':' && c != '.' && c != ' ' {
			return false
		}
	}
	return true
}
