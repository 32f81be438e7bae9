package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Job types of get_ingestion_status.
const (
	jobBatchLoad      = "batch_load"
	jobStreamLoad     = "stream_load"
	jobRoutineLoad    = "routine_load"
	jobInsertJob      = "insert_job"
	jobContinuousLoad = "continuous_load"
)

// ingestionQuery selects load jobs.
type ingestionQuery struct {
	database, table string
	types           []string
	states          []string
	fetch           int // rows read from each source
}

// ingestionResult is what the sources said.
type ingestionResult struct {
	items     []map[string]any
	evidence  []map[string]any
	warnings  []string
	truncated bool
}

// ingestionJobs reads the selected job sources concurrently and returns
// their jobs, normalised, filtered by table and state, newest first. A
// source that fails is reported in the evidence and warnings; the call
// fails only when every source does.
func (r kit) ingestionJobs(ctx context.Context, rt *doris.Route, q ingestionQuery) (*ingestionResult, error) {
	type source struct {
		name  string
		types []string
		read  func(context.Context) ([]map[string]any, bool, error)
	}
	db := doris.QuoteIdent(q.database)
	var sources []source
	want := func(ts ...string) bool {
		for _, t := range ts {
			if slices.Contains(q.types, t) {
				return true
			}
		}
		return false
	}
	if want(jobBatchLoad) {
		sources = append(sources, source{"SHOW LOAD", []string{jobBatchLoad}, func(ctx context.Context) ([]map[string]any, bool, error) {
			t, err := r.Text(ctx, rt, fmt.Sprintf("SHOW LOAD FROM %s ORDER BY CreateTime DESC LIMIT %d", db, q.fetch), q.fetch, pipelinePrefix)
			if err != nil {
				return nil, false, err
			}
			var out []map[string]any
			for _, row := range t.Rows {
				out = append(out, batchLoadItem(t, row, q.database))
			}
			return out, t.Truncated || len(t.Rows) >= q.fetch, nil
		}})
	}
	if want(jobStreamLoad) {
		sources = append(sources, source{"SHOW STREAM LOAD", []string{jobStreamLoad}, func(ctx context.Context) ([]map[string]any, bool, error) {
			t, err := r.Text(ctx, rt, fmt.Sprintf("SHOW STREAM LOAD FROM %s ORDER BY StartTime DESC LIMIT %d", db, q.fetch), q.fetch, pipelinePrefix)
			if err != nil {
				return nil, false, err
			}
			var out []map[string]any
			for _, row := range t.Rows {
				out = append(out, streamLoadItem(t, row))
			}
			return out, t.Truncated || len(t.Rows) >= q.fetch, nil
		}})
	}
	if want(jobRoutineLoad) {
		sources = append(sources, source{"SHOW ALL ROUTINE LOAD", []string{jobRoutineLoad}, func(ctx context.Context) ([]map[string]any, bool, error) {
			// Routine load jobs are listed for the session's database.
			t := &doris.TextRows{}
			err := r.TextInto(ctx, rt, doris.Stmt{SQL: "SHOW ALL ROUTINE LOAD", Prefix: pipelinePrefix, Database: q.database,
				Timeout: doris.DeadlineOr(ctx, r.Settings().QueryTimeout)}, pipelineMaxSourceRows, t)
			if err != nil {
				return nil, false, err
			}
			var out []map[string]any
			for _, row := range t.Rows {
				out = append(out, routineLoadItem(t, row))
			}
			return out, t.Truncated, nil
		}})
	}
	if want(jobInsertJob, jobContinuousLoad) {
		sources = append(sources, source{`jobs("type"="insert")`, []string{jobInsertJob, jobContinuousLoad}, func(ctx context.Context) ([]map[string]any, bool, error) {
			t, err := r.Text(ctx, rt, fmt.Sprintf(`SELECT * FROM jobs("type"="insert") ORDER BY CreateTime DESC LIMIT %d`, q.fetch), q.fetch, pipelinePrefix)
			if err != nil {
				return nil, false, err
			}
			var out []map[string]any
			for _, row := range t.Rows {
				out = append(out, insertJobItem(t, row, q.database))
			}
			return out, t.Truncated || len(t.Rows) >= q.fetch, nil
		}})
	}

	res := &ingestionResult{}
	var mu sync.Mutex // protects errs and the per-source outputs below
	var errs []error
	found := make([][]map[string]any, len(sources))
	cut := make([]bool, len(sources))
	steps := make([]doris.Step, len(sources))
	for i, s := range sources {
		steps[i] = doris.Step{Name: s.name, Run: func(ctx context.Context) (doris.Section, error) {
			items, truncated, err := s.read(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return doris.Section{}, err
			}
			found[i], cut[i] = items, truncated
			return doris.Section{Status: "success", Source: s.name}, nil
		}}
	}
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	ok := 0
	for i, s := range sources {
		sec := p.Sections[s.name]
		res.evidence = append(res.evidence, sourceEvidence(s.name, sec, len(found[i])))
		if sec.Status != "success" {
			res.warnings = append(res.warnings, s.name+" could not be read ("+sec.ReasonCode+"); its jobs are missing.")
			continue
		}
		ok++
		res.truncated = res.truncated || cut[i]
		for _, it := range found[i] {
			if slices.Contains(q.types, it["job_type"].(string)) {
				res.items = append(res.items, it)
			}
		}
		if s.name == "SHOW LOAD" && len(found[i]) == 0 {
			res.warnings = append(res.warnings, "SHOW LOAD lists only jobs on tables this account holds LOAD_PRIV on; none are visible to it.")
		}
	}
	// The database-scoped listings say whether the database exists.
	for _, err := range errs {
		if de := doris.Classify(pipelinePrefix, err, ctx); de.Reason == pipelinePrefix+"_OBJECT_NOT_FOUND" {
			return nil, de
		}
	}
	if ok == 0 && len(sources) > 0 {
		return nil, allFailed(errs, "PIPELINE_INGESTION_EVIDENCE_UNAVAILABLE", "no load job source of Doris could be read")
	}
	// Filters: table, then state.
	kept := res.items[:0]
	unscoped := 0
	for _, it := range res.items {
		if q.table != "" {
			tbl, _ := it["table"].(string)
			if tbl == "" {
				unscoped++
				continue
			}
			if !strings.EqualFold(tbl, q.table) {
				continue
			}
		}
		if db, _ := it["database"].(string); db != "" && !strings.EqualFold(db, q.database) {
			continue
		}
		if len(q.states) > 0 {
			st, _ := it["state"].(string)
			if !slices.ContainsFunc(q.states, func(s string) bool { return strings.EqualFold(s, st) }) {
				continue
			}
		}
		kept = append(kept, it)
	}
	res.items = kept
	if unscoped > 0 {
		res.warnings = append(res.warnings, fmt.Sprintf("%s without a recorded target table (SHOW LOAD does not name it) left out of the table-scoped answer.",
			doris.Plural(unscoped, "job", "jobs")))
	}
	sort.SliceStable(res.items, func(a, b int) bool {
		x, _ := res.items[a]["created_at"].(string)
		y, _ := res.items[b]["created_at"].(string)
		if x != y {
			return x > y
		}
		i, _ := res.items[a]["job_id"].(string)
		j, _ := res.items[b]["job_id"].(string)
		return i > j
	})
	return res, nil
}

