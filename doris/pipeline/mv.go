package pipeline

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// GetMaterializedViewStatus runs doris_pipeline get_materialized_view_status.
func GetMaterializedViewStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Database              string   `json:"database"`
		View                  string   `json:"view"`
		States                []string `json:"states"`
		IncludeRefreshHistory bool     `json:"include_refresh_history"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckOptionalIdents(pipelinePrefix, doris.Arg("view", a.View)); e != nil {
		return nil, e
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	db, err := r.resolveDatabase(ctx, rt, a.Database)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"db": db}
	if a.View != "" {
		params["view"] = a.View
	}
	viewFilter := func(col string) string {
		if a.View == "" {
			return ""
		}
		return " AND " + col + " = %(view)s"
	}
	type source struct {
		name, sql string
		bound     bool // has placeholders
	}
	sources := []source{
		{"mv_infos", "SELECT Id, Name, JobName, State, SchemaChangeDetail, RefreshState, RefreshInfo, QuerySql, MvProperties, " +
			"SyncWithBaseTables FROM mv_infos(\"database\"=%(db)s) WHERE 1 = 1" + viewFilter("Name") + " LIMIT 501", true},
		{`jobs("type"="mv")`, "SELECT Id, Name, MvId, MvName, MvDatabaseName, ExecuteType, RecurringStrategy, Status, CreateTime " +
			"FROM jobs(\"type\"=\"mv\") WHERE MvDatabaseName = %(db)s" + viewFilter("MvName") + " LIMIT 501", true},
		{"SHOW ALTER TABLE MATERIALIZED VIEW", "SHOW ALTER TABLE MATERIALIZED VIEW FROM " + doris.QuoteIdent(db), false},
	}
	if a.IncludeRefreshHistory {
		sources = append(sources, source{`tasks("type"="mv")`, "SELECT TaskId, JobId, JobName, MvId, MvName, MvDatabaseName, Status, " +
			"ErrorMsg, CreateTime, StartTime, FinishTime, DurationMs, TaskContext, RefreshMode, NeedRefreshPartitions, " +
			"CompletedPartitions, Progress, LastQueryId FROM tasks(\"type\"=\"mv\") WHERE MvDatabaseName = %(db)s" +
			viewFilter("MvName") + " ORDER BY CreateTime DESC LIMIT 501", true})
	}
	var mu sync.Mutex // protects results and errs
	results := map[string]*doris.TextRows{}
	var errs []error
	steps := make([]doris.Step, len(sources))
	for i, s := range sources {
		steps[i] = doris.Step{Name: s.name, Run: func(ctx context.Context) (doris.Section, error) {
			q := s.sql
			if s.bound {
				var err error
				if q, err = doris.Bind(s.sql, params); err != nil {
					return doris.Section{}, doris.Classify(pipelinePrefix, err, ctx)
				}
			}
			t, err := r.Text(ctx, rt, q, pipelineMaxSourceRows, pipelinePrefix)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return doris.Section{}, err
			}
			results[s.name] = t
			return doris.Section{Status: "success", Source: s.name}, nil
		}}
	}
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	var evidence []map[string]any
	var warnings []string
	status, truncated, ok := "success", false, 0
	for _, s := range sources {
		sec := p.Sections[s.name]
		n := 0
		if t := results[s.name]; t != nil {
			n = len(t.Rows)
			truncated = truncated || t.Truncated
			ok++
		} else {
			status = "partial"
			warnings = append(warnings, s.name+" could not be read ("+sec.ReasonCode+").")
		}
		evidence = append(evidence, sourceEvidence(s.name, sec, n))
	}
	if ok == 0 {
		return nil, allFailed(errs, "PIPELINE_MV_EVIDENCE_UNAVAILABLE", "no materialized-view source of Doris could be read")
	}

	withGroup := c.Variant == "mtmv_compute_group"
	byName := map[string]map[string]any{}
	var items []map[string]any
	asyncItem := func(name string) map[string]any {
		k := strings.ToLower(name)
		if it, ok := byName[k]; ok {
			return it
		}
		it := map[string]any{"id": nil, "name": name, "database": db, "kind": "async", "job_name": nil, "state": nil,
			"schema_change_detail": nil, "refresh_state": nil, "refresh_info": nil, "sync_with_base_tables": nil,
			"compute_group": nil, "jobs": []map[string]any{}, "refresh_history": nil}
		if a.IncludeRefreshHistory {
			it["refresh_history"] = []map[string]any{}
		}
		byName[k] = it
		items = append(items, it)
		return it
	}
	if t := results["mv_infos"]; t != nil {
		for _, row := range t.Rows {
			it := asyncItem(t.Get(row, "Name"))
			it["id"], it["job_name"], it["state"] = textOrNil(t, row, "Id"), textOrNil(t, row, "JobName"), textOrNil(t, row, "State")
			it["schema_change_detail"], it["refresh_state"] = textOrNil(t, row, "SchemaChangeDetail"), textOrNil(t, row, "RefreshState")
			it["refresh_info"] = textOrNil(t, row, "RefreshInfo")
			it["sync_with_base_tables"] = boolCell(t.Get(row, "SyncWithBaseTables"))
			props := doris.JavaMapProperties(t.Get(row, "MvProperties"))
			it["properties"] = props
			if withGroup {
				if g, ok := props["compute_group"].(string); ok && g != "" {
					it["compute_group"] = g
				}
			}
			if q := t.Get(row, "QuerySql"); q != "" {
				it["query_sql"], _ = doris.CapChars(doris.RedactSQL(q), pipelineMaxStmtChars)
			}
		}
	}
	if t := results[`jobs("type"="mv")`]; t != nil {
		for _, row := range t.Rows {
			it := asyncItem(t.Get(row, "MvName"))
			if it["job_name"] == nil {
				it["job_name"] = textOrNil(t, row, "Name")
			}
			if it["state"] == nil {
				it["state"] = textOrNil(t, row, "Status")
			}
			it["jobs"] = append(it["jobs"].([]map[string]any), map[string]any{
				"job_id": textOrNil(t, row, "Id"), "job_name": textOrNil(t, row, "Name"),
				"execute_type": textOrNil(t, row, "ExecuteType"), "recurring_strategy": textOrNil(t, row, "RecurringStrategy"),
				"status": textOrNil(t, row, "Status"), "created_at": dorisTime(t.Get(row, "CreateTime")),
			})
		}
	}
	if t := results[`tasks("type"="mv")`]; t != nil {
		for _, row := range t.Rows {
			it := asyncItem(t.Get(row, "MvName"))
			task := map[string]any{
				"task_id": textOrNil(t, row, "TaskId"), "job_id": textOrNil(t, row, "JobId"), "status": textOrNil(t, row, "Status"),
				"error": redactedOrNil(t.Get(row, "ErrorMsg")), "created_at": dorisTime(t.Get(row, "CreateTime")),
				"started_at": dorisTime(t.Get(row, "StartTime")), "finished_at": dorisTime(t.Get(row, "FinishTime")),
				"duration_ms": doris.AtoiOrNil(t.Get(row, "DurationMs")), "refresh_mode": textOrNil(t, row, "RefreshMode"),
				"trigger": triggerMode(t.Get(row, "TaskContext")), "progress": textOrNil(t, row, "Progress"),
				"need_refresh_partitions": jsonList(t.Get(row, "NeedRefreshPartitions")),
				"completed_partitions":    jsonList(t.Get(row, "CompletedPartitions")),
				"last_query_id":           textOrNil(t, row, "LastQueryId"),
			}
			it["refresh_history"] = append(it["refresh_history"].([]map[string]any), task)
		}
	}
	if t := results["SHOW ALTER TABLE MATERIALIZED VIEW"]; t != nil {
		for _, row := range t.Rows {
			name := t.Get(row, "RollupIndexName")
			if a.View != "" && !strings.EqualFold(name, a.View) {
				continue
			}
			items = append(items, map[string]any{"id": textOrNil(t, row, "RollupId"), "name": name, "database": db, "kind": "sync",
				"job_name": nil, "state": textOrNil(t, row, "State"), "schema_change_detail": nil, "refresh_state": nil,
				"refresh_info": nil, "sync_with_base_tables": nil, "compute_group": nil, "jobs": nil, "refresh_history": nil,
				"base_table": textOrNil(t, row, "TableName"), "build_job_id": textOrNil(t, row, "JobId"),
				"created_at": dorisTime(t.Get(row, "CreateTime")), "finished_at": dorisTime(t.Get(row, "FinishTime")),
				"error": redactedOrNil(t.Get(row, "Msg")), "progress": textOrNil(t, row, "Progress")})
		}
	}
	if len(a.States) > 0 {
		items = slices.DeleteFunc(items, func(it map[string]any) bool {
			st, _ := it["state"].(string)
			rs, _ := it["refresh_state"].(string)
			return !slices.ContainsFunc(a.States, func(s string) bool { return strings.EqualFold(s, st) || strings.EqualFold(s, rs) })
		})
	}
	for _, it := range items {
		if h, ok := it["refresh_history"].([]map[string]any); ok && len(h) > 0 {
			sort.SliceStable(h, func(i, j int) bool {
				x, _ := h[i]["created_at"].(string)
				y, _ := h[j]["created_at"].(string)
				return x > y
			})
			it["last_refresh"] = h[0]
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		x, y := items[i]["name"].(string), items[j]["name"].(string)
		if !strings.EqualFold(x, y) {
			return strings.ToLower(x) < strings.ToLower(y)
		}
		return items[i]["kind"].(string) < items[j]["kind"].(string)
	})
	if len(items) > pipelineMaxLimit {
		items, truncated = items[:pipelineMaxLimit], true
	}
	if truncated {
		warnings = append(warnings, "More materialized views or refresh tasks exist than are listed; narrow with view.")
	}
	return &doris.Result{Status: status, Warnings: warnings, Evidence: evidence, Truncated: truncated,
		Data: doris.Collection{Items: doris.OrEmpty(items), Truncated: truncated}}, nil
}

// boolCell reads Doris's boolean cells (1/0, true/false).
func boolCell(s string) any {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes":
		return true
	case "0", "false", "no":
		return false
	}
	return nil
}

// triggerMode reads triggerMode from a task's TaskContext JSON.
func triggerMode(s string) any {
	const key = `"triggerMode":"`
	i := strings.Index(s, key)
	if i < 0 {
		return nil
	}
	rest := s[i+len(key):]
	if j := strings.IndexByte(rest, '"'); j > 0 {
		return rest[:j]
	}
	return nil
}

// jsonList reads a JSON list of partition names.
func jsonList(s string) any {
	s = strings.TrimSpace(s)
	if s == "" || s == "NULL" || s == "\\N" {
		return nil
	}
	if !strings.HasPrefix(s, "[") {
		return nil
	}
	var out []string
	for _, p := range strings.Split(strings.Trim(s, "[]"), ",") {
		if p = strings.Trim(strings.TrimSpace(p), `"`); p != "" {
			out = append(out, p)
		}
	}
	return doris.OrEmpty(out)
}
