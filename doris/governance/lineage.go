package governance

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Lineage: the native path reads a lineage event store (a table a lineage
// plugin sink fills, named by GOVERNANCE_LINEAGE_STORE_TABLE; Doris 4.0.6+
// emits the events but keeps none itself); the audit path infers edges
// from INSERT ... SELECT and CREATE TABLE ... AS SELECT statements in the
// audit log (governance_sql.go). Every edge says which it came from.

var (
	lineageRequiredColumns = []string{"event_id", "event_time", "source_object", "target_object"}
	lineageOptionalColumns = []string{"query_id", "source_column", "target_column", "dependency_type", "statement_type"}
	// auditLineageFields are the audit log columns inference needs.
	auditLineageFields = []string{"query_id", "time", "user", "catalog", "db", "state", "stmt"}
	nativeLineageMin   = doris.Version{Major: 4, Minor: 0, Patch: 6}
)

// maxLineageAuditRows bounds the audit rows one trace parses.
const maxLineageAuditRows = 20000

func missingColumns(have, want []string) []string {
	var out []string
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.EqualFold(h, w) }) {
			out = append(out, w)
		}
	}
	return out
}

// lineageStore is the configured store as a quoted name.
func (r kit) lineageStore() string {
	parts, _ := doris.LineageStoreParts(r.Settings().Governance.LineageStoreTable)
	return doris.Qualified(parts...)
}

// lineageStoreColumns lists the store's columns (DESC); probe selects the
// reason prefix capability probes classify.
func (r kit) lineageStoreColumns(ctx context.Context, rt *doris.Route, probe bool) ([]string, error) {
	prefix, read := governancePrefix, r.Text
	if probe {
		prefix, read = "PROBE", r.InternalText
	}
	t, err := read(ctx, rt, "DESC "+r.lineageStore(), 256, prefix)
	if err != nil {
		return nil, err
	}
	var cols []string
	for _, row := range t.Rows {
		if f := t.Get(row, "Field"); f != "" {
			cols = append(cols, strings.ToLower(f))
		}
	}
	return cols, nil
}

