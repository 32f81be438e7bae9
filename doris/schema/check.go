package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// check evaluates n against doc (one JSON value) at path and reports
// whether it holds; unless v.quick it records every violation on the way.
func (v *validator) check(n *node, doc []byte, path string, depth int) bool {
	if n.never {
		return v.fail(path, "false", label(path)+" is not allowed here")
	}
	doc = trimSpace(doc)
	k := KindOf(doc)
	if k == Invalid {
		v.syntax = true
		return false
	}
	ok := true
	if n.types != 0 && !typeMatches(n.types, k, doc) {
		ok = v.fail(path, "type", label(path)+" must be "+typeWords(n.types))
		if v.quick {
			return false
		}
	}
	if n.hasEnum || n.isConst {
		val, err := decode(doc)
		if err != nil {
			v.syntax = true
			return false
		}
		if n.isConst && !jsonEqual(val, n.konst) {
			ok = v.fail(path, "const", label(path)+" must be "+literal(n.konst))
		}
		if n.hasEnum && !inEnum(val, n.enum) {
			ok = v.fail(path, "enum", label(path)+" must be one of "+enumWords(n.enum))
		}
		if !ok && v.quick {
			return false
		}
	}
	switch k {
	case String:
		if !v.checkString(n, doc, path) {
			ok = false
		}
	case Number:
		if !v.checkNumber(n, doc, path) {
			ok = false
		}
	case Array:
		if !v.checkArray(n, doc, path, depth) {
			ok = false
		}
	case Object:
		if !v.checkObject(n, doc, path, depth) {
			ok = false
		}
	}
	if !ok && v.quick {
		return false
	}
	return v.checkApplicators(n, doc, path, depth) && ok
}

func (v *validator) checkString(n *node, doc []byte, path string) bool {
	if n.minLength < 0 && n.maxLength < 0 && n.pattern == nil {
		return true
	}
	s, good := Str(doc)
	if !good {
		v.syntax = true
		return false
	}
	ok := true
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			if n.minLength == 1 {
				ok = v.fail(path, "minLength", label(path)+" must not be empty")
			} else {
				ok = v.fail(path, "minLength", fmt.Sprintf("%s must be at least %d characters long", label(path), n.minLength))
			}
		}
		if n.maxLength >= 0 && l > n.maxLength {
			ok = v.fail(path, "maxLength", fmt.Sprintf("%s is longer than %d characters", label(path), n.maxLength))
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		ok = v.fail(path, "pattern", fmt.Sprintf("%s does not match the pattern %s", label(path), n.patternSrc))
	}
	return ok
}

func (v *validator) checkNumber(n *node, doc []byte, path string) bool {
	if n.minimum == nil && n.maximum == nil && n.exclMinimum == nil && n.exclMaxim == nil && n.multipleOf == nil {
		return true
	}
	d, good := parseDecimal(doc)
	if !good {
		v.syntax = true
		return false
	}
	ok := true
	if n.minimum != nil && d.cmp(&n.minimum.d) < 0 {
		ok = v.fail(path, "minimum", fmt.Sprintf("%s must be at least %s", label(path), fmtNum(n.minimum.f)))
	}
	if n.maximum != nil && d.cmp(&n.maximum.d) > 0 {
		ok = v.fail(path, "maximum", fmt.Sprintf("%s must be at most %s", label(path), fmtNum(n.maximum.f)))
	}
	if n.exclMinimum != nil && d.cmp(&n.exclMinimum.d) <= 0 {
		ok = v.fail(path, "exclusiveMinimum", fmt.Sprintf("%s must be greater than %s", label(path), fmtNum(n.exclMinimum.f)))
	}
	if n.exclMaxim != nil && d.cmp(&n.exclMaxim.d) >= 0 {
		ok = v.fail(path, "exclusiveMaximum", fmt.Sprintf("%s must be less than %s", label(path), fmtNum(n.exclMaxim.f)))
	}
	if n.multipleOf != nil && !d.multipleOf(&n.multipleOf.d) {
		ok = v.fail(path, "multipleOf", fmt.Sprintf("%s must be a multiple of %s", label(path), fmtNum(n.multipleOf.f)))
	}
	return ok
}

