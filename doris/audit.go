package doris

import (
	"context"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/guard"
)

// AuditTable is Doris's audit log. Doris 2.1 and later create it when the
// FE starts (InternalSchemaInitializer); its built-in audit loader fills
// it only while the global enable_audit_plugin is true (false by default,
// qe/GlobalVariable.java), in batches every
// audit_plugin_max_batch_interval_sec (60 by default).
const AuditTable = "internal.__internal_schema.audit_log"

// AuditMissingMessage explains an audit log table that cannot be found.
// On 2.1+ the table always exists, so the usual cause is the account's
// privileges (or an FE still creating its internal schema); 2.0 needs the
// audit loader plugin installed.
const AuditMissingMessage = "the Doris audit log table (internal.__internal_schema.audit_log) is not visible to this account: " +
	"Doris 2.1 and later create it when the FE starts, so grant SELECT_PRIV on it (or wait for the FE to finish starting); " +
	"Doris 2.0 needs the audit loader plugin installed"

// AuditLag is the sentence the audit children's descriptions carry.
const AuditLag = "The audit log runs up to a minute behind."

// AuditPluginOffWarning is the warning of an audit child's answer while
// Doris's audit loader is off.
const AuditPluginOffWarning = "Doris's audit loader is off (enable_audit_plugin is false, Doris's default), so no new statements " +
	"reach the audit log; an admin turns it on with SET GLOBAL enable_audit_plugin = true."

// AuditPluginWarning reads the global enable_audit_plugin and returns
// AuditPluginOffWarning when it is false, or "" when it is on or cannot be
// read (Doris 2.0's audit loader plugin has no such variable).
func (r *Runtime) AuditPluginWarning(ctx context.Context, rt *Route) string {
	t, err := r.InternalText(ctx, rt, "SELECT @@enable_audit_plugin AS audit_plugin", 1, "PROBE")
	if err != nil || len(t.Rows) != 1 {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(t.Get(t.Rows[0], "audit_plugin"))) {
	case "false", "0", "off":
		return AuditPluginOffWarning
	}
	return ""
}

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