// GetIngestionStatus runs doris_pipeline get_ingestion_status.
func GetIngestionStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		JobTypes []string `json:"job_types"`
		Database string   `json:"database"`
		Table    string   `json:"table"`
		States   []string `json:"states"`
		Limit    int      `json:"limit"`
	}{Limit: 100}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	if e := doris.CheckOptionalIdents(pipelinePrefix, doris.Arg("table", a.Table)); e != nil {
		return nil, e
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	types, warnings, err := jobTypesFor(c, a.JobTypes)
	if err != nil {
		return nil, err
	}
	db, err := r.resolveDatabase(ctx, rt, a.Database)
	if err != nil {
		return nil, err
	}
	fetch := a.Limit + 1
	if a.Table != "" || len(a.States) > 0 {
		fetch = pipelineMaxSourceRows // filters run here: read more
	}
	res, err := r.ingestionJobs(ctx, rt, ingestionQuery{database: db, table: a.Table, types: types, states: a.States, fetch: fetch})
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, res.warnings...)
	truncated := res.truncated || len(res.items) > a.Limit
	items := res.items
	if len(items) > a.Limit {
		items = items[:a.Limit]
	}
	status := "success"
	for _, ev := range res.evidence {
		if ev["status"] != "success" {
			status = "partial"
		}
	}
	if truncated {
		warnings = append(warnings, "More jobs may match than are listed; narrow with job_types, table or states.")
	}
	return &doris.Result{Status: status, Warnings: warnings, Evidence: res.evidence, Truncated: truncated,
		Data: doris.Collection{Items: doris.OrEmpty(items), Truncated: truncated}}, nil
}

