// Package schema is the JSON layer of the server: one in-place JSON walk,
// one strict decoder and the validator of the tool contract's JSON
// Schemas. It depends on the standard library only and knows no MCP,
// JSON-RPC or Doris member (TestJSONLayerNamesNoMember holds it to that);
// it lives under doris so that the catalog, the protocol layer, the
// runtime's loaders (doris/ossie), the MetricFlow provider and auth can all
// use it.
//
// Check and Decode are the strict decoder: exactly one RFC 8259 value in
// valid UTF-8, no member name twice in one object (compared after
// unescaping), bounded nesting, and, for Decode, member names matched
// exactly rather than encoding/json's case-insensitive way. Its refusals
// are *Error values with a Reason, an offset and a path, so that each
// caller keeps its own messages and codes.
//
// The validator validates JSON documents against the subset of JSON
// Schema 2020-12 the tool contract (and the Apache Ossie model schema) is
// written in, in one pass over the document's bytes.
//
// The catalog validates every child's arguments on every call: it is a
// security boundary, and it sits on the hot path. A general validator
// decodes the document into Go values and evaluates every keyword through
// several layers of generic machinery; this one compiles each schema once
// into a small tree of checks and walks the argument bytes in place,
// decoding only the scalars it compares (numbers as the exact decimals
// they are written as). It supports exactly the keywords the contract
// uses (type, enum, const, the length, range, multipleOf, size and
// uniqueness bounds, pattern, properties, additionalProperties, required,
// propertyNames, dependentRequired, items, allOf, anyOf, oneOf, not,
// if/then/else, local $ref into $defs, and the annotations) and refuses to
// compile a schema with any other keyword, so it can never silently ignore
// a constraint.
// Its verdicts are checked against github.com/kaptinlin/jsonschema, a
// complete implementation, by differential tests and fuzzing, over the
// contract's schemas (catalog, doris/ossie) and over generated schemas
// using every keyword above (agree_test.go).
//
// Violations name where and which keyword failed, and say why in words
// that name the argument and the bound, never the offending value.
//
// The in-place walk (Members, Elements, Str, Num, KindOf) is for the
// protocol layer's own decoding, on documents Check has accepted.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Schema is a compiled schema. It is immutable and safe for concurrent use.
type Schema struct {
	root *node
}

// node is one compiled (sub)schema.
type node struct {
	never bool // the false schema

	types   typeSet // 0: any type
	enum    []any   // decoded JSON values
	hasEnum bool
	konst   any
	isConst bool

	minLength, maxLength int // -1 when absent
	pattern              *regexp.Regexp
	patternSrc           string

	minimum, maximum       *bound
	exclMinimum, exclMaxim *bound
	multipleOf             *bound

	minItems, maxItems int
	uniqueItems        bool
	items              *node

	properties    map[string]*node
	propOrder     []string
	required      []string
	additional    *node // nil: any
	propertyNames *node
	minProps      int
	maxProps      int
	depRequired   map[string][]string

	allOf, anyOf, oneOf []*node
	not                 *node
	ifN, thenN, elseN   *node
}

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBool
	tInteger
	tNumber // includes integers
	tString
	tArray
	tObject
)

var typeNames = map[string]typeSet{"null": tNull, "boolean": tBool, "integer": tInteger, "number": tNumber,
	"string": tString, "array": tArray, "object": tObject}

// annotations are keywords that carry no assertion.
var annotations = map[string]bool{"description": true, "title": true, "default": true, "examples": true,
	"$comment": true, "deprecated": true, "readOnly": true, "writeOnly": true, "format": true}

