package sim

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Asynchronous materialized views (Doris MTMV). CREATE MATERIALIZED VIEW
// ... BUILD ... REFRESH ... AS <query> makes an upstream table holding the
// query's result; each refresh (BUILD IMMEDIATE, REFRESH MATERIALIZED
// VIEW, a schedule, or a commit to a base table) is a task that replaces
// the table's rows in one upstream transaction, run as the view's creator.
// mv_infos(), jobs("type"="mv") and tasks("type"="mv") read this state.
//
// Refreshes run to completion before REFRESH returns (Doris queues them);
// tasks are therefore never seen PENDING.

type mtmv struct {
	id, jobID    int64
	db, name     string
	definer      string
	build        string // IMMEDIATE or DEFERRED
	method       string // COMPLETE, AUTO or NEVER
	trigger      string // MANUAL, SCHEDULE or COMMIT
	every        int
	unit         string // MINUTE, HOUR, DAY, WEEK
	starts       time.Time
	query        string // the defining query, Doris SQL
	create       string // the CREATE statement, for SHOW CREATE
	props        [][2]string
	bases        [][2]string // db, table
	created      time.Time
	refreshState string // INIT, REFRESHING, SUCCESS, FAIL
	synced       map[string]int64
	nextRun      time.Time

	run sync.Mutex // one refresh at a time
}

func (mv *mtmv) jobName() string { return "inner_mtmv_" + strconv.FormatInt(mv.id, 10) }

func (mv *mtmv) readsTable(db, table string) bool {
	for _, b := range mv.bases {
		if strings.EqualFold(b[0], db) && strings.EqualFold(b[1], table) {
			return true
		}
	}
	return false
}

func (mv *mtmv) refreshInfo() string {
	on := "ON " + mv.trigger
	if mv.trigger == "SCHEDULE" {
		on = fmt.Sprintf("ON SCHEDULE EVERY %d %s STARTS %s", mv.every, mv.unit, fmtTime(mv.starts))
	}
	return "BUILD " + mv.build + " REFRESH " + mv.method + " " + on
}

func (mv *mtmv) interval() time.Duration {
	d := map[string]time.Duration{"MINUTE": time.Minute, "HOUR": time.Hour, "DAY": 24 * time.Hour, "WEEK": 7 * 24 * time.Hour}[mv.unit]
	return time.Duration(mv.every) * d
}

type mvTask struct {
	id                         int64
	mv                         *mtmv
	status, errMsg, trigger    string
	mode, queryID              string
	created, started, finished time.Time
}

// syncMV is a synchronous materialized view (a rollup of one table),
// listed by SHOW ALTER TABLE MATERIALIZED VIEW.
type syncMV struct {
	jobID, rollupID, txn int64
	db, table, name      string
	created, finished    time.Time
}

func (p *pipeline) findMV(db, name string) *mtmv {
	for _, mv := range p.mvs {
		if strings.EqualFold(mv.db, db) && strings.EqualFold(mv.name, name) {
			return mv
		}
	}
	return nil
}

