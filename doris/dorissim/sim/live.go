package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Live information_schema tables. Doris fills these from the FE's and
// BEs' memory at the moment they are read, so the simulator answers them
// from its own state: a reference to one of them in a forwarded statement
// becomes a derived table of literal rows, and MariaDB still evaluates
// the statement around it (WHERE, ORDER BY, joins, aggregates). The
// seeded __doris_sim tables of the same names only give DESC and SHOW
// COLUMNS their shape.

// liveCol is one column of a live table: its name and SQL type ('s'
// string, 'i' integer, 't' datetime).
type liveCol struct {
	name string
	kind byte
}

// liveTable returns the derived table that stands for
// information_schema.<name> now, or "" when the table is not live.
func (c *conn) liveTable(name string) string {
	p := c.s.profile()
	switch name {
	case "active_queries":
		return derived(c.s.activeQueries(p))
	case "workload_groups":
		return derived(c.s.wgs.infoSchema(p, c.user, c.admin))
	case "workload_group_privileges":
		return derived(c.s.wgs.privileges(c.user, c.admin))
	case "file_cache_statistics":
		return derived(c.s.fileCacheStatistics())
	case "be_compaction_tasks":
		if p.atLeast("4.0") {
			return derived(c.s.compactionTasks())
		}
	}
	return ""
}

// derived renders rows as a parenthesised SELECT ... UNION ALL SELECT
// with typed columns; no rows is an empty SELECT of the same columns.
func derived(cols []liveCol, rows [][]any) string {
	cell := func(col liveCol, v any) string {
		typ := map[byte]string{'s': "CHAR", 'i': "SIGNED", 't': "DATETIME"}[col.kind]
		s, ok := cellString(v)
		if !ok {
			return "CAST(NULL AS " + typ + ")"
		}
		if col.kind == 'i' {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil {
				return "CAST(" + s + " AS SIGNED)"
			}
			return "CAST(NULL AS SIGNED)"
		}
		return "CAST(" + quoteString(s) + " AS " + typ + ")"
	}
	var b strings.Builder
	b.WriteString("(")
	if len(rows) == 0 {
		b.WriteString("SELECT ")
		for i, col := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(cell(col, nil) + " AS " + quoteIdent(col.name))
		}
		b.WriteString(" FROM DUAL WHERE 1 = 0)")
		return b.String()
	}
	for r, row := range rows {
		if r > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString("SELECT ")
		for i, col := range cols {
			if i > 0 {
				b.WriteString(", ")
			}
			var v any
			if i < len(row) {
				v = row[i]
			}
			b.WriteString(cell(col, v) + " AS " + quoteIdent(col.name))
		}
	}
	b.WriteString(")")
	return b.String()
}

// activeQueries lists the statements in flight on this FE, as Doris's
// QeProcessor does: every user's, the reading statement included. Only
// statements that reach the backends are registered there (queries and
// DML); SHOW, SET and the like are not.
func (s *Server) activeQueries(p profile) ([]liveCol, [][]any) {
	cols := []liveCol{{"QUERY_ID", 's'}, {"QUERY_START_TIME", 's'}, {"QUERY_TIME_MS", 'i'}, {"WORKLOAD_GROUP_ID", 'i'},
		{"DATABASE", 's'}, {"FRONTEND_INSTANCE", 's'}, {"QUEUE_START_TIME", 's'}, {"QUEUE_END_TIME", 's'}, {"QUERY_STATUS", 's'}}
	if p.atLeast("4.0") {
		cols = append(cols, liveCol{"USER", 's'})
	}
	cols = append(cols, liveCol{"SQL", 's'})
	feHost, _ := hostPort(s.addr)
	now := time.Now()
	var rows [][]any
	for _, c := range s.connections() {
		c.mu.Lock()
		executing, qid, sql, start, db := c.executing && c.up != nil, c.curQueryID, c.curSQL, c.curStart, c.db
		c.mu.Unlock()
		if !executing || !reachesBackends(sql) {
			continue
		}
		user := c.user // written by the handshake before c.up was set under c.mu

		row := []any{qid, fmtTime(start), now.Sub(start).Milliseconds(), s.wgs.id(s.act.group(c)), db, feHost, nil, nil, "RUNNING"}
		if p.atLeast("4.0") {
			row = append(row, user)
		}
		rows = append(rows, append(row, sql))
	}
	return cols, rows
}

// reachesBackends reports the statements Doris plans and runs on the
// backends (they have a coordinator, so the FE lists them as queries).
func reachesBackends(sql string) bool {
	ts := sig(lex(sql))
	if len(ts) == 0 {
		return false
	}
	for _, kw := range []string{"SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE"} {
		if ts[0].is(kw) {
			return true
		}
	}
	return ts[0].isP("(")
}

