package doris

import (
	"context"
	"errors"
	"strings"
	"time"
)

// governancePrefix names the failure domain of doris_governance reasons.
const governancePrefix = "GOVERNANCE"

// governanceHandlers binds the children of doris_governance that this build runs.
func (r *Runtime) governanceHandlers() map[string]Handler {
	return map[string]Handler{
		"doris_governance.analyze_columns":               r.analyzeColumns,
		"doris_governance.analyze_table_storage":         r.analyzeTableStorage,
		"doris_governance.get_lineage_capability_status": r.getLineageCapabilityStatus,
		"doris_governance.trace_column_lineage":          r.traceColumnLineage,
		"doris_governance.analyze_data_access_patterns":  r.analyzeDataAccessPatterns,
		"doris_governance.get_recent_audit_logs":         r.getRecentAuditLogs,
		"doris_governance.list_udfs":                     r.listUDFs,
		"doris_governance.get_auth_mapping_status":       r.getAuthMappingStatus,
	}
}

// governanceProbeSQL are the SQL capability probes of doris_governance.
var governanceProbeSQL = map[string]string{
	"governance.information_schema": "SELECT COLUMN_NAME FROM information_schema.columns LIMIT 1",
	"governance.audit_log":          "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1",
	"governance.global_functions":   "SHOW GLOBAL FULL FUNCTIONS",
	"governance.ldap_config":        "SHOW FRONTEND CONFIG LIKE 'ldap_authentication_enabled'",
	"governance.role_mappings":      "SELECT * FROM information_schema.role_mappings LIMIT 1",
}

// governanceProbeFuncs are the governance probes that judge what a read
// returns, not only whether it runs: a lineage plugin configuration that
// exists but activates nothing, and a configured lineage store that lacks
// the canonical columns, are not ready.
var governanceProbeFuncs = map[string]func(r *Runtime, ctx context.Context, rt *route) (string, time.Duration){
	"governance.lineage_plugin": (*Runtime).probeLineagePlugin,
	"governance.lineage_store":  (*Runtime).probeLineageStore,
}

// probeLineagePlugin: the FE must know activate_lineage_plugin (Doris
// 4.0.6+) and name at least one plugin; Doris submits no lineage event
// while the list is empty.
func (r *Runtime) probeLineagePlugin(ctx context.Context, rt *route) (string, time.Duration) {
	t, err := r.internalText(ctx, rt, "SHOW FRONTEND CONFIG LIKE 'activate_lineage_plugin'", 4, "PROBE")
	if err != nil {
		return r.probeFailure(ctx, err)
	}
	if len(t.rows) == 0 {
		return ProbeNotSupported, 0
	}
	names, ok := configValue("activate_lineage_plugin", t.get(t.rows[0], "Value"))
	if !ok || len(names.([]string)) == 0 {
		return ProbeNotConfigured, 0
	}
	return ProbeOK, 0
}

// probeLineageStore: GOVERNANCE_LINEAGE_STORE_TABLE must be set, readable
// by the caller, and have the canonical event columns.
func (r *Runtime) probeLineageStore(ctx context.Context, rt *route) (string, time.Duration) {
	if r.cfg.Governance.LineageStoreTable == "" {
		return ProbeNotConfigured, 0
	}
	cols, err := r.lineageStoreColumns(ctx, rt, true)
	if err != nil {
		return r.probeFailure(ctx, err)
	}
	if len(missingColumns(cols, lineageRequiredColumns)) > 0 {
		return ProbeNotSupported, 0
	}
	return ProbeOK, 0
}

// lineageStoreParts splits GOVERNANCE_LINEAGE_STORE_TABLE into 2 or 3
// checked names.
func lineageStoreParts(s string) ([]string, error) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, errors.New("want db.table or catalog.db.table")
	}
	for _, p := range parts {
		if e := checkIdent(governancePrefix, "lineage store", p); e != nil {
			return nil, e
		}
	}
	return parts, nil
}

// governanceError classifies a failed read for a governance child: the
// backend's text never reaches the caller. Doris out of reach is
// GOVERNANCE_CONNECTION_FAILED, the reference server's code for it.
func governanceError(err error, ctx context.Context) *Error {
	de := classify(governancePrefix, err, ctx)
	if de.Reason == governancePrefix+"_BACKEND_UNAVAILABLE" {
		de.Reason = governancePrefix + "_CONNECTION_FAILED"
	}
	return de
}

// notFound is the argument error for an object the caller named that does
// not exist or is not visible.
func notFound(reason, what, object string) *Error {
	return &Error{Kind: KindArguments, Reason: governancePrefix + "_" + reason, Status: 404, Object: object,
		Message: what + " does not exist or is not visible to this account"}
}

// evidenceItem is one source a governance child read, or tried to.
func evidenceItem(source string, rows int, err error) map[string]any {
	ev := map[string]any{"source": source, "success": err == nil, "rows_observed": rows}
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			ev["reason_code"] = de.Reason
		}
	}
	return ev
}
