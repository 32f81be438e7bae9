package doris

// pipelineHandlers binds the children of doris_pipeline that this build runs.
func (r *Runtime) pipelineHandlers() map[string]Handler {
	return map[string]Handler{}
}

// pipelineProbeSQL are the SQL capability probes of doris_pipeline.
var pipelineProbeSQL = map[string]string{
	"pipeline.show_load":        "SHOW LOAD LIMIT 1",
	"pipeline.show_stream_load": "SHOW STREAM LOAD LIMIT 1",
	"pipeline.routine_load":     "SHOW ALL ROUTINE LOAD",
	"pipeline.insert_jobs":      `SELECT * FROM jobs("type"="insert") LIMIT 1`,
	"pipeline.mv_jobs":          `SELECT * FROM jobs("type"="mv") LIMIT 1`,
	"pipeline.mv_tasks":         `SELECT * FROM tasks("type"="mv") LIMIT 1`,
	"pipeline.audit_log":        "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1",
}
