package doris

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
)

// section is one part of a composite result.
type section struct {
	Status     string   `json:"status"` // success | partial | unavailable
	Data       any      `json:"data,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Source     string   `json:"source,omitempty"`
	ReasonCode string   `json:"reason_code,omitempty"`
}

func unavailable(err error) section {
	reason := "SECTION_UNAVAILABLE"
	var de *Error
	if errors.As(err, &de) {
		reason = de.Reason
	}
	return section{Status: "unavailable", ReasonCode: reason}
}

type tableArgs struct {
	Database string `json:"database"`
	Table    string `json:"table"`
	Catalog  string `json:"catalog"`
}

func (a *tableArgs) check() error {
	if e := checkIdents(catalogPrefix, identArg{"database", a.Database}, identArg{"table", a.Table}); e != nil {
		return e
	}
	if e := checkOptionalIdents(catalogPrefix, identArg{"catalog", a.Catalog}); e != nil {
		return e
	}
	return nil
}

// infoSchema is the information_schema of the call's catalog.
func (a *tableArgs) infoSchema(table string) string {
	if a.Catalog == "" || a.Catalog == "internal" {
		return "information_schema." + table
	}
	return quoteIdent(a.Catalog) + ".information_schema." + table
}

func (r *Runtime) getTableContext(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		tableArgs
		Sections []string `json:"sections"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	want := a.Sections
	if len(want) == 0 {
		want = []string{"schema", "comments", "indexes", "basic"}
	}
	fq := qualified(a.Catalog, a.Database, a.Table)
	cols, err := r.text(ctx, rt, "SHOW FULL COLUMNS FROM "+fq, 4096, catalogPrefix)
	if err != nil {
		return nil, err // the schema is required: no schema, no context
	}
	var schema []map[string]any
	for _, row := range cols.rows {
		schema = append(schema, map[string]any{
			"name": cols.get(row, "Field"), "type": cols.get(row, "Type"),
			"nullable": strings.EqualFold(cols.get(row, "Null"), "YES"),
			"key":      strings.EqualFold(cols.get(row, "Key"), "YES") || strings.EqualFold(cols.get(row, "Key"), "PRI"),
			"default":  nullable(cols, row, "Default"), "extra": cols.get(row, "Extra"),
			"comment": cols.get(row, "Comment"),
		})
	}
	data := map[string]section{"schema": {Status: "success", Data: map[string]any{"columns": schema}, Source: "SHOW FULL COLUMNS"}}
	evidence := []map[string]any{{"section": "schema", "source": "SHOW FULL COLUMNS"}}
	status := "success"
	var warnings []string
	params := map[string]any{"db": a.Database, "tbl": a.Table}
	if slices.Contains(want, "comments") {
		s := r.tableComments(ctx, rt, &a.tableArgs, params)
		data["comments"] = s
		evidence = append(evidence, map[string]any{"section": "comments", "source": s.Source, "status": s.Status})
	}
	if slices.Contains(want, "indexes") {
		s := section{Status: "success", Source: "SHOW INDEX"}
		if t, err := r.text(ctx, rt, "SHOW INDEX FROM "+fq, 512, catalogPrefix); err != nil {
			s = unavailable(err)
		} else {
			var idx []map[string]any
			for _, row := range t.rows {
				idx = append(idx, map[string]any{
					"name": t.get(row, "Key_name"), "column": t.get(row, "Column_name"),
					"index_type": t.get(row, "Index_type"), "properties": nullable(t, row, "Properties"),
					"comment": t.get(row, "Comment"),
				})
			}
			s.Data = map[string]any{"indexes": orEmpty(idx)}
		}
		data["indexes"] = s
		evidence = append(evidence, map[string]any{"section": "indexes", "source": "SHOW INDEX", "status": s.Status})
	}
	if slices.Contains(want, "basic") {
		s := section{Status: "success", Source: "information_schema.tables"}
		q, err := bind("SELECT TABLE_TYPE, ENGINE, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, CREATE_TIME, UPDATE_TIME, TABLE_COMMENT FROM "+
			a.infoSchema("tables")+" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s", params)
		var t *textRows
		if err == nil {
			t, err = r.text(ctx, rt, q, 1, catalogPrefix)
		}
		switch {
		case err != nil:
			s = unavailable(err)
		case len(t.rows) == 0:
			s = section{Status: "unavailable", ReasonCode: "CATALOG_BASIC_INFO_NOT_FOUND"}
		default:
			row := t.rows[0]
			s.Data = map[string]any{
				"table_type": t.get(row, "TABLE_TYPE"), "engine": nullable(t, row, "ENGINE"),
				"row_count": atoiOrNil(t.get(row, "TABLE_ROWS")), "data_bytes": atoiOrNil(t.get(row, "DATA_LENGTH")),
				"index_bytes": atoiOrNil(t.get(row, "INDEX_LENGTH")), "created_at": nullable(t, row, "CREATE_TIME"),
				"updated_at": nullable(t, row, "UPDATE_TIME"),
			}
		}
		data["basic"] = s
		evidence = append(evidence, map[string]any{"section": "basic", "source": "information_schema.tables", "status": s.Status})
	}
	for name, s := range data {
		if s.Status != "success" {
			status = "partial"
			warnings = append(warnings, "The "+name+" section is unavailable ("+s.ReasonCode+").")
		}
	}
	slices.Sort(warnings)
	return &Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence}, nil
}

