package sim

import (
	"regexp"
	"strconv"
	"strings"
)

// simSchema is the upstream schema the simulator owns: Doris-only
// information_schema tables and per-version audit-log views live there, with
// a "pNN_" family prefix (p21_, p30_, p40_).
const simSchema = "__doris_sim"

// infoTables lists the Doris-only information_schema tables of a family.
func (p profile) infoTables() map[string]bool {
	m := map[string]bool{
		"active_queries": true, "backend_active_tasks": true, "workload_groups": true,
		"workload_group_privileges": true, "file_cache_statistics": true, "processlist": true,
		"backend_configuration": true, "table_options": true, "metadata_name_ids": true,
		"workload_policy": true,
	}
	if p.atLeast("4.0") {
		m["be_compaction_tasks"] = true
	}
	return m
}

// auditTarget is the upstream relation that stands for the audit log.
func (p profile) auditTarget() string {
	if p.family == "3.0" {
		return "" // the real table already has the 3.0 column set
	}
	return quoteIdent(simSchema) + "." + quoteIdent(p.prefix()+"audit_log")
}

// auditRef is what a reference to the audit log becomes: the derived
// table in queries (so the audit log's own grant decides who reads it),
// the view where a table name is needed (SHOW, DESC).
func auditRef(p profile, nameNeeded bool) string {
	if nameNeeded {
		return p.auditTarget()
	}
	return p.auditSource()
}

// clauseWords end a table reference (so a following word is not an alias).
var clauseWords = map[string]bool{
	"WHERE": true, "GROUP": true, "ORDER": true, "LIMIT": true, "HAVING": true, "JOIN": true, "INNER": true,
	"LEFT": true, "RIGHT": true, "CROSS": true, "NATURAL": true, "STRAIGHT_JOIN": true, "FULL": true,
	"OUTER": true, "ON": true, "USING": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "WINDOW": true,
	"FOR": true, "LOCK": true, "INTO": true, "PROCEDURE": true, "SET": true, "PARTITION": true, "USE": true,
	"IGNORE": true, "FORCE": true, "LATERAL": true, "RETURNING": true, "TABLESAMPLE": true, "OFFSET": true,
	"MINUS": true,
}

type rewritten struct {
	sql     string
	timeout int // seconds from a SET_VAR(query_timeout=...) hint; 0 = none
	// variantType: the result carries VARIANT_TYPE() values to finish
	// (relayVariantTypes).
	variantType bool
}

var reSetVar = regexp.MustCompile(`(?i)SET_VAR\s*\(([^)]*)\)`)

