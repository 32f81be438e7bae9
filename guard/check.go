package guard

import (
	"strconv"
	"unicode/utf8"
)

// MaxLen is the longest SQL text Check accepts, in bytes.
const MaxLen = 1 << 20

// Kind of an accepted statement.
type Kind int

// Statement kinds. The zero Kind is not a valid kind.
const (
	Select   Kind = iota + 1 // SELECT, WITH … SELECT, ( … ), set operations
	Show                     // SHOW …
	Describe                 // DESC / DESCRIBE of a table or table function
	Explain                  // EXPLAIN, DESC or DESCRIBE of a query
	Help                     // HELP topic
)

func (k Kind) String() string {
	switch k {
	case Select:
		return "Select"
	case Show:
		return "Show"
	case Describe:
		return "Describe"
	case Explain:
		return "Explain"
	case Help:
		return "Help"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Statement describes an accepted statement.
type Statement struct {
	// SQL is the text that was checked: what Check was given, or what
	// Bind produced. It is the text to send to Doris.
	SQL  string
	Kind Kind
	// Keyword is the first keyword in upper case: SELECT, WITH, VALUES,
	// SHOW, DESC, DESCRIBE, EXPLAIN, HELP, or "(" for a parenthesised query.
	Keyword string
	// Params lists the named placeholders %(name)s in order of appearance;
	// a name appears once per use.
	Params []string
}

// Check reports whether sql is exactly one read-only statement that Doris
// reads the same way under every lexer it may use, and that reads only what
// Doris holds in its catalogs (the egress policy, egress.go, with no
// function allowed). It is the one entry point for every SQL path of the
// server; Policy.Check is the same with functions an operator allowed. A
// refusal is an *Error.
func Check(sql string) (*Statement, error) {
	st, err := checkPolicy(sql, nil)
	if err != nil {
		return nil, err
	}
	return st, nil
}

func checkPolicy(sql string, p *Policy) (*Statement, *Error) {
	if len(sql) > MaxLen {
		return nil, newError(MaxLen, ReasonTooLong, "SQL text is longer than 1 MiB")
	}
	c := checker{sc: scanner{src: sql}, policy: p}
	st, err := c.run()
	if err != nil {
		return nil, err
	}
	st.SQL = sql
	return st, nil
}

// family selects the rule set applied to the body of a statement.
type family int

const (
	queryFamily family = iota // SELECT and EXPLAIN targets: strict
	showFamily                // SHOW and DESCRIBE: write verbs are words there
)

// cteState follows the WITH list of a top-level query:
// WITH [RECURSIVE] name [(cols)] AS ( … ) [, …] main.
type cteState int

const (
	cteOff cteState = iota
	cteName
	cteAfterName
	cteCols
	cteAS
	cteOpen
	cteBody
	cteAfterBody
	cteDone
)

// checker walks the code tokens of one input once, with a look-ahead of up
// to three tokens. Refusals found while filling the look-ahead are queued as
// tokErr tokens so that they are reported in input order. Each word is
// classified once, when it enters the look-ahead.
type checker struct {
	sc      scanner
	q       [4]item
	head, n int
	stopped bool

	prev      Token // previous code token; Kind tokEOF at the start
	prevKw    kw
	stmtStart bool // a (sub)statement may start at the current token
	semi      bool // the statement's ';' has been seen
	depth     int  // parenthesis depth
	cte       cteState
	cteDepth  int // depth at which the current CTE item started
	params    []string

	// The egress policy's view of where a function call stands
	// (rules): bit d of selAt is set once a SELECT was seen at depth d,
	// of fromAt while the FROM clause of that SELECT lasts (depths 0..63;
	// deeper, calls are judged as expressions). relNext: the current token
	// stands where a relation may start (after FROM, JOIN, a comma or "("
	// in a FROM clause, or DESCRIBE FUNCTION); genNext: after LATERAL VIEW.
	policy           *Policy
	kind             Kind
	selAt, fromAt    uint64
	relNext, genNext bool
}

type item struct {
	t   Token
	err *Error
	k   kw
}

const ringMask = 3 // len(checker.q) - 1

// at returns the k-th item ahead (0 is the current one), filling the ring.
func (c *checker) at(k int) *item {
	for c.n <= k {
		it := &c.q[(c.head+c.n)&ringMask]
		it.t, it.err = c.pull()
		it.k = 0
		if it.t.Kind == TokWord {
			it.k = classify(it.t.Text)
		}
		c.n++
	}
	return &c.q[(c.head+k)&ringMask]
}

func (c *checker) peek(k int) Token     { return c.at(k).t }
func (c *checker) peekKw(k int) kw      { return c.at(k).k }
func (c *checker) peekErr(k int) *Error { return c.at(k).err }

func (c *checker) advance() {
	c.at(0)
	c.head = (c.head + 1) & ringMask
	c.n--
}

// setPrev records t, the current token, as the previous one.
func (c *checker) setPrev(t Token) {
	c.prev, c.prevKw = t, c.peekKw(0)
}

// pull returns the next code token, judging the comments it skips.
func (c *checker) pull() (Token, *Error) {
	if c.stopped {
		return Token{Kind: tokEOF, Pos: len(c.sc.src)}, nil
	}
	for {
		t, err := c.sc.next()
		if err == nil && t.Kind == TokHint {
			err = checkHint(t)
			if err == nil {
				continue
			}
		}
		if err == nil && t.Kind == TokComment {
			err = checkComment(t)
			if err == nil {
				continue
			}
		}
		if err != nil {
			c.stopped = true
			return Token{Kind: tokErr, Pos: err.Pos}, err
		}
		return t, nil
	}
}

func (c *checker) run() (*Statement, *Error) {
	first := c.peek(0)
	switch {
	case first.Kind == tokErr:
		return nil, c.peekErr(0)
	case first.Kind == tokEOF:
		return nil, newError(0, ReasonEmptyStatement, "no SQL statement (only whitespace or comments)")
	case first.is(";"):
		// Empty statements around the one statement, as singleStatement
		// (SEMICOLON* statement? SEMICOLON*) reads them.
		semi := first
		for first.is(";") {
			c.advance()
			first = c.peek(0)
		}
		switch first.Kind {
		case tokErr:
			return nil, c.peekErr(0)
		case tokEOF:
			return nil, newError(semi.Pos, ReasonEmptyStatement, "no SQL statement (only semicolons)")
		}
	}
	if err := c.checkToken(first); err != nil {
		return nil, err
	}

	st := &Statement{}
	fam := queryFamily
	c.stmtStart = true
	id := c.peekKw(0).id()
	switch {
	case first.is("("):
		st.Kind, st.Keyword = Select, "("
	case id == idSelect:
		st.Kind, st.Keyword = Select, "SELECT"
	case id == idWith:
		st.Kind, st.Keyword = Select, "WITH"
	case id == idValues:
		st.Kind, st.Keyword = Select, "VALUES"
	case id == idHelp:
		st.Kind, st.Keyword = Help, "HELP"
		if err := c.help(first); err != nil {
			return nil, err
		}
		return st, nil
	case id == idShow:
		st.Kind, st.Keyword = Show, "SHOW"
		fam = showFamily
		c.stmtStart = false
		c.setPrev(first)
		c.advance()
		if t := c.peek(0); t.Kind == tokEOF || t.is(";") {
			return nil, newError(first.Pos, ReasonNotAllowed, "SHOW needs something to show")
		}
	case id == idExplain || id == idDesc || id == idDescribe:
		var err *Error
		fam, err = c.explain(st, first, id)
		if err != nil {
			return nil, err
		}
	case first.Kind == TokWord && c.peekKw(0)&kwWrite != 0:
		return nil, newError(first.Pos, ReasonWriteStatement, "statement can change data or state; only SELECT, SHOW, DESCRIBE and EXPLAIN are allowed")
	default:
		return nil, newError(first.Pos, ReasonNotAllowed, "only SELECT, WITH, SHOW, DESCRIBE and EXPLAIN statements are allowed")
	}
	if fam == queryFamily && c.peekKw(0).id() == idWith {
		c.cte = cteName
	}
	c.kind = st.Kind
	if err := c.body(fam); err != nil {
		return nil, err
	}
	st.Params = c.params
	return st, nil
}

// explain consumes EXPLAIN, DESC or DESCRIBE and the explain options, and
// leaves the current token at the target. It sets st and returns the rule
// family for the rest of the statement.
func (c *checker) explain(st *Statement, cmd Token, id wordID) (family, *Error) {
	switch id {
	case idExplain:
		st.Keyword = "EXPLAIN"
	case idDesc:
		st.Keyword = "DESC"
	default:
		st.Keyword = "DESCRIBE"
	}
	c.setPrev(cmd)
	c.advance()
	consumed := 0
	// explain: explainCommand planType? level=(VERBOSE|TREE|GRAPH|PLAN|DUMP)? PROCESS?
	stage := 0
	for {
		t := c.peek(0)
		if t.Kind != TokWord {
			break
		}
		k := c.peekKw(0)
		switch {
		case stage == 0 && k&kwPlanType != 0:
			stage = 1
		case stage <= 1 && k&kwLevel != 0:
			stage = 2
		case stage <= 1 && k.id() == idDump:
			return 0, newError(t.Pos, ReasonExplainTarget, "EXPLAIN DUMP writes a plan dump and is not allowed")
		case stage <= 2 && k.id() == idProcess:
			stage = 3
		default:
			stage = 4
		}
		if stage == 4 {
			break
		}
		if err := c.checkToken(t); err != nil {
			return 0, err
		}
		if err := c.checkAdjacent(t); err != nil {
			return 0, err
		}
		consumed++
		c.setPrev(t)
		c.advance()
	}
	t := c.peek(0)
	if t.Kind == tokErr {
		return 0, c.peekErr(0)
	}
	if tid := c.peekKw(0).id(); t.is("(") || tid == idSelect || tid == idWith || tid == idValues && c.peek(1).is("(") {
		st.Kind = Explain
		c.prev, c.prevKw = Token{Kind: tokEOF}, 0
		c.stmtStart = true
		return queryFamily, nil
	}
	if t.Kind == TokWord && c.writeAt(t, true) {
		return 0, newError(t.Pos, ReasonWriteStatement, "EXPLAIN or DESCRIBE of a statement that changes data is not allowed")
	}
	if id == idExplain {
		return 0, newError(t.Pos, ReasonExplainTarget, "EXPLAIN target must be a query (SELECT, WITH, VALUES or a parenthesised query)")
	}
	if t.Kind == tokEOF || t.is(";") {
		if consumed == 0 {
			return 0, newError(cmd.Pos, ReasonExplainTarget, "DESCRIBE needs a table or a query")
		}
		// DESC memo: the option word was a table name.
		st.Kind = Describe
		return showFamily, nil
	}
	if consumed > 0 {
		return 0, newError(t.Pos, ReasonExplainTarget, "EXPLAIN target must be a query (SELECT, WITH or a parenthesised query)")
	}
	st.Kind = Describe
	c.stmtStart = false
	return showFamily, nil
}

// writeAt reports whether the word t starts a statement that changes
// something, given what follows it. stmtPos says whether a statement may
// start at t.
func (c *checker) writeAt(t Token, stmtPos bool) bool {
	f := c.peekKw(0)
	if f&kwWrite == 0 {
		return false
	}
	n1 := c.peek(1)
	if n1.is("(") {
		return false // a function call: replace(…), insert(…), truncate(…)
	}
	if f&kwReserved != 0 {
		return true
	}
	if f&kwStmtOnly == 0 && n1.Kind == TokWord && isWriteFollower(t.Text, n1.Text) {
		return true
	}
	if !stmtPos {
		return false
	}
	switch n1.Kind {
	case TokWord:
		return c.peekKw(1)&kwCont == 0
	case TokQuoted, TokString, TokNumber, TokParam:
		return true
	}
	return n1.is("@") || n1.is("@@")
}

// body applies the statement rules to every remaining code token.
func (c *checker) body(fam family) *Error {
	for {
		t := c.peek(0)
		switch t.Kind {
		case tokErr:
			return c.peekErr(0)
		case tokEOF:
			return c.finish(t)
		}
		if c.semi {
			if t.is(";") {
				c.advance() // an empty statement after the one statement
				continue
			}
			return newError(t.Pos, ReasonMultipleStatements, "only one statement is allowed")
		}
		if err := c.checkToken(t); err != nil {
			return err
		}
		if err := c.checkAdjacent(t); err != nil {
			return err
		}
		if err := c.rules(t, fam); err != nil {
			return err
		}
		if c.cte != cteOff && c.cte != cteDone {
			if err := c.stepCTE(t); err != nil {
				return err
			}
		}
		c.setPrev(t)
		c.advance()
	}
}

func (c *checker) finish(eof Token) *Error {
	if c.cte != cteOff && c.cte != cteDone {
		return newError(eof.Pos, ReasonMalformedWith, "WITH clause has no main query")
	}
	return nil
}

// rules applies the context rules to the code token t.
func (c *checker) rules(t Token, fam family) *Error {
	stmtPos := c.stmtStart
	c.stmtStart = false
	rel, gen := c.relNext, c.genNext
	c.relNext, c.genNext = false, false
	switch t.Kind {
	case TokPunct:
		switch t.Text {
		case "(":
			b := depthBit(c.depth + 1)
			c.selAt &^= b
			c.fromAt &^= b
			if rel { // FROM (t1 JOIN t2), FROM (SELECT …)
				c.fromAt |= b
				c.relNext = true
			}
			c.depth++
			c.stmtStart = true
		case ")":
			c.depth--
		case ",":
			if c.fromAt&depthBit(c.depth) != 0 {
				c.relNext = true
			}
		case ".":
			c.relNext = rel // a qualified name: catalog.db.fn(…) is judged as fn
		case ";":
			c.semi = true
		case ":":
			if n := c.peek(1); n.Kind == TokPunct && n.Text[0] == '=' {
				return newError(t.Pos, ReasonAssignment, "assignment (:=) is not allowed")
			}
		}
	case TokQuoted:
		if rel && c.peek(1).is(".") {
			c.relNext = true
		}
		if c.peek(1).is("(") {
			if len(t.Text) > 2 && classify(t.Text[1:len(t.Text)-1])&kwSideEffect != 0 {
				return newError(t.Pos, ReasonSideEffectFunction, "function with side effects is not allowed")
			}
			if err := c.call(t, rel, gen); err != nil {
				return err
			}
		}
	case TokWord:
		f := c.peekKw(0)
		if rel && c.peek(1).is(".") {
			c.relNext = true
		}
		if c.peek(1).is("(") {
			if err := c.call(t, rel, gen); err != nil {
				return err
			}
		}
		if err := c.clause(t, f); err != nil {
			return err
		}
		switch {
		case f&kwSideEffect != 0:
			if c.peek(1).is("(") {
				return newError(t.Pos, ReasonSideEffectFunction, "function with side effects is not allowed")
			}
		case f.id() == idInto:
			return newError(t.Pos, ReasonIntoOutfile, "SELECT … INTO (OUTFILE, DUMPFILE or variables) is not allowed")
		case f.id() == idFor:
			if n := c.peekKw(1).id(); n == idUpdate || n == idShare {
				return newError(t.Pos, ReasonLockingRead, "locking reads (FOR UPDATE, FOR SHARE) are not allowed")
			}
		case f.id() == idLock:
			if c.peekKw(1).id() == idIn {
				return newError(t.Pos, ReasonLockingRead, "locking reads (LOCK IN SHARE MODE) are not allowed")
			}
		}
		if f&kwWrite != 0 {
			write := false
			if fam == queryFamily {
				write = c.writeAt(t, stmtPos)
			} else if stmtPos {
				write = c.writeAt(t, true)
			}
			if write {
				return newError(t.Pos, ReasonWriteStatement, "statement can change data or state; only SELECT, SHOW, DESCRIBE and EXPLAIN are allowed")
			}
		}
		if f&kwSetOp != 0 {
			c.stmtStart = true
		} else if stmtPos && c.prevKw&kwSetOp != 0 && (f.id() == idAll || f.id() == idDistinct) {
			c.stmtStart = true
		}
	}
	return nil
}

// depthBit is the bit of parenthesis depth d in checker.selAt and fromAt,
// or 0 for depths the checker does not follow.
func depthBit(d int) uint64 {
	if d < 0 || d >= 64 {
		return 0
	}
	return 1 << uint(d)
}

// clause follows the clause structure the egress policy needs: where a
// FROM clause starts and ends, where a relation may start, LATERAL VIEW,
// DESCRIBE FUNCTION, and SHOW LOAD WARNINGS ON 'url'.
func (c *checker) clause(t Token, f kw) *Error {
	b := depthBit(c.depth)
	switch f.id() {
	case idSelect:
		c.selAt |= b
		c.fromAt &^= b
	case idFrom:
		// The first FROM of a SELECT at this depth, not IS DISTINCT FROM,
		// and not the FROM of EXTRACT(… FROM …) or TRIM(… FROM …), which
		// have no SELECT at their depth.
		if c.selAt&b != 0 && c.prevKw.id() != idDistinct {
			c.selAt &^= b
			c.fromAt |= b
			c.relNext = true
		}
	case idJoin:
		c.relNext = true
	case idWhere, idGroup, idHaving, idOrder, idLimit, idQualify, idWindow, idValues:
		c.fromAt &^= b
	case idView:
		if c.prevKw.id() == idLateral {
			c.genNext = true
		}
	case idFunction:
		if c.kind == Describe && c.depth == 0 && (c.prevKw.id() == idDesc || c.prevKw.id() == idDescribe) {
			c.relNext = true // DESC FUNCTION tvf(…)
		}
	case idOn:
		if c.kind == Show && c.prevKw.id() == idWarnings {
			return newError(t.Pos, ReasonExternalLocation,
				"SHOW LOAD WARNINGS ON a URL makes Doris fetch that URL; refused by the egress policy")
		}
	}
	if f&kwSetOp != 0 {
		c.fromAt &^= b
	}
	return nil
}

// call applies the egress policy to the function call whose name is t (a
// word or a backquoted identifier followed by "("). rel says that it
// stands where a relation may start, so it is a table-valued function;
// gen that it follows LATERAL VIEW.
func (c *checker) call(t Token, rel, gen bool) *Error {
	name := lowerName(t)
	switch {
	case rel:
		if t.Kind == TokWord {
			switch id := c.peekKw(0).id(); {
			case name == "unnest", id == idSelect, id == idWith, id == idValues, id == idLateral:
				return nil // FROM UNNEST(…), FROM (VALUES (…)), FROM (SELECT (1))
			}
		}
		internal, kind := tableFunction(name)
		if internal || c.policy.allows(name) {
			return nil
		}
		return egressError(t, name, true, kind)
	case gen:
		if generator(name) || c.policy.allows(name) {
			return nil
		}
		return egressError(t, name, true, scalarEgress(name))
	}
	if kind := scalarEgress(name); kind != egressNone && !c.policy.allows(name) {
		return egressError(t, name, false, kind)
	}
	return nil
}

// help checks HELP topic: one identifier or string, then only empty
// statements.
func (c *checker) help(cmd Token) *Error {
	c.setPrev(cmd)
	c.advance()
	t := c.peek(0)
	switch t.Kind {
	case tokErr:
		return c.peekErr(0)
	case TokWord, TokQuoted, TokString:
	default:
		return newError(cmd.Pos, ReasonNotAllowed, "HELP needs one topic, a name or a string")
	}
	if err := c.checkToken(t); err != nil {
		return err
	}
	if err := c.checkAdjacent(t); err != nil {
		return err
	}
	c.setPrev(t)
	c.advance()
	for {
		t := c.peek(0)
		switch {
		case t.Kind == tokErr:
			return c.peekErr(0)
		case t.Kind == tokEOF:
			return nil
		case !t.is(";"):
			return newError(t.Pos, ReasonMultipleStatements, "HELP takes one topic; only one statement is allowed")
		}
		c.advance()
	}
}

// stepCTE follows WITH [RECURSIVE] name [(cols)] AS ( … ) [, …] at the top
// level and checks that the main query is a SELECT or a parenthesised query.
func (c *checker) stepCTE(t Token) *Error {
	bad := func() *Error {
		return newError(t.Pos, ReasonMalformedWith, "WITH clause is not name AS ( query ), … followed by a query")
	}
	switch c.cte {
	case cteName:
		switch {
		case c.peekKw(0).id() == idWith && c.prev.Kind == tokEOF:
			// the WITH keyword itself
		case c.peekKw(0).id() == idRecursive && c.prevKw.id() == idWith:
		case t.Kind == TokWord && c.peekKw(0)&kwReserved == 0, t.Kind == TokQuoted:
			c.cte = cteAfterName
		default:
			return bad()
		}
	case cteAfterName:
		switch {
		case t.is("("):
			c.cte, c.cteDepth = cteCols, c.depth-1
		case c.peekKw(0).id() == idAs:
			c.cte = cteOpen
		default:
			return bad()
		}
	case cteCols:
		if t.is(")") && c.depth == c.cteDepth {
			c.cte = cteAS
		}
	case cteAS:
		if c.peekKw(0).id() != idAs {
			return bad()
		}
		c.cte = cteOpen
	case cteOpen:
		if !t.is("(") {
			return bad()
		}
		c.cte, c.cteDepth = cteBody, c.depth-1
	case cteBody:
		if t.is(")") && c.depth == c.cteDepth {
			c.cte = cteAfterBody
		}
	case cteAfterBody:
		switch {
		case t.is(","):
			c.cte = cteName
		case t.is("(") || c.peekKw(0).id() == idSelect:
			c.cte = cteDone
		default:
			return bad()
		}
	}
	return nil
}

// isWriteFollower is writeFollower on words of any ASCII case.
func isWriteFollower(verb, next string) bool {
	var vb, nb [maxKeywordLen]byte
	v, ok := upperInto(&vb, verb)
	if !ok {
		return false
	}
	n, ok := upperInto(&nb, next)
	if !ok {
		return false
	}
	return writeFollower(string(v), string(n))
}

// upperInto copies the ASCII word w into buf in upper case. It fails for
// longer or non-ASCII words, which are never keywords.
func upperInto(buf *[maxKeywordLen]byte, w string) ([]byte, bool) {
	if len(w) > maxKeywordLen {
		return nil, false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return nil, false
		}
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(w)], true
}

// classify returns the keyword flags of an ASCII word of at most
// maxKeywordLen bytes, compared without regard to ASCII case.
func classify(w string) kw {
	var buf [maxKeywordLen]byte
	up, ok := upperInto(&buf, w)
	if !ok {
		return 0
	}
	return keyword(string(up))
}
