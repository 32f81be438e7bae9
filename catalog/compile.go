package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kaptinlin/jsonschema"

	"github.com/doris-mcp/doris-mcp-server/doris"
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
	input    *jsonschema.Schema
	output   *jsonschema.Schema
	// contract is the domain's own wire fragment hashed into
	// manifest_version.
	contract json.RawMessage
}

type compiledChild struct {
	*Child
	domain string
	// input validates arguments; output validates the child result
	// ({status, data, warnings, metadata[, evidence]}).
	input, output *jsonschema.Schema
	inputJSON     json.RawMessage // full input schema, compact
	outputJSON    json.RawMessage // child result schema, compact
	manifestInput json.RawMessage // input schema as a manifest shows it
	support       json.RawMessage // version_support
	variants      []variantRanges
	probes        []string // every probe the child or any variant needs
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

// newCompiler returns a schema compiler that never fetches anything: the
// contract's schemas are literal and self-contained, and a network $ref
// must never be dereferenced.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	refuse := func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("catalog: remote schema %q refused", url)
	}
	c.RegisterLoader("http", refuse)
	c.RegisterLoader("https", refuse)
	return c
}

func compileSchema(c *jsonschema.Compiler, src string) (*jsonschema.Schema, json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(src)); err != nil {
		return nil, nil, fmt.Errorf("invalid JSON: %w", err)
	}
	s, err := c.Compile(buf.Bytes())
	if err != nil {
		return nil, nil, err
	}
	return s, buf.Bytes(), nil
}

func compileDomain(d *Domain, enabled func(domain, child string) bool) (*compiledDomain, error) {
	cd := &compiledDomain{Domain: d}
	c := newCompiler()
	var errs []error
	if len(d.Children) > maxChildren {
		errs = append(errs, fmt.Errorf("catalog: %s has %d children, budget %d", d.Name, len(d.Children), maxChildren))
	}
	var err error
	if cd.input, _, err = compileSchema(c, domainInputSchema); err != nil {
		errs = append(errs, fmt.Errorf("catalog: %s input schema: %w", d.Name, err))
	}
	if cd.output, _, err = compileSchema(c, domainOutputSchema); err != nil {
		errs = append(errs, fmt.Errorf("catalog: %s output schema: %w", d.Name, err))
	}
	cd.contract, _ = json.Marshal(map[string]any{
		"name": d.Name, "title": d.Title, "description": d.Description, "input_schema": json.RawMessage(domainInputSchema),
	})
	for i := range d.Children {
		ch := &d.Children[i]
		cc, err := compileChild(c, d.Name, ch)
		if err != nil {
			errs = append(errs, fmt.Errorf("catalog: %s.%s: %w", d.Name, ch.Name, err))
			continue
		}
		if !enabled(d.Name, ch.Name) {
			continue
		}
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

func compileChild(c *jsonschema.Compiler, domain string, ch *Child) (*compiledChild, error) {
	cc := &compiledChild{Child: ch, domain: domain}
	var err error
	if cc.input, cc.inputJSON, err = compileSchema(c, ch.Input); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if cc.output, cc.outputJSON, err = compileSchema(c, childResultSchema(ch.Family, ch.Data)); err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	if err := checkInputShape(cc.inputJSON); err != nil {
		return nil, err
	}
	for name, b := range map[string][]byte{"input": cc.inputJSON, "output": cc.outputJSON} {
		if len(b) > maxSchemaBytes {
			return nil, fmt.Errorf("%s schema is %d bytes, budget %d", name, len(b), maxSchemaBytes)
		}
		if n := maxEnum(b); n > maxEnumValues {
			return nil, fmt.Errorf("%s schema has an enum of %d values, budget %d", name, n, maxEnumValues)
		}
	}
	if len(ch.Description) > maxDescription-maxPrefixLen {
		return nil, fmt.Errorf("description is %d characters, budget %d", len(ch.Description), maxDescription-maxPrefixLen)
	}
	cc.manifestInput = compactForManifest(cc.inputJSON)
	if len(ch.Variants) == 0 {
		return nil, errors.New("no variants")
	}
	cc.probes = slices.Clone(ch.Probes)
	var supported []string
	for i := range ch.Variants {
		v := &ch.Variants[i]
		vr := variantRanges{Variant: v}
		for _, r := range v.Ranges {
			pr, err := parseRange(r)
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", v.Name, err)
			}
			vr.ranges = append(vr.ranges, pr)
			if !slices.Contains(supported, r) {
				supported = append(supported, r)
			}
		}
		cc.variants = append(cc.variants, vr)
		for _, p := range v.Probes {
			if !slices.Contains(cc.probes, p) {
				cc.probes = append(cc.probes, p)
			}
		}
	}
	cc.support, _ = json.Marshal(map[string]any{"rule_id": ch.Feature, "supported_ranges": supported})
	return cc, nil
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
