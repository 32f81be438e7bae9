-- case: leading hint
SELECT /*+ LEADING(a b) */ * FROM a JOIN b ON a.k = b.k
-- case: leading hint with braces and distribution
SELECT /*+ leading(t1 shuffle {t2 broadcast t3}) */ * FROM t1, t2, t3 WHERE t1.a = t2.a AND t2.b = t3.b
-- case: ordered hint
SELECT /*+ ordered */ t1.a FROM t1 JOIN t2 ON t1.a = t2.a
-- case: use_cbo_rule hint
SELECT /*+ use_cbo_rule(PUSH_DOWN_AGG_THROUGH_JOIN) */ a, count(*) FROM t1 JOIN t2 USING (a) GROUP BY a
-- case: no_use_cbo_rule hint
SELECT /*+ no_use_cbo_rule(PUSH_DOWN_AGG_THROUGH_JOIN) */ 1
-- case: use_mv hint qualified
SELECT /*+ use_mv(internal.db1.mv1, mv2) */ k, sum(v) FROM t GROUP BY k
-- case: no_use_mv hint bare
SELECT /*+ NO_USE_MV */ k FROM t
-- case: several hints without commas
SELECT /*+ leading(t2 t1) ordered use_mv(mv1) */ * FROM t1 JOIN t2 ON t1.k = t2.k
-- case: several hints with commas
SELECT /*+ leading(t2 t1), no_use_mv(mv1) */ * FROM t1 JOIN t2 ON t1.k = t2.k
-- case: hint in a subquery
SELECT * FROM (SELECT /*+ leading(b a) */ a.k FROM a JOIN b ON a.k = b.k) x
-- case: hint in a cte
WITH c AS (SELECT /*+ ORDERED */ a.k FROM a JOIN b ON a.k = b.k) SELECT * FROM c
-- case: join distribute hint in comment
SELECT * FROM a JOIN /*+ shuffle */ b ON a.k = b.k
-- case: join distribute hint broadcast
SELECT * FROM a LEFT JOIN /*+broadcast*/ b ON a.k = b.k
-- case: explain with hint
EXPLAIN SHAPE PLAN SELECT /*+ leading(b a) */ * FROM a JOIN b ON a.k = b.k
-- case: qb_name hint
SELECT /*+ qb_name(main) */ 1
-- case: use_index hint
SELECT /*+ use_index(t idx_k) */ * FROM t WHERE k = 1
-- case: hint with quoted table name
SELECT /*+ leading(`order items` b) */ * FROM `order items` JOIN b ON 1 = 1
-- case: two semicolons
SELECT 1;;
-- case: leading semicolon
;SELECT 1
-- case: two semicolons with space
SELECT 1 ; ;
-- case: semicolons around with comments
; -- empty
SELECT 1 ; /* empty */ ;
-- case: help string
HELP 'select'
-- case: help word
help SHOW
-- case: help with semicolon
HELP 'CREATE TABLE';
-- case: values statement
VALUES (1), (2)
-- case: explain values
EXPLAIN VALUES (1, 'a'), (2, 'b')
-- case: values in from
SELECT * FROM (VALUES (1, 2), (3, 4)) AS v(a, b)
-- case: explain verbose union
EXPLAIN VERBOSE (SELECT 1) UNION ALL SELECT 2
-- case: explain optimized plan process
EXPLAIN OPTIMIZED PLAN PROCESS SELECT * FROM t
-- case: desc function internal tvf
DESC FUNCTION numbers("number" = "10")
-- case: numbers tvf
SELECT * FROM numbers("number" = "10") AS n
-- case: frontends tvf
SELECT Host, Role FROM frontends()
-- case: backends tvf join
SELECT b.BackendId FROM backends() b JOIN frontends() f ON 1 = 1
-- case: partitions tvf
SELECT * FROM partitions("catalog" = "internal", "database" = "db", "table" = "t")
-- case: jobs and tasks
SELECT * FROM jobs("type" = "insert") j, tasks("type" = "mv") t
-- case: mv_infos
SELECT Name FROM mv_infos("database" = "db1")
-- case: workload groups and catalogs
SELECT * FROM workload_groups() UNION ALL SELECT * FROM catalogs()
-- case: iceberg meta of a catalog table
SELECT * FROM iceberg_meta("table" = "ice.db.t", "query_type" = "snapshots")
-- case: backquoted internal tvf
SELECT * FROM `numbers`("number" = "3")
-- case: extract from inside select
SELECT EXTRACT(YEAR FROM now()), TRIM(BOTH 'x' FROM name) FROM t
-- case: is distinct from a call
SELECT * FROM t WHERE a IS DISTINCT FROM abs(b)
-- case: lateral view explode variants
SELECT * FROM t LATERAL VIEW explode_split(s, ',') t1 AS c LATERAL VIEW posexplode(arr) t2 AS p, v
-- case: unnest in from
SELECT * FROM t, UNNEST(t.arr) AS u(x)
-- case: column named like an egress function
SELECT s3, http, local, query, embed FROM t
-- case: string naming an egress function
SELECT 's3(''x'')', "http(1)" FROM t
-- case: show load warnings from database
SHOW LOAD WARNINGS FROM db1 WHERE LABEL = 'l1'
-- case: subquery whose select list starts with a parenthesis
SELECT * FROM (SELECT (1) AS a) x, (WITH c (k) AS (SELECT 1) SELECT k FROM c) y
-- case: values rows holding calls in a from clause
SELECT * FROM (VALUES (1), (abs(-2))) AS v(a)
-- case: describe a table named values
DESC `values`
-- case: iceberg incremental scan parameters
SELECT * FROM ice.db.t@incr('startSnapshotId' = '1') WHERE k > 0
-- case: table sample and time travel
SELECT * FROM ice.db.t FOR VERSION AS OF 123 TABLESAMPLE(10 PERCENT)
-- case: doris regression hint before select
explain shape plan /*+ leading(t2 broadcast t1) */ select count(*) from t1 join t2 on c1 = c2;
-- case: doris regression leading with braces and bracket join hint
explain shape plan select /*+ leading(t3 {t1 t2}) */ count(*) from t1 join [shuffle] t2 on c1 > c2 join t3 on c2 > c3 where c1 < 100;
-- case: doris regression two leading hints
explain shape plan /*+ leading(t2 broadcast t1) */ select /*+ leading(t2 broadcast t1) */ count(*) from t1 join t2 on c1 = c2;
-- case: doris regression no_use_mv with a star
select /*+ no_use_mv(t1.*) */ k1 from t1 group by k1;
-- case: doris regression no_use_mv with a quoted star
select /*+ no_use_mv(t1.`*`) */ k1 from t1;
-- case: doris regression two use_mv hints
select /*+ use_mv(t1.r1), use_mv(t1.r2) */ k1 from t1;
-- case: doris regression hint glued to its end
explain memo plan select /*+ use_mv(internal.test_cbo_use_mv.mv1)*/ * from t1
