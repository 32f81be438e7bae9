package sim

import (
	"fmt"
	"hash/crc32"
	"sort"
	"strings"
	"sync"
	"time"
)

// What the simulated backend does while statements run: rows read, a
// file cache that fills and hits, memory held by running queries, and
// rowsets that writes add and compaction merges. Every figure moves only
// because a client statement ran through the simulator, so the BE
// /metrics families, information_schema.file_cache_statistics and
// information_schema.be_compaction_tasks tell the truth about what
// happened.

// Model constants: how reads and writes turn into cache blocks, memory
// and compaction work.
const (
	cacheBlockBytes     = 1 << 20 // one file cache block
	cacheMaxBytes       = 21474836480
	cacheMaxElements    = 102400
	rowsPerBlock        = 1024     // rows read per cache block touched
	bytesPerRow         = 64       // scan bytes per row read
	queryMemBytes       = 48 << 20 // held by each running statement
	compactionMemBytes  = 64 << 20 // held by each running compaction
	baseProcessBytes    = 1610612736
	cumulativeThreshold = 5 // rowsets that trigger a cumulative compaction
	baseEvery           = 4 // every 4th cumulative compaction is followed by a base one
	maxCompactionTasks  = 128
	compactionPending   = 1 * time.Second // PENDING before RUNNING
	compactionRunning   = 2 * time.Second // RUNNING before FINISHED
)

// activity is the backend's state; it is safe for concurrent use.
type activity struct {
	mu       sync.Mutex       // protects everything below
	running  map[*conn]string // statements in flight -> workload group
	scanRows int64
	scanB    int64
	cache    map[string]int64 // table -> cached blocks
	hits     int64
	misses   int64
	events   []cacheEvent // recent lookups, for the 5 minute and 1 hour ratios
	peakMem  int64
	tablets  map[string]*tabletState
	tasks    []compactionTask
	nextTask int64
	evicted  compactionTotals // finished tasks no longer listed
}

type cacheEvent struct {
	at           time.Time
	hits, misses int64
}

type tabletState struct {
	db, table           string
	pending             int   // rowsets since the last cumulative compaction
	pendingRows         int64 // rows in them
	cumulatives         int   // cumulative compactions so far
	version             int   // last version written
	compactedTo         int   // versions up to here are merged
	baseScore, cumScore int
}

// compactionTask is one compaction of one tablet; its status follows its
// schedule (PENDING, then RUNNING, then FINISHED).
type compactionTask struct {
	id                string
	backend           string
	tableID, tabletID int64
	kind              string // cumulative | base
	trigger           string
	score             int
	scheduled         time.Time
	rowsets           int
	rows, bytes       int64
	fromVer, toVer    int
}

type compactionTotals struct{ bytes, deltas map[string]int64 }

func newActivity() *activity {
	return &activity{running: map[*conn]string{}, cache: map[string]int64{}, tablets: map[string]*tabletState{},
		evicted: compactionTotals{bytes: map[string]int64{}, deltas: map[string]int64{}}}
}

// begin records a statement in flight and the workload group it runs in.
func (a *activity) begin(c *conn, group string) {
	if group == "" {
		group = "normal"
	}
	a.mu.Lock()
	a.running[c] = group
	if m := a.memoryLocked(); m > a.peakMem {
		a.peakMem = m
	}
	a.mu.Unlock()
}

// done records what a finished statement did: the tables it read and the
// rows it returned, or the table it wrote and the rows it changed.
func (a *activity) done(c *conn, sql, db string, failed bool, rows, affected int64, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.running, c)
	if failed {
		return
	}
	reads, write := tablesOf(sql, db)
	if write != "" {
		a.writeLocked(write, max(affected, 1), now)
		return
	}
	if len(reads) == 0 {
		return
	}
	a.scanRows += rows
	a.scanB += rows * bytesPerRow
	blocks := 1 + rows/rowsPerBlock
	var ev cacheEvent
	ev.at = now
	for _, t := range reads {
		cached := a.cache[t]
		hit := min(blocks, cached)
		ev.hits += hit
		ev.misses += blocks - hit
		if blocks > cached && a.cacheBytesLocked()+(blocks-cached)*cacheBlockBytes <= cacheMaxBytes {
			a.cache[t] = blocks
		}
	}
	a.hits += ev.hits
	a.misses += ev.misses
	a.events = append(a.events, ev)
	cut := 0
	for cut < len(a.events) && now.Sub(a.events[cut].at) > time.Hour {
		cut++
	}
	a.events = a.events[cut:]
	if len(a.events) > 4096 {
		a.events = a.events[len(a.events)-4096:]
	}
}

