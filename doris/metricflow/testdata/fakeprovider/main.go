// Command fakeprovider is a MetricFlow provider for tests, speaking
// doris-mcp-metricflow/v1 on stdin and stdout. Its first argument chooses
// a behaviour: "demo" is a well-behaved provider of a small model over the
// demo schema (orders and customers); every other mode breaks the protocol
// in one way. An optional second argument names a file to which the
// provider (and any process it starts) appends its pid. An optional third
// argument names a Unix socket of the test's, so that a test need not
// poll or guess: in "hang" mode the provider connects to it once it and
// its child are running; in "slow" mode it connects and waits, instead of
// sleeping 2 s, until the test closes the connection.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"
)

type request struct {
	ProtocolVersion string          `json:"protocol_version"`
	RequestID       string          `json:"request_id"`
	Operation       string          `json:"operation"`
	Arguments       json.RawMessage `json:"arguments"`
}

const protocol = "doris-mcp-metricflow/v1"

func main() {
	mode := "demo"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if len(os.Args) > 2 {
		notePID(os.Args[2])
	}
	if mode == "sleep" {
		// A descendant: it reads no request and outlives its parent
		// unless it is killed.
		time.Sleep(time.Hour)
		return
	}
	var req request
	in, _ := io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	if err := json.Unmarshal(in, &req); err != nil {
		os.Exit(3)
	}
	answer := func(v map[string]any) {
		v["protocol_version"], v["request_id"] = protocol, req.RequestID
		b, _ := json.Marshal(v)
		os.Stdout.Write(b)
	}
	if mode == "slow" {
		// A provider slow to start, then well-behaved.
		if len(os.Args) > 3 {
			if c, err := net.Dial("unix", os.Args[3]); err == nil {
				io.Copy(io.Discard, c) // until the test closes it
				c.Close()
			}
		} else {
			time.Sleep(2 * time.Second)
		}
		mode = "demo"
	}
	switch mode {
	case "demo":
		data, reason := demo(req.Operation, req.Arguments)
		if reason != "" {
			answer(map[string]any{"ok": false, "error": map[string]any{"reason_code": reason}})
			return
		}
		answer(map[string]any{"ok": true, "data": data})
	case "env":
		answer(map[string]any{"ok": true, "data": map[string]any{"env": os.Environ(), "args": os.Args[1:], "stdin": string(in)}})
	case "hang":
		if len(os.Args) > 2 {
			spawn(exec.Command(os.Args[0], "sleep", os.Args[2]), os.Args[2])
		}
		if len(os.Args) > 3 {
			if c, err := net.Dial("unix", os.Args[3]); err == nil {
				c.Close() // the test's signal: both processes are up
			}
		}
		time.Sleep(time.Hour)
	case "orphan":
		// Answers at once but leaves a child holding stdout open.
		if len(os.Args) > 2 {
			child := exec.Command(os.Args[0], "sleep", os.Args[2])
			child.Stdout = os.Stdout
			spawn(child, os.Args[2])
		}
		answer(map[string]any{"ok": true, "data": map[string]any{"items": []any{}}})
	case "flood":
		b := []byte(strings.Repeat("x", 64<<10))
		for {
			if _, err := os.Stdout.Write(b); err != nil {
				os.Exit(1)
			}
		}
	case "flood-stderr":
		b := []byte(strings.Repeat("secret-ish diagnostics ", 4096))
		for {
			if _, err := os.Stderr.Write(b); err != nil {
				os.Exit(1)
			}
		}
	case "exit1":
		answer(map[string]any{"ok": true, "data": map[string]any{"items": []any{}}})
		os.Exit(1)
	case "wrong-id":
		req.RequestID = "00000000-0000-4000-8000-000000000000"
		answer(map[string]any{"ok": true, "data": map[string]any{"items": []any{}}})
	case "wrong-version":
		b, _ := json.Marshal(map[string]any{"protocol_version": "doris-mcp-metricflow/v2", "request_id": req.RequestID, "ok": true, "data": map[string]any{}})
		os.Stdout.Write(b)
	case "bad-utf8":
		fmt.Printf(`{"protocol_version":%q,"request_id":%q,"ok":true,"data":{"items":[{"model_ref":"a%sb"}]}}`, protocol, req.RequestID, "\xff")
	case "not-json":
		fmt.Print("Traceback (most recent call last): password=hunter2")
	case "two-values":
		fmt.Printf(`{"protocol_version":%q,"request_id":%q,"ok":true,"data":{}} {}`, protocol, req.RequestID)
	case "duplicate-id":
		fmt.Printf(`{"protocol_version":%q,"request_id":"forged","request_id":%q,"ok":true,"data":{}}`, protocol, req.RequestID)
	case "stderr-and-fail":
		fmt.Fprint(os.Stderr, "DORIS_PASSWORD=hunter2 connection refused")
		answer(map[string]any{"ok": false, "error": map[string]any{"message": "boom: hunter2"}})
	case "refuse":
		answer(map[string]any{"ok": false, "error": map[string]any{"reason_code": "METRICFLOW_METRIC_NOT_FOUND", "message": "no metric hunter2"}})
	case "data-array":
		answer(map[string]any{"ok": true, "data": []any{1, 2}})
	case "write":
		answer(map[string]any{"ok": true, "data": map[string]any{"sql": "DELETE FROM demo.orders WHERE 1 = 1", "dialect": "doris"}})
	case "multi":
		answer(map[string]any{"ok": true, "data": map[string]any{"sql": "SELECT 1; SELECT 2"}})
	case "egress":
		answer(map[string]any{"ok": true, "data": map[string]any{"sql": `SELECT * FROM http("uri" = "http://169.254.169.254/latest/meta-data/")`, "dialect": "doris"}})
	case "other-dialect":
		answer(map[string]any{"ok": true, "data": map[string]any{"sql": "SELECT 1", "dialect": "snowflake"}})
	case "empty-sql":
		answer(map[string]any{"ok": true, "data": map[string]any{"sql": "  "}})
	case "bad-items":
		answer(map[string]any{"ok": true, "data": map[string]any{"items": []any{map[string]any{"name": 7}}}})
	default:
		os.Exit(2)
	}
}

