// Package catalog is the tool contract: the flat table of 8 Doris domains
// and their 55 children, the two exposure modes (hierarchical domains with
// progressive discovery, or every child flat), authorized discovery
// manifests with per-child availability from live capability evidence,
// manifest_version, the exact child dispatcher with its result and error
// envelopes, and the resources, prompts and completions served beside the
// tools.
//
// Everything that does not depend on a request is done once in New: schemas
// are compiled, tool lists and per-child wire fragments are rendered. The
// catalog never talks to Doris itself; it asks a Runtime for capability
// snapshots and runs the Runtime's handlers. It does not guess: a child that
// cannot run stays listed with callable=false and a reason, and a child the
// caller may not see does not exist for that caller.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/auth"
	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/handle"
)

// Exposure modes (MCP_TOOL_EXPOSURE_MODE). The mode is fixed for the life of
// the process.
const (
	Hierarchical = "hierarchical"
	Flat         = "flat"
)

// Runtime is the Doris side of the catalog. *doris.Runtime implements it;
// tests use fakes.
type Runtime interface {
	// Snapshot returns one coherent capability generation for the
	// identity's route, with at least the given probes run in it. It never
	// fails: an unreachable Doris is a snapshot with Unavailable set.
	Snapshot(ctx context.Context, id auth.Identity, probes []string) *doris.Snapshot
	// Handler returns the handler bound to domain.child, or nil.
	Handler(domain, child string) doris.Handler
	// Names lists object names for completion: catalogs (catalog == ""),
	// databases of a catalog (database == ""), or tables of a database;
	// at most limit names with the given prefix, sorted.
	Names(ctx context.Context, id auth.Identity, catalog, database, prefix string, limit int) ([]string, error)
	// Objects lists up to limit tables and views the identity can see,
	// for resources/list.
	Objects(ctx context.Context, id auth.Identity, limit int) ([]doris.ObjectRef, error)
	// ReadObject returns the JSON document of a resource: kind "table" or
	// "view" (schema and comments) or "stats" (sizes). doris.ErrNotFound
	// when the object does not exist or is not visible.
	ReadObject(ctx context.Context, id auth.Identity, kind, catalog, database, name string) ([]byte, error)
}

// Config configures the catalog.
type Config struct {
	// Mode is Hierarchical (default) or Flat.
	Mode string
	// Enabled, when non-empty, is the allowlist of "domain.child" names the
	// operator exposes; Disabled is a denylist applied after it. A child
	// the operator hides is absent for every caller.
	Enabled, Disabled []string
	// Handles signs page cursors of collection children.
	Handles *handle.Signer
	// Logger receives contract defects and result-validation failures;
	// the invocation log line of a call is the protocol layer's, from
	// ToolResult.Call.
	Logger *slog.Logger
	// Now is the clock (manifest generated_at, durations); nil: time.Now.
	Now func() time.Time
	// CallTimeout is the hard ceiling of one child call; the runtime's own
	// limits are tighter. Zero means 330 s.
	CallTimeout time.Duration
	// MaxResources bounds resources/list (tables listed as resources).
	MaxResources int
	// ValidateResults checks every child result against its output
	// schema before it is sent (MCP_VALIDATE_RESULTS). The tests and CI
	// run with it on; in production a result is the server's own output,
	// so it is off unless asked for.
	ValidateResults bool
	// Ceilings are the deployment's bounds on integer arguments
	// (doris.Config.Ceilings): each child's input schema states them, so
	// discovery never offers a value the runtime refuses.
	Ceilings []doris.Ceiling
}

// Surface is the compiled contract served to the protocol layer. It is
// immutable after New and safe for concurrent use.
type Surface struct {
	cfg      Config
	rt       Runtime
	log      *slog.Logger
	now      func() time.Time
	domains  []*compiledDomain
	byTool   map[string]toolTarget // MCP tool name -> domain or child
	manifest *manifestCache

	toolsOnce sync.Once
	tools     []Tool // tools/list of the mode, sorted by name; rendered on first use
	toolsErr  error
}

