-- case: insert values
-- reason: WRITE_STATEMENT
INSERT INTO t VALUES (1, 'a')
-- case: insert select
-- reason: WRITE_STATEMENT
INSERT INTO t SELECT * FROM s
-- case: insert lower case
-- reason: WRITE_STATEMENT
insert into t values (1)
-- case: insert mixed case
-- reason: WRITE_STATEMENT
InSeRt InTo t VaLuEs (1)
-- case: insert overwrite table
-- reason: WRITE_STATEMENT
INSERT OVERWRITE TABLE t SELECT * FROM s
-- case: insert overwrite partition
-- reason: WRITE_STATEMENT
INSERT OVERWRITE TABLE t PARTITION (p1) SELECT * FROM s
-- case: insert into with label
-- reason: WRITE_STATEMENT
INSERT INTO t WITH LABEL my_label SELECT * FROM s
-- case: insert into table valued function s3
-- reason: WRITE_STATEMENT
INSERT INTO s3("uri" = "s3://bucket/out/", "format" = "parquet") SELECT * FROM t
-- case: insert into local file function
-- reason: WRITE_STATEMENT
INSERT INTO local("file_path" = "/tmp/x", "backend_id" = "1") SELECT * FROM t
-- case: insert ignore
-- reason: WRITE_STATEMENT
INSERT IGNORE INTO t VALUES (1)
-- case: update
-- reason: WRITE_STATEMENT
UPDATE users SET role = 'admin' WHERE id = 1
-- case: update with join
-- reason: WRITE_STATEMENT
UPDATE t1 SET t1.c = t2.c FROM t2 WHERE t1.id = t2.id
-- case: delete
-- reason: WRITE_STATEMENT
DELETE FROM users
-- case: delete with using
-- reason: WRITE_STATEMENT
DELETE FROM t1 USING t2 WHERE t1.id = t2.id
-- case: delete partition
-- reason: WRITE_STATEMENT
DELETE FROM logs PARTITION p1 WHERE level = 'DEBUG'
-- case: merge into
-- reason: WRITE_STATEMENT
MERGE INTO target t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v
-- case: replace into
-- reason: WRITE_STATEMENT
REPLACE INTO t VALUES (1)
-- case: upsert
-- reason: WRITE_STATEMENT
UPSERT INTO t VALUES (1)
-- case: truncate table
-- reason: WRITE_STATEMENT
TRUNCATE TABLE logs
-- case: truncate lower
-- reason: WRITE_STATEMENT
truncate table logs
-- case: load label
-- reason: WRITE_STATEMENT
LOAD LABEL db.label1 (DATA INFILE("s3://bucket/file.csv") INTO TABLE t) WITH S3 ("s3.region" = "us-east-1")
-- case: load data local infile
-- reason: WRITE_STATEMENT
LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t
-- case: export table
-- reason: WRITE_STATEMENT
EXPORT TABLE t TO "s3://bucket/export/" PROPERTIES ("format" = "csv")
-- case: copy into
-- reason: WRITE_STATEMENT
COPY INTO t FROM @stage('*.csv')
-- case: leading line comment then insert
-- reason: WRITE_STATEMENT
-- harmless report
INSERT INTO t VALUES (1)
-- case: leading block comment then delete
-- reason: WRITE_STATEMENT
/* SELECT */ DELETE FROM users
-- case: leading comment with select word then update
-- reason: WRITE_STATEMENT
/* SELECT * FROM t */ UPDATE t SET a = 1
-- case: leading parenthesis insert
-- reason: WRITE_STATEMENT
(INSERT INTO t VALUES (1))
-- case: leading whitespace insert
-- reason: WRITE_STATEMENT
   
	INSERT INTO t VALUES (1)
-- case: parenthesised delete
-- reason: WRITE_STATEMENT
(DELETE FROM t)
-- case: insert into after comment no space
-- reason: WRITE_STATEMENT
/**/INSERT/**/INTO/**/t/**/VALUES(1)
-- case: delete with comment inside keyword gap
-- reason: WRITE_STATEMENT
DELETE/**/FROM users
-- case: load data with comment gap
-- reason: WRITE_STATEMENT
LOAD/**/DATA INFILE 'x' INTO TABLE t
-- case: insert with returning postgres style
-- reason: WRITE_STATEMENT
INSERT INTO t VALUES (1) RETURNING *
-- case: update returning
-- reason: WRITE_STATEMENT
UPDATE t SET a = 1 RETURNING a
-- case: insert after select keyword string
-- reason: WRITE_STATEMENT
INSERT INTO t SELECT 'SELECT'
