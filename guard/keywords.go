package guard

// kw describes what an upper-cased word means to the guard: flags in the
// low 16 bits and, for the words the checker looks for by name, a wordID in
// the high 16 bits.
type kw uint32

const (
	// kwWrite: the word can start a statement that changes something.
	kwWrite kw = 1 << iota
	// kwReserved: a Doris reserved word (a lexer keyword missing from
	// nonReserved in DorisParser.g4), so it can never be a bare column or
	// table name and is refused anywhere in a query.
	kwReserved
	// kwStmtOnly: not a Doris keyword or a rare one; judged only where a
	// statement could start.
	kwStmtOnly
	// kwSideEffect: a function with side effects when called.
	kwSideEffect
	// kwCont: may follow a column or alias inside an expression, so a
	// non-reserved write verb followed by it is an identifier.
	kwCont
	// kwSetOp: UNION, INTERSECT, EXCEPT, MINUS.
	kwSetOp
	// kwPlanType and kwLevel: EXPLAIN options (explain rule of DorisParser.g4).
	kwPlanType
	kwLevel
)

// wordID names a word the checker looks for.
type wordID uint16

const (
	idNone wordID = iota
	idSelect
	idWith
	idShow
	idDesc
	idDescribe
	idExplain
	idInto
	idFor
	idLock
	idIn
	idUpdate
	idShare
	idAll
	idDistinct
	idAs
	idRecursive
	idPlan
	idDump
	idProcess
	idValues
	idHelp
	idFrom
	idJoin
	idWhere
	idGroup
	idHaving
	idOrder
	idLimit
	idQualify
	idWindow
	idLateral
	idView
	idFunction
	idWarnings
	idOn
)

func (k kw) id() wordID { return wordID(k >> 16) }

func withID(id wordID, f kw) kw { return kw(id)<<16 | f }

// maxKeywordLen bounds the words looked up; longer words are identifiers.
const maxKeywordLen = 32

// keyword classifies an upper-case ASCII word. It must not retain up.
func keyword(up string) kw {
	switch up {
	case "SELECT":
		return withID(idSelect, 0)
	case "WITH":
		return withID(idWith, kwCont)
	case "SHOW":
		return withID(idShow, 0)
	case "DESC":
		return withID(idDesc, kwCont)
	case "DESCRIBE":
		return withID(idDescribe, 0)
	case "EXPLAIN":
		return withID(idExplain, 0)
	case "INTO":
		return withID(idInto, 0)
	case "FOR":
		return withID(idFor, kwCont)
	case "LOCK":
		return withID(idLock, kwWrite)
	case "IN":
		return withID(idIn, kwCont)
	case "UPDATE":
		return withID(idUpdate, kwWrite|kwReserved)
	case "SHARE":
		return withID(idShare, 0)
	case "ALL":
		return withID(idAll, kwPlanType)
	case "DISTINCT":
		return withID(idDistinct, kwCont)
	case "AS":
		return withID(idAs, kwCont)
	case "RECURSIVE":
		return withID(idRecursive, 0)
	case "PLAN":
		return withID(idPlan, kwWrite|kwLevel)
	case "DUMP":
		return withID(idDump, 0)
	case "PROCESS":
		return withID(idProcess, 0)
	case "VALUES":
		return withID(idValues, 0)
	case "HELP":
		return withID(idHelp, 0)
	case "VIEW":
		return withID(idView, 0)
	case "FUNCTION":
		return withID(idFunction, 0)
	case "WARNINGS":
		return withID(idWarnings, 0)

	// Clause words the egress policy follows (check.go, rules).
	case "FROM":
		return withID(idFrom, kwCont)
	case "JOIN":
		return withID(idJoin, kwCont)
	case "WHERE":
		return withID(idWhere, kwCont)
	case "GROUP":
		return withID(idGroup, kwCont)
	case "HAVING":
		return withID(idHaving, kwCont)
	case "ORDER":
		return withID(idOrder, kwCont)
	case "LIMIT":
		return withID(idLimit, kwCont)
	case "QUALIFY":
		return withID(idQualify, kwCont)
	case "WINDOW":
		return withID(idWindow, kwCont)
	case "LATERAL":
		return withID(idLateral, kwCont)
	case "ON":
		return withID(idOn, kwCont)

	// Reserved write verbs (never a bare identifier in Doris).
	case "DELETE", "CREATE", "DROP", "ALTER", "GRANT", "REVOKE",
		"SET", "USE", "SWITCH", "KILL", "LOAD", "EXPORT", "ANALYZE", "ADMIN",
		"INSTALL", "UNINSTALL", "CLEAN", "SYNC", "PREPARE", "EXECUTE",
		"RENAME", "RELEASE", "REPAIR":
		return kwWrite | kwReserved

	// Non-reserved write verbs: judged by what follows (writeFollower).
	case "INSERT", "MERGE", "REPLACE", "UPSERT", "TRUNCATE", "UNLOCK",
		"COPY", "CANCEL", "PAUSE", "RESUME", "STOP", "RECOVER", "REFRESH",
		"RESTORE", "BACKUP", "WARM", "OPTIMIZE", "BUILD", "START",
		"BEGIN", "COMMIT", "ROLLBACK", "UNSET", "DEALLOCATE", "IMPORT",
		"PURGE", "CALL", "HANDLER":
		return kwWrite

	// Statement verbs of MySQL or Doris that are judged only where a
	// statement could start.
	case "DO", "SAVEPOINT", "FLUSH", "RESET", "VACUUM", "SHUTDOWN",
		"EXEC", "GET", "CHECKSUM", "CHECK", "CACHE":
		return kwWrite | kwStmtOnly

	case "SLEEP", "BENCHMARK", "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS",
		"IS_FREE_LOCK", "IS_USED_LOCK", "LOAD_FILE", "MASTER_POS_WAIT",
		"SOURCE_POS_WAIT", "MASTER_GTID_WAIT", "WAIT_FOR_EXECUTED_GTID_SET":
		return kwSideEffect

	case "UNION", "INTERSECT", "EXCEPT", "MINUS":
		return kwSetOp | kwCont

	case "PARSED", "ANALYZED", "REWRITTEN", "LOGICAL", "OPTIMIZED",
		"PHYSICAL", "SHAPE", "MEMO", "DISTRIBUTED":
		return kwPlanType
	case "VERBOSE", "TREE", "GRAPH":
		return kwLevel

	case "OFFSET", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL", "ASOF",
		"SEMI", "ANTI", "USING", "AND", "OR", "XOR", "NOT", "IS",
		"LIKE", "RLIKE", "REGEXP", "BETWEEN", "DIV", "MOD", "ASC",
		"NULLS", "COLLATE", "MATCH", "MATCH_ANY", "MATCH_ALL", "MATCH_PHRASE",
		"MATCH_PHRASE_PREFIX", "MATCH_PHRASE_EDGE", "MATCH_REGEXP", "OVER",
		"THEN", "WHEN", "ELSE", "END", "PRECEDING", "FOLLOWING",
		"SEPARATOR", "ESCAPE", "TABLESAMPLE",
		"PARTITION", "PARTITIONS", "TABLET", "TEMPORARY", "INDEX",
		"ROWS", "RANGE", "SOUNDS":
		return kwCont
	}
	return 0
}

