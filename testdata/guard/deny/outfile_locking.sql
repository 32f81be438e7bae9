-- case: into outfile
-- reason: INTO_OUTFILE
SELECT * FROM users INTO OUTFILE 's3://bucket/dump_' FORMAT AS CSV PROPERTIES ("s3.region" = "us-east-1")
-- case: into outfile local
-- reason: INTO_OUTFILE
SELECT * FROM users INTO OUTFILE 'file:///tmp/result_'
-- case: into dumpfile
-- reason: INTO_OUTFILE
SELECT password FROM users INTO DUMPFILE '/tmp/p'
-- case: into user variable
-- reason: INTO_OUTFILE
SELECT count(*) INTO @n FROM users
-- case: into variable list
-- reason: INTO_OUTFILE
SELECT a, b INTO @x, @y FROM t
-- case: into lower case
-- reason: INTO_OUTFILE
select * from t into outfile 'hdfs://nn/x'
-- case: into with comment gap
-- reason: INTO_OUTFILE
SELECT * FROM t INTO/**/OUTFILE 's3://b/x'
-- case: into after union
-- reason: INTO_OUTFILE
SELECT 1 UNION SELECT 2 INTO OUTFILE 's3://b/x'
-- case: explain into outfile
-- reason: INTO_OUTFILE
EXPLAIN SELECT * FROM t INTO OUTFILE 's3://b/x'
-- case: with into outfile
-- reason: INTO_OUTFILE
WITH x AS (SELECT 1) SELECT * FROM x INTO OUTFILE 's3://b/x'
-- case: parenthesised into outfile
-- reason: INTO_OUTFILE
(SELECT * FROM t) INTO OUTFILE 's3://b/x'
-- case: into table in select
-- reason: INTO_OUTFILE
SELECT * INTO new_table FROM t
-- case: for update
-- reason: LOCKING_READ
SELECT * FROM accounts WHERE id = 1 FOR UPDATE
-- case: for update nowait
-- reason: LOCKING_READ
SELECT * FROM accounts FOR UPDATE NOWAIT
-- case: for share
-- reason: LOCKING_READ
SELECT * FROM accounts FOR SHARE
-- case: lock in share mode
-- reason: LOCKING_READ
SELECT * FROM accounts LOCK IN SHARE MODE
-- case: for update lower case with comment
-- reason: LOCKING_READ
select * from t for /* x */ update
-- case: assignment in select
-- reason: ASSIGNMENT
SELECT @x := 1
-- case: assignment with space
-- reason: ASSIGNMENT
SELECT @x : = 1
-- case: assignment in where
-- reason: ASSIGNMENT
SELECT * FROM t WHERE (@c := @c + 1) > 0
-- case: assignment with comment between
-- reason: ASSIGNMENT
SELECT @x :/**/= 1
-- case: assignment double equals
-- reason: ASSIGNMENT
SELECT @x :== 1
