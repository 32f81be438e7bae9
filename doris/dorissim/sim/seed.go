package sim

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// seedVersion changes whenever the __doris_sim layout changes; an upstream
// already seeded with the same version is left alone.
const seedVersion = "sim-seed-v6"

// seed creates the __doris_sim schema (Doris-only information_schema tables
// and per-version views) through the first admin account in Options.Users.
func (s *Server) seed(ctx context.Context) error {
	user, pw, ok := s.adminAccount()
	if !ok {
		s.log.Warn("no admin account in Options.Users: Doris-only information_schema tables are not created")
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	up, err := dialUpstream(ctx, s.opts.Upstream, user, pw, "", 45)
	if err != nil {
		return fmt.Errorf("sim: connect to upstream %s as %s: %w", s.opts.Upstream, user, err)
	}
	defer up.close()
	if dl, ok := ctx.Deadline(); ok {
		_ = up.conn.SetDeadline(dl)
	}
	if err := up.exec("SELECT GET_LOCK('__doris_sim_seed', 30)"); err != nil {
		return fmt.Errorf("sim: seed lock: %w", err)
	}
	defer up.exec("SELECT RELEASE_LOCK('__doris_sim_seed')")
	// What a Doris FE creates or reads at every start: the internal schema
	// and the simulator's metadata (metadata.go). Neither is replaced.
	for _, stmt := range append(InternalSchemaStatements(), metadataStatements()...) {
		if err := up.exec(stmt); err != nil {
			return fmt.Errorf("sim: create internal schema: %w (statement: %.200s)", err, stmt)
		}
	}
	if err := s.loadGlobals(up); err != nil {
		return fmt.Errorf("sim: read persisted globals: %w", err)
	}
	if r, err := up.query("SELECT v FROM "+simSchema+".sim_meta WHERE k = 'seed'", 1); err == nil && r != nil &&
		len(r.rows) == 1 && deref(r.rows[0][0]) == seedVersion {
		return nil
	}
	t0 := time.Now()
	for _, stmt := range s.seedStatements() {
		if err := up.exec(stmt); err != nil {
			return fmt.Errorf("sim: seed upstream: %w (statement: %.200s)", err, stmt)
		}
	}
	s.log.Debug("sim schema seeded", "took", time.Since(t0))
	return nil
}

func (s *Server) seedStatements() []string {
	var out []string
	add := func(f string, a ...any) { out = append(out, fmt.Sprintf(f, a...)) }
	now := time.Now()
	ts := func(d time.Duration) string { return "'" + fmtTime(now.Add(-d)) + "'" }
	add("CREATE DATABASE IF NOT EXISTS `%s` DEFAULT CHARACTER SET utf8mb4 COMMENT 'Doris simulator: Doris-only system tables'", simSchema)
	add("CREATE TABLE IF NOT EXISTS `%s`.sim_meta (k VARCHAR(64) PRIMARY KEY, v VARCHAR(255))", simSchema)
	out = append(out, searchStoreStatements()...) // searchstore.go
	users := []string{"root", "mcp_reader", "mcp_writer"}
	for u := range s.opts.Users {
		if u != "root" && u != "mcp_reader" && u != "mcp_writer" {
			users = append(users, u)
		}
	}
	for _, fam := range []string{"2.1", "3.0", "4.0"} {
		p := knownProfiles[fam]
		t := func(name string) string { return fmt.Sprintf("`%s`.`%s%s`", simSchema, p.prefix(), name) }
		create := func(name, cols string, rows ...string) {
			add("CREATE OR REPLACE TABLE %s (%s) COMMENT 'information_schema.%s (Doris %s shape)'", t(name), cols, name, p.family)
			if len(rows) > 0 {
				add("INSERT INTO %s VALUES %s", t(name), strings.Join(rows, ",\n"))
			}
		}
		view := func(name, body string) {
			add("CREATE OR REPLACE SQL SECURITY INVOKER VIEW %s AS %s", t(name), body)
		}

		// active_queries
		aqCols := "`QUERY_ID` VARCHAR(256), `QUERY_START_TIME` VARCHAR(256), `QUERY_TIME_MS` BIGINT, `WORKLOAD_GROUP_ID` BIGINT, " +
			"`DATABASE` VARCHAR(256), `FRONTEND_INSTANCE` VARCHAR(256), `QUEUE_START_TIME` VARCHAR(256), " +
			"`QUEUE_END_TIME` VARCHAR(256), `QUERY_STATUS` VARCHAR(256), "
		wg := p.workloadGroups()
		type aq struct {
			id, db, status, user, sql string
			age                       time.Duration
			queued                    bool
			group                     int
		}
		aqs := []aq{
			{"6f08c74afbd44fff-9af951270933842d", "tpch_sf1000", "RUNNING", "etl_user", "INSERT INTO lineitem_agg SELECT l_orderkey, SUM(l_quantity) FROM lineitem GROUP BY l_orderkey", 13612 * time.Millisecond, false, 1},
			{"c84e397193a54fe7-bbe9bc219318b75e", "demo", "RUNNING", "analyst_jane", "SELECT c.country, SUM(o.total_amount) FROM orders o JOIN customers c ON o.customer_id = c.customer_id GROUP BY c.country", 2417 * time.Millisecond, false, 0},
			{"91ff336304f14182-9ca537eee75b3856", "demo", "QUEUED", "etl_user", "SELECT * FROM order_items WHERE quantity > 2", 840 * time.Millisecond, true, 1},
		}
		var rows []string
		for _, q := range aqs {
			qs, qe := "''", "''"
			if q.queued {
				qs = ts(q.age)
			}
			r := fmt.Sprintf("('%s',%s,%d,%s,'%s','127.0.0.1',%s,%s,'%s',", q.id, ts(q.age), q.age.Milliseconds(), wg[q.group].id, q.db, qs, qe, q.status)
			if p.atLeast("4.0") {
				r += quoteString(q.user) + ","
			}
			rows = append(rows, r+quoteString(q.sql)+")")
		}
		if p.atLeast("4.0") {
			aqCols += "`USER` VARCHAR(256), "
		}
		create("active_queries", aqCols+"`SQL` TEXT", rows...)

		create("backend_active_tasks", "`BE_ID` BIGINT, `FE_HOST` VARCHAR(256), `WORKLOAD_GROUP_ID` BIGINT, `QUERY_ID` VARCHAR(256), "+
			"`TASK_TIME_MS` BIGINT, `TASK_CPU_TIME_MS` BIGINT, `SCAN_ROWS` BIGINT, `SCAN_BYTES` BIGINT, `BE_PEAK_MEMORY_BYTES` BIGINT, "+
			"`CURRENT_USED_MEMORY_BYTES` BIGINT, `SHUFFLE_SEND_BYTES` BIGINT, `SHUFFLE_SEND_ROWS` BIGINT, `QUERY_TYPE` VARCHAR(256), "+
			"`SPILL_WRITE_BYTES_TO_LOCAL_STORAGE` BIGINT, `SPILL_READ_BYTES_FROM_LOCAL_STORAGE` BIGINT",
			fmt.Sprintf("(10002,'127.0.0.1',%s,'6f08c74afbd44fff-9af951270933842d',13612,11025,12002430,1960955904,733243057,70113260,0,0,'LOAD',508110119,26383070)", wg[1].id),
			fmt.Sprintf("(10002,'127.0.0.1',%s,'c84e397193a54fe7-bbe9bc219318b75e',2417,1893,5000,612000,48234496,31457280,1024,16,'SELECT',0,0)", wg[0].id))

		if p.atLeast("4.0") {
			var r []string
			for _, g := range wg {
				r = append(r, fmt.Sprintf("(%s,'%s','%s','%s','%s','%s',%s,%s,%s,%s,-1,-1,'%s','%s','default',-1,-1)",
					g.id, g.name, g.minCPU, g.maxCPU, g.minMem, g.maxMem, g.maxConc, g.queueSize, g.queueTO, g.scanThreads, g.lowWM, g.highWM))
			}
			create("workload_groups", "`ID` BIGINT, `NAME` VARCHAR(256), `MIN_CPU_PERCENT` VARCHAR(256), `MAX_CPU_PERCENT` VARCHAR(256), "+
				"`MIN_MEMORY_PERCENT` VARCHAR(256), `MAX_MEMORY_PERCENT` VARCHAR(256), `MAX_CONCURRENCY` BIGINT, `MAX_QUEUE_SIZE` BIGINT, "+
				"`QUEUE_TIMEOUT` BIGINT, `SCAN_THREAD_NUM` BIGINT, `MAX_REMOTE_SCAN_THREAD_NUM` BIGINT, `MIN_REMOTE_SCAN_THREAD_NUM` BIGINT, "+
				"`MEMORY_LOW_WATERMARK` VARCHAR(256), `MEMORY_HIGH_WATERMARK` VARCHAR(256), `COMPUTE_GROUP` VARCHAR(256), "+
				"`READ_BYTES_PER_SECOND` BIGINT, `REMOTE_READ_BYTES_PER_SECOND` BIGINT", r...)
		} else {
			var r []string
			for _, g := range wg {
				r = append(r, fmt.Sprintf("(%s,'%s',%s,'%s','true',%s,%s,%s,'%s',%s,-1,-1,'50%%','80%%','',-1,-1)",
					g.id, g.name, g.cpuShare, g.memLimit, g.maxConc, g.queueSize, g.queueTO, g.cpuHard, g.scanThreads))
			}
			create("workload_groups", "`ID` BIGINT, `NAME` VARCHAR(256), `CPU_SHARE` BIGINT, `MEMORY_LIMIT` VARCHAR(256), "+
				"`ENABLE_MEMORY_OVERCOMMIT` VARCHAR(256), `MAX_CONCURRENCY` BIGINT, `MAX_QUEUE_SIZE` BIGINT, `QUEUE_TIMEOUT` BIGINT, "+
				"`CPU_HARD_LIMIT` VARCHAR(256), `SCAN_THREAD_NUM` BIGINT, `MAX_REMOTE_SCAN_THREAD_NUM` BIGINT, "+
				"`MIN_REMOTE_SCAN_THREAD_NUM` BIGINT, `SPILL_THRESHOLD_LOW_WATERMARK` VARCHAR(256), "+
				"`SPILL_THRESHOLD_HIGH_WATERMARK` VARCHAR(256), `TAG` VARCHAR(256), `READ_BYTES_PER_SECOND` BIGINT, "+
				"`REMOTE_READ_BYTES_PER_SECOND` BIGINT", r...)
		}
		var privs []string
		for _, u := range users {
			privs = append(privs, fmt.Sprintf("(%s,'normal','Usage_priv','NO')", quoteString("'"+u+"'@'%'")))
		}
		privs = append(privs, "('''etl_user''@''%''','etl','Usage_priv','NO')")
		create("workload_group_privileges", "`GRANTEE` VARCHAR(256), `WORKLOAD_GROUP_NAME` VARCHAR(256), `PRIVILEGE_TYPE` VARCHAR(256), `IS_GRANTABLE` VARCHAR(256)", privs...)

		const cachePath = "/opt/apache-doris/be/file_cache/"
		var fc []string
		for _, kv := range [][2]string{{"hits_ratio", "0.8539634687001242"}, {"hits_ratio_1h", "0.7912"}, {"hits_ratio_5m", "0.6667"},
			{"normal_queue_curr_elements", "1392"}, {"normal_queue_curr_size", "248922234"}, {"normal_queue_max_elements", "102400"},
			{"normal_queue_max_size", "21474836480"}, {"index_queue_curr_size", "1048576"}, {"disposable_queue_curr_size", "0"}} {
			fc = append(fc, fmt.Sprintf("(10002,'127.0.0.1','%s','%s','%s')", cachePath, kv[0], kv[1]))
		}
		create("file_cache_statistics", "`BE_ID` BIGINT, `BE_IP` VARCHAR(256), `CACHE_PATH` VARCHAR(256), `METRIC_NAME` VARCHAR(256), `METRIC_VALUE` VARCHAR(256)", fc...)

		create("backend_configuration", "`BE_ID` BIGINT, `CONFIG_NAME` VARCHAR(256), `CONFIG_TYPE` VARCHAR(256), `CONFIG_VALUE` VARCHAR(256), `IS_MUTABLE` BOOLEAN",
			"(10002,'mem_limit','string','90%',0)", "(10002,'enable_file_cache','bool','true',0)",
			"(10002,'file_cache_path','string','[{\"path\":\"/opt/apache-doris/be/file_cache\",\"total_size\":21474836480}]',0)",
			"(10002,'max_base_compaction_threads','int32','4',1)", "(10002,'enable_stream_load_record','bool','true',1)")
		create("workload_policy", "`ID` BIGINT, `NAME` VARCHAR(256), `CONDITION` VARCHAR(256), `ACTION` VARCHAR(256), `PRIORITY` INT, `ENABLED` BOOLEAN, `VERSION` INT, `WORKLOAD_GROUP` TEXT",
			"(1754728930600,'cancel_big_scans','be_scan_rows > 1000000000','cancel_query',0,1,0,'')")

		if p.atLeast("4.0") {
			create("be_compaction_tasks", "`BACKEND_ID` BIGINT, `COMPACTION_ID` VARCHAR(256), `TABLE_ID` BIGINT, `PARTITION_ID` BIGINT, "+
				"`TABLET_ID` BIGINT, `COMPACTION_TYPE` VARCHAR(64), `STATUS` VARCHAR(64), `TRIGGER_METHOD` VARCHAR(64), `COMPACTION_SCORE` BIGINT, "+
				"`SCHEDULED_TIME` DATETIME, `START_TIME` DATETIME, `END_TIME` DATETIME, `ELAPSED_TIME_MS` BIGINT, `INPUT_ROWSETS_COUNT` BIGINT, "+
				"`INPUT_ROW_NUM` BIGINT, `INPUT_DATA_SIZE` BIGINT, `INPUT_INDEX_SIZE` BIGINT, `INPUT_TOTAL_SIZE` BIGINT, `INPUT_SEGMENTS_NUM` BIGINT, "+
				"`INPUT_VERSION_RANGE` VARCHAR(256), `MERGED_ROWS` BIGINT, `FILTERED_ROWS` BIGINT, `OUTPUT_ROWS` BIGINT, `OUTPUT_ROW_NUM` BIGINT, "+
				"`OUTPUT_DATA_SIZE` BIGINT, `OUTPUT_INDEX_SIZE` BIGINT, `OUTPUT_TOTAL_SIZE` BIGINT, `OUTPUT_SEGMENTS_NUM` BIGINT, "+
				"`OUTPUT_VERSION` VARCHAR(256), `MERGE_LATENCY_MS` BIGINT, `BYTES_READ_FROM_LOCAL` BIGINT, `BYTES_READ_FROM_REMOTE` BIGINT, "+
				"`PEAK_MEMORY_BYTES` BIGINT, `IS_VERTICAL` BOOLEAN, `PERMITS` BIGINT, `STATUS_MSG` TEXT",
				fmt.Sprintf("(10002,'10002-1754728931001',1754728930700,1754728930701,1754728930702,'cumulative','FINISHED','AUTO',12,%s,%s,%s,1840,6,480000,9830400,131072,9961472,6,'[12-17]',0,0,480000,480000,9502720,126976,9629696,1,'[12-17]',1523,9961472,0,33554432,1,6,'')", ts(5*time.Minute), ts(5*time.Minute-time.Second), ts(5*time.Minute-3*time.Second)),
				fmt.Sprintf("(10002,'10002-1754728931002',1754728930700,1754728930701,1754728930703,'base','RUNNING','AUTO',37,%s,%s,NULL,9120,14,5200000,104857600,1048576,105906176,14,'[0-37]',0,0,0,0,0,0,0,0,'',0,52428800,0,268435456,1,14,'')", ts(10*time.Second), ts(9*time.Second)),
				fmt.Sprintf("(10002,'10002-1754728931003',1754728930710,1754728930711,1754728930712,'full','PENDING','MANUAL',3,%s,NULL,NULL,0,3,0,0,0,0,0,'[0-3]',0,0,0,0,0,0,0,0,'',0,0,0,0,0,0,'')", ts(2*time.Second)))
		}

		// Live views over MariaDB's own system tables.
		plCols := "IF(p.ID = CONNECTION_ID(), 'Yes', 'No') AS `CURRENT_CONNECTED`, p.ID AS `ID`, p.USER AS `USER`, p.HOST AS `HOST`, " +
			"DATE_FORMAT(NOW() - INTERVAL p.TIME SECOND, '%Y-%m-%d %H:%i:%s') AS `LOGIN_TIME`, 'internal' AS `CATALOG`, " +
			"COALESCE(p.DB, '') AS `DB`, p.COMMAND AS `COMMAND`, p.TIME AS `TIME`, IF(p.COMMAND = 'Query', 'OK', 'EOF') AS `STATE`, " +
			"'' AS `QUERY_ID`, "
		if p.atLeast("4.0") {
			plCols += "'' AS `TRACE_ID`, COALESCE(p.INFO, '') AS `INFO`, '127.0.0.1' AS `FE`, NULL AS `CLOUD_CLUSTER`"
		} else {
			plCols += "COALESCE(p.INFO, '') AS `INFO`"
		}
		view("processlist", "SELECT "+plCols+" FROM information_schema.PROCESSLIST p WHERE p.COMMAND <> 'Daemon'")
		view("table_options", "SELECT 'internal' AS `TABLE_CATALOG`, t.TABLE_SCHEMA AS `TABLE_SCHEMA`, t.TABLE_NAME AS `TABLE_NAME`, "+
			"IF(EXISTS(SELECT 1 FROM information_schema.STATISTICS s WHERE s.TABLE_SCHEMA = t.TABLE_SCHEMA AND s.TABLE_NAME = t.TABLE_NAME AND s.INDEX_NAME = 'PRIMARY'), 'UNI', 'DUP') AS `TABLE_MODEL`, "+
			"COALESCE((SELECT GROUP_CONCAT(k.COLUMN_NAME ORDER BY k.SEQ_IN_INDEX) FROM information_schema.STATISTICS k WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND k.TABLE_NAME = t.TABLE_NAME AND k.INDEX_NAME = 'PRIMARY'), '') AS `TABLE_MODEL_KEY`, "+
			"COALESCE((SELECT GROUP_CONCAT(k.COLUMN_NAME ORDER BY k.SEQ_IN_INDEX) FROM information_schema.STATISTICS k WHERE k.TABLE_SCHEMA = t.TABLE_SCHEMA AND k.TABLE_NAME = t.TABLE_NAME AND k.INDEX_NAME = 'PRIMARY'), '') AS `DISTRIBUTE_KEY`, "+
			"'HASH' AS `DISTRIBUTE_TYPE`, 10 AS `BUCKETS_NUM`, 1 AS `PARTITION_NUM` FROM information_schema.TABLES t "+
			"WHERE t.TABLE_TYPE = 'BASE TABLE' AND t.TABLE_SCHEMA NOT IN ('mysql', 'performance_schema', 'sys', '"+simSchema+"')")
		view("metadata_name_ids", "SELECT 0 AS `CATALOG_ID`, 'internal' AS `CATALOG_NAME`, 10000 + CRC32(t.TABLE_SCHEMA) % 50000 AS `DATABASE_ID`, "+
			"t.TABLE_SCHEMA AS `DATABASE_NAME`, 100000 + CRC32(CONCAT(t.TABLE_SCHEMA, '.', t.TABLE_NAME)) % 900000 AS `TABLE_ID`, "+
			"t.TABLE_NAME AS `TABLE_NAME` FROM information_schema.TABLES t WHERE t.TABLE_SCHEMA NOT IN ('mysql', 'performance_schema', 'sys', '"+simSchema+"')")

		// audit log per family (3.0 reads the real table). Queries read the
		// same SELECT as a derived table (see auditSource); the view serves
		// DESC and SHOW COLUMNS.
		if body := p.auditSelect(); body != "" {
			view("audit_log", body)
		}
	}
	out = append(out, governanceSeed()...)
	add("REPLACE INTO `%s`.sim_meta VALUES ('seed', '%s')", simSchema, seedVersion)
	return out
}
