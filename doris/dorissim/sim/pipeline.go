package sim

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pipeline is the simulator's ingestion and materialized-view metadata,
// what a Doris FE keeps about data arriving: load jobs (INSERT and what
// SHOW LOAD lists), stream load records, labels, asynchronous materialized
// views with their scheduler jobs and refresh tasks, synchronous MV builds,
// and each table's visible version. Every entry comes from something that
// really ran through the simulator (a statement, an HTTP load, a refresh).
// Like an FE's memory it starts empty when the simulator starts; the data
// itself lives upstream.
type pipeline struct {
	mu       sync.Mutex // protects the fields below
	nextID   int64
	nextTxn  int64
	loads    []*loadJob
	streams  []*streamRecord
	errLogs  map[string]string
	errOrder []string
	mvs      []*mtmv
	tasks    []*mvTask
	syncMVs  []*syncMV
	versions map[string]*tableVersion

	stop chan struct{} // closes the MV scheduler
	once sync.Once
}

// Bounds on the metadata kept (Doris also expires old jobs and records).
const (
	maxLoadJobs     = 5000
	maxStreamLoads  = 5000
	maxMVTasks      = 2000
	maxErrorLogs    = 200
	maxErrorLogRows = 50
)

// tableVersion is a table's visible version: 1 when created, one more per
// committed write through the simulator.
type tableVersion struct {
	version int64
	at      time.Time
}

func newPipeline() *pipeline {
	return &pipeline{nextID: 20000, nextTxn: 60000, errLogs: map[string]string{},
		versions: map[string]*tableVersion{}, stop: make(chan struct{})}
}

func (p *pipeline) close() { p.once.Do(func() { close(p.stop) }) }

// id returns a fresh job, MV or task id.
func (p *pipeline) id() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	return p.nextID
}

// txn returns a fresh transaction id.
func (p *pipeline) txn() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextTxn++
	return p.nextTxn
}

// version returns what the simulator knows of a table's visible version.
func (p *pipeline) version(db, table string) (tableVersion, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.versions[tableKey(db, table)]
	if !ok {
		return tableVersion{}, false
	}
	return *v, true
}

// wrote records a committed write to db.table: its visible version moves
// on, and materialized views refreshed ON COMMIT from it are refreshed.
func (s *Server) wrote(db, table string, at time.Time) {
	p := s.pipe
	p.mu.Lock()
	v := p.versions[tableKey(db, table)]
	if v == nil {
		v = &tableVersion{version: 1}
		p.versions[tableKey(db, table)] = v
	}
	v.version++
	v.at = at
	var onCommit []*mtmv
	for _, mv := range p.mvs {
		if mv.trigger == "COMMIT" && mv.readsTable(db, table) {
			onCommit = append(onCommit, mv)
		}
	}
	p.mu.Unlock()
	for _, mv := range onCommit {
		s.refreshInBackground(mv, "COMMIT")
	}
}

// pipelineStatement runs the statements whose effects the FE records for
// ingestion and materialized views. handled=false leaves the statement to
// the normal path.
func (c *conn) pipelineStatement(sql string, ts []token) (handled bool, err error) {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	switch {
	case ts[0].is("INSERT"):
		return true, c.insertStatement(sql, ts)
	case ts[0].is("UPDATE") || ts[0].is("DELETE"):
		return true, c.dmlStatement(sql, ts)
	case ts[0].is("CREATE") && at(1).is("MATERIALIZED") && at(2).is("VIEW"):
		return true, c.createMV(sql, ts)
	case ts[0].is("REFRESH") && at(1).is("MATERIALIZED") && at(2).is("VIEW"):
		return true, c.refreshMVStatement(ts)
	case ts[0].is("DROP") && at(1).is("MATERIALIZED") && at(2).is("VIEW"):
		return true, c.dropMV(ts)
	}
	return false, nil
}

// showPipeline answers SHOW LOAD, SHOW STREAM LOAD, SHOW ALTER TABLE
// MATERIALIZED VIEW and SHOW CREATE MATERIALIZED VIEW; ts are the tokens
// after SHOW.
func (c *conn) showPipeline(ts []token) (handled bool, err error) {
	at := func(i int) token {
		if i < len(ts) {
			return ts[i]
		}
		return token{}
	}
	switch {
	case at(0).is("LOAD") && !at(1).is("WARNINGS") && !at(1).is("PROFILE"):
		return true, c.showLoad(ts[1:])
	case at(0).is("STREAM") && at(1).is("LOAD"):
		return true, c.showStreamLoad(ts[2:])
	case at(0).is("ALTER") && at(1).is("TABLE") && at(2).is("MATERIALIZED") && at(3).is("VIEW"):
		return true, c.showSyncMVJobs(ts[4:])
	case at(0).is("CREATE") && at(1).is("MATERIALIZED") && at(2).is("VIEW"):
		return true, c.showCreateMV(ts[3:])
	}
	return false, nil
}

