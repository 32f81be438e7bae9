-- case: sleep
-- reason: SIDE_EFFECT_FUNCTION
SELECT sleep(10)
-- case: sleep upper
-- reason: SIDE_EFFECT_FUNCTION
SELECT SLEEP(10)
-- case: sleep in where
-- reason: SIDE_EFFECT_FUNCTION
SELECT * FROM t WHERE id = 1 AND sleep(5) = 0
-- case: sleep with space before paren
-- reason: SIDE_EFFECT_FUNCTION
SELECT sleep (5)
-- case: sleep with comment before paren
-- reason: SIDE_EFFECT_FUNCTION
SELECT sleep/**/(5)
-- case: sleep backquoted
-- reason: SIDE_EFFECT_FUNCTION
SELECT `sleep`(5)
-- case: sleep qualified
-- reason: SIDE_EFFECT_FUNCTION
SELECT mysql.sleep(5)
-- case: sleep qualified backquoted
-- reason: SIDE_EFFECT_FUNCTION
SELECT `db`.`SLEEP`(5)
-- case: benchmark
-- reason: SIDE_EFFECT_FUNCTION
SELECT benchmark(100000000, md5('x'))
-- case: get lock
-- reason: SIDE_EFFECT_FUNCTION
SELECT get_lock('l', 10)
-- case: release lock
-- reason: SIDE_EFFECT_FUNCTION
SELECT release_lock('l')
-- case: release all locks
-- reason: SIDE_EFFECT_FUNCTION
SELECT release_all_locks()
-- case: is free lock
-- reason: SIDE_EFFECT_FUNCTION
SELECT is_free_lock('l')
-- case: is used lock
-- reason: SIDE_EFFECT_FUNCTION
SELECT is_used_lock('l')
-- case: load file
-- reason: SIDE_EFFECT_FUNCTION
SELECT load_file('/etc/passwd')
-- case: master pos wait
-- reason: SIDE_EFFECT_FUNCTION
SELECT master_pos_wait('log.000001', 4)
-- case: sleep in subquery
-- reason: SIDE_EFFECT_FUNCTION
SELECT * FROM (SELECT sleep(3) AS s) x
-- case: sleep in cte
-- reason: SIDE_EFFECT_FUNCTION
WITH x AS (SELECT sleep(3)) SELECT * FROM x
-- case: sleep in explain
-- reason: SIDE_EFFECT_FUNCTION
EXPLAIN SELECT sleep(3)
-- case: sleep in show where
-- reason: SIDE_EFFECT_FUNCTION
SHOW TABLES WHERE sleep(3) = 0
-- case: sleep mixed case
-- reason: SIDE_EFFECT_FUNCTION
SELECT SlEeP(1)
-- case: benchmark in order by
-- reason: SIDE_EFFECT_FUNCTION
SELECT * FROM t ORDER BY benchmark(1000000, sha1('x'))
