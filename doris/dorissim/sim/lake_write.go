package sim

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Writes to Iceberg and Paimon tables commit snapshots.
//
// INSERT INTO appends, INSERT OVERWRITE TABLE replaces the data, and (for
// Iceberg v2 tables) DELETE writes position deletes and UPDATE overwrites.
// The data change runs upstream as the client; the snapshot is then
// committed to the table's snapshot table (<table>$snapshots in the backing
// database) as the administrator, under one lock per server so that each
// snapshot's parent is the one committed before it. Record counts in the
// summary come from the rows the write changed; file counts and sizes
// follow a simple model (one data file per append, one delete file per
// delete, about 48 bytes a record).
//
// Doris itself writes Iceberg tables with INSERT and INSERT OVERWRITE only
// before 4.1 (DELETE, UPDATE and MERGE came in 4.1), and Paimon tables are
// written by other engines; the simulator accepts these writes on every
// release so that tests and the demo can make real history.

// writeTarget finds the table an INSERT, DELETE or UPDATE writes.
func writeTarget(ts []token) (q qname, op string, nameAt, nameEnd int, ok bool) {
	i := 1
	switch {
	case ts[0].is("INSERT"):
		op = "append"
		if i < len(ts) && ts[i].is("OVERWRITE") {
			op = "overwrite"
			i++
			if i < len(ts) && ts[i].is("TABLE") {
				i++
			}
		} else if i < len(ts) && ts[i].is("INTO") {
			i++
		} else {
			return q, "", 0, 0, false
		}
	case ts[0].is("DELETE"):
		op = "delete"
		if i >= len(ts) || !ts[i].is("FROM") {
			return q, "", 0, 0, false
		}
		i++
	case ts[0].is("UPDATE"):
		op = "update"
	}
	parts, next := parseChain(ts, i)
	switch len(parts) {
	case 1:
		q.table = parts[0]
	case 2:
		q.db, q.table = parts[0], parts[1]
	case 3:
		q.catalog, q.db, q.table = parts[0], parts[1], parts[2]
	default:
		return q, "", 0, 0, false
	}
	return q, op, i, next, true
}

// extWrite is the write path for tables of external catalogs.
func (c *conn) extWrite(sql string, ts []token) (bool, error) {
	q, op, _, nameEnd, ok := writeTarget(ts)
	if !ok {
		return false, nil
	}
	r, ext := c.resolveExt(q)
	if !ext {
		return false, nil
	}
	m, sent, err := c.checkExtTable(r, sql)
	if sent || err != nil {
		return true, err
	}
	format := r.format(m)
	snapshots := format == "iceberg" || format == "paimon"
	switch {
	case op == "overwrite" && !snapshots && format != "hive":
		return true, c.send(newDorisErr(1105, "HY000", "INSERT OVERWRITE is not supported for "+format+" table"))
	case (op == "delete" || op == "update") && format != "iceberg":
		return true, c.send(newDorisErr(1105, "HY000", "Only support "+strings.ToUpper(op)+" on OLAP table or Iceberg table, but got "+format+" table"))
	}
	target := qualified(r.backing(), r.table)
	l := &c.s.lake
	if snapshots {
		l.commit.Lock()
		defer l.commit.Unlock()
	}
	var added, deleted int64
	switch op {
	case "overwrite":
		// The new rows are computed before the old ones go (the query may
		// read the table it overwrites), in a temporary copy.
		tmp := qualified(r.backing(), "__sim_overwrite")
		rw, derr := c.rewrite("INSERT INTO " + tmp + " " + tailAfter(sql, nameEnd))
		if derr != nil {
			return true, c.send(derr)
		}
		steps := []string{"DROP TEMPORARY TABLE IF EXISTS " + tmp, "CREATE TEMPORARY TABLE " + tmp + " LIKE " + target,
			rw.sql, "START TRANSACTION", "DELETE FROM " + target, "INSERT INTO " + target + " SELECT * FROM " + tmp, "COMMIT"}
		var res [7]*result
		for k, q := range steps {
			r, sent, err := c.upQuery(q, sql, 1)
			if sent || err != nil {
				c.upQuery("ROLLBACK", sql, 1)
				c.upQuery("DROP TEMPORARY TABLE IF EXISTS "+tmp, sql, 1)
				return true, err
			}
			res[k] = r
		}
		c.upQuery("DROP TEMPORARY TABLE IF EXISTS "+tmp, sql, 1)
		added, deleted = int64(res[2].affected), int64(res[4].affected)
	default:
		rw, derr := c.rewrite(sql)
		if derr != nil {
			return true, c.send(derr)
		}
		res, sent, err := c.upQuery(rw.sql, sql, 1)
		if sent || err != nil {
			return true, err
		}
		switch op {
		case "append":
			added = int64(res.affected)
		case "delete":
			deleted = int64(res.affected)
		case "update":
			added, deleted = int64(res.affected), int64(res.affected)
		}
	}
	affected := added
	if op == "delete" {
		affected = deleted
	}
	if snapshots && (affected > 0 || op == "overwrite") {
		if err := c.s.commitSnapshot(r, format, op, added, deleted, icebergV3(m)); err != nil {
			c.s.log.Warn("sim: snapshot commit failed", "table", r.db+"."+r.table, "err", err)
			return true, c.send(newDorisErr(1105, "HY000", "failed to commit the "+format+" snapshot"))
		}
	}
	return true, c.sendOK(uint64(affected), "")
}

