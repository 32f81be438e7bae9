package sim

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// auditEntry is one executed client statement.
type auditEntry struct {
	queryID, client, user, db, state, errMsg, stmt string
	errCode                                        int
	start                                          time.Time
	ms                                             int64
	rows                                           int   // rows returned to the client
	scanRows                                       int64 // rows the upstream read for the statement
	stmtID                                         int64
}

// auditWriter appends executed statements to __internal_schema.audit_log in
// the background (batched, bounded, dropped when the queue is full), like the
// Doris audit loader does.
type auditWriter struct {
	s    *Server
	ch   chan auditEntry
	done chan struct{}
	once sync.Once
	seq  atomic.Int64 // stmt_id, increasing per simulated FE as in Doris
	sync chan chan struct{}
}

// SyncAudit waits until every statement the simulator finished before the
// call is in the audit log (the writer batches in the background, like
// Doris's audit loader). Tests use it instead of polling.
func (s *Server) SyncAudit(ctx context.Context) error {
	a := s.audit
	if a == nil {
		return nil
	}
	done := make(chan struct{})
	select {
	case a.sync <- done:
	case <-a.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// firstStmtID keeps recorded statements clear of the stmt_id ranges of
// the seeded demo rows and of the demo's audit history.
const firstStmtID = 10_000_000

func (s *Server) startAudit() {
	if s.opts.NoAuditLog {
		return
	}
	if _, _, ok := s.adminAccount(); !ok {
		return
	}
	a := &auditWriter{s: s, ch: make(chan auditEntry, 1024), done: make(chan struct{}), sync: make(chan chan struct{})}
	s.audit = a
	s.wg.Add(1)
	go a.run()
}

func (a *auditWriter) add(e auditEntry) {
	if a == nil {
		return
	}
	if !a.s.auditPluginOn() {
		return // enable_audit_plugin is false: Doris's audit loader records nothing
	}
	e.stmtID = firstStmtID + a.seq.Add(1)
	select {
	case a.ch <- e:
	default: // queue full: drop, as a lossy audit loader would
	}
}

func (a *auditWriter) stop() {
	if a == nil {
		return
	}
	a.once.Do(func() { close(a.done) })
}

func (a *auditWriter) run() {
	defer a.s.wg.Done()
	var up *upstream
	defer func() { up.close() }()
	var batch []auditEntry
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if up == nil {
			user, pw, _ := a.s.adminAccount()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			u, err := dialUpstream(ctx, a.s.opts.Upstream, user, pw, "", 45)
			cancel()
			if err != nil {
				a.s.log.Warn("audit log rows dropped: cannot reach the upstream", "rows", len(batch), "err", err)
				batch = batch[:0]
				return
			}
			up = u
		}
		_ = up.conn.SetDeadline(time.Now().Add(10 * time.Second))
		if err := up.exec(auditInsert(batch, a.s)); err != nil {
			a.s.log.Warn("audit log rows dropped: append failed", "rows", len(batch), "err", err)
			up.close()
			up = nil
		}
		batch = batch[:0]
	}
	for {
		select {
		case e := <-a.ch:
			batch = append(batch, e)
			if len(batch) >= 200 {
				flush()
			}
		case <-tick.C:
			flush()
		case reply := <-a.sync:
			for drained := false; !drained; {
				select {
				case e := <-a.ch:
					batch = append(batch, e)
				default:
					drained = true
				}
			}
			flush()
			close(reply)
		case <-a.done:
			for {
				select {
				case e := <-a.ch:
					batch = append(batch, e)
				default:
					flush()
					return
				}
			}
		}
	}
}

func auditInsert(batch []auditEntry, s *Server) string {
	feHost, _ := hostPort(s.addr)
	var b strings.Builder
	b.WriteString("INSERT INTO __internal_schema.audit_log VALUES ")
	for i, e := range batch {
		if i > 0 {
			b.WriteString(",\n")
		}
		ts := sig(lex(e.stmt))
		typ := ""
		if len(ts) > 0 {
			typ = strings.ToUpper(ts[0].text)
		}
		isQuery := 0
		if typ == "SELECT" || typ == "WITH" {
			isQuery = 1
		}
		h := md5.Sum([]byte(e.stmt))
		d := md5.Sum([]byte(typ + "|" + e.db))
		stmt := e.stmt
		if len(stmt) > 4096 {
			stmt = stmt[:4096]
		}
		ret := e.rows
		// scan_rows is what the upstream really read (its Rows_read
		// counter); the byte columns are estimates at 64 bytes a row.
		scan := e.scanRows
		fmt.Fprintf(&b, "(%s,%s,%s,%s,'internal',%s,%s,%d,%s,%d,%d,%d,%d,%d,%d,%d,0,%d,%s,%d,1,%s,%d,'%s','%s',%d,'normal','',%s)",
			quoteString(e.queryID), quoteString(e.start.Format("2006-01-02 15:04:05.000")), quoteString(e.client),
			quoteString(e.user), quoteString(e.db), quoteString(e.state), e.errCode, quoteString(e.errMsg), e.ms,
			scan*64, scan, ret, ret, int64(ret)*64, scan*64, e.stmtID, quoteString(typ), isQuery,
			quoteString(feHost), e.ms, hex.EncodeToString(h[:]), hex.EncodeToString(d[:]), 16<<20+int64(ret)*128, quoteString(stmt))
	}
	return b.String()
}
