-- case: explain insert
-- reason: WRITE_STATEMENT
EXPLAIN INSERT INTO t SELECT * FROM s
-- case: explain verbose insert
-- reason: WRITE_STATEMENT
EXPLAIN VERBOSE INSERT INTO t SELECT 1
-- case: explain update
-- reason: WRITE_STATEMENT
EXPLAIN UPDATE t SET a = 1
-- case: explain delete
-- reason: WRITE_STATEMENT
EXPLAIN DELETE FROM t
-- case: explain create table as select
-- reason: WRITE_STATEMENT
EXPLAIN CREATE TABLE t2 AS SELECT 1
-- case: explain with then insert
-- reason: WRITE_STATEMENT
EXPLAIN WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x
-- case: explain refresh materialized view
-- reason: WRITE_STATEMENT
EXPLAIN REFRESH MATERIALIZED VIEW mv1 AUTO
-- case: explain warm up select
-- reason: WRITE_STATEMENT
EXPLAIN WARM UP SELECT * FROM t
-- case: explain show
-- reason: EXPLAIN_TARGET
EXPLAIN SHOW TABLES
-- case: explain dump
-- reason: EXPLAIN_TARGET
EXPLAIN DUMP SELECT 1
-- case: explain plan replayer
-- reason: EXPLAIN_TARGET
EXPLAIN PLAN REPLAYER DUMP SELECT 1
-- case: explain alone
-- reason: EXPLAIN_TARGET
EXPLAIN
-- case: explain table name
-- reason: EXPLAIN_TARGET
EXPLAIN orders
-- case: desc insert
-- reason: WRITE_STATEMENT
DESC INSERT INTO t SELECT 1
-- case: describe delete
-- reason: WRITE_STATEMENT
DESCRIBE DELETE FROM t
-- case: desc verbose insert
-- reason: WRITE_STATEMENT
DESC VERBOSE INSERT INTO t SELECT 1
-- case: desc alone
-- reason: EXPLAIN_TARGET
DESC
-- case: desc verbose table
-- reason: EXPLAIN_TARGET
DESC VERBOSE orders
-- case: explain merge
-- reason: WRITE_STATEMENT
EXPLAIN MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE
-- case: explain select with sleep in cte
-- reason: SIDE_EFFECT_FUNCTION
EXPLAIN WITH x AS (SELECT sleep(1)) SELECT * FROM x
