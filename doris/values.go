package doris

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
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
		return appendString(dst, string(v))
	case kindFloat:
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && !isInfOrNaN(f) {
			return strconv.AppendFloat(dst, f, 'g', -1, 64)
		}
		return appendString(dst, string(v))
	case kindDateTime:
		s := string(v)
		if len(s) >= 19 && s[10] == ' ' {
			s = s[:10] + "T" + s[11:]
		}
		return appendString(dst, s)
	case kindBinary:
		return appendString(dst, base64.StdEncoding.EncodeToString(v))
	}
	if !utf8.Valid(v) {
		// Text columns that hold bytes which are not UTF-8 travel as
		// base64 rather than being silently altered.
		return appendString(dst, base64.StdEncoding.EncodeToString(v))
	}
	return appendString(dst, string(v))
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

func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}
