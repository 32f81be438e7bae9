package doris

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Version is a normalised Doris version major.minor.patch.
type Version struct{ Major, Minor, Patch int }

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// IsZero reports whether v is unknown.
func (v Version) IsZero() bool { return v == Version{} }

// Compare returns -1, 0 or +1.
func (v Version) Compare(w Version) int {
	for _, d := range [...]int{v.Major - w.Major, v.Minor - w.Minor, v.Patch - w.Patch} {
		if d < 0 {
			return -1
		}
		if d > 0 {
			return 1
		}
	}
	return 0
}

// ParseVersion parses "MAJ.MIN.PATCH".
func ParseVersion(s string) (Version, error) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return Version{}, fmt.Errorf("doris: version %q is not major.minor.patch", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || len(p) > 4 {
			return Version{}, fmt.Errorf("doris: version %q is not major.minor.patch", s)
		}
		n[i] = v
	}
	return Version{n[0], n[1], n[2]}, nil
}

// buildRE matches the build string of a Doris version: doris-2.1.7-rc03-443e87e203,
// doris-2.0.15.1-279e7f0d39 (a fourth number is a hotfix; dropped),
// doris-4.0.7-rc02-35854e7e92a. Hashes are 7 to 11 hex digits.
var buildRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bdoris-(\d+)\.(\d+)\.(\d+)(?:\.\d+)?(?:-rc\d+)?(?:-[0-9a-f]{7,11})?\b`)
})

// Build is what a version string says: the normalised version, whether the
// deployment announced cloud (compute-storage decoupled) mode, and the raw
// text kept for diagnostics.
type Build struct {
	Version Version
	Cloud   bool
	Raw     string
}

// ParseBuild reads @@version_comment ("Doris version doris-2.1.7-rc03-443e87e203",
// optionally followed by " (Cloud Mode)") or a Version column of SHOW
// FRONTENDS/BACKENDS ("doris-2.1.7-rc03-443e87e203"). ok is false when no
// Doris build is found (another MySQL server, a vendor fork's own brand).
func ParseBuild(s string) (b Build, ok bool) {
	b.Raw = strings.TrimSpace(s)
	b.Cloud = strings.Contains(strings.ToLower(s), "(cloud mode)")
	m := buildRE().FindStringSubmatch(s)
	if m == nil {
		return b, false
	}
	maj, _ := strconv.Atoi(m[1])
	min, _ := strconv.Atoi(m[2])
	pat, _ := strconv.Atoi(m[3])
	b.Version = Version{maj, min, pat}
	return b, true
}

// Node is one FE or BE as SHOW FRONTENDS / SHOW BACKENDS report it.
type Node struct {
	Role    string `json:"role"` // "fe" or "be"
	Host    string `json:"host"`
	Master  bool   `json:"master,omitempty"`
	Alive   bool   `json:"alive"`
	Version string `json:"version,omitempty"` // normalised; "" when unparsable
}

// Probe outcomes.
const (
	ProbeOK               = "OK"
	ProbeFailed           = "PROBE_FAILED"
	ProbePermissionDenied = "PERMISSION_DENIED"
	ProbeNotSupported     = "NOT_SUPPORTED"
	ProbeTimeout          = "TIMEOUT"
	ProbeNotConfigured    = "NOT_CONFIGURED"
	// ProbeUnknown: no outcome in this snapshot (the caller stopped
	// waiting, the evidence is stale so nothing was probed, or the id is
	// not a probe this runtime knows).
	ProbeUnknown = "UNKNOWN_PROBE"
)

// Reasons a whole snapshot is unavailable.
const (
	ReasonConnectionFailed     = "DORIS_CONNECTION_FAILED"
	ReasonAuthenticationFailed = "DORIS_AUTHENTICATION_FAILED"
	ReasonDatabaseUnavailable  = "DORIS_DATABASE_UNAVAILABLE"
	ReasonTLSRequired          = "DORIS_TLS_REQUIRED"
	ReasonNotDoris             = "DORIS_VERSION_UNKNOWN"
	ReasonSnapshotUnavailable  = "CAPABILITY_SNAPSHOT_UNAVAILABLE"
)

// Snapshot is one coherent capability generation of a route: everything a
// manifest is built from. It is immutable once returned; refreshes produce
// new snapshots.
type Snapshot struct {
	// Route is the connection route the evidence came from.
	Route string
	// Unavailable is "" when the base evidence was taken, else the reason
	// code (ReasonConnectionFailed, ...). Everything else is then empty.
	Unavailable string
	// Detail is a short, sanitized sentence about Unavailable (no backend
	// text).
	Detail string
	// Master is the version of the FE this route talks to, from
	// @@version_comment; zero when unknown.
	Master Version
	// Brand is the raw build string, for diagnostics.
	Brand string
	// Frontends and Backends as listed (nil when the route may not list
	// them; FEVisible/BEVisible tell).
	Frontends, Backends  []Node
	FEVisible, BEVisible bool
	// Mode is the deployment mode: "integrated" or "cloud".
	Mode string
	// Mixed is true when live nodes report different versions.
	Mixed bool
	// Stale is true when the evidence is past its TTL and a refresh failed
	// (served within the stale grace).
	Stale bool
	// Probes holds the outcome of every probe run in this generation.
	Probes map[string]string
	// Providers reports which optional providers are configured
	// ("fe_http", "be_http", "adbc", ...).
	Providers map[string]bool
	// TakenAt is when the base evidence was taken.
	TakenAt time.Time

	// gen memoises Generation for the probe set genKey: the capability
	// cache computes it once per shared snapshot, not once per call.
	gen, genKey string
}

// Versions returns the normalised versions per component for a scope:
// "master_fe", "fe" (all live FEs), "be" (all live BEs).
func (s *Snapshot) Versions(component string) []string {
	var out []string
	switch component {
	case "master_fe":
		if !s.Master.IsZero() {
			out = append(out, s.Master.String())
		}
	case "fe", "be":
		nodes := s.Frontends
		if component == "be" {
			nodes = s.Backends
		}
		for _, n := range nodes {
			if n.Alive && n.Version != "" && !slices.Contains(out, n.Version) {
				out = append(out, n.Version)
			}
		}
		slices.Sort(out)
	}
	return out
}

// Generation fingerprints the base evidence plus the given probes'
// outcomes: two snapshots with the same fingerprint lead to the same
// availability for children that use only those probes. Time is not part
// of it: a refresh that finds the same evidence keeps the generation.
func (s *Snapshot) Generation(probes []string) string {
	if s.gen != "" && s.genKey == probeKey(probes) {
		return s.gen
	}
	return s.generation(probes)
}

// probeKey names a probe set.
func probeKey(probes []string) string { return strings.Join(probes, "\x00") }

func (s *Snapshot) generation(probes []string) string {
	type probe struct{ ID, Outcome string }
	var ps []probe
	for _, id := range probes {
		ps = append(ps, probe{id, s.Probes[id]})
	}
	slices.SortFunc(ps, func(a, b probe) int { return strings.Compare(a.ID, b.ID) })
	ps = slices.Compact(ps)
	providers := make([]string, 0, len(s.Providers))
	for p, ok := range s.Providers {
		if ok {
			providers = append(providers, p)
		}
	}
	slices.Sort(providers)
	b, _ := json.Marshal(struct {
		Route, Unavailable, Detail, Master, Mode string
		FE, BE                                   []Node
		FEVisible, BEVisible                     bool
		Mixed, Stale                             bool
		Probes                                   []probe
		Providers                                []string
	}{s.Route, s.Unavailable, s.Detail, s.Master.String(), s.Mode, s.Frontends, s.Backends, s.FEVisible, s.BEVisible,
		s.Mixed, s.Stale, ps, providers})
	sum := sha256.Sum256(b)
	return "cap." + hex.EncodeToString(sum[:8])
}