// createMV handles CREATE MATERIALIZED VIEW, asynchronous or synchronous.
func (c *conn) createMV(sql string, ts []token) error {
	i := 3
	ifNotExists := false
	if i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
		ifNotExists, i = true, i+3
	}
	parts, next := parseChain(ts, i)
	if len(parts) == 0 || len(parts) > 3 {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {IDENTIFIER}"))
	}
	db, name := c.splitName(parts)
	mv := &mtmv{db: db, name: name, definer: c.user, build: "IMMEDIATE", method: "AUTO", trigger: "MANUAL",
		created: time.Now(), refreshState: "INIT"}
	async, derr := mv.parseClauses(sql, ts, next)
	if derr != nil {
		return c.send(derr)
	}
	if !async {
		return c.createSyncMV(db, name, mv.query)
	}
	if !slices.Contains([]string{"MANUAL", "COMMIT", "SCHEDULE"}, mv.trigger) {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '"+mv.trigger+"' expecting {'COMMIT', 'MANUAL', 'SCHEDULE'}"))
	}
	mv.bases = baseTables(mv.query, db)
	c.s.pipe.mu.Lock()
	exists := c.s.pipe.findMV(db, name) != nil
	c.s.pipe.mu.Unlock()
	if exists {
		if ifNotExists {
			return c.sendOK(0, "")
		}
		return c.send(&dorisErr{1050, "42S01", fmt.Sprintf("errCode = 2, detailMessage = Table '%s' already exists", name)})
	}
	rw, derr := c.rewrite(mv.query)
	if derr != nil {
		return c.send(derr)
	}
	// The view's table, empty, with the query's columns: the query is
	// checked and the account's CREATE privilege with it.
	ctas := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM (%s) AS `__mv_query` WHERE 1 = 0", qualified(db, name), rw.sql)
	if _, sent, err := c.upQuery(ctas, sql, 1); sent || err != nil {
		return err
	}
	mv.id, mv.jobID = c.s.pipe.id(), c.s.pipe.id()
	if mv.trigger == "SCHEDULE" {
		// The first scheduled run: STARTS when it is ahead, else the next
		// slot of the schedule (a view built now waits a whole interval).
		now := time.Now()
		mv.nextRun = mv.starts
		if mv.build == "IMMEDIATE" && !mv.nextRun.After(now) {
			mv.nextRun = now.Add(mv.interval())
		}
		for mv.nextRun.Before(now) {
			mv.nextRun = mv.nextRun.Add(mv.interval())
		}
	}
	if err := c.s.saveMV(mv); err != nil { // metadata.go
		return c.send(newDorisErr(1105, "HY000", "failed to record the materialized view"))
	}
	c.s.pipe.mu.Lock()
	c.s.pipe.mvs = append(c.s.pipe.mvs, mv)
	c.s.pipe.mu.Unlock()
	if mv.build == "IMMEDIATE" {
		c.s.refreshMV(mv, "MANUAL", true)
	}
	return c.sendOK(0, "")
}

// parseClauses reads an asynchronous MV's clauses after its name (ts[next]
// on) into mv: build, refresh method, trigger, schedule, properties, the
// defining query and the CREATE text. async is false for a synchronous
// MV (no BUILD/REFRESH/ON/DISTRIBUTED/PARTITION/KEY clause).
func (mv *mtmv) parseClauses(sql string, ts []token, next int) (async bool, derr *dorisErr) {
	depth, asAt := 0, -1
	for k := next; k < len(ts); k++ {
		t := ts[k]
		switch {
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		case depth == 0 && t.is("AS"):
			asAt = k
		case depth == 0 && t.is("BUILD") && k+1 < len(ts):
			async, mv.build = true, strings.ToUpper(ts[k+1].text)
		case depth == 0 && t.is("REFRESH") && k+1 < len(ts):
			async = true
			if w := strings.ToUpper(ts[k+1].text); w == "COMPLETE" || w == "AUTO" || w == "NEVER" {
				mv.method = w
			}
		case depth == 0 && t.is("ON") && k+1 < len(ts):
			async = true
			mv.trigger = strings.ToUpper(ts[k+1].text)
			if mv.trigger == "SCHEDULE" {
				if k+4 >= len(ts) || !ts[k+2].is("EVERY") {
					return false, newDorisErr(1105, "HY000", "\nmismatched input after SCHEDULE expecting EVERY")
				}
				n, err := strconv.Atoi(ts[k+3].text)
				mv.unit = strings.ToUpper(ts[k+4].text)
				if err != nil || n < 1 || !slices.Contains([]string{"MINUTE", "HOUR", "DAY", "WEEK"}, mv.unit) {
					return false, newDorisErr(1105, "HY000", "interval time unit can not be "+strings.ToLower(ts[k+4].text))
				}
				mv.every, mv.starts = n, time.Now().Truncate(time.Second)
				if k+6 < len(ts) && ts[k+5].is("STARTS") && ts[k+6].kind == tkString {
					if st, err := time.ParseInLocation("2006-01-02 15:04:05", ts[k+6].str(), time.Local); err == nil {
						mv.starts = st
					}
				}
			}
		case depth == 0 && (t.is("DISTRIBUTED") || t.is("PARTITION") || t.is("KEY") || t.is("DUPLICATE")):
			async = true
		case depth == 0 && t.is("PROPERTIES"):
			mv.props = propertyList(ts, k+1)
		}
		if asAt >= 0 {
			break
		}
	}
	if asAt < 0 {
		return false, newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting 'AS'")
	}
	mv.query = tailAfter(sql, asAt+1)
	mv.create = strings.TrimRight(strings.TrimSpace(sql), ";")
	return async, nil
}

