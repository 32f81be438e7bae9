package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// loadJob is one job of SHOW LOAD: an INSERT run through the simulator
// (Type INSERT). Its label is unique in its database among jobs that did
// not fail, shared with stream loads.
type loadJob struct {
	id, txn         int64
	db, table       string
	label, user     string
	state           string // FINISHED or CANCELLED
	errMsg          string // "type:LOAD_RUN_FAIL; msg:..." when CANCELLED
	rows            int64
	created, finish time.Time
}

// labelTaken reports the transaction of a load in db that holds label:
// a finished INSERT job or a successful stream load (failed ones free it).
func (p *pipeline) labelTaken(db, label string) (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, j := range p.loads {
		if j.label == label && strings.EqualFold(j.db, db) && j.state != "CANCELLED" {
			return j.txn, true
		}
	}
	for _, r := range p.streams {
		if r.label == label && strings.EqualFold(r.db, db) && r.status == "Success" {
			return r.txn, true
		}
	}
	return 0, false
}

func (p *pipeline) addLoad(j *loadJob) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.loads = append(p.loads, j)
	if len(p.loads) > maxLoadJobs {
		p.loads = append(p.loads[:0:0], p.loads[len(p.loads)-maxLoadJobs:]...)
	}
}

// insertStatement runs INSERT INTO|OVERWRITE [TABLE] t [PARTITION (...)]
// [WITH LABEL l] [(cols)] {VALUES|SELECT ...} as Doris does: a load job
// with a label, answered with Doris's {'label', 'status', 'txnId'} info.
func (c *conn) insertStatement(sql string, ts []token) error {
	all := lex(sql)
	idx := sigIndexes(all)
	overwrite := false
	i := 1
	switch {
	case i < len(idx) && all[idx[i]].is("INTO"):
		i++
	case i < len(idx) && all[idx[i]].is("OVERWRITE"):
		overwrite = true
		i++
		if i < len(idx) && all[idx[i]].is("TABLE") {
			i++
		}
	default:
		return c.forward(sql)
	}
	sigToks := make([]token, len(idx))
	for k, j := range idx {
		sigToks[k] = all[j]
	}
	parts, next := parseChain(sigToks, i)
	if len(parts) == 0 {
		return c.forward(sql)
	}
	db, table := c.splitName(parts)
	// Doris-only clauses MariaDB does not know: blank them out.
	label := ""
	blank := func(from, to int) { // sig positions, inclusive
		for k := from; k <= to && k < len(idx); k++ {
			all[idx[k]].text = ""
		}
		if from < len(idx) {
			all[idx[from]].text = " "
		}
	}
	k := next
	if k < len(idx) && (all[idx[k]].is("PARTITION") || all[idx[k]].is("PARTITIONS") || all[idx[k]].is("TEMPORARY")) {
		start := k
		for k < len(idx) && !all[idx[k]].isP(")") {
			k++
		}
		blank(start, k)
		k++
	}
	if k+2 < len(idx) && all[idx[k]].is("WITH") && all[idx[k+1]].is("LABEL") && all[idx[k+2]].isIdent() {
		label = all[idx[k+2]].ident()
		blank(k, k+2)
	}
	if overwrite {
		// INSERT OVERWRITE replaces the table's rows atomically.
		all[idx[1]].text = "INTO"
		if len(idx) > 2 && all[idx[2]].is("TABLE") {
			all[idx[2]].text = ""
		}
	}
	c.mu.Lock()
	qid := c.curQueryID
	c.mu.Unlock()
	if label == "" {
		label = "label_" + strings.ReplaceAll(qid, "-", "_")
	}
	if txn, taken := c.s.pipe.labelTaken(db, label); taken {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Label [%s] has already been used, relate to txn [%d]", label, txn)))
	}
	q, _, derr := c.translate(join(all))
	if derr != nil {
		return c.send(derr)
	}
	job := &loadJob{id: c.s.pipe.id(), txn: c.s.pipe.txn(), db: db, table: table, label: label, user: c.user,
		created: time.Now()}
	var r *result
	var sent bool
	var err error
	if overwrite {
		r, sent, err = c.overwrite(db, table, q, sql)
	} else {
		r, sent, err = c.upQuery(q, sql, 1)
	}
	job.finish = time.Now()
	if sent || err != nil {
		job.state = "CANCELLED"
		job.errMsg = "type:LOAD_RUN_FAIL; msg:" + strings.TrimPrefix(c.stmtErr, "errCode = 2, detailMessage = ")
		c.s.pipe.addLoad(job)
		return err
	}
	job.state, job.rows = "FINISHED", int64(r.affected)
	c.s.pipe.addLoad(job)
	if r.affected > 0 {
		c.s.wrote(db, table, job.finish)
	}
	info := fmt.Sprintf("{'label':'%s', 'status':'VISIBLE', 'txnId':'%d'}", label, job.txn)
	c.stmtRows = int(r.affected)
	c.stmtAffected = int64(r.affected) // the BE's write activity (activity.go)
	return c.pw.writePacket(okPacket(r.affected, 0, serverStatusAutocomm, 0, info))
}

