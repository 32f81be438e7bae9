package sim

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	reCmdDenied  = regexp.MustCompile("^(\\w+) command denied to user '([^']*)'@'([^']*)' for table [`']([^`']*)[`'](?:\\.[`']([^`']*)[`'])?")
	reColDenied  = regexp.MustCompile(`^(\w+) command denied to user '([^']*)'@'([^']*)' for column '([^']*)' in table '([^']*)'`)
	reDBDenied   = regexp.MustCompile("^Access denied for user '([^']*)'@'([^']*)' to database '([^']*)'")
	reNoTable    = regexp.MustCompile("^Table '([^']*)' doesn't exist")
	reUnknownTbl = regexp.MustCompile("^Unknown table '([^']*)'")
	reUnknownDB  = regexp.MustCompile("^Unknown database '([^']*)'")
	reNear       = regexp.MustCompile(`(?s)near '(.*)' at line (\d+)\s*$`)
)

// privForCommand maps a MySQL command name to the Doris privilege.
func privForCommand(cmd string) string {
	switch strings.ToUpper(cmd) {
	case "SELECT", "SHOW":
		return "Select_priv"
	case "INSERT", "UPDATE", "DELETE":
		return "Load_priv"
	case "CREATE", "CREATE VIEW":
		return "Create_priv"
	case "DROP":
		return "Drop_priv"
	case "ALTER", "INDEX":
		return "Alter_priv"
	default:
		return "Admin_priv"
	}
}

// sendMappedErr sends an upstream error as Doris would phrase it. sql is the
// statement sent upstream, orig what the client sent (for error positions).
func (c *conn) sendMappedErr(pe *parsedErr, sql, orig string) error {
	return c.send(c.mapError(pe, sql, orig))
}

func (c *conn) mapError(pe *parsedErr, sql, orig string) *dorisErr {
	p := c.s.profile()
	db, _, _ := c.snapshot()
	switch pe.Code {
	case 1142: // command denied for table
		if m := reCmdDenied.FindStringSubmatch(pe.Msg); m != nil {
			tdb, tbl := m[4], m[5]
			if tbl == "" {
				tdb, tbl = db, m[4]
			}
			if strings.EqualFold(m[1], "SELECT") {
				return newDorisErr(1105, "HY000", fmt.Sprintf("Permission denied: user ['%s'@'%%'] does not have privilege for [priv predicate: OR, Admin_priv Select_priv ] command on [%s].[%s].[%s]",
					m[2], displayCatalog(tdb), c.displayDB(tdb), tbl))
			}
			return &dorisErr{1224, "42000", fmt.Sprintf("errCode = 2, detailMessage = Access denied; you need (at least one of) the (%s) privilege(s) on table %s.%s for this operation",
				privForCommand(m[1]), tdb, tbl)}
		}
	case 1143: // column denied
		if m := reColDenied.FindStringSubmatch(pe.Msg); m != nil {
			return newDorisErr(1105, "HY000", fmt.Sprintf("Permission denied: user ['%s'@'%%'] does not have privilege for [priv predicate: OR, Admin_priv Select_priv ] command on [internal].[%s].[%s].[%s]",
				m[2], db, m[5], m[4]))
		}
	case 1044:
		if m := reDBDenied.FindStringSubmatch(pe.Msg); m != nil {
			return &dorisErr{1044, "42000", fmt.Sprintf("errCode = 2, detailMessage = Access denied for user '%s'@'%%' to database '%s'", m[1], c.displayDB(m[3]))}
		}
	case 1227:
		return &dorisErr{1227, "42000", "errCode = 2, detailMessage = Access denied; you need (at least one of) the (Admin_priv) privilege(s) for this operation"}
	case 1049:
		if m := reUnknownDB.FindStringSubmatch(pe.Msg); m != nil {
			return &dorisErr{1049, "42000", fmt.Sprintf("errCode = 2, detailMessage = Unknown database '%s'", c.displayDB(m[1]))}
		}
	case 1146:
		if m := reNoTable.FindStringSubmatch(pe.Msg); m != nil {
			tdb, tbl := db, m[1]
			if i := strings.IndexByte(m[1], '.'); i >= 0 {
				tdb, tbl = m[1][:i], m[1][i+1:]
			}
			tbl = c.displayTable(tdb, tbl)
			if isQueryStatement(orig) {
				// What the Nereids planner's relation binding says.
				return newDorisErr(1105, "HY000", fmt.Sprintf("Table [%s] does not exist in database [%s].", tbl, c.displayDB(tdb)))
			}
			return &dorisErr{1051, "42S02", fmt.Sprintf("errCode = 2, detailMessage = Unknown table '%s'", tbl)}
		}
	case 1109, 1051:
		if m := reUnknownTbl.FindStringSubmatch(pe.Msg); m != nil {
			return &dorisErr{1051, "42S02", fmt.Sprintf("errCode = 2, detailMessage = Unknown table '%s'", m[1])}
		}
	case 1064:
		return newDorisErr(1105, "HY000", c.syntaxMessage(pe.Msg, sql, orig, p))
	case 1969:
		return &dorisErr{1105, "HY000", p.timeoutMessage()}
	case 1317:
		thread := uint32(0)
		if up := c.upstreamConn(); up != nil {
			thread = up.threadID
		}
		c.s.mu.Lock()
		from, ok := c.s.killers[thread]
		delete(c.s.killers, thread)
		c.s.mu.Unlock()
		if !ok {
			from = c.remote
		}
		return newDorisErr(1105, "HY000", "cancel query by user from "+from)
	case 1094:
		return &dorisErr{1094, "HY000", "errCode = 2, detailMessage = " + pe.Msg}
	case 1095:
		return &dorisErr{1095, "HY000", "errCode = 2, detailMessage = " + strings.Replace(pe.Msg, "You are not owner of thread", "You are not owner of thread or query:", 1)}
	case 1193:
		return &dorisErr{1193, "HY000", "errCode = 2, detailMessage = " + pe.Msg}
	case 1927, 1053:
		return newDorisErr(1105, "HY000", "connection was killed")
	}
	state := pe.State
	if state == "" {
		state = "HY000"
	}
	if strings.HasPrefix(pe.Msg, "errCode = ") {
		return &dorisErr{pe.Code, state, pe.Msg}
	}
	return &dorisErr{pe.Code, state, "errCode = 2, detailMessage = " + pe.Msg}
}

