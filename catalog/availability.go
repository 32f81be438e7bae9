package catalog

import (
	"fmt"
	"slices"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// Availability is the structured, authoritative state of one child for one
// caller and one capability generation.
type Availability struct {
	Status           string              `json:"status"` // available|degraded|unavailable|misconfigured|unknown
	Callable         bool                `json:"callable"`
	ReasonCode       string              `json:"reason_code"`
	DetectedVersions map[string][]string `json:"detected_versions,omitempty"`
	ActiveVariant    string              `json:"active_variant,omitempty"`
	EvidenceSources  []string            `json:"evidence_sources,omitempty"`
	Limitations      []string            `json:"limitations,omitempty"`
}

// Availability statuses.
const (
	StatusAvailable     = "available"
	StatusDegraded      = "degraded"
	StatusUnavailable   = "unavailable"
	StatusMisconfigured = "misconfigured"
	StatusUnknown       = "unknown"
)

var baseline = doris.Version{Major: 2}

// evaluate decides a child's availability from the evidence. It never
// guesses: every path that is not proven runnable is not callable, with
// the most precise reason known.
func evaluate(ch *compiledChild, bound bool, snap *doris.Snapshot) Availability {
	if notBuilt[ch.Provider] {
		// Nothing at run time can make these callable: say what is missing.
		return Availability{Status: StatusUnavailable, ReasonCode: "PROVIDER_NOT_AVAILABLE",
			Limitations: []string{providerHint(ch.Provider)}}
	}
	if !bound {
		return Availability{Status: StatusUnavailable, ReasonCode: "HANDLER_NOT_BOUND",
			Limitations: []string{"not implemented by this build"}}
	}
	if snap.Unavailable != "" {
		a := Availability{Status: StatusUnknown, ReasonCode: snap.Unavailable, EvidenceSources: []string{"SELECT @@version_comment"}}
		if snap.Detail != "" {
			a.Limitations = []string{snap.Detail}
		}
		return a
	}
	a := Availability{EvidenceSources: evidenceSources(ch, snap)}
	versions, limitation := scopedVersions(ch.Scope, snap)
	a.DetectedVersions = detected(ch.Scope, snap)
	if limitation != "" {
		a.Limitations = append(a.Limitations, limitation)
	}
	if len(versions) == 0 {
		a.Status, a.ReasonCode = StatusUnknown, "DORIS_VERSION_UNKNOWN"
		return a
	}
	for _, v := range versions {
		if v.Compare(baseline) < 0 {
			a.Status, a.ReasonCode = StatusUnavailable, "DORIS_VERSION_BELOW_MINIMUM"
			a.Limitations = append(a.Limitations, "Doris "+v.String()+" is older than the 2.0.0 baseline")
			return a
		}
	}
	if ch.Provider != "" && !snap.Providers[ch.Provider] {
		a.Status, a.ReasonCode = StatusMisconfigured, "PROVIDER_NOT_CONFIGURED"
		a.Limitations = append(a.Limitations, providerHint(ch.Provider))
		return a
	}
	if reason := probeFailure(ch.Probes, snap); reason != "" {
		a.Status, a.ReasonCode = StatusUnavailable, reason
		return a
	}
	var versionMatched, modeMatched bool
	// Variants are listed best first, so the last one that applies is what
	// the child needs at least: when every applicable variant's probes
	// fail, its reason is the one that blocks the child (a native path
	// that is not configured does not, when a fallback exists). The others'
	// reasons go to the limitations.
	type blockedVariant struct{ name, reason string }
	var blocked []blockedVariant
	for _, v := range ch.variants {
		if !allIn(versions, v.ranges) {
			continue
		}
		versionMatched = true
		if len(v.Modes) > 0 && !slices.Contains(v.Modes, snap.Mode) {
			continue
		}
		modeMatched = true
		if r := probeFailure(v.Probes, snap); r != "" {
			blocked = append(blocked, blockedVariant{v.Name, r})
			continue
		}
		a.ActiveVariant = v.Name
		a.Limitations = append(a.Limitations, v.Limitations...)
		a.Callable = true
		a.Status, a.ReasonCode = StatusAvailable, "CAPABILITY_VERIFIED"
		if v.Degraded || limitation != "" || snap.Stale {
			a.Status, a.ReasonCode = StatusDegraded, "CAPABILITY_VERIFIED_DEGRADED"
		}
		if snap.Stale {
			a.Limitations = append(a.Limitations, "capability evidence is past its refresh time; Doris did not answer the last refresh")
		}
		return a
	}
	switch {
	case !versionMatched && len(versions) > 1:
		a.Status, a.ReasonCode = StatusUnavailable, "MIXED_DORIS_VERSIONS"
		a.Limitations = append(a.Limitations, "the components run different Doris versions and no capability path covers them all")
	case !versionMatched:
		a.Status, a.ReasonCode = StatusUnavailable, "VERSION_RANGE_NOT_MATCHED"
	case !modeMatched:
		a.Status, a.ReasonCode = StatusUnavailable, "DEPLOYMENT_MODE_NOT_SUPPORTED"
		a.Limitations = append(a.Limitations, "not available in "+snap.Mode+" deployments")
	default:
		last := blocked[len(blocked)-1]
		a.Status, a.ReasonCode = StatusUnavailable, last.reason
		for _, b := range blocked[:len(blocked)-1] {
			a.Limitations = append(a.Limitations, "the "+b.name+" path is not available either ("+b.reason+")")
		}
	}
	return a
}

// scopedVersions returns the versions a scope is judged by, and a
// limitation when they had to be assumed from the master FE.
func scopedVersions(scope VersionScope, snap *doris.Snapshot) ([]doris.Version, string) {
	var comps []string
	switch scope {
	case ScopeAllFE:
		comps = []string{"fe"}
	case ScopeAllBE:
		comps = []string{"be"}
	case ScopeAllComponents:
		comps = []string{"fe", "be"}
	}
	var out []doris.Version
	add := func(s string) {
		if v, err := doris.ParseVersion(s); err == nil && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if !snap.Master.IsZero() {
		add(snap.Master.String())
	}
	assumed := ""
	for _, c := range comps {
		visible := snap.FEVisible
		if c == "be" {
			visible = snap.BEVisible
		}
		if !visible {
			assumed = "the " + c + " versions are not visible to this account; the master FE version is assumed for them"
			continue
		}
		for _, v := range snap.Versions(c) {
			add(v)
		}
	}
	if len(out) == 0 {
		return nil, ""
	}
	return out, assumed
}

func detected(scope VersionScope, snap *doris.Snapshot) map[string][]string {
	d := map[string][]string{}
	if v := snap.Versions("master_fe"); len(v) > 0 {
		d["master_fe"] = v
	}
	if scope == ScopeAllFE || scope == ScopeAllComponents {
		if v := snap.Versions("fe"); len(v) > 0 {
			d["fe"] = v
		}
	}
	if scope == ScopeAllBE || scope == ScopeAllComponents {
		if v := snap.Versions("be"); len(v) > 0 {
			d["be"] = v
		}
	}
	if len(d) == 0 {
		return nil
	}
	return d
}

func allIn(versions []doris.Version, ranges []versionRange) bool {
	for _, v := range versions {
		in := false
		for _, r := range ranges {
			if r.contains(v) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// probeFailure returns the reason code of the first failed probe, or "".
func probeFailure(probes []string, snap *doris.Snapshot) string {
	for _, p := range probes {
		switch snap.Probes[p] {
		case doris.ProbeOK:
			continue
		case doris.ProbePermissionDenied:
			return "CAPABILITY_PROBE_PERMISSION_DENIED"
		case doris.ProbeNotSupported:
			return "CAPABILITY_PROBE_NOT_SUPPORTED"
		case doris.ProbeTimeout:
			return "CAPABILITY_PROBE_TIMEOUT"
		case doris.ProbeNotConfigured:
			return "PROVIDER_NOT_CONFIGURED"
		case "", doris.ProbeUnknown:
			return "CAPABILITY_PROBE_PENDING"
		default:
			if r := doris.ProbeReason(snap.Probes[p]); r != "" {
				return r
			}
			return "CAPABILITY_PROBE_FAILED"
		}
	}
	return ""
}

func evidenceSources(ch *compiledChild, snap *doris.Snapshot) []string {
	src := []string{"SELECT @@version_comment"}
	if snap.FEVisible {
		src = append(src, "SHOW FRONTENDS")
	}
	if snap.BEVisible {
		src = append(src, "SHOW BACKENDS")
	}
	for _, p := range ch.probes {
		if _, ran := snap.Probes[p]; ran {
			src = append(src, "probe:"+p)
		}
	}
	return src
}

func providerHint(p string) string {
	switch p {
	case ProviderFEHTTP:
		return "needs the FE HTTP endpoint (DORIS_FE_HTTP_HOST / DORIS_FE_HTTP_PORT)"
	case ProviderBEHTTP:
		return "needs BE web servers (DORIS_BE_HOSTS)"
	case ProviderADBC:
		return "set ADBC_ENABLED=true and FE_ARROW_FLIGHT_SQL_PORT (Doris arrow_flight_sql_port)"
	case ProviderOssie:
		return "set OSSIE_ENABLED"
	case ProviderMetricFlow:
		return "set METRICFLOW_ENABLED"
	}
	return fmt.Sprintf("needs the %s provider", p)
}

// notBuilt are providers this build has no client for (none: ADBC has
// the built-in Arrow Flight SQL client, doris/flightsql).
var notBuilt = map[string]bool{}

// statusWord is the availability prefix's first word.
func statusWord(a Availability) string {
	switch a.Status {
	case StatusAvailable:
		return "AVAILABLE"
	case StatusDegraded:
		return "DEGRADED"
	case StatusMisconfigured:
		return "MISCONFIGURED"
	case StatusUnknown:
		return "UNKNOWN"
	}
	return "UNAVAILABLE"
}