// propertyList reads ("k" = "v", ...) at ts[i], in order, skipping what it
// cannot read.
func propertyList(ts []token, i int) [][2]string {
	var out [][2]string
	if i >= len(ts) || !ts[i].isP("(") {
		return nil
	}
	for k := i + 1; k+2 < len(ts) && !ts[k].isP(")"); {
		if ts[k].kind == tkString && ts[k+1].isP("=") && ts[k+2].kind == tkString {
			out = append(out, [2]string{ts[k].str(), ts[k+2].str()})
			k += 3
			if k < len(ts) && ts[k].isP(",") {
				k++
			}
			continue
		}
		k++
	}
	return out
}

// baseTables lists the tables a query reads: the names after FROM and
// JOIN (and after commas in a FROM list), without derived tables, table
// functions or CTE names.
func baseTables(query, defaultDB string) [][2]string {
	ts := sig(lex(query))
	ctes := map[string]bool{}
	for k := 0; k+2 < len(ts); k++ {
		if (ts[k].is("WITH") || ts[k].isP(",")) && ts[k+1].isIdent() && ts[k+2].is("AS") {
			ctes[strings.ToLower(ts[k+1].ident())] = true
		}
	}
	var out [][2]string
	add := func(parts []string) {
		if len(parts) == 0 {
			return
		}
		db, table := defaultDB, parts[len(parts)-1]
		if len(parts) >= 2 {
			db = parts[len(parts)-2]
		}
		if len(parts) == 1 && ctes[strings.ToLower(table)] {
			return
		}
		for _, o := range out {
			if strings.EqualFold(o[0], db) && strings.EqualFold(o[1], table) {
				return
			}
		}
		out = append(out, [2]string{db, table})
	}
	for k := 0; k < len(ts); k++ {
		if !ts[k].is("FROM") && !ts[k].is("JOIN") {
			continue
		}
		for j := k + 1; j < len(ts); {
			parts, next := parseChain(ts, j)
			if len(parts) == 0 || next < len(ts) && ts[next].isP("(") {
				break
			}
			add(parts)
			j = next
			if j < len(ts) && ts[j].is("AS") {
				j++
			}
			if j < len(ts) && ts[j].isIdent() && !clauseWords[strings.ToUpper(ts[j].text)] && !ts[j].isP(",") {
				j++
			}
			if j < len(ts) && ts[j].isP(",") && ts[k].is("FROM") {
				j++
				continue
			}
			break
		}
	}
	return out
}

// refreshMVStatement handles REFRESH MATERIALIZED VIEW [db.]mv [COMPLETE|AUTO].
func (c *conn) refreshMVStatement(ts []token) error {
	parts, next := parseChain(ts, 3)
	if len(parts) == 0 {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {IDENTIFIER}"))
	}
	db, name := c.splitName(parts)
	complete := next < len(ts) && ts[next].is("COMPLETE")
	c.s.pipe.mu.Lock()
	mv := c.s.pipe.findMV(db, name)
	c.s.pipe.mu.Unlock()
	if mv == nil {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Can not find Materialized view: %s", name)))
	}
	if !c.admin {
		if up := c.upstreamConn(); up == nil || !hasPrivilege(up, "ALTER", db, name) && !hasPrivilege(up, "INSERT", db, name) {
			return c.send(&dorisErr{1227, "42000", "errCode = 2, detailMessage = Access denied; you need (at least one of) the (ALTER) privilege(s) for this operation"})
		}
	}
	c.s.refreshMV(mv, "MANUAL", complete)
	return c.sendOK(0, "")
}

// refreshInBackground refreshes mv outside any client statement.
func (s *Server) refreshInBackground(mv *mtmv, trigger string) {
	select {
	case <-s.pipe.stop:
		return
	default:
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.refreshMV(mv, trigger, false)
	}()
}