// GetLineageCapabilityStatus runs doris_governance get_lineage_capability_status.
func GetLineageCapabilityStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	configValueOf := func(key string) func(context.Context) (doris.Section, error) {
		return func(ctx context.Context) (doris.Section, error) {
			t, err := r.Text(ctx, rt, "SHOW FRONTEND CONFIG LIKE '"+key+"'", 4, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			if len(t.Rows) == 0 {
				return doris.Section{Status: "success"}, nil // the FE has no such key
			}
			return doris.Section{Status: "success", Data: t.Get(t.Rows[0], "Value")}, nil
		}
	}
	steps := []doris.Step{
		{Name: "plugin", Run: configValueOf("activate_lineage_plugin")},
		{Name: "queue", Run: configValueOf("lineage_event_queue_size")},
		{Name: "audit", Run: func(ctx context.Context) (doris.Section, error) {
			t, err := r.Text(ctx, rt, "DESC "+doris.AuditTable, 256, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			var fields []string
			for _, row := range t.Rows {
				fields = append(fields, strings.ToLower(t.Get(row, "Field")))
			}
			last, err := r.Text(ctx, rt, "SELECT MAX(`time`) AS latest FROM "+doris.AuditTable, 1, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			return doris.Section{Status: "success", Data: map[string]any{"fields": fields, "latest": doris.Nullable(last, last.Rows[0], "latest")}}, nil
		}},
	}
	if r.Settings().Governance.LineageStoreTable != "" {
		steps = append(steps, doris.Step{Name: "store", Run: func(ctx context.Context) (doris.Section, error) {
			cols, err := r.lineageStoreColumns(ctx, rt, false)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			out := map[string]any{"columns": cols}
			if len(missingColumns(cols, lineageRequiredColumns)) > 0 {
				return doris.Section{Status: "success", Data: out}, nil
			}
			q, err := doris.Bind("SELECT COUNT(*) AS row_count, MAX(`event_time`) AS latest, SUM(CASE WHEN `event_time` >= "+
				"DATE_SUB(NOW(), INTERVAL %(m)s MINUTE) THEN 1 ELSE 0 END) AS recent FROM "+r.lineageStore(),
				map[string]any{"m": json.Number(strconv.Itoa(r.Settings().Governance.RecentEventMinutes))})
			if err != nil {
				return doris.Section{}, err
			}
			t, err := r.Text(ctx, rt, q, 1, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			out["row_count"], out["latest"] = doris.AtoiOrNil(t.Get(t.Rows[0], "row_count")), doris.Nullable(t, t.Rows[0], "latest")
			out["recent"] = doris.AtoiOrNil(t.Get(t.Rows[0], "recent"))
			return doris.Section{Status: "success", Data: out}, nil
		}})
	}
	plan, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	var reasons []string
	evidence := []map[string]any{}
	for _, s := range steps {
		sec := plan.Sections[s.Name]
		ev := map[string]any{"source": map[string]string{"plugin": "SHOW FRONTEND CONFIG activate_lineage_plugin",
			"queue": "SHOW FRONTEND CONFIG lineage_event_queue_size", "audit": doris.AuditTable, "store": "lineage store"}[s.Name],
			"success": sec.Status == "success"}
		if sec.ReasonCode != "" {
			ev["reason_code"] = sec.ReasonCode
		}
		evidence = append(evidence, ev)
	}

	// Versions: from the capability snapshot the call was admitted under.
	var versions []string
	eligible := false
	if snap := c.Snapshot; snap != nil {
		versions = snap.Versions("fe")
		if len(versions) == 0 {
			versions = snap.Versions("master_fe")
		}
		eligible = len(versions) > 0
		for _, v := range versions {
			pv, err := doris.ParseVersion(v)
			eligible = eligible && err == nil && pv.Compare(nativeLineageMin) >= 0
		}
	}
	if !eligible {
		reasons = append(reasons, "NATIVE_LINEAGE_NEEDS_DORIS_4_0_6")
	}

	plugin := map[string]any{"activate_lineage_plugin": nil, "lineage_event_queue_size": nil, "active_plugins": []string{}}
	active := false
	switch sec := plan.Sections["plugin"]; {
	case sec.Status != "success":
		reasons = append(reasons, "LINEAGE_PLUGIN_CONFIG_UNREADABLE")
	case sec.Data == nil:
		reasons = append(reasons, "LINEAGE_PLUGIN_NOT_SUPPORTED")
	default:
		if names, ok := doris.ConfigValue("activate_lineage_plugin", sec.Data.(string)); ok {
			list := names.([]string)
			plugin["active_plugins"], plugin["activate_lineage_plugin"] = list, strings.Join(list, ",")
			active = len(list) > 0
		} else {
			reasons = append(reasons, "LINEAGE_PLUGIN_CONFIG_WITHHELD")
		}
		if !active {
			reasons = append(reasons, "LINEAGE_PLUGIN_NOT_ACTIVE")
		}
	}
	if sec := plan.Sections["queue"]; sec.Status == "success" && sec.Data != nil {
		if n, ok := doris.ConfigValue("lineage_event_queue_size", sec.Data.(string)); ok {
			plugin["lineage_event_queue_size"] = strconv.FormatInt(n.(int64), 10)
		}
	}

	store := map[string]any{"configured": r.Settings().Governance.LineageStoreTable != "", "queryable": nil, "row_count": nil,
		"latest_event_time": nil, "recent_event_observed": false}
	storeReady, recent := false, false
	switch sec := plan.Sections["store"]; {
	case r.Settings().Governance.LineageStoreTable == "":
		reasons = append(reasons, "LINEAGE_STORE_NOT_CONFIGURED")
	case sec.Status != "success":
		store["queryable"] = false
		reasons = append(reasons, "LINEAGE_STORE_UNREADABLE")
	default:
		d := sec.Data.(map[string]any)
		if miss := missingColumns(d["columns"].([]string), lineageRequiredColumns); len(miss) > 0 {
			store["queryable"], store["missing_columns"] = false, miss
			reasons = append(reasons, "LINEAGE_STORE_MISSING_COLUMNS")
			break
		}
		store["queryable"], store["row_count"], store["latest_event_time"] = true, d["row_count"], d["latest"]
		storeReady = true
		if n, ok := d["recent"].(int64); ok && n > 0 {
			recent = true
		} else {
			reasons = append(reasons, "LINEAGE_STORE_NO_RECENT_EVENTS")
		}
		store["recent_event_observed"] = recent
	}

	audit := map[string]any{"readable": false, "missing_fields": []string{}, "latest_event_time": nil}
	auditReady := false
	if sec := plan.Sections["audit"]; sec.Status == "success" {
		d := sec.Data.(map[string]any)
		miss := missingColumns(d["fields"].([]string), auditLineageFields)
		audit["readable"], audit["missing_fields"], audit["latest_event_time"] = true, doris.OrEmpty(miss), d["latest"]
		auditReady = len(miss) == 0
		if !auditReady {
			reasons = append(reasons, "AUDIT_LOG_MISSING_FIELDS")
		}
	} else {
		reasons = append(reasons, "AUDIT_LOG_UNREADABLE")
	}

	path, status := "none", "unavailable"
	switch {
	case eligible && active && storeReady:
		path, status = "native_lineage_events", "available"
		if !recent {
			status = "degraded"
		}
	case auditReady:
		path, status = "audit_sql_inference", "available"
		if eligible {
			status = "degraded" // native lineage is possible here but not ready
		}
	}
	data := map[string]any{"active_path": path, "status": status, "reasons": doris.OrEmpty(reasons), "plugin": plugin,
		"store": store, "audit_log": audit, "native_minimum_version": nativeLineageMin.String(),
		"detected_fe_versions": doris.OrEmpty(versions),
		"coverage": map[string]any{
			"native_statements": []string{"INSERT INTO ... SELECT", "INSERT OVERWRITE TABLE ... SELECT", "CREATE TABLE ... AS SELECT"},
			"audit_inference":   "INSERT ... SELECT and CREATE TABLE ... AS SELECT parsed from audited SQL; column edges only where the select list names them",
		}}
	res := &doris.Result{Status: "success", Data: data, Evidence: evidence, Source: "doris_lineage_capability_evidence"}
	if status != "available" {
		res.Warnings = append(res.Warnings, "Lineage is "+status+" on this cluster: "+strings.Join(reasons, ", ")+".")
	}
	return res, nil
}

// traceEdge is an edge as returned, with its evidence.
type traceEdge struct {
	lineageEdge
	statementType, eventTime, queryID, eventID string
	evidence                                   string
	occurrences                                int // statements or events that show the edge
	level                                      int // distance from the traced object
}

func (e *traceEdge) key() string {
	return e.source.key() + "\x00" + strings.ToLower(e.sourceCol) + "\x00" + e.target.key() + "\x00" + strings.ToLower(e.targetCol)
}

// TraceColumnLineage runs doris_governance trace_column_lineage.
func TraceColumnLineage(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		Object       string `json:"object"`
		Column       string `json:"column"`
		Direction    string `json:"direction"`
		Depth        int    `json:"depth"`
		EvidenceMode string `json:"evidence_mode"`
	}{Direction: "both", Depth: 3, EvidenceMode: "auto"}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	parts := strings.Split(a.Object, ".")
	if len(parts) > 3 {
		return nil, doris.ArgError(governancePrefix, "OBJECT_INVALID", "object is db.table or catalog.db.table; name a column with the column argument")
	}
	for _, p := range parts {
		if e := doris.CheckIdent(governancePrefix, "object", p); e != nil {
			return nil, e
		}
	}
	root := objName{catalog: "internal", db: parts[0], table: parts[1]}
	if len(parts) == 3 {
		root = objName{parts[0], parts[1], parts[2]}
	}
	if e := doris.CheckOptionalIdents(governancePrefix, doris.Arg("column", a.Column)); e != nil {
		return nil, e
	}
	native := c.Variant == "native_lineage_events"
	switch a.EvidenceMode {
	case "native":
		if !native {
			return nil, &doris.Error{Kind: doris.KindFailed, Reason: governancePrefix + "_NATIVE_LINEAGE_UNAVAILABLE", Status: 409,
				Message: "native lineage events are not available here (see get_lineage_capability_status); use evidence_mode auto or audit"}
		}
	case "audit":
		native = false
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	var all []*traceEdge
	var rowsRead int
	var readTruncated bool
	source := doris.AuditTable
	if native {
		source = "lineage store"
		all, rowsRead, readTruncated, err = r.nativeEdges(ctx, rt)
	} else {
		all, rowsRead, readTruncated, err = r.auditEdges(ctx, rt)
	}
	if err != nil {
		return nil, err
	}
	edges, truncated := traceLineage(all, root, a.Column, a.Direction, a.Depth, r.Settings().Governance.MaxLineageEdges)
	items := make([]map[string]any, 0, len(edges))
	for _, e := range edges {
		item := map[string]any{"source_object": e.source.String(), "target_object": e.target.String(),
			"source_column": doris.StrOrNil(e.sourceCol, e.sourceCol != ""), "target_column": doris.StrOrNil(e.targetCol, e.targetCol != ""),
			"dependency_type": e.dependency, "statement_type": doris.StrOrNil(e.statementType, e.statementType != ""),
			"evidence_type": e.evidence, "event_time": doris.StrOrNil(e.eventTime, e.eventTime != ""),
			"query_id": doris.StrOrNil(e.queryID, e.queryID != ""), "depth": e.level, "occurrences": e.occurrences}
		if e.eventID != "" {
			item["event_id"] = e.eventID
		}
		items = append(items, item)
	}
	path := "audit"
	if native {
		path = "native"
	}
	res := &doris.Result{Status: "success", Truncated: truncated || readTruncated, Source: source, Data: map[string]any{
		"root": root.String(), "column": doris.StrOrNil(a.Column, a.Column != ""), "direction": a.Direction, "depth": a.Depth,
		"evidence_path": path, "edges": items, "truncated": truncated || readTruncated,
	}, Evidence: []map[string]any{{"source": source, "success": true, "rows_observed": rowsRead, "edges_returned": len(items)}}}
	if !native {
		res.Warnings = append(res.Warnings, "Edges are inferred from audited SQL (INSERT ... SELECT and CREATE TABLE ... AS SELECT), not from Doris's own lineage events.")
		if c.Variant == "audit_sql_inference_fallback" {
			res.Status = "partial"
		}
	}
	if len(items) == 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("No lineage edge of %s was observed within %d days; none is made up.", root, r.Settings().Governance.MaxAuditWindowDays))
	}
	if truncated {
		res.Warnings = append(res.Warnings, fmt.Sprintf("More edges exist than GOVERNANCE_MAX_LINEAGE_EDGES (%d); lower depth or name a column.", r.Settings().Governance.MaxLineageEdges))
	}
	if readTruncated {
		res.Warnings = append(res.Warnings, "Only the most recent lineage evidence was read; older statements may add edges.")
	}
	if source == doris.AuditTable {
		if w := r.AuditPluginWarning(ctx, rt); w != "" {
			res.Warnings = append(res.Warnings, w)
		}
	}
	return res, nil
}

// auditEdges infers edges from the audit log's successful writes.
func (r kit) auditEdges(ctx context.Context, rt *doris.Route) ([]*traceEdge, int, bool, error) {
	q, err := doris.Bind("SELECT query_id, `time`, `user`, `catalog`, db, stmt FROM "+doris.AuditTable+
		" WHERE `time` >= DATE_SUB(NOW(), INTERVAL %(days)s DAY) AND state <> 'ERR' AND (UPPER(stmt) LIKE '%INSERT%' OR UPPER(stmt) LIKE '%CREATE%')"+
		" ORDER BY `time` DESC LIMIT %(limit)s", map[string]any{"days": json.Number(strconv.Itoa(r.Settings().Governance.MaxAuditWindowDays)),
		"limit": json.Number(strconv.Itoa(maxLineageAuditRows + 1))})
	if err != nil {
		return nil, 0, false, err
	}
	byKey := map[string]*traceEdge{}
	var order []*traceEdge
	rows, truncated, err := r.scanAudit(ctx, rt, q, maxLineageAuditRows, func(get func(string) string) {
		sh, ok := parseStatement(get("stmt"), get("catalog"), get("db"))
		if !ok || sh.kind == "" {
			return
		}
		for _, le := range sh.edges() {
			e := &traceEdge{lineageEdge: le, statementType: sh.kind, eventTime: get("time"), queryID: get("query_id"),
				evidence: "audit_sql_inference", occurrences: 1}
			if prev := byKey[e.key()]; prev != nil {
				prev.occurrences++ // rows arrive newest first: keep the newest evidence
				continue
			}
			byKey[e.key()] = e
			order = append(order, e)
		}
	})
	if err != nil {
		return nil, rows, false, auditReadError(err, ctx)
	}
	return order, rows, truncated, nil
}

// nativeEdges reads the lineage store's events, newest first.
func (r kit) nativeEdges(ctx context.Context, rt *doris.Route) ([]*traceEdge, int, bool, error) {
	cols, err := r.lineageStoreColumns(ctx, rt, false)
	if err != nil {
		de := governanceError(err, ctx)
		return nil, 0, false, &doris.Error{Kind: doris.KindFailed, Reason: governancePrefix + "_LINEAGE_STORE_UNAVAILABLE", Status: 503,
			Retryable: true, Message: "the lineage store could not be read", Cause: de}
	}
	sel := slices.Clone(lineageRequiredColumns)
	for _, c := range lineageOptionalColumns {
		if slices.Contains(cols, c) {
			sel = append(sel, c)
		}
	}
	quoted := make([]string, len(sel))
	for i, c := range sel {
		quoted[i] = doris.QuoteIdent(c)
	}
	q, err := doris.Bind("SELECT "+strings.Join(quoted, ", ")+" FROM "+r.lineageStore()+" ORDER BY `event_time` DESC LIMIT %(limit)s",
		map[string]any{"limit": json.Number(strconv.Itoa(maxLineageAuditRows + 1))})
	if err != nil {
		return nil, 0, false, err
	}
	t, err := r.Text(ctx, rt, q, maxLineageAuditRows, governancePrefix)
	if err != nil {
		return nil, 0, false, &doris.Error{Kind: doris.KindFailed, Reason: governancePrefix + "_LINEAGE_STORE_UNAVAILABLE", Status: 503,
			Retryable: true, Message: "the lineage store could not be read", Cause: err}
	}
	byKey := map[string]*traceEdge{}
	var order []*traceEdge
	for _, row := range t.Rows {
		src, ok1 := storeObject(t.Get(row, "source_object"))
		tgt, ok2 := storeObject(t.Get(row, "target_object"))
		if !ok1 || !ok2 {
			continue
		}
		dep := t.Get(row, "dependency_type")
		scol, tcol := t.Get(row, "source_column"), t.Get(row, "target_column")
		if dep == "" {
			dep = "table_dependency"
			if scol != "" {
				dep = "direct"
			}
		}
		e := &traceEdge{lineageEdge: lineageEdge{source: src, target: tgt, sourceCol: scol, targetCol: tcol, dependency: dep},
			statementType: t.Get(row, "statement_type"), eventTime: t.Get(row, "event_time"), queryID: t.Get(row, "query_id"),
			eventID: t.Get(row, "event_id"), evidence: "native_event", occurrences: 1}
		if prev := byKey[e.key()]; prev != nil {
			prev.occurrences++
			continue
		}
		byKey[e.key()] = e
		order = append(order, e)
		if scol != "" || tcol != "" {
			// A column event also says the tables depend on each other.
			te := &traceEdge{lineageEdge: lineageEdge{source: src, target: tgt, dependency: "table_dependency"},
				statementType: e.statementType, eventTime: e.eventTime, queryID: e.queryID, eventID: e.eventID, evidence: "native_event", occurrences: 1}
			if byKey[te.key()] == nil {
				byKey[te.key()] = te
				order = append(order, te)
			}
		}
	}
	return order, len(t.Rows), t.Truncated, nil
}

// storeObject reads a store's object name: db.table or catalog.db.table.
func storeObject(s string) (objName, bool) {
	p := strings.Split(strings.ReplaceAll(s, "`", ""), ".")
	switch len(p) {
	case 2:
		return objName{"internal", p[0], p[1]}, p[0] != "" && p[1] != ""
	case 3:
		return objName{p[0], p[1], p[2]}, p[0] != "" && p[1] != "" && p[2] != ""
	}
	return objName{}, false
}

// traceLineage walks edges from root up to depth levels in the direction(s)
// asked, table edges for a table, column edges for a column; at most
// maxEdges edges are returned (truncated says more were reachable).
func traceLineage(all []*traceEdge, root objName, column, direction string, depth, maxEdges int) ([]*traceEdge, bool) {
	type node struct{ obj, col string }
	var out []*traceEdge
	picked := map[*traceEdge]bool{}
	truncated := false
	walk := func(up bool) {
		frontier := map[node]bool{{root.key(), strings.ToLower(column)}: true}
		seen := map[node]bool{{root.key(), strings.ToLower(column)}: true}
		for level := 1; level <= depth && len(frontier) > 0; level++ {
			next := map[node]bool{}
			for _, e := range all {
				if (column == "") != (e.sourceCol == "" && e.targetCol == "") {
					continue
				}
				from, to := node{e.target.key(), strings.ToLower(e.targetCol)}, node{e.source.key(), strings.ToLower(e.sourceCol)}
				if !up {
					from, to = to, from
				}
				if !frontier[from] {
					continue
				}
				if !picked[e] {
					if len(out) == maxEdges {
						truncated = true
						return
					}
					picked[e] = true
					e.level = level
					out = append(out, e)
				}
				if !seen[to] {
					seen[to] = true
					next[to] = true
				}
			}
			frontier = next
		}
	}
	if direction == "upstream" || direction == "both" {
		walk(true)
	}
	if (direction == "downstream" || direction == "both") && !truncated {
		walk(false)
	}
	return out, truncated
}
