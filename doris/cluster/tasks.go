package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Active tasks: the queries running now, from the first of three sources
// that answers for the caller (SHOW PROC needs ADMIN, active_queries is
// 2.1+, the process list is always there), and backend compaction tasks
// from information_schema.be_compaction_tasks (Doris 4.0 and later; the
// contract's "doris_be_compaction_tasks" does not exist in Doris).

const (
	maxTaskRead      = 2048 // rows read from a task source when filtering by state
	maxTaskStmtChars = 2048
	// activeQueriesSQL is the server's own listing; it is left out of the
	// answer (Doris lists the statement that reads the table).
	activeQueriesSQL = "SELECT * FROM information_schema.active_queries"
)

// taskSource is one way to list running queries.
type taskSource struct {
	name string // as shown to the user
	sql  string
	// idle is true when the source also lists what is not a task (idle
	// connections), so it is always read to maxTaskRead.
	idle bool
	item func(t *doris.TextRows, row []doris.NullString) (map[string]any, bool) // false: not a task
}

var querySources = []taskSource{
	{`SHOW PROC "/current_queries"`, `SHOW PROC "/current_queries"`, false, func(t *doris.TextRows, row []doris.NullString) (map[string]any, bool) {
		return queryTask(t.Get(row, "QueryId"), "RUNNING", doris.Nullable(t, row, "User"), doris.Nullable(t, row, "Database"), nil, nil,
			doris.AtoiOrNil(t.Get(row, "ExecTime")), t.Get(row, "Statement")), true
	}},
	{"information_schema.active_queries", activeQueriesSQL, false, func(t *doris.TextRows, row []doris.NullString) (map[string]any, bool) {
		stmt := t.Get(row, "SQL")
		if strings.HasPrefix(stmt, activeQueriesSQL) {
			return nil, false
		}
		state := strings.ToUpper(t.Get(row, "QUERY_STATUS"))
		if state == "" {
			state = "RUNNING"
		}
		return queryTask(t.Get(row, "QUERY_ID"), state, doris.Nullable(t, row, "USER"), doris.Nullable(t, row, "DATABASE"),
			doris.Nullable(t, row, "FRONTEND_INSTANCE"), doris.Nullable(t, row, "QUERY_START_TIME"), doris.AtoiOrNil(t.Get(row, "QUERY_TIME_MS")), stmt), true
	}},
	{"SHOW FULL PROCESSLIST", "SHOW FULL PROCESSLIST", true, func(t *doris.TextRows, row []doris.NullString) (map[string]any, bool) {
		cmd := t.Get(row, "Command")
		if strings.EqualFold(t.Get(row, "CurrentConnected"), "Yes") || !strings.EqualFold(cmd, "Query") && !strings.EqualFold(cmd, "Killed") {
			return nil, false // this server's own connection, idle connections, daemons
		}
		id := t.Get(row, "QueryId")
		if id == "" {
			id = "connection:" + t.Get(row, "Id")
		}
		state := "RUNNING"
		if strings.EqualFold(cmd, "Killed") {
			state = "KILLED"
		}
		var elapsed any
		if secs := doris.AtoiOrNil(t.Get(row, "Time")); secs != nil {
			elapsed = secs.(int64) * 1000
		}
		return queryTask(id, state, doris.Nullable(t, row, "User"), doris.Nullable(t, row, "Db"), doris.Nullable(t, row, "FE"), nil, elapsed,
			t.Get(row, "Info")), true
	}},
}

func queryTask(id, state string, user, db, node, started, elapsed any, stmt string) map[string]any {
	text, cut := doris.CapChars(doris.MaskLiterals(stmt), maxTaskStmtChars)
	item := map[string]any{"task_type": "query", "task_id": id, "state": state, "user": user, "database": db,
		"node": node, "started_at": started, "elapsed_ms": elapsed, "progress": nil, "statement": text}
	if cut {
		item["statement_truncated"] = true
	}
	return item
}

type taskArgs struct {
	TaskTypes []string `json:"task_types"`
	States    []string `json:"states"`
	Limit     int      `json:"limit"`
}