// overwrite runs DELETE + INSERT in one upstream transaction.
func (c *conn) overwrite(db, table, insert, orig string) (*result, bool, error) {
	if _, sent, err := c.upQuery("START TRANSACTION", orig, 1); sent || err != nil {
		return nil, sent, err
	}
	if _, sent, err := c.upQuery("DELETE FROM "+qualified(db, table), orig, 1); sent || err != nil {
		c.rollback()
		return nil, sent, err
	}
	r, sent, err := c.upQuery(insert, orig, 1)
	if sent || err != nil {
		c.rollback()
		return nil, sent, err
	}
	if _, sent, err := c.upQuery("COMMIT", orig, 1); sent || err != nil {
		return nil, sent, err
	}
	return r, false, nil
}

func (c *conn) rollback() {
	if up := c.upstreamConn(); up != nil {
		_ = up.exec("ROLLBACK")
	}
}

// showLoad answers SHOW LOAD: the INSERT jobs of the database, only those
// on tables the client may load into (Doris checks LOAD_PRIV per job).
func (c *conn) showLoad(ts []token) error {
	q, derr := c.parseShowQuery(ts, []string{"Label", "State"},
		`Where clause should looks like: LABEL = "your_load_label", or LABEL LIKE "matcher",  or STATE = "PENDING|ETL|LOADING|FINISHED|CANCELLED", or compound predicate with operator AND`)
	if derr != nil {
		return c.send(derr)
	}
	if derr := q.orderByKnown(showLoadCols); derr != nil {
		return c.send(derr)
	}
	if q.db == "" {
		return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	if !c.databaseExists(q.db) {
		return c.send(&dorisErr{1049, "42000", fmt.Sprintf("errCode = 2, detailMessage = Unknown database '%s'", q.db)})
	}
	p := c.s.profile()
	c.s.pipe.mu.Lock()
	var jobs []loadJob
	for _, j := range c.s.pipe.loads {
		if strings.EqualFold(j.db, q.db) {
			jobs = append(jobs, *j)
		}
	}
	c.s.pipe.mu.Unlock()
	pc := &privilegeCache{up: c.upstreamConn(), admin: c.admin, priv: "INSERT", seen: map[string]bool{}}
	var rows [][]any
	for _, j := range jobs {
		if !pc.allowed(j.db, j.table) {
			continue
		}
		progress := "Unknown id: " + strconv.FormatInt(j.id, 10)
		if !p.atLeast("3.0") {
			progress = "ETL:100%; LOAD:100%"
		}
		var errMsg, errTablets any = nil, "{}"
		if j.state == "CANCELLED" {
			errMsg, progress = j.errMsg, "ETL:N/A; LOAD:N/A"
		}
		details := fmt.Sprintf(`{"Unfinished backends":{},"ScannedRows":%d,"TaskNumber":1,"LoadBytes":%d,"All backends":{},"FileNumber":0,"FileSize":0}`,
			j.rows, j.rows*64)
		created := fmtTime(j.created)
		rows = append(rows, []any{strconv.FormatInt(j.id, 10), j.label, j.state, progress, "INSERT", nil,
			"cluster:N/A; timeout(s):14400; max_filter_ratio:0.0", errMsg, created, created, created, created,
			fmtTime(j.finish), "", details, strconv.FormatInt(j.txn, 10), errTablets, j.user, ""})
	}
	return c.sendResult(showLoadCols, q.apply(showLoadCols, rows, "JobId"))
}