// Compile compiles a schema document. It fails on malformed JSON, on a
// malformed keyword and on any keyword it does not implement.
func Compile(doc []byte) (*Schema, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	c := &compiler{defs: map[string]*node{}, edges: map[string][]refEdge{}}
	if m, ok := v.(map[string]any); ok {
		if d, ok := m["$defs"].(map[string]any); ok {
			c.source = d
		} else if _, has := m["$defs"]; has {
			return nil, fmt.Errorf("schema: #/$defs: must be an object")
		}
	}
	root, err := c.compile(v, "")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(c.source))
	for name := range c.source {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names { // an unused definition is still checked
		if _, err := c.def(name, ""); err != nil {
			return nil, err
		}
	}
	if err := c.checkRefs(names); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

// Bounds on a schema's shape, so that compiling and validating always end
// well inside the goroutine stack.
const (
	// maxSchemaDepth bounds the nesting of subschemas in the document.
	maxSchemaDepth = 128
	// maxRefChain bounds a chain of references that apply to one value
	// (none descending into the document between them).
	maxRefChain = 32
)

// compiler compiles one schema document: its $defs are compiled once, on
// first reference.
type compiler struct {
	source map[string]any   // the root's $defs
	defs   map[string]*node // compiled definitions, by name (or being compiled)
	// stack holds the definitions being compiled, innermost last, each
	// with the number of descending keywords entered when it began.
	stack []defFrame
	// descents counts the keywords entered, on the way to the subschema
	// being compiled, whose subschema applies to a value nested inside the
	// current one (properties, items, additionalProperties,
	// propertyNames).
	descents int
	// depth is the nesting of the subschema being compiled, within its
	// definition (or the root).
	depth int
	// edges are the references from each definition that apply to the
	// same value the definition applies to.
	edges map[string][]refEdge
}

type defFrame struct {
	name     string
	descents int
}

type refEdge struct {
	to, at string
}

// def returns the compiled definition name, referenced at at.
func (c *compiler) def(name, at string) (*node, error) {
	if n, ok := c.defs[name]; ok {
		return n, nil // compiled, or being compiled (checkRefs sees cycles)
	}
	src, ok := c.source[name]
	if !ok {
		return nil, fmt.Errorf("schema: %s/$ref: #/$defs/%s does not exist", orRoot(at), name)
	}
	n := &node{}
	c.defs[name] = n
	c.stack = append(c.stack, defFrame{name, c.descents})
	depth := c.depth
	c.depth = 0
	compiled, err := c.compile(src, pointer("/$defs", name))
	c.depth = depth
	c.stack = c.stack[:len(c.stack)-1]
	if err != nil {
		return nil, err
	}
	*n = *compiled
	return n, nil
}

// ref records a reference to name at at, and returns its definition.
func (c *compiler) ref(name, at string) (*node, error) {
	if len(c.stack) > 0 {
		if top := c.stack[len(c.stack)-1]; c.descents == top.descents {
			c.edges[top.name] = append(c.edges[top.name], refEdge{name, at})
		}
	}
	return c.def(name, at)
}

// checkRefs refuses references that would make validation recurse on one
// value without end: a cycle of definitions none of which descends into
// the document on the way round (each reference in it applies to the very
// value the definition does), and chains of such references longer than
// maxRefChain. A reference below properties, items, additionalProperties
// or propertyNames applies to a nested value or a name, so a cycle through
// one ends with the document. This is decided on the graph of
// definitions, not on the text of schema paths, so a definition named
// "properties" is a definition like any other.
func (c *compiler) checkRefs(names []string) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[string]int{}
	longest := map[string]int{} // the longest chain of references from a definition
	var visit func(name string) error
	visit = func(name string) error {
		state[name] = active
		for _, e := range c.edges[name] {
			switch state[e.to] {
			case active:
				return fmt.Errorf("schema: #%s/$ref: refers to #/$defs/%s without descending into the document", e.at, e.to)
			case unseen:
				if err := visit(e.to); err != nil {
					return err
				}
			}
			if l := longest[e.to] + 1; l > longest[name] {
				longest[name] = l
			}
			if longest[name] > maxRefChain {
				return fmt.Errorf("schema: #%s/$ref: more than %d references apply to one value", e.at, maxRefChain)
			}
		}
		state[name] = done
		return nil
	}
	for _, name := range names {
		if state[name] == unseen {
			if err := visit(name); err != nil {
				return err
			}
		}
	}
	return nil
}

// MustCompile is Compile for literal schemas known to be valid.
func MustCompile(doc string) *Schema {
	s, err := Compile([]byte(doc))
	if err != nil {
		panic(err)
	}
	return s
}

// compileIn compiles a subschema that applies to a value nested inside
// the current one (or to a member name).
func (c *compiler) compileIn(v any, at string) (*node, error) {
	c.descents++
	defer func() { c.descents-- }()
	return c.compile(v, at)
}

