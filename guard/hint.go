package guard

import "strings"

// Hints are parsed, not pattern-matched. DorisParser.g4 (branch-2.1 to
// master) reads a hint comment as
//
//	selectHint:     hintStatement (COMMA? hintStatement)* HINT_END
//	hintStatement:  hintName (LEFT_PAREN hintAssignment (COMMA? hintAssignment)* RIGHT_PAREN)?
//	              | (USE_MV | NO_USE_MV) (LEFT_PAREN multipartIdentifier (COMMA multipartIdentifier)* RIGHT_PAREN)?
//	hintAssignment: identifierOrText skewHint? (EQ (constant | identifier))? | constant
//	distributeType: HINT_START identifier skewHint? HINT_END      (JOIN /*+ shuffle */ t)
//	relationHint:   HINT_START identifier (COMMA identifier)* HINT_END
//
// and the names LogicalPlanBuilder acts on are those of
// nereids/properties/SelectHint*.java and nereids/hint/*.java. The guard
// accepts the ones that only steer the planner: join order (leading,
// ordered), join distribution (shuffle, broadcast), rewrite rules
// (use_cbo_rule, no_use_cbo_rule), materialized views (use_mv, no_use_mv),
// indexes (use_index, no_use_index), query block names (qb_name),
// uniqueness the optimizer may assume (unique_keys) and pre-aggregation
// (preaggopen). SET_VAR sets session variables for the statement: it can
// raise query_timeout or exec_mem_limit, switch the compute group or turn
// off the checks a read-only account relies on, so it stays refused,
// however it is spelt. Any other name is refused as unknown.
//
// Since Doris 3.0 the lexer reads "/*+ … */" as a nested bracketed comment
// and hands its text to the hint parser; Doris 2.x reads HINT_START and
// lexes the inside as code up to the first "*/". The guard accepts only
// hint text that both read alike: no comment, no unclosed string and no
// "*/" inside, every token a plain identifier, string, number or one of
// the punctuation marks of the grammar above.

// hintKind classifies a hint name (lower case).
func hintKind(name string) (planner bool) {
	switch name {
	case "leading", "ordered", "shuffle", "broadcast",
		"use_cbo_rule", "no_use_cbo_rule", "use_mv", "no_use_mv",
		"use_index", "no_use_index", "qb_name", "unique_keys", "preaggopen":
		return true
	}
	return false
}

// checkHint judges one /*+ … */ token.
func checkHint(t Token) *Error {
	body := t.Text[3 : len(t.Text)-2]
	base := t.Pos + 3
	bad := func(pos int, msg string) *Error {
		return newError(pos, ReasonClientHint, msg)
	}
	var toks []Token
	s := scanner{src: body}
	for {
		ht, err := s.next()
		if err != nil {
			return bad(base+err.Pos, "hint text that Doris's lexers would read differently")
		}
		if ht.Kind == tokEOF {
			break
		}
		ht.Pos += base
		switch ht.Kind {
		case TokComment, TokHint:
			return bad(ht.Pos, "comment inside a hint is read differently by Doris's lexers")
		case TokParam:
			return bad(ht.Pos, "placeholder inside a hint")
		case TokWord:
			if err := checkWord(ht); err != nil {
				return err
			}
		case TokString:
			if err := checkString(ht); err != nil {
				return err
			}
		case TokNumber:
			if strings.IndexByte(ht.Text, '.') >= 0 && isASCIILetter(ht.Text[len(ht.Text)-1]) {
				return newError(ht.Pos, ReasonAmbiguousNumber, "decimal with a letter suffix is split differently by Doris's lexers")
			}
		case TokPunct:
			switch ht.Text {
			case ",", ".", "=", "(", ")", "{", "}", "[", "]", "-", "*": // "*": no_use_mv(t1.*)
			default:
				return bad(ht.Pos, "punctuation that no hint of Doris's grammar takes")
			}
		}
		if n := len(toks); n > 0 {
			p := toks[n-1]
			if p.end() == ht.Pos && (p.Kind == TokNumber && (ht.Kind == TokWord || ht.Kind == TokNumber || ht.is(".")) ||
				p.is(".") && ht.Kind == TokWord && isDigit(ht.Text[0])) {
				return newError(p.Pos, ReasonAmbiguousNumber, "number glued to a word or dot is split differently by Doris's lexers")
			}
		}
		toks = append(toks, ht)
	}
	if len(toks) == 0 {
		return bad(t.Pos, "empty hint")
	}
	for i := 0; i < len(toks); {
		nt := toks[i]
		if nt.Kind != TokWord || !ValidFunctionName(nt.Text) {
			return bad(nt.Pos, "a hint must start with a hint name")
		}
		name := strings.ToLower(nt.Text)
		switch {
		case name == "set_var":
			e := bad(nt.Pos, "SET_VAR hints set session variables (timeouts, memory limits, the compute group) and are not allowed")
			e.Name = name
			return e
		case !hintKind(name):
			e := newError(nt.Pos, ReasonUnknownHint, "hint "+name+" is not a planner-only hint of Doris's grammar")
			e.Name = name
			return e
		}
		i++
		for _, open := range [2]string{"[", "("} { // skew hint, then arguments
			if i >= len(toks) || !toks[i].is(open) {
				continue
			}
			end := skipGroup(toks, i)
			if end < 0 {
				return bad(toks[i].Pos, "hint arguments are not closed")
			}
			i = end
		}
		if i < len(toks) && toks[i].is(",") {
			i++
		}
	}
	return nil
}

// skipGroup returns the index just past the bracket or parenthesis group
// that opens at toks[i], or -1 when it is not closed. Brackets and
// parentheses nest within each other.
func skipGroup(toks []Token, i int) int {
	depth := 0
	for ; i < len(toks); i++ {
		switch {
		case toks[i].is("("), toks[i].is("["):
			depth++
		case toks[i].is(")"), toks[i].is("]"):
			depth--
		}
		if depth == 0 {
			return i + 1
		}
	}
	return -1
}
