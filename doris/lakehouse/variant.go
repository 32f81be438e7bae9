package lakehouse

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// maxPathSegments bounds a VARIANT sub-path.
const maxPathSegments = 16

// variantPath splits a sub-path ("a.b", "$.a.b", "$") into its keys.
func variantPath(p string) ([]string, error) {
	if p == "" || p == "$" {
		return nil, nil
	}
	p = strings.TrimPrefix(p, "$.")
	segs := strings.Split(p, ".")
	if len(segs) > maxPathSegments {
		return nil, doris.ArgError(lakePrefix, "PATH_INVALID", fmt.Sprintf("path has more than %d segments", maxPathSegments))
	}
	for _, s := range segs {
		if s == "" || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return nil, doris.ArgError(lakePrefix, "PATH_INVALID", "path must be keys separated by dots, e.g. a.b (no empty keys or control characters)")
		}
	}
	return segs, nil
}

// InspectVariantColumn runs doris_lakehouse inspect_variant_column.
func InspectVariantColumn(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Catalog    string `json:"catalog"`
		Database   string `json:"database"`
		Table      string `json:"table"`
		Column     string `json:"column"`
		Path       string `json:"path"`
		SampleRows *int   `json:"sample_rows"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckIdents(lakePrefix, doris.Arg("database", a.Database), doris.Arg("table", a.Table), doris.Arg("column", a.Column)); e != nil {
		return nil, e
	}
	if e := doris.CheckOptionalIdents(lakePrefix, doris.Arg("catalog", a.Catalog)); e != nil {
		return nil, e
	}
	segs, err := variantPath(a.Path)
	if err != nil {
		return nil, err
	}
	lim := r.Settings().Lakehouse
	sample := min(20, lim.MaxVariantSampleRows)
	if a.SampleRows != nil {
		if *a.SampleRows > lim.MaxVariantSampleRows {
			return nil, doris.ArgError(lakePrefix, "SAMPLE_ROWS_EXCEEDED", fmt.Sprintf(
				"sample_rows %d exceeds this server's ceiling of %d (LAKEHOUSE_MAX_VARIANT_SAMPLE_ROWS)", *a.SampleRows, lim.MaxVariantSampleRows))
		}
		sample = *a.SampleRows
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	catalog := a.Catalog
	if strings.EqualFold(catalog, "internal") {
		catalog = ""
	}
	fq := doris.Qualified(catalog, a.Database, a.Table)

	// The column must exist and be a VARIANT (required).
	cols, err := r.Text(ctx, rt, "SHOW FULL COLUMNS FROM "+fq, 4096, lakePrefix)
	if err != nil {
		return nil, tableError(unreachableCatalog(doris.Classify(lakePrefix, err, ctx)), a.Database, a.Table)
	}
	var col []doris.NullString
	for pass := 0; pass < 2 && col == nil; pass++ {
		for _, row := range cols.Rows {
			f := cols.Get(row, "Field")
			if f == a.Column || pass == 1 && strings.EqualFold(f, a.Column) {
				col, a.Column = row, f
				break
			}
		}
	}
	if col == nil {
		return nil, &doris.Error{Kind: doris.KindArguments, Reason: lakePrefix + "_VARIANT_COLUMN_NOT_FOUND", Status: 404,
			Object: doris.PlainObject(a.Table + "." + a.Column), Message: fmt.Sprintf("the table has no column %s", a.Column)}
	}
	dataType := cols.Get(col, "Type")
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(dataType)), "variant") {
		return nil, &doris.Error{Kind: doris.KindArguments, Reason: lakePrefix + "_COLUMN_NOT_VARIANT", Status: 409, Object: doris.PlainObject(a.Column),
			Message: fmt.Sprintf("column %s is %s, not VARIANT", a.Column, typeWord(dataType))}
	}

	steps := []doris.Step{
		{Name: "properties", Run: func(ctx context.Context) (doris.Section, error) {
			res, err := r.Text(ctx, rt, "SHOW CREATE TABLE "+fq, 1, lakePrefix)
			if err != nil {
				return doris.Section{}, doris.Classify(lakePrefix, err, ctx)
			}
			text := dataType
			if len(res.Rows) == 1 {
				row := res.Rows[0]
				text += "\n" + row[len(row)-1].String
			}
			s := sanitize(variantProperties(text), safeVariantKeys)
			return doris.Section{Status: "success", Source: "SHOW CREATE TABLE", Data: s.Shown}, nil
		}},
		{Name: "sample", Run: func(ctx context.Context) (doris.Section, error) {
			return r.variantSample(ctx, rt, fq, a.Column, segs, sample)
		}},
	}
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"catalog": doris.StrOrNil(a.Catalog, a.Catalog != ""), "database": a.Database, "table": a.Table,
		"column": a.Column, "data_type": dataType, "nullable": strings.EqualFold(cols.Get(col, "Null"), "YES"),
		"path": doris.StrOrNil(a.Path, a.Path != ""), "sample_limit": sample, "properties": map[string]string{},
		"sampled_rows": 0, "paths": []map[string]any{}, "truncated": false, "values_returned": false}
	if sec := p.Sections["properties"]; sec.Status == "success" {
		data["properties"] = sec.Data
	}
	if sec := p.Sections["sample"]; sec.Status == "success" {
		for k, v := range sec.Data.(map[string]any) {
			data[k] = v
		}
	}
	if c.Variant == "variant_advanced_4_1" {
		props, _ := data["properties"].(map[string]string)
		mode := "default"
		switch {
		case props["variant_enable_doc_mode"] == "true":
			mode = "doc"
		case props["variant_enable_typed_paths_to_sparse"] == "true" || doris.AtoiOrNil(props["variant_sparse_hash_shard_count"]) != nil:
			mode = "sparse"
		}
		data["storage_mode"] = mode
	}
	sections := map[string]any{}
	var evidence []map[string]any
	for _, s := range steps {
		sec := p.Sections[s.Name]
		entry := map[string]any{"status": sec.Status}
		if sec.Source != "" {
			entry["source"] = sec.Source
		}
		if sec.ReasonCode != "" {
			entry["reason_code"] = sec.ReasonCode
		}
		sections[s.Name] = entry
		evidence = append(evidence, map[string]any{"section": s.Name, "status": sec.Status, "source": sec.Source, "reason_code": doris.StrOrNil(sec.ReasonCode, sec.ReasonCode != "")})
	}
	data["sections"] = sections
	status := "success"
	warnings := p.Warnings(steps)
	if p.Partial {
		status = "partial"
	}
	truncated, _ := data["truncated"].(bool)
	if truncated {
		warnings = append(warnings, fmt.Sprintf("Only the %d most frequent paths are listed (LAKEHOUSE_MAX_VARIANT_PATHS).", lim.MaxVariantPaths))
	}
	return &doris.Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence, Truncated: truncated}, nil
}

// typeWord is the base word of a column type, for messages.
func typeWord(t string) string {
	if i := strings.IndexAny(t, "(<"); i > 0 {
		t = t[:i]
	}
	if !doris.PlainIdentChain(t) {
		return "another type"
	}
	return t
}

// variantProperties reads the VARIANT settings from a column type and a
// CREATE TABLE: quoted key = value pairs whose key names a VARIANT or
// storage-format setting.
func variantProperties(text string) [][2]string {
	var out [][2]string
	for _, kv := range ddlProperties(text) {
		k := strings.ToLower(kv[0])
		if strings.HasPrefix(k, "variant_") || k == "storage_format" {
			out = append(out, kv)
		}
	}
	return out
}

// variantSample reads VARIANT_TYPE() of up to n non-NULL rows and counts,
// per path, the rows it occurs in and the types it has. Only type names
// come back from Doris; no value is read.
func (r kit) variantSample(ctx context.Context, rt *doris.Route, fq, column string, segs []string, n int) (doris.Section, error) {
	expr := doris.QuoteIdent(column)
	params := map[string]any{}
	for i, s := range segs {
		name := "p" + strconv.Itoa(i)
		expr += "[%(" + name + ")s]"
		params[name] = s
	}
	q, err := doris.Bind("SELECT VARIANT_TYPE("+expr+") AS variant_type FROM "+fq+" WHERE "+doris.QuoteIdent(column)+" IS NOT NULL LIMIT "+
		strconv.Itoa(n), params)
	if err != nil {
		return doris.Section{}, err
	}
	res, err := r.Text(ctx, rt, q, n, lakePrefix)
	if err != nil {
		return doris.Section{}, doris.Classify(lakePrefix, err, ctx)
	}
	prefix := strings.Join(segs, ".")
	type pathStat struct {
		rows  int
		types map[string]int
	}
	stats := map[string]*pathStat{}
	for _, row := range res.Rows {
		if len(row) == 0 || !row[0].Valid {
			continue
		}
		var m map[string]string
		if json.Unmarshal([]byte(row[0].String), &m) != nil {
			continue
		}
		for p, typ := range m {
			full := p
			switch {
			case prefix != "" && p != "":
				full = prefix + "." + p
			case prefix != "":
				full = prefix
			case p == "":
				full = "$"
			}
			st := stats[full]
			if st == nil {
				st = &pathStat{types: map[string]int{}}
				stats[full] = st
			}
			st.rows++
			st.types[strings.ToLower(typeWordOrRaw(typ))]++
		}
	}
	paths := make([]string, 0, len(stats))
	for p := range stats {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		if stats[paths[i]].rows != stats[paths[j]].rows {
			return stats[paths[i]].rows > stats[paths[j]].rows
		}
		return paths[i] < paths[j]
	})
	maxPaths := r.Settings().Lakehouse.MaxVariantPaths
	truncated := len(paths) > maxPaths
	if truncated {
		paths = paths[:maxPaths]
	}
	sampled := len(res.Rows)
	items := make([]map[string]any, 0, len(paths))
	for _, p := range paths {
		st := stats[p]
		types := make([]string, 0, len(st.types))
		for t := range st.types {
			types = append(types, t)
		}
		sort.Slice(types, func(i, j int) bool {
			if st.types[types[i]] != st.types[types[j]] {
				return st.types[types[i]] > st.types[types[j]]
			}
			return types[i] < types[j]
		})
		var ratio any
		if sampled > 0 {
			ratio = float64(st.rows) / float64(sampled)
		}
		items = append(items, map[string]any{"path": p, "types": types, "type_rows": st.types, "present_rows": st.rows,
			"present_ratio": ratio})
	}
	return doris.Section{Status: "success", Source: "VARIANT_TYPE", Data: map[string]any{"sampled_rows": sampled, "paths": items,
		"truncated": truncated}}, nil
}

// typeWordOrRaw keeps a type name as Doris printed it when it is a plain
// type (int, array<string>), else "unknown": type names only, never text
// that could be data.
func typeWordOrRaw(t string) string {
	t = strings.TrimSpace(t)
	if t == "" || len(t) > 64 || strings.ContainsAny(t, "\"'`\\ \t\n") {
		return "unknown"
	}
	return t
}
