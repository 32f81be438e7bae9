package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/guard"
)

// ingestionRuleVersion names the deterministic rules of diagnose_ingestion.
const ingestionRuleVersion = "ingestion-diagnosis-v1"

// failedStates are job states that mean a load did not land.
var failedStates = map[string]bool{"cancelled": true, "canceled": true, "fail": true, "failed": true, "paused": true,
	"stopped": true, "label already exists": true}

// runningStates are job states of loads still under way.
var runningStates = map[string]bool{"pending": true, "etl": true, "loading": true, "running": true,
	"need_schedule": true, "committed": true}

// DiagnoseIngestion runs doris_pipeline diagnose_ingestion.
func DiagnoseIngestion(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := struct {
		JobID               string `json:"job_id"`
		Database            string `json:"database"`
		Table               string `json:"table"`
		WindowMinutes       int    `json:"window_minutes"`
		IncludeDependencies bool   `json:"include_dependencies"`
	}{WindowMinutes: 60}
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
	db, err := r.resolveDatabase(ctx, rt, a.Database)
	if err != nil {
		return nil, err
	}
	types, _, err := jobTypesFor(c, nil)
	if err != nil {
		return nil, err
	}
	// Shared between steps; a step reads what an earlier one (its After)
	// wrote, after that one finished.
	var (
		jobs       []map[string]any
		table      = a.Table
		fresh      *freshness
		auditItems []map[string]any
	)
	steps := []doris.Step{{Name: "ingestion", Required: true, Run: func(ctx context.Context) (doris.Section, error) {
		res, err := r.ingestionJobs(ctx, rt, ingestionQuery{database: db, table: a.Table, types: types, fetch: pipelineMaxSourceRows})
		if err != nil {
			return doris.Section{}, err
		}
		for _, it := range res.items {
			if a.JobID == "" || matchesJob(it, a.JobID) {
				jobs = append(jobs, it)
			}
		}
		if table == "" {
			for _, j := range jobs {
				if t, _ := j["table"].(string); t != "" {
					table = t
					break
				}
			}
		}
		shown := jobs
		if len(shown) > 20 {
			shown = shown[:20]
		}
		sec := doris.Section{Status: "success", Source: "load job metadata", Warnings: res.warnings,
			Data: map[string]any{"matched_jobs": len(jobs), "jobs": doris.OrEmpty(shown), "sources": res.evidence}}
		for _, ev := range res.evidence {
			if ev["status"] != "success" {
				sec.Status = "partial"
			}
		}
		return sec, nil
	}}}
	after := ""
	if a.Table == "" {
		after = "ingestion" // the table comes from the matched job
	}
	steps = append(steps, doris.Step{Name: "freshness", Timeout: r.sectionTimeout(), After: after, Run: func(ctx context.Context) (doris.Section, error) {
		if table == "" {
			return doris.Section{Status: "unavailable", ReasonCode: "PIPELINE_TARGET_TABLE_UNKNOWN"}, nil
		}
		f, err := r.freshness(ctx, rt, db, table, 86400, "")
		if err != nil {
			return doris.Section{}, err
		}
		fresh = f
		return doris.Section{Status: "success", Source: fmt.Sprint(f.data["method"]), Data: f.data, Warnings: f.warnings}, nil
	}})
	if a.IncludeDependencies {
		steps = append(steps, doris.Step{Name: "dependencies", Timeout: r.sectionTimeout(), After: after, Run: func(ctx context.Context) (doris.Section, error) {
			if table == "" {
				return doris.Section{Status: "unavailable", ReasonCode: "PIPELINE_TARGET_TABLE_UNKNOWN"}, nil
			}
			g, err := r.dependencyEdges(ctx, rt, "internal", db)
			if err != nil {
				return doris.Section{}, err
			}
			res := dependencyResult(g, objectName{"internal", db, table}, "upstream", 2)
			return doris.Section{Status: res.Status, Source: "inferred dependencies", Data: res.Data, Warnings: res.Warnings}, nil
		}})
	}
	steps = append(steps, doris.Step{Name: "audit", Timeout: r.sectionTimeout(), After: after, Run: func(ctx context.Context) (doris.Section, error) {
		items, err := r.recentIngestionAudit(ctx, rt, db, table, a.JobID, a.WindowMinutes)
		if err != nil {
			return doris.Section{}, err
		}
		auditItems = items
		return doris.Section{Status: "success", Source: doris.AuditTable, Data: map[string]any{"window_minutes": a.WindowMinutes,
			"statements": doris.OrEmpty(items)}}, nil
	}})
	p, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}

	// Findings, by rule.
	var findings []map[string]any
	var evidence []map[string]any
	add := func(code, severity, msg, source string, ev map[string]any) {
		findings = append(findings, map[string]any{"code": code, "severity": severity, "message": msg})
		ev["finding"], ev["source"] = code, source
		evidence = append(evidence, ev)
	}
	failed, running, filtered := 0, 0, int64(0)
	for _, j := range jobs {
		state := strings.ToLower(fmt.Sprint(j["state"]))
		src := sourceOf(j)
		switch {
		case failedStates[state]:
			failed++
			add("INGESTION_JOB_FAILED", "error", fmt.Sprintf("%s %v ended %v", j["job_type"], j["label"], j["state"]), src,
				map[string]any{"job_id": j["job_id"], "label": j["label"], "state": j["state"], "error": j["error"], "error_url": j["error_url"]})
		case runningStates[state]:
			running++
		}
		if n := atoi64(j["filtered_rows"]); n > 0 && !failedStates[state] {
			filtered += n
			add("INGESTION_ROWS_FILTERED", "warning", fmt.Sprintf("%s %v loaded with %d rows filtered as bad data", j["job_type"], j["label"], n), src,
				map[string]any{"job_id": j["job_id"], "filtered_rows": n, "error_url": j["error_url"]})
		}
		if n := atoi64(j["failed_task_count"]); n > 0 {
			add("INGESTION_TASK_FAILURES", "warning", fmt.Sprintf("job %v recorded %d failed tasks", j["label"], n), src,
				map[string]any{"job_id": j["job_id"], "failed_task_count": n})
		}
		if lag, ok := j["lag"].(map[string]any); ok {
			var total float64
			for _, v := range lag {
				if f, ok := v.(float64); ok {
					total += f
				}
			}
			if total > 0 {
				add("ROUTINE_LOAD_LAG", "warning", fmt.Sprintf("routine load %v is %.0f messages behind its source", j["label"], total), src,
					map[string]any{"job_id": j["job_id"], "lag": total})
			}
		}
	}
	if len(jobs) == 0 && p.Sections["ingestion"].Status != "unavailable" {
		msg := "no load job of this table is visible"
		if a.JobID != "" {
			msg = "no visible load job has this id or label"
		}
		add("NO_MATCHING_JOBS", "info", msg+"; SHOW LOAD lists only jobs on tables the account may load into", "load job metadata", map[string]any{})
	}
	if fresh != nil {
		switch fresh.data["status"] {
		case "stale":
			add("TARGET_TABLE_STALE", "warning", fmt.Sprintf("the table was last updated %v seconds ago, beyond the 86400 s threshold", fresh.data["lag_seconds"]),
				fmt.Sprint(fresh.data["method"]), map[string]any{"last_update_time": fresh.data["last_update_time"], "lag_seconds": fresh.data["lag_seconds"]})
		case "unknown":
			add("FRESHNESS_UNKNOWN", "info", "no evidence of when the table last changed", "freshness", map[string]any{})
		}
	}
	if p.Sections["audit"].Status == "success" {
		errs := 0
		for _, it := range auditItems {
			if it["state"] == "ERR" {
				errs++
			}
		}
		if errs > 0 {
			add("RECENT_LOAD_STATEMENTS_FAILED", "warning", fmt.Sprintf("%s failed within the last %d minutes", doris.Plural(errs, "load statement", "load statements"), a.WindowMinutes),
				doris.AuditTable, map[string]any{"failed_statements": errs})
		}
		if len(auditItems) == 0 {
			add("NO_RECENT_LOAD_STATEMENTS", "info", fmt.Sprintf("no load statement for this target in the last %d minutes of the audit log", a.WindowMinutes),
				doris.AuditTable, map[string]any{})
		}
	}
	status := "success"
	var warnings []string
	for _, s := range steps {
		sec := p.Sections[s.Name]
		ev := map[string]any{"section": s.Name, "status": sec.Status, "source": sec.Source}
		if sec.Status == "unavailable" {
			ev["reason_code"] = sec.ReasonCode
			status = "partial"
			warnings = append(warnings, "The "+s.Name+" section is unavailable ("+sec.ReasonCode+").")
		}
		evidence = append(evidence, ev)
	}
	var jobID any
	if a.JobID != "" {
		jobID = a.JobID
	}
	return &doris.Result{Status: status, Warnings: warnings, Evidence: evidence, Data: map[string]any{
		"rule_version":   ingestionRuleVersion,
		"target":         map[string]any{"job_id": jobID, "database": db, "table": doris.StrOrNil(table, table != "")},
		"window_minutes": a.WindowMinutes,
		"summary": map[string]any{"matched_jobs": len(jobs), "failed_jobs": failed, "running_jobs": running,
			"filtered_rows": filtered},
		"findings": doris.OrEmpty(findings),
		"sections": p.Sections,
	}}, nil
}

