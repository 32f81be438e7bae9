package sim

import (
	"strconv"
	"strings"
)

// Translations of Doris SQL that MariaDB lacks, used by the statements the
// built-in MetricFlow provider compiles (and by anyone else who writes
// them): DATE_TRUNC and FULL [OUTER] JOIN. Each keeps Doris's answer,
// including the edge cases:
//
//   - DATE_TRUNC(x, 'unit') for second, minute, hour, day, week, month,
//     quarter and year. Weeks start on Monday (Doris truncates to the
//     Monday of the ISO week), quarters on January, April, July and
//     October. NULL stays NULL. Doris returns the argument's own type
//     (DataType.getCurrentType in DateTrunc.java): a DATE for a DATE, a
//     DATETIME for a DATETIME. MariaDB cannot take the type from the
//     argument at rewrite time, so the type is read from the argument's
//     text: CAST(… AS DATE) or a DATE literal gives a DATE, anything else a
//     DATETIME. A bare DATE column therefore comes back as a DATETIME at
//     midnight here, where Doris gives a DATE; compiled MetricFlow SQL
//     always casts to DATETIME, so it is exact.
//   - A FULL [OUTER] JOIN B ON cond: every matching pair, every row of A
//     without a match (B columns NULL) and every row of B without a match
//     (A columns NULL), with NULL keys never matching. MariaDB has no full
//     join; the translation keeps both table aliases, so the rest of the
//     query is untouched:
//
//         (SELECT 1 AS s WHERE EXISTS (SELECT 1 FROM A)
//          UNION ALL
//          SELECT 2 WHERE EXISTS (SELECT 1 FROM B WHERE NOT EXISTS (SELECT 1 FROM A WHERE cond))) AS f
//         LEFT JOIN A ON f.s = 1
//         LEFT JOIN B ON (f.s = 1 AND cond) OR (f.s = 2 AND NOT EXISTS (SELECT 1 FROM A WHERE cond))
//
//     Side 1 is A left-joined to B; side 2 is the unmatched rows of B with
//     A all NULL. The EXISTS guards keep an empty A or a fully matched B
//     from adding an all-NULL row. A chain of full joins translates left to
//     right: the left operand of the next one is the translated join.

// translateSemantic applies the translations until none is left.
func translateSemantic(sql string) string {
	for i := 0; i < 256; i++ {
		all := lex(sql)
		out, ok := translateDateTrunc(all)
		if !ok {
			out, ok = translateFullJoin(all)
		}
		if !ok {
			return sql
		}
		sql = out
	}
	return sql
}

// sigPos returns the indexes of significant tokens.
func sigPos(all []token) []int {
	var idx []int
	for i, t := range all {
		if t.kind != tkSpace && t.kind != tkComment {
			idx = append(idx, i)
		}
	}
	return idx
}

