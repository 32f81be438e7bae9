package semanticprovider

import (
	"strings"
	"unicode"
)

// Relation names as dbt's adapters write them. dbt renders a relation
// (node_relation.relation_name, a legacy time spine's location) with the
// adapter's quote character and include policy:
//
//   - dbt-doris: `schema`.`table`, no database part (its schema is the
//     Doris database);
//   - BigQuery: `project`.`dataset`.`table` (and, hand-written,
//     `project.dataset.table` in one pair of backquotes);
//   - Postgres, Redshift, Snowflake, DuckDB, Trino, Vertica: "db"."schema"."table",
//     or unquoted db.schema.table;
//   - SQL Server and Fabric: [db].[schema].[table] is accepted too.
//
// Inside backquotes a backquote is doubled, inside double quotes a double
// quote, inside brackets a "]". The name is mapped as dbt-doris maps it:
// the last part is the table, the one before it the Doris database, and a
// leading database part (another adapter's database or project, or
// dbt-doris's own, which must equal the schema) is not part of a Doris
// name. Every part is validated and re-quoted with backquotes when the SQL
// is written.

// relation is a table as the compiler writes it: db is "" for a one-part
// name (Doris resolves it in the session's database).
type relation struct {
	db, table string
}

// maxRelationParts is the most parts a relation name may have.
const maxRelationParts = 3

// parseRelationName splits s into its unquoted parts, or returns why it
// cannot.
func parseRelationName(s string) ([]string, string) {
	if s == "" {
		return nil, "empty relation name"
	}
	if len(s) > 1024 {
		return nil, "relation name longer than 1024 bytes"
	}
	var parts []string
	quotedOne := false
	i := 0
	for {
		if i >= len(s) {
			return nil, "relation name ends with a dot"
		}
		var part string
		switch c := s[i]; c {
		case '`', '"', '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], closer)
				if k < 0 {
					return nil, "unclosed quote in relation name"
				}
				b.WriteString(s[j : j+k])
				j += k + 1
				if j < len(s) && s[j] == closer { // a doubled quote stands for one
					b.WriteByte(closer)
					j++
					continue
				}
				break
			}
			part, i = b.String(), j
			quotedOne = c == '`'
		default:
			j := i
			for j < len(s) && s[j] != '.' {
				j++
			}
			part, i = s[i:j], j
			if !validUnquoted(part) {
				return nil, "relation name part " + part + " is neither quoted nor a plain identifier"
			}
			quotedOne = false
		}
		parts = append(parts, part)
		if len(parts) > maxRelationParts {
			return nil, "relation name has more than three parts"
		}
		if i == len(s) {
			break
		}
		if s[i] != '.' {
			return nil, "unexpected text after a quoted part of the relation name"
		}
		i++
	}
	// BigQuery also accepts a whole path in one pair of backquotes.
	if len(parts) == 1 && quotedOne && strings.Contains(parts[0], ".") {
		parts = strings.Split(parts[0], ".")
		if len(parts) > maxRelationParts {
			return nil, "relation name has more than three parts"
		}
	}
	for _, p := range parts {
		if !validRelationPart(p) {
			return nil, "relation name part " + p + " is not a valid Doris name"
		}
	}
	return parts, ""
}

// validUnquoted accepts an unquoted identifier part: letters, digits, "_",
// "$" and "-" (BigQuery project ids).
func validUnquoted(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '_' && r != '$' && r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// validRelationPart accepts a Doris database or table name: non-empty, at
// most 256 bytes, no backquote, dot, NUL or control character, not only
// spaces.
func validRelationPart(s string) bool {
	if s == "" || len(s) > 256 || strings.TrimSpace(s) == "" {
		return false
	}
	for _, r := range s {
		if r == '`' || r == '.' || r < 0x20 || r == 0x7f || r == unicode.ReplacementChar {
			return false
		}
	}
	return true
}

// mapRelation maps parsed parts to a Doris relation, as dbt-doris does.
func mapRelation(parts []string) relation {
	switch len(parts) {
	case 1:
		return relation{table: parts[0]}
	default:
		return relation{db: parts[len(parts)-2], table: parts[len(parts)-1]}
	}
}

// nodeRelation maps a semantic model's or time spine's node_relation:
// relation_name when dbt wrote one (MetricFlow reads that), else
// schema_name and alias. path is the JSON path of the node_relation.
func nodeRelation(nr *NodeRelation, path string) (relation, *Error) {
	if nr == nil {
		return relation{}, fail(ReasonRelationInvalid, path+": missing")
	}
	if nr.RelationName != nil && *nr.RelationName != "" {
		parts, msg := parseRelationName(*nr.RelationName)
		if msg != "" {
			return relation{}, fail(ReasonRelationInvalid, path+".relation_name: "+msg+": "+quoteValue(*nr.RelationName))
		}
		return mapRelation(parts), nil
	}
	if !validRelationPart(nr.SchemaName) {
		return relation{}, fail(ReasonRelationInvalid, path+".schema_name is not a valid Doris database name: "+quoteValue(nr.SchemaName))
	}
	if !validRelationPart(nr.Alias) {
		return relation{}, fail(ReasonRelationInvalid, path+".alias is not a valid Doris table name: "+quoteValue(nr.Alias))
	}
	return relation{db: nr.SchemaName, table: nr.Alias}, nil
}

// sql writes the relation backquoted.
func (r relation) sql() string {
	if r.db == "" {
		return quote(r.table)
	}
	return quote(r.db) + "." + quote(r.table)
}

// quoteValue renders a manifest value for a message: quoted, at most 200
// bytes, control characters escaped.
func quoteValue(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteString("\\x")
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
