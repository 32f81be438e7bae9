package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// rewriteSample turns Doris's table sample clause into a MariaDB derived
// table that really samples:
//
//	t [[AS] a] TABLESAMPLE(n PERCENT) [REPEATABLE s]  ->  (SELECT * FROM t WHERE RAND(s) < n/100) AS a
//	t [[AS] a] TABLESAMPLE(n ROWS) [REPEATABLE s]     ->  (SELECT * FROM t ORDER BY RAND(s) LIMIT n) AS a
//
// The syntax is DorisParser.g4's: sample : TABLESAMPLE '(' sampleMethod ')'
// (REPEATABLE seed=INTEGER_VALUE)?, with sampleMethod INTEGER_VALUE PERCENT
// or INTEGER_VALUE ROWS. A seed makes the sample repeatable (MariaDB's
// RAND(N) is a fixed sequence per statement). k is the sig position of
// TABLESAMPLE; the result is the last sig position consumed.
func rewriteSample(all []token, idx []int, k int) (int, *dorisErr) {
	at := func(j int) token {
		if j >= 0 && j < len(idx) {
			return all[idx[j]]
		}
		return token{}
	}
	bad := func(j int) *dorisErr {
		tok := "<EOF>"
		if j < len(idx) {
			tok = at(j).text
		}
		return newDorisErr(1105, "HY000", fmt.Sprintf("\nmismatched input '%s' expecting '('(line 1, pos 0)", tok))
	}
	if !at(k + 1).isP("(") {
		return 0, bad(k + 1)
	}
	n, err := strconv.Atoi(at(k + 2).text)
	if at(k+2).kind != tkNumber || err != nil || !(at(k+3).is("PERCENT") || at(k+3).is("ROWS")) || !at(k+4).isP(")") {
		return 0, newDorisErr(1105, "HY000", fmt.Sprintf("\nmismatched input '%s' expecting {INTEGER_VALUE}(line 1, pos 0)", at(k+2).text))
	}
	rows := at(k + 3).is("ROWS")
	end := k + 4
	seed := ""
	if at(end + 1).is("REPEATABLE") {
		if at(end+2).kind != tkNumber {
			return 0, bad(end + 2)
		}
		seed = at(end + 2).text
		end += 2
	}
	// The relation: chain [[AS] alias] right before TABLESAMPLE.
	j, alias := k-1, ""
	if at(j).isIdent() && !at(j-1).isP(".") && !at(j-1).is("FROM") && !at(j-1).is("JOIN") && !at(j-1).isP(",") {
		alias = at(j).ident()
		j--
		if at(j).is("AS") {
			j--
		}
	}
	if !at(j).isIdent() {
		return 0, bad(k)
	}
	s := j
	for s >= 2 && at(s-1).isP(".") && at(s-2).isIdent() {
		s -= 2
	}
	if alias == "" {
		alias = at(j).ident()
	}
	var rel strings.Builder
	for p := idx[s]; p <= idx[j]; p++ {
		rel.WriteString(all[p].text)
	}
	var body string
	if rows {
		body = fmt.Sprintf("(SELECT * FROM %s ORDER BY RAND(%s) LIMIT %d)", rel.String(), seed, max(n, 0))
	} else {
		body = fmt.Sprintf("(SELECT * FROM %s WHERE RAND(%s) < %s)", rel.String(), seed, strconv.FormatFloat(float64(n)/100, 'f', -1, 64))
	}
	all[idx[s]].text = body + " AS " + quoteIdent(alias)
	for p := idx[s] + 1; p <= idx[end]; p++ {
		all[p].text = ""
	}
	return end, nil
}
