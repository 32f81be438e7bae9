package lakehouse

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// lakeFormats are the table formats inspect_lakehouse_table describes, by
// catalog type; tables of other catalogs (jdbc, es, ...) are not lakehouse
// tables.
var lakeFormats = map[string]string{"iceberg": "iceberg", "paimon": "paimon", "hms": "hive", "hudi": "hudi", "delta": "delta"}

// sysTablesSince is the first release with table$snapshots and
// table$partitions (before it, Iceberg snapshots come from iceberg_meta()).
var sysTablesSince = doris.Version{Major: 3, Minor: 1}

// InspectLakehouseTable runs doris_lakehouse inspect_lakehouse_table.
func InspectLakehouseTable(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Catalog           string `json:"catalog"`
		Database          string `json:"database"`
		Table             string `json:"table"`
		IncludeSnapshots  bool   `json:"include_snapshots"`
		IncludePartitions bool   `json:"include_partitions"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckIdents(lakePrefix, doris.Arg("catalog", a.Catalog), doris.Arg("database", a.Database), doris.Arg("table", a.Table)); e != nil {
		return nil, e
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	cat, err := r.findCatalog(ctx, rt, a.Catalog)
	if err != nil {
		return nil, err
	}
	format, ok := lakeFormats[cat.typ]
	if !ok {
		return nil, &doris.Error{Kind: doris.KindArguments, Reason: lakePrefix + "_TABLE_FORMAT_UNSUPPORTED", Status: 409, Object: doris.PlainObject(cat.name),
			Message: fmt.Sprintf("tables of %s catalogs are not lakehouse tables; doris_catalog get_table_context describes them", cat.typ)}
	}
	var version doris.Version
	if c.Snapshot != nil {
		version = c.Snapshot.Master
	}
	fq := doris.Qualified(cat.name, a.Database, a.Table)
	t := &lakeTable{r: r.Runtime, rt: rt, fq: fq, cat: cat, db: a.Database, table: a.Table, format: format, version: version}
	steps := []doris.Step{
		{Name: "schema", Required: true, Run: t.schema},
		{Name: "ddl", Run: t.ddl},
		{Name: "statistics", Run: t.statistics},
		{Name: "pushdown", Run: t.pushdown},
	}
	if a.IncludeSnapshots {
		steps = append(steps, doris.Step{Name: "snapshots", Run: t.snapshots})
	}
	if a.IncludePartitions {
		steps = append(steps, doris.Step{Name: "partitions", Run: t.partitions})
	}
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	data := map[string]any{"catalog": cat.name, "database": a.Database, "table": a.Table, "catalog_type": cat.typ,
		"format": t.format, "format_evidence": t.formatEvidence(), "statistics": nil, "snapshots": nil, "partitions": nil,
		"pushdown": nil, "lifecycle": nil, "partition_columns": []string{}, "properties": map[string]string{}}
	sections := map[string]any{}
	var evidence []map[string]any
	for _, s := range steps {
		sec := p.Sections[s.Name]
		if sec.Status == "success" && sec.Data != nil {
			for k, v := range sec.Data.(map[string]any) {
				data[k] = v
			}
		}
		entry := map[string]any{"status": sec.Status}
		if sec.Source != "" {
			entry["source"] = sec.Source
		}
		if sec.ReasonCode != "" {
			entry["reason_code"] = sec.ReasonCode
		}
		sections[s.Name] = entry
		ev := map[string]any{"section": s.Name, "status": sec.Status, "source": sec.Source}
		if sec.ReasonCode != "" {
			ev["reason_code"] = sec.ReasonCode
		}
		evidence = append(evidence, ev)
	}
	data["format"] = t.format
	data["sections"] = sections
	if c.Variant == "lakehouse_lifecycle_4_1" && t.format == "iceberg" {
		data["lifecycle"] = t.lifecycle(data)
	}
	status := "success"
	if p.Partial {
		status = "partial"
	}
	truncated := data["snapshots_truncated"] == true || data["partitions_truncated"] == true
	warnings := p.Warnings(steps)
	if truncated {
		warnings = append(warnings, "Only the newest snapshots (LAKEHOUSE_MAX_SNAPSHOTS) and the first partitions (LAKEHOUSE_MAX_PARTITIONS) are listed.")
	}
	res := &doris.Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence, Truncated: truncated}
	if a.IncludePartitions {
		res.Masking = t.masked.Report(r.MaskingEnabled())
	}
	return res, nil
}

// lakeTable is one inspect_lakehouse_table call's state shared by its steps.
type lakeTable struct {
	r       *doris.Runtime
	rt      *doris.Route
	fq      string
	cat     *catalogInfo
	db      string
	table   string
	version doris.Version

	mu      sync.Mutex // protects format and fromDDL
	format  string
	fromDDL bool // the format was read from the DDL (an HMS table that is Hudi)

	masked doris.MaskStats // partition values masking changed (written by the partitions step only)
}

func (t *lakeTable) formatEvidence() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fromDDL {
		return "table DDL"
	}
	return "catalog type"
}

func (t *lakeTable) currentFormat() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.format
}

func (t *lakeTable) schema(ctx context.Context) (doris.Section, error) {
	cols, err := t.r.Text(ctx, t.rt, "SHOW FULL COLUMNS FROM "+t.fq, 4096, lakePrefix)
	if err != nil {
		return doris.Section{}, tableError(unreachableCatalog(doris.Classify(lakePrefix, err, ctx)), t.db, t.table)
	}
	var out []map[string]any
	for _, row := range cols.Rows {
		out = append(out, map[string]any{"name": cols.Get(row, "Field"), "type": cols.Get(row, "Type"),
			"nullable": strings.EqualFold(cols.Get(row, "Null"), "YES"), "comment": doris.Nullable(cols, row, "Comment")})
	}
	return doris.Section{Status: "success", Source: "SHOW FULL COLUMNS", Data: map[string]any{"columns": doris.OrEmpty(out), "column_count": len(out)}}, nil
}

// tableError turns "not found" into the lakehouse's own reason.
func tableError(err error, db, table string) error {
	if de, ok := err.(*doris.Error); ok && de.Reason == lakePrefix+"_OBJECT_NOT_FOUND" {
		return &doris.Error{Kind: doris.KindArguments, Reason: lakePrefix + "_TABLE_NOT_FOUND", Status: 404, Object: doris.PlainObject(db + "." + table),
			Message: fmt.Sprintf("the table %s.%s does not exist in the catalog or is not visible to this account", db, table), Cause: de}
	}
	return err
}

// ddl reads SHOW CREATE TABLE and keeps only what is safe: the partition
// columns, the format's settings from an allowlist, and the format itself
// (an HMS table may be Hudi). The statement, its location and every other
// property are never returned.
func (t *lakeTable) ddl(ctx context.Context) (doris.Section, error) {
	res, err := t.r.Text(ctx, t.rt, "SHOW CREATE TABLE "+t.fq, 1, lakePrefix)
	if err != nil {
		return doris.Section{}, doris.Classify(lakePrefix, err, ctx)
	}
	text := ""
	if len(res.Rows) == 1 {
		row := res.Rows[0]
		text = row[len(row)-1].String
	}
	s := sanitize(ddlProperties(text), safeTableKeys)
	t.mu.Lock()
	if t.format == "hive" && reHudiFormat().MatchString(text) {
		t.format, t.fromDDL = "hudi", true
	}
	t.mu.Unlock()
	engine := ""
	if m := reEngine().FindStringSubmatch(text); m != nil {
		engine = strings.ToUpper(m[1])
	}
	return doris.Section{Status: "success", Source: "SHOW CREATE TABLE", Data: map[string]any{
		"partition_columns": partitionColumns(text), "properties": s.Shown, "withheld_properties": doris.OrEmpty(s.Withheld),
		"secret_properties": s.Secret, "engine": doris.StrOrNil(engine, engine != ""),
	}}, nil
}

func (t *lakeTable) statistics(ctx context.Context) (doris.Section, error) {
	res, err := t.r.Text(ctx, t.rt, "SHOW TABLE STATS "+t.fq, 2, lakePrefix)
	if err != nil {
		return doris.Section{}, doris.Classify(lakePrefix, err, ctx)
	}
	if len(res.Rows) == 0 {
		return doris.Section{Status: "unavailable", Source: "SHOW TABLE STATS", ReasonCode: lakePrefix + "_STATISTICS_NOT_COLLECTED"}, nil
	}
	row := res.Rows[0]
	stats := map[string]any{"row_count": doris.AtoiOrNil(res.Get(row, "row_count")), "updated_at": doris.Nullable(res, row, "updated_time"),
		"last_analyze_time": doris.Nullable(res, row, "last_analyze_time")}
	return doris.Section{Status: "success", Source: "SHOW TABLE STATS", Data: map[string]any{"statistics": stats}}, nil
}

// snapshots lists the newest snapshots: table$snapshots from Doris 3.1,
// iceberg_meta() before it (Iceberg only); Hive and Hudi tables have none.
func (t *lakeTable) snapshots(ctx context.Context) (doris.Section, error) {
	maxN := t.r.Settings().Lakehouse.MaxSnapshots
	format := t.currentFormat()
	var q, source string
	switch {
	case format != "iceberg" && format != "paimon":
		return doris.Section{Status: "unavailable", ReasonCode: lakePrefix + "_SNAPSHOTS_NOT_SUPPORTED_FOR_FORMAT"}, nil
	case t.version.Compare(sysTablesSince) >= 0:
		order := "committed_at"
		if format == "paimon" {
			order = "snapshot_id"
		}
		q, source = "SELECT * FROM "+doris.Qualified(t.cat.name, t.db, t.table+"$snapshots")+" ORDER BY "+order+" DESC LIMIT "+strconv.Itoa(maxN+1),
			"table$snapshots"
	case format == "iceberg":
		bound, err := doris.Bind(`SELECT * FROM iceberg_meta("table" = %(t)s, "query_type" = 'snapshots') ORDER BY committed_at DESC LIMIT `+
			strconv.Itoa(maxN+1), map[string]any{"t": t.cat.name + "." + t.db + "." + t.table})
		if err != nil {
			return doris.Section{}, err
		}
		q, source = bound, "iceberg_meta()"
	default:
		return doris.Section{Status: "unavailable", ReasonCode: lakePrefix + "_SYSTEM_TABLES_NEED_DORIS_3_1"}, nil
	}
	res, err := t.r.Text(ctx, t.rt, q, maxN+1, lakePrefix)
	if err != nil {
		return doris.Section{}, doris.Classify(lakePrefix, err, ctx)
	}
	items := []map[string]any{}
	for i, row := range res.Rows {
		if i == maxN {
			break
		}
		items = append(items, snapshotItem(res, row, format))
	}
	if format == "paimon" { // linear history: the parent is the previous id
		for _, it := range items {
			if id, err := strconv.ParseInt(it["snapshot_id"].(string), 10, 64); err == nil && id > 1 {
				it["parent_id"] = strconv.FormatInt(id-1, 10)
			}
		}
	}
	return doris.Section{Status: "success", Source: source, Data: map[string]any{"snapshots": items,
		"snapshots_truncated": len(res.Rows) > maxN || res.Truncated}}, nil
}

// snapshotItem normalises one snapshot row. Ids are strings (they exceed
// 2^53); the manifest list (a storage location) is dropped, and of the
// summary only the counters are kept.
func snapshotItem(res *doris.TextRows, row []doris.NullString, format string) map[string]any {
	it := map[string]any{"snapshot_id": res.Get(row, "snapshot_id"), "parent_id": nil}
	if format == "paimon" {
		it["committed_at"] = doris.Nullable(res, row, "commit_time")
		it["operation"] = strings.ToLower(res.Get(row, "commit_kind"))
		sum := map[string]int64{}
		for _, k := range []string{"total_record_count", "delta_record_count", "changelog_record_count"} {
			if n, err := strconv.ParseInt(res.Get(row, k), 10, 64); err == nil {
				sum[strings.ReplaceAll(strings.TrimSuffix(k, "_count"), "_", "-")] = n
			}
		}
		it["summary"] = sum
		return it
	}
	if p := res.Get(row, "parent_id"); p != "" && p != "-1" && p != "NULL" {
		it["parent_id"] = p
	}
	it["committed_at"] = doris.Nullable(res, row, "committed_at")
	it["operation"] = strings.ToLower(res.Get(row, "operation"))
	it["summary"] = orNilMap(summaryCounts(res.Get(row, "summary")))
	return it
}

func orNilMap(m map[string]int64) any {
	if m == nil {
		return map[string]int64{}
	}
	return m
}

// partitions lists partitions: SHOW PARTITIONS for Hive tables,
// table$partitions for Iceberg and Paimon from Doris 3.1.
func (t *lakeTable) partitions(ctx context.Context) (doris.Section, error) {
	maxN := t.r.Settings().Lakehouse.MaxPartitions
	format := t.currentFormat()
	var q, source string
	switch {
	case format == "hive" || format == "hudi":
		q, source = "SHOW PARTITIONS FROM "+t.fq+" LIMIT "+strconv.Itoa(maxN+1), "SHOW PARTITIONS"
	case (format == "iceberg" || format == "paimon") && t.version.Compare(sysTablesSince) >= 0:
		q, source = "SELECT * FROM "+doris.Qualified(t.cat.name, t.db, t.table+"$partitions")+" LIMIT "+strconv.Itoa(maxN+1), "table$partitions"
	case format == "iceberg" || format == "paimon":
		return doris.Section{Status: "unavailable", ReasonCode: lakePrefix + "_SYSTEM_TABLES_NEED_DORIS_3_1"}, nil
	default:
		return doris.Section{Status: "unavailable", ReasonCode: lakePrefix + "_PARTITIONS_NOT_SUPPORTED_FOR_FORMAT"}, nil
	}
	res, err := t.r.Text(ctx, t.rt, q, maxN+1, lakePrefix)
	if err != nil {
		if doris.BackendSays(err, "not a partitioned table") {
			return doris.Section{Status: "unavailable", Source: source, ReasonCode: lakePrefix + "_TABLE_NOT_PARTITIONED"}, nil
		}
		return doris.Section{}, doris.Classify(lakePrefix, err, ctx)
	}
	items := []map[string]any{}
	for i, row := range res.Rows {
		if i == maxN {
			break
		}
		items = append(items, partitionItem(res, row, format, t.maskValue))
	}
	sort.SliceStable(items, func(x, y int) bool { return fmt.Sprint(items[x]["name"]) < fmt.Sprint(items[y]["name"]) })
	return doris.Section{Status: "success", Source: source, Data: map[string]any{"partitions": items,
		"partitions_truncated": len(res.Rows) > maxN || res.Truncated}}, nil
}

// maskValue masks one partition value of column col as data rows are
// masked (partition values are data: a table partitioned by e-mail shows
// addresses), counting what changed for the result's metadata.
func (t *lakeTable) maskValue(col, v string) string {
	m, rule, ok := t.r.MaskText(col, v)
	if ok {
		t.masked.Add(rule)
	}
	return m
}

// partitionItem normalises one partition row, its values passed through
// mask.
func partitionItem(res *doris.TextRows, row []doris.NullString, format string, mask func(col, v string) string) map[string]any {
	switch format {
	case "hive", "hudi":
		values := map[string]string{}
		var parts []string
		for _, kv := range strings.Split(res.Get(row, "Partition"), "/") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				values[k] = mask(k, v)
				kv = k + "=" + values[k]
			}
			parts = append(parts, kv)
		}
		return map[string]any{"name": strings.Join(parts, "/"), "values": values}
	case "paimon":
		return map[string]any{"name": mask("partition", res.Get(row, "partition")), "record_count": doris.AtoiOrNil(res.Get(row, "record_count")),
			"file_count": doris.AtoiOrNil(res.Get(row, "file_count")), "size_bytes": doris.AtoiOrNil(res.Get(row, "file_size_in_bytes")),
			"last_updated_at": doris.Nullable(res, row, "last_update_time")}
	}
	it := map[string]any{"record_count": doris.AtoiOrNil(res.Get(row, "record_count")), "file_count": doris.AtoiOrNil(res.Get(row, "file_count")),
		"size_bytes": doris.AtoiOrNil(res.Get(row, "total_data_file_size_in_bytes")), "last_updated_at": doris.Nullable(res, row, "last_updated_at"),
		"name": "", "values": map[string]any{}}
	if raw := res.Get(row, "partition"); raw != "" {
		var values map[string]any
		if json.Unmarshal([]byte(raw), &values) == nil {
			it["values"] = values
			keys := make([]string, 0, len(values))
			for k, v := range values {
				if s, ok := v.(string); ok {
					values[k] = mask(k, s)
				}
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, fmt.Sprintf("%s=%v", k, values[k]))
			}
			it["name"] = strings.Join(parts, "/")
		}
	}
	return it
}

// pushdown reads the plan of a one-row scan and reports its facets (scan
// node, partitions and splits selected, aggregate pushdown). The plan text
// itself, which names storage paths, is never returned.
func (t *lakeTable) pushdown(ctx context.Context) (doris.Section, error) {
	res, err := t.r.Text(ctx, t.rt, "EXPLAIN SELECT * FROM "+t.fq+" LIMIT 1", 2000, lakePrefix)
	if err != nil {
		return doris.Section{}, doris.Classify(lakePrefix, err, ctx)
	}
	var nodes []string
	facets := map[string]any{"scan_nodes": []string{}, "external_scan": false, "partitions_selected": nil, "partitions_total": nil,
		"splits": nil, "pushdown_agg": nil, "predicates_in_plan": false,
		"note": "a one-row probe without a predicate: it shows the scan path, not the pushdown of a business query's filters"}
	for _, row := range res.Rows {
		if len(row) == 0 {
			continue
		}
		line := row[0].String
		if m := reScanNode().FindStringSubmatch(line); m != nil && !doris.ContainsStr(nodes, m[1]) {
			nodes = append(nodes, m[1])
		}
		if m := rePartitionSel().FindStringSubmatch(line); m != nil && facets["partitions_selected"] == nil {
			facets["partitions_selected"], facets["partitions_total"] = doris.AtoiOrNil(m[1]), doris.AtoiOrNil(m[2])
		}
		if m := reSplits().FindStringSubmatch(line); m != nil {
			facets["splits"] = doris.AtoiOrNil(m[1])
		}
		if m := rePushdownAgg().FindStringSubmatch(line); m != nil {
			facets["pushdown_agg"] = m[1]
		}
		if strings.Contains(strings.ToLower(line), "predicates:") {
			facets["predicates_in_plan"] = true
		}
	}
	sort.Strings(nodes)
	facets["scan_nodes"] = doris.OrEmpty(nodes)
	for _, n := range nodes {
		if !strings.Contains(strings.ToLower(n), "olap") {
			facets["external_scan"] = true
		}
	}
	return doris.Section{Status: "success", Source: "EXPLAIN", Data: map[string]any{"pushdown": facets}}, nil
}

// lifecycle reports Iceberg v3 features Doris 4.1 reads: deletion vectors
// (seen in snapshot summaries) and row lineage (its hidden columns).
func (t *lakeTable) lifecycle(data map[string]any) map[string]any {
	dv := false
	if snaps, ok := data["snapshots"].([]map[string]any); ok {
		for _, s := range snaps {
			if sum, ok := s["summary"].(map[string]int64); ok {
				for k := range sum {
					if strings.Contains(k, "dvs") || strings.Contains(k, "deletion-vector") {
						dv = true
					}
				}
			}
		}
	}
	var lineage []string
	if cols, ok := data["columns"].([]map[string]any); ok {
		for _, c := range cols {
			if n, _ := c["name"].(string); n == "_row_id" || n == "_last_updated_sequence_number" {
				lineage = append(lineage, n)
			}
		}
	}
	return map[string]any{"deletion_vectors_observed": dv, "row_lineage_columns": doris.OrEmpty(lineage)}
}