// fileCacheStatistics is information_schema.file_cache_statistics: one
// row per metric of the backend's one cache path.
func (s *Server) fileCacheStatistics() ([]liveCol, [][]any) {
	cols := []liveCol{{"BE_ID", 'i'}, {"BE_IP", 's'}, {"CACHE_PATH", 's'}, {"METRIC_NAME", 's'}, {"METRIC_VALUE", 's'}}
	a := s.act.snapshot(time.Now())
	beHost := s.topology().beHost
	var rows [][]any
	for _, kv := range fileCacheMetrics(a) {
		rows = append(rows, []any{backendID, beHost, fileCachePath, kv.name, kv.value})
	}
	return cols, rows
}

const fileCachePath = "/opt/apache-doris/be/file_cache/"

type namedValue struct{ name, value string }

// fileCacheMetrics are the file cache figures both the system table and
// the BE /metrics families report.
func fileCacheMetrics(a activitySnapshot) []namedValue {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return []namedValue{
		{"hits_ratio", f(ratio(a.hits, a.misses))},
		{"hits_ratio_1h", f(ratio(a.hits1h, a.misses1h))},
		{"hits_ratio_5m", f(ratio(a.hits5m, a.misses5m))},
		{"normal_queue_curr_elements", i(a.cacheElements)},
		{"normal_queue_curr_size", i(a.cacheBytes)},
		{"normal_queue_max_elements", i(cacheMaxElements)},
		{"normal_queue_max_size", i(cacheMaxBytes)},
		{"index_queue_curr_size", i(a.cacheElements * 4096)},
		{"disposable_queue_curr_size", "0"},
	}
}

// compactionTasks is information_schema.be_compaction_tasks (Doris 4.0+).
func (s *Server) compactionTasks() ([]liveCol, [][]any) {
	cols := []liveCol{{"BACKEND_ID", 'i'}, {"COMPACTION_ID", 's'}, {"TABLE_ID", 'i'}, {"PARTITION_ID", 'i'},
		{"TABLET_ID", 'i'}, {"COMPACTION_TYPE", 's'}, {"STATUS", 's'}, {"TRIGGER_METHOD", 's'}, {"COMPACTION_SCORE", 'i'},
		{"SCHEDULED_TIME", 't'}, {"START_TIME", 't'}, {"END_TIME", 't'}, {"ELAPSED_TIME_MS", 'i'},
		{"INPUT_ROWSETS_COUNT", 'i'}, {"INPUT_ROW_NUM", 'i'}, {"INPUT_DATA_SIZE", 'i'}, {"INPUT_INDEX_SIZE", 'i'},
		{"INPUT_TOTAL_SIZE", 'i'}, {"INPUT_SEGMENTS_NUM", 'i'}, {"INPUT_VERSION_RANGE", 's'}, {"MERGED_ROWS", 'i'},
		{"FILTERED_ROWS", 'i'}, {"OUTPUT_ROWS", 'i'}, {"OUTPUT_ROW_NUM", 'i'}, {"OUTPUT_DATA_SIZE", 'i'},
		{"OUTPUT_INDEX_SIZE", 'i'}, {"OUTPUT_TOTAL_SIZE", 'i'}, {"OUTPUT_SEGMENTS_NUM", 'i'}, {"OUTPUT_VERSION", 's'},
		{"MERGE_LATENCY_MS", 'i'}, {"BYTES_READ_FROM_LOCAL", 'i'}, {"BYTES_READ_FROM_REMOTE", 'i'},
		{"PEAK_MEMORY_BYTES", 'i'}, {"IS_VERTICAL", 'i'}, {"PERMITS", 'i'}, {"STATUS_MSG", 's'}}
	now := time.Now()
	a := s.act.snapshot(now)
	ts := func(t time.Time) string { return t.Format("2006-01-02 15:04:05") }
	var rows [][]any
	for _, t := range a.tasks {
		st := t.status(now)
		var start, end any
		elapsed := int64(0)
		// OUTPUT_ROWS .. MERGE_LATENCY_MS: known once the merge is done.
		output := []any{0, 0, 0, 0, 0, 0, "", 0}
		if st != "PENDING" {
			started := t.scheduled.Add(compactionPending)
			start, elapsed = ts(started), now.Sub(started).Milliseconds()
		}
		if st == "FINISHED" {
			end, elapsed = ts(t.scheduled.Add(compactionPending+compactionRunning)), compactionRunning.Milliseconds()
			data, index := t.bytes*95/100, t.bytes/64
			output = []any{t.rows, t.rows, data, index, data + index, 1, fmt.Sprintf("[%d-%d]", t.fromVer, t.toVer), elapsed * 4 / 5}
		}
		row := []any{backendID, t.id, t.tableID, t.tableID*10 + 1, t.tabletID, t.kind, st, t.trigger, t.score,
			ts(t.scheduled), start, end, elapsed, t.rowsets, t.rows, t.bytes, t.bytes / 64, t.bytes + t.bytes/64,
			t.rowsets, fmt.Sprintf("[%d-%d]", t.fromVer, t.toVer), 0, 0}
		row = append(row, output...)
		rows = append(rows, append(row, t.bytes, 0, int64(compactionMemBytes), 1, t.rowsets, ""))
	}
	return cols, rows
}
