package governance

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Bounds of analyze_columns and analyze_table_storage.
const (
	maxProfiledColumns = 32
	maxTableColumns    = 4096
	maxPartitions      = 1000
	maxIndexes         = 512
)

// complexTypeMarkers are Doris types whose values are not sampled: their
// counts and NDV are not meaningful or not computable.
var complexTypeMarkers = []string{"ARRAY", "MAP", "STRUCT", "JSON", "VARIANT", "HLL", "BITMAP", "QUANTILE_STATE", "AGG_STATE"}

func complexType(t string) bool {
	up := strings.ToUpper(t)
	for _, m := range complexTypeMarkers {
		if strings.HasPrefix(up, m) {
			return true
		}
	}
	return false
}

// columnMeta is one column from information_schema.columns.
type columnMeta struct {
	name, dataType, columnType string
	nullable                   bool
	def                        any
	position                   any
}

// tableColumns reads a table's columns; a table that does not exist or is
// not visible is an argument error.
func (r kit) tableColumns(ctx context.Context, rt *doris.Route, db, table string) ([]columnMeta, error) {
	q, err := doris.Bind("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, COLUMN_DEFAULT, ORDINAL_POSITION "+
		"FROM information_schema.columns WHERE TABLE_SCHEMA = %(db)s AND TABLE_NAME = %(t)s ORDER BY ORDINAL_POSITION",
		map[string]any{"db": db, "t": table})
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, maxTableColumns, governancePrefix)
	if err != nil {
		return nil, governanceError(err, ctx)
	}
	if len(t.Rows) == 0 {
		return nil, notFound("TABLE_NOT_FOUND", "the table", db+"."+table)
	}
	out := make([]columnMeta, 0, len(t.Rows))
	for _, row := range t.Rows {
		out = append(out, columnMeta{name: t.Get(row, "COLUMN_NAME"), dataType: t.Get(row, "DATA_TYPE"),
			columnType: t.Get(row, "COLUMN_TYPE"), nullable: strings.EqualFold(t.Get(row, "IS_NULLABLE"), "YES"),
			def: doris.Nullable(t, row, "COLUMN_DEFAULT"), position: doris.AtoiOrNil(t.Get(row, "ORDINAL_POSITION"))})
	}
	return out, nil
}

