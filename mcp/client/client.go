package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Options of a command.
type Options struct {
	// JSON prints machine-readable output (one JSON document).
	JSON bool
	// Args are --arg k=v pairs, in order; ArgsJSON is --json '{...}'.
	Args     []string
	ArgsJSON string
	// MaxPages bounds page (default 100).
	MaxPages int
	// Database is the database check lists tables of ("": the first that
	// is not a system database).
	Database string
	// DeniedTable is the object check expects the account may not read.
	DeniedTable string
	Out, Err    io.Writer
}

// Exit codes.
const (
	ExitOK      = 0
	ExitFailed  = 1 // an error answer, a failed step, no answer
	ExitUsage   = 2
	DefaultDeny = "secret.salaries" // the demo's table the reader may not read
)

// Usage is the commands' synopsis.
const Usage = `commands:
  list                                tools/list, every page
  discover DOMAIN                     the domain's manifest: children, schemas, availability
  call DOMAIN CHILD [--arg k=v]... [--json '{...}']
                                      discovers, then calls the child with manifest_version
  page DOMAIN CHILD [--arg k=v]...    calls a collection child, following next_cursor
  page                                tools/list one page at a time, with the cursors
  check [--database DB] [--denied-table DB.TABLE]
                                      the Host test sequence, one line per step
`

type runner struct {
	ctx  context.Context
	conn Conn
	o    Options
}

// Run runs one command on conn and returns the exit code.
func Run(ctx context.Context, conn Conn, command string, args []string, o Options) int {
	if o.MaxPages <= 0 {
		o.MaxPages = 100
	}
	r := &runner{ctx: ctx, conn: conn, o: o}
	var err error
	switch {
	case command == "list" && len(args) == 0:
		err = r.list()
	case command == "discover" && len(args) == 1:
		err = r.discoverCmd(args[0])
	case command == "call" && len(args) == 2:
		err = r.call(args[0], args[1])
	case command == "page" && (len(args) == 2 || len(args) == 0):
		err = r.page(args)
	case command == "check" && len(args) == 0:
		return r.check()
	default:
		fmt.Fprintf(o.Err, "client: %q with %d arguments is not a command\n%s", command, len(args), Usage)
		return ExitUsage
	}
	if err != nil {
		if o.JSON {
			r.printJSON(map[string]any{"ok": false, "error": errorJSON(err)})
		} else {
			fmt.Fprintln(o.Err, "client:", err)
		}
		return ExitFailed
	}
	return ExitOK
}

func errorJSON(err error) any {
	var rpc *RPCError
	if errors.As(err, &rpc) {
		return rpc
	}
	var ce *callError
	if errors.As(err, &ce) {
		return ce.env
	}
	return map[string]any{"message": err.Error()}
}

func (r *runner) printJSON(v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintln(r.o.Out, string(b))
}

// --- tools ------------------------------------------------------------------

type tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func (r *runner) toolsPage(cursor string) ([]tool, string, error) {
	params := map[string]any{}
	if cursor != "" {
		params["cursor"] = cursor
	}
	raw, err := r.conn.Call(r.ctx, "tools/list", params)
	if err != nil {
		return nil, "", err
	}
	var page struct {
		Tools      []tool `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return nil, "", fmt.Errorf("tools/list: %w", err)
	}
	return page.Tools, page.NextCursor, nil
}

func (r *runner) allTools() ([]tool, int, error) {
	var all []tool
	cursor := ""
	for pages := 1; ; pages++ {
		tools, next, err := r.toolsPage(cursor)
		if err != nil {
			return nil, pages, err
		}
		all = append(all, tools...)
		if next == "" || pages >= r.o.MaxPages {
			return all, pages, nil
		}
		cursor = next
	}
}

func (r *runner) list() error {
	tools, pages, err := r.allTools()
	if err != nil {
		return err
	}
	if r.o.JSON {
		r.printJSON(map[string]any{"ok": true, "pages": pages, "tools": tools})
		return nil
	}
	width := 0
	for _, t := range tools {
		width = max(width, len(t.Name))
	}
	for _, t := range tools {
		fmt.Fprintf(r.o.Out, "%-*s  %s\n", width, t.Name, firstSentence(t.Description, 100))
	}
	fmt.Fprintf(r.o.Out, "%d tools (%d pages)\n", len(tools), pages)
	return nil
}

func firstSentence(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	if len(s) > n {
		s = s[:n-3] + "..."
	}
	return s
}

// --- domains and children ------------------------------------------------------

// envelope is a tool result's structuredContent.
type envelope map[string]any

func (e envelope) str(keys ...string) string {
	var v any = map[string]any(e)
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	s, _ := v.(string)
	return s
}

// errCode is the code and reason code of an error envelope.
func (e envelope) errCode() (string, string) {
	return e.str("error", "code"), e.str("error", "details", "reason_code")
}

type callError struct{ env envelope }

func (c *callError) Error() string {
	code, reason := c.env.errCode()
	msg := code
	if reason != "" {
		msg += " (" + reason + ")"
	}
	return msg + ": " + c.env.str("error", "message")
}

// tool calls a tool and returns its structured content.
func (r *runner) tool(name string, args map[string]any) (envelope, error) {
	raw, err := r.conn.Call(r.ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return nil, err
	}
	var res struct {
		StructuredContent envelope `json:"structuredContent"`
		IsError           bool     `json:"isError"`
		Content           []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", name, err)
	}
	if res.StructuredContent == nil {
		text := ""
		if len(res.Content) > 0 {
			text = res.Content[0].Text
		}
		return nil, fmt.Errorf("tools/call %s returned no structured content: %.200s", name, text)
	}
	return res.StructuredContent, nil
}

type child struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	Availability struct {
		Status     string `json:"status"`
		Callable   bool   `json:"callable"`
		ReasonCode string `json:"reason_code"`
	} `json:"availability"`
}

type manifest struct {
	env      envelope
	version  string
	children []child
}

func (m *manifest) child(name string) *child {
	for i := range m.children {
		if m.children[i].Name == name {
			return &m.children[i]
		}
	}
	return nil
}

func (r *runner) discover(domain string) (*manifest, error) {
	env, err := r.tool(domain, map[string]any{})
	if err != nil {
		return nil, err
	}
	if env["mode"] != "manifest" {
		return nil, &callError{env}
	}
	m := &manifest{env: env, version: env.str("manifest_version")}
	b, _ := json.Marshal(env["children"])
	json.Unmarshal(b, &m.children)
	return m, nil
}

func (r *runner) discoverCmd(domain string) error {
	m, err := r.discover(domain)
	if err != nil {
		return err
	}
	if r.o.JSON {
		r.printJSON(m.env)
		return nil
	}
	fmt.Fprintf(r.o.Out, "%s: manifest_version %s, %d children\n", domain, m.version, len(m.children))
	width := 0
	for _, c := range m.children {
		width = max(width, len(c.Name))
	}
	for _, c := range m.children {
		state := "callable"
		if !c.Availability.Callable {
			state = "not callable: " + c.Availability.ReasonCode
		}
		fmt.Fprintf(r.o.Out, "  %-*s  [%s] %s\n", width, c.Name, state, firstSentence(stripPrefix(c.Description), 90))
	}
	return nil
}

// stripPrefix drops the "[AVAILABLE | Doris 3.0.4 | …] " hint in front of
// a child description.
func stripPrefix(s string) string {
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "] "); i > 0 {
			return s[i+2:]
		}
	}
	return s
}

// arguments builds a child's arguments from --json and --arg, typing each
// k=v by the child's input schema (a string property stays a string).
func arguments(c *child, argsJSON string, pairs []string) (map[string]any, error) {
	args := map[string]any{}
	if argsJSON != "" {
		if err := json.Unmarshal([]byte(argsJSON), &args); err != nil || args == nil {
			return nil, fmt.Errorf("--json: not a JSON object: %v", err)
		}
	}
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if c != nil {
		json.Unmarshal(c.InputSchema, &schema)
	}
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--arg %q: want key=value", p)
		}
		types := fmt.Sprint(schema.Properties[k].Type)
		var parsed any
		if !strings.Contains(types, "string") && json.Unmarshal([]byte(v), &parsed) == nil {
			args[k] = parsed
		} else {
			args[k] = v
		}
	}
	return args, nil
}

// callChild discovers the domain, calls the child with the manifest
// version, and rediscovers once when the manifest is stale.
func (r *runner) callChild(domain, name string, args map[string]any) (envelope, error) {
	m, err := r.discover(domain)
	if err != nil {
		return nil, err
	}
	if args == nil {
		if args, err = arguments(m.child(name), r.o.ArgsJSON, r.o.Args); err != nil {
			return nil, err
		}
	}
	for attempt := 0; ; attempt++ {
		env, err := r.tool(domain, map[string]any{"child_tool": name, "arguments": args, "manifest_version": m.version})
		if err != nil {
			return nil, err
		}
		if code, _ := env.errCode(); code == "CHILD_MANIFEST_STALE" && attempt == 0 {
			if m, err = r.discover(domain); err != nil {
				return nil, err
			}
			continue
		}
		return env, nil
	}
}

func (r *runner) call(domain, name string) error {
	env, err := r.callChild(domain, name, nil)
	if err != nil {
		return err
	}
	if env["mode"] != "result" {
		return &callError{env}
	}
	if r.o.JSON {
		r.printJSON(env)
		return nil
	}
	b, _ := json.MarshalIndent(env["data"], "", "  ")
	fmt.Fprintln(r.o.Out, string(b))
	if ws, _ := env["warnings"].([]any); len(ws) > 0 {
		for _, w := range ws {
			fmt.Fprintln(r.o.Out, "warning:", w)
		}
	}
	return nil
}

// page follows next_cursor of a collection child (or tools/list's
// nextCursor), printing each page.
func (r *runner) page(args []string) error {
	if len(args) == 0 {
		cursor := ""
		var pages []map[string]any
		for n := 1; n <= r.o.MaxPages; n++ {
			tools, next, err := r.toolsPage(cursor)
			if err != nil {
				return err
			}
			names := make([]string, len(tools))
			for i, t := range tools {
				names[i] = t.Name
			}
			pages = append(pages, map[string]any{"page": n, "tools": names, "nextCursor": next})
			if !r.o.JSON {
				fmt.Fprintf(r.o.Out, "page %d: %s\n", n, strings.Join(names, ", "))
				if next != "" {
					fmt.Fprintf(r.o.Out, "  nextCursor %s\n", next)
				}
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if r.o.JSON {
			r.printJSON(map[string]any{"ok": true, "pages": pages})
		}
		return nil
	}
	domain, name := args[0], args[1]
	m, err := r.discover(domain)
	if err != nil {
		return err
	}
	base, err := arguments(m.child(name), r.o.ArgsJSON, r.o.Args)
	if err != nil {
		return err
	}
	var items []any
	pages := 0
	for cursor := ""; pages < r.o.MaxPages; {
		a := map[string]any{}
		for k, v := range base {
			a[k] = v
		}
		if cursor != "" {
			a["page"] = cursor
		}
		env, err := r.callChild(domain, name, a)
		if err != nil {
			return err
		}
		if env["mode"] != "result" {
			return &callError{env}
		}
		pages++
		data, _ := env["data"].(map[string]any)
		inner, _ := data["data"].(map[string]any)
		got, ok := inner["items"].([]any)
		if !ok {
			return fmt.Errorf("%s.%s is not a collection (no items/next_cursor)", domain, name)
		}
		items = append(items, got...)
		if !r.o.JSON {
			fmt.Fprintf(r.o.Out, "page %d: %d items\n", pages, len(got))
			for _, it := range got {
				b, _ := json.Marshal(it)
				fmt.Fprintf(r.o.Out, "  %s\n", b)
			}
		}
		next, _ := inner["next_cursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	if r.o.JSON {
		r.printJSON(map[string]any{"ok": true, "pages": pages, "items": items})
	} else {
		fmt.Fprintf(r.o.Out, "%d items in %d pages\n", len(items), pages)
	}
	return nil
}

// --- check ------------------------------------------------------------------------

// Step is one step of check.
type Step struct {
	N        int    `json:"step"`
	Name     string `json:"name"`
	OK       bool   `json:"ok"`
	Evidence string `json:"evidence"`
}

var domains = []string{"doris_catalog", "doris_query", "doris_cluster", "doris_pipeline", "doris_search",
	"doris_governance", "doris_lakehouse", "doris_semantic"}

// check runs the Host test sequence of the host integration guide.
func (r *runner) check() int {
	var steps []Step
	step := func(name string, f func() (string, error)) {
		s := Step{N: len(steps) + 1, Name: name}
		ev, err := f()
		s.OK, s.Evidence = err == nil, ev
		if err != nil {
			s.Evidence = err.Error()
			if ev != "" {
				s.Evidence = ev + ": " + s.Evidence
			}
		}
		steps = append(steps, s)
		if !r.o.JSON {
			mark := "PASS"
			if !s.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(r.o.Out, "%s %d %-18s %s\n", mark, s.N, s.Name, s.Evidence)
		}
	}
	step("identity", r.checkIdentity)
	step("tools/list", r.checkTools)
	step("catalog tables", r.checkCatalog)
	step("cluster overview", r.checkCluster)
	step("invalid child", r.checkInvalidChild)
	step("read-only guard", r.checkGuard)
	step("stale manifest", r.checkStale)
	step("permission denied", r.checkDenied)
	passed := 0
	var failed []string
	for _, s := range steps {
		if s.OK {
			passed++
		} else {
			failed = append(failed, strconv.Itoa(s.N)+" "+s.Name)
		}
	}
	ok := passed == len(steps)
	if r.o.JSON {
		r.printJSON(map[string]any{"ok": ok, "passed": passed, "steps": steps})
	} else if ok {
		fmt.Fprintf(r.o.Out, "check: all %d steps passed\n", len(steps))
	} else {
		fmt.Fprintf(r.o.Out, "check: %d of %d steps passed; failed: %s\n", passed, len(steps), strings.Join(failed, ", "))
	}
	if !ok {
		return ExitFailed
	}
	return ExitOK
}

func (r *runner) checkIdentity() (string, error) {
	raw, err := r.conn.Call(r.ctx, "server/discover", map[string]any{})
	if err != nil {
		return "server/discover", err
	}
	var d struct {
		SupportedVersions []string `json:"supportedVersions"`
		Meta              struct {
			Info struct {
				Name, Version string
			} `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
		Capabilities map[string]any `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return "server/discover", err
	}
	ev := fmt.Sprintf("%s %s, protocol versions %s", d.Meta.Info.Name, d.Meta.Info.Version, strings.Join(d.SupportedVersions, " "))
	switch {
	case d.Meta.Info.Name == "":
		return ev, errors.New("no serverInfo in the result's _meta")
	case !slices.Contains(d.SupportedVersions, "2026-07-28"):
		return ev, errors.New("2026-07-28 is not a supported version")
	case d.Capabilities["tools"] == nil:
		return ev, errors.New("no tools capability")
	}
	return ev, nil
}

func (r *runner) checkTools() (string, error) {
	tools, pages, err := r.allTools()
	if err != nil {
		return "tools/list", err
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	ev := fmt.Sprintf("%d tools in %d pages", len(tools), pages)
	var missing []string
	for _, d := range domains {
		if !slices.Contains(names, d) {
			missing = append(missing, d)
		}
	}
	switch {
	case len(missing) == 0 && len(tools) == len(domains):
		return ev + " (the 8 domains, hierarchical)", nil
	case len(tools) > len(domains) && strings.HasPrefix(names[0], "doris_"):
		return ev + " (flat: formal child names)", nil
	}
	return ev, fmt.Errorf("want the 8 domain tools; missing %s", strings.Join(missing, ", "))
}

func (r *runner) checkCatalog() (string, error) {
	db := r.o.Database
	if db == "" {
		env, err := r.callChild("doris_catalog", "list_databases", map[string]any{})
		if err != nil {
			return "list_databases", err
		}
		if env["mode"] != "result" {
			return "list_databases", &callError{env}
		}
		for _, it := range items(env) {
			name, _ := it["name"].(string)
			if !slices.Contains([]string{"", "information_schema", "mysql", "__internal_schema", "__doris_sim", "sys", "performance_schema"}, strings.ToLower(name)) {
				db = name
				break
			}
		}
		if db == "" {
			return "list_databases", errors.New("the account sees no database but the system ones; give --database")
		}
	}
	env, err := r.callChild("doris_catalog", "list_tables", map[string]any{"database": db})
	if err != nil {
		return "list_tables " + db, err
	}
	if env["mode"] != "result" {
		return "list_tables " + db, &callError{env}
	}
	var names []string
	for _, it := range items(env) {
		n, _ := it["name"].(string)
		names = append(names, n)
	}
	ev := fmt.Sprintf("list_tables %s: %d tables", db, len(names))
	if len(names) == 0 {
		return ev, errors.New("the account sees no table in " + db + " (a missing SELECT privilege?)")
	}
	if len(names) > 4 {
		names = append(names[:4], "…")
	}
	return ev + " (" + strings.Join(names, ", ") + ")", nil
}

func items(env envelope) []map[string]any {
	data, _ := env["data"].(map[string]any)
	inner, _ := data["data"].(map[string]any)
	raw, _ := inner["items"].([]any)
	var out []map[string]any
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func (r *runner) checkCluster() (string, error) {
	env, err := r.callChild("doris_cluster", "get_cluster_overview", map[string]any{})
	if err != nil {
		return "get_cluster_overview", err
	}
	if env["mode"] != "result" {
		return "get_cluster_overview", &callError{env}
	}
	data, _ := env["data"].(map[string]any)
	inner, _ := data["data"].(map[string]any)
	sections, _ := inner["sections"].(map[string]any)
	var parts []string
	usable := 0
	for _, name := range sortedKeys(sections) {
		sec, _ := sections[name].(map[string]any)
		status, _ := sec["status"].(string)
		if status == "success" || status == "partial" {
			usable++
		}
		parts = append(parts, name+" "+status)
	}
	ev := "get_cluster_overview: " + strings.Join(parts, ", ")
	if usable == 0 {
		return ev, errors.New("no section of the overview could be read (a missing privilege, or Doris unreachable?)")
	}
	return ev, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (r *runner) checkInvalidChild() (string, error) {
	const bogus = "no_such_child_check"
	var answers []string
	var code string
	for range 2 {
		env, err := r.tool("doris_catalog", map[string]any{"child_tool": bogus, "arguments": map[string]any{}})
		if err != nil {
			return bogus, err
		}
		if env["mode"] != "error" {
			return bogus, fmt.Errorf("an invalid child answered mode %v", env["mode"])
		}
		code, _ = env.errCode()
		e, _ := env["error"].(map[string]any)
		delete(e, "trace_id")
		b, _ := json.Marshal(e)
		answers = append(answers, string(b))
	}
	ev := bogus + ": " + code
	if code != "CHILD_TOOL_NOT_FOUND" {
		return ev, errors.New("want CHILD_TOOL_NOT_FOUND")
	}
	if answers[0] != answers[1] {
		return ev, errors.New("the two answers differ: the rejection is not deterministic")
	}
	return ev + ", the same answer twice", nil
}

func (r *runner) checkGuard() (string, error) {
	const sql = "DELETE FROM doris_mcp_check.guard_probe WHERE 1 = 0"
	env, err := r.callChild("doris_query", "execute_query", map[string]any{"sql": sql})
	if err != nil {
		return "execute_query", err
	}
	code, reason := env.errCode()
	ev := fmt.Sprintf("execute_query %q: %s", sql, strings.TrimSpace(code+" "+reason))
	if env["mode"] == "result" {
		return ev, errors.New("a write statement ran: the read-only guard did not refuse it")
	}
	if reason != "QUERY_READ_ONLY_VIOLATION" {
		return ev, errors.New("want QUERY_READ_ONLY_VIOLATION")
	}
	return ev, nil
}

func (r *runner) checkStale() (string, error) {
	m, err := r.discover("doris_catalog")
	if err != nil {
		return "discover doris_catalog", err
	}
	old := m.version + "-stale"
	env, err := r.tool("doris_catalog", map[string]any{"child_tool": "list_databases", "arguments": map[string]any{}, "manifest_version": old})
	if err != nil {
		return "list_databases with an old manifest_version", err
	}
	code, _ := env.errCode()
	rediscover, _ := env["error"].(map[string]any)["details"].(map[string]any)["rediscover"].(bool)
	ev := "an old manifest_version: " + code
	if code != "CHILD_MANIFEST_STALE" || !rediscover {
		return ev, errors.New("want CHILD_MANIFEST_STALE with rediscover=true")
	}
	fresh, err := r.discover("doris_catalog")
	if err != nil {
		return ev + "; rediscovery", err
	}
	if v := env.str("manifest_version"); v != "" && v != fresh.version {
		return ev, fmt.Errorf("the stale answer names %s, rediscovery %s", v, fresh.version)
	}
	res, err := r.tool("doris_catalog", map[string]any{"child_tool": "list_databases", "arguments": map[string]any{}, "manifest_version": fresh.version})
	if err != nil {
		return ev, err
	}
	if res["mode"] != "result" {
		return ev + "; after rediscovery", &callError{res}
	}
	return ev + ", rediscovered " + fresh.version + ", the call then ran", nil
}

func (r *runner) checkDenied() (string, error) {
	table := r.o.DeniedTable
	if table == "" {
		table = DefaultDeny
	}
	sql := "SELECT * FROM " + table + " LIMIT 1"
	env, err := r.callChild("doris_query", "execute_query", map[string]any{"sql": sql})
	if err != nil {
		return "execute_query", err
	}
	code, reason := env.errCode()
	ev := fmt.Sprintf("%s: %s", table, strings.TrimSpace(code+" "+reason))
	if env["mode"] == "result" {
		return table + ": rows returned", errors.New("the account can read it; give --denied-table an object it may not read")
	}
	if reason != "QUERY_PERMISSION_DENIED" {
		return ev, errors.New("want QUERY_PERMISSION_DENIED")
	}
	return ev + ", refused for the request's own identity", nil
}
