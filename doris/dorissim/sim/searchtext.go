package sim

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Full-text search: the analyzers of Doris's inverted indexes, the MATCH
// predicates and TOKENIZE.
//
// MATCH_ANY / MATCH_ALL / MATCH_PHRASE / MATCH_PHRASE_PREFIX are rewritten
// into REGEXP predicates MariaDB evaluates over the column itself, with
// token boundaries that reproduce the index's parser (PCRE lookarounds). The
// alternative, a token side table maintained on every write, would have to
// follow every write path (INSERT, UPDATE, DELETE, stream load, direct
// seeding of MariaDB) and answer from stale tokens when one was missed; the
// rewrite reads the data as it is at query time, so what MATCH returns is
// always computed from the rows themselves.
//
// The analyzers:
//   - english: runs of ASCII letters and digits (Doris's SimpleAnalyzer);
//   - unicode, standard (and icu, basic on 4.0): runs of letters and
//     digits, with each Han or Hiragana character a token of its own (a
//     simplification of Unicode text segmentation: apostrophes and dots
//     split words);
//   - chinese (and ik on 4.0): the text outside CJK runs as unicode; CJK
//     runs segmented by forward maximum matching over a small built-in
//     dictionary for TOKENIZE and for MATCH queries, while data is matched
//     by the query word appearing inside a CJK run (an approximation of
//     jieba, which can over-match where jieba would cut differently);
//   - none (no parser): the whole value is one token, compared exactly.
//
// Tokens are lower-cased unless "lower_case" = "false", and Lucene's
// English stop words are dropped unless "stopwords" = "none"; a dropped
// stop word still takes a position, so "doris and search" does not match
// the phrase "doris search", and a stop word inside a phrase query stands
// for any one token, as in Lucene.

// analyzer is an inverted index's (or TOKENIZE's) text analysis.
type analyzer struct {
	parser    string // none, english, unicode, chinese
	lower     bool
	stopwords bool
}

// analyzerFor reads the analysis of index or TOKENIZE properties.
func analyzerFor(props map[string]string) analyzer {
	p := strings.ToLower(props["parser"])
	if p == "" {
		p = strings.ToLower(props["built_in_analyzer"])
	}
	switch p {
	case "":
		p = "none"
	case "standard", "icu", "basic":
		p = "unicode"
	case "ik":
		p = "chinese"
	}
	return analyzer{parser: p, lower: props["lower_case"] != "false", stopwords: props["stopwords"] != "none"}
}

// stopWords are Lucene's English stop words (standard95::stop_words).
var stopWords = map[string]bool{"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"but": true, "by": true, "for": true, "if": true, "in": true, "into": true, "is": true, "it": true, "no": true,
	"not": true, "of": true, "on": true, "or": true, "such": true, "that": true, "the": true, "their": true,
	"then": true, "there": true, "these": true, "they": true, "this": true, "to": true, "was": true, "will": true,
	"with": true}

// chineseWords is the segmentation dictionary of the chinese parser.
var chineseWords = map[string]bool{"我": true, "来到": true, "北京": true, "清华": true, "大学": true, "清华大学": true,
	"上海": true, "中国": true, "数据": true, "数据库": true, "仓库": true, "数据仓库": true, "搜索": true, "全文": true,
	"检索": true, "全文检索": true, "向量": true, "分析": true, "实时": true, "查询": true, "索引": true, "倒排": true,
	"倒排索引": true, "引擎": true, "性能": true, "用户": true, "日志": true}

const maxChineseWord = 4

