package sim

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Workload groups that really change: CREATE, ALTER and DROP WORKLOAD
// GROUP (ADMIN only) edit the simulator's set, and SHOW WORKLOAD GROUPS,
// information_schema.workload_groups and workload_group_privileges report
// it in the shape of the current release (one row per property up to
// 3.0, one row per group from 4.0). Error texts are the FE's.

// wgProps are the properties a release accepts, in SHOW order, with the
// default a group created without them shows.
var wgPropsOld = [][2]string{{"cpu_share", "1024"}, {"memory_limit", "-1"}, {"enable_memory_overcommit", "true"},
	{"max_concurrency", "2147483647"}, {"max_queue_size", "0"}, {"queue_timeout", "0"}, {"cpu_hard_limit", "-1"},
	{"scan_thread_num", "-1"}, {"max_remote_scan_thread_num", "-1"}, {"min_remote_scan_thread_num", "-1"},
	{"spill_threshold_low_watermark", "50%"}, {"spill_threshold_high_watermark", "80%"}, {"tag", ""},
	{"read_bytes_per_second", "-1"}, {"remote_read_bytes_per_second", "-1"}}

var wgPropsNew = [][2]string{{"min_cpu_percent", "0%"}, {"max_cpu_percent", "100%"}, {"min_memory_percent", "0%"},
	{"max_memory_percent", "100%"}, {"max_concurrency", "2147483647"}, {"max_queue_size", "0"}, {"queue_timeout", "0"},
	{"scan_thread_num", "-1"}, {"max_remote_scan_thread_num", "-1"}, {"min_remote_scan_thread_num", "-1"},
	{"memory_low_watermark", "75%"}, {"memory_high_watermark", "85%"}, {"compute_group", "default"},
	{"read_bytes_per_second", "-1"}, {"remote_read_bytes_per_second", "-1"}, {"slot_memory_policy", "none"}}

func wgProps(p profile) [][2]string {
	if p.atLeast("4.0") {
		return wgPropsNew
	}
	return wgPropsOld
}

type wgroup struct {
	id       int64
	name     string
	props    map[string]string
	grantees map[string]bool // users with USAGE_PRIV; nil = everyone (the normal group)
}

// workloadGroups is the simulator's set; it is safe for concurrent use.
type workloadGroups struct {
	mu     sync.Mutex // protects groups and next
	groups []*wgroup
	next   int64
}

// newWorkloadGroups starts with the groups a fresh cluster of p's family
// has (normal) plus the etl group the demo uses.
func newWorkloadGroups(p profile) *workloadGroups {
	w := &workloadGroups{}
	for _, g := range p.workloadGroups() {
		id, _ := strconv.ParseInt(g.id, 10, 64)
		props := map[string]string{"cpu_share": g.cpuShare, "memory_limit": g.memLimit, "max_concurrency": g.maxConc,
			"max_queue_size": g.queueSize, "queue_timeout": g.queueTO, "cpu_hard_limit": g.cpuHard,
			"scan_thread_num": g.scanThreads, "min_cpu_percent": g.minCPU, "max_cpu_percent": g.maxCPU,
			"min_memory_percent": g.minMem, "max_memory_percent": g.maxMem, "memory_low_watermark": g.lowWM,
			"memory_high_watermark": g.highWM}
		grp := &wgroup{id: id, name: g.name, props: props}
		if g.name != "normal" {
			grp.grantees = map[string]bool{"etl_user": true}
		}
		w.groups = append(w.groups, grp)
		w.next = max(w.next, id+1)
	}
	return w
}

func (w *workloadGroups) findLocked(name string) *wgroup {
	for _, g := range w.groups {
		if g.name == name {
			return g
		}
	}
	return nil
}

func (g *wgroup) visibleTo(user string, admin bool) bool {
	return admin || g.grantees == nil || g.grantees[user]
}

// id returns a group's id, or -1 (what Doris shows for no single group).
func (w *workloadGroups) id(name string) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g := w.findLocked(name); g != nil {
		return g.id
	}
	return -1
}

// value is a property as SHOW prints it for release p.
func (g *wgroup) value(p profile, key, def string) string {
	v, ok := g.props[key]
	if !ok {
		return def
	}
	if key == "cpu_hard_limit" && v != "-1" && !strings.HasSuffix(v, "%") {
		return v + "%"
	}
	if p.atLeast("4.0") && strings.HasSuffix(key, "_percent") && !strings.HasSuffix(v, "%") {
		return v + "%"
	}
	return v
}