// rewrite applies the Doris -> MariaDB translations to a statement that will
// be forwarded upstream.
func (c *conn) rewrite(sql string) (rewritten, *dorisErr) {
	sql, variantType, derr := c.lakeRewrite(sql)
	if derr != nil {
		return rewritten{}, derr
	}
	p := c.s.profile()
	db, _, _ := c.snapshot()
	all := lex(sql)
	res := rewritten{variantType: variantType}

	// SET_VAR hint right after the leading SELECT.
	firstSig := -1
	for i, t := range all {
		if t.kind != tkSpace && t.kind != tkComment {
			firstSig = i
			break
		}
	}
	if firstSig >= 0 && all[firstSig].is("SELECT") {
		for i := firstSig + 1; i < len(all); i++ {
			t := all[i]
			if t.kind == tkSpace {
				continue
			}
			if t.kind != tkComment {
				break
			}
			if strings.HasPrefix(t.text, "/*+") {
				if m := reSetVar.FindStringSubmatch(t.text); m != nil {
					for _, kv := range strings.Split(m[1], ",") {
						k, v, ok := strings.Cut(kv, "=")
						if !ok {
							continue
						}
						k = strings.ToLower(strings.TrimSpace(k))
						v = strings.Trim(strings.TrimSpace(v), `'"`)
						n, err := strconv.Atoi(v)
						if err != nil {
							continue
						}
						switch k {
						case "query_timeout":
							res.timeout = n
						case "max_execution_time":
							res.timeout = max(1, (n+999)/1000)
						}
					}
					all[i].text = " "
				}
			}
		}
	}

	// Pass 1: drop the internal catalog from qualified names.
	s := sig(all)
	lead := ""
	if len(s) > 0 {
		lead = strings.ToUpper(s[0].text)
	}
	drop := map[int]bool{} // indexes into all
	idx := sigIndexes(all)
	for k := 0; k < len(idx); k++ {
		t := all[idx[k]]
		if !t.isIdent() || (k > 0 && all[idx[k-1]].isP(".")) {
			continue
		}
		n := chainLen(all, idx, k)
		if n < 2 {
			continue
		}
		prev := token{}
		if k > 0 {
			prev = all[idx[k-1]]
		}
		tableCtx := prev.is("FROM") || prev.is("JOIN")
		internal := strings.EqualFold(t.ident(), "internal")
		if internal && (n >= 3 || (lead == "SHOW" && (prev.is("FROM") || prev.is("IN"))) || prev.is("USE")) {
			for j := idx[k]; j < idx[k+2]; j++ {
				drop[j] = true
			}
			continue
		}
		if !internal && n == 3 && tableCtx {
			return res, c.catalogError(t.ident())
		}
	}
	var kept []token
	for i, t := range all {
		if !drop[i] {
			kept = append(kept, t)
		}
	}
	all = kept
	idx = sigIndexes(all)
	infoTabs := p.infoTables()
	noAlias := lead == "SHOW" || lead == "DESC" || lead == "DESCRIBE"
	simTable := func(name string) string {
		if !noAlias {
			if d := c.liveTable(strings.ToLower(name)); d != "" {
				return d // live.go
			}
		}
		return quoteIdent(simSchema) + "." + quoteIdent(p.prefix()+strings.ToLower(name))
	}
	// addAlias appends " AS name" after a replaced table reference when the
	// query did not alias it, so qualified column references keep working.
	addAlias := func(k int, last int, name string) {
		if noAlias {
			return
		}
		if last+1 < len(idx) {
			nt := all[idx[last+1]]
			if nt.is("AS") || (nt.isIdent() && !clauseWords[strings.ToUpper(nt.text)]) {
				return
			}
		}
		all[idx[last]].text += " AS " + quoteIdent(name)
	}
	blank := func(from, to int) { // sig positions, inclusive
		for j := idx[from] + 1; j <= idx[to]; j++ {
			all[j].text = ""
		}
	}
	for k := 0; k < len(idx); k++ {
		t := all[idx[k]]
		prevDot := k > 0 && all[idx[k-1]].isP(".")
		next := func(d int) token {
			if k+d < len(idx) {
				return all[idx[k+d]]
			}
			return token{}
		}
		switch {
		case t.isIdent() && !prevDot && strings.EqualFold(t.ident(), "information_schema") && next(1).isP(".") &&
			next(2).isIdent() && infoTabs[strings.ToLower(next(2).ident())]:
			name := strings.ToLower(next(2).ident())
			all[idx[k]].text = simTable(name)
			blank(k, k+2)
			addAlias(k, k+2, name)
			k += 2
		case t.isIdent() && !prevDot && strings.EqualFold(t.ident(), "__internal_schema") && next(1).isP(".") &&
			next(2).isIdent() && strings.EqualFold(next(2).ident(), "audit_log") && p.auditTarget() != "":
			all[idx[k]].text = auditRef(p, noAlias)
			blank(k, k+2)
			addAlias(k, k+2, "audit_log")
			k += 2
		case t.isIdent() && !prevDot && !next(1).isP(".") && k > 0 && (all[idx[k-1]].is("FROM") || all[idx[k-1]].is("JOIN")) &&
			strings.EqualFold(db, "information_schema") && infoTabs[strings.ToLower(t.ident())]:
			name := strings.ToLower(t.ident())
			all[idx[k]].text = simTable(name)
			addAlias(k, k, name)
		case t.isIdent() && !prevDot && !next(1).isP(".") && k > 0 && (all[idx[k-1]].is("FROM") || all[idx[k-1]].is("JOIN")) &&
			strings.EqualFold(db, "__internal_schema") && strings.EqualFold(t.ident(), "audit_log") && p.auditTarget() != "":
			all[idx[k]].text = auditRef(p, noAlias)
			addAlias(k, k, "audit_log")
		case t.kind == tkVar && strings.HasPrefix(t.text, "@@"):
			if lit, ok := c.variableLiteral(t.text); ok {
				all[idx[k]].text = lit + c.selectAlias(all, idx, k, k, t.text)
			}
		case t.is("version") && !prevDot && next(1).isP("(") && next(2).isP(")"):
			all[idx[k]].text = "'" + serverVersion + "'" + c.selectAlias(all, idx, k, k+2, "version()")
			blank(k, k+2)
			k += 2
		case t.isIdent() && !prevDot && next(1).isP("(") && k > 0 && (all[idx[k-1]].is("FROM") || all[idx[k-1]].is("JOIN")):
			end := k + 1
			for end < len(idx) && !all[idx[end]].isP(")") {
				end++
			}
			var args []token
			for j := k + 2; j < end && j < len(idx); j++ {
				args = append(args, all[idx[j]])
			}
			d, derr := c.tableFunction(t.ident(), args)
			if derr != nil {
				return res, derr
			}
			if d != "" && end < len(idx) {
				all[idx[k]].text = d
				blank(k, end)
				addAlias(k, end, strings.ToLower(t.ident()))
				k = end
			}
		case t.is("ndv") && !prevDot && next(1).isP("("):
			all[idx[k]].text = "COUNT"
			all[idx[k+1]].text = "(DISTINCT "
			k++
		case t.is("TABLESAMPLE") && k > 0:
			end, derr := rewriteSample(all, idx, k)
			if derr != nil {
				return res, derr
			}
			k = end
		}
	}
	res.sql = join(all)
	if needsSemanticTranslation(res.sql) {
		res.sql = translateSemantic(res.sql) // translate_semantic.go
	}
	return res, nil
}