// atom is one analysed token.
type atom struct {
	text string
	pos  int
	han  bool // a CJK token (no word boundary around it)
	stop bool // a stop word: takes a position, matches nothing
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) }

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// analyze splits s into tokens with positions (stop words included and
// marked).
func (a analyzer) analyze(s string) []atom {
	if a.parser == "none" {
		if s == "" {
			return nil
		}
		return []atom{{text: s}}
	}
	var out []atom
	emit := func(t string, han bool) {
		if a.lower {
			t = strings.ToLower(t)
		}
		out = append(out, atom{text: t, pos: len(out), han: han, stop: a.stopwords && !han && stopWords[strings.ToLower(t)]})
	}
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			emit(word.String(), false)
			word.Reset()
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case a.parser == "english":
			if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				word.WriteRune(r)
				continue
			}
			flush()
		case isHan(r):
			flush()
			if a.parser == "chinese" && unicode.Is(unicode.Han, r) {
				n := 1
				for l := min(maxChineseWord, len(rs)-i); l > 1; l-- {
					if chineseWords[string(rs[i:i+l])] {
						n = l
						break
					}
				}
				emit(string(rs[i:i+n]), true)
				i += n - 1
				continue
			}
			emit(string(r), true)
		case isWordRune(r):
			word.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// terms returns the searchable tokens (stop words left out).
func (a analyzer) terms(s string) []atom {
	var out []atom
	for _, t := range a.analyze(s) {
		if !t.stop {
			out = append(out, t)
		}
	}
	return out
}

// Regular expression pieces of a parser, in PCRE as MariaDB runs it.
func (a analyzer) wordClass() (in, notIn string) {
	if a.parser == "english" {
		if a.lower {
			return "[a-z0-9]", "[^a-z0-9]"
		}
		return "[A-Za-z0-9]", "[^A-Za-z0-9]"
	}
	return `(?:(?![\p{Han}\p{Hiragana}])[\p{L}\p{N}\p{Mn}])`, `[^\p{L}\p{N}\p{Mn}]`
}

// tokenRE matches one token t at token boundaries; prefix leaves its end
// open (a prefix query).
func (a analyzer) tokenRE(t atom, prefix bool) string {
	in, _ := a.wordClass()
	q := regexp.QuoteMeta(t.text)
	if t.han {
		return q
	}
	if prefix {
		return "(?<!" + in + ")" + q
	}
	return "(?<!" + in + ")" + q + "(?!" + in + ")"
}

// phraseRE matches the query tokens at consecutive positions; a stop word
// in the query stands for any one token.
func (a analyzer) phraseRE(query []atom, prefix bool) string {
	in, notIn := a.wordClass()
	var b strings.Builder
	for k, t := range query {
		if k > 0 {
			if t.han || query[k-1].han {
				b.WriteString(notIn + "*")
			} else {
				b.WriteString(notIn + "+")
			}
		}
		last := k == len(query)-1
		switch {
		case t.stop:
			b.WriteString(in + "+")
		case t.han:
			b.WriteString(regexp.QuoteMeta(t.text))
		default:
			if k == 0 {
				b.WriteString("(?<!" + in + ")")
			}
			b.WriteString(regexp.QuoteMeta(t.text))
			if last && !prefix {
				b.WriteString("(?!" + in + ")")
			}
		}
	}
	return b.String()
}

