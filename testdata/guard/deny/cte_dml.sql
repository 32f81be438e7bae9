-- case: with then delete
-- reason: WRITE_STATEMENT
WITH x AS (SELECT 1) DELETE FROM users
-- case: with then insert
-- reason: WRITE_STATEMENT
WITH x AS (SELECT 1 AS a) INSERT INTO t SELECT a FROM x
-- case: with then update
-- reason: WRITE_STATEMENT
WITH x AS (SELECT 1 AS a) UPDATE t SET b = 1 WHERE a IN (SELECT a FROM x)
-- case: with then merge
-- reason: WRITE_STATEMENT
WITH s AS (SELECT 1 AS id) MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE
-- case: with then insert overwrite
-- reason: WRITE_STATEMENT
WITH x AS (SELECT 1) INSERT OVERWRITE TABLE t SELECT * FROM x
-- case: with two items then delete
-- reason: WRITE_STATEMENT
WITH a AS (SELECT 1), b AS (SELECT 2) DELETE FROM t
-- case: with recursive then truncate
-- reason: WRITE_STATEMENT
WITH RECURSIVE r AS (SELECT 1) TRUNCATE TABLE t
-- case: postgres data modifying cte delete
-- reason: WRITE_STATEMENT
WITH moved AS (DELETE FROM products WHERE date < '2010-01-01' RETURNING *) SELECT * FROM moved
-- case: postgres data modifying cte insert
-- reason: WRITE_STATEMENT
WITH ins AS (INSERT INTO log VALUES (1) RETURNING id) SELECT id FROM ins
-- case: postgres data modifying cte update
-- reason: WRITE_STATEMENT
WITH upd AS (UPDATE employees SET sales_count = sales_count + 1 RETURNING *) SELECT * FROM upd
-- case: delete in subquery
-- reason: WRITE_STATEMENT
SELECT * FROM (DELETE FROM t RETURNING *) x
-- case: insert in scalar subquery
-- reason: WRITE_STATEMENT
SELECT (INSERT INTO t VALUES (1))
-- case: update in where subquery
-- reason: WRITE_STATEMENT
SELECT * FROM t WHERE id IN (UPDATE t SET a = 1 RETURNING id)
-- case: drop in subquery
-- reason: WRITE_STATEMENT
SELECT * FROM (DROP TABLE t) x
-- case: union then delete
-- reason: WRITE_STATEMENT
SELECT 1 UNION DELETE FROM t
-- case: union all then insert
-- reason: WRITE_STATEMENT
SELECT 1 UNION ALL INSERT INTO t VALUES (1)
-- case: nested with then delete inside parentheses
-- reason: WRITE_STATEMENT
SELECT * FROM (WITH x AS (SELECT 1) DELETE FROM t) y
-- case: with then values
-- reason: MALFORMED_WITH
WITH x AS (SELECT 1) VALUES (1)
-- case: with then show
-- reason: MALFORMED_WITH
WITH x AS (SELECT 1) SHOW TABLES
-- case: with no main query
-- reason: MALFORMED_WITH
WITH x AS (SELECT 1)
-- case: with missing as
-- reason: MALFORMED_WITH
WITH x (SELECT 1) SELECT 1
-- case: with then set
-- reason: WRITE_STATEMENT
WITH x AS (SELECT 1) SET @a = 1
-- case: with then lock tables
-- reason: WRITE_STATEMENT
WITH x AS (SELECT 1) LOCK TABLES t WRITE
-- case: with then copy into
-- reason: WRITE_STATEMENT
WITH x AS (SELECT 1) COPY INTO t FROM @stage
-- case: with cte name delete reserved
-- reason: WRITE_STATEMENT
WITH delete AS (SELECT 1) SELECT * FROM delete
-- case: in subquery with replace into
-- reason: WRITE_STATEMENT
SELECT * FROM t WHERE a IN (REPLACE INTO t VALUES (1))
-- case: exists with truncate
-- reason: WRITE_STATEMENT
SELECT 1 WHERE EXISTS (TRUNCATE TABLE t)
-- case: derived table with create
-- reason: WRITE_STATEMENT
SELECT * FROM (CREATE TABLE x AS SELECT 1) y