// dmlStatement forwards UPDATE and DELETE and, when they succeed, records
// the write against the target table.
func (c *conn) dmlStatement(sql string, ts []token) error {
	i := 1
	if ts[0].is("DELETE") {
		for i < len(ts) && !ts[i].is("FROM") {
			i++
		}
		i++
	}
	for i < len(ts) && (ts[i].is("LOW_PRIORITY") || ts[i].is("IGNORE") || ts[i].is("QUICK")) {
		i++
	}
	parts, _ := parseChain(ts, i)
	if err := c.forward(sql); err != nil {
		return err
	}
	if !c.stmtFailed && len(parts) > 0 {
		db, table := c.splitName(parts)
		c.s.wrote(db, table, time.Now())
	}
	return nil
}

// splitName resolves [catalog.][db.]table against the session database.
func (c *conn) splitName(parts []string) (db, table string) {
	cur, _, _ := c.snapshot()
	switch len(parts) {
	case 1:
		return cur, parts[0]
	case 2:
		return stripInternalPrefix(parts[0]), parts[1]
	default:
		return parts[len(parts)-2], parts[len(parts)-1]
	}
}

// upstreamFor opens a connection to the upstream as user, for work done
// outside a client connection (HTTP loads, scheduled refreshes).
func (s *Server) upstreamFor(ctx context.Context, user, db string) (*upstream, error) {
	pw, ok := s.opts.Users[user]
	if !ok {
		return nil, fmt.Errorf("sim: no password known for %q", user)
	}
	return dialUpstream(ctx, s.opts.Upstream, user, pw, db, 45)
}

// hasPrivilege reports whether the upstream account behind up holds priv
// (an upstream privilege name such as INSERT or CREATE) on db.table, from
// its own information_schema privilege views: Doris's LOAD_PRIV is judged
// by the upstream INSERT privilege.
func hasPrivilege(up *upstream, priv, db, table string) bool {
	me := "CONCAT('''', SUBSTRING_INDEX(CURRENT_USER(), '@', 1), '''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')"
	q := fmt.Sprintf("SELECT 1 FROM information_schema.USER_PRIVILEGES WHERE GRANTEE = %[1]s AND PRIVILEGE_TYPE = %[2]s "+
		"UNION ALL SELECT 1 FROM information_schema.SCHEMA_PRIVILEGES WHERE GRANTEE = %[1]s AND PRIVILEGE_TYPE = %[2]s AND %[3]s LIKE TABLE_SCHEMA "+
		"UNION ALL SELECT 1 FROM information_schema.TABLE_PRIVILEGES WHERE GRANTEE = %[1]s AND PRIVILEGE_TYPE = %[2]s AND TABLE_SCHEMA = %[3]s AND TABLE_NAME = %[4]s",
		me, quoteString(priv), quoteString(db), quoteString(table))
	r, err := up.query(q, 10)
	return err == nil && r != nil && len(r.rows) > 0
}

// privilegeCache remembers hasPrivilege answers within one statement.
type privilegeCache struct {
	up    *upstream
	admin bool
	priv  string
	seen  map[string]bool
}

func (pc *privilegeCache) allowed(db, table string) bool {
	if pc.admin {
		return true
	}
	if pc.up == nil {
		return false
	}
	k := tableKey(db, table)
	if v, ok := pc.seen[k]; ok {
		return v
	}
	v := hasPrivilege(pc.up, pc.priv, db, table)
	pc.seen[k] = v
	return v
}

// visibleTables returns the base tables and views of the given databases
// that the upstream account behind up can see, as tableKey()s.
func visibleTables(up *upstream, dbs []string) map[string]bool {
	out := map[string]bool{}
	if up == nil || len(dbs) == 0 {
		return out
	}
	quoted := make([]string, len(dbs))
	for i, d := range dbs {
		quoted[i] = quoteString(d)
	}
	r, err := up.query("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA IN ("+
		strings.Join(quoted, ", ")+")", 100000)
	if err != nil || r == nil {
		return out
	}
	for _, row := range r.rows {
		out[tableKey(deref(row[0]), deref(row[1]))] = true
	}
	return out
}

// databaseExists reports whether db is a database the client can see.
func (c *conn) databaseExists(db string) bool {
	if strings.EqualFold(db, "information_schema") {
		return true
	}
	up := c.upstreamConn()
	if up == nil {
		return false
	}
	r, err := up.query("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = "+quoteString(db), 1)
	return err == nil && r != nil && len(r.rows) == 1
}

// ---------------------------------------------------------------- SHOW filters

// showQuery is the tail of SHOW LOAD / SHOW STREAM LOAD:
// [FROM db] [WHERE col = 'v' | col LIKE 'p' [AND ...]] [ORDER BY col [ASC|DESC], ...] [LIMIT [off,] n].
type showQuery struct {
	db     string
	conds  []showCond
	order  []showOrder
	offset int
	limit  int // -1 = all
}

type showCond struct {
	col, value string
	like       bool
}

type showOrder struct {
	col  string
	desc bool
}