// matchSQL renders "col MATCH_x 'query'" for MariaDB. col is the column
// reference as written in the statement.
func (a analyzer) matchSQL(op, col, query string) string {
	if a.parser == "none" {
		switch op {
		case "MATCH_PHRASE_PREFIX":
			esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(query)
			return "(" + col + " LIKE BINARY " + quoteString(esc+"%") + ")"
		default:
			return "(" + col + " = BINARY " + quoteString(query) + ")"
		}
	}
	subject := col
	if a.lower {
		subject = "LOWER(" + col + ")"
	}
	re := func(r string) string { return subject + " REGEXP " + quoteString("(?-i)"+r) }
	all := a.analyze(query)
	terms := a.terms(query)
	if len(terms) == 0 {
		return "(" + col + " IS NOT NULL AND FALSE)"
	}
	switch op {
	case "MATCH_ALL":
		parts := make([]string, len(terms))
		for k, t := range terms {
			parts[k] = re(a.tokenRE(t, false))
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	case "MATCH_PHRASE", "MATCH_PHRASE_PREFIX":
		// Leading and trailing stop words take no part in the phrase.
		for len(all) > 0 && all[0].stop {
			all = all[1:]
		}
		for len(all) > 0 && all[len(all)-1].stop {
			all = all[:len(all)-1]
		}
		return "(" + re(a.phraseRE(all, op == "MATCH_PHRASE_PREFIX")) + ")"
	}
	parts := make([]string, len(terms))
	for k, t := range terms {
		parts[k] = a.tokenRE(t, false)
	}
	return "(" + re("(?:"+strings.Join(parts, "|")+")") + ")"
}

// matchOps are the MATCH predicates (MATCH alone is MATCH_ANY).
var matchOps = map[string]string{"MATCH": "MATCH_ANY", "MATCH_ANY": "MATCH_ANY", "MATCH_ALL": "MATCH_ALL",
	"MATCH_PHRASE": "MATCH_PHRASE", "MATCH_PHRASE_PREFIX": "MATCH_PHRASE_PREFIX"}

// rewriteMatch replaces the MATCH predicate at significant position k (the
// operator) in all/idx. It returns the position to continue from.
func (c *conn) rewriteMatch(all []token, idx []int, k int, refs map[string]qname, plan bool) (int, *dorisErr) {
	op := matchOps[strings.ToUpper(all[idx[k]].text)]
	// Left operand: [[db.]table.]column directly before the operator.
	start := k - 1
	if start < 0 || !all[idx[start]].isIdent() {
		return k, c.matchOperandErr(all, idx, k)
	}
	for start >= 2 && all[idx[start-1]].isP(".") && all[idx[start-2]].isIdent() {
		start -= 2
	}
	if k+1 >= len(idx) || (all[idx[k+1]].kind != tkString && !all[idx[k+1]].is("NULL")) {
		return k, c.matchOperandErr(all, idx, k)
	}
	var chain []string
	for j := start; j < k; j += 2 {
		chain = append(chain, all[idx[j]].ident())
	}
	column := chain[len(chain)-1]
	colText := ""
	for j := start; j < k; j++ {
		colText += all[idx[j]].text
	}
	var cands []qname
	cur, _, _ := c.snapshot()
	switch len(chain) {
	case 1:
		seen := map[qname]bool{}
		for _, q := range refs {
			if !seen[q] {
				seen[q] = true
				cands = append(cands, q)
			}
		}
	case 2:
		if q, ok := refs[strings.ToLower(chain[0])]; ok {
			cands = []qname{q}
		}
	default:
		cands = []qname{{db: chain[len(chain)-3], table: chain[len(chain)-2]}}
	}
	var ix searchIndex
	found := false
	for _, q := range cands {
		db := q.db
		if db == "" {
			db = cur
		}
		if ix, found = c.invertedIndexOn(db, q.table, column); found {
			break
		}
	}
	if !found && plan {
		ix.props = map[string]string{"parser": "english"} // only planned, never run
	} else if !found {
		return k, newDorisErr(1105, "HY000", "(127.0.0.1)[INVERTED_INDEX_NOT_SUPPORTED]"+strings.ToLower(op)+" not support execute_match")
	}
	an := analyzerFor(ix.props)
	if (op == "MATCH_PHRASE" || op == "MATCH_PHRASE_PREFIX") && an.parser != "none" && ix.props["support_phrase"] != "true" {
		// Every release refuses a phrase on an index without positions; the
		// BE's error code was renamed in 4.0 (INVERTED_INDEX_INVALID_PARAMETERS
		// before, INDEX_INVALID_PARAMETERS after).
		code := "INVERTED_INDEX_INVALID_PARAMETERS"
		if c.s.profile().atLeast("4.0") {
			code = "INDEX_INVALID_PARAMETERS"
		}
		return k, newDorisErr(1105, "HY000", "(127.0.0.1)["+code+"]phrase queries require setting support_phrase = true")
	}
	rep := "NULL"
	if lit := all[idx[k+1]]; lit.kind == tkString {
		rep = an.matchSQL(op, colText, lit.str())
	}
	all[idx[start]].text = rep
	for j := idx[start] + 1; j <= idx[k+1]; j++ {
		all[j].text = ""
	}
	return k + 1, nil
}

func (c *conn) matchOperandErr(all []token, idx []int, k int) *dorisErr {
	from, to := max(0, k-1), min(len(idx)-1, k+1)
	var parts []string
	for j := from; j <= to; j++ {
		parts = append(parts, all[idx[j]].text)
	}
	return newDorisErr(1105, "HY000", "Only support match left operand is SlotRef, right operand is Literal. But meet expression "+
		strings.Join(parts, " "))
}

// tokenizeSQL evaluates TOKENIZE('text', 'properties') into a string
// literal in this release's output format: a string array up to 3.x,
// token objects (with positions when "support_phrase" = "true") from 4.0.
func (c *conn) tokenizeSQL(text, propText string) (string, *dorisErr) {
	props := parseTokenizeProps(propText)
	p := c.s.profile()
	if _, ok := props["built_in_analyzer"]; ok && !p.atLeast("4.0") {
		delete(props, "built_in_analyzer")
	}
	if name, ok := props["analyzer"]; ok {
		if !p.atLeast("4.0") {
			delete(props, "analyzer")
		} else {
			return "", newDorisErr(1105, "HY000", "(127.0.0.1)[INVERTED_INDEX_ANALYZER_ERROR]analyzer "+name+" does not exist")
		}
	}
	parser := strings.ToLower(props["parser"] + props["built_in_analyzer"])
	valid := parser == ""
	for _, v := range p.validParsers() {
		valid = valid || parser == v
	}
	if !valid {
		return "", newDorisErr(1105, "HY000", "(127.0.0.1)[INVERTED_INDEX_ANALYZER_ERROR]inverted index create analyzer failed: unknown parser type "+parser)
	}
	if parser == "" {
		props["parser"] = "english" // TOKENIZE's analyzer when none is named
	}
	a := analyzerFor(props)
	toks := a.terms(text)
	if !p.atLeast("4.0") {
		parts := make([]string, len(toks))
		for k, t := range toks {
			b, _ := json.Marshal(t.text)
			parts[k] = string(b)
		}
		return quoteString("[" + strings.Join(parts, ", ") + "]"), nil
	}
	parts := make([]string, len(toks))
	for k, t := range toks {
		b, _ := json.Marshal(t.text)
		if props["support_phrase"] == "true" {
			parts[k] = fmt.Sprintf(`{ "token": %s, "position": %d }`, b, t.pos)
		} else {
			parts[k] = fmt.Sprintf(`{ "token": %s }`, b)
		}
	}
	return quoteString("[" + strings.Join(parts, ", ") + "]"), nil
}

var reTokenizeProp = regexp.MustCompile(`(?:'([^']*)'|"([^"]*)"|([^, =]*))\s*=\s*(?:'([^']*)'|"([^"]*)"|([^, ]*))`)

// parseTokenizeProps reads "k"="v", 'k'='v' or k=v pairs, as Doris's
// TOKENIZE does.
func parseTokenizeProps(s string) map[string]string {
	out := map[string]string{}
	for _, m := range reTokenizeProp.FindAllStringSubmatch(s, -1) {
		k := m[1] + m[2] + m[3]
		if k != "" {
			out[strings.ToLower(k)] = m[4] + m[5] + m[6]
		}
	}
	return out
}

// showAnalyzers answers SHOW INVERTED INDEX ANALYZER (3.1 and later, ADMIN
// only). The simulator has no custom analyzers, and only custom ones are
// listed.
func (c *conn) showAnalyzers(sql string) error {
	if !c.s.profile().atLeast("4.0") {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("%smismatched input 'INVERTED' expecting {'ALL', 'BACKENDS', 'CATALOGS', 'CREATE', 'DATABASES', 'FRONTENDS', 'INDEX', 'TABLES', 'VARIABLES'}(line 1, pos %d)",
			map[bool]string{true: "\n"}[c.s.profile().atLeast("3.0")], strings.Index(strings.ToUpper(sql), "INVERTED"))))
	}
	if !c.admin {
		return c.send(adminDenied())
	}
	return c.sendResult([]string{"id", "name", "type", "properties"}, nil)
}
