package governance

import (
	"context"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/sqlref"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// AnalyzeTableStorage runs doris_governance analyze_table_storage.
func AnalyzeTableStorage(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Database          string `json:"database"`
		Table             string `json:"table"`
		IncludePartitions bool   `json:"include_partitions"`
		IncludeIndexes    bool   `json:"include_indexes"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckIdents(governancePrefix, doris.Arg("database", a.Database), doris.Arg("table", a.Table)); e != nil {
		return nil, e
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	q, err := doris.Bind("SELECT TABLE_TYPE, ENGINE, TABLE_ROWS, AVG_ROW_LENGTH, DATA_LENGTH, INDEX_LENGTH, CREATE_TIME, UPDATE_TIME "+
		"FROM information_schema.tables WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(t)s", map[string]any{"db": a.Database, "t": a.Table})
	if err != nil {
		return nil, err
	}
	info, err := r.Text(ctx, rt, q, 1, governancePrefix)
	if err != nil {
		return nil, governanceError(err, ctx)
	}
	if len(info.Rows) == 0 {
		return nil, notFound("TABLE_NOT_FOUND", "the table", a.Database+"."+a.Table)
	}
	ir := info.Rows[0]
	table := doris.Qualified("internal", a.Database, a.Table)
	read := func(sql string, maxRows int) func(context.Context) (doris.Section, error) {
		return func(ctx context.Context) (doris.Section, error) {
			t, err := r.Text(ctx, rt, sql, maxRows, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			return doris.Section{Status: "success", Data: t}, nil
		}
	}
	steps := []doris.Step{
		{Name: "table_stats", Run: read("SHOW TABLE STATS "+table, 2)},
		{Name: "create_table", Run: read("SHOW CREATE TABLE "+table, 1)},
	}
	if a.IncludePartitions {
		steps = append(steps, doris.Step{Name: "partitions", Run: read("SHOW PARTITIONS FROM "+table+" LIMIT "+strconv.Itoa(maxPartitions+1), maxPartitions)})
	}
	if a.IncludeIndexes {
		steps = append(steps, doris.Step{Name: "indexes", Run: read("SHOW INDEX FROM "+table, maxIndexes)})
	}
	plan, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	sources := map[string]string{"table_stats": "SHOW TABLE STATS", "create_table": "SHOW CREATE TABLE",
		"partitions": "SHOW PARTITIONS", "indexes": "SHOW INDEX"}
	evidence := []map[string]any{evidenceItem("information_schema.tables", 1, nil)}
	var warnings []string
	status := "success"
	rows := func(name string) *doris.TextRows {
		sec := plan.Sections[name]
		ev := map[string]any{"source": sources[name], "success": sec.Status == "success"}
		if sec.Status != "success" {
			ev["reason_code"] = sec.ReasonCode
			status = "partial"
			warnings = append(warnings, sources[name]+" could not be read ("+sec.ReasonCode+").")
			evidence = append(evidence, ev)
			return nil
		}
		t := sec.Data.(*doris.TextRows)
		ev["rows_observed"] = len(t.Rows)
		evidence = append(evidence, ev)
		return t
	}
	data := map[string]any{"database": a.Database, "table": a.Table, "table_type": doris.Nullable(info, ir, "TABLE_TYPE"),
		"engine": doris.Nullable(info, ir, "ENGINE"), "row_count": doris.AtoiOrNil(info.Get(ir, "TABLE_ROWS")),
		"data_bytes": doris.AtoiOrNil(info.Get(ir, "DATA_LENGTH")), "index_bytes": doris.AtoiOrNil(info.Get(ir, "INDEX_LENGTH")),
		"avg_row_bytes": doris.AtoiOrNil(info.Get(ir, "AVG_ROW_LENGTH")), "created_at": doris.Nullable(info, ir, "CREATE_TIME"),
		"updated_at": doris.Nullable(info, ir, "UPDATE_TIME"), "key_model": nil, "distribution": nil, "replication": nil,
		"compression": nil, "storage_format": nil, "properties": map[string]any{}, "partitions": nil, "indexes": nil}
	if t := rows("table_stats"); t != nil && len(t.Rows) > 0 {
		row := t.Rows[0]
		if n := doris.AtoiOrNil(t.Get(row, "row_count")); n != nil {
			data["row_count"] = n
		}
		data["statistics"] = map[string]any{"row_count": doris.AtoiOrNil(t.Get(row, "row_count")),
			"updated_rows": doris.AtoiOrNil(t.Get(row, "updated_rows")), "query_times": doris.AtoiOrNil(t.Get(row, "query_times")),
			"updated_time": doris.StrOrNil(t.Get(row, "updated_time"), t.Get(row, "updated_time") != ""),
			"trigger":      doris.StrOrNil(t.Get(row, "trigger"), t.Get(row, "trigger") != ""),
			"auto_analyze": doris.Boolish(t.Get(row, "enable_auto_analyze"))}
	}
	if t := rows("create_table"); t != nil && len(t.Rows) > 0 {
		ddl := doris.ParseCreateTable(t.Get(t.Rows[0], "Create Table"))
		data["properties"] = ddl.Properties
		data["properties_withheld"] = ddl.Withheld
		if ddl.Withheld > 0 {
			warnings = append(warnings, doris.Plural(ddl.Withheld, "table property was", "table properties were")+
				" withheld: only storage settings on the server's allowlist are shown.")
		}
		if ddl.KeyModel != "" {
			data["key_model"] = strings.ToLower(ddl.KeyModel) + "_key"
			data["key_columns"] = ddl.KeyColumns
		}
		if ddl.Distribution != "" {
			data["distribution"] = ddl.Distribution
		}
		if ddl.Partitioning != "" {
			data["partitioning"] = ddl.Partitioning
		}
		if v, ok := ddl.Properties["replication_allocation"]; ok {
			data["replication"] = v
		} else if v, ok := ddl.Properties["replication_num"]; ok {
			data["replication"] = doris.AtoiOrNil(v.(string))
		}
		if v, ok := ddl.Properties["compression"]; ok {
			data["compression"] = v
		}
		if v, ok := ddl.Properties["storage_format"]; ok {
			data["storage_format"] = v
		}
		if c.Variant == "storage_v3_variant" {
			variant := map[string]any{}
			for k, v := range ddl.Properties {
				if strings.HasPrefix(k, "variant_") || strings.HasPrefix(k, "enable_variant") {
					variant[k] = v
				}
			}
			data["variant_storage"] = variant
			data["storage_format_v3"] = strings.EqualFold(strOr(ddl.Properties["storage_format"]), "V3")
		}
	}
	truncated := false
	if a.IncludePartitions {
		if t := rows("partitions"); t != nil {
			items := make([]map[string]any, 0, len(t.Rows))
			for _, row := range t.Rows {
				items = append(items, map[string]any{"name": doris.Nullable(t, row, "PartitionName"), "id": doris.Nullable(t, row, "PartitionId"),
					"state": doris.Nullable(t, row, "State"), "visible_version": doris.AtoiOrNil(t.Get(row, "VisibleVersion")),
					"visible_version_time": doris.Nullable(t, row, "VisibleVersionTime"), "partition_key": doris.Nullable(t, row, "PartitionKey"),
					"distribution_key": doris.Nullable(t, row, "DistributionKey"), "buckets": doris.AtoiOrNil(t.Get(row, "Buckets")),
					"replication_num": doris.AtoiOrNil(t.Get(row, "ReplicationNum")), "storage_medium": doris.Nullable(t, row, "StorageMedium"),
					"data_size": doris.Nullable(t, row, "DataSize"), "row_count": doris.AtoiOrNil(t.Get(row, "RowCount"))})
			}
			data["partitions"] = items
			if t.Truncated {
				truncated = true
				warnings = append(warnings, "More than 1000 partitions: the first 1000 are listed.")
			}
		}
	}
	if a.IncludeIndexes {
		if t := rows("indexes"); t != nil {
			items := make([]map[string]any, 0, len(t.Rows))
			for _, row := range t.Rows {
				items = append(items, map[string]any{"name": doris.Nullable(t, row, "Key_name"), "column": doris.Nullable(t, row, "Column_name"),
					"type": doris.Nullable(t, row, "Index_type"), "properties": indexProperties(t.Get(row, "Properties"))})
			}
			data["indexes"] = items
			if t.Truncated {
				truncated = true
				warnings = append(warnings, "More than 512 indexes: the first 512 are listed.")
			}
		}
	}
	data["truncated"] = truncated
	return &doris.Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence, Truncated: truncated}, nil
}

func strOr(v any) string {
	s, _ := v.(string)
	return s
}

// indexPropertyAllowlist are inverted-index settings (SHOW INDEX
// Properties) that describe analysis, never data or credentials.
var indexPropertyAllowlist = map[string]bool{"parser": true, "parser_mode": true, "lower_case": true, "support_phrase": true,
	"char_filter_type": true, "ignore_above": true, "stopwords": true, "dict_compression": true, "gram_size": true, "bf_size": true}

// indexProperties reads ("k" = "v", ...) keeping allowlisted plain values.
func indexProperties(s string) map[string]any {
	out := map[string]any{}
	toks, _ := sqlref.Significant(s)
	for i := 0; i+2 < len(toks); i++ {
		k, eq, v := toks[i], toks[i+1], toks[i+2]
		if k.Kind != guard.TokString || eq.Text != "=" || v.Kind != guard.TokString {
			continue
		}
		key := strings.ToLower(doris.KeyText(k))
		if indexPropertyAllowlist[key] && doris.PlainValue(doris.KeyText(v)) {
			out[key] = doris.KeyText(v)
		}
		i += 2
	}
	return out
}