// tableLocation is where a table's files would live: the catalog's
// warehouse (given in its properties) plus database and table.
func (r extRef) tableLocation() string {
	wh := ""
	for _, p := range r.cat.props {
		switch strings.ToLower(p[0]) {
		case "warehouse", "iceberg.catalog.warehouse", "hive.metastore.warehouse.dir":
			wh = p[1]
		}
	}
	if wh == "" {
		if r.cat.typ == "hms" {
			return "hdfs://127.0.0.1:8020/user/hive/warehouse/" + r.db + ".db/" + r.table
		}
		wh = "s3://warehouse"
	}
	return strings.TrimRight(wh, "/") + "/" + r.db + "/" + r.table
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func randomUUID() string {
	h := randomHex(16)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// icebergSummary is an Iceberg snapshot summary (string values).
type icebergSummary map[string]string

func (s icebergSummary) n(k string) int64 {
	v, _ := strconv.ParseInt(s[k], 10, 64)
	return v
}

// icebergV3 tells whether an Iceberg table was created with
// "format-version" = "3": its row-level deletes are deletion vectors.
func icebergV3(m *tableMeta) bool {
	if m == nil {
		return false
	}
	for _, p := range m.props {
		if p[0] == "format-version" {
			return p[1] == "3"
		}
	}
	return false
}

// commitSnapshot records one snapshot of r after a write. On an Iceberg v3
// table (dvs) a delete writes a deletion vector instead of a position
// delete file, and the summary counts it as Iceberg's SnapshotSummary does:
// added-dvs and added-delete-files, with the deleted rows in
// added-position-deletes (one vector per write in this model).
func (s *Server) commitSnapshot(r extRef, format, op string, added, deleted int64, dvs bool) error {
	snapTable := qualified(r.backing(), r.table+"$snapshots")
	now := time.Now()
	if format == "paimon" {
		head, err := s.adminQuery("SELECT snapshot_id, total_record_count FROM "+snapTable+" ORDER BY snapshot_id DESC LIMIT 1", 1)
		if err != nil {
			return err
		}
		var id, total int64 = 1, 0
		if len(head.rows) == 1 {
			prev, _ := strconv.ParseInt(deref(head.rows[0][0]), 10, 64)
			total, _ = strconv.ParseInt(deref(head.rows[0][1]), 10, 64)
			id = prev + 1
		}
		kind, delta := "APPEND", added
		if op == "overwrite" {
			kind, total = "OVERWRITE", 0
		}
		total += added
		loc := r.tableLocation() + "/manifest/manifest-list-" + randomUUID()
		return s.adminExec(fmt.Sprintf("INSERT INTO %s VALUES (%d, 0, %s, 9223372036854775807, %s, %s, %s, %s, NULL, %d, %d, 0, -9223372036854775808)",
			snapTable, id, quoteString(randomUUID()), quoteString(kind), quoteString(now.Format("2006-01-02 15:04:05.000")),
			quoteString(loc+"-0"), quoteString(loc+"-1"), total, delta))
	}
	// Iceberg: the head is the snapshot no other names as its parent.
	head, err := s.adminQuery("SELECT s.snapshot_id, s.summary FROM "+snapTable+" s WHERE NOT EXISTS (SELECT 1 FROM "+snapTable+
		" c WHERE c.parent_id = s.snapshot_id)", 2)
	if err != nil {
		return err
	}
	prev := icebergSummary{}
	parent := "NULL"
	if len(head.rows) == 1 {
		parent = deref(head.rows[0][0])
		_ = json.Unmarshal([]byte(deref(head.rows[0][1])), &prev)
	}
	size := func(records int64) int64 { return 1024 + 48*records }
	next := icebergSummary{}
	set := func(k string, v int64) { next[k] = strconv.FormatInt(v, 10) }
	totalRecords, totalFiles, totalSize := prev.n("total-records"), prev.n("total-data-files"), prev.n("total-files-size")
	deleteFiles, posDeletes := prev.n("total-delete-files"), prev.n("total-position-deletes")
	operation := op
	switch op {
	case "append":
		set("added-data-files", 1)
		set("added-records", added)
		set("added-files-size", size(added))
		totalRecords, totalFiles, totalSize = totalRecords+added, totalFiles+1, totalSize+size(added)
	case "overwrite":
		set("deleted-data-files", totalFiles)
		set("deleted-records", totalRecords)
		set("removed-files-size", totalSize)
		totalRecords, totalFiles, totalSize, deleteFiles, posDeletes = 0, 0, 0, 0, 0
		if added > 0 {
			set("added-data-files", 1)
			set("added-records", added)
			set("added-files-size", size(added))
			totalRecords, totalFiles, totalSize = added, 1, size(added)
		}
	case "delete":
		set("added-delete-files", 1)
		if dvs {
			set("added-dvs", 1)
		} else {
			set("added-position-delete-files", 1)
		}
		set("added-position-deletes", deleted)
		deleteFiles, posDeletes = deleteFiles+1, posDeletes+deleted
	case "update":
		operation = "overwrite"
		set("added-data-files", 1)
		set("added-records", added)
		set("added-files-size", size(added))
		set("added-delete-files", 1)
		if dvs {
			set("added-dvs", 1)
		}
		set("added-position-deletes", deleted)
		totalRecords, totalFiles, totalSize = totalRecords+added, totalFiles+1, totalSize+size(added)
		deleteFiles, posDeletes = deleteFiles+1, posDeletes+deleted
	}
	set("total-records", totalRecords)
	set("total-files-size", totalSize)
	set("total-data-files", totalFiles)
	set("total-delete-files", deleteFiles)
	set("total-position-deletes", posDeletes)
	set("total-equality-deletes", 0)
	var b [8]byte
	_, _ = rand.Read(b[:])
	id := int64(binary.BigEndian.Uint64(b[:])&^(1<<63)) | 1<<40 // positive, never 0
	manifest := fmt.Sprintf("%s/metadata/snap-%d-1-%s.avro", r.tableLocation(), id, randomUUID())
	return s.adminExec(fmt.Sprintf("INSERT INTO %s VALUES (%s, %d, %s, %s, %s, %s)", snapTable,
		quoteString(now.Format("2006-01-02 15:04:05.000000")), id, parent, quoteString(operation), quoteString(manifest),
		quoteString(summaryJSON(next))))
}

// summaryJSON renders a summary as Doris shows it: a JSON object with
// string values, keys in Iceberg's order of importance.
func summaryJSON(s icebergSummary) string {
	order := []string{"added-data-files", "deleted-data-files", "added-delete-files", "added-position-delete-files",
		"added-dvs", "added-records", "deleted-records", "added-position-deletes", "added-files-size", "removed-files-size",
		"total-records", "total-files-size", "total-data-files", "total-delete-files", "total-position-deletes",
		"total-equality-deletes"}
	rank := map[string]int{}
	for i, k := range order {
		rank[k] = i
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return rank[keys[a]] < rank[keys[b]] })
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		kj, _ := json.Marshal(k)
		vj, _ := json.Marshal(s[k])
		b.Write(kj)
		b.WriteByte(':')
		b.Write(vj)
	}
	b.WriteByte('}')
	return b.String()
}