// AnalyzeColumns runs doris_governance analyze_columns.
func AnalyzeColumns(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Database    string   `json:"database"`
		Table       string   `json:"table"`
		Columns     []string `json:"columns"`
		SampleRatio *float64 `json:"sample_ratio"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckIdents(governancePrefix, doris.Arg("database", a.Database), doris.Arg("table", a.Table)); e != nil {
		return nil, e
	}
	for _, col := range a.Columns {
		if e := doris.CheckIdent(governancePrefix, "column", col); e != nil {
			return nil, e
		}
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	all, err := r.tableColumns(ctx, rt, a.Database, a.Table)
	if err != nil {
		return nil, err
	}
	byName := map[string]columnMeta{}
	for _, m := range all {
		byName[m.name] = m
	}
	var warnings, sampled []string
	var selected []columnMeta
	if len(a.Columns) > 0 {
		for _, n := range a.Columns {
			m, ok := byName[n]
			if !ok {
				return nil, notFound("COLUMN_NOT_FOUND", "the column", a.Database+"."+a.Table+"."+n)
			}
			selected = append(selected, m)
		}
	} else {
		selected = all
		if len(selected) > maxProfiledColumns {
			selected = selected[:maxProfiledColumns]
			warnings = append(warnings, fmt.Sprintf("The table has %d columns; the first %d were profiled. Name columns to profile others.", len(all), maxProfiledColumns))
		}
	}
	status := "success"
	table := doris.Qualified("internal", a.Database, a.Table)
	var evidence []map[string]any
	evidence = append(evidence, evidenceItem("information_schema.columns", len(all), nil))

	// Recorded statistics (ANALYZE): optional.
	stats := map[string][]doris.NullString{}
	st, serr := r.Text(ctx, rt, "SHOW COLUMN STATS "+table, maxTableColumns, governancePrefix)
	if serr != nil {
		serr = governanceError(serr, ctx)
		status = "partial"
		warnings = append(warnings, "Recorded column statistics could not be read ("+serr.(*doris.Error).Reason+").")
		evidence = append(evidence, evidenceItem("SHOW COLUMN STATS", 0, serr))
	} else {
		for _, row := range st.Rows {
			stats[st.Get(row, "column_name")] = row
		}
		evidence = append(evidence, evidenceItem("SHOW COLUMN STATS", len(st.Rows), nil))
	}

	// A sample, only when asked for.
	var sample *doris.TextRows
	var applied any
	percent := 0
	if a.SampleRatio != nil {
		ratio := math.Min(*a.SampleRatio, r.Settings().Governance.MaxSampleRatio)
		applied = ratio
		if ratio < *a.SampleRatio {
			warnings = append(warnings, fmt.Sprintf("sample_ratio %g is above the server's GOVERNANCE_MAX_SAMPLE_RATIO; %g was used.", *a.SampleRatio, ratio))
		}
		percent = int(math.Round(ratio * 100))
		if ratio > 0 && percent < 1 {
			percent = 1
		}
		proj := []string{"COUNT(*) AS `sample_rows`"}
		for _, m := range selected {
			if complexType(m.dataType) || complexType(m.columnType) {
				continue
			}
			k := len(sampled)
			proj = append(proj, fmt.Sprintf("COUNT(%s) AS `c%d_non_null`, NDV(%s) AS `c%d_ndv`", doris.QuoteIdent(m.name), k, doris.QuoteIdent(m.name), k))
			sampled = append(sampled, m.name)
		}
		switch {
		case percent == 0:
			warnings = append(warnings, "sample_ratio 0 samples nothing; no sample was read.")
		case len(sampled) == 0:
			warnings = append(warnings, "Every selected column has a complex type; none was sampled.")
		default:
			// Doris's syntax is TABLESAMPLE(n PERCENT) REPEATABLE seed
			// (DorisParser.g4); the seed makes the profile repeatable.
			q := "SELECT " + strings.Join(proj, ", ") + " FROM " + table + fmt.Sprintf(" TABLESAMPLE(%d PERCENT) REPEATABLE 1", percent)
			t, err := r.Text(ctx, rt, q, 1, governancePrefix)
			if err != nil {
				err = governanceError(err, ctx)
				status = "partial"
				warnings = append(warnings, "The sample could not be read ("+err.(*doris.Error).Reason+").")
				evidence = append(evidence, evidenceItem("TABLESAMPLE", 0, err))
			} else {
				sample = t
				ev := evidenceItem("TABLESAMPLE", len(t.Rows), nil)
				ev["percent"], ev["repeatable_seed"] = percent, 1
				evidence = append(evidence, ev)
			}
		}
	}
	var sampleRows int64 = -1
	if sample != nil && len(sample.Rows) == 1 {
		sampleRows, _ = strconv.ParseInt(sample.Get(sample.Rows[0], "sample_rows"), 10, 64)
	}

	cols := make([]map[string]any, 0, len(selected))
	for _, m := range selected {
		item := map[string]any{"name": m.name, "data_type": m.columnType, "nullable": m.nullable, "default": m.def,
			"ordinal_position": m.position, "statistics": nil, "null_ratio": nil, "distinct_estimate": nil}
		if item["data_type"] == "" {
			item["data_type"] = m.dataType
		}
		var risks []string
		if m.nullable {
			risks = append(risks, "nullable")
		}
		if complexType(m.dataType) || complexType(m.columnType) {
			risks = append(risks, "complex_type_not_sampled")
		}
		if row, ok := stats[m.name]; ok {
			s := columnStatistics(st, row)
			item["statistics"] = s
			if n, ok := s["row_count"].(int64); ok && n > 0 {
				if nn, ok := s["null_count"].(int64); ok && nn == n {
					risks = append(risks, "all_null")
				}
				if d, ok := s["distinct_count"].(int64); ok && d == 1 {
					risks = append(risks, "constant")
				}
			}
		} else {
			risks = append(risks, "recorded_statistics_missing")
		}
		for k, name := range sampled {
			if name != m.name || sampleRows < 0 {
				continue
			}
			nonNull, _ := strconv.ParseInt(sample.Get(sample.Rows[0], fmt.Sprintf("c%d_non_null", k)), 10, 64)
			ndv, _ := strconv.ParseInt(sample.Get(sample.Rows[0], fmt.Sprintf("c%d_ndv", k)), 10, 64)
			item["null_count"], item["distinct_estimate"] = sampleRows-nonNull, ndv
			if sampleRows > 0 {
				ratio := float64(sampleRows-nonNull) / float64(sampleRows)
				item["null_ratio"] = math.Round(ratio*1e6) / 1e6
				if ratio >= 0.5 {
					risks = append(risks, "mostly_null_in_sample")
				}
			}
		}
		item["risks"] = doris.OrEmpty(risks)
		cols = append(cols, item)
	}
	data := map[string]any{"database": a.Database, "table": a.Table, "sample_ratio": applied, "columns": cols,
		"columns_total": len(all), "truncated": len(selected) < len(all) && len(a.Columns) == 0}
	if sampleRows >= 0 {
		data["sample"] = map[string]any{"rows": sampleRows, "percent": percent, "repeatable_seed": 1}
	}
	return &doris.Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence,
		Truncated: len(selected) < len(all) && len(a.Columns) == 0}, nil
}

// columnStatistics reads one SHOW COLUMN STATS row: counts, sizes and
// when and how they were collected. Minimum and maximum values are not
// returned (they are data, possibly personal); only whether Doris has them.
func columnStatistics(t *doris.TextRows, row []doris.NullString) map[string]any {
	num := func(col string) any {
		f, err := strconv.ParseFloat(t.Get(row, col), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f)
		}
		return f
	}
	s := map[string]any{"row_count": num("count"), "distinct_count": num("ndv"), "null_count": num("num_null"),
		"data_size_bytes": num("data_size"), "avg_size_bytes": num("avg_size_byte"), "method": doris.Nullable(t, row, "method"),
		"trigger": doris.Nullable(t, row, "trigger"), "updated_at": doris.Nullable(t, row, "updated_time"),
		"min_max_recorded": t.Get(row, "min") != "" && t.Get(row, "min") != "N/A"}
	if n, ok := s["row_count"].(int64); ok && n > 0 {
		if nn, ok := s["null_count"].(int64); ok {
			s["null_ratio"] = math.Round(float64(nn)/float64(n)*1e6) / 1e6
		}
	}
	return s
}
