package governance

import (
	"context"
	"errors"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// governancePrefix names the failure domain of doris_governance reasons.
const governancePrefix = "GOVERNANCE"

// Probes are the capability probes of this domain's children.
var Probes = map[string]doris.Probe{
	"governance.information_schema": {SQL: "SELECT COLUMN_NAME FROM information_schema.columns LIMIT 1"},
	"governance.audit_log":          {SQL: "SELECT `query_id` FROM internal.__internal_schema.audit_log LIMIT 1"},
	"governance.global_functions":   {SQL: "SHOW GLOBAL FULL FUNCTIONS"},
	"governance.ldap_config":        {SQL: "SHOW FRONTEND CONFIG LIKE 'ldap_authentication_enabled'"},
	"governance.role_mappings":      {SQL: "SELECT * FROM information_schema.role_mappings LIMIT 1"},
	"governance.lineage_plugin": {Run: func(ctx context.Context, r *doris.Runtime, rt *doris.Route) (string, time.Duration) {
		return kit{r}.probeLineagePlugin(ctx, rt)
	}},
	"governance.lineage_store": {Run: func(ctx context.Context, r *doris.Runtime, rt *doris.Route) (string, time.Duration) {
		return kit{r}.probeLineageStore(ctx, rt)
	}},
}

// probeLineagePlugin: the FE must know activate_lineage_plugin (Doris
// 4.0.6+) and name at least one plugin; Doris submits no lineage event
// while the list is empty.
func (r kit) probeLineagePlugin(ctx context.Context, rt *doris.Route) (string, time.Duration) {
	t, err := r.InternalText(ctx, rt, "SHOW FRONTEND CONFIG LIKE 'activate_lineage_plugin'", 4, "PROBE")
	if err != nil {
		return r.ProbeFailure(ctx, err)
	}
	if len(t.Rows) == 0 {
		return doris.ProbeNotSupported, 0
	}
	names, ok := doris.ConfigValue("activate_lineage_plugin", t.Get(t.Rows[0], "Value"))
	if !ok || len(names.([]string)) == 0 {
		return doris.ProbeNotConfigured, 0
	}
	return doris.ProbeOK, 0
}

// probeLineageStore: GOVERNANCE_LINEAGE_STORE_TABLE must be set, readable
// by the caller, and have the canonical event columns.
func (r kit) probeLineageStore(ctx context.Context, rt *doris.Route) (string, time.Duration) {
	if r.Settings().Governance.LineageStoreTable == "" {
		return doris.ProbeNotConfigured, 0
	}
	cols, err := r.lineageStoreColumns(ctx, rt, true)
	if err != nil {
		return r.ProbeFailure(ctx, err)
	}
	if len(missingColumns(cols, lineageRequiredColumns)) > 0 {
		return doris.ProbeNotSupported, 0
	}
	return doris.ProbeOK, 0
}

// governanceError classifies a failed read for a governance child: the
// backend's text never reaches the caller. Doris out of reach is
// GOVERNANCE_CONNECTION_FAILED, the reference server's code for it.
func governanceError(err error, ctx context.Context) *doris.Error {
	de := doris.Classify(governancePrefix, err, ctx)
	if de.Reason == governancePrefix+"_BACKEND_UNAVAILABLE" {
		de.Reason = governancePrefix + "_CONNECTION_FAILED"
	}
	return de
}

// notFound is the argument error for an object the caller named that does
// not exist or is not visible.
func notFound(reason, what, object string) *doris.Error {
	return &doris.Error{Kind: doris.KindArguments, Reason: governancePrefix + "_" + reason, Status: 404, Object: object,
		Message: what + " does not exist or is not visible to this account"}
}

// evidenceItem is one source a governance child read, or tried to.
func evidenceItem(source string, rows int, err error) map[string]any {
	ev := map[string]any{"source": source, "success": err == nil, "rows_observed": rows}
	if err != nil {
		var de *doris.Error
		if errors.As(err, &de) {
			ev["reason_code"] = de.Reason
		}
	}
	return ev
}
