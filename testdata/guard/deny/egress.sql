-- case: http metadata endpoint
-- reason: EGRESS_FUNCTION
SELECT * FROM http("uri" = "http://169.254.169.254/latest/meta-data/iam/security-credentials/", "format" = "csv")
-- case: http upper case
-- reason: EGRESS_FUNCTION
SELECT * FROM HTTP("uri" = "http://10.0.0.1:8040/api/config")
-- case: http backquoted
-- reason: EGRESS_FUNCTION
SELECT * FROM `http`("uri" = "http://169.254.169.254/")
-- case: http backquoted mixed case
-- reason: EGRESS_FUNCTION
SELECT * FROM `HtTp`("uri" = "http://169.254.169.254/")
-- case: http with comments before the parenthesis
-- reason: EGRESS_FUNCTION
SELECT * FROM /* x */ http /* y */ ("uri" = "http://169.254.169.254/")
-- case: http with a line comment
-- reason: EGRESS_FUNCTION
SELECT * FROM http -- c
("uri" = "http://169.254.169.254/")
-- case: http with a catalog prefix
-- reason: EGRESS_FUNCTION
SELECT * FROM internal.http("uri" = "http://169.254.169.254/")
-- case: http in a join
-- reason: EGRESS_FUNCTION
SELECT * FROM t JOIN http("uri" = "http://169.254.169.254/") h ON 1 = 1
-- case: http after a comma
-- reason: EGRESS_FUNCTION
SELECT * FROM t, http("uri" = "http://169.254.169.254/") h
-- case: http in a subquery
-- reason: EGRESS_FUNCTION
SELECT * FROM t WHERE a IN (SELECT c1 FROM http("uri" = "http://169.254.169.254/"))
-- case: http in a cte
-- reason: EGRESS_FUNCTION
WITH x AS (SELECT * FROM http("uri" = "http://169.254.169.254/")) SELECT * FROM x
-- case: http in explain
-- reason: EGRESS_FUNCTION
EXPLAIN SELECT * FROM http("uri" = "http://169.254.169.254/")
-- case: http in desc function
-- reason: EGRESS_FUNCTION
DESC FUNCTION http("uri" = "http://169.254.169.254/")
-- case: http in an expression
-- reason: EGRESS_FUNCTION
SELECT (SELECT count(*) FROM http("uri" = "http://169.254.169.254/"))
-- case: http after a hint
-- reason: EGRESS_FUNCTION
SELECT /*+ ordered */ * FROM http("uri" = "http://169.254.169.254/")
-- case: http_stream
-- reason: EGRESS_FUNCTION
SELECT * FROM http_stream("format" = "csv")
-- case: local file read
-- reason: EGRESS_FUNCTION
SELECT * FROM local("file_path" = "conf/be.conf", "backend_id" = "10001", "format" = "csv")
-- case: local upper case in parentheses
-- reason: EGRESS_FUNCTION
SELECT * FROM (LOCAL("file_path" = "log/be.INFO", "backend_id" = "10001", "format" = "csv")) x
-- case: file tvf
-- reason: EGRESS_FUNCTION
SELECT * FROM file("fs.local.support" = "true", "file_path" = "/etc/passwd", "format" = "csv")
-- case: parquet_meta
-- reason: EGRESS_FUNCTION
SELECT * FROM parquet_meta("uri" = "file:///opt/doris/be/conf/be.conf")
-- case: parquet_file_metadata
-- reason: EGRESS_FUNCTION
SELECT * FROM parquet_file_metadata("uri" = "s3://bucket/x.parquet")
-- case: list_file
-- reason: EGRESS_FUNCTION
SELECT * FROM list_file("uri" = "s3://bucket/")
-- case: s3 with caller credentials
-- reason: EGRESS_FUNCTION
SELECT * FROM s3("uri" = "s3://attacker-bucket/x.csv", "s3.access_key" = "k", "s3.secret_key" = "s", "s3.endpoint" = "http://attacker.example", "format" = "csv")
-- case: s3 read as formerly allowed
-- reason: EGRESS_FUNCTION
SELECT * FROM s3("uri" = "s3://bucket/data/*.parquet", "format" = "parquet", "s3.region" = "us-east-1") LIMIT 10
-- case: s3 upper case backquoted
-- reason: EGRESS_FUNCTION
SELECT * FROM `S3`("uri" = "s3://b/x")
-- case: desc function s3
-- reason: EGRESS_FUNCTION
DESC FUNCTION s3("uri" = "s3://bucket/file.csv", "format" = "csv", "s3.region" = "us-east-1")
-- case: hdfs
-- reason: EGRESS_FUNCTION
SELECT * FROM hdfs("uri" = "hdfs://10.0.0.5:8020/user/x.csv", "fs.defaultFS" = "hdfs://10.0.0.5:8020", "format" = "csv")
-- case: query tvf to a jdbc catalog
-- reason: EGRESS_FUNCTION
SELECT * FROM query("catalog" = "mysql_jdbc", "query" = "SELECT * FROM mysql.user")
-- case: query tvf delete through jdbc
-- reason: EGRESS_FUNCTION
SELECT * FROM query("catalog" = "pg", "query" = "DELETE FROM accounts RETURNING *")
-- case: kafka
-- reason: EGRESS_FUNCTION
SELECT * FROM kafka("catalog" = "k", "database" = "default", "table" = "topic")
-- case: cdc_stream
-- reason: EGRESS_FUNCTION
SELECT * FROM cdc_stream("jdbc_url" = "jdbc:postgresql://10.0.0.9/db")
-- case: unknown table function
-- reason: EGRESS_FUNCTION
SELECT * FROM some_future_tvf("uri" = "x")
-- case: unknown table function backquoted non ascii
-- reason: EGRESS_FUNCTION
SELECT * FROM `ｈｔｔｐ`("uri" = "x")
-- case: unknown lateral view generator
-- reason: EGRESS_FUNCTION
SELECT * FROM t LATERAL VIEW my_udtf(a) t2 AS c
-- case: ai_generate
-- reason: EGRESS_FUNCTION
SELECT ai_generate('summarize: ', body) FROM emails
-- case: ai_generate with resource
-- reason: EGRESS_FUNCTION
SELECT AI_GENERATE('openai_res', concat('leak ', password)) FROM users
-- case: ai function in where
-- reason: EGRESS_FUNCTION
SELECT * FROM t WHERE ai_filter(body) = 1
-- case: ai_classify backquoted
-- reason: EGRESS_FUNCTION
SELECT `ai_classify`(body, ['a', 'b']) FROM t
-- case: ai_agg
-- reason: EGRESS_FUNCTION
SELECT ai_agg(body, 'summarize') FROM t
-- case: embed
-- reason: EGRESS_FUNCTION
SELECT embed('res', body) FROM t
-- case: embed with a database prefix
-- reason: EGRESS_FUNCTION
SELECT db1.embed('res', body) FROM t
-- case: llm prefix of older versions
-- reason: EGRESS_FUNCTION
SELECT llm_generate(body) FROM t
-- case: ai function in show where
-- reason: EGRESS_FUNCTION
SHOW TABLES WHERE ai_filter(Tables_in_db) = 1
-- case: show load warnings on url
-- reason: EXTERNAL_LOCATION
SHOW LOAD WARNINGS ON 'http://169.254.169.254/latest/meta-data/'
-- case: show load warnings on url lower case
-- reason: EXTERNAL_LOCATION
show load warnings on "http://10.0.0.1:8040/api/_load_error_log?file=x"
-- case: show load warnings on with comments
-- reason: EXTERNAL_LOCATION
SHOW LOAD /* a */ WARNINGS -- b
ON 'http://169.254.169.254/'
