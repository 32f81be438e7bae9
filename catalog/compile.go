package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/doris-mcp/doris-mcp-server/doris"
	"github.com/doris-mcp/doris-mcp-server/doris/schema"
)

// Budgets of the contract, enforced at startup (and shown by tests).
const (
	maxChildren        = 12
	maxDescription     = 800 // child description including the availability prefix
	maxSchemaBytes     = 4096
	maxEnumValues      = 32
	maxManifestBytes   = 16 << 10
	maxToolsListBytes  = 12 << 10
	baselineVersionStr = "2.0.0"
)

type compiledDomain struct {
	*Domain
	children []*compiledChild // the operator-enabled children, in table order
	probes   []string         // union of the children's probes
	// contract is the domain's own wire fragment hashed into
	// manifest_version.
	contract json.RawMessage
}

// compiledChild is one child of the contract. What a request needs at
// once (its names, variants and probes) is prepared by New; its schemas
// are compiled the first time the child is discovered, listed or called,
// so a server that never touches a domain never pays for it.
type compiledChild struct {
	*Child
	domain   string
	ceilings []doris.Ceiling // deployment bounds on its arguments
	variants []variantRanges
	probes   []string // every probe the child or any variant needs

	// Each form is built on first use: a list or a manifest needs the JSON
	// forms of a domain's children, a call needs the input validator of
	// one child, and only MCP_VALIDATE_RESULTS needs output validators.
	renderOnce    sync.Once
	renderErr     error
	inputJSON     json.RawMessage // full input schema, compact
	outputJSON    json.RawMessage // child result schema, compact
	manifestInput json.RawMessage // input schema as a manifest shows it
	support       json.RawMessage // version_support

	inputOnce  sync.Once
	input      *schema.Schema // validates arguments
	inputErr   error
	outputOnce sync.Once
	output     *schema.Schema // validates results
	outputErr  error
}

type variantRanges struct {
	*Variant
	ranges []versionRange
}

// versionRange is [min, max); a zero max is unbounded.
type versionRange struct{ min, max doris.Version }

func (r versionRange) contains(v doris.Version) bool {
	return v.Compare(r.min) >= 0 && (r.max.IsZero() || v.Compare(r.max) < 0)
}

// compactJSON compacts a literal schema.
func compactJSON(src string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(src)); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// newDomain prepares d for serving: its enabled children with their
// variants and probes. Schemas wait for first use.
func newDomain(d *Domain, enabled func(domain, child string) bool, ceilings map[string][]doris.Ceiling) (*compiledDomain, error) {
	cd := &compiledDomain{Domain: d}
	var errs []error
	cd.contract, _ = json.Marshal(map[string]any{
		"name": d.Name, "title": d.Title, "description": d.Description, "input_schema": json.RawMessage(domainInputSchema),
	})
	for i := range d.Children {
		ch := &d.Children[i]
		if !enabled(d.Name, ch.Name) {
			continue
		}
		cc, err := newChild(d.Name, ch)
		if err != nil {
			errs = append(errs, fmt.Errorf("catalog: %s.%s: %w", d.Name, ch.Name, err))
			continue
		}
		cc.ceilings = ceilings[d.Name+"."+ch.Name]
		cd.children = append(cd.children, cc)
		for _, p := range cc.probes {
			if !slices.Contains(cd.probes, p) {
				cd.probes = append(cd.probes, p)
			}
		}
	}
	slices.Sort(cd.probes)
	return cd, errors.Join(errs...)
}

func newChild(domain string, ch *Child) (*compiledChild, error) {
	cc := &compiledChild{Child: ch, domain: domain}
	if len(ch.Variants) == 0 {
		return nil, errors.New("no variants")
	}
	cc.probes = slices.Clone(ch.Probes)
	for i := range ch.Variants {
		v := &ch.Variants[i]
		vr := variantRanges{Variant: v}
		for _, r := range v.Ranges {
			pr, err := parseRange(r)
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", v.Name, err)
			}
			vr.ranges = append(vr.ranges, pr)
		}
		cc.variants = append(cc.variants, vr)
		for _, p := range v.Probes {
			if !slices.Contains(cc.probes, p) {
				cc.probes = append(cc.probes, p)
			}
		}
	}
	return cc, nil
}

// rendered builds the child's schemas as JSON (ceilings applied), once.
// A failure is a defect of the contract table, which the table tests
// catch before a build ships. Rendering does not compile the validators:
// a schema that renders but does not compile would be listed, and every
// call of its child would answer CONTRACT_INVALID; the table tests
// (checkBudgets, the ceilings test) compile every one of them.
func (cc *compiledChild) rendered() error {
	cc.renderOnce.Do(func() { cc.renderErr = cc.render() })
	return cc.renderErr
}

// inputSchema is the compiled validator of the child's arguments.
func (cc *compiledChild) inputSchema() (*schema.Schema, error) {
	cc.inputOnce.Do(func() {
		if cc.inputErr = cc.rendered(); cc.inputErr != nil {
			return
		}
		if cc.input, cc.inputErr = schema.Compile(cc.inputJSON); cc.inputErr != nil {
			cc.inputErr = cc.schemaError("input", cc.inputErr)
		}
	})
	return cc.input, cc.inputErr
}