// refreshMV runs one refresh task of mv. A view already in sync with its
// base tables is not rewritten unless complete is asked for (REFRESH
// COMPLETE, or a view whose refresh method is COMPLETE).
func (s *Server) refreshMV(mv *mtmv, trigger string, complete bool) *mvTask {
	mv.run.Lock()
	defer mv.run.Unlock()
	now := time.Now()
	t := &mvTask{id: s.pipe.id()*1000 + int64(now.Nanosecond()%1000), mv: mv, status: "RUNNING", trigger: trigger,
		created: now, started: now, queryID: newQueryID()}
	p := s.pipe
	p.mu.Lock()
	if p.findMV(mv.db, mv.name) != mv {
		p.mu.Unlock()
		return nil // dropped meanwhile
	}
	p.tasks = append(p.tasks, t)
	if len(p.tasks) > maxMVTasks {
		p.tasks = append(p.tasks[:0:0], p.tasks[len(p.tasks)-maxMVTasks:]...)
	}
	inSync := mv.refreshState == "SUCCESS" && p.inSyncLocked(mv)
	prevState := mv.refreshState
	mv.refreshState = "REFRESHING"
	p.mu.Unlock()

	finish := func(status, mode, msg string) *mvTask {
		p.mu.Lock()
		defer p.mu.Unlock()
		t.status, t.mode, t.errMsg, t.finished = status, mode, msg, time.Now()
		switch status {
		case "SUCCESS":
			mv.refreshState = "SUCCESS"
		default:
			mv.refreshState = "FAIL"
		}
		if status == "SUCCESS" && mode == "NOT_REFRESH" {
			mv.refreshState = prevState
		}
		if err := s.saveMVState(mv.db, mv.name, mv.refreshState); err != nil { // metadata.go
			s.log.Warn("sim: materialized view state not persisted", "mv", mv.name, "err", err)
		}
		return t
	}
	if inSync && !complete && mv.method != "COMPLETE" {
		return finish("SUCCESS", "NOT_REFRESH", "")
	}
	// Versions of the base tables this refresh reads.
	p.mu.Lock()
	seen := map[string]int64{}
	for _, b := range mv.bases {
		if v, ok := p.versions[tableKey(b[0], b[1])]; ok {
			seen[tableKey(b[0], b[1])] = v.version
		}
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	up, err := s.upstreamFor(ctx, mv.definer, mv.db)
	if err != nil {
		return finish("FAILED", "COMPLETE", "failed to reach the storage backend")
	}
	defer up.close()
	_ = up.conn.SetDeadline(time.Now().Add(5 * time.Minute))
	rc := &conn{s: s, db: mv.db, catalog: "internal", user: mv.definer, vars: map[string]string{}, up: up}
	rw, derr := rc.rewrite(mv.query)
	if derr != nil {
		return finish("FAILED", "COMPLETE", strings.TrimPrefix(derr.msg, "errCode = 2, detailMessage = "))
	}
	for _, q := range []string{"START TRANSACTION", "DELETE FROM " + qualified(mv.db, mv.name),
		"INSERT INTO " + qualified(mv.db, mv.name) + " " + rw.sql, "COMMIT"} {
		if err := up.exec(q); err != nil {
			_ = up.exec("ROLLBACK")
			return finish("FAILED", "COMPLETE", rc.mapError(asParsed(err), q, mv.query).msg)
		}
	}
	p.mu.Lock()
	mv.synced = seen
	p.mu.Unlock()
	s.wrote(mv.db, mv.name, time.Now())
	return finish("SUCCESS", "COMPLETE", "")
}

func asParsed(err error) *parsedErr {
	if pe, ok := err.(*parsedErr); ok {
		return pe
	}
	return &parsedErr{Code: 2013, State: "HY000", Msg: "Lost connection to the storage backend"}
}

// inSyncLocked reports whether no base table was written since mv's last
// successful refresh. p.mu is held.
func (p *pipeline) inSyncLocked(mv *mtmv) bool {
	if mv.synced == nil {
		return false
	}
	for _, b := range mv.bases {
		k := tableKey(b[0], b[1])
		if v, ok := p.versions[k]; ok && v.version != mv.synced[k] {
			return false
		}
	}
	return true
}

// dropMV handles DROP MATERIALIZED VIEW [IF EXISTS] [db.]mv [ON table].
func (c *conn) dropMV(ts []token) error {
	i := 3
	ifExists := false
	if i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		ifExists, i = true, i+2
	}
	parts, next := parseChain(ts, i)
	if len(parts) == 0 {
		return c.send(newDorisErr(1105, "HY000", "\nmismatched input '<EOF>' expecting {IDENTIFIER}"))
	}
	db, name := c.splitName(parts)
	if next+1 < len(ts) && ts[next].is("ON") {
		base, _ := parseChain(ts, next+1)
		bdb, btable := c.splitName(base)
		p := c.s.pipe
		p.mu.Lock()
		defer p.mu.Unlock()
		for k, m := range p.syncMVs {
			if strings.EqualFold(m.db, bdb) && strings.EqualFold(m.table, btable) && strings.EqualFold(m.name, name) {
				p.syncMVs = append(p.syncMVs[:k:k], p.syncMVs[k+1:]...)
				return c.sendOK(0, "")
			}
		}
		if ifExists {
			return c.sendOK(0, "")
		}
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Materialized view [%s] does not exist in table [%s]", name, btable)))
	}
	p := c.s.pipe
	p.mu.Lock()
	mv := p.findMV(db, name)
	p.mu.Unlock()
	if mv == nil {
		if ifExists {
			return c.sendOK(0, "")
		}
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Materialized view [%s] does not exist in database [%s]", name, db)))
	}
	if _, sent, err := c.upQuery("DROP TABLE "+qualified(db, name), "DROP MATERIALIZED VIEW "+name, 1); sent || err != nil {
		return err
	}
	if err := c.s.forgetMV(db, name); err != nil { // metadata.go
		return c.send(newDorisErr(1105, "HY000", "failed to forget the materialized view"))
	}
	p.mu.Lock()
	p.mvs = slices.DeleteFunc(p.mvs, func(m *mtmv) bool { return m == mv })
	p.tasks = slices.DeleteFunc(p.tasks, func(t *mvTask) bool { return t.mv == mv })
	p.mu.Unlock()
	return c.sendOK(0, "")
}