// writeFollower reports whether the upper-case word next, following the
// non-reserved write verb verb, makes verb the start of a statement (for
// example INSERT INTO, WARM UP, PLAN REPLAYER). Words not listed leave verb
// an identifier, so a column called "plan" or "copy" still works.
func writeFollower(verb, next string) bool {
	switch verb {
	case "INSERT":
		return oneOf(next, "INTO", "OVERWRITE", "IGNORE", "LOW_PRIORITY", "HIGH_PRIORITY", "DELAYED")
	case "REPLACE":
		return oneOf(next, "INTO", "LOW_PRIORITY", "DELAYED")
	case "MERGE", "UPSERT", "COPY":
		return next == "INTO"
	case "TRUNCATE", "OPTIMIZE", "IMPORT":
		return next == "TABLE"
	case "LOCK", "UNLOCK":
		return next == "TABLES" || next == "TABLE"
	case "CANCEL":
		return oneOf(next, "LOAD", "EXPORT", "ALTER", "BACKUP", "RESTORE", "BUILD",
			"WARM", "DECOMMISSION", "MATERIALIZED", "TASK", "REPAIR", "REBALANCE", "QUERY")
	case "PAUSE", "RESUME":
		return oneOf(next, "ROUTINE", "ALL", "JOB", "MATERIALIZED", "SYNC")
	case "STOP":
		return oneOf(next, "ROUTINE", "SYNC")
	case "RECOVER":
		return oneOf(next, "DATABASE", "TABLE", "PARTITION")
	case "REFRESH":
		return oneOf(next, "CATALOG", "DATABASE", "TABLE", "DICTIONARY", "LDAP", "MATERIALIZED")
	case "RESTORE", "BACKUP":
		return oneOf(next, "SNAPSHOT", "GLOBAL", "TABLE")
	case "WARM":
		return next == "UP"
	case "BUILD":
		return next == "INDEX"
	case "PLAN":
		return next == "REPLAYER"
	case "START", "BEGIN":
		return next == "TRANSACTION" || next == "WORK"
	case "COMMIT", "ROLLBACK":
		return oneOf(next, "WORK", "AND", "TO")
	case "UNSET":
		return oneOf(next, "VARIABLE", "GLOBAL", "SESSION", "LOCAL", "DEFAULT")
	case "DEALLOCATE":
		return next == "PREPARE"
	case "PURGE":
		return next == "BINARY" || next == "MASTER"
	}
	return false
}

func oneOf(s string, list ...string) bool {
	for _, l := range list {
		if s == l {
			return true
		}
	}
	return false
}

// ambiguousLetter reports whether r is one of the four non-ASCII letters
// whose case mapping lands on ASCII: U+0131 ı and U+017F ſ upper-case to I
// and S (the Nereids lexer upper-cases every character it looks at, so
// "ſelect" is SELECT there), U+212A KELVIN SIGN lower-cases to k (the legacy
// lexer looks keywords up in lower case), and U+0130 İ lower-cases to i.
func ambiguousLetter(r rune) bool {
	return r == 0x0130 || r == 0x0131 || r == 0x017F || r == 0x212A
}
