package doris

import (
	"database/sql"
	"errors"
	"strings"
	"unicode/utf8"
)

const CatalogPrefix = "CATALOG"

// MaxCatalogRows bounds every metadata listing read from Doris.
const MaxCatalogRows = 10000

// TableType maps SHOW FULL TABLES' Table_type to the contract's names.
func TableType(s string) string {
	u := strings.ToUpper(s)
	switch {
	case strings.Contains(u, "MATERIALIZED"):
		return "materialized_view"
	case strings.Contains(u, "VIEW"):
		return "view"
	}
	return "table"
}

func Nullable(t *TextRows, row []NullString, col string) any {
	for i, c := range t.Cols {
		if strings.EqualFold(c, col) {
			if !row[i].Valid || row[i].String == "NULL" {
				return nil
			}
			return row[i].String
		}
	}
	return nil
}

// Boolish reads Doris's true/false and Yes/No cells.
func Boolish(s string) any {
	switch strings.ToLower(s) {
	case "true", "yes":
		return true
	case "false", "no":
		return false
	case "":
		return nil
	}
	return s
}

func ContainsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func CapChars(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	i, count := 0, 0
	for i = range s {
		if count == n {
			break
		}
		count++
	}
	return s[:i], true
}

// Section is one part of a composite result.
type Section struct {
	Status     string   `json:"status"` // success | partial | unavailable
	Data       any      `json:"data,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Source     string   `json:"source,omitempty"`
	ReasonCode string   `json:"reason_code,omitempty"`
}

func Unavailable(err error) Section {
	reason := "SECTION_UNAVAILABLE"
	var de *Error
	if errors.As(err, &de) {
		reason = de.Reason
	}
	return Section{Status: "unavailable", ReasonCode: reason}
}

func OrEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type NullString = sql.NullString

// RawBytes is a column value as the driver holds it, valid until the
// next row (TextInto).
type RawBytes = sql.RawBytes
