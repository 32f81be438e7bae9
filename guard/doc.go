// Package guard decides whether a piece of SQL text is one read-only
// statement that Apache Doris will read exactly as the guard reads it.
//
// It is the first line of defence of the server: every SQL path calls Check
// (or Bind, which calls Check twice) before anything reaches Doris. The
// second line of defence is a least-privilege Doris role for the server's
// connections; the guard does not replace it.
//
// # What it does
//
// The scanner is a switch-loop tokenizer that follows Doris's own lexer
// grammar, DorisLexer.g4 (see scan.go for the commits followed): nested
// /* */ comments, "--" comments that need no space and continue across a
// backslash-newline, strings with backslash escapes and doubled quotes, R'…'
// raw strings, backquoted identifiers, identifiers that include every
// non-ASCII character, the numeric literal rules with their longest-match
// quirks, and "/*+" hints read as code. Keywords are recognised only in real
// tokens, never inside strings, identifiers in backquotes or comments.
//
// Check accepts exactly one statement (with empty statements, extra ";",
// before or after it, as Doris's singleStatement rule reads them, and
// comments) that is a SELECT (also WITH … SELECT, VALUES, a parenthesised
// query and set operations), SHOW, DESC/DESCRIBE of a table, EXPLAIN of a
// query, or HELP of one topic. It accepts the planner-only hints of Doris's
// grammar (/*+ leading(…) */, ordered, use_cbo_rule, use_mv, …), parsed
// with their arguments (hint.go). It refuses, with a byte position and a
// stable reason code:
//   - every other statement, and statement verbs that change something
//     anywhere they could start a statement (a CTE body, a subquery, after a
//     set operator, after the WITH list);
//   - INTO (OUTFILE, DUMPFILE, variables), FOR UPDATE / FOR SHARE, LOCK IN
//     SHARE MODE, ":=", calls of SLEEP, BENCHMARK, GET_LOCK and the other
//     lock or file functions;
//   - hints that set session variables (SET_VAR in every spelling) and
//     unknown hints, MySQL executable comments ("/*!"), positional
//     parameters ("?" and "%s");
//   - by the egress policy (egress.go), reads that reach outside Doris's
//     catalogs: table functions that fetch URLs, read backend files, reach
//     object stores or HDFS at caller-named locations, pass SQL to other
//     databases or read external streams, every table function it does not
//     know, the AI functions that send data to model endpoints, and SHOW
//     LOAD WARNINGS ON 'url'. A Policy names functions an operator allows;
//   - anything Doris's lexers cannot read, and anything two of them would
//     read differently (below);
//   - empty input, input longer than MaxLen, invalid UTF-8 and NUL bytes.
//
// Bind substitutes named parameters %(name)s with safe literals and checks
// the result again. SessionControl recognises the handful of fixed session
// statements the server itself sends.
//
// # Doris has more than one lexer
//
// Doris 2.0 and 2.1 parse with Nereids first and, when Nereids fails, fall
// back to the legacy JFlex/CUP parser (ConnectProcessor.handleQuery; the
// branch-2.1 fix c83c2e18bc0 of April 2025 still concerns that fallback,
// and states that 3.x deleted the legacy planner). With Nereids disabled the
// legacy parser is the only one. The grammars also changed between Nereids
// versions. So the guard refuses text that any of them would split
// differently:
//   - nested comments (the legacy lexer ends a comment at the first "*/");
//   - "--" comments continued by backslash-newline (legacy: not continued);
//   - "--+", "-- +" and "/* +" (legacy plan hints, i.e. code);
//   - a backslash before a quote inside a string (under the
//     NO_BACKSLASH_ESCAPES sql_mode, which newer Nereids honours, it ends
//     the string), and a backslash before a line break (the legacy lexer
//     cannot read it);
//   - a backslash in an R'…' raw string, or a raw string directly followed by
//     a quote (newer Nereids has no raw strings and reads R then '…');
//   - a word starting with "$$" (a dollar-quoted string in newer Nereids);
//   - numbers glued to words or dots, such as 1.5into or t.5x (Nereids and
//     the legacy lexer cut them at different places);
//   - the letters ı ſ İ K (U+0131, U+017F, U+0130, U+212A), which upper- or
//     lower-case to ASCII, so "ſelect" is SELECT to Nereids, and invisible,
//     space or control characters outside quotes;
//   - "#" and form feed (not tokens in Nereids; # is no comment in Doris).
//
// # What it deliberately does not do
//
// It is not a SQL parser and does not validate syntax: text it accepts may
// still be rejected by Doris. It does not look at privileges, table names,
// cost or result size. User-defined scalar functions are left to Doris: an
// administrator created them. It never rewrites the
// statement except through Bind's substitution. Errors never contain the SQL
// text or parameter values.
//
// All functions are safe for concurrent use; the package has no state. It
// imports only the standard library.
package guard