// ListActiveTasks runs doris_cluster list_active_tasks.
func ListActiveTasks(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	a := taskArgs{TaskTypes: []string{"query"}, Limit: 100}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	states := map[string]bool{}
	for _, s := range a.States {
		states[strings.ToUpper(s)] = true
	}
	read := a.Limit + 2
	if len(states) > 0 {
		read = maxTaskRead
	}
	var items []map[string]any
	var warnings, sources []string
	var failures []*doris.Error
	truncated, partial := false, false
	if slices.Contains(a.TaskTypes, "query") {
		var tried []string
		ok := false
		for _, src := range querySources {
			n := read
			if src.idle {
				n = maxTaskRead
			}
			t, err := r.Text(ctx, rt, src.sql, n, clusterPrefix)
			if err != nil {
				de := doris.Classify(clusterPrefix, err, ctx)
				failures = append(failures, de)
				tried = append(tried, src.name+": "+de.Reason)
				if ctx.Err() != nil {
					break
				}
				continue
			}
			for _, row := range t.Rows {
				if it, isTask := src.item(t, row); isTask && (len(states) == 0 || states[it["state"].(string)]) {
					items = append(items, it)
				}
			}
			truncated = truncated || t.Truncated
			sources = append(sources, src.name)
			if len(tried) > 0 {
				warnings = append(warnings, fmt.Sprintf("Query tasks come from %s (%s).", src.name, strings.Join(tried, "; ")))
			}
			ok = true
			break
		}
		if !ok {
			partial = true
			warnings = append(warnings, "Running queries could not be listed ("+strings.Join(tried, "; ")+").")
		}
	}
	if slices.Contains(a.TaskTypes, "compaction") {
		got, cut, err := r.compactionTasks(ctx, rt, a, states)
		if err != nil {
			de := doris.Classify(clusterPrefix, err, ctx)
			failures = append(failures, de)
			partial = true
			warnings = append(warnings, "Compaction tasks could not be listed ("+de.Reason+"); information_schema.be_compaction_tasks "+
				"exists from Doris 4.0. get_compaction_status gives a metrics summary on older releases.")
		} else {
			items = append(items, got...)
			truncated = truncated || cut
			sources = append(sources, "information_schema.be_compaction_tasks")
		}
	}
	if len(sources) == 0 {
		return nil, tasksUnavailable(failures)
	}
	sort.SliceStable(items, func(i, j int) bool {
		if items[i]["task_type"] != items[j]["task_type"] {
			return items[i]["task_type"].(string) > items[j]["task_type"].(string) // query first
		}
		ei, _ := items[i]["elapsed_ms"].(int64)
		ej, _ := items[j]["elapsed_ms"].(int64)
		if ei != ej {
			return ei > ej
		}
		return items[i]["task_id"].(string) < items[j]["task_id"].(string)
	})
	if len(items) > a.Limit {
		items, truncated = items[:a.Limit], true
	}
	if truncated {
		warnings = append(warnings, "More tasks match than are shown; raise limit or filter by states.")
	}
	status := "success"
	if partial {
		status = "partial"
	}
	return &doris.Result{Status: status, Warnings: warnings, Source: strings.Join(sources, ", "), Truncated: truncated,
		Data: doris.Collection{Items: doris.OrEmpty(items), Truncated: truncated}}, nil
}

// tasksUnavailable is the error when no task source answered: the common
// reason when every source failed the same way (a permission), else a
// general one.
func tasksUnavailable(failures []*doris.Error) error {
	for _, f := range failures[1:] {
		if f.Reason != failures[0].Reason {
			return &doris.Error{Kind: doris.KindFailed, Reason: "CLUSTER_TASK_METADATA_UNAVAILABLE", Status: 503, Retryable: true,
				Message: "no source of running tasks could be read"}
		}
	}
	return failures[0]
}

// compactionTasks lists backend compaction tasks: running and pending
// ones unless states asks for others.
func (r kit) compactionTasks(ctx context.Context, rt *doris.Route, a taskArgs, states map[string]bool) ([]map[string]any, bool, error) {
	want := []string{"RUNNING", "PENDING"}
	if len(states) > 0 {
		want = want[:0]
		for s := range states {
			want = append(want, s)
		}
		sort.Strings(want)
	}
	params := map[string]any{"limit": json.Number(strconv.Itoa(a.Limit + 1))}
	in := make([]string, len(want))
	for i, s := range want {
		key := "s" + strconv.Itoa(i)
		in[i] = "%(" + key + ")s"
		params[key] = s
	}
	q, err := doris.Bind("SELECT BACKEND_ID, COMPACTION_ID, TABLE_ID, TABLET_ID, COMPACTION_TYPE, STATUS, SCHEDULED_TIME, START_TIME, "+
		"ELAPSED_TIME_MS FROM information_schema.be_compaction_tasks WHERE UPPER(STATUS) IN ("+strings.Join(in, ", ")+
		") ORDER BY SCHEDULED_TIME DESC LIMIT %(limit)s", params)
	if err != nil {
		return nil, false, err
	}
	t, err := r.Text(ctx, rt, q, a.Limit+1, clusterPrefix)
	if err != nil {
		return nil, false, err
	}
	var out []map[string]any
	for _, row := range t.Rows {
		started := doris.Nullable(t, row, "START_TIME")
		if started == nil {
			started = doris.Nullable(t, row, "SCHEDULED_TIME")
		}
		out = append(out, map[string]any{"task_type": "compaction", "task_id": t.Get(row, "COMPACTION_ID"),
			"state": doris.Nullable(t, row, "STATUS"), "user": nil, "database": nil, "node": doris.Nullable(t, row, "BACKEND_ID"),
			"started_at": started, "elapsed_ms": doris.AtoiOrNil(t.Get(row, "ELAPSED_TIME_MS")), "progress": nil, "statement": nil,
			"compaction_type": doris.Nullable(t, row, "COMPACTION_TYPE"), "table_id": doris.Nullable(t, row, "TABLE_ID"),
			"tablet_id": doris.Nullable(t, row, "TABLET_ID")})
	}
	return out, len(t.Rows) > a.Limit || t.Truncated, nil
}