func (c *compiler) compile(v any, at string) (*node, error) {
	if c.depth >= maxSchemaDepth {
		return nil, fmt.Errorf("schema: %s: subschemas nest deeper than %d levels", orRoot(at), maxSchemaDepth)
	}
	c.depth++
	defer func() { c.depth-- }()
	switch t := v.(type) {
	case bool:
		return &node{never: !t, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}, nil
	case map[string]any:
	default:
		return nil, fmt.Errorf("schema: %s: a schema must be an object or a boolean", orRoot(at))
	}
	m := v.(map[string]any)
	n := &node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	fail := func(kw, why string) error { return fmt.Errorf("schema: %s/%s: %s", orRoot(at), kw, why) }
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, kw := range keys {
		val := m[kw]
		var err error
		switch kw {
		case "type":
			n.types, err = compileTypes(val)
		case "enum":
			arr, ok := val.([]any)
			if !ok {
				return nil, fail(kw, "must be an array")
			}
			n.enum, n.hasEnum = arr, true
		case "const":
			n.konst, n.isConst = val, true
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
			var k int
			if k, err = nonNegative(val); err == nil {
				switch kw {
				case "minLength":
					n.minLength = k
				case "maxLength":
					n.maxLength = k
				case "minItems":
					n.minItems = k
				case "maxItems":
					n.maxItems = k
				case "minProperties":
					n.minProps = k
				case "maxProperties":
					n.maxProps = k
				}
			}
		case "pattern":
			s, ok := val.(string)
			if !ok {
				return nil, fail(kw, "must be a string")
			}
			if n.pattern, err = regexp.Compile(s); err == nil {
				n.patternSrc = s
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
			var b *bound
			if b, err = boundOf(val); err == nil {
				switch kw {
				case "minimum":
					n.minimum = b
				case "maximum":
					n.maximum = b
				case "exclusiveMinimum":
					n.exclMinimum = b
				case "exclusiveMaximum":
					n.exclMaxim = b
				case "multipleOf":
					if b.d.zero() || b.d.neg {
						return nil, fail(kw, "must be positive")
					}
					n.multipleOf = b
				}
			}
		case "uniqueItems":
			b, ok := val.(bool)
			if !ok {
				return nil, fail(kw, "must be a boolean")
			}
			n.uniqueItems = b
		case "items":
			n.items, err = c.compileIn(val, at+"/items")
		case "properties":
			pm, ok := val.(map[string]any)
			if !ok {
				return nil, fail(kw, "must be an object")
			}
			n.properties = make(map[string]*node, len(pm))
			for name, ps := range pm {
				if n.properties[name], err = c.compileIn(ps, pointer(at+"/properties", name)); err != nil {
					return nil, err
				}
				n.propOrder = append(n.propOrder, name)
			}
			sort.Strings(n.propOrder)
		case "required":
			n.required, err = stringList(val)
		case "additionalProperties":
			n.additional, err = c.compileIn(val, at+"/additionalProperties")
		case "propertyNames":
			n.propertyNames, err = c.compileIn(val, at+"/propertyNames")
		case "dependentRequired":
			dm, ok := val.(map[string]any)
			if !ok {
				return nil, fail(kw, "must be an object")
			}
			n.depRequired = map[string][]string{}
			for name, list := range dm {
				if n.depRequired[name], err = stringList(list); err != nil {
					return nil, fail(kw, err.Error())
				}
			}
		case "allOf", "anyOf", "oneOf":
			arr, ok := val.([]any)
			if !ok || len(arr) == 0 {
				return nil, fail(kw, "must be a non-empty array")
			}
			list := make([]*node, len(arr))
			for i, s := range arr {
				if list[i], err = c.compile(s, at+"/"+kw+"/"+strconv.Itoa(i)); err != nil {
					return nil, err
				}
			}
			switch kw {
			case "allOf":
				n.allOf = append(n.allOf, list...) // after a $ref's target
			case "anyOf":
				n.anyOf = list
			case "oneOf":
				n.oneOf = list
			}
		case "not":
			n.not, err = c.compile(val, at+"/not")
		case "if":
			n.ifN, err = c.compile(val, at+"/if")
		case "then":
			n.thenN, err = c.compile(val, at+"/then")
		case "else":
			n.elseN, err = c.compile(val, at+"/else")
		case "$ref":
			ref, ok := val.(string)
			name, local := strings.CutPrefix(ref, "#/$defs/")
			if !ok || !local || strings.ContainsAny(name, "/~") {
				return nil, fail(kw, "only local references into #/$defs are supported")
			}
			var target *node
			if target, err = c.ref(name, at); err == nil {
				// Beside other keywords a reference is one more subschema
				// the value must match (2020-12).
				n.allOf = append([]*node{target}, n.allOf...)
			}
		case "$defs":
			if at != "" {
				return nil, fail(kw, "is supported at the root only")
			}
		case "$schema", "$id":
		default:
			if !annotations[kw] {
				return nil, fail(kw, "keyword not supported by this validator")
			}
		}
		if err != nil {
			return nil, fail(kw, err.Error())
		}
	}
	return n, nil
}

func orRoot(at string) string {
	if at == "" {
		return "#"
	}
	return "#" + at
}

func compileTypes(v any) (typeSet, error) {
	var names []any
	switch t := v.(type) {
	case string:
		names = []any{t}
	case []any:
		names = t
	default:
		return 0, fmt.Errorf("must be a string or an array of strings")
	}
	var ts typeSet
	for _, x := range names {
		s, _ := x.(string)
		bit, ok := typeNames[s]
		if !ok {
			return 0, fmt.Errorf("unknown type %q", s)
		}
		ts |= bit
	}
	return ts, nil
}

func nonNegative(v any) (int, error) {
	f, err := number(v)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("must be a non-negative integer")
	}
	return int(f), nil
}

