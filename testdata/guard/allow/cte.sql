-- case: cte simple
WITH recent AS (SELECT * FROM orders WHERE order_date >= '2024-01-01') SELECT count(*) FROM recent
-- case: cte two items
WITH a AS (SELECT id FROM t1), b AS (SELECT id FROM t2) SELECT * FROM a JOIN b USING (id)
-- case: cte backquoted names
WITH `my cte` AS (SELECT 1 AS `x y`) SELECT `x y` FROM `my cte`
-- case: cte named like write verbs in backquotes
WITH `delete` AS (SELECT 1 AS `insert`) SELECT `insert` FROM `delete`
-- case: cte lower case keywords
with x as (select 1) select * from x
-- case: cte mixed case keywords
WiTh x As (SeLeCt 1) sElEcT * FrOm x
-- case: cte with comments between items
WITH a AS (SELECT 1 AS v) -- first
, b AS (SELECT 2 AS v) /* second */
SELECT * FROM a UNION ALL SELECT * FROM b
-- case: cte nested cte in subquery
WITH outer_q AS (SELECT * FROM (WITH inner_q AS (SELECT 1 AS n) SELECT n FROM inner_q) s) SELECT * FROM outer_q
-- case: cte used twice with join
WITH daily AS (SELECT dt, sum(amount) AS amt FROM payments GROUP BY dt)
SELECT d1.dt, d1.amt, d2.amt AS prev_amt FROM daily d1 LEFT JOIN daily d2 ON d2.dt = date_sub(d1.dt, INTERVAL 1 DAY)
-- case: cte with window
WITH ranked AS (SELECT user_id, event_time, row_number() OVER (PARTITION BY user_id ORDER BY event_time) AS rn FROM events)
SELECT user_id, event_time FROM ranked WHERE rn = 1
-- case: cte with trailing semicolon
WITH x AS (SELECT 1 AS a) SELECT a FROM x;
-- case: cte with trailing semicolon and comment
WITH x AS (SELECT 1 AS a) SELECT a FROM x; -- done
-- case: cte recursive with column list
WITH RECURSIVE tree (id, parent_id, depth) AS (
  SELECT id, parent_id, 0 FROM categories WHERE parent_id IS NULL
  UNION ALL
  SELECT c.id, c.parent_id, tree.depth + 1 FROM categories c JOIN tree ON c.parent_id = tree.id
)
SELECT * FROM tree ORDER BY depth
-- case: cte columns named like verbs
WITH stats AS (SELECT count(*) AS inserts, sum(updated) AS updates, max(deleted_at) AS last_delete FROM audit)
SELECT inserts, updates, last_delete FROM stats
-- case: cte in exists
SELECT * FROM users u WHERE EXISTS (WITH x AS (SELECT user_id FROM sessions) SELECT 1 FROM x WHERE x.user_id = u.id)
-- case: cte three deep
WITH a AS (SELECT 1 AS v), b AS (SELECT v + 1 AS v FROM a), c AS (SELECT v * 2 AS v FROM b) SELECT v FROM c
-- case: cte with parenthesised union body
WITH u AS ((SELECT 1 AS v) UNION (SELECT 2)) SELECT sum(v) FROM u
-- case: cte name plan
WITH plan AS (SELECT 1 AS p) SELECT p FROM plan
-- case: cte with order and limit in body
WITH top10 AS (SELECT id, score FROM players ORDER BY score DESC LIMIT 10) SELECT avg(score) FROM top10
-- case: cte with string containing write keywords
WITH msgs AS (SELECT 'INSERT INTO t VALUES (1); DROP TABLE t' AS body) SELECT length(body) FROM msgs
