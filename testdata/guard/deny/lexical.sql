-- case: unclosed single quote
-- reason: UNCLOSED_STRING
SELECT 'abc
-- case: unclosed double quote
-- reason: UNCLOSED_STRING
SELECT "abc
-- case: unclosed string hiding drop
-- reason: UNCLOSED_STRING
SELECT 'x; DROP TABLE t
-- case: string closed only by escaped quote
-- reason: UNCLOSED_STRING
SELECT 'abc\'
-- case: unclosed backquote
-- reason: UNCLOSED_IDENTIFIER
SELECT `abc FROM t
-- case: unclosed raw string
-- reason: UNCLOSED_STRING
SELECT R'abc
-- case: backslash quote ambiguous under no backslash escapes
-- reason: AMBIGUOUS_ESCAPE
SELECT 'a\' ; DROP TABLE t; -- '
-- case: backslash double quote ambiguous
-- reason: AMBIGUOUS_ESCAPE
SELECT "a\" ; DELETE FROM t; -- "
-- case: three backslashes before quote
-- reason: AMBIGUOUS_ESCAPE
SELECT 'a\\\' ; DROP TABLE t; -- '
-- case: backslash quote in where
-- reason: AMBIGUOUS_ESCAPE
SELECT * FROM users WHERE name = 'O\'Brien'
-- case: backslash newline in string
-- reason: AMBIGUOUS_ESCAPE
SELECT 'a\
b'
-- case: raw string with backslash
-- reason: AMBIGUOUS_ESCAPE
SELECT R'\' , 1; DROP TABLE t; -- '
-- case: raw string followed by quote
-- reason: AMBIGUOUS_QUOTE
SELECT R'a''b'
-- case: raw double quoted with backslash
-- reason: AMBIGUOUS_ESCAPE
SELECT r"C:\temp"
-- case: dollar quoted string newer doris
-- reason: AMBIGUOUS_QUOTE
SELECT $$ ; DROP TABLE t; $$
-- case: dollar dollar identifier
-- reason: AMBIGUOUS_QUOTE
SELECT $$x FROM t
-- case: number glued to into
-- reason: AMBIGUOUS_NUMBER
SELECT 1.5into OUTFILE 's3://b/x'
-- case: number glued to union
-- reason: AMBIGUOUS_NUMBER
SELECT 1.5union SELECT 2
-- case: dot digit word
-- reason: AMBIGUOUS_NUMBER
SELECT t.5abc FROM t
-- case: decimal then underscore word
-- reason: AMBIGUOUS_NUMBER
SELECT 2.3_x
-- case: exponent glued to word
-- reason: AMBIGUOUS_NUMBER
SELECT 1e+5from t
-- case: decimal with bd suffix
-- reason: AMBIGUOUS_NUMBER
SELECT 1.5BD
-- case: double dot numbers
-- reason: AMBIGUOUS_NUMBER
SELECT 1..2
-- case: decimal glued to dollar
-- reason: AMBIGUOUS_NUMBER
SELECT 1.5$
-- case: backslash outside string
-- reason: UNRECOGNISED_CHARACTER
SELECT 1 \G
-- case: form feed as space
-- reason: UNRECOGNISED_CHARACTER
SELECT1
-- case: vertical tab as space
-- reason: UNRECOGNISED_CHARACTER
SELECT1
-- case: control character
-- reason: UNRECOGNISED_CHARACTER
SELECT 1
-- case: question mark placeholder
-- reason: POSITIONAL_PARAMETER
SELECT * FROM t WHERE id = ?
-- case: percent s placeholder
-- reason: POSITIONAL_PARAMETER
SELECT * FROM t WHERE id = %s
-- case: percent s glued
-- reason: POSITIONAL_PARAMETER
SELECT a%s FROM t
-- case: invalid placeholder name digit
-- reason: INVALID_PARAMETER_NAME
SELECT %(1st)s
-- case: invalid placeholder name too long
-- reason: INVALID_PARAMETER_NAME
SELECT %(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)s
-- case: empty placeholder name
-- reason: INVALID_PARAMETER_NAME
SELECT %()s