func (v *validator) checkArray(n *node, doc []byte, path string, depth int) bool {
	ok := true
	count := 0
	var seen []any
	err := Elements(doc, func(i int, el []byte) error {
		count++
		if n.items != nil && !v.check(n.items, el, path+"/"+strconv.Itoa(i), depth+1) {
			ok = false
			if v.quick {
				return errStop
			}
		}
		if n.uniqueItems && ok {
			val, err := decode(el)
			if err != nil {
				return err
			}
			for _, s := range seen {
				if jsonEqual(s, val) {
					ok = v.fail(path, "uniqueItems", label(path)+" must not repeat an item")
					return errStop
				}
			}
			seen = append(seen, val)
		}
		return nil
	})
	if err != nil && err != errStop {
		v.syntax = true
		return false
	}
	if n.minItems >= 0 && count < n.minItems {
		ok = v.fail(path, "minItems", fmt.Sprintf("%s must hold at least %d %s", label(path), n.minItems, plural(n.minItems, "item")))
	}
	if n.maxItems >= 0 && count > n.maxItems {
		ok = v.fail(path, "maxItems", fmt.Sprintf("%s must hold at most %d %s", label(path), n.maxItems, plural(n.maxItems, "item")))
	}
	return ok
}

// errStop ends a walk early without being a syntax error.
var errStop = fmt.Errorf("schema: stop")

func (v *validator) checkObject(n *node, doc []byte, path string, depth int) bool {
	ok := true
	count := 0
	var present map[string]bool
	if len(n.required) > 0 || len(n.depRequired) > 0 {
		present = make(map[string]bool, 8)
	}
	err := Members(doc, func(name string, val []byte) error {
		count++
		if present != nil {
			present[name] = true
		}
		if n.propertyNames != nil && !v.checkName(n.propertyNames, name, path) {
			ok = false
			if v.quick {
				return errStop
			}
		}
		sub, known := n.properties[name]
		if !known {
			sub = n.additional
		}
		if sub != nil {
			if sub.never && !known {
				ok = v.fail(memberPath(path, name), "additionalProperties", unknownMember(path, name))
			} else if !v.check(sub, val, memberPath(path, name), depth+1) {
				ok = false
			}
			if !ok && v.quick {
				return errStop
			}
		}
		return nil
	})
	if err != nil && err != errStop {
		v.syntax = true
		return false
	}
	if !ok && v.quick {
		return false
	}
	for _, r := range n.required {
		if !present[r] {
			ok = v.fail(path, "required", requiredWords(path, r))
		}
	}
	for name, deps := range n.depRequired {
		if !present[name] {
			continue
		}
		for _, d := range deps {
			if !present[d] {
				ok = v.fail(path, "dependentRequired", fmt.Sprintf("%s needs %s as well", name, d))
			}
		}
	}
	if n.minProps >= 0 && count < n.minProps {
		ok = v.fail(path, "minProperties", fmt.Sprintf("%s must have at least %d %s", label(path), n.minProps, plural(n.minProps, "member")))
	}
	if n.maxProps >= 0 && count > n.maxProps {
		ok = v.fail(path, "maxProperties", fmt.Sprintf("%s must have at most %d %s", label(path), n.maxProps, plural(n.maxProps, "member")))
	}
	return ok
}

// checkName evaluates propertyNames against one member name.
func (v *validator) checkName(n *node, name, path string) bool {
	doc, _ := json.Marshal(name)
	w := validator{quick: true}
	if w.check(n, doc, path, 1) {
		return true
	}
	return v.fail(path, "propertyNames", label(path)+" has a member name that is not allowed")
}

