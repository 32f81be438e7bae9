-- case: drop table
-- reason: WRITE_STATEMENT
DROP TABLE users
-- case: drop table if exists force
-- reason: WRITE_STATEMENT
DROP TABLE IF EXISTS users FORCE
-- case: drop database
-- reason: WRITE_STATEMENT
DROP DATABASE prod
-- case: drop catalog
-- reason: WRITE_STATEMENT
DROP CATALOG hive_catalog
-- case: drop user
-- reason: WRITE_STATEMENT
DROP USER 'bob'@'%'
-- case: drop materialized view
-- reason: WRITE_STATEMENT
DROP MATERIALIZED VIEW mv1 ON t
-- case: create table
-- reason: WRITE_STATEMENT
CREATE TABLE t (id INT) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")
-- case: create table as select
-- reason: WRITE_STATEMENT
CREATE TABLE t2 AS SELECT * FROM t1
-- case: create view
-- reason: WRITE_STATEMENT
CREATE VIEW v AS SELECT * FROM t
-- case: create or replace view
-- reason: WRITE_STATEMENT
CREATE OR REPLACE VIEW v AS SELECT 1
-- case: create database
-- reason: WRITE_STATEMENT
CREATE DATABASE evil
-- case: create user
-- reason: WRITE_STATEMENT
CREATE USER 'evil'@'%' IDENTIFIED BY 'pw'
-- case: create role
-- reason: WRITE_STATEMENT
CREATE ROLE r1
-- case: create catalog
-- reason: WRITE_STATEMENT
CREATE CATALOG jdbc_cat PROPERTIES ("type" = "jdbc", "jdbc_url" = "jdbc:mysql://10.0.0.1/x")
-- case: create function
-- reason: WRITE_STATEMENT
CREATE FUNCTION f(INT) RETURNS INT PROPERTIES ("file" = "http://x/udf.jar", "symbol" = "a.B")
-- case: create materialized view
-- reason: WRITE_STATEMENT
CREATE MATERIALIZED VIEW mv BUILD IMMEDIATE REFRESH AUTO ON SCHEDULE EVERY 1 HOUR AS SELECT * FROM t
-- case: create repository
-- reason: WRITE_STATEMENT
CREATE REPOSITORY repo WITH S3 ON LOCATION "s3://bucket/backup" PROPERTIES ("s3.region" = "us-east-1")
-- case: create resource
-- reason: WRITE_STATEMENT
CREATE RESOURCE "spark0" PROPERTIES ("type" = "spark")
-- case: create job
-- reason: WRITE_STATEMENT
CREATE JOB j ON SCHEDULE EVERY 1 MINUTE DO INSERT INTO t SELECT * FROM s
-- case: create index
-- reason: WRITE_STATEMENT
CREATE INDEX idx ON t (c) USING INVERTED
-- case: create sql block rule
-- reason: WRITE_STATEMENT
CREATE SQL_BLOCK_RULE r PROPERTIES ("sql" = "select 1", "global" = "true")
-- case: alter table add column
-- reason: WRITE_STATEMENT
ALTER TABLE t ADD COLUMN c INT
-- case: alter table drop partition
-- reason: WRITE_STATEMENT
ALTER TABLE t DROP PARTITION p1
-- case: alter table rename
-- reason: WRITE_STATEMENT
ALTER TABLE t RENAME t_old
-- case: alter table set properties
-- reason: WRITE_STATEMENT
ALTER TABLE t SET ("replication_num" = "1")
-- case: alter user
-- reason: WRITE_STATEMENT
ALTER USER 'mcp_reader'@'%' IDENTIFIED BY 'new'
-- case: alter database quota
-- reason: WRITE_STATEMENT
ALTER DATABASE db SET DATA QUOTA 1T
-- case: alter view
-- reason: WRITE_STATEMENT
ALTER VIEW v AS SELECT 2
-- case: alter workload group
-- reason: WRITE_STATEMENT
ALTER WORKLOAD GROUP normal PROPERTIES ("cpu_share" = "1")
-- case: rename table
-- reason: WRITE_STATEMENT
RENAME TABLE t TO t2
-- case: create temporary table
-- reason: WRITE_STATEMENT
CREATE TEMPORARY TABLE tmp AS SELECT 1
-- case: create table like
-- reason: WRITE_STATEMENT
CREATE TABLE t3 LIKE t1
-- case: drop function
-- reason: WRITE_STATEMENT
DROP FUNCTION f(INT)
-- case: drop row policy
-- reason: WRITE_STATEMENT
DROP ROW POLICY p ON t
-- case: drop stats
-- reason: WRITE_STATEMENT
DROP STATS t
