package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// showPartitionsCols are the SHOW PARTITIONS columns of an OLAP table
// (PartitionsProcDir); 3.0 added CommittedVersion and RowCount.
func (p profile) showPartitionsCols() []string {
	cols := []string{"PartitionId", "PartitionName", "VisibleVersion", "VisibleVersionTime", "State", "PartitionKey",
		"Range", "DistributionKey", "Buckets", "ReplicationNum", "StorageMedium", "CooldownTime", "RemoteStoragePolicy",
		"LastConsistencyCheckTime", "DataSize", "IsInMemory", "ReplicaAllocation", "IsMutable", "SyncWithBaseTables",
		"UnsyncTables"}
	if p.atLeast("3.0") {
		cols = append(cols, "CommittedVersion", "RowCount")
	}
	return cols
}

// showPartitionsOf answers SHOW PARTITIONS FROM [db.]t [WHERE ...]
// [ORDER BY ...] [LIMIT ...]: one row per upstream partition (one named
// after the table when it is not partitioned, as Doris shows it). The
// visible version counts the writes committed through the simulator and
// VisibleVersionTime is the time of the last one; a table the simulator
// has not seen written shows the upstream's own update (or creation) time.
func (c *conn) showPartitionsOf(ts []token, i int) error {
	q, next, ok := parseTableRef(ts, i)
	if !ok {
		return c.send(newDorisErr(1105, "HY000", "Invalid table name"))
	}
	if derr := c.checkCatalog(q.catalog); derr != nil {
		return c.send(derr)
	}
	p := c.s.profile()
	cols := p.showPartitionsCols()
	tail, derr := c.parseShowQuery(ts[next:], []string{"PartitionName", "State", "Buckets", "ReplicationNum", "LastConsistencyCheckTime"},
		"Only the columns of PartitionId/PartitionName/State/Buckets/ReplicationNum/LastConsistencyCheckTime are supported.")
	if derr != nil {
		return c.send(derr)
	}
	if derr := tail.orderByKnown(cols); derr != nil {
		return c.send(derr)
	}
	db := q.db
	if db == "" {
		db, _, _ = c.snapshot()
	}
	if db == "" {
		return c.send(&dorisErr{1046, "3D000", "errCode = 2, detailMessage = No database selected"})
	}
	r, sent, err := c.upQuery(fmt.Sprintf("SELECT p.PARTITION_NAME, p.PARTITION_METHOD, p.PARTITION_EXPRESSION, p.PARTITION_DESCRIPTION, "+
		"p.TABLE_ROWS, p.DATA_LENGTH, p.CREATE_TIME, COALESCE(p.UPDATE_TIME, t.UPDATE_TIME), t.TABLE_TYPE, t.CREATE_TIME "+
		"FROM information_schema.TABLES t LEFT JOIN information_schema.PARTITIONS p ON p.TABLE_SCHEMA = t.TABLE_SCHEMA AND p.TABLE_NAME = t.TABLE_NAME "+
		"WHERE t.TABLE_SCHEMA = %s AND t.TABLE_NAME = %s ORDER BY p.PARTITION_ORDINAL_POSITION", quoteString(db), quoteString(q.table)), "", 10000)
	if sent || err != nil {
		return err
	}
	if len(r.rows) == 0 {
		return c.send(&dorisErr{1051, "42S02", fmt.Sprintf("errCode = 2, detailMessage = Unknown table '%s'", q.table)})
	}
	if deref(r.rows[0][8]) == "VIEW" {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("Table[%s] is not a OLAP table", q.table)))
	}
	tracked, known := c.s.pipe.version(db, q.table)
	var rows [][]any
	prevKey := ""
	for k, row := range r.rows {
		name := deref(row[0])
		partKey, rng := "", ""
		if name == "" {
			name = q.table
		} else {
			partKey = strings.ReplaceAll(deref(row[2]), "`", "")
			typ := "INT"
			if strings.EqualFold(deref(row[1]), "RANGE") {
				lower := prevKey
				if lower == "" {
					lower = "-2147483648"
				}
				upper := deref(row[3])
				if strings.EqualFold(upper, "MAXVALUE") {
					upper = "2147483647"
				}
				rng = fmt.Sprintf("[types: [%s]; keys: [%s]; ..types: [%s]; keys: [%s]; )", typ, lower, typ, upper)
				prevKey = upper
			} else {
				rng = fmt.Sprintf("[types: [%s]; keys: [%s]; ]", typ, deref(row[3]))
			}
		}
		rowsN, _ := strconv.ParseInt(deref(row[4]), 10, 64)
		size, _ := strconv.ParseInt(deref(row[5]), 10, 64)
		version := int64(1)
		if rowsN > 0 {
			version = 2 // loaded before the simulator started
		}
		vtime := deref(row[7])
		if vtime == "" {
			vtime = deref(row[6])
		}
		if vtime == "" {
			vtime = deref(row[9])
		}
		if known {
			version = tracked.version
			if up, err := time.ParseInLocation("2006-01-02 15:04:05", vtime, time.Local); err != nil || tracked.at.After(up) {
				vtime = fmtTime(tracked.at)
			}
		}
		out := []any{dbID(db+"."+q.table) + strconv.Itoa(100+k), name, strconv.FormatInt(version, 10),
			vtime, "NORMAL", partKey, rng, "", "10", "1", "HDD", "9999-12-31 23:59:59", "", nil, humanSize(size), "false",
			"tag.location.default: 1", "true", "true", nil}
		if p.atLeast("3.0") {
			out = append(out, strconv.FormatInt(version, 10), strconv.FormatInt(rowsN, 10))
		}
		rows = append(rows, out)
	}
	return c.sendResult(cols, tail.apply(cols, rows, "PartitionId"))
}
