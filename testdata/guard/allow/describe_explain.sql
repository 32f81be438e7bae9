-- case: desc table
DESC orders
-- case: describe table
DESCRIBE orders
-- case: desc qualified table
DESC hive_catalog.sales_db.orders
-- case: desc table all
DESC orders ALL
-- case: describe backquoted
DESCRIBE `sales_db`.`order items`
-- case: desc partition
DESC orders PARTITION p202401
-- case: desc dictionary
DESC DICTIONARY dict_users
-- case: desc table named like plan type
DESC memo
-- case: desc lower case
desc orders;
-- case: explain select
EXPLAIN SELECT * FROM orders WHERE o_orderkey = 1
-- case: explain verbose
EXPLAIN VERBOSE SELECT count(*) FROM lineitem
-- case: explain tree
EXPLAIN TREE SELECT count(*) FROM lineitem
-- case: explain graph
EXPLAIN GRAPH SELECT count(*) FROM lineitem
-- case: explain plan
EXPLAIN PLAN SELECT count(*) FROM lineitem
-- case: explain parsed plan
EXPLAIN PARSED PLAN SELECT 1
-- case: explain analyzed plan
EXPLAIN ANALYZED PLAN SELECT 1
-- case: explain rewritten plan
EXPLAIN REWRITTEN PLAN SELECT 1
-- case: explain logical plan
EXPLAIN LOGICAL PLAN SELECT 1
-- case: explain optimized plan
EXPLAIN OPTIMIZED PLAN SELECT 1
-- case: explain physical plan
EXPLAIN PHYSICAL PLAN SELECT 1
-- case: explain shape plan
EXPLAIN SHAPE PLAN SELECT * FROM a JOIN b ON a.k = b.k
-- case: explain memo plan
EXPLAIN MEMO PLAN SELECT 1
-- case: explain distributed plan
EXPLAIN DISTRIBUTED PLAN SELECT 1
-- case: explain all plan
EXPLAIN ALL PLAN SELECT 1
-- case: explain optimized plan process
EXPLAIN OPTIMIZED PLAN PROCESS SELECT 1
-- case: explain process
EXPLAIN PROCESS SELECT 1
-- case: explain with cte
EXPLAIN WITH x AS (SELECT 1 AS a) SELECT a FROM x
-- case: explain parenthesised
EXPLAIN (SELECT 1) UNION ALL (SELECT 2)
-- case: desc as explain
DESC SELECT * FROM orders
-- case: describe verbose select
DESCRIBE VERBOSE SELECT * FROM orders
-- case: explain lower case
explain verbose select 1;
-- case: explain tpch q3 style
EXPLAIN SHAPE PLAN
select l_orderkey, sum(l_extendedprice * (1 - l_discount)) as revenue
from customer, orders, lineitem
where c_mktsegment = 'BUILDING' and c_custkey = o_custkey and l_orderkey = o_orderkey
group by l_orderkey
order by revenue desc
limit 10
-- case: explain with leading comment
/* check plan */ EXPLAIN SELECT 1
-- case: explain with parameter
EXPLAIN SELECT * FROM orders WHERE o_orderkey = %(key)s
