package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// manifestEnvelopeBytes is room for the discovery envelope around the
// children (mode, domain, manifest_version, generated_at).
const manifestEnvelopeBytes = 256

// maxPrefixLen bounds the availability prefix of a manifest description,
// so that prefix plus description stay within maxDescription.
const maxPrefixLen = 96

// annotations are the fixed behaviour hints of every child: all 55 are
// bounded reads.
type annotations struct {
	ReadOnly             bool `json:"read_only"`
	Idempotent           bool `json:"idempotent"`
	Destructive          bool `json:"destructive"`
	OpenWorld            bool `json:"open_world"`
	RequiresConfirmation bool `json:"requires_confirmation"`
}

var readOnlyAnnotations = annotations{ReadOnly: true, Idempotent: true}

// manifestEntry is one child as discovery shows it.
type manifestEntry struct {
	Name           string          `json:"name"`
	Title          string          `json:"title"`
	Description    string          `json:"description"`
	InputSchema    json.RawMessage `json:"input_schema"`
	OutputSchema   json.RawMessage `json:"output_schema"`
	VersionSupport json.RawMessage `json:"version_support"`
	Availability   Availability    `json:"availability"`
	Annotations    annotations     `json:"annotations"`
}

// manifest is one domain's authorized children under one capability
// generation. It is immutable and shared between callers with the same
// authorized set and evidence.
type manifest struct {
	version  string
	entries  []manifestEntry
	children json.RawMessage // entries, rendered
	snap     *doris.Snapshot
}

func (m *manifest) entry(child string) *manifestEntry {
	for i := range m.entries {
		if m.entries[i].Name == child {
			return &m.entries[i]
		}
	}
	return nil
}

// manifestCache shares built manifests: a manifest is a pure function of
// the domain, the authorized children and the capability generation.
type manifestCache struct {
	mu sync.Mutex // protects m
	m  map[string]*manifest
}

const manifestCacheSize = 512

func newManifestCache() *manifestCache { return &manifestCache{m: map[string]*manifest{}} }

func (c *manifestCache) get(key string, build func() *manifest) *manifest {
	c.mu.Lock()
	if m, ok := c.m[key]; ok {
		c.mu.Unlock()
		return m
	}
	c.mu.Unlock()
	m := build()
	c.mu.Lock()
	if len(c.m) >= manifestCacheSize {
		clear(c.m) // generations move on; old entries are simply rebuilt
	}
	c.m[key] = m
	c.mu.Unlock()
	return m
}

// buildManifest returns the current manifest of d for id: the children id
// may discover, each with its availability under the route's current
// capability generation.
func (s *Surface) buildManifest(ctx context.Context, id auth.Identity, d *compiledDomain) *manifest {
	snap := s.rt.Snapshot(ctx, id, d.probes)
	visible := d.children
	for i, ch := range d.children {
		if !id.CanDiscover(d.Name, ch.Name) {
			visible = visible[:i:i] // a copy from here on
			for _, ch := range d.children[i:] {
				if id.CanDiscover(d.Name, ch.Name) {
					visible = append(visible, ch)
				}
			}
			break
		}
	}
	// The key names the visible children only when some are hidden: the
	// common case (all visible) costs one string.
	key := d.Name + "|" + snap.Generation(d.probes) + "|*"
	if len(visible) < len(d.children) {
		var b strings.Builder
		b.WriteString(key[:len(key)-1])
		for _, ch := range visible {
			b.WriteString(ch.Name)
			b.WriteByte('|')
		}
		key = b.String()
	}
	return s.manifest.get(key, func() *manifest {
		m := &manifest{snap: snap, entries: make([]manifestEntry, 0, len(visible))}
		for _, ch := range visible {
			if err := ch.rendered(); err != nil {
				s.log.Error("contract schema does not compile", "child", d.Name+"."+ch.Name, "err", err)
				continue
			}
			avail := evaluate(ch, s.rt.Handler(d.Name, ch.Name) != nil, snap)
			m.entries = append(m.entries, manifestEntry{
				Name:           ch.Name,
				Title:          ch.Title,
				Description:    prefix(avail, snap) + ch.Description,
				InputSchema:    ch.manifestInput,
				OutputSchema:   json.RawMessage(`{"type":"object"}`),
				VersionSupport: ch.support,
				Availability:   avail,
				Annotations:    readOnlyAnnotations,
			})
		}
		m.children, _ = json.Marshal(m.entries)
		if len(m.children) > maxManifestBytes-manifestEnvelopeBytes {
			// Over budget: drop the optional evidence details first (the
			// status, reason and variant stay authoritative).
			for i := range m.entries {
				m.entries[i].Availability.EvidenceSources = nil
				m.entries[i].Availability.DetectedVersions = nil
			}
			m.children, _ = json.Marshal(m.entries)
			s.log.Warn("manifest trimmed to its budget", "domain", d.Name, "bytes", len(m.children))
		}
		m.version = manifestVersion(d, m.children, snap.Generation(d.probes))
		return m
	})
}