func (a *activity) cacheBytesLocked() int64 {
	var n int64
	for _, b := range a.cache {
		n += b
	}
	return n * cacheBlockBytes
}

// writeLocked adds one rowset to the written table's tablet and schedules
// a compaction when enough have piled up.
func (a *activity) writeLocked(table string, rows int64, now time.Time) {
	t := a.tablets[table]
	if t == nil {
		db, tbl, _ := strings.Cut(table, ".")
		t = &tabletState{db: db, table: tbl, version: 1, compactedTo: 1}
		a.tablets[table] = t
	}
	t.version++
	t.pending++
	t.pendingRows += rows
	t.cumScore = t.pending
	t.baseScore = t.cumulatives + 1
	if t.pending < cumulativeThreshold {
		return
	}
	a.scheduleLocked(t, "cumulative", t.pending, t.pendingRows, t.compactedTo+1, t.version, now)
	t.compactedTo = t.version
	t.pending, t.pendingRows, t.cumScore = 0, 0, 0
	t.cumulatives++
	if t.cumulatives%baseEvery == 0 {
		a.scheduleLocked(t, "base", t.cumulatives+1, int64(t.cumulatives)*rows, 0, t.version, now.Add(compactionPending))
		t.baseScore = 1
	}
}

func (a *activity) scheduleLocked(t *tabletState, kind string, rowsets int, rows int64, from, to int, at time.Time) {
	a.nextTask++
	tid := tableID(t.db, t.table)
	a.tasks = append(a.tasks, compactionTask{
		id: fmt.Sprintf("%s-%d", backendID, 1754728931000+a.nextTask), backend: backendID, tableID: tid,
		tabletID: tid*100 + 2, kind: kind, trigger: "AUTO", score: rowsets, scheduled: at, rowsets: rowsets,
		rows: rows, bytes: rows * bytesPerRow, fromVer: from, toVer: to,
	})
	if len(a.tasks) > maxCompactionTasks {
		old := a.tasks[0]
		a.evicted.bytes[old.kind] += old.bytes
		a.evicted.deltas[old.kind] += int64(old.rowsets)
		a.tasks = a.tasks[1:]
	}
}

// status is the task's state at now.
func (t *compactionTask) status(now time.Time) string {
	switch age := now.Sub(t.scheduled); {
	case age < compactionPending:
		return "PENDING"
	case age < compactionPending+compactionRunning:
		return "RUNNING"
	}
	return "FINISHED"
}

// tableID is the Doris table id the simulator uses everywhere (the
// information_schema.metadata_name_ids view computes the same).
func tableID(db, table string) int64 {
	return 100000 + int64(crc32.ChecksumIEEE([]byte(db+"."+table))%900000)
}

// memoryLocked is what the backend holds now: a base, every running
// statement, running compactions and the file cache's metadata.
func (a *activity) memoryLocked() int64 {
	return baseProcessBytes + int64(len(a.running))*queryMemBytes + a.compactionMemLocked(time.Now()) + a.cacheBytesLocked()/64
}

func (a *activity) compactionMemLocked(now time.Time) int64 {
	var n int64
	for i := range a.tasks {
		if a.tasks[i].status(now) == "RUNNING" {
			n += compactionMemBytes
		}
	}
	return n
}

// byGroup counts the statements in flight per workload group.
func (a *activity) byGroup() map[string]int {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := map[string]int{}
	for _, g := range a.running {
		out[g]++
	}
	return out
}

// group returns the workload group of a statement in flight.
func (a *activity) group(c *conn) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running[c]
}

