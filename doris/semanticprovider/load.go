package semanticprovider

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Loading is strict per element: the manifest as a whole must be well
// formed (one JSON object within bounds, no duplicate key, no key that is
// a case variant of a key this provider reads, arrays where arrays
// belong), and each semantic model, measure, metric, saved query and time
// spine is then decoded on its own. An element with a key this provider
// does not know, a malformed field or a relation it cannot map is refused
// alone, with its reason code and JSON path; everything that does not
// depend on it loads. Free-form sections (config, meta, metadata, labels,
// exports, tags) are read as raw JSON and never refuse anything.

// refusal is an element that did not load.
type refusal struct {
	kind string // "semantic model", "measure", "metric", "saved query", "time spine"
	name string // "" when the element has no usable name
	err  *Error
}

// fieldError is a problem found while walking an element's keys.
type fieldError struct {
	path        string
	key         string
	caseVariant bool
}

// unknownKey walks the JSON value v against Go type t and returns the first
// key (in path order, keys sorted) that t does not declare. Raw JSON fields
// are free-form and not walked.
func unknownKey(v any, t reflect.Type, path string) *fieldError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return nil // a type mismatch; the decoder reports it
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok && inertKeys[k] {
				delete(x, k) // free-form wherever it appears
				continue
			}
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, k) {
						return &fieldError{path: path, key: k, caseVariant: true}
					}
				}
				return &fieldError{path: path, key: k}
			}
			if fe := unknownKey(x[k], ft, path+"."+k); fe != nil {
				return fe
			}
		}
	case []any:
		if t.Kind() != reflect.Slice {
			return nil
		}
		for i, e := range x {
			if fe := unknownKey(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); fe != nil {
				return fe
			}
		}
	}
	return nil
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// inertKeys are free-form sections: where an element has one this
// provider does not declare, it is dropped rather than refused, since
// nothing in it changes what a metric computes.
var inertKeys = map[string]bool{
	"config": true, "meta": true, "metadata": true, "labels": true, "label": true, "exports": true,
	"description": true, "tags": true, "unrendered_config": true, "docs": true,
}

// jsonFields maps the JSON keys of struct t to their types, with the
// fields of embedded structs promoted unless shadowed (as encoding/json
// resolves them).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var embedded []reflect.Type
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if f.Anonymous && tag == "" {
			embedded = append(embedded, f.Type)
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	for _, et := range embedded {
		for k, v := range jsonFields(et) {
			if _, shadowed := out[k]; !shadowed {
				out[k] = v
			}
		}
	}
	return out
}

// errCaseVariant marks a case-variant key: a parser-differential attack
// (encoding/json would read "Name" as "name", another reader would not),
// which refuses the whole manifest.
const errCaseVariant = "case-variant key"

// decodeElement decodes one element at path into v: unknown keys refuse
// the element (ReasonFieldUnknown), a case-variant key the manifest.
func decodeElement(raw json.RawMessage, v any, path string) *Error {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers are written back as they were
	if err := dec.Decode(&doc); err != nil {
		return fail(ReasonManifestInvalid, path+": "+cleanJSONErr(err))
	}
	if _, ok := doc.(map[string]any); !ok {
		return fail(ReasonManifestInvalid, path+": not a JSON object")
	}
	if fe := unknownKey(doc, reflect.TypeOf(v), path); fe != nil {
		if fe.caseVariant {
			return &Error{Reason: ReasonManifestInvalid, Detail: fe.path + ": " + errCaseVariant + " " + strconv.Quote(fe.key) + " (keys are case-sensitive)"}
		}
		return fail(ReasonFieldUnknown, fe.path+": unknown key "+strconv.Quote(fe.key))
	}
	// Written again without the dropped free-form keys.
	clean, err := json.Marshal(doc)
	if err != nil {
		return fail(ReasonManifestInvalid, path+": cannot re-encode the element")
	}
	if msg := decodeStrict(clean, v); msg != "" {
		return fail(ReasonElementInvalid, path+": "+msg)
	}
	return nil
}

// fatal reports whether an element's error refuses the whole manifest.
func fatal(err *Error) bool { return err != nil && err.Reason == ReasonManifestInvalid }

// elementName reads the "name" of an element that did not decode, so that
// what refers to it can say why it refuses; "" when there is none.
func elementName(raw json.RawMessage) string {
	var n struct {
		Name any `json:"name"`
	}
	if json.Unmarshal(raw, &n) != nil {
		return ""
	}
	s, _ := n.Name.(string)
	if !reName().MatchString(s) {
		return ""
	}
	return s
}

// measureNames reads the measure names of a semantic model that did not
// decode.
func measureNames(raw json.RawMessage) []string {
	var m struct {
		Measures []json.RawMessage `json:"measures"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []string
	for _, r := range m.Measures {
		if n := elementName(r); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// manifestDoc is the top level of a manifest; its sections are decoded
// element by element.
type manifestDoc struct {
	SemanticModels       []json.RawMessage `json:"semantic_models"`
	Metrics              []json.RawMessage `json:"metrics"`
	ProjectConfiguration json.RawMessage   `json:"project_configuration"`
	SavedQueries         []json.RawMessage `json:"saved_queries"`
}

// semanticModelDoc decodes a semantic model with its measures left raw,
// so that each measure is refused alone.
type semanticModelDoc struct {
	SemanticModel
	Measures []json.RawMessage `json:"measures"`
}

// projectConfigurationDoc decodes the project configuration with its time
// spines left raw.
type projectConfigurationDoc struct {
	ProjectConfiguration
	TimeSpineTableConfigurations []json.RawMessage `json:"time_spine_table_configurations"`
	TimeSpines                   []json.RawMessage `json:"time_spines"`
}

// topLevelKeys are the sections of a manifest.
var topLevelKeys = []string{"metrics", "project_configuration", "saved_queries", "semantic_models"}

// decodeTop decodes the top level. A key it does not know is not an
// element: it is listed as an issue and ignored.
func decodeTop(data []byte) (*manifestDoc, []string, *Error) {
	var top map[string]json.RawMessage
	if msg := decodeStrict(data, &top); msg != "" {
		return nil, nil, fail(ReasonManifestInvalid, msg)
	}
	var issues []string
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		known := false
		for _, n := range topLevelKeys {
			if k == n {
				known = true
				break
			}
			if strings.EqualFold(k, n) {
				return nil, nil, fail(ReasonManifestInvalid, "$: "+errCaseVariant+" "+strconv.Quote(k)+" (keys are case-sensitive)")
			}
		}
		if !known {
			issues = append(issues, "manifest: "+ReasonFieldUnknown+": $: unknown top-level key "+strconv.Quote(k)+", ignored")
			delete(top, k)
		}
	}
	again, _ := json.Marshal(top)
	var m manifestDoc
	if msg := decodeStrict(again, &m); msg != "" {
		return nil, nil, fail(ReasonManifestInvalid, msg)
	}
	return &m, issues, nil
}

// elementInvalid is invalid for one element: it refuses what uses it.
func elementInvalid(format string, args ...string) *Error {
	e := invalid(format, args...)
	e.Reason = ReasonElementInvalid
	return e
}