// jobTypesFor resolves the requested job types against the active
// variant: continuous loads exist from Doris 4.1.
func jobTypesFor(c *doris.Call, requested []string) ([]string, []string, error) {
	continuous := c.Variant == "continuous_load"
	if len(requested) == 0 {
		types := []string{jobBatchLoad, jobStreamLoad, jobRoutineLoad, jobInsertJob}
		if continuous {
			types = append(types, jobContinuousLoad)
		}
		return types, nil, nil
	}
	var types, warnings []string
	for _, t := range requested {
		if t == jobContinuousLoad && !continuous {
			warnings = append(warnings, "Continuous loads exist from Doris 4.1; this cluster has none to list.")
			continue
		}
		types = append(types, t)
	}
	if len(types) == 0 {
		return nil, nil, &doris.Error{Kind: doris.KindFailed, Reason: "PIPELINE_JOB_TYPE_NOT_SUPPORTED", Status: 501,
			Message: "continuous loads (streaming INSERT jobs) exist from Doris 4.1; this cluster's version has none"}
	}
	return types, warnings, nil
}

// batchLoadItem reads a SHOW LOAD row (broker, spark and INSERT loads).
func batchLoadItem(t *doris.TextRows, row []doris.NullString, database string) map[string]any {
	it := map[string]any{
		"job_type": jobBatchLoad, "job_id": textOrNil(t, row, "JobId"), "label": textOrNil(t, row, "Label"),
		"database": database, "table": nil, "state": textOrNil(t, row, "State"), "progress": textOrNil(t, row, "Progress"),
		"load_type": textOrNil(t, row, "Type"), "created_at": dorisTime(t.Get(row, "CreateTime")),
		"started_at": dorisTime(t.Get(row, "LoadStartTime")), "finished_at": dorisTime(t.Get(row, "LoadFinishTime")),
		"error": redactedOrNil(t.Get(row, "ErrorMsg")), "transaction_id": textOrNil(t, row, "TransactionId"),
		"user": textOrNil(t, row, "User"), "tracking_url": textOrNil(t, row, "URL"),
	}
	var details struct {
		ScannedRows *int64 `json:"ScannedRows"`
		LoadBytes   *int64 `json:"LoadBytes"`
		FileNumber  *int64 `json:"FileNumber"`
	}
	if json.Unmarshal([]byte(t.Get(row, "JobDetails")), &details) == nil {
		it["scanned_rows"], it["load_bytes"] = ptrOrNil(details.ScannedRows), ptrOrNil(details.LoadBytes)
	}
	return it
}

// streamLoadItem reads a SHOW STREAM LOAD row.
func streamLoadItem(t *doris.TextRows, row []doris.NullString) map[string]any {
	status := t.Get(row, "Status")
	var errText any
	if !strings.EqualFold(status, "Success") {
		errText = redactedOrNil(t.Get(row, "Message"))
	}
	return map[string]any{
		"job_type": jobStreamLoad, "job_id": textOrNil(t, row, "Label"), "label": textOrNil(t, row, "Label"),
		"database": textOrNil(t, row, "Db"), "table": textOrNil(t, row, "Table"), "state": textOrNil(t, row, "Status"),
		"progress": nil, "created_at": dorisTime(t.Get(row, "StartTime")), "finished_at": dorisTime(t.Get(row, "FinishTime")),
		"error": errText, "error_url": textOrNil(t, row, "Url"),
		"total_rows": doris.AtoiOrNil(t.Get(row, "TotalRows")), "loaded_rows": doris.AtoiOrNil(t.Get(row, "LoadedRows")),
		"filtered_rows": doris.AtoiOrNil(t.Get(row, "FilteredRows")), "unselected_rows": doris.AtoiOrNil(t.Get(row, "UnselectedRows")),
		"load_bytes": doris.AtoiOrNil(t.Get(row, "LoadBytes")), "user": textOrNil(t, row, "User"),
	}
}

