package sim

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// queryProfile is what the FE keeps about a query run with enable_profile.
type queryProfile struct {
	id, trace, user, db, sql string
	start, end               time.Time
	state, errMsg            string
	rows                     int
	done                     bool
}

// profileStore keeps the most recent profiles (bounded).
type profileStore struct {
	mu      sync.Mutex
	max     int
	order   []string
	byID    map[string]*queryProfile
	byTrace map[string]string
}

func newProfileStore(max int) *profileStore {
	return &profileStore{max: max, byID: map[string]*queryProfile{}, byTrace: map[string]string{}}
}

func (ps *profileStore) begin(id, trace, user, db, sql string, start time.Time) *queryProfile {
	p := &queryProfile{id: id, trace: trace, user: user, db: db, sql: sql, start: start, state: "RUNNING"}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.byID[id] = p
	ps.order = append(ps.order, id)
	if trace != "" {
		ps.byTrace[trace] = id
	}
	for len(ps.order) > ps.max {
		old := ps.order[0]
		ps.order = ps.order[1:]
		if op := ps.byID[old]; op != nil && ps.byTrace[op.trace] == old {
			delete(ps.byTrace, op.trace)
		}
		delete(ps.byID, old)
	}
	return p
}

func (ps *profileStore) finish(p *queryProfile, end time.Time, state, errMsg string, rows int) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p.end, p.state, p.errMsg, p.rows, p.done = end, state, errMsg, rows, true
}

func (ps *profileStore) get(id string) (queryProfile, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.byID[id]
	if !ok {
		return queryProfile{}, false
	}
	return *p, true
}

func (ps *profileStore) byTraceID(trace string) (queryProfile, bool) {
	ps.mu.Lock()
	id, ok := ps.byTrace[trace]
	ps.mu.Unlock()
	if !ok {
		return queryProfile{}, false
	}
	return ps.get(id)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return fmt.Sprintf("%dmin%dsec", int(d.Minutes()), int(d.Seconds())%60)
	case d >= time.Second:
		return fmt.Sprintf("%dsec%dms", int(d.Seconds()), int(d.Milliseconds())%1000)
	case d >= time.Millisecond:
		return fmt.Sprintf("%dms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.3fus", float64(d.Nanoseconds())/1000)
	}
}

// profileText renders a Doris-style query profile.
func profileText(p queryProfile, build string) string {
	end := p.end
	if !p.done {
		end = time.Now()
	}
	total := end.Sub(p.start)
	state := "OK"
	switch {
	case !p.done:
		state = "RUNNING"
	case p.state == "ERR":
		state = "ERR"
	}
	tables := tablesIn(p.sql)
	var b strings.Builder
	w := func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) }
	w("Summary:")
	w("   - Profile ID: %s", p.id)
	w("   - Task Type: QUERY")
	w("   - Start Time: %s", fmtTime(p.start))
	w("   - End Time: %s", fmtTime(end))
	w("   - Total: %s", fmtDur(total))
	w("   - Task State: %s", state)
	w("   - User: %s", p.user)
	w("   - Default Catalog: internal")
	w("   - Default Db: %s", p.db)
	w("   - Sql Statement: %s", p.sql)
	w("   - Doris Version: %s", build)
	w("   - Is Nereids: Yes")
	w("   - Is Cached: No")
	if p.errMsg != "" {
		w("   - Error Message: %s", p.errMsg)
	}
	w("Execution Summary:")
	w("   - Parse SQL Time: %s", fmtDur(total/50))
	w("   - Nereids Analysis Time: %s", fmtDur(total/40))
	w("   - Nereids Rewrite Time: %s", fmtDur(total/40))
	w("   - Nereids Optimize Time: %s", fmtDur(total/30))
	w("   - Plan Time: %s", fmtDur(total/10))
	w("   - Schedule Time: %s", fmtDur(total/20))
	w("   - Wait and Fetch Result Time: %s", fmtDur(total*7/10))
	w("   - Fetch Result Time: %s", fmtDur(total/10))
	w("   - Write Result Time: %s", fmtDur(total/50))
	w("   - Executed By Frontend: false")
	w("ChangedSessionVariables:")
	w("VarName        | CurrentValue | DefaultValue")
	w("---------------|--------------|-------------")
	w("enable_profile | true         | false")
	w("")
	w("MergedProfile:")
	w("  Fragments:")
	w("    Fragment 0:")
	w("      Pipeline 0(instance_num=1):")
	w("        RESULT_SINK_OPERATOR (id=0):")
	w("           -  ExecTime:  avg  %s,  max  %s,  min  %s", fmtDur(total/20), fmtDur(total/20), fmtDur(total/20))
	w("           -  InputRows:  sum  %d,  avg  %d,  max  %d,  min  %d", p.rows, p.rows, p.rows, p.rows)
	if len(tables) == 0 {
		w("        UNION_OPERATOR (id=1):")
		w("           -  ExecTime:  avg  %s,  max  %s,  min  %s", fmtDur(total/30), fmtDur(total/30), fmtDur(total/30))
		w("           -  RowsProduced:  sum  %d,  avg  %d,  max  %d,  min  %d", p.rows, p.rows, p.rows, p.rows)
		return b.String()
	}
	w("        EXCHANGE_OPERATOR (id=1):")
	w("           -  ExecTime:  avg  %s,  max  %s,  min  %s", fmtDur(total/10), fmtDur(total/8), fmtDur(total/12))
	w("           -  RowsProduced:  sum  %d,  avg  %d,  max  %d,  min  %d", p.rows, p.rows, p.rows, p.rows)
	w("    Fragment 1:")
	w("      Pipeline 0(instance_num=2):")
	w("        DATA_STREAM_SINK_OPERATOR (dest_id=1):")
	w("           -  ExecTime:  avg  %s,  max  %s,  min  %s", fmtDur(total/30), fmtDur(total/25), fmtDur(total/35))
	for i, t := range tables {
		w("        OLAP_SCAN_OPERATOR (id=%d. nereids_id=%d. table name = %s(%s)):", i+2, 100+i, t, t)
		w("           -  ExecTime:  avg  %s,  max  %s,  min  %s", fmtDur(total/3), fmtDur(total/2), fmtDur(total/4))
		w("           -  RowsProduced:  sum  %d,  avg  %d,  max  %d,  min  %d", p.rows, p.rows/2, p.rows, 0)
		w("           -  ScanBytes:  sum  %s,  avg  %s", humanSize(int64(p.rows)*96), humanSize(int64(p.rows)*48))
		w("           -  SpillWriteBytes:  sum  0.00 ,  avg  0.00")
	}
	return b.String()
}

// tablesIn lists the table names that follow FROM/JOIN in a statement.
func tablesIn(sql string) []string {
	ts := sig(lex(sql))
	var out []string
	seen := map[string]bool{}
	for i := 0; i+1 < len(ts); i++ {
		if !(ts[i].is("FROM") || ts[i].is("JOIN")) {
			continue
		}
		parts, _ := parseChain(ts, i+1)
		if len(parts) == 0 {
			continue
		}
		name := parts[len(parts)-1]
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}