// bound is a numeric keyword's value: exact, for comparing, and as a
// float64, for messages.
type bound struct {
	d decimal
	f float64
}

func boundOf(v any) (*bound, error) {
	f, err := number(v)
	if err != nil {
		return nil, err
	}
	d, ok := parseDecimal([]byte(v.(json.Number)))
	if !ok {
		return nil, fmt.Errorf("must be a number")
	}
	return &bound{d, f}, nil
}

func number(v any) (float64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("must be a number")
	}
	return n.Float64()
}

func stringList(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("must be an array of strings")
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("must be an array of strings")
		}
		out = append(out, s)
	}
	return out, nil
}

// Violation is one way a document fails its schema: where (a JSON
// Pointer into the document), which keyword, and why in words that name
// the member and the bound but never repeat the document's values.
type Violation struct {
	InstancePath string `json:"instancePath"`
	Keyword      string `json:"keyword"`
	Message      string `json:"message,omitempty"`
}

// Limits bound the work one document may cause, whatever its schema says.
type Limits struct {
	MaxDepth int // nesting of objects and arrays; 0: DefaultMaxDepth
	MaxNodes int // values in all; 0: no bound
}

// Validate checks doc against s and returns at most max violations (all
// of them when max <= 0), sorted by path and keyword. nil means valid. A
// document that is not exactly one well-formed JSON value (Check's
// grammar; a member name may repeat, the protocol layer refuses that) is
// one "json" violation, whatever the schema says.
func (s *Schema) Validate(doc []byte, lim Limits, max int) []Violation {
	if e := check(doc, Strict{MaxDepth: lim.MaxDepth, MaxValues: lim.MaxNodes, Duplicates: true}); e != nil {
		switch {
		case e.Reason == TooDeep:
			return []Violation{{Keyword: "maxDepth", Message: fmt.Sprintf("the document is nested deeper than %d levels", e.Limit)}}
		case e.Reason == TooMany:
			return []Violation{{Keyword: "maxNodes", Message: fmt.Sprintf("the document holds more than %d values", e.Limit)}}
		case !utf8.Valid(doc):
			return []Violation{{Keyword: "json", Message: "the document is not valid UTF-8"}}
		}
		return []Violation{{Keyword: "json", Message: "the document is not well-formed JSON"}}
	}
	var v validator
	v.check(s.root, doc, "", 1)
	if v.syntax {
		return []Violation{{Keyword: "json", Message: "the document is not well-formed JSON"}}
	}
	if len(v.out) == 0 {
		return nil
	}
	sort.SliceStable(v.out, func(i, j int) bool {
		if v.out[i].InstancePath != v.out[j].InstancePath {
			return v.out[i].InstancePath < v.out[j].InstancePath
		}
		return v.out[i].Keyword < v.out[j].Keyword
	})
	v.out = slices.CompactFunc(v.out, func(a, b Violation) bool { return a == b })
	if max > 0 && len(v.out) > max {
		v.out = v.out[:max]
	}
	return v.out
}

// Valid reports whether doc is one well-formed JSON value that satisfies s.
func (s *Schema) Valid(doc []byte) bool {
	if check(doc, Strict{Duplicates: true}) != nil {
		return false
	}
	v := validator{quick: true}
	return v.check(s.root, doc, "", 1) && !v.syntax
}

type validator struct {
	out    []Violation
	quick  bool // stop at the first failure, record nothing
	syntax bool
}

func (v *validator) fail(path, kw, msg string) bool {
	if !v.quick {
		v.out = append(v.out, Violation{InstancePath: path, Keyword: kw, Message: msg})
	}
	return false
}

// sub evaluates n against doc in a scratch validator (for anyOf, oneOf,
// not, if): only the verdict matters there.
func (v *validator) sub(n *node, doc []byte, path string, depth int) bool {
	w := validator{quick: true}
	ok := w.check(n, doc, path, depth)
	if w.syntax {
		v.syntax = true
	}
	return ok
}

// label names the member at path for a message: "sql", "filters.x",
// "the arguments" at the root.
func label(path string) string {
	if path == "" {
		return "the arguments"
	}
	return strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", "."), "~1", "/")
}

func pointer(path, name string) string {
	if strings.ContainsAny(name, "~/") {
		name = strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
	}
	return path + "/" + name
}
