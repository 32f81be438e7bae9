-- case: string with drop table
SELECT 'DROP TABLE users' AS s
-- case: string with stacked statement
SELECT 'a; DELETE FROM t; --' AS s
-- case: double quoted string with insert
SELECT "INSERT INTO t VALUES (1)" AS s
-- case: string with executable comment text
SELECT '/*!50000 DROP TABLE t */' AS s
-- case: string with hint text
SELECT '/*+ SET_VAR(query_timeout=1) */' AS s
-- case: string with hash
SELECT '# not a comment' AS s
-- case: string with sleep call
SELECT 'sleep(10)' AS s, 'benchmark(1,1)' AS b
-- case: string with into outfile
SELECT 'INTO OUTFILE /tmp/x' AS s
-- case: string with doubled quote
SELECT 'it''s fine; DROP TABLE t' AS s
-- case: string with escaped backslash at end
SELECT 'C:\\temp\\' AS path
-- case: string with even backslashes before quote
SELECT 'a\\\\' AS s, "b\\" AS t
-- case: double quoted with doubled double quote
SELECT "say ""hi""; DROP" AS s
-- case: double quoted containing single quotes
SELECT "it's" AS s
-- case: single quoted containing double quotes
SELECT 'a "quoted" word' AS s
-- case: string with newline and comment markers
SELECT 'line1
-- not a comment
/* not a comment */ line3' AS s
-- case: string with unicode
SELECT '中文；DROP TABLE t' AS s, 'Ünïcödé' AS u
-- case: string with percent s
SELECT '%s and %(name)s are just text' AS s
-- case: string with question mark
SELECT 'is this a parameter?' AS s
-- case: string with colon equals
SELECT 'a := b' AS s
-- case: string with dollar dollar
SELECT '$$ not a string $$' AS s
-- case: backquoted write verbs
SELECT `delete`, `update`, `insert`, `drop` FROM `create`
-- case: backquoted with spaces and semicolon
SELECT `a; DROP TABLE t` FROM t
-- case: backquoted with doubled backquote
SELECT `we``ird` FROM t
-- case: backquoted sleep column not called
SELECT `sleep` FROM t
-- case: backquoted into
SELECT `into`, `outfile` FROM t
-- case: identifiers containing write verbs
SELECT update_time, created_by, deleted_at, insert_count, drop_rate, grant_id, revoked, alter_ego, set_name, use_count FROM audit_log_view
-- case: identifiers starting with verbs
SELECT updates, inserts, deletes, creates, truncated, replaced, merged, loaded, exported, killed FROM stats
-- case: non reserved verbs as columns
SELECT copy, plan, start, stop, commit, backup, restore, refresh FROM job_status
-- case: non reserved verbs as aliases
SELECT count(*) commit, max(x) start FROM t
-- case: table named plan with alias
SELECT p.name FROM plan p JOIN customer c ON c.plan_id = p.id
-- case: qualified column named like verb
SELECT t.insert, t.merge FROM events t
-- case: insert function call
SELECT insert('Quadratic', 3, 4, 'What')
-- case: truncate function call
SELECT truncate(1.2345, 2)
-- case: replace function with spaces
SELECT replace (name, 'a', 'b') FROM t
-- case: comment leading line
-- monthly revenue
SELECT sum(amount) FROM payments
-- case: comment leading block
/* report: revenue by region */ SELECT region, sum(amount) FROM payments GROUP BY region
-- case: comment trailing line without newline
SELECT 1 -- the end
-- case: comment trailing with newline
SELECT 1 -- the end

-- case: comment between tokens
SELECT /* cols */ a, /* and */ b FROM /* tbl */ t
-- case: comment no space after dashes
SELECT 1 --comment without space
-- case: comment containing write verbs
SELECT 1 /* DROP TABLE t; DELETE FROM t */
-- case: line comment containing block opener
SELECT 1 -- /* not nested */
-- case: line comment containing executable comment text
SELECT 1 -- /*! 50000 x */
-- case: block comment with stars
SELECT 1 /*** stars ***/
-- case: block comment with dashes
SELECT 1 /* -- dashes */ + 1
-- case: comment after semicolon
SELECT 1; /* trailing */ -- more
-- case: crlf line endings
SELECT a,
       b
FROM t -- c
WHERE a = 1
-- case: tabs and newlines
	SELECT	1	AS	x
-- case: raw string without backslash
SELECT R'plain text' AS s
-- case: chinese identifiers
SELECT 名称, 数量 FROM 订单 WHERE 数量 > 1
-- case: accented identifiers
SELECT café, naïve FROM menu
-- case: dollar in identifier
SELECT a$b, $c FROM t
-- case: identifier starting with digit
SELECT 1col FROM t2
-- case: parenthesised select
(SELECT 1)
-- case: doubly parenthesised select
((SELECT a FROM t) UNION (SELECT b FROM u))
-- case: numbers separated by space and operators
SELECT 1.5 + 2, 3 -1, 4*5, 6/2, 1.e3, .5e1
-- case: negative numbers
SELECT -1, - 2, -1.5e-3
-- case: not equal forms
SELECT 1 <> 2, 1 != 2, 1 <=> NULL, NOT 1 = 2, !(1 = 2)
-- case: logical operators
SELECT 1 AND 0, 1 OR 0, 1 XOR 0, 1 && 0, 1 || 0
-- case: in list and between
SELECT * FROM t WHERE a IN (1, 2, 3) AND b NOT BETWEEN 1 AND 5
-- case: is true false null
SELECT a IS TRUE, b IS NOT FALSE, c IS NULL FROM t
-- case: named parameter
SELECT * FROM orders WHERE customer_id = %(customer_id)s AND status = %(status)s
-- case: named parameter repeated
SELECT * FROM t WHERE a = %(v)s OR b = %(v)s
-- case: named parameter in limit
SELECT * FROM t LIMIT %(n)s
-- case: modulo with space before s column
SELECT a % s FROM t
-- case: modulo of parenthesised expression
SELECT a % (b + 1) FROM t
-- case: for in substring
SELECT substring(name FROM 2 FOR 3) FROM t
-- case: lock as column name
SELECT lock, unlock FROM t
-- case: select with from dual
SELECT 1 + 1 FROM DUAL
-- case: keyword case variants
sElEcT DiStInCt a FrOm t WhErE a Is NoT nUlL
-- case: long in list
SELECT * FROM t WHERE id IN (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30)
-- case: deeply nested parentheses
SELECT ((((((((((1))))))))))
-- case: semicolon inside string
SELECT ';' AS semi
