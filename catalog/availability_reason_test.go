package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/doris-mcp/doris-mcp-server/catalog"
	"github.com/doris-mcp/doris-mcp-server/doris"
)

// TestBlockingReason: when every variant that applies fails its probes,
// the reason is the one that blocks the least demanding variant (the
// fallback), not the first variant's: on 4.0.6+ without the lineage
// plugin, trace_column_lineage is blocked by the audit log, not by a
// provider nobody has to configure.
func TestBlockingReason(t *testing.T) {
	rt := newFakeRuntime()
	rt.snap.Master = doris.Version{Major: 4, Minor: 0, Patch: 7}
	rt.snap.Frontends[0].Version, rt.snap.Backends[0].Version = "4.0.7", "4.0.7"
	rt.handlers["doris_governance.trace_column_lineage"] = rt.handlers["doris_catalog.list_tables"]
	rt.probe = map[string]string{
		"governance.lineage_plugin": doris.ProbeNotConfigured,
		"governance.lineage_store":  doris.ProbeNotConfigured,
		"governance.audit_log":      doris.ProbePermissionDenied,
	}
	s := newSurface(t, catalog.Config{}, rt)
	a := availabilityOf(t, s, "doris_governance", "trace_column_lineage")
	if a["reason_code"] != "CAPABILITY_PROBE_PERMISSION_DENIED" || a["callable"] != false {
		t.Fatalf("availability %v, want CAPABILITY_PROBE_PERMISSION_DENIED (the audit log blocks the fallback)", a)
	}
	if lim := fmt.Sprint(a["limitations"]); !strings.Contains(lim, "native_lineage_events") || !strings.Contains(lim, "PROVIDER_NOT_CONFIGURED") {
		t.Fatalf("limitations %s do not name the native path's reason", lim)
	}
	// With the audit log readable the fallback runs.
	rt.probe["governance.audit_log"] = doris.ProbeOK
	s = newSurface(t, catalog.Config{}, rt)
	if a := availabilityOf(t, s, "doris_governance", "trace_column_lineage"); a["callable"] != true || a["active_variant"] != "audit_sql_inference_fallback" {
		t.Fatalf("availability %v, want the audit fallback", a)
	}
}