// manifestVersion is deterministic: it changes with the contract, the
// authorized children and their availability, and the capability
// generation, never with time.
func manifestVersion(d *compiledDomain, children json.RawMessage, generation string) string {
	b, _ := json.Marshal(struct {
		FormatVersion        string          `json:"format_version"`
		DomainContract       json.RawMessage `json:"domain_contract"`
		Children             json.RawMessage `json:"children"`
		CapabilityGeneration string          `json:"capability_generation"`
	}{"1", d.contract, children, generation})
	sum := sha256.Sum256(b)
	return shortDomain(d.Name) + "." + hex.EncodeToString(sum[:])[:12]
}

// prefix is the human-readable state in front of a manifest description:
// "[AVAILABLE | Doris 2.1.7 | base_sections] ". It is a hint; the
// structured availability is authoritative.
func prefix(a Availability, snap *doris.Snapshot) string {
	var b strings.Builder
	b.WriteString("[")
	b.WriteString(statusWord(a))
	if !snap.Master.IsZero() {
		b.WriteString(" | Doris ")
		b.WriteString(snap.Master.String())
	}
	if a.ActiveVariant != "" {
		b.WriteString(" | ")
		b.WriteString(a.ActiveVariant)
	} else {
		b.WriteString(" | ")
		b.WriteString(a.ReasonCode)
	}
	b.WriteString("] ")
	p := b.String()
	if len(p) > maxPrefixLen {
		p = p[:maxPrefixLen-2] + "] "
	}
	return p
}

// The result of calling a domain with {} is the discovery envelope
// {"mode":"manifest","domain","manifest_version","generated_at","children"}.
func (s *Surface) discover(ctx context.Context, id auth.Identity, d *compiledDomain) *ToolResult {
	m := s.buildManifest(ctx, id, d)
	if len(m.children) > maxManifestBytes-manifestEnvelopeBytes {
		// Fail closed: a manifest over budget would flood the Host's
		// context; the operator must narrow the domain (MCP_CHILD_TOOL_DENYLIST).
		s.log.Error("manifest exceeds its budget", "domain", d.Name, "bytes", len(m.children))
		return (&errorEnvelope{Mode: "error", Domain: d.Name, Error: envelopeError{Code: CodeResultInvalid,
			Message: "this domain's manifest exceeds its size budget", Details: errorDetails{ReasonCode: "MANIFEST_BUDGET_EXCEEDED"}}}).result()
	}
	// Written by hand: the children are already rendered, and re-encoding
	// them through encoding/json would only compact them again.
	b := make([]byte, 0, len(m.children)+160)
	b = append(b, `{"mode":"manifest","domain":`...)
	b = appendQuoted(b, d.Name)
	b = append(b, `,"manifest_version":`...)
	b = appendQuoted(b, m.version)
	b = append(b, `,"generated_at":`...)
	b = appendQuoted(b, s.now().UTC().Format(time.RFC3339Nano))
	b = append(b, `,"children":`...)
	b = append(b, m.children...)
	b = append(b, '}')
	return &ToolResult{Structured: b}
}

// appendQuoted appends s as a JSON string.
func appendQuoted(b []byte, s string) []byte { return schema.AppendString(b, s) }