// matchesJob reports whether a job's id or label is id.
func matchesJob(job map[string]any, id string) bool {
	for _, k := range []string{"job_id", "label"} {
		if s, ok := job[k].(string); ok && s == id {
			return true
		}
	}
	return false
}

func sourceOf(job map[string]any) string {
	switch job["job_type"] {
	case jobStreamLoad:
		return "SHOW STREAM LOAD"
	case jobRoutineLoad:
		return "SHOW ALL ROUTINE LOAD"
	case jobInsertJob, jobContinuousLoad:
		return `jobs("type"="insert")`
	}
	return "SHOW LOAD"
}

// recentIngestionAudit lists the statements of the last windowMinutes
// (exactly, by Doris's clock) that loaded the table, or that carry the
// job's label: INSERT, INSERT OVERWRITE, CTAS, broker LOAD and routine
// load creation. Statements are redacted.
func (r kit) recentIngestionAudit(ctx context.Context, rt *doris.Route, db, table, jobID string, windowMinutes int) ([]map[string]any, error) {
	marker := table
	if marker == "" {
		marker = jobID
	}
	if marker == "" {
		return nil, &doris.Error{Kind: doris.KindFailed, Reason: "PIPELINE_TARGET_TABLE_UNKNOWN", Status: 404,
			Message: "neither the table nor the job is known, so no statement can be matched"}
	}
	q, err := doris.Bind("SELECT `time`, query_id, `user`, db, state, stmt FROM "+doris.AuditTable+
		" WHERE `time` >= DATE_SUB(NOW(), INTERVAL %(w)s MINUTE) AND stmt LIKE %(pat)s ORDER BY `time` DESC LIMIT 501",
		map[string]any{"w": json.Number(strconv.Itoa(windowMinutes)), "pat": "%" + likeEscape(marker) + "%"})
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, pipelineMaxSourceRows, pipelinePrefix)
	if err != nil {
		return nil, auditUnavailable(err, ctx)
	}
	var out []map[string]any
	for _, row := range t.Rows {
		stmtText := t.Get(row, "stmt")
		refs, ok := parseSQLRefs(stmtText)
		if !ok || refs.Kind == "" || refs.Kind == "create_view" || refs.Kind == "create_materialized_view" {
			continue
		}
		target, ok := resolveName(refs.Target, "internal", t.Get(row, "db"))
		if !ok {
			continue
		}
		if table != "" && (!strings.EqualFold(target.Database, db) || !strings.EqualFold(target.Table, table)) {
			continue
		}
		if table == "" && !labelIn(stmtText, jobID) {
			continue
		}
		excerpt, cut := doris.CapChars(doris.RedactSQL(stmtText), pipelineMaxStmtChars)
		out = append(out, map[string]any{"time": dorisTime(t.Get(row, "time")), "query_id": textOrNil(t, row, "query_id"),
			"user": textOrNil(t, row, "user"), "state": textOrNil(t, row, "state"), "operation": refs.Kind,
			"target": target.String(), "statement": excerpt, "statement_truncated": cut})
		if len(out) == 50 {
			break
		}
	}
	return out, nil
}

// labelIn reports whether stmt names label in WITH LABEL or LOAD LABEL
// (read with the Doris lexer, so a label in a literal or a comment does
// not count).
func labelIn(stmtText, label string) bool {
	ts, err := guard.Scan(stmtText)
	if err != nil || label == "" {
		return false
	}
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].Kind != guard.TokWord || !strings.EqualFold(ts[i].Text, "LABEL") {
			continue
		}
		// LABEL [db.]label
		for j := i + 1; j < len(ts) && j <= i+3; j++ {
			t := ts[j]
			name := t.Text
			if t.Kind == guard.TokQuoted {
				name = strings.ReplaceAll(name[1:len(name)-1], "``", "`")
			} else if t.Kind != guard.TokWord {
				continue
			}
			if name == label && (j+1 == len(ts) || ts[j+1].Text != ".") {
				return true
			}
		}
	}
	return false
}