func (v *validator) checkApplicators(n *node, doc []byte, path string, depth int) bool {
	ok := true
	for _, s := range n.allOf {
		if !v.check(s, doc, path, depth) {
			ok = false
			if v.quick {
				return false
			}
		}
	}
	if len(n.anyOf) > 0 {
		matched := false
		for _, s := range n.anyOf {
			if v.sub(s, doc, path, depth) {
				matched = true
				break
			}
		}
		if !matched {
			ok = v.fail(path, "anyOf", label(path)+" must match at least one of: "+alternatives(n.anyOf))
		}
	}
	if len(n.oneOf) > 0 {
		count := 0
		for _, s := range n.oneOf {
			if v.sub(s, doc, path, depth) {
				count++
			}
		}
		if count != 1 {
			ok = v.fail(path, "oneOf", label(path)+" must match exactly one of: "+alternatives(n.oneOf))
		}
	}
	if n.not != nil && v.sub(n.not, doc, path, depth) {
		ok = v.fail(path, "not", label(path)+" matches a shape that is not allowed")
	}
	if n.ifN != nil {
		if v.sub(n.ifN, doc, path, depth) {
			if n.thenN != nil && !v.check(n.thenN, doc, path, depth) {
				ok = false
			}
		} else if n.elseN != nil && !v.check(n.elseN, doc, path, depth) {
			ok = false
		}
	}
	return ok
}

func typeMatches(ts typeSet, k Kind, doc []byte) bool {
	switch k {
	case Null:
		return ts&tNull != 0
	case Bool:
		return ts&tBool != 0
	case String:
		return ts&tString != 0
	case Array:
		return ts&tArray != 0
	case Object:
		return ts&tObject != 0
	case Number:
		if ts&tNumber != 0 {
			return true
		}
		return ts&tInteger != 0 && isInteger(doc)
	}
	return false
}

// isInteger reports whether a number literal has no fractional part
// (JSON Schema counts 1.0 as an integer).
func isInteger(lit []byte) bool {
	d, ok := parseDecimal(lit)
	return ok && d.integer()
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func typeWords(ts typeSet) string {
	var words []string
	for _, t := range []struct {
		bit  typeSet
		word string
	}{{tString, "a string"}, {tInteger, "an integer"}, {tNumber, "a number"}, {tBool, "a boolean"},
		{tArray, "an array"}, {tObject, "an object"}, {tNull, "null"}} {
		if ts&t.bit != 0 && !(t.bit == tInteger && ts&tNumber != 0) {
			words = append(words, t.word)
		}
	}
	switch len(words) {
	case 1:
		return words[0]
	case 2:
		return words[0] + " or " + words[1]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// decode reads one JSON value with numbers kept exact.
func decode(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// jsonEqual is JSON Schema equality: numbers compare by value, objects
// without regard to member order.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		dx, ok1 := parseDecimal([]byte(x))
		dy, ok2 := parseDecimal([]byte(y))
		return ok1 && ok2 && dx.cmp(&dy) == 0
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

// literal renders a schema constant for a message.
func literal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func enumWords(enum []any) string {
	parts := make([]string, 0, len(enum))
	for i, e := range enum {
		if i == 12 {
			parts = append(parts, fmt.Sprintf("... (%d in all)", len(enum)))
			break
		}
		parts = append(parts, literal(e))
	}
	return strings.Join(parts, ", ")
}

// alternatives describes the branches of anyOf/oneOf for a message: the
// members each requires, when that is all a branch says.
func alternatives(branches []*node) string {
	var parts []string
	for _, b := range branches {
		if !requiredOnly(b) {
			return fmt.Sprintf("%d alternative shapes", len(branches))
		}
		parts = append(parts, strings.Join(b.required, " and "))
	}
	return strings.Join(parts, ", or ")
}

func requiredOnly(n *node) bool {
	return len(n.required) > 0 && n.types == 0 && !n.hasEnum && !n.isConst && n.properties == nil &&
		n.additional == nil && len(n.allOf)+len(n.anyOf)+len(n.oneOf) == 0 && n.not == nil && n.ifN == nil
}

// memberPath is the JSON Pointer of a member. A name that is not a plain
// short identifier is not echoed: the path then ends in "/*".
func memberPath(path, name string) string {
	if !plainName(name) {
		return path + "/*"
	}
	return pointer(path, name)
}

func plainName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func unknownMember(path, name string) string {
	where := ""
	if path != "" {
		where = " of " + label(path)
	}
	if !plainName(name) {
		return "a member" + where + " is not a known argument"
	}
	return name + " is not a known argument" + where
}

func requiredWords(path, name string) string {
	if path == "" {
		return name + " is required"
	}
	return label(path) + "." + name + " is required"
}
