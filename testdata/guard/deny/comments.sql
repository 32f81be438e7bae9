-- case: mysql executable comment drop
-- reason: EXECUTABLE_COMMENT
/*!50000 DROP TABLE users */ SELECT 1
-- case: executable comment inside select
-- reason: EXECUTABLE_COMMENT
SELECT 1 /*! ; DROP TABLE users */
-- case: executable comment union
-- reason: EXECUTABLE_COMMENT
SELECT 1 /*!50000UNION*/ SELECT password FROM users
-- case: executable comment with version and into outfile
-- reason: EXECUTABLE_COMMENT
SELECT * FROM t /*!40001 INTO OUTFILE '/tmp/x' */
-- case: mariadb executable comment
-- reason: EXECUTABLE_COMMENT
SELECT 1 /*M!100100 , sleep(5) */
-- case: executable comment nested inside comment
-- reason: EXECUTABLE_COMMENT
SELECT 1 /* outer /*! DROP TABLE t */ */
-- case: executable comment at end
-- reason: EXECUTABLE_COMMENT
SELECT 1; /*!50000 DROP TABLE t */
-- case: client hint set var
-- reason: CLIENT_HINT
SELECT /*+ SET_VAR(query_timeout = 3600) */ * FROM t
-- case: client hint set var enable fallback
-- reason: CLIENT_HINT
SELECT /*+ SET_VAR(enable_fallback_to_original_planner = true) */ 1
-- case: client hint nested in comment
-- reason: CLIENT_HINT
SELECT 1 /* a /*+ SET_VAR(x=1) */ b */
-- case: legacy hint with space
-- reason: CLIENT_HINT
SELECT /* + SET_VAR(query_timeout = 3600) */ 1
-- case: legacy end of line hint
-- reason: CLIENT_HINT
SELECT 1 --+ ; DROP TABLE t
-- case: legacy end of line hint with space
-- reason: CLIENT_HINT
SELECT 1 -- + x
-- case: unclosed hint
-- reason: UNCLOSED_COMMENT
SELECT /*+ SET_VAR(x=1)
-- case: nested comment unclosed in nereids hides drop in legacy
-- reason: UNCLOSED_COMMENT
SELECT 1 /* /* */ ; DROP TABLE t; /* */
-- case: nested comment hides statement in legacy lexer
-- reason: NESTED_COMMENT
SELECT 1 /* /* */ ; DROP TABLE t; /* */ */
-- case: nested comment simple
-- reason: NESTED_COMMENT
SELECT 1 /* a /* b */ c */
-- case: nested comment leading
-- reason: NESTED_COMMENT
/* /* */ DROP TABLE t /* */ */ SELECT 1
-- case: backslash newline continues dash comment in nereids only
-- reason: COMMENT_CONTINUATION
SELECT 1 -- comment \
; DROP TABLE t
-- case: backslash newline continuation hides from clause
-- reason: COMMENT_CONTINUATION
SELECT 1 --\
FROM t
-- case: unclosed block comment
-- reason: UNCLOSED_COMMENT
SELECT 1 /* never closed
-- case: unclosed block comment hiding drop
-- reason: UNCLOSED_COMMENT
SELECT 1 /* ; DROP TABLE t
-- case: unclosed nested comment
-- reason: UNCLOSED_COMMENT
SELECT 1 /* a /* b */
-- case: hash comment
-- reason: UNRECOGNISED_CHARACTER
SELECT 1 # comment
-- case: hash comment hiding nothing
-- reason: UNRECOGNISED_CHARACTER
# just a comment
SELECT 1
-- case: hash trick mysql newline
-- reason: UNRECOGNISED_CHARACTER
SELECT 1 #
; DROP TABLE t
-- case: stray comment terminator
-- reason: UNOPENED_COMMENT
SELECT 1 */ DROP TABLE t
-- case: stray terminator in arithmetic
-- reason: UNOPENED_COMMENT
SELECT 2*/3
-- case: comment inside keyword does not split in doris
-- reason: STATEMENT_NOT_ALLOWED
SEL/**/ECT 1
-- case: dash dash after value hides rest
-- reason: MULTIPLE_STATEMENTS
SELECT 1--
; DROP TABLE t
-- case: comment hides where in first line then drop
-- reason: MULTIPLE_STATEMENTS
SELECT * FROM t -- WHERE 1
; DELETE FROM t
-- case: block comment between select and star with drop after
-- reason: MULTIPLE_STATEMENTS
SELECT/**/1;/**/DROP/**/TABLE/**/t
