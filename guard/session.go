package guard

import (
	"strconv"
	"strings"
)

// SessionControl reports whether sql is exactly one of the fixed session
// statements that the Doris access layer itself sends at the connection
// boundary:
//
//	SET query_timeout = <positive integer>
//	SET sql_select_limit = <positive integer>
//	SET enable_profile = true | false
//	SET session_context = "trace_id:<lower-case UUID v4 or W3C trace id>"
//	USE `<name>`
//	USE `<catalog>`.`<name>`
//	SWITCH `<name>`
//	KILL QUERY <positive integer>
//
// Keywords and variable names match without regard to ASCII case and any
// whitespace may separate tokens; comments, a trailing semicolon and
// anything else make it false. Names in backquotes are 1 to 256 bytes with
// no backquote or control character. These statements are built from
// templates by the server, never from client text; client SQL goes through
// Check, which refuses all of them.
func SessionControl(sql string) bool {
	if len(sql) > 4096 {
		return false
	}
	var toks [8]Token
	s := scanner{src: sql}
	n := 0
	for {
		t, err := s.next()
		if err != nil || t.Kind == TokComment || t.Kind == TokHint {
			return false
		}
		if t.Kind == tokEOF {
			break
		}
		if n == len(toks) {
			return false
		}
		toks[n] = t
		n++
	}
	ts := toks[:n]
	word := func(i int, w string) bool {
		return i < len(ts) && ts[i].Kind == TokWord && strings.EqualFold(ts[i].Text, w)
	}
	switch {
	case word(0, "SET"):
		if len(ts) != 4 || ts[1].Kind != TokWord || !ts[2].is("=") {
			return false
		}
		v := ts[3]
		switch strings.ToLower(ts[1].Text) {
		case "query_timeout", "sql_select_limit":
			return positiveInt(v)
		case "enable_profile":
			return word(3, "true") || word(3, "false")
		case "session_context":
			return v.Kind == TokString && v.Text[0] == '"' && traceID(v.Text[1:len(v.Text)-1])
		}
		return false
	case word(0, "USE"):
		switch len(ts) {
		case 2:
			return safeName(ts[1])
		case 4:
			return safeName(ts[1]) && ts[2].is(".") && safeName(ts[3])
		}
		return false
	case word(0, "SWITCH"):
		return len(ts) == 2 && safeName(ts[1])
	case word(0, "KILL"):
		return len(ts) == 3 && word(1, "QUERY") && (positiveInt(ts[2]) || dorisQueryID(ts[2]))
	}
	return false
}

// dorisQueryID reports whether t is a string literal holding a Doris
// query id ("<hex>-<hex>", at most 16 digits each): KILL QUERY "<id>"
// stops a statement that runs on no MySQL connection of the server's own
// (an Arrow Flight SQL statement).
func dorisQueryID(t Token) bool {
	if t.Kind != TokString || len(t.Text) < 5 || t.Text[0] != '"' && t.Text[0] != '\'' {
		return false
	}
	hi, lo, ok := strings.Cut(t.Text[1:len(t.Text)-1], "-")
	hex := func(s string) bool {
		if len(s) == 0 || len(s) > 16 {
			return false
		}
		for i := 0; i < len(s); i++ {
			if c := s[i]; !isDigit(c) && (c < 'a' || c > 'f') {
				return false
			}
		}
		return true
	}
	return ok && hex(hi) && hex(lo)
}

// positiveInt reports whether t is a plain integer literal from 1 to 2^63-1
// with no leading zero.
func positiveInt(t Token) bool {
	if t.Kind != TokNumber || t.Text[0] == '0' {
		return false
	}
	for i := 0; i < len(t.Text); i++ {
		if !isDigit(t.Text[i]) {
			return false
		}
	}
	_, err := strconv.ParseInt(t.Text, 10, 64)
	return err == nil
}

// safeName reports whether t is a backquoted name of 1 to 256 bytes with no
// backquote or control character inside.
func safeName(t Token) bool {
	if t.Kind != TokQuoted {
		return false
	}
	name := t.Text[1 : len(t.Text)-1]
	if len(name) == 0 || len(name) > 256 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '`' || c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// traceID reports whether s is "trace_id:" followed by a lower-case UUID
// version 4 (8-4-4-4-12 hex digits, version nibble 4, variant 8, 9, a or b)
// or by a W3C trace id (32 lower-case hex digits, not all zero): the
// trace id of the MCP call the statement belongs to.
func traceID(s string) bool {
	const prefix = "trace_id:"
	if !strings.HasPrefix(s, prefix) {
		return false
	}
	u := s[len(prefix):]
	if len(u) == 32 {
		return w3cTraceID(u)
	}
	if len(u) != 36 {
		return false
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
			continue
		case 14:
			if c != '4' {
				return false
			}
		case 19:
			if c != '8' && c != '9' && c != 'a' && c != 'b' {
				return false
			}
		}
		if !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// w3cTraceID reports whether s is 32 lower-case hex digits, not all zero.
func w3cTraceID(s string) bool {
	zero := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && (c < 'a' || c > 'f') {
			return false
		}
		zero = zero && c == '0'
	}
	return len(s) == 32 && !zero
}