// tableComments reads the table comment and the column comments.
func (r *Runtime) tableComments(ctx context.Context, rt *route, a *tableArgs, params map[string]any) section {
	s := section{Status: "success", Source: "information_schema.tables, information_schema.columns"}
	q, err := bind("SELECT TABLE_COMMENT FROM "+a.infoSchema("tables")+" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s", params)
	if err != nil {
		return unavailable(err)
	}
	t, err := r.text(ctx, rt, q, 1, catalogPrefix)
	if err != nil {
		return unavailable(err)
	}
	var tableComment any
	if len(t.rows) > 0 {
		tableComment = nullable(t, t.rows[0], "TABLE_COMMENT")
	}
	q, err = bind("SELECT COLUMN_NAME, COLUMN_COMMENT FROM "+a.infoSchema("columns")+
		" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s ORDER BY ORDINAL_POSITION", params)
	if err != nil {
		return unavailable(err)
	}
	cols, err := r.text(ctx, rt, q, 4096, catalogPrefix)
	columns := map[string]any{}
	if err != nil {
		s.Status = "partial"
		s.Warnings = append(s.Warnings, "Column comments could not be read.")
	} else {
		for _, row := range cols.rows {
			columns[cols.get(row, "COLUMN_NAME")] = nullable(cols, row, "COLUMN_COMMENT")
		}
	}
	s.Data = map[string]any{"table": tableComment, "columns": columns}
	return s
}

func (r *Runtime) getTableSize(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		tableArgs
		IncludePartitions bool `json:"include_partitions"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"db": a.Database, "tbl": a.Table}
	q, err := bind("SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM "+a.infoSchema("tables")+
		" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s", params)
	if err != nil {
		return nil, err
	}
	t, err := r.text(ctx, rt, q, 1, catalogPrefix)
	if err != nil {
		return nil, err
	}
	if len(t.rows) == 0 {
		return nil, &Error{Kind: KindFailed, Reason: "CATALOG_OBJECT_NOT_FOUND", Status: 404,
			Message: "the table does not exist or is not visible to this account"}
	}
	row := t.rows[0]
	data := map[string]any{
		"catalog": strOrNil(a.Catalog, a.Catalog != ""), "database": a.Database, "table": a.Table,
		"row_count":   atoiOrNil(t.get(row, "TABLE_ROWS")),
		"data_bytes":  atoiOrNil(t.get(row, "DATA_LENGTH")),
		"index_bytes": atoiOrNil(t.get(row, "INDEX_LENGTH")),
		"total_bytes": sumOrNil(atoiOrNil(t.get(row, "DATA_LENGTH")), atoiOrNil(t.get(row, "INDEX_LENGTH"))),
	}
	res := &Result{Status: "success", Data: data}
	if a.IncludePartitions {
		q, err := bind("SELECT PARTITION_NAME, PARTITION_ORDINAL_POSITION, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM "+
			a.infoSchema("partitions")+" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s ORDER BY PARTITION_ORDINAL_POSITION", params)
		var p *textRows
		if err == nil {
			p, err = r.text(ctx, rt, q, 1000, catalogPrefix)
		}
		if err != nil {
			res.Status = "partial"
			res.Warnings = append(res.Warnings, "Partition statistics could not be read; table totals only.")
		} else {
			parts := []map[string]any{}
			for _, row := range p.rows {
				name := p.get(row, "PARTITION_NAME")
				if name == "" {
					continue // MySQL-style servers list unpartitioned tables with a NULL partition
				}
				parts = append(parts, map[string]any{
					"name": name, "ordinal_position": atoiOrNil(p.get(row, "PARTITION_ORDINAL_POSITION")),
					"row_count": atoiOrNil(p.get(row, "TABLE_ROWS")), "data_bytes": atoiOrNil(p.get(row, "DATA_LENGTH")),
					"index_bytes": atoiOrNil(p.get(row, "INDEX_LENGTH")),
				})
			}
			data["partitions"] = parts
			if p.truncated {
				res.Status, res.Truncated = "partial", true
				res.Warnings = append(res.Warnings, "Only the first 1000 partitions are listed.")
			}
		}
	}
	return res, nil
}

func sumOrNil(a, b any) any {
	x, ok1 := a.(int64)
	y, ok2 := b.(int64)
	if !ok1 || !ok2 {
		return nil
	}
	return x + y
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type sqlNullString = sql.NullString