// spawn starts a child that notes its own pid in pidfile, and waits
// until it has, so that a test sees every process that was started.
func spawn(child *exec.Cmd, pidfile string) {
	if child.Start() != nil {
		return
	}
	want := fmt.Sprint(child.Process.Pid)
	for i := 0; i < 1000; i++ {
		b, _ := os.ReadFile(pidfile)
		for _, l := range strings.Fields(string(b)) {
			if l == want {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// notePID appends this process's pid to path.
func notePID(path string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintln(f, os.Getpid())
	f.Close()
}

// The demo model: orders (o) joined to customers (c).
var metrics = map[string]struct{ expr, typ, desc string }{
	"revenue":         {"SUM(o.total_amount)", "simple", "Order totals after discount, incl. shipping"},
	"order_count":     {"COUNT(o.order_id)", "simple", "Number of orders"},
	"buyers":          {"COUNT(DISTINCT o.customer_id)", "simple", "Customers with at least one order"},
	"avg_order_value": {"SUM(o.total_amount) / COUNT(o.order_id)", "ratio", "Revenue per order"},
}

var dims = map[string]struct{ expr, typ string }{
	"order__status":      {"o.status", "dimension"},
	"order__channel":     {"o.channel", "dimension"},
	"customer__country":  {"c.country", "dimension"},
	"customer__segment":  {"c.segment", "dimension"},
	"metric_time__day":   {"o.order_date", "time_dimension"},
	"metric_time__month": {"DATE_FORMAT(o.order_date, '%Y-%m')", "time_dimension"},
}

var saved = map[string]map[string]any{
	"revenue_by_country": {"metrics": []string{"revenue"}, "group_by": []string{"customer__country"}, "order_by": []string{"-revenue"}},
	"delivered_by_channel": {"metrics": []string{"order_count", "revenue"}, "group_by": []string{"order__channel"},
		"where": []string{"{{ Dimension('order__status') }} = 'delivered'"}, "order_by": []string{"order__channel"}},
}

type compileRequest struct {
	Metrics    []string `json:"metrics"`
	SavedQuery string   `json:"saved_query"`
	GroupBy    []string `json:"group_by"`
	Where      []string `json:"where"`
	StartTime  string   `json:"start_time"`
	EndTime    string   `json:"end_time"`
	OrderBy    []string `json:"order_by"`
	Limit      int      `json:"limit"`
}

func demo(op string, raw json.RawMessage) (any, string) {
	var a struct {
		ModelRef  string         `json:"model_ref"`
		Search    *string        `json:"search"`
		Limit     *int           `json:"limit"`
		Metrics   []string       `json:"metrics"`
		Dimension string         `json:"dimension"`
		StartTime *string        `json:"start_time"`
		EndTime   *string        `json:"end_time"`
		Request   compileRequest `json:"request"`
		Dialect   string         `json:"dialect"`
	}
	json.Unmarshal(raw, &a)
	if op != "list_models" && a.ModelRef != "demo/orders" {
		return nil, "METRICFLOW_MODEL_NOT_FOUND"
	}
	switch op {
	case "list_models":
		return map[string]any{"items": []any{map[string]any{"model_ref": "demo/orders", "name": "Orders demo", "description": "Orders and customers"}}}, ""
	case "get_status":
		return map[string]any{"model_valid": true, "dialect": "doris", "issues": []string{}}, ""
	case "list_metrics":
		var items []any
		for _, n := range sortedKeys(metrics) {
			if a.Search != nil && !strings.Contains(n, *a.Search) {
				continue
			}
			items = append(items, map[string]any{"name": n, "type": metrics[n].typ, "label": n, "description": metrics[n].desc, "dimensions": sortedKeys(dims)})
		}
		return limitItems(items, a.Limit), ""
	case "get_group_bys":
		for _, m := range a.Metrics {
			if _, ok := metrics[m]; !ok {
				return nil, "METRICFLOW_METRIC_NOT_FOUND"
			}
		}
		var items []any
		for _, n := range sortedKeys(dims) {
			it := map[string]any{"name": n, "type": dims[n].typ}
			if dims[n].typ == "time_dimension" {
				it["granularities"] = []string{strings.TrimPrefix(n, "metric_time__")}
			}
			items = append(items, it)
		}
		return map[string]any{"items": items}, ""
	case "list_saved_queries":
		var items []any
		for _, n := range sortedKeys(saved) {
			if a.Search != nil && !strings.Contains(n, *a.Search) {
				continue
			}
			items = append(items, map[string]any{"name": n, "description": "saved " + n, "metrics": saved[n]["metrics"], "group_by": saved[n]["group_by"]})
		}
		return limitItems(items, a.Limit), ""
	case "compile_dimension_values":
		d, ok := dims[a.Dimension]
		if !ok {
			return nil, "METRICFLOW_DIMENSION_NOT_FOUND"
		}
		var where []string
		if a.StartTime != nil {
			where = append(where, "o.order_date >= "+lit(*a.StartTime))
		}
		if a.EndTime != nil {
			where = append(where, "o.order_date <= "+lit(*a.EndTime))
		}
		sql := "SELECT DISTINCT " + d.expr + " AS " + a.Dimension + " FROM demo.orders o LEFT JOIN demo.customers c ON c.customer_id = o.customer_id"
		if len(where) > 0 {
			sql += " WHERE " + strings.Join(where, " AND ")
		}
		sql += " ORDER BY 1"
		if a.Limit != nil {
			sql += fmt.Sprintf(" LIMIT %d", *a.Limit)
		}
		return map[string]any{"sql": sql}, ""
	case "compile_query":
		if a.Dialect != "doris" {
			return nil, "METRICFLOW_DIALECT_UNSUPPORTED"
		}
		return compile(a.Request)
	}
	return nil, "METRICFLOW_OPERATION_UNSUPPORTED"
}

var whereRE = regexp.MustCompile(`^\{\{ Dimension\('([a-z_]+)'\) \}\} (=|<>) '([A-Za-z0-9 _-]*)'$`)

func compile(r compileRequest) (any, string) {
	if r.SavedQuery != "" {
		sq, ok := saved[r.SavedQuery]
		if !ok {
			return nil, "METRICFLOW_SAVED_QUERY_NOT_FOUND"
		}
		r.Metrics, r.GroupBy = sq["metrics"].([]string), sq["group_by"].([]string)
		if w, ok := sq["where"].([]string); ok {
			r.Where = append(w, r.Where...)
		}
		if len(r.OrderBy) == 0 {
			r.OrderBy, _ = sq["order_by"].([]string)
		}
	}
	var sel, group []string
	for _, g := range r.GroupBy {
		d, ok := dims[g]
		if !ok {
			return nil, "METRICFLOW_GROUP_BY_INVALID"
		}
		sel = append(sel, d.expr+" AS "+g)
		group = append(group, d.expr)
	}
	for _, m := range r.Metrics {
		x, ok := metrics[m]
		if !ok {
			return nil, "METRICFLOW_METRIC_NOT_FOUND"
		}
		sel = append(sel, x.expr+" AS "+m)
	}
	var where []string
	for _, w := range r.Where {
		m := whereRE.FindStringSubmatch(w)
		if m == nil {
			return nil, "METRICFLOW_WHERE_INVALID"
		}
		d, ok := dims[m[1]]
		if !ok {
			return nil, "METRICFLOW_WHERE_INVALID"
		}
		where = append(where, d.expr+" "+m[2]+" "+lit(m[3]))
	}
	if r.StartTime != "" {
		where = append(where, "o.order_date >= "+lit(r.StartTime))
	}
	if r.EndTime != "" {
		where = append(where, "o.order_date <= "+lit(r.EndTime))
	}
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM demo.orders o LEFT JOIN demo.customers c ON c.customer_id = o.customer_id"
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	if len(group) > 0 {
		sql += " GROUP BY " + strings.Join(group, ", ")
	}
	var order []string
	for _, o := range r.OrderBy {
		name, dir := strings.TrimPrefix(o, "-"), " ASC"
		if strings.HasPrefix(o, "-") {
			dir = " DESC"
		}
		if _, ok := metrics[name]; !ok {
			if _, ok := dims[name]; !ok {
				return nil, "METRICFLOW_ORDER_BY_INVALID"
			}
		}
		order = append(order, name+dir)
	}
	if len(order) > 0 {
		sql += " ORDER BY " + strings.Join(order, ", ")
	}
	if r.Limit > 0 {
		sql += fmt.Sprintf(" LIMIT %d", r.Limit)
	}
	return map[string]any{"sql": sql, "dialect": "doris"}, ""
}

func lit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func limitItems(items []any, limit *int) map[string]any {
	out := map[string]any{"items": items, "truncated": false}
	if items == nil {
		out["items"] = []any{}
	}
	if limit != nil && len(items) > *limit {
		out["items"], out["truncated"] = items[:*limit], true
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