// closeParen returns the sig position of the ")" that closes the "(" at
// sig position k, or -1.
func closeParen(all []token, idx []int, k int) int {
	depth := 0
	for j := k; j < len(idx); j++ {
		switch {
		case all[idx[j]].isP("("):
			depth++
		case all[idx[j]].isP(")"):
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// textOf joins the raw text of tokens from sig position a to b inclusive.
func textOf(all []token, idx []int, a, b int) string {
	if a > b {
		return ""
	}
	return join(all[idx[a] : idx[b]+1])
}

// translateDateTrunc rewrites the last DATE_TRUNC(x, 'unit') call (so an
// inner one is done before the call that contains it).
func translateDateTrunc(all []token) (string, bool) {
	idx := sigPos(all)
	for k := len(idx) - 2; k >= 0; k-- {
		t := all[idx[k]]
		if !t.is("DATE_TRUNC") || !all[idx[k+1]].isP("(") || (k > 0 && all[idx[k-1]].isP(".")) {
			continue
		}
		end := closeParen(all, idx, k+1)
		if end < 0 {
			return "", false
		}
		// The unit is the last argument: a string literal right before ")".
		if end-1 <= k+1 || all[idx[end-1]].kind != tkString || !all[idx[end-2]].isP(",") {
			continue
		}
		unit := strings.ToLower(all[idx[end-1]].str())
		arg := strings.TrimSpace(textOf(all, idx, k+2, end-3))
		x := dateTruncExpr(arg, unit)
		if x == "" {
			continue
		}
		return join(all[:idx[k]]) + x + join(all[idx[end]+1:]), true
	}
	return "", false
}

// dateTruncExpr is the MariaDB expression of DATE_TRUNC(arg, unit), or ""
// for a unit Doris rejects (then MariaDB's own error stands).
func dateTruncExpr(arg, unit string) string {
	a := "(" + arg + ")"
	var day string // the DATE the period starts on, for day and coarser
	switch unit {
	case "second", "minute", "hour":
		if argIsDate(arg) {
			return "CAST(" + a + " AS DATE)" // a date has no time to truncate
		}
		f := map[string]string{"second": "%Y-%m-%d %H:%i:%s", "minute": "%Y-%m-%d %H:%i:00", "hour": "%Y-%m-%d %H:00:00"}[unit]
		return "CAST(DATE_FORMAT(" + a + ", '" + f + "') AS DATETIME)"
	case "day":
		day = "DATE(" + a + ")"
	case "week":
		day = "(DATE(" + a + ") - INTERVAL WEEKDAY(" + a + ") DAY)"
	case "month":
		day = "(DATE(" + a + ") - INTERVAL (DAYOFMONTH(" + a + ") - 1) DAY)"
	case "quarter":
		day = "(MAKEDATE(YEAR(" + a + "), 1) + INTERVAL (QUARTER(" + a + ") - 1) QUARTER)"
	case "year":
		day = "MAKEDATE(YEAR(" + a + "), 1)"
	default:
		return ""
	}
	if argIsDate(arg) {
		return "CAST(" + day + " AS DATE)"
	}
	return "CAST(" + day + " AS DATETIME)"
}

// argIsDate reports an argument whose text says it is a DATE: CAST(… AS
// DATE) or DATE '…'.
func argIsDate(arg string) bool {
	s := sig(lex(arg))
	n := len(s)
	if n >= 2 && s[0].is("DATE") && s[1].kind == tkString && n == 2 {
		return true
	}
	return n >= 5 && s[0].is("CAST") && s[1].isP("(") && s[n-1].isP(")") && s[n-2].is("DATE") && s[n-3].is("AS")
}

// joinEnders end the condition of a join.
var joinEnders = map[string]bool{
	"WHERE": true, "GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "UNION": true, "EXCEPT": true,
	"INTERSECT": true, "MINUS": true, "WINDOW": true, "JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true,
	"FULL": true, "CROSS": true, "NATURAL": true, "STRAIGHT_JOIN": true, "QUALIFY": true,
}

// translateFullJoin rewrites the first FULL [OUTER] JOIN whose operands
// contain no other full join.
func translateFullJoin(all []token) (string, bool) {
	idx := sigPos(all)
	for k := 0; k+1 < len(idx); k++ {
		if !all[idx[k]].is("FULL") {
			continue
		}
		j := k + 1
		if all[idx[j]].is("OUTER") {
			j++
		}
		if j >= len(idx) || !all[idx[j]].is("JOIN") {
			continue
		}
		// Left operand: back to FROM at the same depth.
		depth, from := 0, -1
		for b := k - 1; b >= 0; b-- {
			t := all[idx[b]]
			if t.isP(")") {
				depth++
			} else if t.isP("(") {
				if depth == 0 {
					break
				}
				depth--
			} else if depth == 0 && (t.is("FROM") || t.isP(",")) {
				if t.is("FROM") {
					from = b
				}
				break
			}
		}
		if from < 0 {
			continue // FULL JOIN after a comma join: left as is
		}
		// Right operand: one table factor up to ON.
		on := -1
		depth = 0
		for b := j + 1; b < len(idx); b++ {
			t := all[idx[b]]
			if t.isP("(") {
				depth++
			} else if t.isP(")") {
				if depth == 0 {
					break
				}
				depth--
			} else if depth == 0 && t.is("ON") {
				on = b
				break
			} else if depth == 0 && (t.is("USING") || joinEnders[strings.ToUpper(t.text)] && t.kind == tkWord) {
				break
			}
		}
		if on < 0 {
			continue
		}
		// Condition: up to a clause keyword, a closing ")" or the end.
		end := len(idx) - 1
		depth = 0
		for b := on + 1; b < len(idx); b++ {
			t := all[idx[b]]
			if t.isP("(") {
				depth++
			} else if t.isP(")") {
				if depth == 0 {
					end = b - 1
					break
				}
				depth--
			} else if depth == 0 && (t.isP(";") || (t.kind == tkWord && joinEnders[strings.ToUpper(t.text)] &&
				!((t.is("LEFT") || t.is("RIGHT")) && b+1 < len(idx) && all[idx[b+1]].isP("(")))) {
				end = b - 1
				break
			}
		}
		left := strings.TrimSpace(textOf(all, idx, from+1, k-1))
		right := strings.TrimSpace(textOf(all, idx, j+1, on-1))
		cond := strings.TrimSpace(textOf(all, idx, on+1, end))
		if left == "" || right == "" || cond == "" || hasFullJoin(left) || hasFullJoin(right) {
			continue
		}
		n := 0
		for _, t := range all {
			if t.kind == tkQuoted && strings.HasPrefix(t.ident(), "__sim_fj") {
				n++
			}
		}
		f := quoteIdent("__sim_fj" + strconv.Itoa(n))
		s := f + ".`s`"
		leftScope := left
		if isJoinExpr(left) {
			leftScope = "(" + left + ")"
		}
		unmatched := "NOT EXISTS (SELECT 1 FROM " + leftScope + " WHERE " + cond + ")"
		rep := "(SELECT 1 AS `s` FROM DUAL WHERE EXISTS (SELECT 1 FROM " + leftScope + ")" +
			" UNION ALL SELECT 2 FROM DUAL WHERE EXISTS (SELECT 1 FROM " + right + " WHERE " + unmatched + ")) AS " + f +
			" LEFT JOIN " + leftScope + " ON " + s + " = 1" +
			" LEFT JOIN " + right + " ON (" + s + " = 1 AND (" + cond + ")) OR (" + s + " = 2 AND " + unmatched + ")"
		return join(all[:idx[from+1]]) + " " + rep + " " + join(all[idx[end]+1:]), true
	}
	return "", false
}

func hasFullJoin(s string) bool {
	for _, t := range sig(lex(s)) {
		if t.is("FULL") {
			return true
		}
	}
	return false
}

// isJoinExpr reports whether a table reference is a join (at depth 0).
func isJoinExpr(s string) bool {
	depth := 0
	for _, t := range sig(lex(s)) {
		switch {
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		case depth == 0 && t.is("JOIN"):
			return true
		}
	}
	return false
}

// needsSemanticTranslation is a cheap test that spares the lexer for the
// statements (nearly all) that use neither construct.
func needsSemanticTranslation(sql string) bool {
	u := strings.ToUpper(sql)
	return strings.Contains(u, "DATE_TRUNC") || strings.Contains(u, "FULL")
}
