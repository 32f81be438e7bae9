-- case: show databases
SHOW DATABASES
-- case: show databases from catalog
SHOW DATABASES FROM hive_catalog
-- case: show schemas like
SHOW SCHEMAS LIKE 'sales%'
-- case: show tables
SHOW TABLES
-- case: show full tables from db
SHOW FULL TABLES FROM sales_db
-- case: show tables like
SHOW TABLES LIKE 'ord%'
-- case: show tables where
SHOW TABLES FROM sales_db WHERE Tables_in_sales_db LIKE 'o%'
-- case: show views
SHOW VIEWS FROM sales_db
-- case: show create table
SHOW CREATE TABLE sales_db.orders
-- case: show brief create table
SHOW BRIEF CREATE TABLE orders
-- case: show create view
SHOW CREATE VIEW v_orders
-- case: show create materialized view
SHOW CREATE MATERIALIZED VIEW mv1 ON orders
-- case: show create database
SHOW CREATE DATABASE sales_db
-- case: show create catalog
SHOW CREATE CATALOG hive_catalog
-- case: show create function
SHOW CREATE FUNCTION my_udf(INT) FROM sales_db
-- case: show create routine load
SHOW CREATE ROUTINE LOAD FOR sales_db.kafka_job
-- case: show create user
SHOW CREATE USER 'mcp_reader'@'%'
-- case: show columns
SHOW COLUMNS FROM orders
-- case: show full columns in db
SHOW FULL COLUMNS FROM orders FROM sales_db
-- case: show index
SHOW INDEX FROM orders
-- case: show partitions
SHOW PARTITIONS FROM orders WHERE PartitionName = 'p202401' ORDER BY PartitionId LIMIT 10
-- case: show temporary partitions
SHOW TEMPORARY PARTITIONS FROM orders
-- case: show tablets
SHOW TABLETS FROM orders
-- case: show tablet id
SHOW TABLET 10086
-- case: show data
SHOW DATA FROM sales_db.orders
-- case: show data skew
SHOW DATA SKEW FROM orders
-- case: show catalogs
SHOW CATALOGS
-- case: show catalogs like
SHOW CATALOGS LIKE 'hive%'
-- case: show variables
SHOW VARIABLES
-- case: show session variables like
SHOW SESSION VARIABLES LIKE 'query_timeout'
-- case: show global variables where
SHOW GLOBAL VARIABLES WHERE Variable_name = 'version'
-- case: show frontends
SHOW FRONTENDS
-- case: show backends
SHOW BACKENDS
-- case: show proc
SHOW PROC '/backends'
-- case: show proc jobs
SHOW PROC '/jobs/10001/load'
-- case: show processlist
SHOW PROCESSLIST
-- case: show full processlist
SHOW FULL PROCESSLIST
-- case: show load
SHOW LOAD FROM sales_db WHERE STATE = 'FINISHED' ORDER BY CreateTime DESC LIMIT 10
-- case: show stream load
SHOW STREAM LOAD FROM sales_db
-- case: show routine load
SHOW ROUTINE LOAD FOR sales_db.kafka_job
-- case: show all routine load
SHOW ALL ROUTINE LOAD
-- case: show routine load task
SHOW ROUTINE LOAD TASK WHERE JobName = 'kafka_job'
-- case: show export
SHOW EXPORT FROM sales_db
-- case: show delete
SHOW DELETE FROM sales_db
-- case: show alter table column
SHOW ALTER TABLE COLUMN FROM sales_db
-- case: show alter table rollup
SHOW ALTER TABLE ROLLUP
-- case: show last insert
SHOW LAST INSERT
-- case: show backup
SHOW BACKUP FROM sales_db
-- case: show restore
SHOW RESTORE FROM sales_db
-- case: show brief restore
SHOW BRIEF RESTORE
-- case: show snapshot
SHOW SNAPSHOT ON example_repo WHERE SNAPSHOT = 'backup1'
-- case: show repositories
SHOW REPOSITORIES
-- case: show grants
SHOW GRANTS
-- case: show all grants
SHOW ALL GRANTS
-- case: show grants for user
SHOW GRANTS FOR 'mcp_reader'@'%'
-- case: show roles
SHOW ROLES
-- case: show privileges
SHOW PRIVILEGES
-- case: show property
SHOW PROPERTY FOR 'mcp_reader'
-- case: show functions
SHOW FUNCTIONS FROM sales_db
-- case: show full builtin functions like
SHOW FULL BUILTIN FUNCTIONS LIKE 'year%'
-- case: show global functions
SHOW GLOBAL FULL FUNCTIONS
-- case: show query profile
SHOW QUERY PROFILE '/'
-- case: show query profile with id
SHOW QUERY PROFILE '/e0f7390f5363419e-b416a2a79996083e'
-- case: show load profile
SHOW LOAD PROFILE '/'
-- case: show resources
SHOW RESOURCES
-- case: show workload groups
SHOW WORKLOAD GROUPS
-- case: show warnings
SHOW WARNINGS LIMIT 10
-- case: show errors
SHOW ERRORS
-- case: show count warnings
SHOW COUNT(*) WARNINGS
-- case: show table status
SHOW TABLE STATUS FROM sales_db LIKE 'orders'
-- case: show table stats
SHOW TABLE STATS orders
-- case: show column stats
SHOW COLUMN STATS orders (o_orderkey)
-- case: show analyze
SHOW ANALYZE orders
-- case: show auto analyze
SHOW AUTO ANALYZE
-- case: show dynamic partition tables
SHOW DYNAMIC PARTITION TABLES FROM sales_db
-- case: show transaction
SHOW TRANSACTION FROM sales_db WHERE ID = 4005
-- case: show replica status
SHOW REPLICA STATUS FROM orders WHERE STATUS = 'VERSION_ERROR'
-- case: show replica distribution
SHOW REPLICA DISTRIBUTION FROM orders
-- case: show trash
SHOW TRASH
-- case: show storage vault
SHOW STORAGE VAULTS
-- case: show compute groups
SHOW COMPUTE GROUPS
-- case: show clusters
SHOW CLUSTERS
-- case: show status
SHOW STATUS
-- case: show charset
SHOW CHARSET
-- case: show char set
SHOW CHAR SET
-- case: show collation
SHOW COLLATION
-- case: show engines
SHOW ENGINES
-- case: show plugins
SHOW PLUGINS
-- case: show broker
SHOW BROKER
-- case: show sql block rule
SHOW SQL_BLOCK_RULE
-- case: show row policy
SHOW ROW POLICY
-- case: show storage policy
SHOW STORAGE POLICY
-- case: show encryptkeys
SHOW ENCRYPTKEYS FROM sales_db
-- case: show file
SHOW FILE FROM sales_db
-- case: show dictionaries
SHOW DICTIONARIES
-- case: show open tables
SHOW OPEN TABLES
-- case: show triggers
SHOW TRIGGERS
-- case: show events
SHOW EVENTS
-- case: show authors
SHOW AUTHORS
-- case: show whitelist
SHOW WHITELIST
-- case: show warm up job
SHOW WARM UP JOB
-- case: show copy
SHOW COPY FROM sales_db
-- case: show stages
SHOW STAGES
-- case: show build index
SHOW BUILD INDEX FROM sales_db
-- case: show inverted index analyzer
SHOW INVERTED INDEX ANALYZER
-- case: show table creation
SHOW TABLE CREATION FROM hive_db
-- case: show convert light schema change
SHOW CONVERT_LIGHT_SCHEMA_CHANGE_PROCESS FROM sales_db
-- case: show catalog recycle bin
SHOW CATALOG RECYCLE BIN WHERE NAME = 'orders'
-- case: show query stats
SHOW QUERY STATS FROM orders ALL VERBOSE
-- case: show data types
SHOW DATA TYPES
-- case: show typecast
SHOW TYPECAST
-- case: show frontend config
SHOW FRONTEND CONFIG LIKE '%timeout%'
-- case: show procedure status
SHOW PROCEDURE STATUS
-- case: show lower case with semicolon
show tables;
-- case: show with comment
SHOW /* which ones */ TABLES -- all of them
-- case: show constraints
SHOW CONSTRAINTS FROM orders
-- case: show tablets belong
SHOW TABLETS BELONG 10000, 10001
-- case: show partition id
SHOW PARTITION 13004
-- case: show database id
SHOW DATABASE 1001
-- case: show table id
SHOW TABLE 2261