// createSyncMV records a synchronous MV (a rollup) after checking its query.
func (c *conn) createSyncMV(db, name, query string) error {
	bases := baseTables(query, db)
	if len(bases) != 1 {
		return c.send(newDorisErr(1105, "HY000", "The materialized view only support one table in from clause."))
	}
	rw, derr := c.rewrite("SELECT * FROM (" + query + ") AS `__mv_query` WHERE 1 = 0")
	if derr != nil {
		return c.send(derr)
	}
	if _, sent, err := c.upQuery(rw.sql, query, 1); sent || err != nil {
		return err
	}
	now := time.Now()
	m := &syncMV{jobID: c.s.pipe.id(), rollupID: c.s.pipe.id(), txn: c.s.pipe.txn(), db: bases[0][0], table: bases[0][1],
		name: name, created: now, finished: now.Add(1500 * time.Millisecond)}
	c.s.pipe.mu.Lock()
	c.s.pipe.syncMVs = append(c.s.pipe.syncMVs, m)
	c.s.pipe.mu.Unlock()
	return c.sendOK(0, "")
}

// showSyncMVJobs answers SHOW ALTER TABLE MATERIALIZED VIEW [FROM db].
func (c *conn) showSyncMVJobs(ts []token) error {
	q, derr := c.parseShowQuery(ts, []string{"TableName", "State"}, "Where clause should looks like: TableName = \"table\", or State = \"FINISHED\"")
	if derr != nil {
		return c.send(derr)
	}
	if q.db == "" {
		return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	c.s.pipe.mu.Lock()
	var rows [][]any
	for _, m := range c.s.pipe.syncMVs {
		if strings.EqualFold(m.db, q.db) {
			rows = append(rows, []any{strconv.FormatInt(m.jobID, 10), m.table, fmtMillis(m.created), fmtMillis(m.finished),
				m.table, m.name, strconv.FormatInt(m.rollupID, 10), strconv.FormatInt(m.txn, 10), "FINISHED", "", nil, "86400"})
		}
	}
	c.s.pipe.mu.Unlock()
	return c.sendResult(showAlterRollupCols, q.apply(showAlterRollupCols, rows, "JobId"))
}

// showCreateMV answers SHOW CREATE MATERIALIZED VIEW [db.]mv.
func (c *conn) showCreateMV(ts []token) error {
	parts, _ := parseChain(ts, 0)
	db, name := c.splitName(parts)
	c.s.pipe.mu.Lock()
	mv := c.s.pipe.findMV(db, name)
	c.s.pipe.mu.Unlock()
	if mv == nil || !visibleTables(c.upstreamConn(), []string{db})[tableKey(db, name)] {
		return c.send(&dorisErr{1051, "42S02", fmt.Sprintf("errCode = 2, detailMessage = Unknown table '%s'", name)})
	}
	return c.sendResult([]string{"Materialized View", "Create Materialized View"}, [][]any{{mv.name, mv.create}})
}

// startMVScheduler refreshes views ON SCHEDULE when they are due.
func (s *Server) startMVScheduler() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-s.pipe.stop:
				return
			case now := <-tick.C:
				s.pipe.mu.Lock()
				var due []*mtmv
				for _, mv := range s.pipe.mvs {
					if mv.trigger == "SCHEDULE" && !mv.nextRun.IsZero() && !now.Before(mv.nextRun) {
						due = append(due, mv)
						mv.nextRun = now.Add(mv.interval())
					}
				}
				s.pipe.mu.Unlock()
				for _, mv := range due {
					s.refreshInBackground(mv, "SYSTEM")
				}
			}
		}
	}()
}