// outputSchema is the compiled validator of the child's results.
func (cc *compiledChild) outputSchema() (*schema.Schema, error) {
	cc.outputOnce.Do(func() {
		if cc.outputErr = cc.rendered(); cc.outputErr != nil {
			return
		}
		if cc.output, cc.outputErr = schema.Compile(cc.outputJSON); cc.outputErr != nil {
			cc.outputErr = cc.schemaError("output", cc.outputErr)
		}
	})
	return cc.output, cc.outputErr
}

func (cc *compiledChild) schemaError(what string, err error) error {
	return fmt.Errorf("catalog: %s.%s %s schema: %w", cc.domain, cc.Name, what, err)
}

func (cc *compiledChild) render() error {
	var err error
	if cc.inputJSON, err = compactJSON(cc.Input); err != nil {
		return cc.schemaError("input", err)
	}
	for _, c := range cc.ceilings {
		if cc.inputJSON, err = applyCeiling(cc.inputJSON, c); err != nil {
			return cc.schemaError("input", err)
		}
	}
	if cc.outputJSON, err = compactJSON(childResultSchema(cc.Family, cc.Data)); err != nil {
		return cc.schemaError("output", err)
	}
	cc.manifestInput = compactForManifest(cc.inputJSON)
	var supported []string
	for _, v := range cc.Variants {
		for _, r := range v.Ranges {
			if !slices.Contains(supported, r) {
				supported = append(supported, r)
			}
		}
	}
	cc.support, _ = json.Marshal(map[string]any{"rule_id": cc.Feature, "supported_ranges": supported})
	return nil
}

// checkBudgets reports how cc breaks the contract's static budgets: a
// closed object input, schema sizes, enum sizes, description length. The
// table is literal, so the tests run this for every child; a start does
// not pay for it.
func (cc *compiledChild) checkBudgets() error {
	if _, err := cc.inputSchema(); err != nil {
		return err
	}
	if _, err := cc.outputSchema(); err != nil {
		return err
	}
	if err := checkInputShape(cc.inputJSON); err != nil {
		return err
	}
	for _, s := range []struct {
		name string
		b    []byte
	}{{"input", cc.inputJSON}, {"output", cc.outputJSON}} {
		name, b := s.name, s.b
		if len(b) > maxSchemaBytes {
			return fmt.Errorf("%s schema is %d bytes, budget %d", name, len(b), maxSchemaBytes)
		}
		if n := maxEnum(b); n > maxEnumValues {
			return fmt.Errorf("%s schema has an enum of %d values, budget %d", name, n, maxEnumValues)
		}
	}
	if len(cc.Description) > maxDescription-maxPrefixLen {
		return fmt.Errorf("description is %d characters, budget %d", len(cc.Description), maxDescription-maxPrefixLen)
	}
	return nil
}

// parseRange parses "MIN-" or "MIN-MAX".
func parseRange(s string) (versionRange, error) {
	lo, hi, ok := strings.Cut(s, "-")
	if !ok {
		return versionRange{}, fmt.Errorf("range %q is not MIN- or MIN-MAX", s)
	}
	var r versionRange
	var err error
	if r.min, err = doris.ParseVersion(lo); err != nil {
		return r, err
	}
	if hi != "" {
		if r.max, err = doris.ParseVersion(hi); err != nil {
			return r, err
		}
		if r.max.Compare(r.min) <= 0 {
			return r, fmt.Errorf("range %q is empty", s)
		}
	}
	return r, nil
}

// checkInputShape requires the root of an input schema to be a closed
// object.
func checkInputShape(b []byte) error {
	var root struct {
		Type                 string `json:"type"`
		AdditionalProperties *bool  `json:"additionalProperties"`
	}
	if err := json.Unmarshal(b, &root); err != nil {
		return err
	}
	if root.Type != "object" || root.AdditionalProperties == nil || *root.AdditionalProperties {
		return errors.New(`input schema must be {"type":"object","additionalProperties":false,...}`)
	}
	return nil
}

// maxEnum returns the largest enum in a schema document.
func maxEnum(b []byte) int {
	var v any
	json.Unmarshal(b, &v)
	n := 0
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if arr, ok := x.([]any); ok && k == "enum" {
					n = max(n, len(arr))
				}
				walk(x)
			}
		case []any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
	return n
}

// compactForManifest drops the members of an input schema that only
// explain (description, title, examples). Bounds stay: a Host that builds
// arguments from the manifest alone must not hit a hidden limit.
func compactForManifest(b []byte) json.RawMessage {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.Decode(&v)
	var strip func(any, bool) any
	strip = func(v any, inProperties bool) any {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				if !inProperties && (k == "description" || k == "title" || k == "examples") {
					delete(t, k)
					continue
				}
				t[k] = strip(x, k == "properties" && !inProperties)
			}
		case []any:
			for i, x := range t {
				t[i] = strip(x, false)
			}
		}
		return v
	}
	out, _ := json.Marshal(strip(v, false))
	return out
}
