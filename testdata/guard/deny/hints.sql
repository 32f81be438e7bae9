-- case: set_var lower case
-- reason: CLIENT_HINT
SELECT /*+ set_var(query_timeout = 3600) */ 1
-- case: set_var no spaces
-- reason: CLIENT_HINT
SELECT /*+SET_VAR(exec_mem_limit=-1)*/ 1
-- case: set_var after a planner hint
-- reason: CLIENT_HINT
SELECT /*+ leading(a b) SET_VAR(query_timeout=3600) */ * FROM a JOIN b ON 1 = 1
-- case: set_var after a comma
-- reason: CLIENT_HINT
SELECT /*+ ordered, set_var(cloud_cluster='other') */ 1
-- case: set_var in a subquery
-- reason: CLIENT_HINT
SELECT * FROM (SELECT /*+ SET_VAR(enable_sql_cache=false) */ 1) x
-- case: set_var in explain
-- reason: CLIENT_HINT
EXPLAIN SELECT /*+ SET_VAR(query_timeout=1) */ 1
-- case: set_var not after select
-- reason: CLIENT_HINT
SELECT 1 /*+ SET_VAR(query_timeout=1) */ FROM t
-- case: set_var at statement start
-- reason: CLIENT_HINT
/*+ SET_VAR(query_timeout=1) */ SELECT 1
-- case: set_var in show
-- reason: CLIENT_HINT
SHOW /*+ SET_VAR(query_timeout=1) */ TABLES
-- case: set_var without arguments
-- reason: CLIENT_HINT
SELECT /*+ SET_VAR */ 1
-- case: backquoted hint name
-- reason: CLIENT_HINT
SELECT /*+ `set_var`(query_timeout=1) */ 1
-- case: string hint name
-- reason: CLIENT_HINT
SELECT /*+ 'set_var'(query_timeout=1) */ 1
-- case: unknown hint
-- reason: UNKNOWN_HINT
SELECT /*+ query_timeout(3600) */ 1
-- case: unknown hint after known
-- reason: UNKNOWN_HINT
SELECT /*+ ordered resource_group(g1) */ 1
-- case: empty hint
-- reason: CLIENT_HINT
SELECT /*+ */ 1
-- case: hint with string holding comment end
-- reason: CLIENT_HINT
SELECT /*+ leading('*/') SET_VAR(a=1) */ 1
-- case: hint with nested comment
-- reason: CLIENT_HINT
SELECT /*+ leading(a /* b */ c) */ 1
-- case: hint with a line comment
-- reason: CLIENT_HINT
SELECT /*+ leading(a -- b
c) */ 1
-- case: hint with unclosed arguments
-- reason: CLIENT_HINT
SELECT /*+ leading(a b */ 1
-- case: hint with a semicolon
-- reason: CLIENT_HINT
SELECT /*+ leading(a; b) */ 1
-- case: hint with a placeholder
-- reason: CLIENT_HINT
SELECT /*+ leading(%(x)s) */ 1
-- case: hint with a question mark
-- reason: CLIENT_HINT
SELECT /*+ leading(?) */ 1
-- case: hint with a look-alike letter
-- reason: AMBIGUOUS_LETTER
SELECT /*+ ſet_var(query_timeout=1) */ 1
-- case: hint with a glued number
-- reason: AMBIGUOUS_NUMBER
SELECT /*+ leading(1.5e) */ 1
-- case: legacy dash hint still refused
-- reason: CLIENT_HINT
SELECT 1 --+ SET_VAR(query_timeout=1)
-- case: legacy spaced hint still refused
-- reason: CLIENT_HINT
SELECT /* + ordered */ 1
-- case: hint with semicolon statement after
-- reason: MULTIPLE_STATEMENTS
SELECT /*+ ordered */ 1; DROP TABLE t
-- case: help then a statement
-- reason: MULTIPLE_STATEMENTS
HELP 'x'; DROP TABLE t
-- case: help two topics
-- reason: MULTIPLE_STATEMENTS
HELP a b
-- case: help without topic
-- reason: STATEMENT_NOT_ALLOWED
HELP
-- case: semicolons then a second statement
-- reason: MULTIPLE_STATEMENTS
;; SELECT 1 ;; DELETE FROM t
-- case: empty statements only
-- reason: EMPTY_STATEMENT
; ;
-- case: doris regression routing hint that is no planner hint
-- reason: CLIENT_HINT
explain shape plan select /*+DBP: ROUTE={GROUP_ID(zjaq)}*/ count(*) from t1;