// visible returns the groups the user may see, by id.
func (w *workloadGroups) visible(user string, admin bool) []*wgroup {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*wgroup
	for _, g := range w.groups {
		if g.visibleTo(user, admin) {
			cp := *g
			cp.props = map[string]string{}
			for k, v := range g.props {
				cp.props[k] = v
			}
			out = append(out, &cp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// show is SHOW WORKLOAD GROUPS [LIKE 'pattern'] for release p.
func (w *workloadGroups) show(p profile, user string, admin bool, running map[string]int, like string) ([]string, [][]any) {
	var rows [][]any
	groups := w.visible(user, admin)
	props := wgProps(p)
	for _, g := range groups {
		if like != "" && !likeMatch(like, g.name) {
			continue
		}
		id := strconv.FormatInt(g.id, 10)
		usage := [][2]string{{"running_query_num", itoa(running[g.name])}, {"waiting_query_num", "0"}}
		if !p.atLeast("4.0") {
			for _, kv := range props {
				rows = append(rows, []any{id, g.name, kv[0], g.value(p, kv[0], kv[1])})
			}
			for _, kv := range usage {
				rows = append(rows, []any{id, g.name, kv[0], kv[1]})
			}
			continue
		}
		row := []any{id, g.name}
		for _, kv := range props {
			row = append(row, g.value(p, kv[0], kv[1]))
		}
		rows = append(rows, append(row, usage[0][1], usage[1][1]))
	}
	if !p.atLeast("4.0") {
		return []string{"Id", "Name", "Item", "Value"}, rows
	}
	cols := []string{"Id", "Name"}
	for _, kv := range props {
		cols = append(cols, kv[0])
	}
	return append(cols, "running_query_num", "waiting_query_num"), rows
}

// infoSchema is information_schema.workload_groups for release p.
func (w *workloadGroups) infoSchema(p profile, user string, admin bool) ([]liveCol, [][]any) {
	props := wgProps(p)
	cols := []liveCol{{"ID", 'i'}, {"NAME", 's'}}
	var keep [][2]string
	for _, kv := range props {
		if kv[0] == "slot_memory_policy" {
			continue // SHOW only
		}
		kind := byte('s')
		switch kv[0] {
		case "cpu_share", "max_concurrency", "max_queue_size", "queue_timeout", "scan_thread_num",
			"max_remote_scan_thread_num", "min_remote_scan_thread_num", "read_bytes_per_second", "remote_read_bytes_per_second":
			kind = 'i'
		}
		cols = append(cols, liveCol{strings.ToUpper(kv[0]), kind})
		keep = append(keep, kv)
	}
	var rows [][]any
	for _, g := range w.visible(user, admin) {
		row := []any{g.id, g.name}
		for _, kv := range keep {
			row = append(row, g.value(p, kv[0], kv[1]))
		}
		rows = append(rows, row)
	}
	return cols, rows
}

// privileges is information_schema.workload_group_privileges.
func (w *workloadGroups) privileges(user string, admin bool) ([]liveCol, [][]any) {
	cols := []liveCol{{"GRANTEE", 's'}, {"WORKLOAD_GROUP_NAME", 's'}, {"PRIVILEGE_TYPE", 's'}, {"IS_GRANTABLE", 's'}}
	var rows [][]any
	for _, g := range w.visible(user, admin) {
		users := []string{user}
		if g.grantees != nil {
			users = users[:0]
			for u := range g.grantees {
				if admin || u == user {
					users = append(users, u)
				}
			}
			sort.Strings(users)
		}
		for _, u := range users {
			rows = append(rows, []any{"'" + u + "'@'%'", g.name, "Usage_priv", "NO"})
		}
	}
	return cols, rows
}

// workloadGroupDDL runs CREATE / ALTER / DROP WORKLOAD GROUP.
func (c *conn) workloadGroupDDL(ts []token) error {
	if !c.admin {
		return c.send(adminDenied())
	}
	p := c.s.profile()
	verb := strings.ToUpper(ts[0].text)
	i := 3 // after VERB WORKLOAD GROUP
	ifClause := false
	if verb == "CREATE" && i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
		ifClause, i = true, i+3
	}
	if verb == "DROP" && i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		ifClause, i = true, i+2
	}
	if i >= len(ts) || !(ts[i].isIdent() || ts[i].kind == tkString) {
		return c.send(syntaxErr(ts, i))
	}
	name := ts[i].ident()
	if ts[i].kind == tkString {
		name = ts[i].str()
	}
	i++
	cg := c.s.computeGroupName()
	if i+1 < len(ts) && ts[i].is("FOR") && ts[i+1].isIdent() {
		cg, i = ts[i+1].ident(), i+2
	}
	props := map[string]string{}
	if i < len(ts) && ts[i].is("PROPERTIES") {
		kvs, next, ok := parseProperties(ts, i)
		if !ok {
			return c.send(syntaxErr(ts, next))
		}
		for _, kv := range kvs {
			props[strings.ToLower(kv[0])] = kv[1]
		}
		i = next
	}
	if i != len(ts) || (verb == "DROP" && len(props) > 0) {
		return c.send(syntaxErr(ts, i))
	}
	derr := c.s.wgs.apply(p, verb, name, cg, props, ifClause)
	if derr != nil {
		return c.send(derr)
	}
	return c.sendOK(0, "")
}

func (w *workloadGroups) apply(p profile, verb, name, cg string, props map[string]string, ifClause bool) *dorisErr {
	ddl := func(msg string) *dorisErr { return newDorisErr(1105, "HY000", msg) }
	newer := p.atLeast("4.0")
	w.mu.Lock()
	defer w.mu.Unlock()
	g := w.findLocked(name)
	switch verb {
	case "CREATE":
		if g != nil {
			if ifClause {
				return nil
			}
			if newer {
				return ddl(fmt.Sprintf("Compute group %s already has workload group %s.", cg, name))
			}
			return ddl("workload group " + name + " already exist")
		}
		if derr := checkWorkloadProps(p, props); derr != nil {
			return derr
		}
		w.groups = append(w.groups, &wgroup{id: w.next, name: name, props: props, grantees: map[string]bool{}})
		w.next++
	case "ALTER":
		if g == nil {
			if newer {
				return ddl(fmt.Sprintf("Can not find workload group %s in compute group %s.", name, cg))
			}
			return ddl("workload group(" + name + ") does not exist.")
		}
		if len(props) == 0 {
			return ddl("Alter workload group should contain at least one property")
		}
		merged := map[string]string{}
		for k, v := range g.props {
			merged[k] = v
		}
		for k, v := range props {
			merged[k] = v
		}
		if derr := checkWorkloadProps(p, props); derr != nil {
			return derr
		}
		g.props = merged
	case "DROP":
		if name == "normal" {
			if newer {
				return ddl("Dropping workload group normal is not allowed.")
			}
			return ddl("Dropping default workload group normal is not allowed")
		}
		if g == nil {
			if ifClause {
				return nil
			}
			if newer {
				return ddl(fmt.Sprintf("Can not find workload group %s in compute group %s.", name, cg))
			}
			return ddl("workload group " + name + " does not exist")
		}
		for k, x := range w.groups {
			if x == g {
				w.groups = append(w.groups[:k], w.groups[k+1:]...)
				break
			}
		}
	}
	return nil
}

// checkWorkloadProps refuses what the FE refuses: unknown properties and
// values of the wrong form.
func checkWorkloadProps(p profile, props map[string]string) *dorisErr {
	known := map[string]bool{}
	for _, kv := range wgProps(p) {
		known[kv[0]] = true
	}
	delete(known, "slot_memory_policy")
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := props[k]
		if !known[k] && !(p.atLeast("4.0") && k == "slot_memory_policy") {
			return newDorisErr(1105, "HY000", "Property "+k+" is not supported.")
		}
		switch k {
		case "max_concurrency", "max_queue_size", "queue_timeout":
			if n, err := strconv.Atoi(v); err != nil || n < 0 {
				return newDorisErr(1105, "HY000", k+" requires a positive integer")
			}
		case "cpu_share":
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				return newDorisErr(1105, "HY000", "cpu_share "+v+" requires a positive integer.")
			}
		case "memory_limit":
			if !strings.HasSuffix(v, "%") {
				return newDorisErr(1105, "HY000", "memory_limit "+v+" requires a percentage and ends with a '%'")
			}
		case "min_cpu_percent", "max_cpu_percent", "min_memory_percent", "max_memory_percent":
			if n, err := strconv.Atoi(strings.TrimSuffix(v, "%")); err != nil || n < 0 || n > 100 {
				return newDorisErr(1105, "HY000", k+" requires a positive integer between 0 and 100, but input value is "+v)
			}
		}
	}
	return nil
}

// syntaxErr is the Nereids parser's answer to a malformed statement.
func syntaxErr(ts []token, i int) *dorisErr {
	near := "<EOF>"
	if i < len(ts) {
		near = ts[i].text
	}
	return newDorisErr(1105, "HY000", fmt.Sprintf("\nextraneous input '%s' expecting {<EOF>, ';'}(line 1, pos %d)", near, i))
}