// parseShowQuery reads the tail; allowed names the columns WHERE accepts.
func (c *conn) parseShowQuery(ts []token, allowed []string, whereHelp string) (showQuery, *dorisErr) {
	q := showQuery{limit: -1}
	q.db, _, _ = c.snapshot()
	i := 0
	at := func(k int) token {
		if k < len(ts) {
			return ts[k]
		}
		return token{}
	}
	if at(i).is("FROM") || at(i).is("IN") {
		parts, next := parseChain(ts, i+1)
		if len(parts) == 0 || len(parts) > 2 {
			return q, newDorisErr(1105, "HY000", "Invalid database name")
		}
		q.db = stripInternalPrefix(parts[len(parts)-1])
		i = next
	}
	if at(i).is("WHERE") {
		i++
		for {
			col := at(i)
			op := at(i + 1)
			val := at(i + 2)
			ok := col.isIdent() && (op.isP("=") || op.is("LIKE")) && val.kind == tkString
			name := ""
			for _, a := range allowed {
				if ok && strings.EqualFold(col.ident(), a) {
					name = a
				}
			}
			if name == "" {
				return q, newDorisErr(1105, "HY000", whereHelp)
			}
			q.conds = append(q.conds, showCond{col: name, value: val.str(), like: op.is("LIKE")})
			i += 3
			if !at(i).is("AND") {
				break
			}
			i++
		}
	}
	if at(i).is("ORDER") && at(i+1).is("BY") {
		i += 2
		for at(i).isIdent() {
			o := showOrder{col: at(i).ident()}
			i++
			if at(i).is("DESC") || at(i).is("ASC") {
				o.desc = at(i).is("DESC")
				i++
			}
			q.order = append(q.order, o)
			if !at(i).isP(",") {
				break
			}
			i++
		}
	}
	if at(i).is("LIMIT") {
		a, err1 := strconv.Atoi(at(i + 1).text)
		if err1 != nil {
			return q, newDorisErr(1105, "HY000", "Invalid LIMIT clause")
		}
		q.limit = a
		i += 2
		if at(i).isP(",") {
			b, err2 := strconv.Atoi(at(i + 1).text)
			if err2 != nil {
				return q, newDorisErr(1105, "HY000", "Invalid LIMIT clause")
			}
			q.offset, q.limit = a, b
			i += 2
		} else if at(i).is("OFFSET") {
			b, err2 := strconv.Atoi(at(i + 1).text)
			if err2 != nil {
				return q, newDorisErr(1105, "HY000", "Invalid LIMIT clause")
			}
			q.offset = b
			i += 2
		}
	}
	if i < len(ts) {
		return q, newDorisErr(1105, "HY000", fmt.Sprintf("\nextraneous input '%s' expecting {<EOF>, ';'}", ts[i].text))
	}
	return q, nil
}

// apply filters, sorts and limits rows whose columns are cols. Without an
// ORDER BY the rows are sorted by defaultCol ascending, as the FE does.
func (q showQuery) apply(cols []string, rows [][]any, defaultCol string) [][]any {
	idx := func(name string) int {
		for i, c := range cols {
			if strings.EqualFold(c, name) {
				return i
			}
		}
		return -1
	}
	var kept [][]any
	for _, r := range rows {
		match := true
		for _, cd := range q.conds {
			k := idx(cd.col)
			v, _ := cellString(r[k])
			if cd.like && !likeMatch(cd.value, v) || !cd.like && !strings.EqualFold(cd.value, v) {
				match = false
			}
		}
		if match {
			kept = append(kept, r)
		}
	}
	order := q.order
	if len(order) == 0 {
		order = []showOrder{{col: defaultCol}}
	}
	sort.SliceStable(kept, func(a, b int) bool {
		for _, o := range order {
			k := idx(o.col)
			if k < 0 {
				continue
			}
			x, _ := cellString(kept[a][k])
			y, _ := cellString(kept[b][k])
			if x == y {
				continue
			}
			less := x < y
			if nx, err1 := strconv.ParseInt(x, 10, 64); err1 == nil {
				if ny, err2 := strconv.ParseInt(y, 10, 64); err2 == nil {
					less = nx < ny
				}
			}
			if o.desc {
				return !less
			}
			return less
		}
		return false
	})
	if q.offset >= len(kept) {
		return nil
	}
	kept = kept[q.offset:]
	if q.limit >= 0 && q.limit < len(kept) {
		kept = kept[:q.limit]
	}
	return kept
}

// orderByKnown checks that every ORDER BY column is one of cols.
func (q showQuery) orderByKnown(cols []string) *dorisErr {
	for _, o := range q.order {
		found := false
		for _, c := range cols {
			if strings.EqualFold(c, o.col) {
				found = true
			}
		}
		if !found {
			return newDorisErr(1105, "HY000", "Title name["+o.col+"] does not exist")
		}
	}
	return nil
}

func fmtMillis(t time.Time) string { return t.Format("2006-01-02 15:04:05.000") }