// snapshot is a consistent copy for the metrics and system tables.
type activitySnapshot struct {
	now                        time.Time
	running                    int
	scanRows, scanBytes        int64
	hits, misses               int64
	hits5m, misses5m, hits1h   int64
	misses1h                   int64
	cacheBytes, cacheElements  int64
	memory, peak, queryMem     int64
	compactionMem, globalMem   int64
	tasks                      []compactionTask
	bytesByKind, deltasByKind  map[string]int64
	maxCumScore, maxBaseScore  int
	runningTasks, pendingTasks int
}

func (a *activity) snapshot(now time.Time) activitySnapshot {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := activitySnapshot{now: now, running: len(a.running), scanRows: a.scanRows, scanBytes: a.scanB,
		hits: a.hits, misses: a.misses, cacheBytes: a.cacheBytesLocked(),
		bytesByKind: map[string]int64{}, deltasByKind: map[string]int64{}}
	for _, b := range a.cache {
		s.cacheElements += b
	}
	for _, e := range a.events {
		if now.Sub(e.at) <= 5*time.Minute {
			s.hits5m += e.hits
			s.misses5m += e.misses
		}
		if now.Sub(e.at) <= time.Hour {
			s.hits1h += e.hits
			s.misses1h += e.misses
		}
	}
	s.queryMem = int64(s.running) * queryMemBytes
	s.compactionMem = a.compactionMemLocked(now)
	s.globalMem = 268435456 + s.cacheBytes/64
	s.memory = a.memoryLocked()
	s.peak = max(a.peakMem, s.memory)
	s.tasks = append([]compactionTask(nil), a.tasks...)
	for k, v := range a.evicted.bytes {
		s.bytesByKind[k] = v
	}
	for k, v := range a.evicted.deltas {
		s.deltasByKind[k] = v
	}
	for i := range s.tasks {
		t := &s.tasks[i]
		switch t.status(now) {
		case "FINISHED":
			s.bytesByKind[t.kind] += t.bytes
			s.deltasByKind[t.kind] += int64(t.rowsets)
		case "RUNNING":
			s.runningTasks++
		case "PENDING":
			s.pendingTasks++
		}
	}
	for _, t := range a.tablets {
		s.maxCumScore = max(s.maxCumScore, t.cumScore)
		s.maxBaseScore = max(s.maxBaseScore, t.baseScore)
	}
	sort.Slice(s.tasks, func(i, j int) bool { return s.tasks[i].scheduled.After(s.tasks[j].scheduled) })
	return s
}

func ratio(hits, misses int64) float64 {
	if hits+misses == 0 {
		return 0
	}
	return float64(hits) / float64(hits+misses)
}

// userSchemas are left out of the cache and compaction model.
var systemSchemas = map[string]bool{"information_schema": true, "__internal_schema": true, "mysql": true,
	"performance_schema": true, "sys": true, simSchema: true}

// tablesOf returns the user tables a statement reads, and the table it
// writes ("" for none), as "db.table" (names are case-sensitive, as in
// MariaDB on Linux).
func tablesOf(sql, db string) (reads []string, write string) {
	ts := sig(lex(sql))
	name := func(i int) (string, int) {
		parts, next := parseChain(ts, i)
		switch len(parts) {
		case 1:
			parts = []string{db, parts[0]}
		case 3:
			parts = parts[1:]
		}
		if len(parts) != 2 || parts[0] == "" || systemSchemas[strings.ToLower(parts[0])] {
			return "", next
		}
		return parts[0] + "." + parts[1], next
	}
	i := 0
	if len(ts) > 0 {
		switch {
		case ts[0].is("INSERT") || ts[0].is("REPLACE"):
			i = 1
			if i < len(ts) && ts[i].is("INTO") {
				i++
			}
			write, i = name(i)
		case ts[0].is("UPDATE"):
			write, i = name(1)
		case ts[0].is("DELETE") && len(ts) > 1 && ts[1].is("FROM"):
			write, i = name(2)
		}
	}
	for ; i < len(ts); i++ {
		if !(ts[i].is("FROM") || ts[i].is("JOIN")) || i+1 >= len(ts) || !ts[i+1].isIdent() {
			continue
		}
		if t, _ := name(i + 1); t != "" && t != write {
			reads = append(reads, t)
		}
	}
	return reads, write
}
