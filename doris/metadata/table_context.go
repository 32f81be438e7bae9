package metadata

import (
	"context"
	"slices"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

type tableArgs struct {
	Database string `json:"database"`
	Table    string `json:"table"`
	Catalog  string `json:"catalog"`
}

func (a *tableArgs) check() error {
	if e := doris.CheckIdents(doris.CatalogPrefix, doris.Arg("database", a.Database), doris.Arg("table", a.Table)); e != nil {
		return e
	}
	if e := doris.CheckOptionalIdents(doris.CatalogPrefix, doris.Arg("catalog", a.Catalog)); e != nil {
		return e
	}
	return nil
}

// infoSchema is the information_schema of the call's catalog.
func (a *tableArgs) infoSchema(table string) string {
	if a.Catalog == "" || a.Catalog == "internal" {
		return "information_schema." + table
	}
	return doris.QuoteIdent(a.Catalog) + ".information_schema." + table
}

// GetTableContext runs doris_catalog get_table_context.
func GetTableContext(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		tableArgs
		Sections []string `json:"sections"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	want := a.Sections
	if len(want) == 0 {
		want = []string{"schema", "comments", "indexes", "basic"}
	}
	fq := doris.Qualified(a.Catalog, a.Database, a.Table)
	cols, err := r.Text(ctx, rt, "SHOW FULL COLUMNS FROM "+fq, 4096, doris.CatalogPrefix)
	if err != nil {
		return nil, err // the schema is required: no schema, no context
	}
	var schema []map[string]any
	for _, row := range cols.Rows {
		schema = append(schema, map[string]any{
			"name": cols.Get(row, "Field"), "type": cols.Get(row, "Type"),
			"nullable": strings.EqualFold(cols.Get(row, "Null"), "YES"),
			"key":      strings.EqualFold(cols.Get(row, "Key"), "YES") || strings.EqualFold(cols.Get(row, "Key"), "PRI"),
			"default":  doris.Nullable(cols, row, "Default"), "extra": cols.Get(row, "Extra"),
			"comment": cols.Get(row, "Comment"),
		})
	}
	data := map[string]doris.Section{"schema": {Status: "success", Data: map[string]any{"columns": schema}, Source: "SHOW FULL COLUMNS"}}
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
		s := doris.Section{Status: "success", Source: "SHOW INDEX"}
		if t, err := r.Text(ctx, rt, "SHOW INDEX FROM "+fq, 512, doris.CatalogPrefix); err != nil {
			s = doris.Unavailable(err)
		} else {
			var idx []map[string]any
			for _, row := range t.Rows {
				idx = append(idx, map[string]any{
					"name": t.Get(row, "Key_name"), "column": t.Get(row, "Column_name"),
					"index_type": t.Get(row, "Index_type"), "properties": doris.Nullable(t, row, "Properties"),
					"comment": t.Get(row, "Comment"),
				})
			}
			s.Data = map[string]any{"indexes": doris.OrEmpty(idx)}
		}
		data["indexes"] = s
		evidence = append(evidence, map[string]any{"section": "indexes", "source": "SHOW INDEX", "status": s.Status})
	}
	if slices.Contains(want, "basic") {
		s := doris.Section{Status: "success", Source: "information_schema.tables"}
		q, err := doris.Bind("SELECT TABLE_TYPE, ENGINE, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH, CREATE_TIME, UPDATE_TIME, TABLE_COMMENT FROM "+
			a.infoSchema("tables")+" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s", params)
		var t *doris.TextRows
		if err == nil {
			t, err = r.Text(ctx, rt, q, 1, doris.CatalogPrefix)
		}
		switch {
		case err != nil:
			s = doris.Unavailable(err)
		case len(t.Rows) == 0:
			s = doris.Section{Status: "unavailable", ReasonCode: "CATALOG_BASIC_INFO_NOT_FOUND"}
		default:
			row := t.Rows[0]
			s.Data = map[string]any{
				"table_type": t.Get(row, "TABLE_TYPE"), "engine": doris.Nullable(t, row, "ENGINE"),
				"row_count": doris.AtoiOrNil(t.Get(row, "TABLE_ROWS")), "data_bytes": doris.AtoiOrNil(t.Get(row, "DATA_LENGTH")),
				"index_bytes": doris.AtoiOrNil(t.Get(row, "INDEX_LENGTH")), "created_at": doris.Nullable(t, row, "CREATE_TIME"),
				"updated_at": doris.Nullable(t, row, "UPDATE_TIME"),
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
	return &doris.Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence}, nil
}

// tableComments reads the table comment and the column comments.
func (r kit) tableComments(ctx context.Context, rt *doris.Route, a *tableArgs, params map[string]any) doris.Section {
	s := doris.Section{Status: "success", Source: "information_schema.tables, information_schema.columns"}
	q, err := doris.Bind("SELECT TABLE_COMMENT FROM "+a.infoSchema("tables")+" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s", params)
	if err != nil {
		return doris.Unavailable(err)
	}
	t, err := r.Text(ctx, rt, q, 1, doris.CatalogPrefix)
	if err != nil {
		return doris.Unavailable(err)
	}
	var tableComment any
	if len(t.Rows) > 0 {
		tableComment = doris.Nullable(t, t.Rows[0], "TABLE_COMMENT")
	}
	q, err = doris.Bind("SELECT COLUMN_NAME, COLUMN_COMMENT FROM "+a.infoSchema("columns")+
		" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s ORDER BY ORDINAL_POSITION", params)
	if err != nil {
		return doris.Unavailable(err)
	}
	cols, err := r.Text(ctx, rt, q, 4096, doris.CatalogPrefix)
	columns := map[string]any{}
	if err != nil {
		s.Status = "partial"
		s.Warnings = append(s.Warnings, "Column comments could not be read.")
	} else {
		for _, row := range cols.Rows {
			columns[cols.Get(row, "COLUMN_NAME")] = doris.Nullable(cols, row, "COLUMN_COMMENT")
		}
	}
	s.Data = map[string]any{"table": tableComment, "columns": columns}
	return s
}

// GetTableSize runs doris_catalog get_table_size.
func GetTableSize(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		tableArgs
		IncludePartitions bool `json:"include_partitions"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"db": a.Database, "tbl": a.Table}
	q, err := doris.Bind("SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM "+a.infoSchema("tables")+
		" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s", params)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, 1, doris.CatalogPrefix)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) == 0 {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "CATALOG_OBJECT_NOT_FOUND", Status: 404,
			Message: "the table does not exist or is not visible to this account"}
	}
	row := t.Rows[0]
	data := map[string]any{
		"catalog": doris.StrOrNil(a.Catalog, a.Catalog != ""), "database": a.Database, "table": a.Table,
		"row_count":   doris.AtoiOrNil(t.Get(row, "TABLE_ROWS")),
		"data_bytes":  doris.AtoiOrNil(t.Get(row, "DATA_LENGTH")),
		"index_bytes": doris.AtoiOrNil(t.Get(row, "INDEX_LENGTH")),
		"total_bytes": sumOrNil(doris.AtoiOrNil(t.Get(row, "DATA_LENGTH")), doris.AtoiOrNil(t.Get(row, "INDEX_LENGTH"))),
	}
	res := &doris.Result{Status: "success", Data: data}
	if a.IncludePartitions {
		q, err := doris.Bind("SELECT PARTITION_NAME, PARTITION_ORDINAL_POSITION, TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM "+
			a.infoSchema("partitions")+" WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(tbl)s ORDER BY PARTITION_ORDINAL_POSITION", params)
		var p *doris.TextRows
		if err == nil {
			p, err = r.Text(ctx, rt, q, 1000, doris.CatalogPrefix)
		}
		if err != nil {
			res.Status = "partial"
			res.Warnings = append(res.Warnings, "Partition statistics could not be read; table totals only.")
		} else {
			parts := []map[string]any{}
			for _, row := range p.Rows {
				name := p.Get(row, "PARTITION_NAME")
				if name == "" {
					continue // MySQL-style servers list unpartitioned tables with a NULL partition
				}
				parts = append(parts, map[string]any{
					"name": name, "ordinal_position": doris.AtoiOrNil(p.Get(row, "PARTITION_ORDINAL_POSITION")),
					"row_count": doris.AtoiOrNil(p.Get(row, "TABLE_ROWS")), "data_bytes": doris.AtoiOrNil(p.Get(row, "DATA_LENGTH")),
					"index_bytes": doris.AtoiOrNil(p.Get(row, "INDEX_LENGTH")),
				})
			}
			data["partitions"] = parts
			if p.Truncated {
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