// selectAlias returns " AS `name`" when tokens k..last form a whole select
// item at nesting depth 0 without an alias of its own.
func (c *conn) selectAlias(all []token, idx []int, k, last int, name string) string {
	depth := 0
	for j := 0; j < k; j++ {
		switch {
		case all[idx[j]].isP("("):
			depth++
		case all[idx[j]].isP(")"):
			depth--
		}
	}
	if depth != 0 || k == 0 {
		return ""
	}
	prev := all[idx[k-1]]
	if !prev.is("SELECT") && !prev.isP(",") && !prev.is("DISTINCT") {
		return ""
	}
	if last+1 < len(idx) {
		nt := all[idx[last+1]]
		if !(nt.isP(",") || nt.is("FROM") || nt.is("LIMIT") || nt.is("INTO") || nt.is("WHERE") || nt.is("UNION") || nt.isP(";")) {
			return ""
		}
	}
	return " AS " + quoteIdent(name)
}

// variableLiteral answers Doris system variables that MariaDB lacks or
// reports differently.
func (c *conn) variableLiteral(v string) (string, bool) {
	name := strings.ToLower(strings.TrimPrefix(v, "@@"))
	for _, pre := range []string{"session.", "global.", "local."} {
		name = strings.TrimPrefix(name, pre)
	}
	name = strings.Trim(name, "`")
	val, ok := c.variable(name)
	if !ok {
		return "", false
	}
	if _, err := strconv.ParseInt(val, 10, 64); err == nil {
		return val, true
	}
	return quoteString(val), true
}

// variable returns the Doris value of a variable the simulator owns.
func (c *conn) variable(name string) (string, bool) {
	switch name {
	case "version_comment":
		return c.s.versionComment(), true
	case "version":
		return serverVersion, true
	case "query_timeout":
		return strconv.Itoa(c.queryTimeout), true
	case "max_execution_time":
		return strconv.Itoa(c.queryTimeout * 1000), true
	case "enable_profile":
		if c.profileOn {
			return "true", true
		}
		return "false", true
	case "session_context":
		_, _, tr := c.snapshot()
		if tr == "" {
			return "", true
		}
		return "trace_id:" + tr, true
	}
	if def, ok := persistentGlobals[name]; ok {
		return c.s.globalValue(name, def), true // metadata.go
	}
	if v, ok := c.vars[name]; ok {
		return v, true
	}
	if v, ok := dorisVariables[name]; ok {
		return v, true
	}
	return "", false
}

func sigIndexes(all []token) []int {
	var idx []int
	for i, t := range all {
		if t.kind != tkSpace && t.kind != tkComment {
			idx = append(idx, i)
		}
	}
	// ignore trailing semicolons
	for len(idx) > 0 && all[idx[len(idx)-1]].isP(";") {
		idx = idx[:len(idx)-1]
	}
	return idx
}

// chainLen counts the parts of a dotted name starting at sig position k.
func chainLen(all []token, idx []int, k int) int {
	n := 1
	for k+2 < len(idx) && all[idx[k+1]].isP(".") && (all[idx[k+2]].isIdent() || all[idx[k+2]].isP("*")) {
		n++
		k += 2
	}
	return n
}

// catalogError is what a reference to a catalog other than internal gets
// where the simulator cannot follow it: the catalog's own failure (the
// unreachable hive metastore), or that the catalog is unknown.
func (c *conn) catalogError(name string) *dorisErr {
	if cat := c.extCatalogOf(name); cat != nil {
		if derr := cat.usable(); derr != nil {
			return derr
		}
		return newDorisErr(1105, "HY000", "This operation is not supported for external catalog "+name)
	}
	return newDorisErr(1105, "HY000", "Unknown catalog '"+name+"'")
}

// hiveUnreachable is the error of the simulated external hive catalog,
// whose metastore is never reachable.
const hiveUnreachable = "Failed to get database list of catalog hive: Could not connect to meta store using any of the URIs provided. Most recent failure: org.apache.thrift.transport.TTransportException: java.net.ConnectException: Connection refused (Connection refused)"