// routineLoadItem reads a SHOW ALL ROUTINE LOAD row. Data-source and
// custom properties (broker lists, SASL credentials) are not returned.
func routineLoadItem(t *doris.TextRows, row []doris.NullString) map[string]any {
	db := strings.TrimPrefix(t.Get(row, "DbName"), "default_cluster:")
	errText := t.Get(row, "ReasonOfStateChanged")
	if errText == "" {
		errText = t.Get(row, "OtherMsg")
	}
	return map[string]any{
		"job_type": jobRoutineLoad, "job_id": textOrNil(t, row, "Id"), "label": textOrNil(t, row, "Name"),
		"database": doris.StrOrNil(db, db != ""), "table": textOrNil(t, row, "TableName"), "state": textOrNil(t, row, "State"),
		"progress": textOrNil(t, row, "Progress"), "created_at": dorisTime(t.Get(row, "CreateTime")),
		"paused_at": dorisTime(t.Get(row, "PauseTime")), "finished_at": dorisTime(t.Get(row, "EndTime")),
		"error": redactedOrNil(errText), "data_source_type": textOrNil(t, row, "DataSourceType"),
		"current_task_num": doris.AtoiOrNil(t.Get(row, "CurrentTaskNum")), "lag": jsonOrNil(t.Get(row, "Lag")),
		"statistic": jsonOrNil(t.Get(row, "Statistic")), "user": textOrNil(t, row, "User"),
	}
}

// insertJobItem reads a jobs("type"="insert") row. A job with a
// streaming execute type or source offsets is a continuous load (4.1+).
func insertJobItem(t *doris.TextRows, row []doris.NullString, database string) map[string]any {
	typ := jobInsertJob
	if strings.EqualFold(t.Get(row, "ExecuteType"), "STREAMING") || t.Get(row, "CurrentOffset") != "" || t.Get(row, "EndOffset") != "" {
		typ = jobContinuousLoad
	}
	sqlText := t.Get(row, "ExecuteSql")
	var targetDB, targetTable any
	if refs, ok := parseSQLRefs(sqlText); ok && refs.Kind != "" {
		if o, ok := resolveName(refs.Target, "internal", database); ok {
			targetDB, targetTable = o.Database, o.Table
		}
	}
	stmtText, _ := doris.CapChars(doris.RedactSQL(sqlText), pipelineMaxStmtChars)
	return map[string]any{
		"job_type": typ, "job_id": textOrNil(t, row, "Id"), "label": textOrNil(t, row, "Name"),
		"database": targetDB, "table": targetTable, "state": textOrNil(t, row, "Status"), "progress": nil,
		"created_at": dorisTime(t.Get(row, "CreateTime")), "finished_at": nil, "error": nil,
		"execute_type": textOrNil(t, row, "ExecuteType"), "recurring_strategy": textOrNil(t, row, "RecurringStrategy"),
		"succeeded_task_count": doris.AtoiOrNil(t.Get(row, "SucceedTaskCount")), "failed_task_count": doris.AtoiOrNil(t.Get(row, "FailedTaskCount")),
		"canceled_task_count": doris.AtoiOrNil(t.Get(row, "CanceledTaskCount")), "definer": textOrNil(t, row, "Definer"),
		"statement": doris.StrOrNil(stmtText, sqlText != ""),
	}
}

func redactedOrNil(s string) any {
	s = strings.TrimSpace(s)
	if s == "" || s == "NULL" || s == "N/A" {
		return nil
	}
	out, _ := doris.CapChars(doris.RedactText(s), pipelineMaxStmtChars)
	return out
}

func ptrOrNil(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// jsonOrNil decodes a JSON cell of numbers and strings (routine load lag
// and statistics); anything else is left out.
func jsonOrNil(s string) any {
	var v map[string]any
	if json.Unmarshal([]byte(s), &v) != nil {
		return nil
	}
	for k, x := range v {
		switch x.(type) {
		case float64, string, bool, nil:
		default:
			delete(v, k)
		}
	}
	return v
}

// atoi64 reads an integer cell (0 when it is not one).
func atoi64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}
