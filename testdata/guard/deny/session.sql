-- case: set global variable
-- reason: WRITE_STATEMENT
SET GLOBAL enable_nereids_planner = false
-- case: set session variable
-- reason: WRITE_STATEMENT
SET query_timeout = 100000
-- case: set server session template still refused by check
-- reason: WRITE_STATEMENT
SET enable_profile = true
-- case: set session context
-- reason: WRITE_STATEMENT
SET session_context = "trace_id:8f14e45f-ceea-4167-a36d-6f7a9a1b2c3d"
-- case: set system variable at at
-- reason: WRITE_STATEMENT
SET @@global.sql_mode = 'NO_BACKSLASH_ESCAPES'
-- case: set user variable
-- reason: WRITE_STATEMENT
SET @x = 1
-- case: set password
-- reason: WRITE_STATEMENT
SET PASSWORD = PASSWORD('new')
-- case: set property
-- reason: WRITE_STATEMENT
SET PROPERTY FOR 'mcp_reader' 'max_user_connections' = '1000'
-- case: set names
-- reason: WRITE_STATEMENT
SET NAMES utf8mb4
-- case: set transaction read only
-- reason: WRITE_STATEMENT
SET SESSION TRANSACTION READ ONLY
-- case: set default storage vault
-- reason: WRITE_STATEMENT
SET vault1 AS DEFAULT STORAGE VAULT
-- case: unset variable
-- reason: WRITE_STATEMENT
UNSET GLOBAL VARIABLE query_timeout
-- case: use database
-- reason: WRITE_STATEMENT
USE other_db
-- case: use backquoted database
-- reason: WRITE_STATEMENT
USE `internal`.`sales_db`
-- case: use compute group
-- reason: WRITE_STATEMENT
USE @big_cluster
-- case: switch catalog
-- reason: WRITE_STATEMENT
SWITCH hive_catalog
-- case: kill connection
-- reason: WRITE_STATEMENT
KILL 42
-- case: kill query
-- reason: WRITE_STATEMENT
KILL QUERY 42
-- case: kill query id string
-- reason: WRITE_STATEMENT
KILL QUERY 'd7d4e6f3a1b2c3d4-9a8b7c6d5e4f3a2b'
-- case: lock tables
-- reason: WRITE_STATEMENT
LOCK TABLES t WRITE
-- case: unlock tables
-- reason: WRITE_STATEMENT
UNLOCK TABLES
-- case: begin
-- reason: WRITE_STATEMENT
BEGIN
-- case: begin with label
-- reason: WRITE_STATEMENT
BEGIN WITH LABEL l1
-- case: start transaction
-- reason: WRITE_STATEMENT
START TRANSACTION
-- case: start transaction read only
-- reason: WRITE_STATEMENT
START TRANSACTION READ ONLY
-- case: commit work
-- reason: WRITE_STATEMENT
COMMIT WORK
-- case: rollback
-- reason: WRITE_STATEMENT
ROLLBACK
-- case: savepoint
-- reason: WRITE_STATEMENT
SAVEPOINT s1
-- case: release savepoint
-- reason: WRITE_STATEMENT
RELEASE SAVEPOINT s1
-- case: prepare
-- reason: WRITE_STATEMENT
PREPARE s FROM 'DELETE FROM t'
-- case: execute
-- reason: WRITE_STATEMENT
EXECUTE s
-- case: execute using
-- reason: WRITE_STATEMENT
EXECUTE s USING @a
-- case: deallocate prepare
-- reason: WRITE_STATEMENT
DEALLOCATE PREPARE s
-- case: call procedure
-- reason: WRITE_STATEMENT
CALL flush_cache()
-- case: call qualified procedure
-- reason: WRITE_STATEMENT
CALL catalog.system.rollback_to_snapshot('db.t', 1)
-- case: handler open
-- reason: WRITE_STATEMENT
HANDLER t OPEN
-- case: do sleep
-- reason: WRITE_STATEMENT
DO SLEEP(5)
-- case: flush privileges
-- reason: WRITE_STATEMENT
FLUSH PRIVILEGES
-- case: reset master
-- reason: WRITE_STATEMENT
RESET MASTER
-- case: shutdown
-- reason: WRITE_STATEMENT
SHUTDOWN
-- case: exec
-- reason: WRITE_STATEMENT
EXEC sp_who
-- case: purge binary logs
-- reason: WRITE_STATEMENT
PURGE BINARY LOGS BEFORE '2024-01-01'
-- case: checksum table
-- reason: WRITE_STATEMENT
CHECKSUM TABLE t
-- case: table statement
-- reason: STATEMENT_NOT_ALLOWED
TABLE users
-- case: mysql source command
-- reason: STATEMENT_NOT_ALLOWED
source /tmp/evil.sql
-- case: backslash client command
-- reason: UNRECOGNISED_CHARACTER
\! rm -rf /
-- case: string first
-- reason: STATEMENT_NOT_ALLOWED
'SELECT 1'
-- case: backquoted first
-- reason: STATEMENT_NOT_ALLOWED
`SELECT` 1
-- case: number first
-- reason: STATEMENT_NOT_ALLOWED
1 UNION SELECT 2
-- case: waitfor delay tsql
-- reason: STATEMENT_NOT_ALLOWED
WAITFOR DELAY '00:00:10'
-- case: vacuum
-- reason: WRITE_STATEMENT
VACUUM
-- case: show alone
-- reason: STATEMENT_NOT_ALLOWED
SHOW