// displayTable maps simulator-owned tables back to their Doris names.
func (c *conn) displayTable(db, tbl string) string {
	if strings.EqualFold(db, simSchema) {
		if i := strings.IndexByte(tbl, '_'); i > 0 && strings.HasPrefix(tbl, "p") {
			return tbl[i+1:]
		}
	}
	return tbl
}

func (c *conn) displayDB(db string) string {
	if strings.EqualFold(db, simSchema) {
		return "information_schema"
	}
	if _, d, ok := splitBacking(db); ok {
		return d // a database of an external catalog
	}
	return db
}

// displayCatalog is the catalog a database belongs to.
func displayCatalog(db string) string {
	if cat, _, ok := splitBacking(db); ok {
		return cat
	}
	return "internal"
}

// isQueryStatement reports a SELECT / WITH / EXPLAIN / parenthesised query.
func isQueryStatement(sql string) bool {
	ts := sig(lex(sql))
	if len(ts) == 0 {
		return false
	}
	return ts[0].is("SELECT") || ts[0].is("WITH") || ts[0].is("EXPLAIN") || ts[0].isP("(") ||
		(len(ts) > 1 && (ts[0].is("DESC") || ts[0].is("DESCRIBE")) && (ts[1].is("SELECT") || ts[1].is("WITH")))
}

// syntaxMessage renders MariaDB's syntax error the way Nereids does:
// "mismatched input 'X' expecting {...}(line L, pos P)".
func (c *conn) syntaxMessage(msg, sql, orig string, p profile) string {
	prefix := ""
	if p.atLeast("3.0") {
		prefix = "\n"
	}
	m := reNear.FindStringSubmatch(msg)
	if m == nil {
		return prefix + "mismatched input '<EOF>' expecting {<EOF>, ';'}(line 1, pos 0)"
	}
	near := m[1]
	text := orig
	idx := -1
	if near != "" {
		if idx = strings.Index(orig, near); idx < 0 {
			if idx = strings.Index(sql, near); idx >= 0 {
				text = sql
			}
		}
	}
	if near == "" || idx < 0 {
		text = strings.TrimRight(orig, " \t\r\n;")
		idx = len(text)
	}
	line := 1 + strings.Count(text[:idx], "\n")
	pos := idx - (strings.LastIndexByte(text[:idx], '\n') + 1)
	tok := "<EOF>"
	for _, t := range lex(near) {
		if t.kind != tkSpace && t.kind != tkComment {
			tok = t.text
			break
		}
	}
	expecting := "{<EOF>, ';'}"
	if tok == "<EOF>" {
		expecting = "{'(', 'SELECT', 'VALUES', 'WITH', IDENTIFIER}"
	}
	return fmt.Sprintf("%smismatched input '%s' expecting %s(line %d, pos %d)", prefix, tok, expecting, line, pos)
}
