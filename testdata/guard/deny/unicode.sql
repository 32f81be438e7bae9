-- case: cyrillic e in select
-- reason: STATEMENT_NOT_ALLOWED
SЕLECT 1
-- case: cyrillic o in show
-- reason: STATEMENT_NOT_ALLOWED
SHОW TABLES
-- case: greek omicron in delete first word
-- reason: STATEMENT_NOT_ALLOWED
DΕLETE FROM t
-- case: fullwidth select
-- reason: STATEMENT_NOT_ALLOWED
ＳＥＬＥＣＴ 1
-- case: long s select upper cases to S in nereids
-- reason: AMBIGUOUS_LETTER
ſelect 1
-- case: dotless i insert
-- reason: AMBIGUOUS_LETTER
ınsert INTO t VALUES (1)
-- case: dotless i into inside select
-- reason: AMBIGUOUS_LETTER
SELECT * FROM t ınto OUTFILE 's3://b/x'
-- case: long s sleep
-- reason: AMBIGUOUS_LETTER
SELECT ſleep(5)
-- case: kelvin sign kill
-- reason: AMBIGUOUS_LETTER
KILL 1
-- case: kelvin sign in identifier
-- reason: AMBIGUOUS_LETTER
SELECT Kelvin FROM t
-- case: dotted capital i
-- reason: AMBIGUOUS_LETTER
SELECT İnsert FROM t
-- case: no break space after select
-- reason: UNRECOGNISED_CHARACTER
SELECT * FROM t
-- case: zero width space inside keyword
-- reason: UNRECOGNISED_CHARACTER
SEL​ECT 1
-- case: zero width space between statements
-- reason: UNRECOGNISED_CHARACTER
SELECT 1 ​; DROP TABLE t
-- case: byte order mark first
-- reason: UNRECOGNISED_CHARACTER
﻿SELECT 1
-- case: right to left override
-- reason: UNRECOGNISED_CHARACTER
SELECT 1 ‮ FROM t
-- case: ideographic space
-- reason: UNRECOGNISED_CHARACTER
SELECT　1
-- case: line separator
-- reason: UNRECOGNISED_CHARACTER
SELECT 1 FROM t
-- case: fullwidth semicolon is not a separator
-- reason: STATEMENT_NOT_ALLOWED
DROP；SELECT 1
