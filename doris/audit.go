package doris

import (
	"strings"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// AuditTable is Doris's audit log (FE global enable_audit_plugin=true).
const AuditTable = "internal.__internal_schema.audit_log"

// MaskLiterals replaces the contents of string literals in a statement
// with "***", using the guard's Doris lexer, so passwords and personal
// values in audit records are not shown. Text the lexer cannot read is
// masked whole.
func MaskLiterals(s string) string {
	toks, err := guard.Scan(s)
	if err != nil {
		return "/* statement not shown: it could not be read safely */"
	}
	var b strings.Builder
	last := 0
	for _, t := range toks {
		if t.Kind != guard.TokString {
			continue
		}
		b.WriteString(s[last:t.Pos])
		b.WriteString("'***'")
		last = t.Pos + len(t.Text)
	}
	b.WriteString(s[last:])
	return b.String()
}
