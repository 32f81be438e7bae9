-- case: select then drop
-- reason: MULTIPLE_STATEMENTS
SELECT 1; DROP TABLE users
-- case: commit escape then drop
-- reason: MULTIPLE_STATEMENTS
SELECT 1; COMMIT; DROP TABLE users
-- case: commit first
-- reason: WRITE_STATEMENT
COMMIT; DROP TABLE users
-- case: rollback first
-- reason: WRITE_STATEMENT
ROLLBACK; DELETE FROM users
-- case: two selects
-- reason: MULTIPLE_STATEMENTS
SELECT 1; SELECT 2
-- case: newline separated after semicolon
-- reason: MULTIPLE_STATEMENTS
SELECT 1;
DELETE FROM users
-- case: comment hides semicolon position
-- reason: MULTIPLE_STATEMENTS
SELECT 1 /* x */ ; /* y */ INSERT INTO t VALUES (1)
-- case: semicolon then line comment then statement
-- reason: MULTIPLE_STATEMENTS
SELECT 1; -- harmless
DROP DATABASE prod
-- case: string with semicolon then real semicolon
-- reason: MULTIPLE_STATEMENTS
SELECT ';'; DROP TABLE t
-- case: semicolon inside parentheses
-- reason: MULTIPLE_STATEMENTS
SELECT (1; DROP TABLE t)
-- case: show then drop
-- reason: MULTIPLE_STATEMENTS
SHOW TABLES; DROP TABLE t
-- case: explain then insert
-- reason: MULTIPLE_STATEMENTS
EXPLAIN SELECT 1; INSERT INTO t SELECT 1
-- case: desc then truncate
-- reason: MULTIPLE_STATEMENTS
DESC t; TRUNCATE TABLE t
-- case: with then set
-- reason: MULTIPLE_STATEMENTS
WITH x AS (SELECT 1) SELECT * FROM x; SET GLOBAL read_only = 0
-- case: select then use
-- reason: MULTIPLE_STATEMENTS
SELECT 1; USE other_db
-- case: select then kill
-- reason: MULTIPLE_STATEMENTS
SELECT 1;KILL 42
-- case: select then begin insert commit
-- reason: MULTIPLE_STATEMENTS
SELECT 1; BEGIN; INSERT INTO t VALUES (1); COMMIT
-- case: select then set password
-- reason: MULTIPLE_STATEMENTS
SELECT 1; SET PASSWORD FOR 'root' = PASSWORD('x')
-- case: trailing statement after comment only line
-- reason: MULTIPLE_STATEMENTS
SELECT 1;
/* comment */
SELECT 2
-- case: select then grant
-- reason: MULTIPLE_STATEMENTS
SELECT 1; GRANT ADMIN_PRIV ON *.*.* TO 'mcp_reader'@'%'
-- case: select then admin set config
-- reason: MULTIPLE_STATEMENTS
SELECT 1; ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")
-- case: semicolon then select lower case
-- reason: MULTIPLE_STATEMENTS
select 1;select 2;
-- case: newline separated without semicolon
-- reason: WRITE_STATEMENT
SELECT 1
DELETE FROM users
-- case: newline separated drop without semicolon
-- reason: WRITE_STATEMENT
SELECT * FROM t
DROP TABLE t