// toolTarget is what an MCP tool name resolves to: a domain (hierarchical)
// or one child (flat).
type toolTarget struct {
	domain *compiledDomain
	child  *compiledChild // nil for a domain tool
}

// New prepares the table for cfg. It fails on an unknown name in the allow
// or deny list and on a malformed version range. It compiles nothing: a
// domain's schemas are compiled when it is first used, and the tools/list
// of the mode is rendered on the first list (the table tests prove every
// schema compiles and fits its budget).
func New(cfg Config, rt Runtime) (*Surface, error) {
	if cfg.Mode == "" {
		cfg.Mode = Hierarchical
	}
	if cfg.Mode != Hierarchical && cfg.Mode != Flat {
		return nil, fmt.Errorf("catalog: unknown exposure mode %q (want hierarchical or flat)", cfg.Mode)
	}
	if cfg.Handles == nil {
		return nil, errors.New("catalog: Config.Handles is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 330 * time.Second
	}
	if cfg.MaxResources <= 0 {
		cfg.MaxResources = 1000
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Surface{cfg: cfg, rt: rt, log: log, now: cfg.Now, byTool: map[string]toolTarget{}, manifest: newManifestCache()}
	enabled, err := operatorFilter(cfg.Enabled, cfg.Disabled)
	if err != nil {
		return nil, err
	}
	var errs []error
	ceilings := ceilingsByChild(cfg.Ceilings)
	for _, d := range domains {
		cd, err := newDomain(d, enabled, ceilings)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.domains = append(s.domains, cd)
		if cfg.Mode == Hierarchical {
			s.byTool[d.Name] = toolTarget{domain: cd}
			continue
		}
		for _, ch := range cd.children {
			s.byTool[flatName(d.Name, ch.Name)] = toolTarget{domain: cd, child: ch}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// CheckNames reports every name that is not a "domain.child" of the
// contract, for configuration validation.
func CheckNames(names []string) error {
	_, err := operatorFilter(names, nil)
	return err
}

// operatorFilter returns the predicate of the operator's allow and deny
// lists, refusing names that are not in the contract.
func operatorFilter(enabled, disabled []string) (func(domain, child string) bool, error) {
	known := map[string]bool{}
	for _, d := range domains {
		for _, c := range d.Children {
			known[d.Name+"."+c.Name] = true
		}
	}
	var errs []error
	for _, list := range [][]string{enabled, disabled} {
		for _, n := range list {
			if !known[n] {
				errs = append(errs, fmt.Errorf("catalog: %q is not a domain.child of the contract", n))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return func(domain, child string) bool {
		n := domain + "." + child
		if len(enabled) > 0 && !slices.Contains(enabled, n) {
			return false
		}
		return !slices.Contains(disabled, n)
	}, nil
}

// Tools returns the tools/list entries for id, sorted by name. In
// hierarchical mode they are the eight domains; in flat mode the children
// id may discover.
func (s *Surface) Tools(ctx context.Context, id auth.Identity) ([]Tool, error) {
	s.toolsOnce.Do(func() { s.tools, s.toolsErr = s.renderTools() })
	if s.toolsErr != nil {
		return nil, &ListError{Category: "internal_error", Err: s.toolsErr}
	}
	if s.cfg.Mode == Hierarchical {
		return s.tools, nil
	}
	out := make([]Tool, 0, len(s.tools))
	for _, t := range s.tools {
		tg := s.byTool[t.Name]
		if id.CanDiscover(tg.domain.Name, tg.child.Name) {
			out = append(out, t)
		}
	}
	return out, nil
}

func flatName(domain, child string) string { return domain + "_" + child }

// shortDomain is the domain name without its "doris_" prefix.
func shortDomain(name string) string { return strings.TrimPrefix(name, "doris_") }
