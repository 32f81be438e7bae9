package doris

import (
	"context"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

func (r *Runtime) analyzeTableStorage(ctx context.Context, c *Call) (*Result, error) {
	var a struct {
		Database          string `json:"database"`
		Table             string `json:"table"`
		IncludePartitions bool   `json:"include_partitions"`
		IncludeIndexes    bool   `json:"include_indexes"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := checkIdents(governancePrefix, identArg{"database", a.Database}, identArg{"table", a.Table}); e != nil {
		return nil, e
	}
	rt, err := r.route(c.Identity)
	if err != nil {
		return nil, err
	}
	q, err := bind("SELECT TABLE_TYPE, ENGINE, TABLE_ROWS, AVG_ROW_LENGTH, DATA_LENGTH, INDEX_LENGTH, CREATE_TIME, UPDATE_TIME "+
		"FROM information_schema.tables WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(t)s", map[string]any{"db": a.Database, "t": a.Table})
	if err != nil {
		return nil, err
	}
	info, err := r.text(ctx, rt, q, 1, governancePrefix)
	if err != nil {
		return nil, governanceError(err, ctx)
	}
	if len(info.rows) == 0 {
		return nil, notFound("TABLE_NOT_FOUND", "the table", a.Database+"."+a.Table)
	}
	ir := info.rows[0]
	table := qualified("internal", a.Database, a.Table)
	read := func(sql string, maxRows int) func(context.Context) (section, error) {
		return func(ctx context.Context) (section, error) {
			t, err := r.text(ctx, rt, sql, maxRows, governancePrefix)
			if err != nil {
				return section{}, governanceError(err, ctx)
			}
			return section{Status: "success", Data: t}, nil
		}
	}
	steps := []step{
		{Name: "table_stats", Run: read("SHOW TABLE STATS "+table, 2)},
		{Name: "create_table", Run: read("SHOW CREATE TABLE "+table, 1)},
	}
	if a.IncludePartitions {
		steps = append(steps, step{Name: "partitions", Run: read("SHOW PARTITIONS FROM "+table+" LIMIT "+strconv.Itoa(maxPartitions+1), maxPartitions)})
	}
	if a.IncludeIndexes {
		steps = append(steps, step{Name: "indexes", Run: read("SHOW INDEX FROM "+table, maxIndexes)})
	}
	plan, err := r.runPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	sources := map[string]string{"table_stats": "SHOW TABLE STATS", "create_table": "SHOW CREATE TABLE",
		"partitions": "SHOW PARTITIONS", "indexes": "SHOW INDEX"}
	evidence := []map[string]any{evidenceItem("information_schema.tables", 1, nil)}
	var warnings []string
	status := "success"
	rows := func(name string) *textRows {
		sec := plan.Sections[name]
		ev := map[string]any{"source": sources[name], "success": sec.Status == "success"}
		if sec.Status != "success" {
			ev["reason_code"] = sec.ReasonCode
			status = "partial"
			warnings = append(warnings, sources[name]+" could not be read ("+sec.ReasonCode+").")
			evidence = append(evidence, ev)
			return nil
		}
		t := sec.Data.(*textRows)
		ev["rows_observed"] = len(t.rows)
		evidence = append(evidence, ev)
		return t
	}
	data := map[string]any{"database": a.Database, "table": a.Table, "table_type": nullable(info, ir, "TABLE_TYPE"),
		"engine": nullable(info, ir, "ENGINE"), "row_count": atoiOrNil(info.get(ir, "TABLE_ROWS")),
		"data_bytes": atoiOrNil(info.get(ir, "DATA_LENGTH")), "index_bytes": atoiOrNil(info.get(ir, "INDEX_LENGTH")),
		"avg_row_bytes": atoiOrNil(info.get(ir, "AVG_ROW_LENGTH")), "created_at": nullable(info, ir, "CREATE_TIME"),
		"updated_at": nullable(info, ir, "UPDATE_TIME"), "key_model": nil, "distribution": nil, "replication": nil,
		"compression": nil, "storage_format": nil, "properties": map[string]any{}, "partitions": nil, "indexes": nil}
	if t := rows("table_stats"); t != nil && len(t.rows) > 0 {
		row := t.rows[0]
		if n := atoiOrNil(t.get(row, "row_count")); n != nil {
			data["row_count"] = n
		}
		data["statistics"] = map[string]any{"row_count": atoiOrNil(t.get(row, "row_count")),
			"updated_rows": atoiOrNil(t.get(row, "updated_rows")), "query_times": atoiOrNil(t.get(row, "query_times")),
			"updated_time": strOrNil(t.get(row, "updated_time"), t.get(row, "updated_time") != ""),
			"trigger":      strOrNil(t.get(row, "trigger"), t.get(row, "trigger") != ""),
			"auto_analyze": boolish(t.get(row, "enable_auto_analyze"))}
	}
	if t := rows("create_table"); t != nil && len(t.rows) > 0 {
		ddl := parseCreateTable(t.get(t.rows[0], "Create Table"))
		data["properties"] = ddl.properties
		data["properties_withheld"] = ddl.withheld
		if ddl.withheld > 0 {
			warnings = append(warnings, plural(ddl.withheld, "table property was", "table properties were")+
				" withheld: only storage settings on the server's allowlist are shown.")
		}
		if ddl.keyModel != "" {
			data["key_model"] = strings.ToLower(ddl.keyModel) + "_key"
			data["key_columns"] = ddl.keyColumns
		}
		if ddl.distribution != "" {
			data["distribution"] = ddl.distribution
		}
		if ddl.partitioning != "" {
			data["partitioning"] = ddl.partitioning
		}
		if v, ok := ddl.properties["replication_allocation"]; ok {
			data["replication"] = v
		} else if v, ok := ddl.properties["replication_num"]; ok {
			data["replication"] = atoiOrNil(v.(string))
		}
		if v, ok := ddl.properties["compression"]; ok {
			data["compression"] = v
		}
		if v, ok := ddl.properties["storage_format"]; ok {
			data["storage_format"] = v
		}
		if c.Variant == "storage_v3_variant" {
			variant := map[string]any{}
			for k, v := range ddl.properties {
				if strings.HasPrefix(k, "variant_") || strings.HasPrefix(k, "enable_variant") {
					variant[k] = v
				}
			}
			data["variant_storage"] = variant
			data["storage_format_v3"] = strings.EqualFold(strOr(ddl.properties["storage_format"]), "V3")
		}
	}
	truncated := false
	if a.IncludePartitions {
		if t := rows("partitions"); t != nil {
			items := make([]map[string]any, 0, len(t.rows))
			for _, row := range t.rows {
				items = append(items, map[string]any{"name": nullable(t, row, "PartitionName"), "id": nullable(t, row, "PartitionId"),
					"state": nullable(t, row, "State"), "visible_version": atoiOrNil(t.get(row, "VisibleVersion")),
					"visible_version_time": nullable(t, row, "VisibleVersionTime"), "partition_key": nullable(t, row, "PartitionKey"),
					"distribution_key": nullable(t, row, "DistributionKey"), "buckets": atoiOrNil(t.get(row, "Buckets")),
					"replication_num": atoiOrNil(t.get(row, "ReplicationNum")), "storage_medium": nullable(t, row, "StorageMedium"),
					"data_size": nullable(t, row, "DataSize"), "row_count": atoiOrNil(t.get(row, "RowCount"))})
			}
			data["partitions"] = items
			if t.truncated {
				truncated = true
				warnings = append(warnings, "More than 1000 partitions: the first 1000 are listed.")
			}
		}
	}
	if a.IncludeIndexes {
		if t := rows("indexes"); t != nil {
			items := make([]map[string]any, 0, len(t.rows))
			for _, row := range t.rows {
				items = append(items, map[string]any{"name": nullable(t, row, "Key_name"), "column": nullable(t, row, "Column_name"),
					"type": nullable(t, row, "Index_type"), "properties": indexProperties(t.get(row, "Properties"))})
			}
			data["indexes"] = items
			if t.truncated {
				truncated = true
				warnings = append(warnings, "More than 512 indexes: the first 512 are listed.")
			}
		}
	}
	data["truncated"] = truncated
	return &Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence, Truncated: truncated}, nil
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
	toks, _ := significant(s)
	for i := 0; i+2 < len(toks); i++ {
		k, eq, v := toks[i], toks[i+1], toks[i+2]
		if k.Kind != guard.TokString || eq.Text != "=" || v.Kind != guard.TokString {
			continue
		}
		key := strings.ToLower(keyText(k))
		if indexPropertyAllowlist[key] && plainValue(keyText(v)) {
			out[key] = keyText(v)
		}
		i += 2
	}
	return out
}