// ---------------------------------------------------------------- table functions

// tableFunction renders the job table functions from the simulator's
// state as a derived table; other table functions keep their canned form.
func (c *conn) tableFunction(name string, args []token) (string, *dorisErr) {
	arg := func(key string) (string, bool) {
		for k := 0; k+2 < len(args); k++ {
			if args[k].kind == tkString && strings.EqualFold(args[k].str(), key) && args[k+1].isP("=") && args[k+2].kind == tkString {
				return args[k+2].str(), true
			}
		}
		return "", false
	}
	typ, _ := arg("type")
	key := strings.ToLower(name)
	if key == "jobs" || key == "tasks" {
		key += ":" + strings.ToLower(typ)
	}
	p := c.s.pipe
	var rows []map[string]any
	switch key {
	case "mv_infos":
		db, ok := arg("database")
		if !ok {
			return "", newDorisErr(1105, "HY000", "Invalid async materialized view metadata query")
		}
		if !c.databaseExists(db) {
			return "", &dorisErr{1044, "42000", fmt.Sprintf("errCode = 2, detailMessage = Access denied for user '%s'@'%%' to database '%s'", c.user, db)}
		}
		visible := visibleTables(c.upstreamConn(), []string{db})
		p.mu.Lock()
		for _, mv := range p.mvs {
			if !strings.EqualFold(mv.db, db) || !visible[tableKey(mv.db, mv.name)] {
				continue
			}
			sync := "0"
			if mv.refreshState == "SUCCESS" && p.inSyncLocked(mv) {
				sync = "1"
			}
			props := make([]string, 0, len(mv.props))
			for _, kv := range mv.props {
				props = append(props, kv[0]+"="+kv[1])
			}
			slices.Sort(props)
			rows = append(rows, map[string]any{"Id": strconv.FormatInt(mv.id, 10), "Name": mv.name, "JobName": mv.jobName(),
				"State": "NORMAL", "SchemaChangeDetail": "", "RefreshState": mv.refreshState, "RefreshInfo": mv.refreshInfo(),
				"QuerySql": mv.query, "MvProperties": "{" + strings.Join(props, ", ") + "}",
				"MvPartitionInfo":    "MTMVPartitionInfo{partitionType=SELF_MANAGE, relatedTable=null, relatedCol='null', partitionCol='null'}",
				"SyncWithBaseTables": sync})
		}
		p.mu.Unlock()
	case "jobs:mv", "tasks:mv":
		var dbs []string
		p.mu.Lock()
		for _, mv := range p.mvs {
			if !slices.Contains(dbs, mv.db) {
				dbs = append(dbs, mv.db)
			}
		}
		p.mu.Unlock()
		visible := visibleTables(c.upstreamConn(), dbs)
		p.mu.Lock()
		if key == "jobs:mv" {
			for _, mv := range p.mvs {
				if !visible[tableKey(mv.db, mv.name)] {
					continue
				}
				exec, strategy := "MANUAL", "MANUAL TRIGGER"
				switch mv.trigger {
				case "SCHEDULE":
					exec, strategy = "RECURRING", fmt.Sprintf("EVERY %d %s STARTS %s", mv.every, mv.unit, fmtTime(mv.starts))
				case "COMMIT":
					exec, strategy = "STREAMING", "ON COMMIT"
				}
				rows = append(rows, map[string]any{"Id": strconv.FormatInt(mv.jobID, 10), "Name": mv.jobName(),
					"MvId": strconv.FormatInt(mv.id, 10), "MvName": mv.name, "MvDatabaseId": dbID(mv.db),
					"MvDatabaseName": mv.db, "ExecuteType": exec, "RecurringStrategy": strategy, "Status": "RUNNING",
					"CreateTime": fmtTime(mv.created)})
			}
		} else {
			for _, t := range p.tasks {
				mv := t.mv
				if !visible[tableKey(mv.db, mv.name)] {
					continue
				}
				var duration, finished, mode, progress any
				if !t.finished.IsZero() {
					duration = strconv.FormatInt(t.finished.Sub(t.started).Milliseconds(), 10)
					finished, mode = fmtTime(t.finished), t.mode
				}
				parts := `["` + mv.name + `"]`
				done := "[]"
				switch {
				case t.status == "SUCCESS" && t.mode == "NOT_REFRESH":
					parts, progress = "[]", "100.00% (0/0)"
				case t.status == "SUCCESS":
					done, progress = parts, "100.00% (1/1)"
				case t.status == "RUNNING":
					progress = "0.00% (0/1)"
				default:
					progress = "0.00% (0/1)"
				}
				rows = append(rows, map[string]any{"TaskId": strconv.FormatInt(t.id, 10), "JobId": strconv.FormatInt(mv.jobID, 10),
					"JobName": mv.jobName(), "MvId": strconv.FormatInt(mv.id, 10), "MvName": mv.name,
					"MvDatabaseId": dbID(mv.db), "MvDatabaseName": mv.db, "Status": t.status, "ErrorMsg": t.errMsg,
					"CreateTime": fmtTime(t.created), "StartTime": fmtTime(t.started), "FinishTime": finished,
					"DurationMs": duration, "TaskContext": fmt.Sprintf(`{"triggerMode":"%s","isComplete":false}`, t.trigger),
					"RefreshMode": mode, "NeedRefreshPartitions": parts, "CompletedPartitions": done, "Progress": progress,
					"LastQueryId": t.queryID})
			}
		}
		p.mu.Unlock()
	default:
		return tvfDerived(name, args), nil
	}
	return derivedRows(tvfColumns[key], rows), nil
}

// derivedRows renders rows as a derived table of string literals with the
// given columns (an empty one when there are none).
func derivedRows(cols []string, rows []map[string]any) string {
	if len(rows) == 0 {
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = "CAST(NULL AS CHAR) AS " + quoteIdent(c)
		}
		return "(SELECT " + strings.Join(parts, ", ") + " FROM DUAL WHERE 1 = 0)"
	}
	var b strings.Builder
	b.WriteByte('(')
	for i, r := range rows {
		if i > 0 {
			b.WriteString(" UNION ALL ")
		}
		b.WriteString("SELECT ")
		for j, c := range cols {
			if j > 0 {
				b.WriteString(", ")
			}
			if s, ok := cellString(r[c]); ok {
				b.WriteString("CAST(" + quoteString(s) + " AS CHAR)")
			} else {
				b.WriteString("CAST(NULL AS CHAR)")
			}
			b.WriteString(" AS " + quoteIdent(c))
		}
	}
	b.WriteByte(')')
	return b.String()
}
