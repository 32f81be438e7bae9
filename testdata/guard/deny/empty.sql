-- case: empty text
-- reason: EMPTY_STATEMENT
-- case: only spaces and tabs
-- reason: EMPTY_STATEMENT
   	  
-- case: only newlines
-- reason: EMPTY_STATEMENT


-- case: only a line comment
-- reason: EMPTY_STATEMENT
-- nothing here
-- case: only a block comment
-- reason: EMPTY_STATEMENT
/* nothing here */
-- case: only comments of both kinds
-- reason: EMPTY_STATEMENT
/* a */ -- b
/* c */
-- case: only a semicolon
-- reason: EMPTY_STATEMENT
;
-- case: only semicolons and comments
-- reason: EMPTY_STATEMENT
; /* x */ ; -- y
;
-- case: only an executable comment
-- reason: EXECUTABLE_COMMENT
/*!50000 SELECT 1 */
-- case: only a hint
-- reason: CLIENT_HINT
/*+ SET_VAR(a=1) */
